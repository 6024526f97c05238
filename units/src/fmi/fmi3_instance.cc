// FmuInstance for FMI 3.0 binaries (binaries/x86_64-linux/<modelIdentifier>.so).
#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/shared_library.h"
#include "cosimo/fmi/fmi3_api.h"
#include "cosimo/fmi/fmu_archive.h"
#include "units/src/fmi/fmi_instance_base.h"
#include "units/src/fmi/fmu_instance.h"

namespace cosimo::units::fmu {
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
  fmi3GetBinaryTYPE* GetBinary = nullptr;  // resolved when the FMU has a Binary variable
  // Named as in FMI 2, as FmiInstanceBase calls them.
  fmi3GetFMUStateTYPE* GetFMUstate = nullptr;
  fmi3SetFMUStateTYPE* SetFMUstate = nullptr;
  fmi3FreeFMUStateTYPE* FreeFMUstate = nullptr;
  fmi3SerializedFMUStateSizeTYPE* SerializedFMUstateSize = nullptr;
  fmi3SerializeFMUStateTYPE* SerializeFMUstate = nullptr;
  fmi3DeserializeFMUStateTYPE* DeSerializeFMUstate = nullptr;
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
  fmi3GetContinuousStateDerivativesTYPE* GetDerivatives = nullptr;
  fmi3GetEventIndicatorsTYPE* GetEventIndicators = nullptr;
  // Clocks: resolved when the FMU declares Clock variables.
  fmi3SetClockTYPE* SetClock = nullptr;
  fmi3GetClockTYPE* GetClock = nullptr;
  fmi3GetIntervalDecimalTYPE* GetIntervalDecimal = nullptr;
  fmi3GetShiftDecimalTYPE* GetShiftDecimal = nullptr;
  fmi3GetIntervalFractionTYPE* GetIntervalFraction = nullptr;
  fmi3GetShiftFractionTYPE* GetShiftFraction = nullptr;
  // Scheduled Execution.
  fmi3InstantiateScheduledExecutionTYPE* InstantiateScheduledExecution = nullptr;
  fmi3ActivateModelPartitionTYPE* ActivateModelPartition = nullptr;
};

void LogMessage(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                fmi3String message) {
  if (env != nullptr)
    static_cast<FmuInstance*>(env)->Log(static_cast<int>(status), category, message);
}

// Scheduled Execution's callbacks: the worker runs one partition at a time, in its thread
// (no preemption, fmu_se_unit.cc), and asks the clocks after each partition rather than being
// told of their updates.
void ClockUpdate(fmi3InstanceEnvironment /*env*/) {}
void LockPreemption() {}
void UnlockPreemption() {}

struct Fmi3Api {
  using Functions = Fmi3Functions;
  using Handle = fmi3Instance;
  using Boolean = fmi3Boolean;
  using Byte = fmi3Byte;
  static constexpr fmi::FmiVersion kVersion = fmi::FmiVersion::kFmi3;
};

class Fmi3Instance : public FmiInstanceBase<Fmi3Api> {
 public:
  Fmi3Instance(const fmi::ModelDescription& md, bool model_exchange,
               std::shared_ptr<fmi::UnpackedFmu> unpacked, std::unique_ptr<SharedLibrary> library,
               Fmi3Functions f, const std::string& unit_name, bool scheduled_execution)
      : FmiInstanceBase(unit_name, f, std::move(unpacked), std::move(library)),
        token_(md.guid),
        model_exchange_(model_exchange),
        scheduled_execution_(scheduled_execution),
        event_mode_(!model_exchange && !scheduled_execution && md.co_simulation.has_event_mode) {}

