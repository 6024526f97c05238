// One instance of an FMU, FMI 1.0, 2.0 or 3.0, behind a version-neutral interface that the FMU
// units (fmu_cs_unit.cc, fmu_me_unit.cc) are written against.
//
// Every method maps to one FMI function (or one per variable type). A call that returns anything
// but OK gives a Status naming the unit, the FMI function, the status and the time, followed by
// what the FMU logged during the call; warnings are only logged. The FMU's logger goes to spdlog
// under the unit's name. After fmiXError the instance is only freed (not terminated); after
// fmiXFatal it is not called again at all. The destructor frees the instance and unloads the
// library; snapshots hold a shared_ptr so that FMU states are freed before the instance.
//
// Call order is the FMI state machine's (Instantiate, set start values, EnterInitializationMode,
// ExitInitializationMode, then DoStep (CS) or the Model Exchange event / continuous-time modes,
// Terminate); the units enforce it. Not thread safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/fmi/fmu_archive.h"
#include "cosimo/fmi/model_description.h"
#include "spdlog/logger.h"

namespace cosimo::units::fmu {

// Where a variable's value is among those of its value reference: a scalar has one value, an
// element of an FMI 3 array is value `element` of the array's `count`.
struct ValuePlace {
  uint32_t vr = 0;
  size_t count = 1;
  size_t element = 0;
};
ValuePlace PlaceOf(const fmi::ModelDescription& md, int index);

// Value references, value counts and slots of a list of variables (scalars or array elements),
// as an FMI 3 call takes them (fmi3Get/Set<type>, fmi3GetDirectionalDerivative,
// fmi3GetOutputDerivatives): each value reference once, with all its values.
struct ValueLayout {
  std::vector<uint32_t> vrs;
  std::vector<size_t> counts;  // per value reference
  size_t n_values = 0;
  std::vector<size_t> slots;  // per variable of the list: its index among the n_values
};
ValueLayout LayoutOf(const std::vector<ValuePlace>& places);
ValueLayout LayoutOf(const fmi::ModelDescription& md, const std::vector<int>& indices);

// Variables of one list (inputs, outputs, recorded...) grouped by type, one FMI call per type.
// A variable is a scalar or one element of an FMI 3 array: the call names each value reference
// once and transfers all of its values (an array's every element, FMI 3.0.1 section 2.2.6.2),
// and each value taken goes to its position.
class VariableGroup {
 public:
  struct Batch {
    fmi::VarType type;
    std::vector<uint32_t> vrs;   // each value reference once, in order of first use
    size_t n_values = 0;         // the values the call transfers (nValues)
    std::vector<size_t> slots;   // for each value taken: its index among the n_values
    std::vector<int> positions;  // and where it goes in the caller's array
    // Some array is covered in part: a Set reads the array first so that the elements not in
    // the group keep their values.
    bool partial = false;
    // For each value taken (as slots): an FMI 1.0 negated alias (alias="negatedAlias"), whose
    // value is minus that of its value reference (a Boolean's negation). Empty when none is.
    std::vector<bool> negated;
  };
  VariableGroup() = default;
  // `indices` are positions in md.variables; all must be numeric or Boolean scalars or
  // elements of expanded arrays.
  VariableGroup(const fmi::ModelDescription& md, const std::vector<int>& indices);

  size_t size() const { return size_; }
  const std::vector<Batch>& batches() const { return batches_; }
  // The variables at the positions `keep` marks, with their positions (and the group's size)
  // unchanged: values are still given for every position, those of the others are not used.
  VariableGroup Only(const std::vector<bool>& keep) const;

 private:
  struct Entry {
    ValuePlace place;
    int position;
    bool negated;
  };
  void Add(fmi::VarType type, const Entry& e);
  void Finish();
  std::vector<Batch> batches_;
  std::vector<std::vector<Entry>> entries_;  // per batch
  size_t size_ = 0;
};

struct EventUpdate {
  bool discrete_states_need_update = false;
  bool terminate_simulation = false;
  bool nominals_changed = false;
  bool values_changed = false;
  bool next_event_time_defined = false;
  double next_event_time = 0.0;
};

struct DoStepOutcome {
  bool discarded = false;   // fmiXDiscard: the step was not (fully) done
  bool terminated = false;  // the FMU ended its simulation
  // FMI 3 Co-Simulation in event mode: the FMU asks for Event Mode at last_successful_time
  // (eventHandlingNeeded), and returned before the end of the step (earlyReturn).
  bool event_needed = false;
  bool early_return = false;
  double last_successful_time = 0.0;
};

class FmuInstance {
 public:
  FmuInstance(std::string unit_name, fmi::FmiVersion version);
  virtual ~FmuInstance();
  FmuInstance(const FmuInstance&) = delete;
  FmuInstance& operator=(const FmuInstance&) = delete;

