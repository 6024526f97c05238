/* Thermostat with hysteresis (issue 46, item 3): x' = 2 - x while heating (on), x' = -x while
 * off; heating switches off when x rises through x_high (1.5) and on when x falls through
 * x_low (0.5). From x(0) = 0.5, on, every half period lasts ln((2 - x_low) / (2 - x_high)) =
 * ln(x_high / x_low) = ln 3: the k-th switch is at k ln 3, known exactly, and x between switches
 * is an exponential (2 - 1.5 e^-(t - t_k) heating, 1.5 e^-(t - t_k) cooling).
 *
 * Reals: 0 x (output, state), 1 der_x (local), 2 x_high, 3 x_low (parameters), 4 t_switch
 * (output, discrete: the time of the last switch, 0 before the first). Integer 0: switches
 * (output, their count). Boolean 0: on (local, discrete). Event indicator: x_high - x while
 * on, x - x_low while off (positive between the switches). */
#include "model_core.h"

enum { kX, kDerX, kHigh, kLow, kTSwitch };

const char* const kModelName = "hysteresis";
const int kNumReals = 5, kNumInts = 1, kNumBools = 1;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 1;
const unsigned kStateVr[] = {kX};
const unsigned kDerivativeVr[] = {kDerX};
const int kNumInputs = 0;
const unsigned kInputVr[] = {0};
const int kNumEventIndicators = 1;

void ModelStart(ModelData* m) {
  m->r[kX] = 0.5;
  m->r[kHigh] = 1.5;
  m->r[kLow] = 0.5;
  m->r[kTSwitch] = 0.0;
  m->i[0] = 0;
  m->b[0] = true;
}

void ModelCalculate(ModelData* m) { m->r[kDerX] = m->b[0] ? 2.0 - m->r[kX] : -m->r[kX]; }

void ModelEventIndicators(const ModelData* m, double* z) {
  z[0] = m->b[0] ? m->r[kHigh] - m->r[kX] : m->r[kX] - m->r[kLow];
}

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  *states_changed = false;
  const bool switch_off = m->b[0] && m->r[kX] >= m->r[kHigh];
  const bool switch_on = !m->b[0] && m->r[kX] <= m->r[kLow];
  if (switch_off || switch_on) {
    m->b[0] = switch_on;
    m->r[kTSwitch] = m->time;
    m->i[0] += 1;
  }
  m->next_event_defined = false;
  ModelCalculate(m);
}

bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known, double* value) {
  *value = unknown == kDerX && known == kX ? -1.0 : 0.0;
  (void)m;
  return unknown == kDerX && known == kX;
}
