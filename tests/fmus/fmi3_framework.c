/* The FMI 3.0 functions of the test FMUs (Model Exchange and Co-Simulation in one binary), on
 * top of model_core.h. Value references: Float64 k (999: time), Int32 100 + k, Boolean 200 + k,
 * String 300. Like the FMI 2 framework it checks the calling sequence and fails with fmi3Error
 * when called out of order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosimo/fmi/fmi3_api.h"
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

#define ANY_LIVE \
  (kInstantiated | kInitMode | kStepMode | kEventMode | kContinuousMode | kTerminated)
#define SETTABLE (kInstantiated | kInitMode | kStepMode | kEventMode | kContinuousMode)
#define READABLE (kInitMode | kEventMode | kContinuousMode | kTerminated)

typedef struct {
  ModelData m;
  Phase phase;
  bool terminated_by_model;
} SavedState;

typedef struct {
  ModelData m;
  Phase phase;
  bool terminated_by_model;
  bool model_exchange;
  bool event_mode_used;      /* Co-Simulation: events are handled in Event Mode by the importer */
  bool early_return_allowed; /* and fmi3DoStep stops at them */
  bool logging_on;
  fmi3InstanceEnvironment env;
  fmi3LogMessageCallback log;
  double t_start; /* FMU_EARLY_RETURN_AT_END: the FMU's own clock, t_start + n * h_fixed */
  double h_fixed;
  double committed[MODEL_MAX_REALS]; /* FMU_RESTARTS_UNLESS_NO_SET_PRIOR: see CommitStates */
} Instance;

static void Log(Instance* c, fmi3Status status, const char* category, const char* format, ...) {
  char buffer[512];
  va_list args;
  if (c->log == NULL || (status == fmi3OK && !c->logging_on)) return;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  c->log(c->env, status, category, buffer);
}

/* FMU_RESTARTS_UNLESS_NO_SET_PRIOR (issue 46, 1): like the OSP FMUs that keep a step's result
 * pending until the importer promises not to go back before it, fmi3DoStep with
 * noSetFMUStatePriorToCurrentPoint = false restarts from the states of the last step that had
 * it true (or of initialisation, or of the last fmi3SetFMUstate). Time still advances, so only
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
  Log(c, fmi3Error, "logStatusError", "%s called in the wrong state (phase %d)", function,
      (int)c->phase);
  c->phase = kFailed;
  return false;
}

static Instance* NewInstance(fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
                             bool model_exchange, bool logging_on) {
  Instance* c = (Instance*)calloc(1, sizeof(Instance));
  if (c == NULL) return NULL;
  c->env = env;
  c->log = log;
  c->model_exchange = model_exchange;
  c->logging_on = logging_on;
  c->phase = kInstantiated;
  ModelStart(&c->m);
  return c;
}

/* FMI 3.0.1 section 3.2.1: in Continuous-Time Mode only continuous inputs may be set, and
 * integer and Boolean variables are discrete. */
static bool NotInContinuousTime(Instance* c, const char* function) {
  if (c->phase != kContinuousMode) return true;
  Log(c, fmi3Error, "logStatusError",
      "%s in Continuous-Time Mode: only continuous Float64 inputs can be set there", function);
  c->phase = kFailed;
  return false;
}

/* Clocks are active only in the Event Mode where they tick. */
static void EndClockTicks(Instance* c) {
  int k;
  for (k = 0; k < MODEL_MAX_CLOCKS; ++k) c->m.clock_active[k] = false;
}

/* The model's own check of a value (ModelAcceptSet). */
static bool Accept(Instance* c, char kind, unsigned index, double value, const char* function) {
  if (ModelAcceptSet(&c->m, kind, index, value, c->phase != kContinuousMode)) return true;
  Log(c, fmi3Error, "logStatusError", "%s: %s", function, c->m.message);
  return false;
}

FMI3_EXPORT const char* fmi3GetVersion(void) { return "3.0"; }

FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance inst, fmi3Boolean logging_on, size_t n,
                                           const fmi3String categories[]) {
  (void)n, (void)categories;
  ((Instance*)inst)->logging_on = logging_on;
  return fmi3OK;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token,
                                                      fmi3String resources, fmi3Boolean visible,
                                                      fmi3Boolean logging_on,
                                                      fmi3InstanceEnvironment env,
                                                      fmi3LogMessageCallback log) {
  (void)name, (void)token, (void)resources, (void)visible;
  return NewInstance(env, log, true, logging_on);
}

FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String name, fmi3String token, fmi3String resources, fmi3Boolean visible,
    fmi3Boolean logging_on, fmi3Boolean event_mode_used, fmi3Boolean early_return_allowed,
    const fmi3ValueReference required[], size_t n_required, fmi3InstanceEnvironment env,
    fmi3LogMessageCallback log, fmi3IntermediateUpdateCallback intermediate_update) {
  Instance* c;
  (void)name, (void)token, (void)resources, (void)visible;
  (void)required, (void)n_required, (void)intermediate_update;
#ifdef FMU_REFUSE_INSTANCE
  /* As a licensed FMU does on a machine without its licence: says why, then returns NULL. */
  if (log != NULL) log(env, fmi3Error, "logStatusError", "no licence for this host");
  return NULL;
#endif
#ifndef FMU_HAS_EVENT_MODE
  /* hasEventMode="false" (issue 46, 4), as the Reference FMUs (Roberts) refuse. FMI 3.0.1
   * section 4.2.1 (fmi3InstantiateCoSimulation): eventModeUsed "may only be fmi3True, if
   * hasEventMode = fmi3True, otherwise the FMU must raise an error"; and earlyReturnAllowed
   * is for an importer that handles the early return, of which this FMU declares none
   * (no hasEventMode, no canReturnEarlyAfterIntermediateUpdate). */
  if (event_mode_used || early_return_allowed) {
    if (log != NULL) {
      log(env, fmi3Error, "logStatusError",
          event_mode_used ? "Event Mode is not supported" : "early return is not supported");
    }
    return NULL;
  }
#endif
  c = NewInstance(env, log, false, logging_on);
  if (c != NULL) {
    c->event_mode_used = event_mode_used;
    c->early_return_allowed = early_return_allowed;
  }
  return c;
}

FMI3_EXPORT void fmi3FreeInstance(fmi3Instance inst) { free(inst); }

FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance inst, fmi3Boolean tol_defined,
                                                   fmi3Float64 tolerance, fmi3Float64 start,
                                                   fmi3Boolean stop_defined, fmi3Float64 stop) {
  Instance* c = (Instance*)inst;
  (void)tol_defined, (void)tolerance, (void)stop_defined, (void)stop;
  if (!Allowed(c, kInstantiated, "fmi3EnterInitializationMode")) return fmi3Error;
  c->m.time = start;
  c->t_start = start;
  c->phase = kInitMode;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance inst) {
  Instance* c = (Instance*)inst;
  bool changed;
  if (!Allowed(c, kInitMode, "fmi3ExitInitializationMode")) return fmi3Error;
  ModelCalculate(&c->m);
  if (c->model_exchange || c->event_mode_used) {
    c->phase = kEventMode; /* the importer calls fmi3UpdateDiscreteStates */
  } else {
    ModelEventUpdate(&c->m, &changed);
    c->phase = kStepMode;
  }
  CommitStates(c);
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance inst) {
  Instance* c = (Instance*)inst;
  if (!c->model_exchange && !c->event_mode_used) {
    Log(c, fmi3Error, "logStatusError", "fmi3EnterEventMode without event mode");
    return fmi3Error;
  }
  if (!Allowed(c, c->model_exchange ? kContinuousMode | kEventMode : kStepMode,
               "fmi3EnterEventMode")) {
    return fmi3Error;
  }
  c->phase = kEventMode;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance inst) {
  Instance* c = (Instance*)inst;
  if (!Allowed(c, kStepMode | kEventMode | kContinuousMode, "fmi3Terminate")) return fmi3Error;
  c->phase = kTerminated;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance inst) {
  Instance* c = (Instance*)inst;
  memset(&c->m, 0, sizeof(c->m));
  ModelStart(&c->m);
  c->phase = kInstantiated;
  return fmi3OK;
}

/* Float64: reals, time and the model's arrays of reals (kArrays: every value of an array for
 * its value reference, so n_values may exceed n). */
static const ModelArray* FindArray(unsigned vr) {
  int a;
  for (a = 0; a < kNumArrays; ++a) {
    if (kArrays[a].vr == vr) return &kArrays[a];
  }
  return NULL;
}

