/* The FMI 1.0 functions of the test FMUs, Model Exchange and Co-Simulation in one binary (the
 * model description offers one of them), on top of model_core.h. FMI 1.0 names every function
 * after the FMU: compiled with -DFMI1_MODEL_IDENTIFIER=<modelIdentifier>, FMI1_FUNCTION_NAME
 * makes <modelIdentifier>_fmiDoStep and so on. The FMU checks the calling sequence of the
 * standards (FMI for Model Exchange 1.0 section 3.3, FMI for Co-Simulation 1.0 section 3.3) and
 * fails with fmiError, logging why, when it is called out of order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosimo/fmi/fmi1_api.h"
#include "model_core.h"

#define F(name) FMI1_FUNCTION_NAME(name)

typedef enum {
  kInstantiated = 1 << 0, /* start values may be set (ME: and the time) */
  kInitialized = 1 << 1,  /* after fmiInitialize / fmiInitializeSlave */
  kTerminated = 1 << 2,
  kFailed = 1 << 3,
} Phase;

typedef struct {
  ModelData m;
  fmiCallbackLogger logger;
  fmiCallbackFreeMemory free_memory;
  char name[128];
  bool co_simulation;
  bool time_set; /* ME: fmiSetTime before fmiInitialize */
  Phase phase;
  bool logging_on;
  bool terminated_by_model;
} Instance;

static void Log(Instance* c, fmiStatus status, const char* category, const char* format, ...) {
  char buffer[512];
  va_list args;
  if (c->logger == NULL || (status == fmiOK && !c->logging_on)) return;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  c->logger(c, c->name, status, category, "%s", buffer);
}

static bool Allowed(Instance* c, int phases, const char* function) {
  if ((c->phase & phases) != 0) return true;
  Log(c, fmiError, "logStatusError", "%s called in the wrong state (phase %d)", function,
      (int)c->phase);
  c->phase = kFailed;
  return false;
}

#define ANY_LIVE (kInstantiated | kInitialized | kTerminated)
#define SETTABLE (kInstantiated | kInitialized)

static Instance* NewInstance(fmiString name, fmiCallbackLogger logger,
                             fmiCallbackAllocateMemory allocate, fmiCallbackFreeMemory free_memory,
                             fmiBoolean logging_on, bool co_simulation) {
  Instance* c;
  if (allocate == NULL || free_memory == NULL) return NULL;
  c = (Instance*)allocate(1, sizeof(Instance));
  if (c == NULL) return NULL;
  memset(c, 0, sizeof(*c));
  c->logger = logger;
  c->free_memory = free_memory;
  snprintf(c->name, sizeof(c->name), "%s", name != NULL ? name : "");
  c->co_simulation = co_simulation;
  c->phase = kInstantiated;
  c->logging_on = logging_on != fmiFalse;
  ModelStart(&c->m);
  return c;
}

static void FreeInstance(fmiComponent comp) {
  Instance* c = (Instance*)comp;
  if (c != NULL) c->free_memory(c);
}

/* Both standards. */

FMI1_EXPORT const char* F(fmiGetVersion)(void) { return "1.0"; }

FMI1_EXPORT fmiStatus F(fmiSetDebugLogging)(fmiComponent comp, fmiBoolean logging_on) {
  ((Instance*)comp)->logging_on = logging_on != fmiFalse;
  return fmiOK;
}

static bool CheckVrs(Instance* c, const fmiValueReference vr[], size_t nvr, int limit,
                     const char* function) {
  size_t k;
  for (k = 0; k < nvr; ++k) {
    if ((int)vr[k] >= limit) {
      Log(c, fmiError, "logStatusError", "%s: unknown value reference %u", function, vr[k]);
      return false;
    }
  }
  return true;
}

FMI1_EXPORT fmiStatus F(fmiGetReal)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                    fmiReal value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmiGetReal")) return fmiError;
  if (!CheckVrs(c, vr, nvr, kNumReals, "fmiGetReal")) return fmiError;
  ModelCalculate(&c->m);
  for (k = 0; k < nvr; ++k) value[k] = c->m.r[vr[k]];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetInteger)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                       fmiInteger value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmiGetInteger")) return fmiError;
  if (!CheckVrs(c, vr, nvr, kNumInts, "fmiGetInteger")) return fmiError;
  ModelCalculate(&c->m);
  for (k = 0; k < nvr; ++k) value[k] = c->m.i[vr[k]];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetBoolean)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                       fmiBoolean value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmiGetBoolean")) return fmiError;
  if (!CheckVrs(c, vr, nvr, kNumBools, "fmiGetBoolean")) return fmiError;
  for (k = 0; k < nvr; ++k) value[k] = c->m.b[vr[k]] ? fmiTrue : fmiFalse;
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetString)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                      fmiString value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, ANY_LIVE, "fmiGetString")) return fmiError;
  if (!CheckVrs(c, vr, nvr, 1, "fmiGetString")) return fmiError;
  c->m.string_reads += 1;
  for (k = 0; k < nvr; ++k) value[k] = c->m.s;
  return fmiOK;
}