  absl::Status Instantiate() override {
    const std::string resources = unpacked_->dir() + "/resources/";
    BeginCall();
    const char* function = model_exchange_        ? "fmi3InstantiateModelExchange"
                           : scheduled_execution_ ? "fmi3InstantiateScheduledExecution"
                                                  : "fmi3InstantiateCoSimulation";
    if (model_exchange_) {
      handle_ = f_.InstantiateModelExchange(unit_name_.c_str(), token_.c_str(), resources.c_str(),
                                            false, false, this, LogMessage);
    } else if (scheduled_execution_) {
      handle_ = f_.InstantiateScheduledExecution(unit_name_.c_str(), token_.c_str(),
                                                 resources.c_str(), false, false, this, LogMessage,
                                                 ClockUpdate, LockPreemption, UnlockPreemption);
    } else {
      handle_ = f_.InstantiateCoSimulation(
          unit_name_.c_str(), token_.c_str(), resources.c_str(), false, false,
          /*eventModeUsed=*/event_mode_,
          /*earlyReturnAllowed=*/event_mode_, nullptr, 0, this, LogMessage, nullptr);
    }
    if (handle_ == nullptr) {
      return absl::InternalError(absl::StrCat("unit '", unit_name_, "': ", function,
                                              " returned NULL (instantiationToken ", token_, ")",
                                              CallLog()));
    }
    return absl::OkStatus();
  }

