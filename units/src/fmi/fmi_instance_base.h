// What the FMI 1.0, 2.0 and 3.0 instances (fmi1_instance.cc, fmi2_instance.cc,
// fmi3_instance.cc) share, written once over `Api`:
//
//   struct Api {
//     using Functions = ...;  // the resolved function pointers; the shared ones named as here
//     using Handle = ...;     // fmiComponent / fmi2Component / fmi3Instance
//     using Boolean = ...;    // fmiBoolean / fmi2Boolean / fmi3Boolean
//     using Byte = ...;       // fmi2Byte / fmi3Byte (serialised FMU states; not FMI 1.0)
//     static constexpr FmiVersion kVersion = ...;
//   };
//
// FmiCommonBase<Api> holds what all three define alike: the library, the unpacked folder, the
// handle, the status check of a call, Terminate and freeing, the Model Exchange functions of
// the same arguments and meaning (SetTime, SetContinuousStates, GetContinuousStates,
// GetDerivatives, GetEventIndicators). FmiScalarTypesBase<Api> adds the variable access of FMI
// 1.0 and 2.0 (Real, Integer, Boolean, String). FmiInstanceBase<Api, Base> adds what FMI 2.0 and
// 3.0 share and FMI 1.0 lacks: initialisation mode, event and continuous-time modes,
// fmiXCompletedIntegratorStep, FMU states.
//
// The version's own class sets handle_ when it instantiates and initialized_ when it enters
// initialisation (FMI 1.0: when it initialises), and implements the rest. Free() (called by the
// destructor, and by a derived destructor whose members the FMU may still use) terminates an
// initialised instance (unless it failed) and frees it, unless it is fatal; the library and the
// unpacked folder are released after it.
// Private to units/src/fmi. Not thread safe.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/common/shared_library.h"
#include "cosimo/fmi/fmu_archive.h"
#include "cosimo/fmi/model_description.h"
#include "units/src/fmi/fmu_instance.h"

namespace cosimo::units::fmu {

enum class FmiFunction {
  kFreeInstance,
  kTerminate,
  kExitInitializationMode,
  kEnterEventMode,
  kEnterContinuousTimeMode,
  kSetTime,
  kSetContinuousStates,
  kGetContinuousStates,
  kGetDerivatives,
  kGetEventIndicators,
  kCompletedIntegratorStep,
  kGetFMUstate,
  kSetFMUstate,
  kFreeFMUstate,
  kSerializedFMUstateSize,
  kSerializeFMUstate,
  kDeSerializeFMUstate,
};

// The standard's name of `f` in `version` ("fmiTerminate", "fmi2Terminate", "fmi3Terminate"...).
// FMI 1.0: the Model Exchange name ("-" where FMI 1.0 has no such function); the FMI 1.0
// instance names its Co-Simulation functions itself (FmiCommonBase::FunctionName).
inline const char* FmiFunctionName(fmi::FmiVersion version, FmiFunction f) {
  static constexpr const char* kNames[][3] = {
      {"fmiFreeModelInstance", "fmi2FreeInstance", "fmi3FreeInstance"},
      {"fmiTerminate", "fmi2Terminate", "fmi3Terminate"},
      {"fmiInitialize", "fmi2ExitInitializationMode", "fmi3ExitInitializationMode"},
      {"-", "fmi2EnterEventMode", "fmi3EnterEventMode"},
      {"-", "fmi2EnterContinuousTimeMode", "fmi3EnterContinuousTimeMode"},
      {"fmiSetTime", "fmi2SetTime", "fmi3SetTime"},
      {"fmiSetContinuousStates", "fmi2SetContinuousStates", "fmi3SetContinuousStates"},
      {"fmiGetContinuousStates", "fmi2GetContinuousStates", "fmi3GetContinuousStates"},
      {"fmiGetDerivatives", "fmi2GetDerivatives", "fmi3GetContinuousStateDerivatives"},
      {"fmiGetEventIndicators", "fmi2GetEventIndicators", "fmi3GetEventIndicators"},
      {"fmiCompletedIntegratorStep", "fmi2CompletedIntegratorStep", "fmi3CompletedIntegratorStep"},
      {"-", "fmi2GetFMUstate", "fmi3GetFMUState"},
      {"-", "fmi2SetFMUstate", "fmi3SetFMUState"},
      {"-", "fmi2FreeFMUstate", "fmi3FreeFMUState"},
      {"-", "fmi2SerializedFMUstateSize", "fmi3SerializedFMUStateSize"},
      {"-", "fmi2SerializeFMUstate", "fmi3SerializeFMUState"},
      {"-", "fmi2DeSerializeFMUstate", "fmi3DeserializeFMUState"},
  };
  const int column = version == fmi::FmiVersion::kFmi1   ? 0
                     : version == fmi::FmiVersion::kFmi2 ? 1
                                                         : 2;
  return kNames[static_cast<int>(f)][column];
}

// The text of an FMU's printf-style log message (the FMI 1.0 and 2.0 loggers), at most 2047 bytes.
inline std::string FormatFmuMessage(const char* format, va_list args) {
  if (format == nullptr) return "";
  char buffer[2048];
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  return buffer;
}
// The memory allocator the FMI 1.0 and 2.0 instances are given.
inline void* FmiAllocate(size_t n, size_t size) { return std::calloc(n, size); }

template <typename Api>
class FmiCommonBase : public FmuInstance {
 public:
  using Functions = typename Api::Functions;
  using Handle = typename Api::Handle;

