// FmuInstance for FMI 1.0 binaries (binaries/linux64/<modelIdentifier>.so): Co-Simulation or
// Model Exchange, whichever the FMU offers (an FMI 1.0 FMU offers one), every function resolved
// by its prefixed name <modelIdentifier>_fmi<Name>.
//
// FMI 1.0 has no initialisation mode, no event mode and no FMU state. The units' calls map so:
//   EnterInitializationMode: ME fmiSetTime(start) (fmiInitialize wants the time set before it);
//     CS remembers the start and stop times.
//   ExitInitializationMode: ME fmiInitialize(toleranceControlled, relativeTolerance, &eventInfo),
//     which also makes the initial event iteration; CS fmiInitializeSlave(tStart, true, tStop).
//   UpdateDiscreteStates (ME): the first one after fmiInitialize answers with its eventInfo, the
//     later ones call fmiEventUpdate(intermediateResults = false), which iterates until the
//     discrete states have converged.
//   EnterEventMode, EnterContinuousTimeMode: nothing to call.
//   CompletedIntegratorStep: fmiCompletedIntegratorStep(&callEventUpdate).
//   DoStep: fmiDoStep(t, h, newStep = true) (a step is never repeated: the unit cannot roll
//     back); after fmiDiscard, fmiGetRealStatus(fmiLastSuccessfulTime) where the FMU answers.
//   FMU states, directional derivatives, input and output derivatives, Step Mode: Unimplemented.
// FMI 1.0's logger has no environment pointer: a message goes to the instance whose call is
// running on the thread (FmuInstance::Calling).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/shared_library.h"
#include "cosimo/fmi/fmi1_api.h"
#include "cosimo/fmi/fmu_archive.h"
#include "spdlog/spdlog.h"
#include "units/src/fmi/fmi_instance_base.h"
#include "units/src/fmi/fmu_instance.h"

namespace cosimo::units::fmu {
namespace {

struct Fmi1Functions {
  // Both kinds: fmiFreeModelInstance / fmiFreeSlaveInstance and fmiTerminate /
  // fmiTerminateSlave have the same types.
  fmiFreeModelInstanceTYPE* FreeInstance = nullptr;
  fmiTerminateTYPE* Terminate = nullptr;
  fmiGetRealTYPE* GetReal = nullptr;
  fmiGetIntegerTYPE* GetInteger = nullptr;
  fmiGetBooleanTYPE* GetBoolean = nullptr;
  fmiGetStringTYPE* GetString = nullptr;
  fmiSetRealTYPE* SetReal = nullptr;
  fmiSetIntegerTYPE* SetInteger = nullptr;
  fmiSetBooleanTYPE* SetBoolean = nullptr;
  fmiSetStringTYPE* SetString = nullptr;
  // Model Exchange.
  fmiInstantiateModelTYPE* InstantiateModel = nullptr;
  fmiInitializeTYPE* Initialize = nullptr;
  fmiEventUpdateTYPE* EventUpdate = nullptr;
  fmiCompletedIntegratorStepTYPE* CompletedIntegratorStep = nullptr;
  fmiSetTimeTYPE* SetTime = nullptr;
  fmiSetContinuousStatesTYPE* SetContinuousStates = nullptr;
  fmiGetContinuousStatesTYPE* GetContinuousStates = nullptr;
  fmiGetDerivativesTYPE* GetDerivatives = nullptr;
  fmiGetEventIndicatorsTYPE* GetEventIndicators = nullptr;
  // Co-Simulation.
  fmiInstantiateSlaveTYPE* InstantiateSlave = nullptr;
  fmiInitializeSlaveTYPE* InitializeSlave = nullptr;
  fmiDoStepTYPE* DoStep = nullptr;
  fmiGetRealStatusTYPE* GetRealStatus = nullptr;
};

void Logger(fmiComponent /*c*/, fmiString /*instance_name*/, fmiStatus status, fmiString category,
            fmiString message, ...) {
  va_list args;
  va_start(args, message);
  const std::string text = FormatFmuMessage(message, args);
  va_end(args);
  FmuInstance* instance = FmuInstance::Calling();
  if (instance == nullptr) {
    spdlog::warn("an FMI 1.0 FMU logged outside of a call: [{}] {}",
                 category != nullptr ? category : "", text);
    return;
  }
  instance->Log(static_cast<int>(status), category, text.c_str());
}

struct Fmi1Api {
  using Functions = Fmi1Functions;
  using Handle = fmiComponent;
  using Real = fmiReal;
  using Integer = fmiInteger;
  using Boolean = fmiBoolean;
  using String = fmiString;
  using ValueReference = fmiValueReference;
  static constexpr fmi::FmiVersion kVersion = fmi::FmiVersion::kFmi1;
  static constexpr const char* kGetReal = "fmiGetReal";
  static constexpr const char* kGetInteger = "fmiGetInteger";
  static constexpr const char* kGetBoolean = "fmiGetBoolean";
  static constexpr const char* kSetReal = "fmiSetReal";
  static constexpr const char* kSetInteger = "fmiSetInteger";
  static constexpr const char* kSetBoolean = "fmiSetBoolean";
  static constexpr const char* kGetString = "fmiGetString";
  static constexpr const char* kSetString = "fmiSetString";
};

class Fmi1Instance : public FmiScalarTypesBase<Fmi1Api> {
 public:
  Fmi1Instance(const fmi::ModelDescription& md, std::shared_ptr<fmi::UnpackedFmu> unpacked,
               std::unique_ptr<SharedLibrary> library, Fmi1Functions f,
               const std::string& unit_name)
      : FmiScalarTypesBase(unit_name, f, std::move(unpacked), std::move(library)),
        guid_(md.guid),
        model_exchange_(md.model_exchange.offered) {}
  ~Fmi1Instance() override { Free(); }

