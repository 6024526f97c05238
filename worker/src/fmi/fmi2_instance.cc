// FmuInstance for FMI 2.0 binaries (binaries/linux64/<modelIdentifier>.so).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/worker/fmi2_api.h"
#include "worker/src/fmi/fmu_archive.h"
#include "worker/src/fmi/fmu_instance.h"
#include "worker/src/fmi/shared_library.h"

namespace cosimo::worker::fmi {
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
  char buffer[2048];
  va_list args;
  va_start(args, message);
  if (message != nullptr) {
    std::vsnprintf(buffer, sizeof(buffer), message, args);
  } else {
    buffer[0] = '\0';
  }
  va_end(args);
  static_cast<FmuInstance*>(env)->Log(static_cast<int>(status), category, buffer);
}

void* Allocate(size_t n, size_t size) { return std::calloc(n, size); }

class Fmi2Instance : public FmuInstance {
 public:
  Fmi2Instance(const ModelDescription& md, bool model_exchange,
               std::shared_ptr<UnpackedFmu> unpacked, std::unique_ptr<SharedLibrary> library,
               Fmi2Functions f, const std::string& unit_name)
      : FmuInstance(unit_name, FmiVersion::kFmi2),
        guid_(md.guid),
        model_exchange_(model_exchange),
        unpacked_(std::move(unpacked)),
        library_(std::move(library)),
        f_(f) {}

  ~Fmi2Instance() override {
    if (component_ == nullptr || fatal()) return;
    if (initialized_ && !terminated_ && !failed()) {
      BeginCall();
      (void)f_.Terminate(component_);
    }
    f_.FreeInstance(component_);
  }

  absl::Status Instantiate() override {
    callbacks_ = fmi2CallbackFunctions{Logger, Allocate, std::free, nullptr, this};
    const std::string resources = "file://" + unpacked_->dir() + "/resources";
    BeginCall();
    component_ =
        f_.Instantiate(unit_name_.c_str(), model_exchange_ ? fmi2ModelExchange : fmi2CoSimulation,
                       guid_.c_str(), resources.c_str(), &callbacks_, fmi2False, fmi2False);
    if (component_ == nullptr) {
      return absl::InternalError(absl::StrCat(
          "unit '", unit_name_, "': fmi2Instantiate returned NULL (guid ", guid_, ")"));
    }
    return absl::OkStatus();
  }

  absl::Status EnterInitializationMode(std::optional<double> tolerance, double start,
                                       std::optional<double> stop) override {
    BeginCall();
    absl::Status s =
        Check(f_.SetupExperiment(component_, tolerance.has_value(), tolerance.value_or(0.0), start,
                                 stop.has_value(), stop.value_or(0.0)),
              "fmi2SetupExperiment");
    if (!s.ok()) return s;
    BeginCall();
    initialized_ = true;
    return Check(f_.EnterInitializationMode(component_), "fmi2EnterInitializationMode");
  }
  absl::Status ExitInitializationMode() override {
    BeginCall();
    return Check(f_.ExitInitializationMode(component_), "fmi2ExitInitializationMode");
  }
  absl::Status Terminate() override {
    if (terminated_ || !initialized_ || failed()) return absl::OkStatus();
    terminated_ = true;
    BeginCall();
    return Check(f_.Terminate(component_), "fmi2Terminate");
  }

  using FmuInstance::Get;
  // FMI 2 has no 64-bit integers: `bits` is left alone.
  absl::Status Get(const VariableGroup& group, double* values, uint64_t* /*bits*/) override {
    for (const VariableGroup::Batch& b : group.batches()) {
      BeginCall();
      const size_t n = b.vrs.size();
      if (b.type == VarType::kFloat64) {
        real_.resize(n);
        absl::Status s =
            Check(f_.GetReal(component_, b.vrs.data(), n, real_.data()), "fmi2GetReal");
        if (!s.ok()) return s;
        for (size_t i = 0; i < n; ++i) values[b.positions[i]] = real_[i];
      } else if (b.type == VarType::kInt32) {
        int_.resize(n);
        absl::Status s =
            Check(f_.GetInteger(component_, b.vrs.data(), n, int_.data()), "fmi2GetInteger");
        if (!s.ok()) return s;
        for (size_t i = 0; i < n; ++i) values[b.positions[i]] = int_[i];
      } else {
        int_.resize(n);
        absl::Status s =
            Check(f_.GetBoolean(component_, b.vrs.data(), n, int_.data()), "fmi2GetBoolean");
        if (!s.ok()) return s;
        for (size_t i = 0; i < n; ++i) values[b.positions[i]] = int_[i] != fmi2False ? 1.0 : 0.0;
      }
    }
    return absl::OkStatus();
  }

