/* The FMI 1.0 C API, written in the project from the function signatures of the FMI 1.0
 * standards "FMI for Model Exchange 1.0" (fmiModelFunctions.h, section 3) and "FMI for
 * Co-Simulation 1.0" (fmiFunctions.h, section 3). Plain C so that the test FMUs in tests/fmus/
 * compile against the same declarations the importer uses. Only types and function types are
 * declared here: the importer resolves the functions with dlsym.
 *
 * FMI 1.0 names every exported function after the FMU: "<modelIdentifier>_fmiDoStep" for the
 * standard's fmiDoStep (FMI1_FUNCTION_NAME builds that name in an FMU; the importer resolves
 * modelIdentifier + "_" + name). The two standards share the types and the variable access
 * functions but declare fmiCallbackFunctions differently (Co-Simulation adds stepFinished), and
 * pass the struct by value: fmi1MeCallbackFunctions and fmi1CsCallbackFunctions below are the
 * two layouts (the standard calls both fmiCallbackFunctions).
 *
 * The names follow the standard (fmiReal, fmiDoStepTYPE, ...), not the project's naming, so that
 * every line can be checked against the specification. */
#ifndef COSIMO_FMI_FMI1_API_H_
#define COSIMO_FMI_FMI1_API_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FMI1_EXPORT __attribute__((visibility("default")))
#define FMI1_PASTE(a, b) a##_##b
#define FMI1_JOIN(a, b) FMI1_PASTE(a, b)
/* In an FMU compiled with -DFMI1_MODEL_IDENTIFIER=<id>: <id>_<name>. */
#define FMI1_FUNCTION_NAME(name) FMI1_JOIN(FMI1_MODEL_IDENTIFIER, name)

typedef void* fmiComponent;
typedef unsigned int fmiValueReference;
typedef double fmiReal;
typedef int fmiInteger;
typedef char fmiBoolean;
typedef const char* fmiString;

#define fmiTrue 1
#define fmiFalse 0
#define fmiUndefinedValueReference ((fmiValueReference)(-1))

/* fmiPending: Co-Simulation only (asynchronous fmiDoStep). */
typedef enum { fmiOK, fmiWarning, fmiDiscard, fmiError, fmiFatal, fmiPending } fmiStatus;

typedef void (*fmiCallbackLogger)(fmiComponent c, fmiString instanceName, fmiStatus status,
                                  fmiString category, fmiString message, ...);
typedef void* (*fmiCallbackAllocateMemory)(size_t nobj, size_t size);
typedef void (*fmiCallbackFreeMemory)(void* obj);
typedef void (*fmiStepFinished)(fmiComponent c, fmiStatus status);

/* Model Exchange 1.0 fmiCallbackFunctions. */
typedef struct {
  fmiCallbackLogger logger;
  fmiCallbackAllocateMemory allocateMemory;
  fmiCallbackFreeMemory freeMemory;
} fmi1MeCallbackFunctions;

/* Co-Simulation 1.0 fmiCallbackFunctions. */
typedef struct {
  fmiCallbackLogger logger;
  fmiCallbackAllocateMemory allocateMemory;
  fmiCallbackFreeMemory freeMemory;
  fmiStepFinished stepFinished;
} fmi1CsCallbackFunctions;

typedef struct {
  fmiBoolean iterationConverged;
  fmiBoolean stateValueReferencesChanged;
  fmiBoolean stateValuesChanged;
  fmiBoolean terminateSimulation;
  fmiBoolean upcomingTimeEvent;
  fmiReal nextEventTime;
} fmiEventInfo;

typedef enum { fmiDoStepStatus, fmiPendingStatus, fmiLastSuccessfulTime } fmiStatusKind;

/* Both standards. */
typedef const char* fmiGetVersionTYPE(void);
typedef fmiStatus fmiSetDebugLoggingTYPE(fmiComponent c, fmiBoolean loggingOn);
typedef fmiStatus fmiGetRealTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                 fmiReal value[]);
typedef fmiStatus fmiGetIntegerTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                    fmiInteger value[]);
typedef fmiStatus fmiGetBooleanTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                    fmiBoolean value[]);
typedef fmiStatus fmiGetStringTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                   fmiString value[]);
typedef fmiStatus fmiSetRealTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                 const fmiReal value[]);
typedef fmiStatus fmiSetIntegerTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                    const fmiInteger value[]);
typedef fmiStatus fmiSetBooleanTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                    const fmiBoolean value[]);
typedef fmiStatus fmiSetStringTYPE(fmiComponent c, const fmiValueReference vr[], size_t nvr,
                                   const fmiString value[]);

