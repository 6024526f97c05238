/* The FMI 3.0 C API, written in the project from the function signatures of the FMI 3.0
 * standard (section 2.2 "FMI Application Programming Interface", 3 Model Exchange, 4
 * Co-Simulation, 5 Scheduled Execution) and 2.2.9 (clocks). Plain C so that the test FMUs in
 * tests/fmus/ compile against the same declarations the importer uses.
 *
 * The names follow the standard (fmi3Float64, fmi3DoStepTYPE, ...), not the project's naming, so
 * that every line can be checked against the specification. */
#ifndef COSIMO_WORKER_FMI3_API_H_
#define COSIMO_WORKER_FMI3_API_H_

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define FMI3_EXPORT __attribute__((visibility("default")))

typedef void* fmi3Instance;
typedef void* fmi3InstanceEnvironment;
typedef void* fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char* fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte* fmi3Binary;
typedef bool fmi3Clock;

#define fmi3True true
#define fmi3False false

typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;

typedef enum {
  fmi3Independent,
  fmi3Constant,
  fmi3Fixed,
  fmi3Tunable,
  fmi3Changing
} fmi3DependencyKind;

typedef enum {
  fmi3IntervalNotYetKnown,
  fmi3IntervalUnchanged,
  fmi3IntervalChanged
} fmi3IntervalQualifier;

typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment, fmi3Status, fmi3String category,
                                       fmi3String message);
typedef void (*fmi3IntermediateUpdateCallback)(
    fmi3InstanceEnvironment, fmi3Float64 intermediate_update_time,
    fmi3Boolean intermediate_variable_set_requested, fmi3Boolean intermediate_variable_get_allowed,
    fmi3Boolean intermediate_step_finished, fmi3Boolean can_return_early,
    fmi3Boolean* early_return_requested, fmi3Float64* early_return_time);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

/* Inquire version numbers and set debug logging. */
typedef const char* fmi3GetVersionTYPE(void);
typedef fmi3Status fmi3SetDebugLoggingTYPE(fmi3Instance, fmi3Boolean logging_on,
                                           size_t n_categories, const fmi3String categories[]);

/* Creation and destruction of instances. */
typedef fmi3Instance fmi3InstantiateModelExchangeTYPE(fmi3String instance_name,
                                                      fmi3String instantiation_token,
                                                      fmi3String resource_path, fmi3Boolean visible,
                                                      fmi3Boolean logging_on,
                                                      fmi3InstanceEnvironment instance_environment,
                                                      fmi3LogMessageCallback log_message);
typedef fmi3Instance fmi3InstantiateCoSimulationTYPE(
    fmi3String instance_name, fmi3String instantiation_token, fmi3String resource_path,
    fmi3Boolean visible, fmi3Boolean logging_on, fmi3Boolean event_mode_used,
    fmi3Boolean early_return_allowed, const fmi3ValueReference required_intermediate_variables[],
    size_t n_required_intermediate_variables, fmi3InstanceEnvironment instance_environment,
    fmi3LogMessageCallback log_message, fmi3IntermediateUpdateCallback intermediate_update);
typedef void fmi3FreeInstanceTYPE(fmi3Instance);

/* Enter and exit initialization mode, enter event mode, terminate and reset. */
typedef fmi3Status fmi3EnterInitializationModeTYPE(fmi3Instance, fmi3Boolean tolerance_defined,
                                                   fmi3Float64 tolerance, fmi3Float64 start_time,
                                                   fmi3Boolean stop_time_defined,
                                                   fmi3Float64 stop_time);
typedef fmi3Status fmi3ExitInitializationModeTYPE(fmi3Instance);
typedef fmi3Status fmi3EnterEventModeTYPE(fmi3Instance);
typedef fmi3Status fmi3TerminateTYPE(fmi3Instance);
typedef fmi3Status fmi3ResetTYPE(fmi3Instance);

