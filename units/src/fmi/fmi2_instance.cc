// FmuInstance for FMI 2.0 binaries (binaries/linux64/<modelIdentifier>.so).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/shared_library.h"
#include "cosimo/fmi/fmi2_api.h"
#include "cosimo/fmi/fmu_archive.h"
#include "units/src/fmi/fmi_instance_base.h"
#include "units/src/fmi/fmu_instance.h"

namespace cosimo::units::fmu {
namespace {

struct Fmi2Functions {
  fmi2InstantiateTYPE* Instantiate = nullptr;
  fmi2FreeInstanceTYPE* FreeInstance = nullptr;
  fmi2SetupExperimentTYPE* SetupExperiment = nullptr;
  fmi2EnterInitializationModeTYPE* EnterInitializationMode = nullptr;
  fmi2ExitInitializationModeTYPE* ExitInitializationMode = nullptr;
  fmi2TerminateTYPE* Terminate = nullptr;
  fmi2GetRealTYPE* GetReal = nullptr;
  fmi2GetIntegerTYPE* GetInteger = nullptr;
  fmi2GetBooleanTYPE* GetBoolean = nullptr;
  fmi2SetRealTYPE* SetReal = nullptr;
  fmi2SetIntegerTYPE* SetInteger = nullptr;
  fmi2SetBooleanTYPE* SetBoolean = nullptr;
  fmi2SetStringTYPE* SetString = nullptr;
  fmi2GetStringTYPE* GetString = nullptr;
  fmi2GetFMUstateTYPE* GetFMUstate = nullptr;
  fmi2SetFMUstateTYPE* SetFMUstate = nullptr;
  fmi2FreeFMUstateTYPE* FreeFMUstate = nullptr;
  fmi2SerializedFMUstateSizeTYPE* SerializedFMUstateSize = nullptr;
  fmi2SerializeFMUstateTYPE* SerializeFMUstate = nullptr;
  fmi2DeSerializeFMUstateTYPE* DeSerializeFMUstate = nullptr;
  fmi2GetDirectionalDerivativeTYPE* GetDirectionalDerivative = nullptr;
  // Co-Simulation.
  fmi2DoStepTYPE* DoStep = nullptr;
  fmi2SetRealInputDerivativesTYPE* SetRealInputDerivatives = nullptr;
  fmi2GetRealOutputDerivativesTYPE* GetRealOutputDerivatives = nullptr;
  fmi2GetBooleanStatusTYPE* GetBooleanStatus = nullptr;
  fmi2GetRealStatusTYPE* GetRealStatus = nullptr;
  // Model Exchange.
  fmi2EnterEventModeTYPE* EnterEventMode = nullptr;
  fmi2NewDiscreteStatesTYPE* NewDiscreteStates = nullptr;
  fmi2EnterContinuousTimeModeTYPE* EnterContinuousTimeMode = nullptr;
  fmi2CompletedIntegratorStepTYPE* CompletedIntegratorStep = nullptr;
  fmi2SetTimeTYPE* SetTime = nullptr;
  fmi2SetContinuousStatesTYPE* SetContinuousStates = nullptr;
  fmi2GetContinuousStatesTYPE* GetContinuousStates = nullptr;
  fmi2GetDerivativesTYPE* GetDerivatives = nullptr;
  fmi2GetEventIndicatorsTYPE* GetEventIndicators = nullptr;
};

void Logger(fmi2ComponentEnvironment env, fmi2String /*instance_name*/, fmi2Status status,
            fmi2String category, fmi2String message, ...) {
  if (env == nullptr) return;
  va_list args;
  va_start(args, message);
  const std::string text = FormatFmuMessage(message, args);
  va_end(args);
  static_cast<FmuInstance*>(env)->Log(static_cast<int>(status), category, text.c_str());
}

struct Fmi2Api {
  using Functions = Fmi2Functions;
  using Handle = fmi2Component;
  using Real = fmi2Real;
  using Integer = fmi2Integer;
  using Boolean = fmi2Boolean;
  using String = fmi2String;
  using ValueReference = fmi2ValueReference;
  using Byte = fmi2Byte;
  static constexpr fmi::FmiVersion kVersion = fmi::FmiVersion::kFmi2;
  static constexpr const char* kGetReal = "fmi2GetReal";
  static constexpr const char* kGetInteger = "fmi2GetInteger";
  static constexpr const char* kGetBoolean = "fmi2GetBoolean";
  static constexpr const char* kSetReal = "fmi2SetReal";
  static constexpr const char* kSetInteger = "fmi2SetInteger";
  static constexpr const char* kSetBoolean = "fmi2SetBoolean";
  static constexpr const char* kGetString = "fmi2GetString";
  static constexpr const char* kSetString = "fmi2SetString";
};

class Fmi2Instance : public FmiInstanceBase<Fmi2Api, FmiScalarTypesBase<Fmi2Api>> {
 public:
  Fmi2Instance(const fmi::ModelDescription& md, bool model_exchange,
               std::shared_ptr<fmi::UnpackedFmu> unpacked, std::unique_ptr<SharedLibrary> library,
               Fmi2Functions f, const std::string& unit_name)
      : FmiInstanceBase(unit_name, f, std::move(unpacked), std::move(library)),
        guid_(md.guid),
        model_exchange_(model_exchange) {}
  ~Fmi2Instance() override { Free(); }  // while callbacks_ lives