  const std::string& unit_name() const { return unit_name_; }
  // Time shown in error messages.
  void set_time(double t) { time_ = t; }
  bool failed() const { return failed_; }

  virtual absl::Status Instantiate() = 0;
  virtual absl::Status EnterInitializationMode(std::optional<double> tolerance, double start,
                                               std::optional<double> stop) = 0;
  virtual absl::Status ExitInitializationMode() = 0;
  virtual absl::Status Terminate() = 0;

  // Numeric and Boolean values as doubles (Booleans 0/1, integers converted exactly up to 2^53).
  // When `bits` is not null, the Int64 / UInt64 values also go there exactly, at the same
  // positions, as the value's bits (two's complement when negative); other positions are left.
  virtual absl::Status Get(const VariableGroup& group, double* values, uint64_t* bits) = 0;
  absl::Status Get(const VariableGroup& group, double* values) {
    return Get(group, values, nullptr);
  }
  virtual absl::Status Set(const VariableGroup& group, const double* values) = 0;
  virtual absl::Status SetString(uint32_t vr, const std::string& value) = 0;
  // String variables (one fmiXGetString call); `values` is resized to vrs.size().
  virtual absl::Status GetStrings(const std::vector<uint32_t>& vrs,
                                  std::vector<std::string>* values) = 0;
  // FMI 3 Binary variables (one fmi3GetBinary call), each as lowercase hexadecimal digits, two
  // per byte; FMI 2 returns Unimplemented.
  virtual absl::Status GetBinaries(const std::vector<uint32_t>& vrs,
                                   std::vector<std::string>* hex) = 0;

  // Co-Simulation.
  virtual absl::Status DoStep(double t, double h, bool no_set_state_prior,
                              DoStepOutcome* outcome) = 0;
  // FMI 2 only (canInterpolateInputs): d^order u / dt^order for Real inputs.
  virtual absl::Status SetInputDerivatives(const std::vector<uint32_t>& vrs, int order,
                                           const double* values) = 0;
  // d^order y / dt^order of Float64 outputs: `n_values` values (an FMI 3 array's every element).
  virtual absl::Status GetOutputDerivatives(const std::vector<uint32_t>& vrs, int order,
                                            double* values, size_t n_values) = 0;

  // FMI 3 Co-Simulation with hasEventMode: the instance is created with eventModeUsed and
  // earlyReturnAllowed, is in Event Mode after ExitInitializationMode and after EnterEventMode,
  // and goes back to Step Mode with this. FMI 2 returns Unimplemented.
  virtual absl::Status EnterStepMode() = 0;

  // Model Exchange (and FMI 3 Co-Simulation in event mode: EnterEventMode, UpdateDiscreteStates).
  virtual absl::Status EnterEventMode() = 0;
  virtual absl::Status UpdateDiscreteStates(EventUpdate* update) = 0;
  virtual absl::Status EnterContinuousTimeMode() = 0;
  virtual absl::Status SetTime(double t) = 0;
  virtual absl::Status SetContinuousStates(const double* x, size_t n) = 0;
  virtual absl::Status GetContinuousStates(double* x, size_t n) = 0;
  virtual absl::Status GetDerivatives(double* dx, size_t n) = 0;
  virtual absl::Status GetEventIndicators(double* z, size_t n) = 0;
  virtual absl::Status CompletedIntegratorStep(bool no_set_state_prior, bool* enter_event_mode,
                                               bool* terminate_simulation) = 0;