  absl::Status Instantiate() override {
    const char* function = model_exchange_ ? "fmiInstantiateModel" : "fmiInstantiateSlave";
    BeginCall();
    if (model_exchange_) {
      handle_ =
          f_.InstantiateModel(unit_name_.c_str(), guid_.c_str(),
                              fmi1MeCallbackFunctions{Logger, FmiAllocate, std::free}, fmiFalse);
    } else {
      // FMI 1.0 Co-Simulation section 3.3: fmuLocation is the URL of the unzipped FMU.
      const std::string location = "file://" + unpacked_->dir();
      handle_ = f_.InstantiateSlave(
          unit_name_.c_str(), guid_.c_str(), location.c_str(), "application/x-fmu-sharedlibrary",
          /*timeout=*/0.0, /*visible=*/fmiFalse, /*interactive=*/fmiFalse,
          fmi1CsCallbackFunctions{Logger, FmiAllocate, std::free, nullptr}, fmiFalse);
    }
    if (handle_ == nullptr) {
      return absl::InternalError(absl::StrCat("unit '", unit_name_, "': ", function,
                                              " returned NULL (guid ", guid_, ")", CallLog()));
    }
    return absl::OkStatus();
  }

  absl::Status EnterInitializationMode(std::optional<double> tolerance, double start,
                                       std::optional<double> stop) override {
    tolerance_ = tolerance;
    start_ = start;
    stop_ = stop;
    if (!model_exchange_) return absl::OkStatus();
    return Call(FmiFunction::kSetTime, f_.SetTime, start);
  }

  absl::Status ExitInitializationMode() override {
    initialized_ = true;
    BeginCall();
    if (!model_exchange_) {
      return Check(f_.InitializeSlave(handle_, start_, stop_.has_value(), stop_.value_or(0.0)),
                   "fmiInitializeSlave");
    }
    initial_event_ = true;
    event_info_ = fmiEventInfo{};
    return Check(
        f_.Initialize(handle_, tolerance_.has_value(), tolerance_.value_or(0.0), &event_info_),
        "fmiInitialize");
  }