  absl::Status Instantiate() override {
    callbacks_ = fmi2CallbackFunctions{Logger, FmiAllocate, std::free, nullptr, this};
    const std::string resources = "file://" + unpacked_->dir() + "/resources";
    BeginCall();
    handle_ =
        f_.Instantiate(unit_name_.c_str(), model_exchange_ ? fmi2ModelExchange : fmi2CoSimulation,
                       guid_.c_str(), resources.c_str(), &callbacks_, fmi2False, fmi2False);
    if (handle_ == nullptr) {
      return absl::InternalError(absl::StrCat(
          "unit '", unit_name_, "': fmi2Instantiate returned NULL (guid ", guid_, ")", CallLog()));
    }
    return absl::OkStatus();
  }

  absl::Status EnterInitializationMode(std::optional<double> tolerance, double start,
                                       std::optional<double> stop) override {
    BeginCall();
    absl::Status s =
        Check(f_.SetupExperiment(handle_, tolerance.has_value(), tolerance.value_or(0.0), start,
                                 stop.has_value(), stop.value_or(0.0)),
              "fmi2SetupExperiment");
    if (!s.ok()) return s;
    BeginCall();
    initialized_ = true;
    return Check(f_.EnterInitializationMode(handle_), "fmi2EnterInitializationMode");
  }

  absl::Status DoStep(double t, double h, bool no_set_state_prior,
                      DoStepOutcome* outcome) override {
    *outcome = DoStepOutcome{};
    BeginCall();
    const fmi2Status status = f_.DoStep(handle_, t, h, no_set_state_prior);
    if (status == fmi2Discard) {
      outcome->discarded = true;
      outcome->last_successful_time = t;
      fmi2Boolean terminated = fmi2False;
      if (f_.GetBooleanStatus != nullptr &&
          f_.GetBooleanStatus(handle_, fmi2Terminated, &terminated) == fmi2OK) {
        outcome->terminated = terminated != fmi2False;
      }
      fmi2Real last = t;
      if (f_.GetRealStatus != nullptr &&
          f_.GetRealStatus(handle_, fmi2LastSuccessfulTime, &last) == fmi2OK) {
        outcome->last_successful_time = last;
      }
      logger_->warn("fmi2DoStep returned fmi2Discard at t={}{}", t,
                    outcome->terminated ? " (the FMU terminated its simulation)" : "");
      return absl::OkStatus();
    }
    if (status == fmi2Pending) {
      return absl::UnimplementedError(
          absl::StrCat("unit '", unit_name_,
                       "': fmi2DoStep returned fmi2Pending (asynchronous "
                       "Co-Simulation is not supported)"));
    }
    outcome->last_successful_time = t + h;
    return Check(status, "fmi2DoStep");
  }

  absl::Status SetInputDerivatives(const std::vector<uint32_t>& vrs, int order,
                                   const double* values) override {
    orders_.assign(vrs.size(), order);  // no allocation once sized
    BeginCall();
    return Check(
        f_.SetRealInputDerivatives(handle_, vrs.data(), vrs.size(), orders_.data(), values),
        "fmi2SetRealInputDerivatives");
  }
  absl::Status GetOutputDerivatives(const std::vector<uint32_t>& vrs, int order, double* values,
                                    size_t /*n_values: vrs.size(), FMI 2 has no arrays*/) override {
    orders_.assign(vrs.size(), order);
    BeginCall();
    return Check(
        f_.GetRealOutputDerivatives(handle_, vrs.data(), vrs.size(), orders_.data(), values),
        "fmi2GetRealOutputDerivatives");
  }

