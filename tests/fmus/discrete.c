/* Integer, Enumeration and Boolean ports (issue 46, item 7: SSP's mapping transformations), Co-
 * Simulation. Outputs from time: level = floor(t / period) (period 0.25 s, a parameter), gear =
 * 1 + level mod 4 (Enumeration 'Gear': P 1, R 2, N 3, D 4), lamp = level odd. Inputs: n_in
 * (Integer, start 100), mode_in (Enumeration 'Mode': off 10, eco 20, sport 30, start 10; it
 * refuses any other value, as real FMUs do), flag_in (Boolean, start false), echoed by the
 * outputs n_seen, mode_seen and flag_seen.
 *
 * Real 0: period. Integers: 0 level, 1 gear, 2 n_in, 3 mode_in, 4 n_seen, 5 mode_seen.
 * Booleans: 0 lamp, 1 flag_in, 2 flag_seen. */
#include <math.h>
#include <stdio.h>

#include "model_core.h"

enum { kLevel, kGear, kNIn, kModeIn, kNSeen, kModeSeen };
enum { kLamp, kFlagIn, kFlagSeen };

const char* const kModelName = "discrete";
const int kNumReals = 1, kNumInts = 6, kNumBools = 3;
const int kNumInt64s = 0, kNumUInt64s = 0;
const int kNumStates = 0;
const unsigned kStateVr[] = {0};
const unsigned kDerivativeVr[] = {0};
const int kNumInputs = 0;
const unsigned kInputVr[] = {0};
const int kNumEventIndicators = 0;

void ModelStart(ModelData* m) {
  m->r[0] = 0.25;
  m->i[kNIn] = 100;
  m->i[kModeIn] = 10;
  m->b[kFlagIn] = false;
}

void ModelCalculate(ModelData* m) {
  const int level = (int)floor(m->time / m->r[0] + 1e-9);
  m->i[kLevel] = level;
  m->i[kGear] = 1 + level % 4;
  m->b[kLamp] = level % 2 == 1;
  m->i[kNSeen] = m->i[kNIn];
  m->i[kModeSeen] = m->i[kModeIn];
  m->b[kFlagSeen] = m->b[kFlagIn];
}

bool ModelAcceptSet(ModelData* m, char kind, unsigned index, double value, bool discrete_allowed) {
  (void)discrete_allowed;
  if (kind != 'i' || index != kModeIn || value == 10 || value == 20 || value == 30) return true;
  snprintf(m->message, sizeof m->message, "mode_in = %g is no item of Mode (10, 20, 30)", value);
  return false;
}
