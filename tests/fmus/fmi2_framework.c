/* The FMI 2.0 functions of the test FMUs (Model Exchange and Co-Simulation in one binary), on
 * top of model_core.h. The FMU checks the calling sequence of the standard's state machine
 * (section 4.2.4 / 3.2.3) and fails with fmi2Error, logging why, when it is called out of
 * order: the importer's tests then catch a wrong sequence. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosimo/fmi/fmi2_api.h"
#include "model_core.h"

typedef enum {
  kInstantiated = 1 << 0,
  kInitMode = 1 << 1,
  kStepMode = 1 << 2,
  kEventMode = 1 << 3,
  kContinuousMode = 1 << 4,
  kTerminated = 1 << 5,
  kFailed = 1 << 6,
} Phase;

typedef struct {
  ModelData m;
  fmi2CallbackFunctions cb;
  char name[128];
  fmi2Type type;
  Phase phase;
  bool logging_on;
  bool terminated_by_model;
  double committed[MODEL_MAX_REALS]; /* FMU_RESTARTS_UNLESS_NO_SET_PRIOR: see CommitStates */
} Instance;

typedef struct {
  ModelData m;
  Phase phase;
  bool terminated_by_model;
} SavedState;

static void Log(Instance* c, fmi2Status status, const char* category, const char* format, ...) {
  char buffer[512];
  va_list args;
  if (c->cb.logger == NULL || (status == fmi2OK && !c->logging_on)) return;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  c->cb.logger(c->cb.componentEnvironment, c->name, status, category, "%s", buffer);
}

/* FMU_RESTARTS_UNLESS_NO_SET_PRIOR (issue 46, 1): like the OSP FMUs that keep a step's result
 * pending until the importer promises not to go back before it, fmi2DoStep with
 * noSetFMUStatePriorToCurrentPoint = false restarts from the states of the last step that had
 * it true (or of initialisation, or of the last fmi2SetFMUstate). Time still advances, so only
 * the values are wrong: what an importer that says false where it could say true gets. */
static void CommitStates(Instance* c) {
  int k;
  for (k = 0; k < kNumStates; ++k) c->committed[k] = c->m.r[kStateVr[k]];
}
static void RestartStates(Instance* c, bool no_set_prior) {
  int k;
#ifdef FMU_RESTARTS_UNLESS_NO_SET_PRIOR
  if (no_set_prior) return;
  for (k = 0; k < kNumStates; ++k) c->m.r[kStateVr[k]] = c->committed[k];
#else
  (void)c, (void)no_set_prior, (void)k;
#endif
}

static bool Allowed(Instance* c, int phases, const char* function) {
  if ((c->phase & phases) != 0) return true;
  Log(c, fmi2Error, "logStatusError", "%s called in the wrong state (phase %d)", function,
      (int)c->phase);
  c->phase = kFailed;
  return false;
}

#define ANY_LIVE \
  (kInstantiated | kInitMode | kStepMode | kEventMode | kContinuousMode | kTerminated)

FMI2_EXPORT const char* fmi2GetTypesPlatform(void) { return "default"; }
FMI2_EXPORT const char* fmi2GetVersion(void) { return "2.0"; }

FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean logging_on, size_t n,
                                           const fmi2String categories[]) {
  (void)n, (void)categories;
  ((Instance*)comp)->logging_on = logging_on;
  return fmi2OK;
}

FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                          fmi2String resources,
                                          const fmi2CallbackFunctions* functions,
                                          fmi2Boolean visible, fmi2Boolean logging_on) {
  Instance* c;
  (void)guid, (void)resources, (void)visible;
  if (functions == NULL || functions->allocateMemory == NULL) return NULL;
  c = (Instance*)functions->allocateMemory(1, sizeof(Instance));
  if (c == NULL) return NULL;
  memset(c, 0, sizeof(*c));
  c->cb = *functions;
  snprintf(c->name, sizeof(c->name), "%s", name != NULL ? name : "");
  c->type = type;
  c->phase = kInstantiated;
  c->logging_on = logging_on;
  ModelStart(&c->m);
#ifdef FMU_CHATTY
  printf("chatty banner: instance %s\n", c->name);
#endif
  return c;
}

