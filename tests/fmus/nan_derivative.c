/* A state whose derivative becomes NaN (issue 46, item 6): x' = -x until t_nan (0.55 s, a
 * parameter), NaN from there on, as a diverging model's can while its outputs stay finite. Model
 * Exchange only. Reals: 0 x (local, state, x(0) = 1), 1 der_x, 2 t_nan (parameter), 3 y = 2 t
 * (output). */
#include <math.h>

#include "model_core.h"

enum { kX, kDerX, kTNan, kY };

const char* const kModelName = "nan_derivative";
const int kNumReals = 4, kNumInts = 0, kNumBools = 0;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 1;
const unsigned kStateVr[] = {kX};
const unsigned kDerivativeVr[] = {kDerX};
const int kNumInputs = 0;
const unsigned kInputVr[] = {0};
const int kNumEventIndicators = 0;

void ModelStart(ModelData* m) {
  m->r[kX] = 1.0;
  m->r[kTNan] = 0.55;
}

void ModelCalculate(ModelData* m) {
  m->r[kDerX] = m->time < m->r[kTNan] ? -m->r[kX] : NAN;
  m->r[kY] = 2.0 * m->time;
}
