/* Bouncing ball: h' = v, v' = -g; a state event when h falls through 0 sets v = -e v; an
 * optional time event at t_kick adds dv_kick to v.
 *
 * Reals: 0 h (output, state, m), 1 v (output, state, m/s), 2 der_h, 3 der_v (locals), 4 g
 * (m/s2), 5 e (parameters), 6 t_last_bounce (output, discrete, s: time of the last bounce,
 * -1 before), 7 t_kick (parameter, s; negative: none), 8 dv_kick (parameter, m/s).
 * 9 t_step_event (parameter, s; negative: none): the first integrator step completed at or after
 * it asks for event mode (a step event), whose time is kept in 10 t_step_seen (local, s).
 * Integer 0: bounces (output). Booleans 0: kicked, 1: step_event_done (locals). Event
 * indicator: h. */
#include "model_core.h"

enum { kH, kV, kDerH, kDerV, kG, kE, kTLast, kTKick, kDvKick, kTStep, kTStepSeen };

const char* const kModelName = "bouncing_ball";
const int kNumReals = 11, kNumInts = 1, kNumBools = 2;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 2;
const unsigned kStateVr[] = {kH, kV};
const unsigned kDerivativeVr[] = {kDerH, kDerV};
const int kNumInputs = 0;
const unsigned kInputVr[] = {0};
const int kNumEventIndicators = 1;

void ModelStart(ModelData* m) {
  m->r[kH] = 1.0;
  m->r[kV] = 0.0;
  m->r[kG] = 9.81;
  m->r[kE] = 0.7;
  m->r[kTLast] = -1.0;
  m->r[kTKick] = -1.0;
  m->r[kDvKick] = 0.0;
  m->i[0] = 0;
  m->b[0] = false;
  m->r[kTStep] = -1.0;
  m->r[kTStepSeen] = -1.0;
  m->b[1] = false;
}

void ModelCalculate(ModelData* m) {
  m->r[kDerH] = m->r[kV];
  m->r[kDerV] = -m->r[kG];
}

void ModelEventIndicators(const ModelData* m, double* z) { z[0] = m->r[kH]; }

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  *states_changed = false;
  if (m->r[kH] <= 0.0 && m->r[kV] < 0.0) {
    m->r[kV] = -m->r[kE] * m->r[kV];
    m->r[kTLast] = m->time;
    m->i[0] += 1;
    *states_changed = true;
  }
  if (!m->b[0] && m->r[kTKick] >= 0.0 && m->time >= m->r[kTKick] - 1e-12) {
    m->r[kV] += m->r[kDvKick];
    m->b[0] = true;
    *states_changed = true;
  }
  if (!m->b[1] && m->r[kTStep] >= 0.0 && m->time >= m->r[kTStep]) {
    m->r[kTStepSeen] = m->time;
    m->b[1] = true;
  }
  m->next_event_defined = !m->b[0] && m->r[kTKick] >= 0.0;
  m->next_event_time = m->r[kTKick];
  ModelCalculate(m);
}

bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known, double* value) {
  (void)m;
  *value = (unknown == kDerH && known == kV) ? 1.0 : 0.0;
  return (unknown == kDerH || unknown == kDerV) && (known == kH || known == kV);
}

bool ModelStepEvent(ModelData* m) {
  return !m->b[1] && m->r[kTStep] >= 0.0 && m->time >= m->r[kTStep];
}

bool ModelBeforeStep(ModelData* m, double t, double h) {
  (void)m, (void)t, (void)h;
  return true;
}