/* Getting and setting variable values. */
#define COSIMO_FMI3_GETSET_(Name, Type)                                                 \
  typedef fmi3Status fmi3Get##Name##TYPE(fmi3Instance, const fmi3ValueReference vrs[],  \
                                         size_t n_vrs, Type values[], size_t n_values); \
  typedef fmi3Status fmi3Set##Name##TYPE(fmi3Instance, const fmi3ValueReference vrs[],  \
                                         size_t n_vrs, const Type values[], size_t n_values);
COSIMO_FMI3_GETSET_(Float32, fmi3Float32)
COSIMO_FMI3_GETSET_(Float64, fmi3Float64)
COSIMO_FMI3_GETSET_(Int8, fmi3Int8)
COSIMO_FMI3_GETSET_(UInt8, fmi3UInt8)
COSIMO_FMI3_GETSET_(Int16, fmi3Int16)
COSIMO_FMI3_GETSET_(UInt16, fmi3UInt16)
COSIMO_FMI3_GETSET_(Int32, fmi3Int32)
COSIMO_FMI3_GETSET_(UInt32, fmi3UInt32)
COSIMO_FMI3_GETSET_(Int64, fmi3Int64)
COSIMO_FMI3_GETSET_(UInt64, fmi3UInt64)
COSIMO_FMI3_GETSET_(Boolean, fmi3Boolean)
COSIMO_FMI3_GETSET_(String, fmi3String)
#undef COSIMO_FMI3_GETSET_
typedef fmi3Status fmi3GetBinaryTYPE(fmi3Instance, const fmi3ValueReference vrs[], size_t n_vrs,
                                     size_t value_sizes[], fmi3Binary values[], size_t n_values);
typedef fmi3Status fmi3SetBinaryTYPE(fmi3Instance, const fmi3ValueReference vrs[], size_t n_vrs,
                                     const size_t value_sizes[], const fmi3Binary values[],
                                     size_t n_values);

/* Getting variable dependency information. */
typedef fmi3Status fmi3GetNumberOfVariableDependenciesTYPE(fmi3Instance, fmi3ValueReference,
                                                           size_t* n_dependencies);

/* Getting and setting the internal FMU state. */
typedef fmi3Status fmi3GetFMUStateTYPE(fmi3Instance, fmi3FMUState*);
typedef fmi3Status fmi3SetFMUStateTYPE(fmi3Instance, fmi3FMUState);
typedef fmi3Status fmi3FreeFMUStateTYPE(fmi3Instance, fmi3FMUState*);
typedef fmi3Status fmi3SerializedFMUStateSizeTYPE(fmi3Instance, fmi3FMUState, size_t* size);
typedef fmi3Status fmi3SerializeFMUStateTYPE(fmi3Instance, fmi3FMUState, fmi3Byte serialized[],
                                             size_t size);
typedef fmi3Status fmi3DeserializeFMUStateTYPE(fmi3Instance, const fmi3Byte serialized[],
                                               size_t size, fmi3FMUState* state);

/* Getting partial derivatives. */
typedef fmi3Status fmi3GetDirectionalDerivativeTYPE(
    fmi3Instance, const fmi3ValueReference unknowns[], size_t n_unknowns,
    const fmi3ValueReference knowns[], size_t n_knowns, const fmi3Float64 seed[], size_t n_seed,
    fmi3Float64 sensitivity[], size_t n_sensitivity);

/* Entering configuration mode and evaluating discrete states. */
typedef fmi3Status fmi3EnterConfigurationModeTYPE(fmi3Instance);
typedef fmi3Status fmi3ExitConfigurationModeTYPE(fmi3Instance);
typedef fmi3Status fmi3EvaluateDiscreteStatesTYPE(fmi3Instance);
typedef fmi3Status fmi3UpdateDiscreteStatesTYPE(fmi3Instance,
                                                fmi3Boolean* discrete_states_need_update,
                                                fmi3Boolean* terminate_simulation,
                                                fmi3Boolean* nominals_of_continuous_states_changed,
                                                fmi3Boolean* values_of_continuous_states_changed,
                                                fmi3Boolean* next_event_time_defined,
                                                fmi3Float64* next_event_time);