  absl::Status DoStep(double t, double h, bool /*no_set_state_prior*/,
                      DoStepOutcome* outcome) override {
    *outcome = DoStepOutcome{};
    BeginCall();
    const fmiStatus status = f_.DoStep(handle_, t, h, /*newStep=*/fmiTrue);
    if (status == fmiDiscard) {
      outcome->discarded = true;
      outcome->last_successful_time = t;
      fmiReal last = t;
      if (f_.GetRealStatus != nullptr &&
          f_.GetRealStatus(handle_, fmiLastSuccessfulTime, &last) == fmiOK) {
        outcome->last_successful_time = last;
      }
      logger_->warn("fmiDoStep returned fmiDiscard at t={}", t);
      return absl::OkStatus();
    }
    if (status == fmiPending) {
      return Unsupported("fmiDoStep returned fmiPending (asynchronous Co-Simulation)");
    }
    outcome->last_successful_time = t + h;
    return Check(status, "fmiDoStep");
  }
  absl::Status SetInputDerivatives(const std::vector<uint32_t>& /*vrs*/, int /*order*/,
                                   const double* /*values*/) override {
    return Unsupported("fmiSetRealInputDerivatives is not used with FMI 1.0");
  }
  absl::Status GetOutputDerivatives(const std::vector<uint32_t>& /*vrs*/, int /*order*/,
                                    double* /*values*/, size_t /*n_values*/) override {
    return Unsupported("fmiGetRealOutputDerivatives is not used with FMI 1.0");
  }
  absl::Status EnterStepMode() override {
    return Unsupported("FMI 1.0 Co-Simulation has no event mode");
  }

  absl::Status EnterEventMode() override { return absl::OkStatus(); }
  absl::Status EnterContinuousTimeMode() override { return absl::OkStatus(); }
  absl::Status UpdateDiscreteStates(EventUpdate* update) override {
    fmiEventInfo info = event_info_;
    absl::Status s;
    if (!initial_event_) {
      BeginCall();
      s = Check(f_.EventUpdate(handle_, /*intermediateResults=*/fmiFalse, &info), "fmiEventUpdate");
    }
    initial_event_ = false;
    if (info.stateValueReferencesChanged != fmiFalse) {
      logger_->warn(
          "the FMU says its states changed (stateValueReferencesChanged) at an event; "
          "Cosimo keeps the states it read from the model description");
    }
    *update = EventUpdate{};
    update->terminate_simulation = info.terminateSimulation != fmiFalse;
    update->values_changed = info.stateValuesChanged != fmiFalse;
    update->next_event_time_defined = info.upcomingTimeEvent != fmiFalse;
    update->next_event_time = info.nextEventTime;
    return s;
  }
  absl::Status CompletedIntegratorStep(bool /*no_set_state_prior*/, bool* enter_event_mode,
                                       bool* terminate_simulation) override {
    fmiBoolean call_event_update = fmiFalse;
    absl::Status s =
        Call(FmiFunction::kCompletedIntegratorStep, f_.CompletedIntegratorStep, &call_event_update);
    *enter_event_mode = call_event_update != fmiFalse;
    *terminate_simulation = false;
    return s;
  }

  absl::Status GetState(void** /*state*/) override { return NoFmuState(); }
  absl::Status SetState(void* /*state*/) override { return NoFmuState(); }
  void FreeState(void** /*state*/) override {}
  absl::Status SerializeState(void* /*state*/, std::string* /*bytes*/) override {
    return NoFmuState();
  }
  absl::Status DeserializeState(const std::string& /*bytes*/, void** /*state*/) override {
    return NoFmuState();
  }
  absl::Status DirectionalDerivative(const std::vector<uint32_t>& /*unknowns*/,
                                     const std::vector<uint32_t>& /*knowns*/,
                                     const double* /*seed*/, size_t /*n_seed*/,
                                     double* /*sensitivity*/, size_t /*n_sensitivity*/) override {
    return Unsupported("FMI 1.0 has no directional derivatives");
  }

