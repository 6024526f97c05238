/* Mass-spring-damper: m x'' = -c x - cf x' + F (the tutorial's model), states x and v = x'.
 *
 * Reals: 0 x (output, state), 1 v (output, state), 2 der_x, 3 der_v (locals, derivatives),
 * 4 F (input, N), 5 m (kg), 6 c (N/m), 7 cf (N s/m) (parameters), 8 fail_time, 9 crash_time (s,
 * parameters: DoStep fails / dereferences NULL when a step reaches them), 10 energy (local,
 * J), 11 end_time (parameter, s: the FMU ends its simulation, fmi2Discard + terminated,
 * at the first step that would pass it), 12 omega (local, rad/s: sqrt(c/m), a libm call the FMU
 * does not link libm for, as exported FMUs often do). Integer 0: steps (output, DoStep calls).
 * Boolean 0: damping (parameter, false ignores cf). String 0: label (parameter, echoed in the log).
 */
#include <math.h>
#include <stdio.h>

#include "model_core.h"

#ifndef MSD_FAIL_TIME
#define MSD_FAIL_TIME 1e300
#endif
#ifndef MSD_CRASH_TIME
#define MSD_CRASH_TIME 1e300
#endif

enum { kX, kV, kDerX, kDerV, kF, kM, kC, kCf, kFailTime, kCrashTime, kEnergy, kEndTime, kOmega };

const char* const kModelName = "msd";
const int kNumReals = 13, kNumInts = 1, kNumBools = 1;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 2;
const unsigned kStateVr[] = {kX, kV};
const unsigned kDerivativeVr[] = {kDerX, kDerV};
const int kNumInputs = 1;
const unsigned kInputVr[] = {kF};
const int kNumEventIndicators = 0;

#ifdef MSD_NEEDS_MISSING_LIBRARY
int CosimoMissingDependency(void); /* in a shared library the archive does not ship */
#endif

void ModelStart(ModelData* m) {
#ifdef MSD_NEEDS_MISSING_LIBRARY
  (void)CosimoMissingDependency();
#endif
  m->r[kX] = 1.0;
  m->r[kV] = 0.0;
  m->r[kF] = 0.0;
  m->r[kM] = 1.0;
  m->r[kC] = 1.0;
  m->r[kCf] = 0.2;
  m->r[kFailTime] = MSD_FAIL_TIME;
  m->r[kCrashTime] = MSD_CRASH_TIME;
  m->r[kEndTime] = 1e300;
  m->i[0] = 0;
  m->b[0] = true;
  snprintf(m->s, sizeof(m->s), "%s", "msd");
}

static double Damping(const ModelData* m) { return m->b[0] ? m->r[kCf] : 0.0; }

void ModelCalculate(ModelData* m) {
  m->r[kDerX] = m->r[kV];
  m->r[kDerV] = (-m->r[kC] * m->r[kX] - Damping(m) * m->r[kV] + m->r[kF]) / m->r[kM];
  m->r[kOmega] = sqrt(m->r[kC] / m->r[kM]);
  m->r[kEnergy] = 0.5 * m->r[kM] * m->r[kV] * m->r[kV] + 0.5 * m->r[kC] * m->r[kX] * m->r[kX];
}

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  (void)m;
  *states_changed = false;
}

bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known, double* value) {
  *value = 0.0;
  if (unknown == kDerX) {
    *value = known == kV ? 1.0 : 0.0;
  } else if (unknown == kDerV) {
    if (known == kX) *value = -m->r[kC] / m->r[kM];
    if (known == kV) *value = -Damping(m) / m->r[kM];
    if (known == kF) *value = 1.0 / m->r[kM];
  } else if (unknown == kX || unknown == kV) {
    *value = known == unknown ? 1.0 : 0.0;
  } else {
    return false;
  }
  return known == kX || known == kV || known == kF;
}

bool ModelBeforeStep(ModelData* m, double t, double h) {
  if (t + h > m->r[kCrashTime]) {
    volatile int* volatile nowhere = 0;
    *nowhere = 1; /* the segmentation fault the crash test FMU is for */
  }
  if (t + h > m->r[kFailTime]) {
    snprintf(m->message, sizeof(m->message), "%s: the step from t=%g reaches fail_time=%g", m->s, t,
             m->r[kFailTime]);
    return false;
  }
  if (t + h > m->r[kEndTime] + 1e-12) {
    m->terminate = true;
    return true;
  }
  m->i[0] += 1;
  return true;
}