FMI2_EXPORT void fmi2FreeInstance(fmi2Component comp) {
  Instance* c = (Instance*)comp;
  if (c != NULL) c->cb.freeMemory(c);
}

FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean tolerance_defined,
                                           fmi2Real tolerance, fmi2Real start_time,
                                           fmi2Boolean stop_time_defined, fmi2Real stop_time) {
  Instance* c = (Instance*)comp;
  (void)tolerance_defined, (void)tolerance, (void)stop_time_defined, (void)stop_time;
  if (!Allowed(c, kInstantiated, "fmi2SetupExperiment")) return fmi2Error;
  c->m.time = start_time;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component comp) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInstantiated, "fmi2EnterInitializationMode")) return fmi2Error;
  c->phase = kInitMode;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component comp) {
  Instance* c = (Instance*)comp;
  bool changed;
  if (!Allowed(c, kInitMode, "fmi2ExitInitializationMode")) return fmi2Error;
  ModelCalculate(&c->m);
  if (c->type == fmi2CoSimulation) {
    ModelEventUpdate(&c->m, &changed);
    c->phase = kStepMode;
  } else {
    c->phase = kEventMode;
  }
  Log(c, fmi2OK, "logEvents", "%s initialised (label %s)", kModelName, c->m.s);
  CommitStates(c);
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component comp) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kStepMode | kEventMode | kContinuousMode, "fmi2Terminate")) return fmi2Error;
  c->phase = kTerminated;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component comp) {
  Instance* c = (Instance*)comp;
  memset(&c->m, 0, sizeof(c->m));
  ModelStart(&c->m);
  c->phase = kInstantiated;
  return fmi2OK;
}

static bool CheckVrs(Instance* c, const fmi2ValueReference vr[], size_t nvr, int limit,
                     const char* function) {
  size_t k;
  for (k = 0; k < nvr; ++k) {
    if ((int)vr[k] >= limit) {
      Log(c, fmi2Error, "logStatusError", "%s: unknown value reference %u", function, vr[k]);
      return false;
    }
  }
  return true;
}

FMI2_EXPORT fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                   fmi2Real value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi2GetReal")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumReals, "fmi2GetReal")) return fmi2Error;
  ModelCalculate(&c->m);
  for (k = 0; k < nvr; ++k) value[k] = c->m.r[vr[k]];
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Integer value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi2GetInteger")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumInts, "fmi2GetInteger")) return fmi2Error;
  ModelCalculate(&c->m);
  for (k = 0; k < nvr; ++k) value[k] = c->m.i[vr[k]];
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Boolean value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi2GetBoolean")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumBools, "fmi2GetBoolean")) return fmi2Error;
  for (k = 0; k < nvr; ++k) value[k] = c->m.b[vr[k]] ? fmi2True : fmi2False;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                     fmi2String value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi2GetString")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, 1, "fmi2GetString")) return fmi2Error;
  c->m.string_reads += 1;
  for (k = 0; k < nvr; ++k) value[k] = c->m.s;
  return fmi2OK;
}

#define SETTABLE (kInstantiated | kInitMode | kStepMode | kEventMode | kContinuousMode)

/* FMI 2.0.4 section 3.2.3: in Continuous-Time Mode only continuous inputs may be set, and
 * Integer and Boolean variables are discrete. */
static bool NotInContinuousTime(Instance* c, const char* function) {
  if (c->phase != kContinuousMode) return true;
  Log(c, fmi2Error, "logStatusError",
      "%s in Continuous-Time Mode: only continuous Real inputs can be set there", function);
  c->phase = kFailed;
  return false;
}

/* The model's own check of a value (ModelAcceptSet). */
static bool Accept(Instance* c, char kind, unsigned index, double value, const char* function) {
  if (ModelAcceptSet(&c->m, kind, index, value, c->phase != kContinuousMode)) return true;
  Log(c, fmi2Error, "logStatusError", "%s: %s", function, c->m.message);
  return false;
}

