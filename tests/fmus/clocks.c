/* Clocks (FMI 3 only): a periodic input clock `tick` (clock 0, vr 700) with a clocked counter,
 * and a countdown clock `alarm` (clock 1, vr 701) that the FMU schedules itself.
 *
 * tick: its interval and shift are the parameters period and shift (reals 0 and 1), answered by
 * fmi3GetIntervalDecimal / fmi3GetShiftDecimal (the model description says constant, fixed or
 * calculated: fmi3_clocks*.xml.in). At each of its ticks the clocked outputs count (Int32 0)
 * and t_tick (real 3) become the number of ticks so far and the tick's time. From the tick that
 * makes count switch_after (Int32 4, a parameter; 0: never) the interval is period2 (real 7),
 * for the tunable and changing variants: every tick answers fmi3IntervalChanged.
 * alarm: in the first Event Mode (after initialisation) the FMU starts a countdown of
 * alarm_delay (real 2), and again at each alarm tick until max_alarms (Int32 2) ticks: alarms
 * at k * alarm_delay, k = 1..max_alarms. Its clocked outputs alarms (Int32 1) and t_alarm
 * (real 4) count them and keep the last one's time.
 * last (Int32 3, clocked by both): 1 when tick's partition or event handling ran last, 2 when
 * alarm's (in one Event Mode tick's goes first; Scheduled Execution runs them by priority).
 * overflow: a triggered output clock (clock 2, vr 702) that ticks at the state event where
 * the state x' = 1 (real 5, derivative real 6; x = t) crosses x_trigger (real 8, 0.62): its
 * clocked outputs overflows (Int32 5) and t_overflow (real 9). fmi3GetClock reports it (the
 * event indicator z = x - x_trigger, real 10); the Event Mode's update counts it only if it
 * was asked.
 * Booleans (locals): 0 the countdown has been started, 1 overflow has ticked. */
#include "model_core.h"

enum {
  kPeriod,
  kShift,
  kAlarmDelay,
  kTTick,
  kTAlarm,
  kX,
  kDerX,
  kPeriod2,
  kXTrigger,
  kTOverflow,
  kZ
};
enum { kCount, kAlarms, kMaxAlarms, kLast, kSwitchAfter, kOverflows };
enum { kTick, kAlarm, kOverflow };

const char* const kModelName = "clocks";
const int kNumReals = 11, kNumInts = 6, kNumBools = 2;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 1;
const unsigned kStateVr[] = {kX};
const unsigned kDerivativeVr[] = {kDerX};
const int kNumInputs = 0;
const unsigned kInputVr[] = {0};
const int kNumEventIndicators = 1;
const int kNumClocks = 3;

void ModelStart(ModelData* m) {
  m->r[kPeriod] = 0.25;
  m->r[kShift] = 0.0;
  m->r[kAlarmDelay] = 0.35;
  m->r[kTTick] = -1.0;
  m->r[kTAlarm] = -1.0;
  m->r[kX] = 0.0;
  m->i[kCount] = 0;
  m->i[kAlarms] = 0;
  m->i[kMaxAlarms] = 3;
  m->i[kLast] = 0;
  m->r[kPeriod2] = 0.25;
  m->r[kXTrigger] = 0.62;
  m->r[kTOverflow] = -1.0;
  m->i[kOverflows] = 0;
  m->b[1] = false;
  m->i[kSwitchAfter] = 0;
  m->b[0] = false;
  m->clock_qualifier[kTick] = 2;  /* fmi3IntervalChanged: the first answer gives it */
  m->clock_qualifier[kAlarm] = 0; /* fmi3IntervalNotYetKnown until the countdown starts */
}

void ModelCalculate(ModelData* m) {
  const bool switched = m->i[kSwitchAfter] > 0 && m->i[kCount] >= m->i[kSwitchAfter];
  m->r[kDerX] = 1.0;
  m->r[kZ] = m->r[kX] - m->r[kXTrigger];
  m->clock_interval[kTick] = switched ? m->r[kPeriod2] : m->r[kPeriod];
  m->clock_shift[kTick] = m->r[kShift];
}

static void StartCountdown(ModelData* m) {
  m->clock_interval[kAlarm] = m->r[kAlarmDelay];
  m->clock_qualifier[kAlarm] = 2; /* fmi3IntervalChanged: a tick alarm_delay from now */
}

void ModelEventUpdate(ModelData* m, bool* states_changed) {
  *states_changed = false;
  ModelCalculate(m);
  if (m->clock_active[kTick]) {
    m->i[kCount] += 1;
    m->r[kTTick] = m->time;
    m->i[kLast] = 1;
    m->clock_qualifier[kTick] = 2;  /* the interval from this tick on (tunable, changing) */
    m->clock_active[kTick] = false; /* counted once, however often the importer iterates */
  }
  if (m->clock_active[kAlarm]) {
    m->i[kAlarms] += 1;
    m->r[kTAlarm] = m->time;
    m->i[kLast] = 2;
    m->clock_active[kAlarm] = false;
    if (m->i[kAlarms] < m->i[kMaxAlarms]) StartCountdown(m);
  }
  if (!m->b[0]) {
    m->b[0] = true;
    StartCountdown(m);
  }
  if (m->clock_active[kOverflow]) { /* fmi3GetClock said so in this Event Mode */
    m->i[kOverflows] += 1;
    m->r[kTOverflow] = m->time;
    m->clock_active[kOverflow] = false;
  }
  m->next_event_defined = false;
}

void ModelEventIndicators(const ModelData* m, double* z) { z[0] = m->r[kX] - m->r[kXTrigger]; }

void ModelOutputClocks(ModelData* m) {
  if (!m->b[1] && m->r[kX] >= m->r[kXTrigger]) {
    m->b[1] = true;
    m->clock_active[kOverflow] = true;
  }
}