  absl::Status Set(const VariableGroup& group, const double* values) override {
    for (const VariableGroup::Batch& b : group.batches()) {
      BeginCall();
      const size_t n = b.vrs.size();
      absl::Status s;
      if (b.type == VarType::kFloat64) {
        real_.resize(n);
        for (size_t i = 0; i < n; ++i) real_[i] = values[b.positions[i]];
        s = Check(f_.SetReal(component_, b.vrs.data(), n, real_.data()), "fmi2SetReal");
      } else if (b.type == VarType::kInt32) {
        int_.resize(n);
        for (size_t i = 0; i < n; ++i) int_[i] = static_cast<fmi2Integer>(values[b.positions[i]]);
        s = Check(f_.SetInteger(component_, b.vrs.data(), n, int_.data()), "fmi2SetInteger");
      } else {
        int_.resize(n);
        for (size_t i = 0; i < n; ++i)
          int_[i] = values[b.positions[i]] != 0.0 ? fmi2True : fmi2False;
        s = Check(f_.SetBoolean(component_, b.vrs.data(), n, int_.data()), "fmi2SetBoolean");
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status SetString(uint32_t vr, const std::string& value) override {
    const fmi2ValueReference ref = vr;
    const fmi2String text = value.c_str();
    BeginCall();
    return Check(f_.SetString(component_, &ref, 1, &text), "fmi2SetString");
  }

  absl::Status GetStrings(const std::vector<uint32_t>& vrs,
                          std::vector<std::string>* values) override {
    return ReadStrings(
        vrs.size(), "fmi2GetString",
        [&](fmi2String* texts) { return f_.GetString(component_, vrs.data(), vrs.size(), texts); },
        values);
  }

  absl::Status DoStep(double t, double h, bool no_set_state_prior,
                      DoStepOutcome* outcome) override {
    *outcome = DoStepOutcome{};
    BeginCall();
    const fmi2Status status = f_.DoStep(component_, t, h, no_set_state_prior);
    if (status == fmi2Discard) {
      outcome->discarded = true;
      outcome->last_successful_time = t;
      fmi2Boolean terminated = fmi2False;
      if (f_.GetBooleanStatus != nullptr &&
          f_.GetBooleanStatus(component_, fmi2Terminated, &terminated) == fmi2OK) {
        outcome->terminated = terminated != fmi2False;
      }
      fmi2Real last = t;
      if (f_.GetRealStatus != nullptr &&
          f_.GetRealStatus(component_, fmi2LastSuccessfulTime, &last) == fmi2OK) {
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
        f_.SetRealInputDerivatives(component_, vrs.data(), vrs.size(), orders_.data(), values),
        "fmi2SetRealInputDerivatives");
  }
  absl::Status GetOutputDerivatives(const std::vector<uint32_t>& vrs, int order,
                                    double* values) override {
    orders_.assign(vrs.size(), order);
    BeginCall();
    return Check(
        f_.GetRealOutputDerivatives(component_, vrs.data(), vrs.size(), orders_.data(), values),
        "fmi2GetRealOutputDerivatives");
  }

  absl::Status EnterStepMode() override {
    return absl::UnimplementedError("FMI 2 Co-Simulation has no event mode");
  }
  absl::Status EnterEventMode() override {
    BeginCall();
    return Check(f_.EnterEventMode(component_), "fmi2EnterEventMode");
  }
  absl::Status UpdateDiscreteStates(EventUpdate* update) override {
    fmi2EventInfo info{};
    BeginCall();
    absl::Status s = Check(f_.NewDiscreteStates(component_, &info), "fmi2NewDiscreteStates");
    update->discrete_states_need_update = info.newDiscreteStatesNeeded != fmi2False;
    update->terminate_simulation = info.terminateSimulation != fmi2False;
    update->nominals_changed = info.nominalsOfContinuousStatesChanged != fmi2False;
    update->values_changed = info.valuesOfContinuousStatesChanged != fmi2False;
    update->next_event_time_defined = info.nextEventTimeDefined != fmi2False;
    update->next_event_time = info.nextEventTime;
    return s;
  }
  absl::Status EnterContinuousTimeMode() override {
    BeginCall();
    return Check(f_.EnterContinuousTimeMode(component_), "fmi2EnterContinuousTimeMode");
  }
  absl::Status SetTime(double t) override {
    BeginCall();
    return Check(f_.SetTime(component_, t), "fmi2SetTime");
  }
  absl::Status SetContinuousStates(const double* x, size_t n) override {
    BeginCall();
    return Check(f_.SetContinuousStates(component_, x, n), "fmi2SetContinuousStates");
  }
  absl::Status GetContinuousStates(double* x, size_t n) override {
    BeginCall();
    return Check(f_.GetContinuousStates(component_, x, n), "fmi2GetContinuousStates");
  }
  absl::Status GetDerivatives(double* dx, size_t n) override {
    BeginCall();
    return Check(f_.GetDerivatives(component_, dx, n), "fmi2GetDerivatives");
  }
  absl::Status GetEventIndicators(double* z, size_t n) override {
    BeginCall();
    return Check(f_.GetEventIndicators(component_, z, n), "fmi2GetEventIndicators");
  }
  absl::Status CompletedIntegratorStep(bool no_set_state_prior, bool* enter_event_mode,
                                       bool* terminate_simulation) override {
    fmi2Boolean enter = fmi2False, terminate = fmi2False;
    BeginCall();
    absl::Status s =
        Check(f_.CompletedIntegratorStep(component_, no_set_state_prior, &enter, &terminate),
              "fmi2CompletedIntegratorStep");
    *enter_event_mode = enter != fmi2False;
    *terminate_simulation = terminate != fmi2False;
    return s;
  }

  absl::Status GetState(void** state) override {
    BeginCall();
    return Check(f_.GetFMUstate(component_, state), "fmi2GetFMUstate");
  }
  absl::Status SetState(void* state) override {
    BeginCall();
    return Check(f_.SetFMUstate(component_, state), "fmi2SetFMUstate");
  }
  void FreeState(void** state) override {
    if (*state == nullptr || fatal()) return;
    BeginCall();
    (void)Check(f_.FreeFMUstate(component_, state), "fmi2FreeFMUstate");
  }
  absl::Status SerializeState(void* state, std::string* bytes) override {
    size_t size = 0;
    BeginCall();
    if (absl::Status s = Check(f_.SerializedFMUstateSize(component_, state, &size),
                               "fmi2SerializedFMUstateSize");
        !s.ok()) {
      return s;
    }
    bytes->assign(size, '\0');
    BeginCall();
    return Check(f_.SerializeFMUstate(component_, state, bytes->data(), size),
                 "fmi2SerializeFMUstate");
  }
  absl::Status DeserializeState(const std::string& bytes, void** state) override {
    BeginCall();
    return Check(f_.DeSerializeFMUstate(component_, bytes.data(), bytes.size(), state),
                 "fmi2DeSerializeFMUstate");
  }
  absl::Status DirectionalDerivative(const std::vector<uint32_t>& unknowns,
                                     const std::vector<uint32_t>& knowns, const double* seed,
                                     double* sensitivity) override {
    BeginCall();
    return Check(f_.GetDirectionalDerivative(component_, unknowns.data(), unknowns.size(),
                                             knowns.data(), knowns.size(), seed, sensitivity),
                 "fmi2GetDirectionalDerivative");
  }

 private:
  std::string guid_;
  bool model_exchange_;
  std::shared_ptr<UnpackedFmu> unpacked_;
  std::unique_ptr<SharedLibrary> library_;
  Fmi2Functions f_;
  fmi2CallbackFunctions callbacks_{};
  fmi2Component component_ = nullptr;
  bool initialized_ = false;
  bool terminated_ = false;
  std::vector<fmi2Real> real_;
  std::vector<fmi2Integer> int_;
  std::vector<fmi2Integer> orders_;  // derivative orders of the last input/output call
};

}  // namespace

absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi2(const ModelDescription& md,
                                                      bool model_exchange,
                                                      std::shared_ptr<UnpackedFmu> unpacked,
                                                      const std::string& unit_name) {
  const KindInfo& kind = model_exchange ? md.model_exchange : md.co_simulation;
  absl::StatusOr<std::string> path =
      BinaryPath(*unpacked, "linux64", kind.model_identifier, unit_name);
  if (!path.ok()) return path.status();
  auto library = SharedLibrary::Open(*path);
  if (!library.ok()) {
    return absl::Status(library.status().code(),
                        absl::StrCat("unit '", unit_name, "': ", library.status().message()));
  }
  Fmi2Functions f;
  std::string missing;
  auto resolve = [&](auto& pointer, const char* name, bool required) {
    pointer =
        reinterpret_cast<std::remove_reference_t<decltype(pointer)>>((*library)->Symbol(name));
    if (pointer == nullptr && required)
      absl::StrAppend(&missing, missing.empty() ? "" : ", ", name);
  };
  resolve(f.Instantiate, "fmi2Instantiate", true);
  resolve(f.FreeInstance, "fmi2FreeInstance", true);
  resolve(f.SetupExperiment, "fmi2SetupExperiment", true);
  resolve(f.EnterInitializationMode, "fmi2EnterInitializationMode", true);
  resolve(f.ExitInitializationMode, "fmi2ExitInitializationMode", true);
  resolve(f.Terminate, "fmi2Terminate", true);
  resolve(f.GetReal, "fmi2GetReal", true);
  resolve(f.GetInteger, "fmi2GetInteger", true);
  resolve(f.GetBoolean, "fmi2GetBoolean", true);
  resolve(f.SetReal, "fmi2SetReal", true);
  resolve(f.SetInteger, "fmi2SetInteger", true);
  resolve(f.SetBoolean, "fmi2SetBoolean", true);
  resolve(f.SetString, "fmi2SetString", true);
  resolve(f.GetString, "fmi2GetString", true);
  const bool state = kind.can_get_and_set_fmu_state;
  resolve(f.GetFMUstate, "fmi2GetFMUstate", state);
  resolve(f.SetFMUstate, "fmi2SetFMUstate", state);
  resolve(f.FreeFMUstate, "fmi2FreeFMUstate", state);
  const bool serialize = state && kind.can_serialize_fmu_state;
  resolve(f.SerializedFMUstateSize, "fmi2SerializedFMUstateSize", serialize);
  resolve(f.SerializeFMUstate, "fmi2SerializeFMUstate", serialize);
  resolve(f.DeSerializeFMUstate, "fmi2DeSerializeFMUstate", serialize);
  resolve(f.GetDirectionalDerivative, "fmi2GetDirectionalDerivative",
          kind.provides_directional_derivative);
  if (model_exchange) {
    resolve(f.EnterEventMode, "fmi2EnterEventMode", true);
    resolve(f.NewDiscreteStates, "fmi2NewDiscreteStates", true);
    resolve(f.EnterContinuousTimeMode, "fmi2EnterContinuousTimeMode", true);
    resolve(f.CompletedIntegratorStep, "fmi2CompletedIntegratorStep", true);
    resolve(f.SetTime, "fmi2SetTime", true);
    resolve(f.SetContinuousStates, "fmi2SetContinuousStates", true);
    resolve(f.GetContinuousStates, "fmi2GetContinuousStates", true);
    resolve(f.GetDerivatives, "fmi2GetDerivatives", true);
    resolve(f.GetEventIndicators, "fmi2GetEventIndicators", true);
  } else {
    resolve(f.DoStep, "fmi2DoStep", true);
    resolve(f.SetRealInputDerivatives, "fmi2SetRealInputDerivatives", kind.can_interpolate_inputs);
    resolve(f.GetRealOutputDerivatives, "fmi2GetRealOutputDerivatives",
            kind.max_output_derivative_order > 0);
    resolve(f.GetBooleanStatus, "fmi2GetBooleanStatus", false);
    resolve(f.GetRealStatus, "fmi2GetRealStatus", false);
  }
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("unit '", unit_name, "': binaries/linux64/",
                                                      kind.model_identifier, ".so does not export ",
                                                      missing));
  }
  return std::shared_ptr<FmuInstance>(std::make_shared<Fmi2Instance>(
      md, model_exchange, std::move(unpacked), std::move(*library), f, unit_name));
}

}  // namespace cosimo::worker::fmi