FMI3_EXPORT fmi3Status fmi3GetFloat64(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                      fmi3Float64 values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k, at = 0;
  if (!Allowed(c, ANY_LIVE, "fmi3GetFloat64")) return fmi3Error;
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    const ModelArray* a = FindArray(vrs[k]);
    const size_t count = a != NULL ? (size_t)a->size : 1u;
    if (at + count > n_values) {
      Log(c, fmi3Error, "logStatusError", "fmi3GetFloat64: nValues %zu is too small", n_values);
      return fmi3Error;
    }
    if (a != NULL) {
      memcpy(&values[at], &c->m.r[a->first], count * sizeof(double));
    } else if (vrs[k] == 999) {
      values[at] = c->m.time;
    } else if ((int)vrs[k] < kNumReals) {
      values[at] = c->m.r[vrs[k]];
    } else {
      Log(c, fmi3Error, "logStatusError", "fmi3GetFloat64: unknown value reference %u", vrs[k]);
      return fmi3Error;
    }
    at += count;
  }
  if (at != n_values) {
    Log(c, fmi3Error, "logStatusError", "fmi3GetFloat64: nValues %zu, the variables hold %zu",
        n_values, at);
    return fmi3Error;
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetFloat64(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                      const fmi3Float64 values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k, e, at = 0;
  if (!Allowed(c, SETTABLE, "fmi3SetFloat64")) return fmi3Error;
  for (k = 0; k < n; ++k) {
    const ModelArray* a = FindArray(vrs[k]);
    const size_t count = a != NULL ? (size_t)a->size : 1u;
    const unsigned first = a != NULL ? (unsigned)a->first : vrs[k];
    if (a == NULL && (int)vrs[k] >= kNumReals) {
      Log(c, fmi3Error, "logStatusError", "fmi3SetFloat64: unknown value reference %u", vrs[k]);
      return fmi3Error;
    }
    if (at + count > n_values) {
      Log(c, fmi3Error, "logStatusError", "fmi3SetFloat64: nValues %zu is too small", n_values);
      return fmi3Error;
    }
    for (e = 0; e < count; ++e) {
      if (!Accept(c, 'r', first + (unsigned)e, values[at + e], "fmi3SetFloat64")) {
        return fmi3Error;
      }
      c->m.r[first + e] = values[at + e];
    }
    at += count;
  }
  if (at != n_values) {
    Log(c, fmi3Error, "logStatusError", "fmi3SetFloat64: nValues %zu, the variables hold %zu",
        n_values, at);
    return fmi3Error;
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetInt32(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                    fmi3Int32 values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi3GetInt32") || n_values != n) return fmi3Error;
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    if (vrs[k] < 100 || (int)vrs[k] >= 100 + kNumInts) return fmi3Error;
    values[k] = c->m.i[vrs[k] - 100];
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetInt32(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                    const fmi3Int32 values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmi3SetInt32") || n_values != n) return fmi3Error;
  if (!NotInContinuousTime(c, "fmi3SetInt32")) return fmi3Error;
  for (k = 0; k < n; ++k) {
    if (vrs[k] < 100 || (int)vrs[k] >= 100 + kNumInts) return fmi3Error;
    if (!Accept(c, 'i', vrs[k] - 100, values[k], "fmi3SetInt32")) return fmi3Error;
    c->m.i[vrs[k] - 100] = values[k];
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetBoolean(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                      fmi3Boolean values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi3GetBoolean") || n_values != n) return fmi3Error;
  for (k = 0; k < n; ++k) {
    if (vrs[k] < 200 || (int)vrs[k] >= 200 + kNumBools) return fmi3Error;
    values[k] = c->m.b[vrs[k] - 200];
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetBoolean(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                      const fmi3Boolean values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmi3SetBoolean") || n_values != n) return fmi3Error;
  if (!NotInContinuousTime(c, "fmi3SetBoolean")) return fmi3Error;
  for (k = 0; k < n; ++k) {
    if (vrs[k] < 200 || (int)vrs[k] >= 200 + kNumBools) return fmi3Error;
    if (!Accept(c, 'b', vrs[k] - 200, values[k], "fmi3SetBoolean")) return fmi3Error;
    c->m.b[vrs[k] - 200] = values[k];
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetString(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                     fmi3String values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi3GetString") || n_values != n) return fmi3Error;
  c->m.string_reads += 1;
  for (k = 0; k < n; ++k) {
    if (vrs[k] != 300) return fmi3Error;
    values[k] = c->m.s;
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetString(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                     const fmi3String values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  if (!Allowed(c, kInstantiated | kInitMode, "fmi3SetString") || n_values != n) return fmi3Error;
  if (n > 0 && vrs[0] == 300) snprintf(c->m.s, sizeof(c->m.s), "%s", values[n - 1]);
  return fmi3OK;
}

/* The test models have no variables of the other types. */
#define NO_VARIABLES_(Name, Type)                                                             \
  FMI3_EXPORT fmi3Status fmi3Get##Name(fmi3Instance inst, const fmi3ValueReference vrs[],     \
                                       size_t n, Type values[], size_t n_values) {            \
    (void)vrs, (void)values, (void)n_values;                                                  \
    if (n == 0) return fmi3OK;                                                                \
    Log((Instance*)inst, fmi3Error, "logStatusError", "fmi3Get" #Name ": no such variables"); \
    return fmi3Error;                                                                         \
  }                                                                                           \
  FMI3_EXPORT fmi3Status fmi3Set##Name(fmi3Instance inst, const fmi3ValueReference vrs[],     \
                                       size_t n, const Type values[], size_t n_values) {      \
    (void)vrs, (void)values, (void)n_values;                                                  \
    if (n == 0) return fmi3OK;                                                                \
    Log((Instance*)inst, fmi3Error, "logStatusError", "fmi3Set" #Name ": no such variables"); \
    return fmi3Error;                                                                         \
  }
NO_VARIABLES_(Float32, fmi3Float32)
NO_VARIABLES_(Int8, fmi3Int8)
NO_VARIABLES_(UInt8, fmi3UInt8)
NO_VARIABLES_(Int16, fmi3Int16)
NO_VARIABLES_(UInt16, fmi3UInt16)
NO_VARIABLES_(UInt32, fmi3UInt32)

/* Int64 i64[k] at vr 400 + k, UInt64 u64[k] at vr 500 + k. */
#define WIDE_VARIABLES_(Name, Type, array, base, count, kind)                                    \
  FMI3_EXPORT fmi3Status fmi3Get##Name(fmi3Instance inst, const fmi3ValueReference vrs[],        \
                                       size_t n, Type values[], size_t n_values) {               \
    Instance* c = (Instance*)inst;                                                               \
    size_t k;                                                                                    \
    if (!Allowed(c, ANY_LIVE, "fmi3Get" #Name) || n_values != n) return fmi3Error;               \
    for (k = 0; k < n; ++k) {                                                                    \
      if (vrs[k] < base || (int)vrs[k] >= base + count) return fmi3Error;                        \
      values[k] = c->m.array[vrs[k] - base];                                                     \
    }                                                                                            \
    return fmi3OK;                                                                               \
  }                                                                                              \
  FMI3_EXPORT fmi3Status fmi3Set##Name(fmi3Instance inst, const fmi3ValueReference vrs[],        \
                                       size_t n, const Type values[], size_t n_values) {         \
    Instance* c = (Instance*)inst;                                                               \
    size_t k;                                                                                    \
    if (!Allowed(c, SETTABLE, "fmi3Set" #Name) || n_values != n) return fmi3Error;               \
    if (!NotInContinuousTime(c, "fmi3Set" #Name)) return fmi3Error;                              \
    for (k = 0; k < n; ++k) {                                                                    \
      if (vrs[k] < base || (int)vrs[k] >= base + count) return fmi3Error;                        \
      if (!Accept(c, kind, vrs[k] - base, (double)values[k], "fmi3Set" #Name)) return fmi3Error; \
      c->m.array[vrs[k] - base] = values[k];                                                     \
    }                                                                                            \
    return fmi3OK;                                                                               \
  }
WIDE_VARIABLES_(Int64, fmi3Int64, i64, 400, kNumInt64s, 'l')
WIDE_VARIABLES_(UInt64, fmi3UInt64, u64, 500, kNumUInt64s, 'u')

/* One Binary variable at vr 600 (ModelData.binary), for the models that declare it. */
FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                     size_t sizes[], fmi3Binary values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmi3GetBinary") || n_values != n) return fmi3Error;
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    if (vrs[k] != 600) return fmi3Error;
    sizes[k] = c->m.binary_size;
    values[k] = c->m.binary;
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                     const size_t sizes[], const fmi3Binary values[],
                                     size_t n_values) {
  Instance* c = (Instance*)inst;
  (void)vrs, (void)sizes, (void)values;
  if (!Allowed(c, SETTABLE, "fmi3SetBinary") || n_values != n) return fmi3Error;
  if (n == 0) return fmi3OK;
  Log(c, fmi3Error, "logStatusError", "fmi3SetBinary: no settable Binary variable");
  return fmi3Error;
}

FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance inst, fmi3FMUState* state) {
  Instance* c = (Instance*)inst;
  SavedState* saved;
  if (!Allowed(c, ANY_LIVE, "fmi3GetFMUState")) return fmi3Error;
  saved = (SavedState*)(*state != NULL ? *state : malloc(sizeof(SavedState)));
  if (saved == NULL) return fmi3Error;
  saved->m = c->m;
  saved->phase = c->phase;
  saved->terminated_by_model = c->terminated_by_model;
  *state = saved;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance inst, fmi3FMUState state) {
  Instance* c = (Instance*)inst;
  const SavedState* saved = (const SavedState*)state;
  if (!Allowed(c, ANY_LIVE, "fmi3SetFMUState")) return fmi3Error;
  c->m = saved->m;
  c->phase = saved->phase;
  c->terminated_by_model = saved->terminated_by_model;
  CommitStates(c);
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance inst, fmi3FMUState* state) {
  (void)inst;
  if (state != NULL) {
    free(*state);
    *state = NULL;
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance inst, fmi3FMUState state,
                                                  size_t* size) {
  (void)inst, (void)state;
  *size = sizeof(SavedState);
  return fmi3OK;
}
FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance inst, fmi3FMUState state,
                                             fmi3Byte bytes[], size_t size) {
  (void)inst;
  if (size < sizeof(SavedState)) return fmi3Error;
  memcpy(bytes, state, sizeof(SavedState));
  return fmi3OK;
}
FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance inst, const fmi3Byte bytes[],
                                               size_t size, fmi3FMUState* state) {
  (void)inst;
  if (size < sizeof(SavedState)) return fmi3Error;
  if (*state == NULL) *state = malloc(sizeof(SavedState));
  if (*state == NULL) return fmi3Error;
  memcpy(*state, bytes, sizeof(SavedState));
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetDirectionalDerivative(
    fmi3Instance inst, const fmi3ValueReference unknowns[], size_t n_unknowns,
    const fmi3ValueReference knowns[], size_t n_knowns, const fmi3Float64 seed[], size_t n_seed,
    fmi3Float64 sensitivity[], size_t n_sensitivity) {
  Instance* c = (Instance*)inst;
  size_t i, j;
  if (!Allowed(c, kInitMode | kStepMode | kEventMode | kContinuousMode,
               "fmi3GetDirectionalDerivative")) {
    return fmi3Error;
  }
  if (n_seed != n_knowns || n_sensitivity != n_unknowns) return fmi3Error;
  ModelCalculate(&c->m);
  for (i = 0; i < n_unknowns; ++i) {
    sensitivity[i] = 0.0;
    for (j = 0; j < n_knowns; ++j) {
      double partial;
      if (!ModelPartial(&c->m, unknowns[i], knowns[j], &partial)) {
        Log(c, fmi3Error, "logStatusError", "no partial derivative d[%u]/d[%u]", unknowns[i],
            knowns[j]);
        return fmi3Error;
      }
      sensitivity[i] += partial * seed[j];
    }
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance inst, fmi3Boolean* need_update,
                                                fmi3Boolean* terminate,
                                                fmi3Boolean* nominals_changed,
                                                fmi3Boolean* values_changed,
                                                fmi3Boolean* next_defined, fmi3Float64* next_time) {
  Instance* c = (Instance*)inst;
  bool changed = false;
  if (!Allowed(c, kEventMode, "fmi3UpdateDiscreteStates")) return fmi3Error;
  ModelCalculate(&c->m);
  ModelEventUpdate(&c->m, &changed);
  *need_update = false;
  *terminate = c->m.terminate;
  *nominals_changed = false;
  *values_changed = changed;
  *next_defined = c->m.next_event_defined;
  *next_time = c->m.next_event_time;
  return fmi3OK;
}

/* Model Exchange. */

FMI3_EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance inst) {
  Instance* c = (Instance*)inst;
  if (!Allowed(c, kEventMode, "fmi3EnterContinuousTimeMode")) return fmi3Error;
  EndClockTicks(c);
  c->phase = kContinuousMode;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance inst, fmi3Boolean no_set_prior,
                                                   fmi3Boolean* enter_event_mode,
                                                   fmi3Boolean* terminate) {
  Instance* c = (Instance*)inst;
  (void)no_set_prior;
  if (!Allowed(c, kContinuousMode, "fmi3CompletedIntegratorStep")) return fmi3Error;
  *enter_event_mode = ModelStepEvent(&c->m);
  *terminate = false;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetTime(fmi3Instance inst, fmi3Float64 time) {
  Instance* c = (Instance*)inst;
  if (!Allowed(c, kEventMode | kContinuousMode, "fmi3SetTime")) return fmi3Error;
  c->m.time = time;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance inst, const fmi3Float64 x[], size_t n) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, kContinuousMode, "fmi3SetContinuousStates") || (int)n != kNumStates) {
    return fmi3Error;
  }
  for (k = 0; k < n; ++k) c->m.r[kStateVr[k]] = x[k];
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance inst, fmi3Float64 dx[],
                                                         size_t n) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, READABLE, "fmi3GetContinuousStateDerivatives") || (int)n != kNumStates) {
    return fmi3Error;
  }
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) dx[k] = c->m.r[kDerivativeVr[k]];
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance inst, fmi3Float64 z[], size_t n) {
  Instance* c = (Instance*)inst;
  if (!Allowed(c, READABLE, "fmi3GetEventIndicators") || (int)n != kNumEventIndicators) {
    return fmi3Error;
  }
  ModelCalculate(&c->m);
  ModelEventIndicators(&c->m, z);
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance inst, fmi3Float64 x[], size_t n) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, READABLE, "fmi3GetContinuousStates") || (int)n != kNumStates) return fmi3Error;
  for (k = 0; k < n; ++k) x[k] = c->m.r[kStateVr[k]];
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance inst, fmi3Float64 x[],
                                                         size_t n) {
  size_t k;
  (void)inst;
  for (k = 0; k < n; ++k) x[k] = 1.0;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance inst, size_t* n) {
  (void)inst;
  *n = (size_t)kNumEventIndicators;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance inst, size_t* n) {
  (void)inst;
  *n = (size_t)kNumStates;
  return fmi3OK;
}

/* Co-Simulation. */

FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance inst) {
  Instance* c = (Instance*)inst;
  if (!Allowed(c, kEventMode, "fmi3EnterStepMode")) return fmi3Error;
  EndClockTicks(c);
  c->phase = kStepMode;
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance inst, const fmi3ValueReference vrs[],
                                                size_t n, const fmi3Int32 orders[],
                                                fmi3Float64 values[], size_t n_values) {
  Instance* c = (Instance*)inst;
  size_t k;
  int s;
  if (!Allowed(c, kStepMode | kTerminated, "fmi3GetOutputDerivatives") || n_values != n) {
    return fmi3Error;
  }
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    if (orders[k] != 1) return fmi3Error;
    values[k] = 0.0;
    for (s = 0; s < kNumStates; ++s) {
      if (kStateVr[s] == vrs[k]) values[k] = c->m.r[kDerivativeVr[s]];
    }
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance inst, fmi3Float64 t, fmi3Float64 h,
                                  fmi3Boolean no_set_prior, fmi3Boolean* event_handling_needed,
                                  fmi3Boolean* terminate, fmi3Boolean* early_return,
                                  fmi3Float64* last_successful_time) {
  Instance* c = (Instance*)inst;
  *event_handling_needed = false;
  *terminate = false;
  *early_return = false;
  *last_successful_time = t;
  if (!Allowed(c, kStepMode, "fmi3DoStep")) return fmi3Error;
  if (t < c->m.time - 1e-9 || t > c->m.time + 1e-9 || h <= 0.0) {
    Log(c, fmi3Error, "logStatusError", "fmi3DoStep(t=%.17g, h=%g) but the FMU is at t=%.17g", t, h,
        c->m.time);
    c->phase = kFailed;
    return fmi3Error;
  }
  if (!ModelBeforeStep(&c->m, t, h)) {
    Log(c, fmi3Error, "logStatusError", "%s", c->m.message);
    c->phase = kFailed;
    return fmi3Error;
  }
  if (c->m.terminate) {
    c->terminated_by_model = true;
    *terminate = true;
    return fmi3OK;
  }
  if (c->event_mode_used && c->m.next_event_defined && c->m.next_event_time <= t + 1e-12) {
    Log(c, fmi3Error, "logStatusError",
        "fmi3DoStep(t=%.17g) with the time event at t=%.17g not handled in Event Mode", t,
        c->m.next_event_time);
    c->phase = kFailed;
    return fmi3Error;
  }
  RestartStates(c, no_set_prior);
  if (ModelIntegrate(&c->m, h, c->event_mode_used && c->early_return_allowed)) {
    *event_handling_needed = true;
    *early_return = c->m.time < t + h - 1e-12;
  }
  if (no_set_prior) CommitStates(c);
#ifdef FMU_EARLY_RETURN_AT_END
  /* As some exporters do: the FMU keeps its own clock, t_start + n * h_fixed (h_fixed the first
   * step's size), and returns "early" at the end of every step that ends on it, at its own
   * time, which differs from the importer's t + h in the last bits. */
  if (c->h_fixed == 0.0) c->h_fixed = h;
  {
    const long long n = (long long)((c->m.time - c->t_start) / c->h_fixed + 0.5);
    const double own = c->t_start + (double)n * c->h_fixed;
    const double gap = own > c->m.time ? own - c->m.time : c->m.time - own;
    if (gap < 1e-9) {
      c->m.time = own;
      *early_return = true;
    }
  }
#endif
  *last_successful_time = c->m.time;
  return fmi3OK;
}

/* Clocks (FMI 3.0.1 section 2.2.9): clock k at value reference 700 + k (ModelData.clock_*). */
static int ClockIndex(Instance* c, fmi3ValueReference vr, const char* function) {
  if (vr >= 700 && (int)vr < 700 + kNumClocks) return (int)vr - 700;
  Log(c, fmi3Error, "logStatusError", "%s: %u is not a clock", function, vr);
  return -1;
}

FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                    const fmi3Clock values[]) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, kEventMode, "fmi3SetClock")) return fmi3Error;
  for (k = 0; k < n; ++k) {
    const int clock = ClockIndex(c, vrs[k], "fmi3SetClock");
    if (clock < 0) return fmi3Error;
    c->m.clock_active[clock] = values[k];
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance inst, const fmi3ValueReference vrs[], size_t n,
                                    fmi3Clock values[]) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, kEventMode, "fmi3GetClock")) return fmi3Error;
  ModelOutputClocks(&c->m);
  for (k = 0; k < n; ++k) {
    const int clock = ClockIndex(c, vrs[k], "fmi3GetClock");
    if (clock < 0) return fmi3Error;
    values[k] = c->m.clock_active[clock];
  }
  return fmi3OK;
}