 protected:
  const char* FunctionName(FmiFunction f) const override {
    if (!model_exchange_ && f == FmiFunction::kTerminate) return "fmiTerminateSlave";
    if (!model_exchange_ && f == FmiFunction::kFreeInstance) return "fmiFreeSlaveInstance";
    return FmiFunctionName(fmi::FmiVersion::kFmi1, f);
  }

 private:
  absl::Status Unsupported(const std::string& what) const {
    return absl::UnimplementedError(absl::StrCat("unit '", unit_name_, "': ", what));
  }
  absl::Status NoFmuState() const { return Unsupported("FMI 1.0 has no FMU state"); }

  std::string guid_;
  bool model_exchange_;
  std::optional<double> tolerance_, stop_;
  double start_ = 0.0;
  fmiEventInfo event_info_{};   // fmiInitialize's
  bool initial_event_ = false;  // UpdateDiscreteStates answers with event_info_
};

}  // namespace

absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi1(const fmi::ModelDescription& md,
                                                      std::shared_ptr<fmi::UnpackedFmu> unpacked,
                                                      const std::string& unit_name) {
  const bool model_exchange = md.model_exchange.offered;
  const fmi::KindInfo& kind = model_exchange ? md.model_exchange : md.co_simulation;
  absl::StatusOr<FmiLibraryLoader> loader =
      FmiLibraryLoader::Open(*unpacked, "linux64", kind, unit_name);
  if (!loader.ok()) return loader.status();
  Fmi1Functions f;
  // FMI 1.0: every function is exported as <modelIdentifier>_<name>.
  auto resolve = [&](auto*& pointer, const char* name, bool required = true) {
    loader->Resolve(pointer, absl::StrCat(kind.model_identifier, "_", name).c_str(), required);
  };
  resolve(f.GetReal, "fmiGetReal");
  resolve(f.GetInteger, "fmiGetInteger");
  resolve(f.GetBoolean, "fmiGetBoolean");
  resolve(f.GetString, "fmiGetString");
  resolve(f.SetReal, "fmiSetReal");
  resolve(f.SetInteger, "fmiSetInteger");
  resolve(f.SetBoolean, "fmiSetBoolean");
  resolve(f.SetString, "fmiSetString");
  if (model_exchange) {
    resolve(f.InstantiateModel, "fmiInstantiateModel");
    resolve(f.FreeInstance, "fmiFreeModelInstance");
    resolve(f.Terminate, "fmiTerminate");
    resolve(f.Initialize, "fmiInitialize");
    resolve(f.EventUpdate, "fmiEventUpdate");
    resolve(f.CompletedIntegratorStep, "fmiCompletedIntegratorStep");
    resolve(f.SetTime, "fmiSetTime");
    resolve(f.SetContinuousStates, "fmiSetContinuousStates");
    resolve(f.GetContinuousStates, "fmiGetContinuousStates");
    resolve(f.GetDerivatives, "fmiGetDerivatives");
    resolve(f.GetEventIndicators, "fmiGetEventIndicators");
  } else {
    resolve(f.InstantiateSlave, "fmiInstantiateSlave");
    resolve(f.FreeInstance, "fmiFreeSlaveInstance");
    resolve(f.Terminate, "fmiTerminateSlave");
    resolve(f.InitializeSlave, "fmiInitializeSlave");
    resolve(f.DoStep, "fmiDoStep");
    resolve(f.GetRealStatus, "fmiGetRealStatus", false);
  }
  if (absl::Status s = loader->Missing(); !s.ok()) return s;
  return std::shared_ptr<FmuInstance>(
      std::make_shared<Fmi1Instance>(md, std::move(unpacked), loader->Release(), f, unit_name));
}

}  // namespace cosimo::units::fmu