  absl::Status EnterInitializationMode(std::optional<double> tolerance, double start,
                                       std::optional<double> stop) override {
    BeginCall();
    initialized_ = true;
    return Check(f_.EnterInitializationMode(handle_, tolerance.has_value(), tolerance.value_or(0.0),
                                            start, stop.has_value(), stop.value_or(0.0)),
                 "fmi3EnterInitializationMode");
  }
  using FmuInstance::Get;
  absl::Status Get(const VariableGroup& group, double* values, uint64_t* bits) override {
    for (const VariableGroup::Batch& b : group.batches()) {
      const fmi3ValueReference* vr = b.vrs.data();
      const size_t n = b.vrs.size();
      const size_t nv = b.n_values;
      absl::Status s;
      switch (b.type) {
#define COSIMO_GET_(Name, Type, Kind)                                                             \
  case fmi::VarType::Kind:                                                                        \
    s = GetBatch<Type>(                                                                           \
        b, "fmi3Get" #Name, [&](Type* v) { return f_.Get##Name(handle_, vr, n, v, nv); }, values, \
        bits);                                                                                    \
    break;
        COSIMO_FMI3_TYPES_(COSIMO_GET_)
#undef COSIMO_GET_
        default:
          s = absl::InternalError(absl::StrCat("unit '", unit_name_, "': cannot read ",
                                               fmi::VarTypeName(b.type), " variables as numbers"));
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Set(const VariableGroup& group, const double* values) override {
    for (const VariableGroup::Batch& b : group.batches()) {
      const fmi3ValueReference* vr = b.vrs.data();
      const size_t n = b.vrs.size();
      const size_t nv = b.n_values;
      absl::Status s;
      switch (b.type) {
#define COSIMO_SET_(Name, Type, Kind)                                                           \
  case fmi::VarType::Kind:                                                                      \
    s = SetBatch<Type>(                                                                         \
        b, "fmi3Set" #Name, [&](const Type* v) { return f_.Set##Name(handle_, vr, n, v, nv); }, \
        "fmi3Get" #Name, [&](Type* v) { return f_.Get##Name(handle_, vr, n, v, nv); }, values); \
    break;
        COSIMO_FMI3_TYPES_(COSIMO_SET_)
#undef COSIMO_SET_
        default:
          s = absl::InternalError(absl::StrCat("unit '", unit_name_, "': cannot write ",
                                               fmi::VarTypeName(b.type), " variables as numbers"));
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status SetString(uint32_t vr, const std::string& value) override {
    const fmi3ValueReference ref = vr;
    const fmi3String text = value.c_str();
    BeginCall();
    return Check(f_.SetString(handle_, &ref, 1, &text, 1), "fmi3SetString");
  }

  absl::Status GetStrings(const std::vector<uint32_t>& vrs,
                          std::vector<std::string>* values) override {
    return ReadStrings(
        vrs.size(), "fmi3GetString",
        [&](fmi3String* texts) {
          return f_.GetString(handle_, vrs.data(), vrs.size(), texts, vrs.size());
        },
        values);
  }

  absl::Status GetBinaries(const std::vector<uint32_t>& vrs,
                           std::vector<std::string>* hex) override {
    hex->assign(vrs.size(), "");
    if (vrs.empty()) return absl::OkStatus();
    binary_sizes_.assign(vrs.size(), 0);
    binary_values_.assign(vrs.size(), nullptr);
    BeginCall();
    if (absl::Status s = Check(f_.GetBinary(handle_, vrs.data(), vrs.size(), binary_sizes_.data(),
                                            binary_values_.data(), vrs.size()),
                               "fmi3GetBinary");
        !s.ok()) {
      return s;
    }
    static constexpr char kDigits[] = "0123456789abcdef";
    for (size_t i = 0; i < vrs.size(); ++i) {
      std::string& out = (*hex)[i];
      if (binary_values_[i] == nullptr) continue;
      out.reserve(2 * binary_sizes_[i]);
      for (size_t k = 0; k < binary_sizes_[i]; ++k) {
        out.push_back(kDigits[binary_values_[i][k] >> 4]);
        out.push_back(kDigits[binary_values_[i][k] & 0xf]);
      }
    }
    return absl::OkStatus();
  }

  absl::Status DoStep(double t, double h, bool no_set_state_prior,
                      DoStepOutcome* outcome) override {
    *outcome = DoStepOutcome{};
    fmi3Boolean event_needed = false, terminate = false, early_return = false;
    fmi3Float64 last = t;
    BeginCall();
    const fmi3Status status = f_.DoStep(handle_, t, h, no_set_state_prior, &event_needed,
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
  absl::Status GetOutputDerivatives(const std::vector<uint32_t>& vrs, int order, double* values,
                                    size_t n_values) override {
    orders_.assign(vrs.size(), order);  // no allocation once sized
    BeginCall();
    return Check(
        f_.GetOutputDerivatives(handle_, vrs.data(), vrs.size(), orders_.data(), values, n_values),
        "fmi3GetOutputDerivatives");
  }

  absl::Status EnterStepMode() override {
    if (f_.EnterStepMode == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", unit_name_, "': fmi3EnterStepMode without event mode"));
    }
    BeginCall();
    return Check(f_.EnterStepMode(handle_), "fmi3EnterStepMode");
  }
  absl::Status UpdateDiscreteStates(EventUpdate* update) override {
    fmi3Boolean need = false, terminate = false, nominals = false, values = false, defined = false;
    fmi3Float64 next = 0.0;
    BeginCall();
    absl::Status s = Check(
        f_.UpdateDiscreteStates(handle_, &need, &terminate, &nominals, &values, &defined, &next),
        "fmi3UpdateDiscreteStates");
    *update = EventUpdate{need, terminate, nominals, values, defined, next};
    return s;
  }
  absl::Status SetClocks(const std::vector<uint32_t>& vrs, bool active) override {
    if (f_.SetClock == nullptr) return FmuInstance::SetClocks(vrs, active);
    // fmi3Clock is bool, which std::vector packs.
    std::unique_ptr<fmi3Clock[]> values(new fmi3Clock[vrs.size() + 1]);
    std::fill(values.get(), values.get() + vrs.size(), active);
    BeginCall();
    return Check(f_.SetClock(handle_, vrs.data(), vrs.size(), values.get()), "fmi3SetClock");
  }
  absl::Status GetClocks(const std::vector<uint32_t>& vrs, std::vector<bool>* active) override {
    if (f_.GetClock == nullptr) return FmuInstance::GetClocks(vrs, active);
    std::unique_ptr<fmi3Clock[]> values(new fmi3Clock[vrs.size() + 1]());
    BeginCall();
    absl::Status s =
        Check(f_.GetClock(handle_, vrs.data(), vrs.size(), values.get()), "fmi3GetClock");
    active->assign(values.get(), values.get() + vrs.size());
    return s;
  }
  absl::Status GetIntervals(const std::vector<uint32_t>& vrs, bool fraction,
                            std::vector<double>* intervals, std::vector<int>* qualifiers) override {
    if (f_.GetIntervalDecimal == nullptr || (fraction && f_.GetIntervalFraction == nullptr)) {
      return FmuInstance::GetIntervals(vrs, fraction, intervals, qualifiers);
    }
    intervals->assign(vrs.size(), 0.0);
    std::vector<fmi3IntervalQualifier> q(vrs.size(), fmi3IntervalNotYetKnown);
    std::vector<fmi3UInt64> counters(vrs.size(), 0), resolutions(vrs.size(), 1);
    BeginCall();
    absl::Status s =
        fraction ? Check(f_.GetIntervalFraction(handle_, vrs.data(), vrs.size(), counters.data(),
                                                resolutions.data(), q.data()),
                         "fmi3GetIntervalFraction")
                 : Check(f_.GetIntervalDecimal(handle_, vrs.data(), vrs.size(), intervals->data(),
                                               q.data()),
                         "fmi3GetIntervalDecimal");
    if (fraction) Seconds(counters, resolutions, intervals);
    qualifiers->assign(q.begin(), q.end());
    return s;
  }
  absl::Status GetShifts(const std::vector<uint32_t>& vrs, bool fraction,
                         std::vector<double>* shifts) override {
    if (f_.GetShiftDecimal == nullptr || (fraction && f_.GetShiftFraction == nullptr)) {
      return FmuInstance::GetShifts(vrs, fraction, shifts);
    }
    shifts->assign(vrs.size(), 0.0);
    std::vector<fmi3UInt64> counters(vrs.size(), 0), resolutions(vrs.size(), 1);
    BeginCall();
    if (!fraction) {
      return Check(f_.GetShiftDecimal(handle_, vrs.data(), vrs.size(), shifts->data()),
                   "fmi3GetShiftDecimal");
    }
    absl::Status s = Check(
        f_.GetShiftFraction(handle_, vrs.data(), vrs.size(), counters.data(), resolutions.data()),
        "fmi3GetShiftFraction");
    Seconds(counters, resolutions, shifts);
    return s;
  }
  // counter / resolution, in seconds (0 for a resolution 0, which the FMU must not give).
  static void Seconds(const std::vector<fmi3UInt64>& counters,
                      const std::vector<fmi3UInt64>& resolutions, std::vector<double>* seconds) {
    for (size_t k = 0; k < counters.size(); ++k) {
      (*seconds)[k] = resolutions[k] == 0
                          ? 0.0
                          : static_cast<double>(counters[k]) / static_cast<double>(resolutions[k]);
    }
  }
  absl::Status ActivateModelPartition(uint32_t clock_vr, double t) override {
    if (f_.ActivateModelPartition == nullptr)
      return FmuInstance::ActivateModelPartition(clock_vr, t);
    BeginCall();
    return Check(f_.ActivateModelPartition(handle_, clock_vr, t), "fmi3ActivateModelPartition");
  }
  absl::Status DirectionalDerivative(const std::vector<uint32_t>& unknowns,
                                     const std::vector<uint32_t>& knowns, const double* seed,
                                     size_t n_seed, double* sensitivity,
                                     size_t n_sensitivity) override {
    BeginCall();
    return Check(
        f_.GetDirectionalDerivative(handle_, unknowns.data(), unknowns.size(), knowns.data(),
                                    knowns.size(), seed, n_seed, sensitivity, n_sensitivity),
        "fmi3GetDirectionalDerivative");
  }

 private:
  std::string token_;
  bool model_exchange_;
  bool scheduled_execution_;
  bool event_mode_;  // Co-Simulation with hasEventMode: eventModeUsed and earlyReturnAllowed
  std::vector<size_t> binary_sizes_;  // GetBinaries' buffers
  std::vector<fmi3Binary> binary_values_;
  std::vector<fmi3Int32> orders_;  // derivative orders of the last output call
};

}  // namespace

absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi3(const fmi::ModelDescription& md,
                                                      bool model_exchange,
                                                      std::shared_ptr<fmi::UnpackedFmu> unpacked,
                                                      const std::string& unit_name,
                                                      bool scheduled_execution) {
  const fmi::KindInfo& kind = model_exchange        ? md.model_exchange
                              : scheduled_execution ? md.scheduled_execution
                                                    : md.co_simulation;
  absl::StatusOr<FmiLibraryLoader> loader =
      FmiLibraryLoader::Open(*unpacked, "x86_64-linux", kind, unit_name);
  if (!loader.ok()) return loader.status();
  Fmi3Functions f;
  auto resolve = [&](auto*& pointer, const char* name, bool required) {
    loader->Resolve(pointer, name, required);
  };
  loader->ResolveShared<Fmi3Api>(&f, model_exchange, kind);
  resolve(f.EnterInitializationMode, "fmi3EnterInitializationMode", true);
#define COSIMO_RESOLVE_(Name, Type, Kind)      \
  resolve(f.Get##Name, "fmi3Get" #Name, true); \
  resolve(f.Set##Name, "fmi3Set" #Name, true);
  COSIMO_FMI3_TYPES_(COSIMO_RESOLVE_)
#undef COSIMO_RESOLVE_
  resolve(f.SetString, "fmi3SetString", true);
  resolve(f.GetString, "fmi3GetString", true);
  const bool has_binary =
      std::any_of(md.variables.begin(), md.variables.end(),
                  [](const fmi::ScalarVariable& v) { return v.type == fmi::VarType::kBinary; });
  resolve(f.GetBinary, "fmi3GetBinary", has_binary);
  resolve(f.GetDirectionalDerivative, "fmi3GetDirectionalDerivative",
          kind.provides_directional_derivative);
  const bool event_mode = model_exchange || kind.has_event_mode;
  resolve(f.EnterEventMode, "fmi3EnterEventMode", event_mode);
  resolve(f.UpdateDiscreteStates, "fmi3UpdateDiscreteStates", event_mode);
  const bool has_clocks = !md.Clocks().empty();
  resolve(f.SetClock, "fmi3SetClock", has_clocks);
  resolve(f.GetClock, "fmi3GetClock", has_clocks);
  resolve(f.GetIntervalDecimal, "fmi3GetIntervalDecimal", has_clocks);
  resolve(f.GetShiftDecimal, "fmi3GetShiftDecimal", has_clocks);
  const bool fractions = std::any_of(md.variables.begin(), md.variables.end(), [](const auto& v) {
    return v.type == fmi::VarType::kClock && v.clock.supports_fraction;
  });
  resolve(f.GetIntervalFraction, "fmi3GetIntervalFraction", fractions);
  resolve(f.GetShiftFraction, "fmi3GetShiftFraction", fractions);
  if (model_exchange) {
    resolve(f.InstantiateModelExchange, "fmi3InstantiateModelExchange", true);
  } else if (scheduled_execution) {
    resolve(f.InstantiateScheduledExecution, "fmi3InstantiateScheduledExecution", true);
    resolve(f.ActivateModelPartition, "fmi3ActivateModelPartition", true);
  } else {
    resolve(f.InstantiateCoSimulation, "fmi3InstantiateCoSimulation", true);
    resolve(f.DoStep, "fmi3DoStep", true);
    resolve(f.EnterStepMode, "fmi3EnterStepMode", kind.has_event_mode);
    resolve(f.GetOutputDerivatives, "fmi3GetOutputDerivatives",
            kind.max_output_derivative_order > 0);
  }
  if (absl::Status s = loader->Missing(); !s.ok()) return s;
  return std::shared_ptr<FmuInstance>(
      std::make_shared<Fmi3Instance>(md, model_exchange, std::move(unpacked), loader->Release(), f,
                                     unit_name, scheduled_execution));
}

}  // namespace cosimo::units::fmu
