/* RK4 integration used by the Co-Simulation side of the test FMUs. */
#include "model_core.h"

#include <string.h>

void ModelDerivatives(ModelData* m, double t, const double* x, const double* u0, double t0,
                      double* dx) {
  int k;
  m->time = t;
  for (k = 0; k < kNumStates; ++k) m->r[kStateVr[k]] = x[k];
  for (k = 0; k < kNumInputs; ++k) m->r[kInputVr[k]] = u0[k] + m->r_slope[kInputVr[k]] * (t - t0);
  ModelCalculate(m);
  for (k = 0; k < kNumStates; ++k) dx[k] = m->r[kDerivativeVr[k]];
}

static bool Crossed(const double* a, const double* b, int n) {
  int k;
  for (k = 0; k < n; ++k) {
    if ((a[k] > 0 && b[k] <= 0) || (a[k] < 0 && b[k] >= 0)) return true;
  }
  return false;
}

void ModelIntegrate(ModelData* m, double h) {
  double x[MODEL_MAX_REALS], stage[MODEL_MAX_REALS], k1[MODEL_MAX_REALS], k2[MODEL_MAX_REALS],
      k3[MODEL_MAX_REALS], k4[MODEL_MAX_REALS], u0[MODEL_MAX_REALS], z0[8] = {0}, z1[8] = {0};
  const double t0 = m->time, t_end = m->time + h;
  double t = t0;
  int k, steps, s;
  bool changed = false;
  for (k = 0; k < kNumInputs; ++k) u0[k] = m->r[kInputVr[k]];
  for (k = 0; k < kNumStates; ++k) x[k] = m->r[kStateVr[k]];
  ModelEventIndicators(m, z0);
  steps = (int)(h / MODEL_INTERNAL_STEP - 1e-9);
  if (steps < 1) steps = 1;
  if (steps * MODEL_INTERNAL_STEP < h - 1e-12) ++steps;
  for (s = 0; s < steps; ++s) {
    const double hs = (s + 1 == steps) ? t_end - t : MODEL_INTERNAL_STEP;
    ModelDerivatives(m, t, x, u0, t0, k1);
    for (k = 0; k < kNumStates; ++k) stage[k] = x[k] + 0.5 * hs * k1[k];
    ModelDerivatives(m, t + 0.5 * hs, stage, u0, t0, k2);
    for (k = 0; k < kNumStates; ++k) stage[k] = x[k] + 0.5 * hs * k2[k];
    ModelDerivatives(m, t + 0.5 * hs, stage, u0, t0, k3);
    for (k = 0; k < kNumStates; ++k) stage[k] = x[k] + hs * k3[k];
    ModelDerivatives(m, t + hs, stage, u0, t0, k4);
    for (k = 0; k < kNumStates; ++k) x[k] += hs / 6.0 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]);
    t += hs;
    ModelDerivatives(m, t, x, u0, t0, k1);
    ModelEventIndicators(m, z1);
    if (Crossed(z0, z1, kNumEventIndicators) ||
        (m->next_event_defined && m->next_event_time <= t + 1e-12)) {
      ModelEventUpdate(m, &changed);
      for (k = 0; k < kNumStates; ++k) x[k] = m->r[kStateVr[k]];
      ModelEventIndicators(m, z1);
    }
    memcpy(z0, z1, sizeof(z0));
  }
  /* Outputs at the end with the interpolated inputs; the inputs keep the values the master set. */
  m->time = t_end;
  for (k = 0; k < kNumInputs; ++k) m->r[kInputVr[k]] = u0[k] + m->r_slope[kInputVr[k]] * h;
  ModelCalculate(m);
  for (k = 0; k < kNumInputs; ++k) m->r[kInputVr[k]] = u0[k];
}
