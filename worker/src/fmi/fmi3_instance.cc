// FmuInstance for FMI 3.0 binaries (binaries/x86_64-linux/<modelIdentifier>.so).
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/worker/fmi3_api.h"
#include "worker/src/fmi/fmu_archive.h"
#include "worker/src/fmi/fmu_instance.h"
#include "worker/src/fmi/shared_library.h"

namespace cosimo::worker::fmi {
namespace {

// clang-format off
#define COSIMO_FMI3_TYPES_(X) \
  X(Float64, fmi3Float64, kFloat64) \
  X(Float32, fmi3Float32, kFloat32) \
  X(Int8, fmi3Int8, kInt8) \
  X(UInt8, fmi3UInt8, kUInt8) \
  X(Int16, fmi3Int16, kInt16) \
  X(UInt16, fmi3UInt16, kUInt16) \
  X(Int32, fmi3Int32, kInt32) \
  X(UInt32, fmi3UInt32, kUInt32) \
  X(Int64, fmi3Int64, kInt64) \
  X(UInt64, fmi3UInt64, kUInt64) \
  X(Boolean, fmi3Boolean, kBoolean)
// clang-format on

struct Fmi3Functions {
  fmi3InstantiateModelExchangeTYPE* InstantiateModelExchange = nullptr;
  fmi3InstantiateCoSimulationTYPE* InstantiateCoSimulation = nullptr;
  fmi3FreeInstanceTYPE* FreeInstance = nullptr;
  fmi3EnterInitializationModeTYPE* EnterInitializationMode = nullptr;
  fmi3ExitInitializationModeTYPE* ExitInitializationMode = nullptr;
  fmi3TerminateTYPE* Terminate = nullptr;
#define COSIMO_DECLARE_(Name, Type, Kind)   \
  fmi3Get##Name##TYPE* Get##Name = nullptr; \
  fmi3Set##Name##TYPE* Set##Name = nullptr;
  COSIMO_FMI3_TYPES_(COSIMO_DECLARE_)
#undef COSIMO_DECLARE_
  fmi3SetStringTYPE* SetString = nullptr;
  fmi3GetStringTYPE* GetString = nullptr;
  fmi3GetFMUStateTYPE* GetFMUState = nullptr;
  fmi3SetFMUStateTYPE* SetFMUState = nullptr;
  fmi3FreeFMUStateTYPE* FreeFMUState = nullptr;
  fmi3SerializedFMUStateSizeTYPE* SerializedFMUStateSize = nullptr;
  fmi3SerializeFMUStateTYPE* SerializeFMUState = nullptr;
  fmi3DeserializeFMUStateTYPE* DeserializeFMUState = nullptr;
  fmi3GetDirectionalDerivativeTYPE* GetDirectionalDerivative = nullptr;
  fmi3EnterEventModeTYPE* EnterEventMode = nullptr;
  fmi3UpdateDiscreteStatesTYPE* UpdateDiscreteStates = nullptr;
  // Co-Simulation.
  fmi3DoStepTYPE* DoStep = nullptr;
  fmi3EnterStepModeTYPE* EnterStepMode = nullptr;
  fmi3GetOutputDerivativesTYPE* GetOutputDerivatives = nullptr;
  // Model Exchange.
  fmi3EnterContinuousTimeModeTYPE* EnterContinuousTimeMode = nullptr;
  fmi3CompletedIntegratorStepTYPE* CompletedIntegratorStep = nullptr;
  fmi3SetTimeTYPE* SetTime = nullptr;
  fmi3SetContinuousStatesTYPE* SetContinuousStates = nullptr;
  fmi3GetContinuousStatesTYPE* GetContinuousStates = nullptr;
  fmi3GetContinuousStateDerivativesTYPE* GetContinuousStateDerivatives = nullptr;
  fmi3GetEventIndicatorsTYPE* GetEventIndicators = nullptr;
};

void LogMessage(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                fmi3String message) {
  if (env != nullptr)
    static_cast<FmuInstance*>(env)->Log(static_cast<int>(status), category, message);
}

class Fmi3Instance : public FmuInstance {
 public:
  Fmi3Instance(const ModelDescription& md, bool model_exchange,
               std::shared_ptr<UnpackedFmu> unpacked, std::unique_ptr<SharedLibrary> library,
               Fmi3Functions f, const std::string& unit_name)
      : FmuInstance(unit_name, FmiVersion::kFmi3),
        token_(md.guid),
        model_exchange_(model_exchange),
        event_mode_(!model_exchange && md.co_simulation.has_event_mode),
        unpacked_(std::move(unpacked)),
        library_(std::move(library)),
        f_(f) {}