/* The model's own check of a value (ModelAcceptSet). */
static bool Accept(Instance* c, char kind, unsigned index, double value, const char* function) {
  if (ModelAcceptSet(&c->m, kind, index, value, true)) return true;
  Log(c, fmiError, "logStatusError", "%s: %s", function, c->m.message);
  return false;
}

FMI1_EXPORT fmiStatus F(fmiSetReal)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                    const fmiReal value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmiSetReal")) return fmiError;
  if (!CheckVrs(c, vr, nvr, kNumReals, "fmiSetReal")) return fmiError;
  for (k = 0; k < nvr; ++k) {
    if (!Accept(c, 'r', vr[k], value[k], "fmiSetReal")) return fmiError;
  }
  for (k = 0; k < nvr; ++k) c->m.r[vr[k]] = value[k];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiSetInteger)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                       const fmiInteger value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmiSetInteger")) return fmiError;
  if (!CheckVrs(c, vr, nvr, kNumInts, "fmiSetInteger")) return fmiError;
  for (k = 0; k < nvr; ++k) {
    if (!Accept(c, 'i', vr[k], value[k], "fmiSetInteger")) return fmiError;
  }
  for (k = 0; k < nvr; ++k) c->m.i[vr[k]] = value[k];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiSetBoolean)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                       const fmiBoolean value[]) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, SETTABLE, "fmiSetBoolean")) return fmiError;
  if (!CheckVrs(c, vr, nvr, kNumBools, "fmiSetBoolean")) return fmiError;
  for (k = 0; k < nvr; ++k) {
    if (!Accept(c, 'b', vr[k], value[k] != fmiFalse, "fmiSetBoolean")) return fmiError;
  }
  for (k = 0; k < nvr; ++k) c->m.b[vr[k]] = value[k] != fmiFalse;
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiSetString)(fmiComponent comp, const fmiValueReference vr[], size_t nvr,
                                      const fmiString value[]) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInstantiated, "fmiSetString")) return fmiError;
  if (!CheckVrs(c, vr, nvr, 1, "fmiSetString")) return fmiError;
  if (nvr > 0) snprintf(c->m.s, sizeof(c->m.s), "%s", value[nvr - 1]);
  return fmiOK;
}

/* Model Exchange. */

FMI1_EXPORT const char* F(fmiGetModelTypesPlatform)(void) { return "standard32"; }

FMI1_EXPORT fmiComponent F(fmiInstantiateModel)(fmiString name, fmiString guid,
                                                fmi1MeCallbackFunctions functions,
                                                fmiBoolean logging_on) {
  (void)guid;
  return NewInstance(name, functions.logger, functions.allocateMemory, functions.freeMemory,
                     logging_on, false);
}

FMI1_EXPORT void F(fmiFreeModelInstance)(fmiComponent comp) { FreeInstance(comp); }

FMI1_EXPORT fmiStatus F(fmiSetTime)(fmiComponent comp, fmiReal time) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInstantiated | kInitialized, "fmiSetTime")) return fmiError;
  c->m.time = time;
  c->time_set = true;
  return fmiOK;
}

static void EventInfo(Instance* c, bool changed, fmiEventInfo* info) {
  info->iterationConverged = fmiTrue;
  info->stateValueReferencesChanged = fmiFalse;
  info->stateValuesChanged = changed ? fmiTrue : fmiFalse;
  info->terminateSimulation = c->m.terminate ? fmiTrue : fmiFalse;
  info->upcomingTimeEvent = c->m.next_event_defined ? fmiTrue : fmiFalse;
  info->nextEventTime = c->m.next_event_time;
}

