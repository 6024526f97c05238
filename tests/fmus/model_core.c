/* RK4 integration used by the Co-Simulation side of the test FMUs. */
#include "model_core.h"

#include <string.h>

static double InputAt(const ModelData* m, int k, double u0, double s);

__attribute__((weak)) const int kNumArrays = 0;
__attribute__((weak)) const ModelArray kArrays[1] = {{0, 0, 0}};
__attribute__((weak)) const int kNumClocks = 0;

/* Weak defaults of the model functions most models do not need (model_core.h): no event
 * indicators, an event that changes nothing but recomputes, no partial derivatives known, no
 * step event, every step accepted. A model defines the ones it needs. */
__attribute__((weak)) void ModelEventIndicators(const ModelData* m, double* z) { (void)m, (void)z; }

__attribute__((weak)) void ModelEventUpdate(ModelData* m, bool* states_changed) {
  *states_changed = false;
  m->next_event_defined = false;
  ModelCalculate(m);
}

__attribute__((weak)) bool ModelPartial(const ModelData* m, unsigned unknown, unsigned known,
                                        double* value) {
  (void)m, (void)unknown, (void)known;
  *value = 0.0;
  return false;
}

__attribute__((weak)) bool ModelStepEvent(ModelData* m) {
  (void)m;
  return false;
}

__attribute__((weak)) bool ModelBeforeStep(ModelData* m, double t, double h) {
  (void)m, (void)t, (void)h;
  return true;
}

__attribute__((weak)) void ModelActivatePartition(ModelData* m, int k) {
  bool changed = false;
  m->clock_active[k] = true;
  ModelEventUpdate(m, &changed);
  m->clock_active[k] = false;
}

__attribute__((weak)) void ModelOutputClocks(ModelData* m) { (void)m; }

__attribute__((weak)) bool ModelAcceptSet(ModelData* m, char kind, unsigned index, double value,
                                          bool discrete_allowed) {
  (void)m, (void)kind, (void)index, (void)value, (void)discrete_allowed;
  return true;
}

void ModelDerivatives(ModelData* m, double t, const double* x, const double* u0, double t0,
                      double* dx) {
  int k;
  m->time = t;
  for (k = 0; k < kNumStates; ++k) m->r[kStateVr[k]] = x[k];
  for (k = 0; k < kNumInputs; ++k) m->r[kInputVr[k]] = InputAt(m, k, u0[k], t - t0);
  ModelCalculate(m);
  for (k = 0; k < kNumStates; ++k) dx[k] = m->r[kDerivativeVr[k]];
}

/* u(t0 + s) from the value at t0 and the derivatives the importer set. */
static double InputAt(const ModelData* m, int k, double u0, double s) {
  return u0 + m->r_slope[kInputVr[k]] * s + 0.5 * m->r_slope2[kInputVr[k]] * s * s;
}

static bool Crossed(const double* a, const double* b, int n) {
  int k;
  for (k = 0; k < n; ++k) {
    if ((a[k] > 0 && b[k] <= 0) || (a[k] < 0 && b[k] >= 0)) return true;
  }
  return false;
}

/* Outputs at t with the interpolated inputs; the inputs keep the values the master set. */
static void FinishAt(ModelData* m, const double* u0, double t0, double t) {
  int k;
  m->time = t;
  for (k = 0; k < kNumInputs; ++k) m->r[kInputVr[k]] = InputAt(m, k, u0[k], t - t0);
  ModelCalculate(m);
  for (k = 0; k < kNumInputs; ++k) m->r[kInputVr[k]] = u0[k];
}

bool ModelIntegrate(ModelData* m, double h, bool stop_at_events) {
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
    double hs = (s + 1 == steps) ? t_end - t : MODEL_INTERNAL_STEP;
    bool at_time_event = false;
    if (stop_at_events && m->next_event_defined && m->next_event_time < t + hs - 1e-12) {
      hs = m->next_event_time - t; /* end this substep at the time event */
      at_time_event = true;
    }
    ModelDerivatives(m, t, x, u0, t0, k1);
    for (k = 0; k < kNumStates; ++k) stage[k] = x[k] + 0.5 * hs * k1[k];
    ModelDerivatives(m, t + 0.5 * hs, stage, u0, t0, k2);
    for (k = 0; k < kNumStates; ++k) stage[k] = x[k] + 0.5 * hs * k2[k];
    ModelDerivatives(m, t + 0.5 * hs, stage, u0, t0, k3);
    for (k = 0; k < kNumStates; ++k) stage[k] = x[k] + hs * k3[k];
    ModelDerivatives(m, t + hs, stage, u0, t0, k4);
    for (k = 0; k < kNumStates; ++k) x[k] += hs / 6.0 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]);
    t = at_time_event ? m->next_event_time : t + hs;
    ModelDerivatives(m, t, x, u0, t0, k1);
    ModelEventIndicators(m, z1);
    if (stop_at_events && (at_time_event || Crossed(z0, z1, kNumEventIndicators) ||
                           (m->next_event_defined && m->next_event_time <= t + 1e-12))) {
      FinishAt(m, u0, t0, t);
      return true;
    }
    if (Crossed(z0, z1, kNumEventIndicators) ||
        (m->next_event_defined && m->next_event_time <= t + 1e-12)) {
      ModelEventUpdate(m, &changed);
      for (k = 0; k < kNumStates; ++k) x[k] = m->r[kStateVr[k]];
      ModelEventIndicators(m, z1);
    }
    memcpy(z0, z1, sizeof(z0));
  }
  FinishAt(m, u0, t0, t_end);
  return false;
}