  FmiCommonBase(std::string unit_name, Functions f, std::shared_ptr<fmi::UnpackedFmu> unpacked,
                std::unique_ptr<SharedLibrary> library)
      : FmuInstance(std::move(unit_name), Api::kVersion),
        f_(f),
        unpacked_(std::move(unpacked)),
        library_(std::move(library)) {}
  ~FmiCommonBase() override { Free(); }

  absl::Status Terminate() override {
    if (terminated_ || !initialized_ || failed()) return absl::OkStatus();
    terminated_ = true;
    return Call(FmiFunction::kTerminate, f_.Terminate);
  }
  absl::Status SetTime(double t) override { return Call(FmiFunction::kSetTime, f_.SetTime, t); }
  absl::Status SetContinuousStates(const double* x, size_t n) override {
    return Call(FmiFunction::kSetContinuousStates, f_.SetContinuousStates, x, n);
  }
  absl::Status GetContinuousStates(double* x, size_t n) override {
    return Call(FmiFunction::kGetContinuousStates, f_.GetContinuousStates, x, n);
  }
  absl::Status GetDerivatives(double* dx, size_t n) override {
    return Call(FmiFunction::kGetDerivatives, f_.GetDerivatives, dx, n);
  }
  absl::Status GetEventIndicators(double* z, size_t n) override {
    return Call(FmiFunction::kGetEventIndicators, f_.GetEventIndicators, z, n);
  }

 protected:
  // The name errors give `f` (FmiFunctionName unless the version says otherwise).
  virtual const char* FunctionName(FmiFunction f) const {
    return FmiFunctionName(Api::kVersion, f);
  }
  // function(handle_, args...), its status checked under the function's name.
  template <typename Function, typename... Args>
  absl::Status Call(FmiFunction name, Function* function, Args... args) {
    BeginCall();
    return Check(static_cast<int>(function(handle_, args...)), FunctionName(name));
  }

  void Free() {
    if (handle_ == nullptr || fatal()) return;
    if (initialized_ && !terminated_ && !failed()) {
      BeginCall();
      (void)f_.Terminate(handle_);
    }
    BeginCall();
    f_.FreeInstance(handle_);
    handle_ = nullptr;
  }

  Functions f_;
  std::shared_ptr<fmi::UnpackedFmu> unpacked_;
  std::unique_ptr<SharedLibrary> library_;
  Handle handle_ = nullptr;
  bool initialized_ = false;
  bool terminated_ = false;
};

// FMI 1.0 and 2.0 variables (Real, Integer, Boolean, String): Api also gives Real and Integer
// and the functions' names (kGetReal, kSetReal... kGetString, kSetString).
template <typename Api>
class FmiScalarTypesBase : public FmiCommonBase<Api> {
 public:
  using FmiCommonBase<Api>::FmiCommonBase;

