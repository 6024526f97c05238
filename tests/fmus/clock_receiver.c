/* A receiver of clock ticks (FMI 3 only, issue 43; Co-Simulation in Event Mode and Model
 * Exchange, where it has no continuous state): a triggered input clock `trigger` (clock 0,
 * vr 700) that another unit's output clock feeds, with a clocked Int32 input u (Int32 0, vr 100,
 * clocks="700"). At each tick its clocked outputs received (Int32 1: ticks so far), t_received
 * (real 0: the tick's time) and u_seen (Int32 2: u at the tick) change. u may be set only while
 * trigger is active (FMI 3.0.1 section 2.2.8.3): a set at any other time fails with fmi3Error,
 * so an importer that sets clocked inputs at every exchange is found out (not in Scheduled
 * Execution, FMU_RECEIVER_SE, where the importer sets them before it activates the partition,
 * which activates the clock). */
#include <stdio.h>

#include "model_core.h"

enum { kTReceived };
enum { kU, kReceived, kUSeen };
enum { kTrigger };

const char* const kModelName = "clock_receiver";
const int kNumReals = 1, kNumInts = 3, kNumBools = 0;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 0;
const unsigned kStateVr[] = {0};
const unsigned kDerivativeVr[] = {0};
const int kNumInputs = 0;
const unsigned kInputVr[] = {0};
const int kNumEventIndicators = 0;
const int kNumClocks = 1;

void ModelStart(ModelData* m) {
  m->r[kTReceived] = -1.0;
  m->i[kU] = 0;
  m->i[kReceived] = 0;
  m->i[kUSeen] = 0;
}

void ModelCalculate(ModelData* m) { (void)m; }

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  *states_changed = false;
  if (m->clock_active[kTrigger]) {
    m->i[kReceived] += 1;
    m->r[kTReceived] = m->time;
    m->i[kUSeen] = m->i[kU];
    m->clock_active[kTrigger] = false; /* counted once, however often the importer iterates */
  }
  m->next_event_defined = false;
}

bool ModelAcceptSet(ModelData* m, char kind, unsigned index, double value, bool discrete_allowed) {
  (void)discrete_allowed;
#ifdef FMU_RECEIVER_SE
  (void)m, (void)kind, (void)index, (void)value;
  return true;
#endif
  if (kind == 'i' && index == kU && !m->clock_active[kTrigger]) {
    snprintf(m->message, sizeof(m->message),
             "u (clocked by trigger) set to %g at t=%g while trigger is not active", value,
             m->time);
    return false;
  }
  return true;
}
