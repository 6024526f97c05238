/* The FMI 2.0 C API, written in the project from the function signatures of the FMI 2.0.4
 * standard (section 2.1 "Header files and naming of functions", 3.2 Model Exchange, 4.2
 * Co-Simulation). Plain C so that the test FMUs in tests/fmus/ compile against the same
 * declarations the importer uses. Only types and function types are declared here: the importer
 * resolves the functions with dlsym, an FMU defines them (see FMI2_EXPORT).
 *
 * The names follow the standard (fmi2Real, fmi2DoStepTYPE, ...), not the project's naming, so
 * that every line can be checked against the specification. */
#ifndef COSIMO_WORKER_FMI2_API_H_
#define COSIMO_WORKER_FMI2_API_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FMI2_EXPORT __attribute__((visibility("default")))

typedef void* fmi2Component;
typedef void* fmi2ComponentEnvironment;
typedef void* fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char* fmi2String;
typedef char fmi2Byte;

#define fmi2True 1
#define fmi2False 0

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;

typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;

typedef enum {
  fmi2DoStepStatus,
  fmi2PendingStatus,
  fmi2LastSuccessfulTime,
  fmi2Terminated
} fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String instance_name, fmi2Status,
                                   fmi2String category, fmi2String message, ...);
typedef void* (*fmi2CallbackAllocateMemory)(size_t, size_t);
typedef void (*fmi2CallbackFreeMemory)(void*);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment, fmi2Status);

typedef struct {
  fmi2CallbackLogger logger;
  fmi2CallbackAllocateMemory allocateMemory;
  fmi2CallbackFreeMemory freeMemory;
  fmi2StepFinished stepFinished;
  fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

typedef struct {
  fmi2Boolean newDiscreteStatesNeeded;
  fmi2Boolean terminateSimulation;
  fmi2Boolean nominalsOfContinuousStatesChanged;
  fmi2Boolean valuesOfContinuousStatesChanged;
  fmi2Boolean nextEventTimeDefined;
  fmi2Real nextEventTime;
} fmi2EventInfo;

/* Common functions. */
typedef const char* fmi2GetTypesPlatformTYPE(void);
typedef const char* fmi2GetVersionTYPE(void);
typedef fmi2Status fmi2SetDebugLoggingTYPE(fmi2Component, fmi2Boolean logging_on,
                                           size_t n_categories, const fmi2String categories[]);
typedef fmi2Component fmi2InstantiateTYPE(fmi2String instance_name, fmi2Type fmu_type,
                                          fmi2String fmu_guid, fmi2String fmu_resource_location,
                                          const fmi2CallbackFunctions* functions,
                                          fmi2Boolean visible, fmi2Boolean logging_on);
typedef void fmi2FreeInstanceTYPE(fmi2Component);
typedef fmi2Status fmi2SetupExperimentTYPE(fmi2Component, fmi2Boolean tolerance_defined,
                                           fmi2Real tolerance, fmi2Real start_time,
                                           fmi2Boolean stop_time_defined, fmi2Real stop_time);
typedef fmi2Status fmi2EnterInitializationModeTYPE(fmi2Component);
typedef fmi2Status fmi2ExitInitializationModeTYPE(fmi2Component);
typedef fmi2Status fmi2TerminateTYPE(fmi2Component);
typedef fmi2Status fmi2ResetTYPE(fmi2Component);

typedef fmi2Status fmi2GetRealTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                   fmi2Real value[]);
typedef fmi2Status fmi2GetIntegerTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Integer value[]);
typedef fmi2Status fmi2GetBooleanTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Boolean value[]);
typedef fmi2Status fmi2GetStringTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                     fmi2String value[]);
typedef fmi2Status fmi2SetRealTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[]);
typedef fmi2Status fmi2SetIntegerTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Integer value[]);
typedef fmi2Status fmi2SetBooleanTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Boolean value[]);
typedef fmi2Status fmi2SetStringTYPE(fmi2Component, const fmi2ValueReference vr[], size_t nvr,
                                     const fmi2String value[]);

