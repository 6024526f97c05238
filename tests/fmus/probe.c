/* Probe: an integrator x' = u with the variables the FMI gap tests look at.
 *
 * Reals: 0 x (output, state), 1 der_x (local, its derivative), 2 u (input), 3 t_switch
 * (parameter, s: a time event). Integer 0: string_reads (output, the fmiXGetString calls so
 * far). String 0: mode (local, discrete: "before" until t_switch, "after" from then on).
 * FMI 3 only: Int64 0 big = 2^53 + 1, Int64 1 negative = -(2^53 + 1), UInt64 0 ubig = 2^64 - 1
 * (outputs, not exact as doubles). On a Co-Simulation step the input follows the derivatives of
 * orders 1 and 2 the importer set (FMI 2 canInterpolateInputs), so a quadratic input is
 * integrated exactly (RK4 is Simpson's rule here). */
#include <stdio.h>

#include "model_core.h"

enum { kX, kDerX, kU, kTSwitch };

const char* const kModelName = "probe";
const int kNumReals = 4, kNumInts = 1, kNumBools = 0;
const int kNumInt64s = 2, kNumUInt64s = 1;
const int kNumStates = 1;
const unsigned kStateVr[] = {kX};
const unsigned kDerivativeVr[] = {kDerX};
const int kNumInputs = 1;
const unsigned kInputVr[] = {kU};
const int kNumEventIndicators = 0;

void ModelStart(ModelData* m) {
  m->r[kX] = 0.0;
  m->r[kU] = 0.0;
  m->r[kTSwitch] = 0.5;
  m->i64[0] = INT64_C(9007199254740993);
  m->i64[1] = -INT64_C(9007199254740993);
  m->u64[0] = UINT64_MAX;
  snprintf(m->s, sizeof(m->s), "%s", "before");
}

void ModelCalculate(ModelData* m) {
  m->r[kDerX] = m->r[kU];
  m->i[0] = m->string_reads;
}

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  *states_changed = false;
  const bool switched = m->time >= m->r[kTSwitch] - 1e-12;
  if (switched) snprintf(m->s, sizeof(m->s), "%s", "after");
  m->next_event_defined = !switched;
  m->next_event_time = m->r[kTSwitch];
  ModelCalculate(m);
}

bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known, double* value) {
  (void)m;
  *value = (unknown == kDerX && known == kU) || (unknown == kX && known == kX) ? 1.0 : 0.0;
  return (unknown == kDerX || unknown == kX) && (known == kX || known == kU);
}