FMI2_EXPORT fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmi2SetReal")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumReals, "fmi2SetReal")) return fmi2Error;
  for (k = 0; k < nvr; ++k) {
    if (!Accept(c, 'r', vr[k], value[k], "fmi2SetReal")) return fmi2Error;
  }
  for (k = 0; k < nvr; ++k) c->m.r[vr[k]] = value[k];
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Integer value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmi2SetInteger")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumInts, "fmi2SetInteger")) return fmi2Error;
  if (!NotInContinuousTime(c, "fmi2SetInteger")) return fmi2Error;
  for (k = 0; k < nvr; ++k) {
    if (!Accept(c, 'i', vr[k], value[k], "fmi2SetInteger")) return fmi2Error;
  }
  for (k = 0; k < nvr; ++k) c->m.i[vr[k]] = value[k];
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Boolean value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmi2SetBoolean")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumBools, "fmi2SetBoolean")) return fmi2Error;
  if (!NotInContinuousTime(c, "fmi2SetBoolean")) return fmi2Error;
  for (k = 0; k < nvr; ++k) {
    if (!Accept(c, 'b', vr[k], value[k] != fmi2False, "fmi2SetBoolean")) return fmi2Error;
  }
  for (k = 0; k < nvr; ++k) c->m.b[vr[k]] = value[k] != fmi2False;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                     const fmi2String value[]) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInstantiated | kInitMode, "fmi2SetString")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, 1, "fmi2SetString")) return fmi2Error;
  if (nvr > 0) snprintf(c->m.s, sizeof(c->m.s), "%s", value[nvr - 1]);
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate* state) {
  Instance* c = (Instance*)comp;
  SavedState* saved;
  if (!Allowed(c, ANY_LIVE, "fmi2GetFMUstate")) return fmi2Error;
  saved = (SavedState*)(*state != NULL ? *state : c->cb.allocateMemory(1, sizeof(SavedState)));
  if (saved == NULL) return fmi2Error;
  saved->m = c->m;
  saved->phase = c->phase;
  saved->terminated_by_model = c->terminated_by_model;
  *state = saved;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state) {
  Instance* c = (Instance*)comp;
  const SavedState* saved = (const SavedState*)state;
  if (!Allowed(c, ANY_LIVE, "fmi2SetFMUstate")) return fmi2Error;
  c->m = saved->m;
  c->phase = saved->phase;
  c->terminated_by_model = saved->terminated_by_model;
  CommitStates(c);
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate* state) {
  Instance* c = (Instance*)comp;
  if (state != NULL && *state != NULL) c->cb.freeMemory(*state);
  if (state != NULL) *state = NULL;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state,
                                                  size_t* size) {
  (void)comp, (void)state;
  *size = sizeof(SavedState);
  return fmi2OK;
}
FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state,
                                             fmi2Byte bytes[], size_t size) {
  (void)comp;
  if (size < sizeof(SavedState)) return fmi2Error;
  memcpy(bytes, state, sizeof(SavedState));
  return fmi2OK;
}
FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte bytes[],
                                               size_t size, fmi2FMUstate* state) {
  Instance* c = (Instance*)comp;
  if (size < sizeof(SavedState)) return fmi2Error;
  if (*state == NULL) *state = c->cb.allocateMemory(1, sizeof(SavedState));
  memcpy(*state, bytes, sizeof(SavedState));
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp,
                                                    const fmi2ValueReference unknown[],
                                                    size_t n_unknown,
                                                    const fmi2ValueReference known[],
                                                    size_t n_known, const fmi2Real dv_known[],
                                                    fmi2Real dv_unknown[]) {
  Instance* c = (Instance*)comp;
  size_t i, j;
  if (!Allowed(c, kInitMode | kStepMode | kEventMode | kContinuousMode,
               "fmi2GetDirectionalDerivative")) {
    return fmi2Error;
  }
  ModelCalculate(&c->m);
  for (i = 0; i < n_unknown; ++i) {
    dv_unknown[i] = 0.0;
    for (j = 0; j < n_known; ++j) {
      double partial;
      if (!ModelPartial(&c->m, unknown[i], known[j], &partial)) {
        Log(c, fmi2Error, "logStatusError", "no partial derivative d[%u]/d[%u]", unknown[i],
            known[j]);
        return fmi2Error;
      }
      dv_unknown[i] += partial * dv_known[j];
    }
  }
  return fmi2OK;
}