/* FMU_FRACTION_ONLY: the decimal forms fail for clock 0, so an importer must ask for its
 * fractions (their resolution FMU_CLOCK_RESOLUTION, the counters the nearest integers to the
 * decimal values times it). Without FMU_CLOCK_RESOLUTION the fractions fail. */
#ifndef FMU_CLOCK_RESOLUTION
#define FMU_CLOCK_RESOLUTION 0
#endif

static bool DecimalAllowed(Instance* c, int clock, const char* function) {
#ifdef FMU_FRACTION_ONLY
  if (clock != 0) return true;
  Log(c, fmi3Error, "logStatusError", "%s: clock %d answers only fmi3Get*Fraction", function,
      clock);
  return false;
#else
  (void)c, (void)clock, (void)function;
  return true;
#endif
}

static bool FractionAllowed(Instance* c, const char* function) {
  if (FMU_CLOCK_RESOLUTION > 0) return true;
  Log(c, fmi3Error, "logStatusError", "%s: this FMU answers only the decimal forms", function);
  return false;
}

static fmi3UInt64 Counter(double seconds) {
  return (fmi3UInt64)(seconds * (double)FMU_CLOCK_RESOLUTION + 0.5);
}

FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance inst, const fmi3ValueReference vrs[],
                                               size_t n, fmi3UInt64 counters[],
                                               fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[]) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, kInitMode | kEventMode | kStepMode, "fmi3GetIntervalFraction")) return fmi3Error;
  if (!FractionAllowed(c, "fmi3GetIntervalFraction")) return fmi3Error;
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    const int clock = ClockIndex(c, vrs[k], "fmi3GetIntervalFraction");
    if (clock < 0) return fmi3Error;
    counters[k] = Counter(c->m.clock_interval[clock]);
    resolutions[k] = FMU_CLOCK_RESOLUTION;
    qualifiers[k] = (fmi3IntervalQualifier)c->m.clock_qualifier[clock];
    if (c->m.clock_qualifier[clock] == fmi3IntervalChanged) {
      c->m.clock_qualifier[clock] = fmi3IntervalUnchanged;
    }
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance inst, const fmi3ValueReference vrs[],
                                            size_t n, fmi3UInt64 counters[],
                                            fmi3UInt64 resolutions[]) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, kInitMode | kEventMode | kStepMode, "fmi3GetShiftFraction")) return fmi3Error;
  if (!FractionAllowed(c, "fmi3GetShiftFraction")) return fmi3Error;
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    const int clock = ClockIndex(c, vrs[k], "fmi3GetShiftFraction");
    if (clock < 0) return fmi3Error;
    counters[k] = Counter(c->m.clock_shift[clock]);
    resolutions[k] = FMU_CLOCK_RESOLUTION;
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance inst, const fmi3ValueReference vrs[],
                                              size_t n, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[]) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, kInitMode | kEventMode | kStepMode, "fmi3GetIntervalDecimal")) return fmi3Error;
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    const int clock = ClockIndex(c, vrs[k], "fmi3GetIntervalDecimal");
    if (clock < 0 || !DecimalAllowed(c, clock, "fmi3GetIntervalDecimal")) return fmi3Error;
    intervals[k] = c->m.clock_interval[clock];
    qualifiers[k] = (fmi3IntervalQualifier)c->m.clock_qualifier[clock];
    if (c->m.clock_qualifier[clock] == fmi3IntervalChanged) {
      c->m.clock_qualifier[clock] = fmi3IntervalUnchanged;
    }
  }
  return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance inst, const fmi3ValueReference vrs[],
                                           size_t n, fmi3Float64 shifts[]) {
  Instance* c = (Instance*)inst;
  size_t k;
  if (!Allowed(c, kInitMode | kEventMode | kStepMode, "fmi3GetShiftDecimal")) return fmi3Error;
  ModelCalculate(&c->m);
  for (k = 0; k < n; ++k) {
    const int clock = ClockIndex(c, vrs[k], "fmi3GetShiftDecimal");
    if (clock < 0 || !DecimalAllowed(c, clock, "fmi3GetShiftDecimal")) return fmi3Error;
    shifts[k] = c->m.clock_shift[clock];
  }
  return fmi3OK;
}