  absl::Status EnterStepMode() override {
    return absl::UnimplementedError("FMI 2 Co-Simulation has no event mode");
  }
  absl::Status UpdateDiscreteStates(EventUpdate* update) override {
    fmi2EventInfo info{};
    BeginCall();
    absl::Status s = Check(f_.NewDiscreteStates(handle_, &info), "fmi2NewDiscreteStates");
    update->discrete_states_need_update = info.newDiscreteStatesNeeded != fmi2False;
    update->terminate_simulation = info.terminateSimulation != fmi2False;
    update->nominals_changed = info.nominalsOfContinuousStatesChanged != fmi2False;
    update->values_changed = info.valuesOfContinuousStatesChanged != fmi2False;
    update->next_event_time_defined = info.nextEventTimeDefined != fmi2False;
    update->next_event_time = info.nextEventTime;
    return s;
  }
  // FMI 2 has no arrays: n_seed and n_sensitivity are the numbers of knowns and unknowns.
  absl::Status DirectionalDerivative(const std::vector<uint32_t>& unknowns,
                                     const std::vector<uint32_t>& knowns, const double* seed,
                                     size_t /*n_seed*/, double* sensitivity,
                                     size_t /*n_sensitivity*/) override {
    BeginCall();
    return Check(f_.GetDirectionalDerivative(handle_, unknowns.data(), unknowns.size(),
                                             knowns.data(), knowns.size(), seed, sensitivity),
                 "fmi2GetDirectionalDerivative");
  }

 private:
  std::string guid_;
  bool model_exchange_;
  fmi2CallbackFunctions callbacks_{};
  std::vector<fmi2Integer> orders_;  // derivative orders of the last input/output call
};

}  // namespace

absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi2(const fmi::ModelDescription& md,
                                                      bool model_exchange,
                                                      std::shared_ptr<fmi::UnpackedFmu> unpacked,
                                                      const std::string& unit_name) {
  const fmi::KindInfo& kind = model_exchange ? md.model_exchange : md.co_simulation;
  absl::StatusOr<FmiLibraryLoader> loader =
      FmiLibraryLoader::Open(*unpacked, "linux64", kind, unit_name);
  if (!loader.ok()) return loader.status();
  Fmi2Functions f;
  auto resolve = [&](auto*& pointer, const char* name, bool required) {
    loader->Resolve(pointer, name, required);
  };
  loader->ResolveShared<Fmi2Api>(&f, model_exchange, kind);
  resolve(f.Instantiate, "fmi2Instantiate", true);
  resolve(f.SetupExperiment, "fmi2SetupExperiment", true);
  resolve(f.EnterInitializationMode, "fmi2EnterInitializationMode", true);
  resolve(f.GetReal, "fmi2GetReal", true);
  resolve(f.GetInteger, "fmi2GetInteger", true);
  resolve(f.GetBoolean, "fmi2GetBoolean", true);
  resolve(f.SetReal, "fmi2SetReal", true);
  resolve(f.SetInteger, "fmi2SetInteger", true);
  resolve(f.SetBoolean, "fmi2SetBoolean", true);
  resolve(f.SetString, "fmi2SetString", true);
  resolve(f.GetString, "fmi2GetString", true);
  resolve(f.GetDirectionalDerivative, "fmi2GetDirectionalDerivative",
          kind.provides_directional_derivative);
  if (model_exchange) {
    resolve(f.EnterEventMode, "fmi2EnterEventMode", true);
    resolve(f.NewDiscreteStates, "fmi2NewDiscreteStates", true);
  } else {
    resolve(f.DoStep, "fmi2DoStep", true);
    resolve(f.SetRealInputDerivatives, "fmi2SetRealInputDerivatives", kind.can_interpolate_inputs);
    resolve(f.GetRealOutputDerivatives, "fmi2GetRealOutputDerivatives",
            kind.max_output_derivative_order > 0);
    resolve(f.GetBooleanStatus, "fmi2GetBooleanStatus", false);
    resolve(f.GetRealStatus, "fmi2GetRealStatus", false);
  }
  if (absl::Status s = loader->Missing(); !s.ok()) return s;
  return std::shared_ptr<FmuInstance>(std::make_shared<Fmi2Instance>(
      md, model_exchange, std::move(unpacked), loader->Release(), f, unit_name));
}

}  // namespace cosimo::units::fmu