/* Model Exchange. */
typedef fmi3Status fmi3EnterContinuousTimeModeTYPE(fmi3Instance);
typedef fmi3Status fmi3CompletedIntegratorStepTYPE(fmi3Instance, fmi3Boolean no_set_fmu_state_prior,
                                                   fmi3Boolean* enter_event_mode,
                                                   fmi3Boolean* terminate_simulation);
typedef fmi3Status fmi3SetTimeTYPE(fmi3Instance, fmi3Float64 time);
typedef fmi3Status fmi3SetContinuousStatesTYPE(fmi3Instance, const fmi3Float64 states[],
                                               size_t n_states);
typedef fmi3Status fmi3GetContinuousStateDerivativesTYPE(fmi3Instance, fmi3Float64 derivatives[],
                                                         size_t n_states);
typedef fmi3Status fmi3GetEventIndicatorsTYPE(fmi3Instance, fmi3Float64 event_indicators[],
                                              size_t n_event_indicators);
typedef fmi3Status fmi3GetContinuousStatesTYPE(fmi3Instance, fmi3Float64 states[], size_t n_states);
typedef fmi3Status fmi3GetNominalsOfContinuousStatesTYPE(fmi3Instance, fmi3Float64 nominals[],
                                                         size_t n_states);
typedef fmi3Status fmi3GetNumberOfEventIndicatorsTYPE(fmi3Instance, size_t* n_event_indicators);
typedef fmi3Status fmi3GetNumberOfContinuousStatesTYPE(fmi3Instance, size_t* n_states);

/* Co-Simulation. */
typedef fmi3Status fmi3EnterStepModeTYPE(fmi3Instance);
typedef fmi3Status fmi3GetOutputDerivativesTYPE(fmi3Instance, const fmi3ValueReference vrs[],
                                                size_t n_vrs, const fmi3Int32 orders[],
                                                fmi3Float64 values[], size_t n_values);
typedef fmi3Status fmi3DoStepTYPE(fmi3Instance, fmi3Float64 current_communication_point,
                                  fmi3Float64 communication_step_size,
                                  fmi3Boolean no_set_fmu_state_prior_to_current_point,
                                  fmi3Boolean* event_handling_needed,
                                  fmi3Boolean* terminate_simulation, fmi3Boolean* early_return,
                                  fmi3Float64* last_successful_time);

/* Clocks (FMI 3.0.1 section 2.2.9). */
typedef fmi3Status fmi3GetClockTYPE(fmi3Instance, const fmi3ValueReference vrs[], size_t n_vrs,
                                    fmi3Clock values[]);
typedef fmi3Status fmi3SetClockTYPE(fmi3Instance, const fmi3ValueReference vrs[], size_t n_vrs,
                                    const fmi3Clock values[]);
typedef fmi3Status fmi3GetIntervalDecimalTYPE(fmi3Instance, const fmi3ValueReference vrs[],
                                              size_t n_vrs, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetIntervalFractionTYPE(fmi3Instance, const fmi3ValueReference vrs[],
                                               size_t n_vrs, fmi3UInt64 counters[],
                                               fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetShiftDecimalTYPE(fmi3Instance, const fmi3ValueReference vrs[],
                                           size_t n_vrs, fmi3Float64 shifts[]);
typedef fmi3Status fmi3GetShiftFractionTYPE(fmi3Instance, const fmi3ValueReference vrs[],
                                            size_t n_vrs, fmi3UInt64 counters[],
                                            fmi3UInt64 resolutions[]);

/* Scheduled Execution (FMI 3.0.1 section 5). */
typedef fmi3Instance fmi3InstantiateScheduledExecutionTYPE(
    fmi3String instance_name, fmi3String instantiation_token, fmi3String resource_path,
    fmi3Boolean visible, fmi3Boolean logging_on, fmi3InstanceEnvironment instance_environment,
    fmi3LogMessageCallback log_message, fmi3ClockUpdateCallback clock_update,
    fmi3LockPreemptionCallback lock_preemption, fmi3UnlockPreemptionCallback unlock_preemption);
typedef fmi3Status fmi3ActivateModelPartitionTYPE(fmi3Instance, fmi3ValueReference clock_reference,
                                                  fmi3Float64 activation_time);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* COSIMO_WORKER_FMI3_API_H_ */