FMI1_EXPORT fmiStatus F(fmiInitialize)(fmiComponent comp, fmiBoolean tolerance_controlled,
                                       fmiReal relative_tolerance, fmiEventInfo* info) {
  Instance* c = (Instance*)comp;
  bool changed = false;
  (void)tolerance_controlled, (void)relative_tolerance;
  if (!Allowed(c, kInstantiated, "fmiInitialize")) return fmiError;
  if (!c->time_set) {
    Log(c, fmiError, "logStatusError", "fmiInitialize before fmiSetTime");
    c->phase = kFailed;
    return fmiError;
  }
  ModelCalculate(&c->m);
  ModelEventUpdate(&c->m, &changed);
  EventInfo(c, changed, info);
  c->phase = kInitialized;
  Log(c, fmiOK, "logEvents", "%s initialised (label %s)", kModelName, c->m.s);
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiEventUpdate)(fmiComponent comp, fmiBoolean intermediate_results,
                                        fmiEventInfo* info) {
  Instance* c = (Instance*)comp;
  bool changed = false;
  (void)intermediate_results;
  if (!Allowed(c, kInitialized, "fmiEventUpdate")) return fmiError;
  ModelCalculate(&c->m);
  ModelEventUpdate(&c->m, &changed);
  EventInfo(c, changed, info);
  if (changed) Log(c, fmiOK, "logEvents", "event at t=%.17g", c->m.time);
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiCompletedIntegratorStep)(fmiComponent comp,
                                                    fmiBoolean* call_event_update) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInitialized, "fmiCompletedIntegratorStep")) return fmiError;
  *call_event_update = ModelStepEvent(&c->m) ? fmiTrue : fmiFalse;
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiSetContinuousStates)(fmiComponent comp, const fmiReal x[], size_t nx) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, kInitialized, "fmiSetContinuousStates")) return fmiError;
  if ((int)nx != kNumStates) return fmiError;
  for (k = 0; k < nx; ++k) c->m.r[kStateVr[k]] = x[k];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetDerivatives)(fmiComponent comp, fmiReal dx[], size_t nx) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, kInitialized | kTerminated, "fmiGetDerivatives")) return fmiError;
  if ((int)nx != kNumStates) return fmiError;
  ModelCalculate(&c->m);
  for (k = 0; k < nx; ++k) dx[k] = c->m.r[kDerivativeVr[k]];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetEventIndicators)(fmiComponent comp, fmiReal z[], size_t nz) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInitialized | kTerminated, "fmiGetEventIndicators")) return fmiError;
  if ((int)nz != kNumEventIndicators) return fmiError;
  ModelCalculate(&c->m);
  ModelEventIndicators(&c->m, z);
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetContinuousStates)(fmiComponent comp, fmiReal x[], size_t nx) {
  Instance* c = (Instance*)comp;
  size_t k;
  if (!Allowed(c, kInitialized | kTerminated, "fmiGetContinuousStates")) return fmiError;
  if ((int)nx != kNumStates) return fmiError;
  for (k = 0; k < nx; ++k) x[k] = c->m.r[kStateVr[k]];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetNominalContinuousStates)(fmiComponent comp, fmiReal nominal[],
                                                       size_t nx) {
  size_t k;
  (void)comp;
  for (k = 0; k < nx; ++k) nominal[k] = 1.0;
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetStateValueReferences)(fmiComponent comp, fmiValueReference vrx[],
                                                    size_t nx) {
  size_t k;
  (void)comp;
  for (k = 0; k < nx && (int)k < kNumStates; ++k) vrx[k] = kStateVr[k];
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiTerminate)(fmiComponent comp) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInitialized, "fmiTerminate")) return fmiError;
  c->phase = kTerminated;
  return fmiOK;
}

/* Co-Simulation. */

FMI1_EXPORT const char* F(fmiGetTypesPlatform)(void) { return "standard32"; }

FMI1_EXPORT fmiComponent F(fmiInstantiateSlave)(fmiString name, fmiString guid, fmiString location,
                                                fmiString mime_type, fmiReal timeout,
                                                fmiBoolean visible, fmiBoolean interactive,
                                                fmi1CsCallbackFunctions functions,
                                                fmiBoolean logging_on) {
  (void)guid, (void)mime_type, (void)timeout, (void)visible, (void)interactive;
  if (location == NULL || strncmp(location, "file://", 7) != 0) return NULL;
  return NewInstance(name, functions.logger, functions.allocateMemory, functions.freeMemory,
                     logging_on, true);
}