  // FMU state (canGetAndSetFMUstate) and directional derivatives (Float64 / Real variables).
  virtual absl::Status GetState(void** state) = 0;
  virtual absl::Status SetState(void* state) = 0;
  virtual void FreeState(void** state) = 0;
  // canSerializeFMUstate: the FMU state as bytes (fmiXSerializedFMUstateSize, then
  // fmiXSerializeFMUstate) and bytes back into a new FMU state (fmiXDeSerializeFMUstate; FMI 3:
  // fmi3DeserializeFMUState), freed with FreeState.
  virtual absl::Status SerializeState(void* state, std::string* bytes) = 0;
  virtual absl::Status DeserializeState(const std::string& bytes, void** state) = 0;
  // `seed` holds every value of the knowns (n_seed: more than knowns.size() when one is an FMI 3
  // array), `sensitivity` every value of the unknowns (n_sensitivity).
  virtual absl::Status DirectionalDerivative(const std::vector<uint32_t>& unknowns,
                                             const std::vector<uint32_t>& knowns,
                                             const double* seed, size_t n_seed, double* sensitivity,
                                             size_t n_sensitivity) = 0;

  // FMI 3 clocks (FMI 3.0.1 section 2.2.9), one call each for the value references given:
  // fmi3SetClock (every clock to `active`), fmi3GetClock, fmi3GetIntervalDecimal (qualifiers as
  // fmi3IntervalQualifier: 0 not yet known, 1 unchanged, 2 changed) and fmi3GetShiftDecimal;
  // with `fraction`, fmi3GetIntervalFraction and fmi3GetShiftFraction, in seconds (counter /
  // resolution). The other versions (and an FMU without clocks) return Unimplemented.
  virtual absl::Status SetClocks(const std::vector<uint32_t>& vrs, bool active);
  virtual absl::Status GetClocks(const std::vector<uint32_t>& vrs, std::vector<bool>* active);
  virtual absl::Status GetIntervals(const std::vector<uint32_t>& vrs, bool fraction,
                                    std::vector<double>* intervals, std::vector<int>* qualifiers);
  virtual absl::Status GetShifts(const std::vector<uint32_t>& vrs, bool fraction,
                                 std::vector<double>* shifts);
  // FMI 3 Scheduled Execution (FMI 3.0.1 section 5.2.2): runs the model partition of the clock
  // `clock_vr` at `t`.
  virtual absl::Status ActivateModelPartition(uint32_t clock_vr, double t);

  // Called by the logger callbacks.
  void Log(int status, const char* category, const char* message);
  // The instance whose FMI call began last on this thread (BeginCall), while it lives, else
  // null: whose message it is when the FMU's logger says nothing else (FMI 1.0's logger has no
  // environment pointer).
  static FmuInstance* Calling() { return calling_; }

 protected:
  // Clears what was logged; call before each FMI function.
  void BeginCall() {
    call_log_.clear();
    calling_ = this;
  }
  // What the FMU logged since BeginCall, "" when nothing: "; <text>" for an error message.
  std::string CallLog() const { return call_log_.empty() ? "" : ": the FMU logged: " + call_log_; }
  // Turns the FMI status code (same numbering in FMI 2 and 3) of `function` into a Status.
  absl::Status Check(int status, const char* function);
  // GetStrings for both versions: `get(texts)` calls fmiXGetString into `texts` (fmi2String and
  // fmi3String are both const char*), which the FMU owns until its next call: copied at once.
  template <typename Get>
  absl::Status ReadStrings(size_t count, const char* function, Get get,
                           std::vector<std::string>* values) {
    values->resize(count);
    if (count == 0) return absl::OkStatus();
    texts_.assign(count, nullptr);
    BeginCall();
    if (absl::Status s = Check(get(texts_.data()), function); !s.ok()) return s;
    for (size_t i = 0; i < count; ++i) (*values)[i] = texts_[i] != nullptr ? texts_[i] : "";
    return absl::OkStatus();
  }
  // A negated alias's value from its value reference's and back (FMI 1.0 only, which has no
  // 64-bit integers: `bits` are never negated).
  static double Negate(const VariableGroup::Batch& b, double v) {
    return b.type == fmi::VarType::kBoolean ? (v != 0.0 ? 0.0 : 1.0) : -v;
  }
  // One fmiXGet<type> call for a batch of one type: `get(buffer)` makes it into a buffer of T
  // (reused between calls); the values go to `values` at the batch's positions (Booleans as
  // 0 / 1) and, for 64-bit integers, exactly to `bits` when it is not null.
  template <typename T, typename GetFn>
  absl::Status GetBatch(const VariableGroup::Batch& b, const char* function, GetFn get,
                        double* values, uint64_t* bits) {
    T* buffer = Scratch<T>(b.n_values);
    BeginCall();
    if (absl::Status s = Check(static_cast<int>(get(buffer)), function); !s.ok()) return s;
    for (size_t i = 0; i < b.slots.size(); ++i) {
      const T value = buffer[b.slots[i]];
      values[b.positions[i]] = b.type == fmi::VarType::kBoolean ? (value != T{} ? 1.0 : 0.0)
                                                                : static_cast<double>(value);
      if (!b.negated.empty() && b.negated[i])
        values[b.positions[i]] = Negate(b, values[b.positions[i]]);
    }
    if constexpr (sizeof(T) == 8 && std::is_integral_v<T>) {
      for (size_t i = 0; i < b.slots.size() && bits != nullptr; ++i)
        bits[b.positions[i]] = static_cast<uint64_t>(buffer[b.slots[i]]);
    }
    return absl::OkStatus();
  }
  // One fmiXSet<type> call for a batch: the values (Booleans: not 0) converted to T into a
  // buffer, then `set(buffer)`. An array covered in part is read first with `get(buffer)`.
  template <typename T, typename SetFn, typename GetFn>
  absl::Status SetBatch(const VariableGroup::Batch& b, const char* function, SetFn set,
                        const char* get_function, GetFn get, const double* values) {
    T* buffer = Scratch<T>(b.n_values);
    if (b.partial) {
      BeginCall();
      if (absl::Status s = Check(static_cast<int>(get(buffer)), get_function); !s.ok()) return s;
    }
    for (size_t i = 0; i < b.slots.size(); ++i) {
      const double v = !b.negated.empty() && b.negated[i] ? Negate(b, values[b.positions[i]])
                                                          : values[b.positions[i]];
      buffer[b.slots[i]] =
          b.type == fmi::VarType::kBoolean ? static_cast<T>(v != 0.0) : static_cast<T>(v);
    }
    BeginCall();
    return Check(static_cast<int>(set(buffer)), function);
  }
  // Whether functions other than freeing may still be called.
  bool usable() const { return !fatal_; }
  bool fatal() const { return fatal_; }