/* Model Exchange. */

FMI2_EXPORT fmi2Status fmi2EnterEventMode(fmi2Component comp) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kContinuousMode | kEventMode, "fmi2EnterEventMode")) return fmi2Error;
  c->phase = kEventMode;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2NewDiscreteStates(fmi2Component comp, fmi2EventInfo* info) {
  Instance* c = (Instance*)comp;
  bool changed = false;
  if (!Allowed(c, kEventMode, "fmi2NewDiscreteStates")) return fmi2Error;
  ModelCalculate(&c->m);
  ModelEventUpdate(&c->m, &changed);
  info->newDiscreteStatesNeeded = fmi2False;
  info->terminateSimulation = c->m.terminate ? fmi2True : fmi2False;
  info->nominalsOfContinuousStatesChanged = fmi2False;
  info->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
  info->nextEventTimeDefined = c->m.next_event_defined ? fmi2True : fmi2False;
  info->nextEventTime = c->m.next_event_time;
  if (changed) Log(c, fmi2OK, "logEvents", "event at t=%.17g", c->m.time);
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2EnterContinuousTimeMode(fmi2Component comp) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kEventMode, "fmi2EnterContinuousTimeMode")) return fmi2Error;
  c->phase = kContinuousMode;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2CompletedIntegratorStep(fmi2Component comp, fmi2Boolean no_set_prior,
                                                   fmi2Boolean* enter_event_mode,
                                                   fmi2Boolean* terminate_simulation) {
  Instance* c = (Instance*)comp;
  (void)no_set_prior;
  if (!Allowed(c, kContinuousMode, "fmi2CompletedIntegratorStep")) return fmi2Error;
  *enter_event_mode = ModelStepEvent(&c->m) ? fmi2True : fmi2False;
  *terminate_simulation = fmi2False;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real time) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kEventMode | kContinuousMode, "fmi2SetTime")) return fmi2Error;
  c->m.time = time;
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t nx) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, kContinuousMode, "fmi2SetContinuousStates")) return fmi2Error;
  if ((int)nx != kNumStates) return fmi2Error;
  for (k = 0; k < nx; ++k) c->m.r[kStateVr[k]] = x[k];
  return fmi2OK;
}

#define READABLE (kInitMode | kEventMode | kContinuousMode | kTerminated)

FMI2_EXPORT fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real dx[], size_t nx) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, READABLE, "fmi2GetDerivatives")) return fmi2Error;
  if ((int)nx != kNumStates) return fmi2Error;
  ModelCalculate(&c->m);
  for (k = 0; k < nx; ++k) dx[k] = c->m.r[kDerivativeVr[k]];
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real z[], size_t nz) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, READABLE, "fmi2GetEventIndicators")) return fmi2Error;
  if ((int)nz != kNumEventIndicators) return fmi2Error;
  ModelCalculate(&c->m);
  ModelEventIndicators(&c->m, z);
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, READABLE, "fmi2GetContinuousStates")) return fmi2Error;
  if ((int)nx != kNumStates) return fmi2Error;
  for (k = 0; k < nx; ++k) x[k] = c->m.r[kStateVr[k]];
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real nominal[],
                                                         size_t nx) {
  size_t k;
  (void)comp;
  for (k = 0; k < nx; ++k) nominal[k] = 1.0;
  return fmi2OK;
}

/* Co-Simulation. */

