/* A spring pendulum in the style of the SpringPendulum1D white box of the NeuralFMU paper: a mass
 * on a spring, m s'' = -c (s - s_rel0), states mass.s and mass.v (no friction, no inputs).
 *
 * Reals: 0 mass.s (output, state, m), 1 mass.v (output, state, m/s), 2 der(mass.s),
 * 3 der(mass.v) (locals, derivatives), 4 mass.m (kg), 5 spring.c (N/m), 6 spring.s_rel0 (m, the
 * rest position) (parameters). Directional derivatives of the derivatives and outputs with
 * respect to the states. */
#include "model_core.h"

enum { kS, kV, kDerS, kDerV, kM, kC, kRest };

const char* const kModelName = "spring_pendulum";
const int kNumReals = 7, kNumInts = 0, kNumBools = 0;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 2;
const unsigned kStateVr[] = {kS, kV};
const unsigned kDerivativeVr[] = {kDerS, kDerV};
const int kNumInputs = 0;
const unsigned kInputVr[] = {0};
const int kNumEventIndicators = 0;

void ModelStart(ModelData* m) {
  m->r[kS] = 0.5;
  m->r[kV] = 0.0;
  m->r[kM] = 1.0;
  m->r[kC] = 10.0;
  m->r[kRest] = 1.0;
  m->s[0] = '\0';
}

void ModelCalculate(ModelData* m) {
  m->r[kDerS] = m->r[kV];
  m->r[kDerV] = -m->r[kC] * (m->r[kS] - m->r[kRest]) / m->r[kM];
}

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  (void)m;
  *states_changed = false;
}

bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known, double* value) {
  *value = 0.0;
  if (unknown == kDerS) {
    *value = known == kV ? 1.0 : 0.0;
  } else if (unknown == kDerV) {
    if (known == kS) *value = -m->r[kC] / m->r[kM];
  } else if (unknown == kS || unknown == kV) {
    *value = known == unknown ? 1.0 : 0.0;
  } else {
    return false;
  }
  return known == kS || known == kV;
}