  ~Fmi3Instance() override {
    if (instance_ == nullptr || fatal()) return;
    if (initialized_ && !terminated_ && !failed()) {
      BeginCall();
      (void)f_.Terminate(instance_);
    }
    f_.FreeInstance(instance_);
  }

  absl::Status Instantiate() override {
    const std::string resources = unpacked_->dir() + "/resources/";
    BeginCall();
    if (model_exchange_) {
      instance_ = f_.InstantiateModelExchange(unit_name_.c_str(), token_.c_str(), resources.c_str(),
                                              false, false, this, LogMessage);
    } else {
      instance_ = f_.InstantiateCoSimulation(
          unit_name_.c_str(), token_.c_str(), resources.c_str(), false, false,
          /*eventModeUsed=*/event_mode_,
          /*earlyReturnAllowed=*/event_mode_, nullptr, 0, this, LogMessage, nullptr);
    }
    if (instance_ == nullptr) {
      return absl::InternalError(absl::StrCat(
          "unit '", unit_name_,
          "': ", model_exchange_ ? "fmi3InstantiateModelExchange" : "fmi3InstantiateCoSimulation",
          " returned NULL (instantiationToken ", token_, ")"));
    }
    return absl::OkStatus();
  }

  absl::Status EnterInitializationMode(std::optional<double> tolerance, double start,
                                       std::optional<double> stop) override {
    BeginCall();
    initialized_ = true;
    return Check(
        f_.EnterInitializationMode(instance_, tolerance.has_value(), tolerance.value_or(0.0), start,
                                   stop.has_value(), stop.value_or(0.0)),
        "fmi3EnterInitializationMode");
  }
  absl::Status ExitInitializationMode() override {
    BeginCall();
    return Check(f_.ExitInitializationMode(instance_), "fmi3ExitInitializationMode");
  }
  absl::Status Terminate() override {
    if (terminated_ || !initialized_ || failed()) return absl::OkStatus();
    terminated_ = true;
    BeginCall();
    return Check(f_.Terminate(instance_), "fmi3Terminate");
  }