FMI2_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp,
                                                   const fmi2ValueReference vr[], size_t nvr,
                                                   const fmi2Integer order[],
                                                   const fmi2Real value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, kInitMode | kStepMode, "fmi2SetRealInputDerivatives")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumReals, "fmi2SetRealInputDerivatives")) return fmi2Error;
  for (k = 0; k < nvr; ++k) {
    if (order[k] != 1 && order[k] != 2) {
      Log(c, fmi2Error, "logStatusError", "input derivatives of order %d are not supported",
          order[k]);
      return fmi2Error;
    }
    if (order[k] == 1) c->m.r_slope[vr[k]] = value[k];
    if (order[k] == 2) c->m.r_slope2[vr[k]] = value[k];
  }
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp,
                                                    const fmi2ValueReference vr[], size_t nvr,
                                                    const fmi2Integer order[], fmi2Real value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  int s;
  if (!Allowed(c, kStepMode | kTerminated, "fmi2GetRealOutputDerivatives")) return fmi2Error;
  if (!CheckVrs(c, vr, nvr, kNumReals, "fmi2GetRealOutputDerivatives")) return fmi2Error;
  ModelCalculate(&c->m);
  for (k = 0; k < nvr; ++k) {
    if (order[k] != 1) return fmi2Error;
    value[k] = 0.0;
    for (s = 0; s < kNumStates; ++s) {
      if (kStateVr[s] == vr[k]) value[k] = c->m.r[kDerivativeVr[s]];
    }
  }
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real t, fmi2Real h,
                                  fmi2Boolean no_set_prior) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kStepMode, "fmi2DoStep")) return fmi2Error;
  if (c->terminated_by_model) return fmi2Discard;
  if (t < c->m.time - 1e-9 || t > c->m.time + 1e-9 || h <= 0.0) {
    Log(c, fmi2Error, "logStatusError", "fmi2DoStep(t=%.17g, h=%g) but the FMU is at t=%.17g", t, h,
        c->m.time);
    c->phase = kFailed;
    return fmi2Error;
  }
  if (!ModelBeforeStep(&c->m, t, h)) {
    Log(c, fmi2Error, "logStatusError", "%s", c->m.message);
    c->phase = kFailed;
    return fmi2Error;
  }
  if (c->m.terminate) {
    c->terminated_by_model = true;
    Log(c, fmi2Warning, "logStatusWarning", "the model ends its simulation at t=%.17g", t);
    return fmi2Discard;
  }
  RestartStates(c, no_set_prior);
  (void)ModelIntegrate(&c->m, h, false);
  if (no_set_prior) CommitStates(c);
#ifdef FMU_CHATTY
  /* FMU_CHATTY (issue 42): says where it is through the logger, on standard output and on
   * standard error at the step that ends at 0.5 s (as FMUs print banners and warnings). */
  if (t < 0.5 - 1e-9 && t + h >= 0.5 - 1e-9) {
    Log(c, fmi2Warning, "logStatusWarning", "half way at t=%g", t + h);
    printf("chatty stdout at t=%g\n", t + h);
    fprintf(stderr, "chatty stderr at t=%g\n", t + h);
  }
#endif
  return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2CancelStep(fmi2Component comp) {
  (void)comp;
  return fmi2Error;
}

FMI2_EXPORT fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind kind,
                                     fmi2Status* value) {
  (void)comp, (void)kind;
  *value = fmi2OK;
  return fmi2OK;
}
FMI2_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind kind,
                                         fmi2Real* value) {
  Instance* c = (Instance*)comp;
  if (kind != fmi2LastSuccessfulTime) return fmi2Discard;
  *value = c->m.time;
  return fmi2OK;
}
FMI2_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind kind,
                                            fmi2Integer* value) {
  (void)comp, (void)kind, (void)value;
  return fmi2Discard;
}
FMI2_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind kind,
                                            fmi2Boolean* value) {
  Instance* c = (Instance*)comp;
  if (kind != fmi2Terminated) return fmi2Discard;
  *value = c->terminated_by_model ? fmi2True : fmi2False;
  return fmi2OK;
}
FMI2_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind kind,
                                           fmi2String* value) {
  (void)comp, (void)kind, (void)value;
  return fmi2Discard;
}
