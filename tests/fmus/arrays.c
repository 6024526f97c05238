/* Arrays (issue 29, 4): FMI 3 array variables as tools export them (FMI 3.0.1 section 2.4.7.6:
 * <Dimension> children, sizes fixed or given by a structural parameter, values in row-major
 * order). A 2x3 parameter A (start 1 .. 6), an input u of n = 3 values (a structural parameter,
 * start 0.5 0.25 0.125), a state x with x' = 1 (x = t), the outputs v = u + x (n values), the
 * 2x3 Y with Y[i,j] = A[i,j] v[j], and their sum s. Unconnected, Y[i,j](t) = A[i,j] (u[j] + t).
 *
 * Reals: A r[0..5] (array vr 700), u r[6..8] (vr 701), Y r[9..14] (vr 702), x r[15] (vr 15),
 * der_x r[16] (vr 16), s r[17] (vr 17), v r[18..20] (vr 703). UInt64 n u64[0] (vr 500). */
#include "model_core.h"

enum { kA = 0, kU = 6, kY = 9, kX = 15, kDerX = 16, kS = 17, kV = 18 };

const char* const kModelName = "arrays";
const int kNumReals = 21, kNumInts = 0, kNumBools = 0;
const int kNumInt64s = 0, kNumUInt64s = 1;
const int kNumStates = 1;
const unsigned kStateVr[] = {kX};
const unsigned kDerivativeVr[] = {kDerX};
const int kNumInputs = 3;
const unsigned kInputVr[] = {kU, kU + 1, kU + 2};
const int kNumEventIndicators = 0;
const int kNumArrays = 4;
const ModelArray kArrays[] = {{700, kA, 6}, {701, kU, 3}, {702, kY, 6}, {703, kV, 3}};

void ModelStart(ModelData* m) {
  int k;
  for (k = 0; k < 6; ++k) m->r[kA + k] = k + 1;
  m->r[kU] = 0.5;
  m->r[kU + 1] = 0.25;
  m->r[kU + 2] = 0.125;
  m->r[kX] = 0.0;
  m->u64[0] = 3;
}

void ModelCalculate(ModelData* m) {
  int i, j;
  m->r[kDerX] = 1.0;
  m->r[kS] = 0.0;
  for (j = 0; j < 3; ++j) m->r[kV + j] = m->r[kU + j] + m->r[kX];
  for (i = 0; i < 2; ++i) {
    for (j = 0; j < 3; ++j) {
      m->r[kY + 3 * i + j] = m->r[kA + 3 * i + j] * m->r[kV + j];
      m->r[kS] += m->r[kY + 3 * i + j];
    }
  }
}

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  m->next_event_defined = false;
  *states_changed = false;
}