  using FmuInstance::Get;
  absl::Status Get(const VariableGroup& group, double* values, uint64_t* bits) override {
    for (const VariableGroup::Batch& b : group.batches()) {
      const size_t n = b.vrs.size();
      BeginCall();
      absl::Status s;
      switch (b.type) {
#define COSIMO_GET_(Name, Type, Kind)                                                      \
  case VarType::Kind: {                                                                    \
    std::unique_ptr<Type[]> buffer(new Type[n]());                                         \
    s = Check(f_.Get##Name(instance_, b.vrs.data(), n, buffer.get(), n), "fmi3Get" #Name); \
    for (size_t i = 0; i < n && s.ok(); ++i)                                               \
      values[b.positions[i]] = static_cast<double>(buffer[i]);                             \
    if constexpr (sizeof(Type) == 8 && std::is_integral_v<Type>) {                         \
      for (size_t i = 0; i < n && s.ok() && bits != nullptr; ++i)                          \
        bits[b.positions[i]] = static_cast<uint64_t>(buffer[i]);                           \
    }                                                                                      \
    break;                                                                                 \
  }
        COSIMO_FMI3_TYPES_(COSIMO_GET_)
#undef COSIMO_GET_
        default:
          s = absl::InternalError(absl::StrCat("unit '", unit_name_, "': cannot read ",
                                               VarTypeName(b.type), " variables as numbers"));
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Set(const VariableGroup& group, const double* values) override {
    for (const VariableGroup::Batch& b : group.batches()) {
      const size_t n = b.vrs.size();
      BeginCall();
      absl::Status s;
      switch (b.type) {
#define COSIMO_SET_(Name, Type, Kind)                                                      \
  case VarType::Kind: {                                                                    \
    std::unique_ptr<Type[]> buffer(new Type[n]());                                         \
    for (size_t i = 0; i < n; ++i) buffer[i] = static_cast<Type>(values[b.positions[i]]);  \
    s = Check(f_.Set##Name(instance_, b.vrs.data(), n, buffer.get(), n), "fmi3Set" #Name); \
    break;                                                                                 \
  }
        COSIMO_FMI3_TYPES_(COSIMO_SET_)
#undef COSIMO_SET_
        default:
          s = absl::InternalError(absl::StrCat("unit '", unit_name_, "': cannot write ",
                                               VarTypeName(b.type), " variables as numbers"));
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status SetString(uint32_t vr, const std::string& value) override {
    const fmi3ValueReference ref = vr;
    const fmi3String text = value.c_str();
    BeginCall();
    return Check(f_.SetString(instance_, &ref, 1, &text, 1), "fmi3SetString");
  }

  absl::Status GetStrings(const std::vector<uint32_t>& vrs,
                          std::vector<std::string>* values) override {
    return ReadStrings(
        vrs.size(), "fmi3GetString",
        [&](fmi3String* texts) {
          return f_.GetString(instance_, vrs.data(), vrs.size(), texts, vrs.size());
        },
        values);
  }

  absl::Status DoStep(double t, double h, bool no_set_state_prior,
                      DoStepOutcome* outcome) override {
    *outcome = DoStepOutcome{};
    fmi3Boolean event_needed = false, terminate = false, early_return = false;
    fmi3Float64 last = t;
    BeginCall();
    const fmi3Status status = f_.DoStep(instance_, t, h, no_set_state_prior, &event_needed,
                                        &terminate, &early_return, &last);
    outcome->terminated = terminate;
    outcome->event_needed = status == fmi3OK && event_needed;
    outcome->early_return = status == fmi3OK && early_return;
    outcome->last_successful_time = status == fmi3OK && !terminate && !early_return ? t + h : last;
    if (status == fmi3Discard || (status == fmi3OK && terminate)) {
      outcome->discarded = status == fmi3Discard;
      logger_->warn("fmi3DoStep returned {} at t={}{}", status == fmi3OK ? "fmi3OK" : "fmi3Discard",
                    t, terminate ? " and asks to terminate the simulation" : "");
      return absl::OkStatus();
    }
    return Check(status, "fmi3DoStep");
  }

  absl::Status SetInputDerivatives(const std::vector<uint32_t>& /*vrs*/, int /*order*/,
                                   const double* /*values*/) override {
    return absl::UnimplementedError("FMI 3 has no input derivatives");
  }
  absl::Status GetOutputDerivatives(const std::vector<uint32_t>& vrs, int order,
                                    double* values) override {
    orders_.assign(vrs.size(), order);  // no allocation once sized
    BeginCall();
    return Check(f_.GetOutputDerivatives(instance_, vrs.data(), vrs.size(), orders_.data(), values,
                                         vrs.size()),
                 "fmi3GetOutputDerivatives");
  }

  absl::Status EnterStepMode() override {
    if (f_.EnterStepMode == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", unit_name_, "': fmi3EnterStepMode without event mode"));
    }
    BeginCall();
    return Check(f_.EnterStepMode(instance_), "fmi3EnterStepMode");
  }
  absl::Status EnterEventMode() override {
    BeginCall();
    return Check(f_.EnterEventMode(instance_), "fmi3EnterEventMode");
  }
  absl::Status UpdateDiscreteStates(EventUpdate* update) override {
    fmi3Boolean need = false, terminate = false, nominals = false, values = false, defined = false;
    fmi3Float64 next = 0.0;
    BeginCall();
    absl::Status s = Check(
        f_.UpdateDiscreteStates(instance_, &need, &terminate, &nominals, &values, &defined, &next),
        "fmi3UpdateDiscreteStates");
    *update = EventUpdate{need, terminate, nominals, values, defined, next};
    return s;
  }
  absl::Status EnterContinuousTimeMode() override {
    BeginCall();
    return Check(f_.EnterContinuousTimeMode(instance_), "fmi3EnterContinuousTimeMode");
  }
  absl::Status SetTime(double t) override {
    BeginCall();
    return Check(f_.SetTime(instance_, t), "fmi3SetTime");
  }
  absl::Status SetContinuousStates(const double* x, size_t n) override {
    BeginCall();
    return Check(f_.SetContinuousStates(instance_, x, n), "fmi3SetContinuousStates");
  }
  absl::Status GetContinuousStates(double* x, size_t n) override {
    BeginCall();
    return Check(f_.GetContinuousStates(instance_, x, n), "fmi3GetContinuousStates");
  }
  absl::Status GetDerivatives(double* dx, size_t n) override {
    BeginCall();
    return Check(f_.GetContinuousStateDerivatives(instance_, dx, n),
                 "fmi3GetContinuousStateDerivatives");
  }
  absl::Status GetEventIndicators(double* z, size_t n) override {
    BeginCall();
    return Check(f_.GetEventIndicators(instance_, z, n), "fmi3GetEventIndicators");
  }
  absl::Status CompletedIntegratorStep(bool no_set_state_prior, bool* enter_event_mode,
                                       bool* terminate_simulation) override {
    fmi3Boolean enter = false, terminate = false;
    BeginCall();
    absl::Status s =
        Check(f_.CompletedIntegratorStep(instance_, no_set_state_prior, &enter, &terminate),
              "fmi3CompletedIntegratorStep");
    *enter_event_mode = enter;
    *terminate_simulation = terminate;
    return s;
  }

  absl::Status GetState(void** state) override {
    BeginCall();
    return Check(f_.GetFMUState(instance_, state), "fmi3GetFMUState");
  }
  absl::Status SetState(void* state) override {
    BeginCall();
    return Check(f_.SetFMUState(instance_, state), "fmi3SetFMUState");
  }
  void FreeState(void** state) override {
    if (*state == nullptr || fatal()) return;
    BeginCall();
    (void)Check(f_.FreeFMUState(instance_, state), "fmi3FreeFMUState");
  }
  absl::Status SerializeState(void* state, std::string* bytes) override {
    size_t size = 0;
    BeginCall();
    if (absl::Status s =
            Check(f_.SerializedFMUStateSize(instance_, state, &size), "fmi3SerializedFMUStateSize");
        !s.ok()) {
      return s;
    }
    bytes->assign(size, '\0');
    BeginCall();
    return Check(
        f_.SerializeFMUState(instance_, state, reinterpret_cast<fmi3Byte*>(bytes->data()), size),
        "fmi3SerializeFMUState");
  }
  absl::Status DeserializeState(const std::string& bytes, void** state) override {
    BeginCall();
    return Check(f_.DeserializeFMUState(instance_, reinterpret_cast<const fmi3Byte*>(bytes.data()),
                                        bytes.size(), state),
                 "fmi3DeserializeFMUState");
  }
  absl::Status DirectionalDerivative(const std::vector<uint32_t>& unknowns,
                                     const std::vector<uint32_t>& knowns, const double* seed,
                                     double* sensitivity) override {
    BeginCall();
    return Check(f_.GetDirectionalDerivative(instance_, unknowns.data(), unknowns.size(),
                                             knowns.data(), knowns.size(), seed, knowns.size(),
                                             sensitivity, unknowns.size()),
                 "fmi3GetDirectionalDerivative");
  }

 private:
  std::string token_;
  bool model_exchange_;
  bool event_mode_;  // Co-Simulation with hasEventMode: eventModeUsed and earlyReturnAllowed
  std::shared_ptr<UnpackedFmu> unpacked_;
  std::unique_ptr<SharedLibrary> library_;
  Fmi3Functions f_;
  fmi3Instance instance_ = nullptr;
  bool initialized_ = false;
  bool terminated_ = false;
  std::vector<fmi3Int32> orders_;  // derivative orders of the last output call
};

}  // namespace

absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi3(const ModelDescription& md,
                                                      bool model_exchange,
                                                      std::shared_ptr<UnpackedFmu> unpacked,
                                                      const std::string& unit_name) {
  const KindInfo& kind = model_exchange ? md.model_exchange : md.co_simulation;
  absl::StatusOr<std::string> path =
      BinaryPath(*unpacked, "x86_64-linux", kind.model_identifier, unit_name);
  if (!path.ok()) return path.status();
  auto library = SharedLibrary::Open(*path);
  if (!library.ok()) {
    return absl::Status(library.status().code(),
                        absl::StrCat("unit '", unit_name, "': ", library.status().message()));
  }
  Fmi3Functions f;
  std::string missing;
  auto resolve = [&](auto& pointer, const char* name, bool required) {
    pointer =
        reinterpret_cast<std::remove_reference_t<decltype(pointer)>>((*library)->Symbol(name));
    if (pointer == nullptr && required)
      absl::StrAppend(&missing, missing.empty() ? "" : ", ", name);
  };
  resolve(f.FreeInstance, "fmi3FreeInstance", true);
  resolve(f.EnterInitializationMode, "fmi3EnterInitializationMode", true);
  resolve(f.ExitInitializationMode, "fmi3ExitInitializationMode", true);
  resolve(f.Terminate, "fmi3Terminate", true);
#define COSIMO_RESOLVE_(Name, Type, Kind)      \
  resolve(f.Get##Name, "fmi3Get" #Name, true); \
  resolve(f.Set##Name, "fmi3Set" #Name, true);
  COSIMO_FMI3_TYPES_(COSIMO_RESOLVE_)
#undef COSIMO_RESOLVE_
  resolve(f.SetString, "fmi3SetString", true);
  resolve(f.GetString, "fmi3GetString", true);
  const bool state = kind.can_get_and_set_fmu_state;
  resolve(f.GetFMUState, "fmi3GetFMUState", state);
  resolve(f.SetFMUState, "fmi3SetFMUState", state);
  resolve(f.FreeFMUState, "fmi3FreeFMUState", state);
  const bool serialize = state && kind.can_serialize_fmu_state;
  resolve(f.SerializedFMUStateSize, "fmi3SerializedFMUStateSize", serialize);
  resolve(f.SerializeFMUState, "fmi3SerializeFMUState", serialize);
  resolve(f.DeserializeFMUState, "fmi3DeserializeFMUState", serialize);
  resolve(f.GetDirectionalDerivative, "fmi3GetDirectionalDerivative",
          kind.provides_directional_derivative);
  const bool event_mode = model_exchange || kind.has_event_mode;
  resolve(f.EnterEventMode, "fmi3EnterEventMode", event_mode);
  resolve(f.UpdateDiscreteStates, "fmi3UpdateDiscreteStates", event_mode);
  if (model_exchange) {
    resolve(f.InstantiateModelExchange, "fmi3InstantiateModelExchange", true);
    resolve(f.EnterContinuousTimeMode, "fmi3EnterContinuousTimeMode", true);
    resolve(f.CompletedIntegratorStep, "fmi3CompletedIntegratorStep", true);
    resolve(f.SetTime, "fmi3SetTime", true);
    resolve(f.SetContinuousStates, "fmi3SetContinuousStates", true);
    resolve(f.GetContinuousStates, "fmi3GetContinuousStates", true);
    resolve(f.GetContinuousStateDerivatives, "fmi3GetContinuousStateDerivatives", true);
    resolve(f.GetEventIndicators, "fmi3GetEventIndicators", true);
  } else {
    resolve(f.InstantiateCoSimulation, "fmi3InstantiateCoSimulation", true);
    resolve(f.DoStep, "fmi3DoStep", true);
    resolve(f.EnterStepMode, "fmi3EnterStepMode", kind.has_event_mode);
    resolve(f.GetOutputDerivatives, "fmi3GetOutputDerivatives",
            kind.max_output_derivative_order > 0);
  }
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("unit '", unit_name, "': binaries/x86_64-linux/", kind.model_identifier,
                     ".so does not export ", missing));
  }
  return std::shared_ptr<FmuInstance>(std::make_shared<Fmi3Instance>(
      md, model_exchange, std::move(unpacked), std::move(*library), f, unit_name));
}

}  // namespace cosimo::worker::fmi