FMI1_EXPORT fmiStatus F(fmiInitializeSlave)(fmiComponent comp, fmiReal start,
                                            fmiBoolean stop_defined, fmiReal stop) {
  Instance* c = (Instance*)comp;
  bool changed;
  (void)stop_defined, (void)stop;
  if (!Allowed(c, kInstantiated, "fmiInitializeSlave")) return fmiError;
  c->m.time = start;
  ModelCalculate(&c->m);
  ModelEventUpdate(&c->m, &changed);
  c->phase = kInitialized;
  Log(c, fmiOK, "logEvents", "%s initialised (label %s)", kModelName, c->m.s);
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiTerminateSlave)(fmiComponent comp) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInitialized, "fmiTerminateSlave")) return fmiError;
  c->phase = kTerminated;
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiResetSlave)(fmiComponent comp) {
  Instance* c = (Instance*)comp;
  memset(&c->m, 0, sizeof(c->m));
  ModelStart(&c->m);
  c->phase = kInstantiated;
  return fmiOK;
}

FMI1_EXPORT void F(fmiFreeSlaveInstance)(fmiComponent comp) { FreeInstance(comp); }

FMI1_EXPORT fmiStatus F(fmiSetRealInputDerivatives)(fmiComponent comp, const fmiValueReference vr[],
                                                    size_t nvr, const fmiInteger order[],
                                                    const fmiReal value[]) {
  (void)vr, (void)nvr, (void)order, (void)value;
  Log((Instance*)comp, fmiError, "logStatusError", "canInterpolateInputs is false");
  return fmiError;
}

FMI1_EXPORT fmiStatus F(fmiGetRealOutputDerivatives)(fmiComponent comp,
                                                     const fmiValueReference vr[], size_t nvr,
                                                     const fmiInteger order[], fmiReal value[]) {
  (void)vr, (void)nvr, (void)order, (void)value;
  Log((Instance*)comp, fmiError, "logStatusError", "maxOutputDerivativeOrder is 0");
  return fmiError;
}

FMI1_EXPORT fmiStatus F(fmiCancelStep)(fmiComponent comp) {
  (void)comp;
  return fmiError;
}

FMI1_EXPORT fmiStatus F(fmiDoStep)(fmiComponent comp, fmiReal t, fmiReal h, fmiBoolean new_step) {
  Instance* c = (Instance*)comp;
  if (!Allowed(c, kInitialized, "fmiDoStep")) return fmiError;
  if (!new_step) {
    Log(c, fmiError, "logStatusError", "fmiDoStep(newStep = false): canRejectSteps is false");
    c->phase = kFailed;
    return fmiError;
  }
  if (c->terminated_by_model) return fmiDiscard;
  if (t < c->m.time - 1e-9 || t > c->m.time + 1e-9 || h <= 0.0) {
    Log(c, fmiError, "logStatusError", "fmiDoStep(t=%.17g, h=%g) but the FMU is at t=%.17g", t, h,
        c->m.time);
    c->phase = kFailed;
    return fmiError;
  }
  if (!ModelBeforeStep(&c->m, t, h)) {
    Log(c, fmiError, "logStatusError", "%s", c->m.message);
    c->phase = kFailed;
    return fmiError;
  }
  if (c->m.terminate) {
    c->terminated_by_model = true;
    Log(c, fmiWarning, "logStatusWarning", "the model ends its simulation at t=%.17g", t);
    return fmiDiscard;
  }
  (void)ModelIntegrate(&c->m, h, false);
  return fmiOK;
}

FMI1_EXPORT fmiStatus F(fmiGetStatus)(fmiComponent comp, const fmiStatusKind kind,
                                      fmiStatus* value) {
  (void)comp, (void)kind;
  *value = fmiOK;
  return fmiOK;
}
FMI1_EXPORT fmiStatus F(fmiGetRealStatus)(fmiComponent comp, const fmiStatusKind kind,
                                          fmiReal* value) {
  Instance* c = (Instance*)comp;
  if (kind != fmiLastSuccessfulTime) return fmiDiscard;
  *value = c->m.time;
  return fmiOK;
}
FMI1_EXPORT fmiStatus F(fmiGetIntegerStatus)(fmiComponent comp, const fmiStatusKind kind,
                                             fmiInteger* value) {
  (void)comp, (void)kind, (void)value;
  return fmiDiscard;
}
FMI1_EXPORT fmiStatus F(fmiGetBooleanStatus)(fmiComponent comp, const fmiStatusKind kind,
                                             fmiBoolean* value) {
  (void)comp, (void)kind, (void)value;
  return fmiDiscard;
}
FMI1_EXPORT fmiStatus F(fmiGetStringStatus)(fmiComponent comp, const fmiStatusKind kind,
                                            fmiString* value) {
  (void)comp, (void)kind, (void)value;
  return fmiDiscard;
}