/* Model Exchange. */
typedef const char* fmiGetModelTypesPlatformTYPE(void);
typedef fmiComponent fmiInstantiateModelTYPE(fmiString instanceName, fmiString GUID,
                                             fmi1MeCallbackFunctions functions,
                                             fmiBoolean loggingOn);
typedef void fmiFreeModelInstanceTYPE(fmiComponent c);
typedef fmiStatus fmiSetTimeTYPE(fmiComponent c, fmiReal time);
typedef fmiStatus fmiSetContinuousStatesTYPE(fmiComponent c, const fmiReal x[], size_t nx);
typedef fmiStatus fmiCompletedIntegratorStepTYPE(fmiComponent c, fmiBoolean* callEventUpdate);
typedef fmiStatus fmiInitializeTYPE(fmiComponent c, fmiBoolean toleranceControlled,
                                    fmiReal relativeTolerance, fmiEventInfo* eventInfo);
typedef fmiStatus fmiGetDerivativesTYPE(fmiComponent c, fmiReal derivatives[], size_t nx);
typedef fmiStatus fmiGetEventIndicatorsTYPE(fmiComponent c, fmiReal eventIndicators[], size_t ni);
typedef fmiStatus fmiEventUpdateTYPE(fmiComponent c, fmiBoolean intermediateResults,
                                     fmiEventInfo* eventInfo);
typedef fmiStatus fmiGetContinuousStatesTYPE(fmiComponent c, fmiReal states[], size_t nx);
typedef fmiStatus fmiGetNominalContinuousStatesTYPE(fmiComponent c, fmiReal x_nominal[], size_t nx);
typedef fmiStatus fmiGetStateValueReferencesTYPE(fmiComponent c, fmiValueReference vrx[],
                                                 size_t nx);
typedef fmiStatus fmiTerminateTYPE(fmiComponent c);

/* Co-Simulation. */
typedef const char* fmiGetTypesPlatformTYPE(void);
typedef fmiComponent fmiInstantiateSlaveTYPE(fmiString instanceName, fmiString fmuGUID,
                                             fmiString fmuLocation, fmiString mimeType,
                                             fmiReal timeout, fmiBoolean visible,
                                             fmiBoolean interactive,
                                             fmi1CsCallbackFunctions functions,
                                             fmiBoolean loggingOn);
typedef fmiStatus fmiInitializeSlaveTYPE(fmiComponent c, fmiReal tStart, fmiBoolean StopTimeDefined,
                                         fmiReal tStop);
typedef fmiStatus fmiTerminateSlaveTYPE(fmiComponent c);
typedef fmiStatus fmiResetSlaveTYPE(fmiComponent c);
typedef void fmiFreeSlaveInstanceTYPE(fmiComponent c);
typedef fmiStatus fmiSetRealInputDerivativesTYPE(fmiComponent c, const fmiValueReference vr[],
                                                 size_t nvr, const fmiInteger order[],
                                                 const fmiReal value[]);
typedef fmiStatus fmiGetRealOutputDerivativesTYPE(fmiComponent c, const fmiValueReference vr[],
                                                  size_t nvr, const fmiInteger order[],
                                                  fmiReal value[]);
typedef fmiStatus fmiCancelStepTYPE(fmiComponent c);
typedef fmiStatus fmiDoStepTYPE(fmiComponent c, fmiReal currentCommunicationPoint,
                                fmiReal communicationStepSize, fmiBoolean newStep);
typedef fmiStatus fmiGetStatusTYPE(fmiComponent c, const fmiStatusKind s, fmiStatus* value);
typedef fmiStatus fmiGetRealStatusTYPE(fmiComponent c, const fmiStatusKind s, fmiReal* value);
typedef fmiStatus fmiGetIntegerStatusTYPE(fmiComponent c, const fmiStatusKind s, fmiInteger* value);
typedef fmiStatus fmiGetBooleanStatusTYPE(fmiComponent c, const fmiStatusKind s, fmiBoolean* value);
typedef fmiStatus fmiGetStringStatusTYPE(fmiComponent c, const fmiStatusKind s, fmiString* value);

#ifdef __cplusplus
}
#endif

#endif /* COSIMO_FMI_FMI1_API_H_ */