  std::string unit_name_;
  fmi::FmiVersion version_;
  std::shared_ptr<spdlog::logger> logger_;

 private:
  // An FMU's log message on the worker's own log (info, warn or error by its status).
  void LogToTerminal(int status, const char* cat, const std::string& text);

  static thread_local FmuInstance* calling_;
  double time_ = 0.0;
  bool failed_ = false;
  bool fatal_ = false;
  std::string call_log_;
  std::vector<const char*> texts_;  // ReadStrings' buffer

  // GetBatch's and SetBatch's buffers, one per C type.
  template <typename T>
  struct ScratchOf {
    std::unique_ptr<T[]> data;
    size_t size = 0;
  };
  template <typename T>
  T* Scratch(size_t n) {
    ScratchOf<T>& s = std::get<ScratchOf<T>>(scratch_);
    if (s.size < n) {
      s.data.reset(new T[n]());
      s.size = n;
    }
    return s.data.get();
  }
  std::tuple<ScratchOf<double>, ScratchOf<float>, ScratchOf<int8_t>, ScratchOf<uint8_t>,
             ScratchOf<int16_t>, ScratchOf<uint16_t>, ScratchOf<int32_t>, ScratchOf<uint32_t>,
             ScratchOf<int64_t>, ScratchOf<uint64_t>, ScratchOf<bool>,
             ScratchOf<char>>  // char: fmiBoolean (FMI 1.0)
      scratch_;
};

// Loads the binary for the kind chosen (`model_exchange`; FMI 3: `scheduled_execution`; FMI
// 1.0: the one kind the FMU offers) and resolves the functions. The
// instance keeps `unpacked` alive (its resources folder). Errors name the library, the symbol or
// the shared library the binary needs and the machine lacks (from dlerror).
[[nodiscard]] absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi1(
    const fmi::ModelDescription& md, std::shared_ptr<fmi::UnpackedFmu> unpacked,
    const std::string& unit_name);
[[nodiscard]] absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi2(
    const fmi::ModelDescription& md, bool model_exchange,
    std::shared_ptr<fmi::UnpackedFmu> unpacked, const std::string& unit_name);
[[nodiscard]] absl::StatusOr<std::shared_ptr<FmuInstance>> LoadFmi3(
    const fmi::ModelDescription& md, bool model_exchange,
    std::shared_ptr<fmi::UnpackedFmu> unpacked, const std::string& unit_name,
    bool scheduled_execution = false);

}  // namespace cosimo::units::fmu