typedef fmi2Status fmi2GetFMUstateTYPE(fmi2Component, fmi2FMUstate*);
typedef fmi2Status fmi2SetFMUstateTYPE(fmi2Component, fmi2FMUstate);
typedef fmi2Status fmi2FreeFMUstateTYPE(fmi2Component, fmi2FMUstate*);
typedef fmi2Status fmi2SerializedFMUstateSizeTYPE(fmi2Component, fmi2FMUstate, size_t*);
typedef fmi2Status fmi2SerializeFMUstateTYPE(fmi2Component, fmi2FMUstate, fmi2Byte[], size_t);
typedef fmi2Status fmi2DeSerializeFMUstateTYPE(fmi2Component, const fmi2Byte[], size_t,
                                               fmi2FMUstate*);

typedef fmi2Status fmi2GetDirectionalDerivativeTYPE(fmi2Component,
                                                    const fmi2ValueReference v_unknown_ref[],
                                                    size_t n_unknown,
                                                    const fmi2ValueReference v_known_ref[],
                                                    size_t n_known, const fmi2Real dv_known[],
                                                    fmi2Real dv_unknown[]);

/* Model Exchange. */
typedef fmi2Status fmi2EnterEventModeTYPE(fmi2Component);
typedef fmi2Status fmi2NewDiscreteStatesTYPE(fmi2Component, fmi2EventInfo*);
typedef fmi2Status fmi2EnterContinuousTimeModeTYPE(fmi2Component);
typedef fmi2Status fmi2CompletedIntegratorStepTYPE(fmi2Component,
                                                   fmi2Boolean no_set_fmu_state_prior,
                                                   fmi2Boolean* enter_event_mode,
                                                   fmi2Boolean* terminate_simulation);
typedef fmi2Status fmi2SetTimeTYPE(fmi2Component, fmi2Real time);
typedef fmi2Status fmi2SetContinuousStatesTYPE(fmi2Component, const fmi2Real x[], size_t nx);
typedef fmi2Status fmi2GetDerivativesTYPE(fmi2Component, fmi2Real derivatives[], size_t nx);
typedef fmi2Status fmi2GetEventIndicatorsTYPE(fmi2Component, fmi2Real event_indicators[],
                                              size_t ni);
typedef fmi2Status fmi2GetContinuousStatesTYPE(fmi2Component, fmi2Real x[], size_t nx);
typedef fmi2Status fmi2GetNominalsOfContinuousStatesTYPE(fmi2Component, fmi2Real x_nominal[],
                                                         size_t nx);

/* Co-Simulation. */
typedef fmi2Status fmi2SetRealInputDerivativesTYPE(fmi2Component, const fmi2ValueReference vr[],
                                                   size_t nvr, const fmi2Integer order[],
                                                   const fmi2Real value[]);
typedef fmi2Status fmi2GetRealOutputDerivativesTYPE(fmi2Component, const fmi2ValueReference vr[],
                                                    size_t nvr, const fmi2Integer order[],
                                                    fmi2Real value[]);
typedef fmi2Status fmi2DoStepTYPE(fmi2Component, fmi2Real current_communication_point,
                                  fmi2Real communication_step_size,
                                  fmi2Boolean no_set_fmu_state_prior_to_current_point);
typedef fmi2Status fmi2CancelStepTYPE(fmi2Component);
typedef fmi2Status fmi2GetStatusTYPE(fmi2Component, const fmi2StatusKind, fmi2Status*);
typedef fmi2Status fmi2GetRealStatusTYPE(fmi2Component, const fmi2StatusKind, fmi2Real*);
typedef fmi2Status fmi2GetIntegerStatusTYPE(fmi2Component, const fmi2StatusKind, fmi2Integer*);
typedef fmi2Status fmi2GetBooleanStatusTYPE(fmi2Component, const fmi2StatusKind, fmi2Boolean*);
typedef fmi2Status fmi2GetStringStatusTYPE(fmi2Component, const fmi2StatusKind, fmi2String*);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* COSIMO_WORKER_FMI2_API_H_ */