/* Scheduled Execution (FMI 3.0.1 section 5): after fmi3ExitInitializationMode the instance is in
 * Clock Activation Mode (kStepMode here), where fmi3ActivateModelPartition runs a partition. */
FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String name, fmi3String token, fmi3String resources, fmi3Boolean visible,
    fmi3Boolean logging_on, fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
    fmi3ClockUpdateCallback clock_update, fmi3LockPreemptionCallback lock,
    fmi3UnlockPreemptionCallback unlock) {
  (void)name, (void)token, (void)resources, (void)visible, (void)clock_update, (void)lock;
  (void)unlock;
  return NewInstance(env, log, false, logging_on);
}

FMI3_EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance inst, fmi3ValueReference clock,
                                                  fmi3Float64 activation_time) {
  Instance* c = (Instance*)inst;
  const int k = ClockIndex(c, clock, "fmi3ActivateModelPartition");
  if (!Allowed(c, kStepMode, "fmi3ActivateModelPartition") || k < 0) return fmi3Error;
  if (activation_time < c->m.time - 1e-12) {
    Log(c, fmi3Error, "logStatusError", "partition of clock %u activated at t=%.17g before t=%.17g",
        clock, activation_time, c->m.time);
    return fmi3Error;
  }
  c->m.time = activation_time;
  c->m.clock_activations[k] += 1;
  ModelActivatePartition(&c->m, k);
  return fmi3OK;
}