  using FmuInstance::Get;
  // One fmiXGet<type> call per batch of the group. No 64-bit integers: `bits` is left alone.
  absl::Status Get(const VariableGroup& group, double* values, uint64_t* bits) override {
    using Real = typename Api::Real;
    using Integer = typename Api::Integer;
    using Boolean = typename Api::Boolean;
    for (const VariableGroup::Batch& b : group.batches()) {
      const auto* vr = b.vrs.data();
      const size_t n = b.vrs.size();
      absl::Status s;
      if (b.type == fmi::VarType::kFloat64) {
        s = this->template GetBatch<Real>(
            b, Api::kGetReal, [&](Real* v) { return this->f_.GetReal(this->handle_, vr, n, v); },
            values, bits);
      } else if (b.type == fmi::VarType::kInt32) {
        s = this->template GetBatch<Integer>(
            b, Api::kGetInteger,
            [&](Integer* v) { return this->f_.GetInteger(this->handle_, vr, n, v); }, values, bits);
      } else {
        s = this->template GetBatch<Boolean>(
            b, Api::kGetBoolean,
            [&](Boolean* v) { return this->f_.GetBoolean(this->handle_, vr, n, v); }, values, bits);
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // One fmiXSet<type> call per batch of the group.
  absl::Status Set(const VariableGroup& group, const double* values) override {
    using Real = typename Api::Real;
    using Integer = typename Api::Integer;
    using Boolean = typename Api::Boolean;
    for (const VariableGroup::Batch& b : group.batches()) {
      const auto* vr = b.vrs.data();
      const size_t n = b.vrs.size();
      absl::Status s;
      if (b.type == fmi::VarType::kFloat64) {
        s = this->template SetBatch<Real>(
            b, Api::kSetReal,
            [&](const Real* v) { return this->f_.SetReal(this->handle_, vr, n, v); }, Api::kGetReal,
            [&](Real* v) { return this->f_.GetReal(this->handle_, vr, n, v); }, values);
      } else if (b.type == fmi::VarType::kInt32) {
        s = this->template SetBatch<Integer>(
            b, Api::kSetInteger,
            [&](const Integer* v) { return this->f_.SetInteger(this->handle_, vr, n, v); },
            Api::kGetInteger,
            [&](Integer* v) { return this->f_.GetInteger(this->handle_, vr, n, v); }, values);
      } else {
        s = this->template SetBatch<Boolean>(
            b, Api::kSetBoolean,
            [&](const Boolean* v) { return this->f_.SetBoolean(this->handle_, vr, n, v); },
            Api::kGetBoolean,
            [&](Boolean* v) { return this->f_.GetBoolean(this->handle_, vr, n, v); }, values);
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status SetString(uint32_t vr, const std::string& value) override {
    const typename Api::ValueReference ref = vr;
    const typename Api::String text = value.c_str();
    this->BeginCall();
    return this->Check(this->f_.SetString(this->handle_, &ref, 1, &text), Api::kSetString);
  }
  absl::Status GetStrings(const std::vector<uint32_t>& vrs,
                          std::vector<std::string>* values) override {
    return this->ReadStrings(
        vrs.size(), Api::kGetString,
        [&](typename Api::String* texts) {
          return this->f_.GetString(this->handle_, vrs.data(), vrs.size(), texts);
        },
        values);
  }
  absl::Status GetBinaries(const std::vector<uint32_t>& vrs,
                           std::vector<std::string>* hex) override {
    hex->assign(vrs.size(), "");
    if (vrs.empty()) return absl::OkStatus();
    return absl::UnimplementedError(absl::StrCat(
        "unit '", this->unit_name_, "': ",
        Api::kVersion == fmi::FmiVersion::kFmi1 ? "FMI 1.0" : "FMI 2", " has no Binary variables"));
  }
};

// `Base`: FmiCommonBase<Api>, or FmiScalarTypesBase<Api> for FMI 2.
template <typename Api, typename Base = FmiCommonBase<Api>>
class FmiInstanceBase : public Base {
 public:
  using Boolean = typename Api::Boolean;
  using Byte = typename Api::Byte;
  using Base::Base;

  absl::Status ExitInitializationMode() override {
    return this->Call(FmiFunction::kExitInitializationMode, this->f_.ExitInitializationMode);
  }
  absl::Status EnterEventMode() override {
    return this->Call(FmiFunction::kEnterEventMode, this->f_.EnterEventMode);
  }
  absl::Status EnterContinuousTimeMode() override {
    return this->Call(FmiFunction::kEnterContinuousTimeMode, this->f_.EnterContinuousTimeMode);
  }
  absl::Status CompletedIntegratorStep(bool no_set_state_prior, bool* enter_event_mode,
                                       bool* terminate_simulation) override {
    Boolean enter{}, terminate{};
    absl::Status s =
        this->Call(FmiFunction::kCompletedIntegratorStep, this->f_.CompletedIntegratorStep,
                   static_cast<Boolean>(no_set_state_prior), &enter, &terminate);
    *enter_event_mode = enter != Boolean{};
    *terminate_simulation = terminate != Boolean{};
    return s;
  }

  absl::Status GetState(void** state) override {
    return this->Call(FmiFunction::kGetFMUstate, this->f_.GetFMUstate, state);
  }
  absl::Status SetState(void* state) override {
    return this->Call(FmiFunction::kSetFMUstate, this->f_.SetFMUstate, state);
  }
  void FreeState(void** state) override {
    if (*state == nullptr || this->fatal()) return;
    (void)this->Call(FmiFunction::kFreeFMUstate, this->f_.FreeFMUstate, state);
  }
  absl::Status SerializeState(void* state, std::string* bytes) override {
    size_t size = 0;
    if (absl::Status s = this->Call(FmiFunction::kSerializedFMUstateSize,
                                    this->f_.SerializedFMUstateSize, state, &size);
        !s.ok()) {
      return s;
    }
    bytes->assign(size, '\0');
    return this->Call(FmiFunction::kSerializeFMUstate, this->f_.SerializeFMUstate, state,
                      reinterpret_cast<Byte*>(bytes->data()), size);
  }
  absl::Status DeserializeState(const std::string& bytes, void** state) override {
    return this->Call(FmiFunction::kDeSerializeFMUstate, this->f_.DeSerializeFMUstate,
                      reinterpret_cast<const Byte*>(bytes.data()), bytes.size(), state);
  }
};

// Loads an FMU's binary and resolves its functions by name (LoadFmi1, LoadFmi2, LoadFmi3).
class FmiLibraryLoader {
 public:
  // Opens binaries/<platform>/<modelIdentifier>.so of `kind`; errors name the unit and, from
  // dlerror, a shared library the binary needs and the machine lacks.
  static absl::StatusOr<FmiLibraryLoader> Open(const fmi::UnpackedFmu& unpacked,
                                               const char* platform, const fmi::KindInfo& kind,
                                               const std::string& unit_name) {
    absl::StatusOr<std::string> path =
        fmi::BinaryPath(unpacked, platform, kind.model_identifier, unit_name);
    if (!path.ok()) return path.status();
    auto library = SharedLibrary::Open(*path);
    if (!library.ok()) {
      return absl::Status(library.status().code(),
                          absl::StrCat("unit '", unit_name, "': ", library.status().message()));
    }
    FmiLibraryLoader loader;
    loader.library_ = std::move(*library);
    loader.what_ = absl::StrCat("unit '", unit_name, "': binaries/", platform, "/",
                                kind.model_identifier, ".so");
    return loader;
  }

  // Sets `pointer` to the function `name`; a missing one is remembered when `required`.
  template <typename Function>
  void Resolve(Function*& pointer, const char* name, bool required) {
    pointer = reinterpret_cast<Function*>(library_->Symbol(name));
    if (pointer == nullptr && required)
      absl::StrAppend(&missing_, missing_.empty() ? "" : ", ", name);
  }
  // The functions FmiInstanceBase calls: always FreeInstance, ExitInitializationMode and
  // Terminate; the FMU state ones when the kind can get and set it, and the serialising ones when
  // it can also serialise it; the Model Exchange ones when `model_exchange` (EnterEventMode is left
  // to the version: FMI 3 Co-Simulation uses it too).
  template <typename Api>
  void ResolveShared(typename Api::Functions* f, bool model_exchange, const fmi::KindInfo& kind) {
    const auto name_of = [](FmiFunction function) {
      return FmiFunctionName(Api::kVersion, function);
    };
    Resolve(f->FreeInstance, name_of(FmiFunction::kFreeInstance), true);
    Resolve(f->ExitInitializationMode, name_of(FmiFunction::kExitInitializationMode), true);
    Resolve(f->Terminate, name_of(FmiFunction::kTerminate), true);
    const bool state = kind.can_get_and_set_fmu_state;
    Resolve(f->GetFMUstate, name_of(FmiFunction::kGetFMUstate), state);
    Resolve(f->SetFMUstate, name_of(FmiFunction::kSetFMUstate), state);
    Resolve(f->FreeFMUstate, name_of(FmiFunction::kFreeFMUstate), state);
    const bool serialize = state && kind.can_serialize_fmu_state;
    Resolve(f->SerializedFMUstateSize, name_of(FmiFunction::kSerializedFMUstateSize), serialize);
    Resolve(f->SerializeFMUstate, name_of(FmiFunction::kSerializeFMUstate), serialize);
    Resolve(f->DeSerializeFMUstate, name_of(FmiFunction::kDeSerializeFMUstate), serialize);
    if (!model_exchange) return;
    Resolve(f->EnterContinuousTimeMode, name_of(FmiFunction::kEnterContinuousTimeMode), true);
    Resolve(f->CompletedIntegratorStep, name_of(FmiFunction::kCompletedIntegratorStep), true);
    Resolve(f->SetTime, name_of(FmiFunction::kSetTime), true);
    Resolve(f->SetContinuousStates, name_of(FmiFunction::kSetContinuousStates), true);
    Resolve(f->GetContinuousStates, name_of(FmiFunction::kGetContinuousStates), true);
    Resolve(f->GetDerivatives, name_of(FmiFunction::kGetDerivatives), true);
    Resolve(f->GetEventIndicators, name_of(FmiFunction::kGetEventIndicators), true);
  }

  // OK when every required function was found, else an error naming those missing.
  absl::Status Missing() const {
    if (missing_.empty()) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(what_, " does not export ", missing_));
  }
  std::unique_ptr<SharedLibrary> Release() { return std::move(library_); }

 private:
  std::unique_ptr<SharedLibrary> library_;
  std::string what_;  // "unit 'x': binaries/<platform>/<id>.so"
  std::string missing_;
};

}  // namespace cosimo::units::fmu
