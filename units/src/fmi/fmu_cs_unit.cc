// Co-Simulation FMU unit.
//
// Calling sequence (FMI 2.0 section 4.2.4, FMI 3.0 section 4.2): Initialize: fmiXInstantiate,
// set parameters and start values, fmi2SetupExperiment + fmi2EnterInitializationMode (FMI 3:
// fmi3EnterInitializationMode), fmiXExitInitializationMode. Step: set inputs at t[N] (and,
// FMI 2 with canInterpolateInputs, their time derivatives up to order max(1,
// maxOutputDerivativeOrder): FMI 2 declares no maximum order of input derivatives, and an FMU
// that extrapolates its outputs to that order is taken to interpolate its inputs to it too),
// fmiXDoStep(t[N], H, noSetFMUStatePriorToCurrentPoint = true but after an explicit Save),
// read outputs (and output derivatives where maxOutputDerivativeOrder > 0).
// FMI 3 with hasEventMode: the instance uses event mode and may return early. Initialize ends
// with the event iteration and fmi3EnterStepMode. When fmi3DoStep returns early (at
// lastSuccessfulTime < t[N] + H) or asks for event handling, the unit sets the inputs to their
// value there, handles the event (fmi3EnterEventMode, fmi3UpdateDiscreteStates until done,
// fmi3EnterStepMode) and steps on to t[N] + H: the master's step is completed in substeps, the
// event is logged (info, under the unit's logger); outputs are read at t[N] + H only. Save/Restore:
// fmiXGetFMUstate / fmiXSetFMUstate where canGetAndSetFMUstate. Terminate: fmiXTerminate (freeing
// in the instance's destructor).
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "units/src/fmi/fmu_unit_base.h"
#include "units/src/fmi/fmu_units.h"

namespace cosimo::units::fmu {
namespace {

// Names the writer of a serialised snapshot; a new layout gets a new tag.
constexpr char kCsTag[] = "cosimo.FmuCoSimulation.1";

// An FMU state plus the unit's own time and its clocks' schedule; frees the FMU state with the
// instance it came from.
class CsSnapshot : public UnitSnapshot {
 public:
  CsSnapshot(std::shared_ptr<FmuInstance> instance, void* state, double time, bool ended,
             std::vector<double> clocks)
      : instance_(std::move(instance)),
        state_(state),
        time_(time),
        ended_(ended),
        clocks_(std::move(clocks)) {}
  ~CsSnapshot() override { instance_->FreeState(&state_); }
  const FmuInstance* instance() const { return instance_.get(); }
  void* state() const { return state_; }
  double time() const { return time_; }
  bool ended() const { return ended_; }
  const std::vector<double>& clocks() const { return clocks_; }

 private:
  std::shared_ptr<FmuInstance> instance_;
  void* state_;
  double time_;
  bool ended_;
  std::vector<double> clocks_;  // FmuClocks::Save
};

class CoSimulationUnit : public FmuUnitBase {
 public:
  CoSimulationUnit(const v1::Unit& spec, fmi::ModelDescription md,
                   std::shared_ptr<FmuInstance> instance)
      : FmuUnitBase(spec, std::move(md), std::move(instance), /*model_exchange=*/false) {
    description_.capabilities.can_rollback = kind().can_get_and_set_fmu_state;
    input_derivative_order_ = description_.capabilities.max_input_order;
    InputsChanged();
  }

  // The connected Float64 inputs take input derivatives.
  void InputsChanged() override {
    real_input_vrs_.clear();
    real_input_positions_.clear();
    for (size_t k = 0; k < input_indices_.size(); ++k) {
      const fmi::ScalarVariable& v = md_.variables[input_indices_[k]];
      if (v.type == fmi::VarType::kFloat64 && connected_[k]) {
        real_input_vrs_.push_back(v.value_reference);
        real_input_positions_.push_back(static_cast<int>(k));
      }
    }
    derivative_.assign(real_input_vrs_.size(), 0.0);
    derivatives_known_zero_.assign(input_derivative_order_, false);
  }

  absl::Status Initialize(double start_time, double stop_time) override {
    time_ = start_time;
    stop_time_ = stop_time;
    derivatives_known_zero_.assign(input_derivative_order_, false);
    instance_->set_time(start_time);
    if (absl::Status s = instance_->Instantiate(); !s.ok()) return s;
    if (absl::Status s = ApplyParameters(); !s.ok()) return s;
    if (!clocks_.empty() && !kind().has_event_mode) {
      return absl::FailedPreconditionError(
          Prefix() +
          "the FMU has clocks but its Co-Simulation interface has no Event Mode "
          "(hasEventMode), in which alone clocks tick");
    }
    if (absl::Status s =
            instance_->EnterInitializationMode(md_.default_tolerance, start_time, stop_time);
        !s.ok()) {
      return s;
    }
    if (!clocks_.empty()) {
      if (absl::Status s = clocks_.Start(instance_.get(), start_time); !s.ok()) return s;
    }
    if (absl::Status s = instance_->ExitInitializationMode(); !s.ok()) return s;
    if (kind().has_event_mode) {
      if (absl::Status s = HandleEvent(/*enter_event_mode=*/false, start_time,
                                       EndTolerance(start_time, start_time));
          !s.ok()) {
        return s;
      }
    }
    initialized_ = true;
    return absl::OkStatus();
  }

  void Step(const StepRequest& request, StepReply* reply) override {
    reply->estimated = false;
    reply->message.clear();
    reply->end_time = time_;
    if (!initialized_ || instance_->failed()) {
      return Fail(reply,
                  absl::FailedPreconditionError(
                      Prefix() + (initialized_ ? "the FMU failed before" : "not initialised")));
    }
    if (ended_) {
      reply->status = StepStatus::kEnded;
      reply->message = absl::StrCat(Prefix(), "the FMU ended its simulation at t=", time_);
      (void)ReadOutputs(&reply->outputs, &reply->derivatives, &reply->recorded,
                        &reply->recorded_strings, &reply->integers);
      return;
    }
    if (std::abs(request.time - time_) > 1e-9 * std::max(1.0, std::abs(time_))) {
      return Fail(reply, absl::FailedPreconditionError(
                             absl::StrCat(Prefix(), "step requested at t=", request.time,
                                          " but the unit is at t=", time_)));
    }
    instance_->set_time(time_);
    clocks_.ClearTicked();  // the clock columns say which clocks ticked in this step
    const InputPolynomials& poly = request.inputs;
    const Eigen::Index m = static_cast<Eigen::Index>(input_indices_.size());
    if (m > 0) {
      if (poly.coefficients.cols() == 0 || poly.coefficients.rows() != m) {
        return Fail(reply, absl::InvalidArgumentError(absl::StrCat(Prefix(), "step inputs have ",
                                                                   poly.coefficients.rows(),
                                                                   " rows for ", m, " inputs")));
      }
      // u(t[N]) is column 0, contiguous in the column-major coefficient matrix: no copy.
      if (absl::Status s = SetInputValues(poly.coefficients.data()); !s.ok()) {
        return Fail(reply, s);
      }
      // Another unit's output clock ticked in its step that ended here: the Event Mode now.
      if (TriggerInputClocks(poly.coefficients.data(), time_)) {
        if (absl::Status s =
                HandleEvent(/*enter_event_mode=*/true, time_, EndTolerance(time_, time_));
            !s.ok()) {
          return Fail(reply, s);
        }
      }
    }
    if (input_derivative_order_ > 0 && !real_input_vrs_.empty()) {
      if (absl::Status s = SetInputDerivatives(poly); !s.ok()) return Fail(reply, s);
    }
    MarkStringsChanged();  // discrete variables may change anywhere inside a step
    DoStepOutcome outcome;
    if (absl::Status s = DoSteps(request, &outcome); !s.ok()) return Fail(reply, s);
    if (outcome.terminated) {
      ended_ = true;
      time_ = outcome.last_successful_time;
      instance_->set_time(time_);
      reply->status = StepStatus::kEnded;
      reply->message = absl::StrCat(Prefix(), "the FMU ended its simulation at t=", time_);
      instance_->Log(1, "cosimo", reply->message.c_str());
    } else if (outcome.discarded) {
      reply->status = StepStatus::kRejected;
      reply->message =
          absl::StrCat(Prefix(), "the FMU discarded the step from t=", time_, " (h=", request.step,
                       "), last successful time ", outcome.last_successful_time);
      time_ = outcome.last_successful_time;
    } else {
      reply->status = StepStatus::kOk;
      time_ = request.time + request.step;
    }
    reply->end_time = time_;
    instance_->set_time(time_);
    if (absl::Status s = ReadOutputs(&reply->outputs, &reply->derivatives, &reply->recorded,
                                     &reply->recorded_strings, &reply->integers);
        !s.ok()) {
      return Fail(reply, s);
    }
  }

  void SetEarlierStateKept() override { earlier_state_kept_ = true; }

  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override {
    if (!kind().can_get_and_set_fmu_state) {
      return absl::UnimplementedError(Prefix() +
                                      (md_.version == fmi::FmiVersion::kFmi1
                                           ? "FMI 1.0 has no FMU state"
                                           : "the FMU does not offer canGetAndSetFMUstate"));
    }
    void* state = nullptr;
    if (absl::Status s = instance_->GetState(&state); !s.ok()) return s;
    return std::unique_ptr<UnitSnapshot>(
        std::make_unique<CsSnapshot>(instance_, state, time_, ended_, clocks_.Save()));
  }

  absl::Status Restore(const UnitSnapshot& snapshot) override {
    const auto* snap = dynamic_cast<const CsSnapshot*>(&snapshot);
    if (snap == nullptr || snap->instance() != instance_.get()) {
      return absl::InvalidArgumentError(Prefix() + "the snapshot is not one of this unit");
    }
    // The FMU state carries the input derivatives it was saved with.
    derivatives_known_zero_.assign(input_derivative_order_, false);
    if (absl::Status s = instance_->SetState(snap->state()); !s.ok()) return s;
    MarkStringsChanged();
    time_ = snap->time();
    ended_ = snap->ended();
    clocks_.Restore(snap->clocks());
    instance_->set_time(time_);
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Serialize(const UnitSnapshot& snapshot) override {
    const auto* snap = dynamic_cast<const CsSnapshot*>(&snapshot);
    if (snap == nullptr || snap->instance() != instance_.get()) {
      return absl::InvalidArgumentError(Prefix() + "the snapshot is not one of this unit");
    }
    StateWriter out;
    out.Tag(kCsTag);
    out.Double(snap->time());
    out.Bool(snap->ended());
    if (absl::Status s = WriteFmuState(snap->state(), &out); !s.ok()) return s;
    if (!clocks_.empty()) out.Doubles(snap->clocks());  // none written for an FMU without
    return out.Take();
  }

  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(std::string_view bytes) override {
    if (absl::Status s = CheckSerializable(); !s.ok()) return s;
    StateReader in(bytes);
    in.ExpectTag(kCsTag);
    const double time = in.Double();
    const bool ended = in.Bool();
    absl::StatusOr<void*> state = ReadFmuState(&in);
    if (!state.ok()) return state.status();
    std::vector<double> clocks = clocks_.empty() ? std::vector<double>() : in.Doubles();
    auto snap = std::make_unique<CsSnapshot>(instance_, *state, time, ended, std::move(clocks));
    if (absl::Status s = in.Finish(Prefix() + "checkpoint"); !s.ok()) return s;
    return std::unique_ptr<UnitSnapshot>(std::move(snap));
  }

  absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override {
    if (!kind().provides_directional_derivative) {
      return absl::UnimplementedError(Prefix() +
                                      "the Co-Simulation FMU provides no directional derivatives");
    }
    if (absl::Status s = SetInputs(inputs); !s.ok()) return s;
    Linearization lin;
    if (absl::Status s = ReadStates(&lin.x, &lin.xdot); !s.ok()) return s;
    std::vector<double> recorded;
    if (absl::Status s = ReadOutputs(&lin.y, nullptr, &recorded); !s.ok()) return s;
    if (absl::Status s = LinearizeDirectional(&lin); !s.ok()) return s;
    return lin;
  }

  absl::Status Terminate() override {
    if (!initialized_) return absl::OkStatus();
    return instance_->Terminate();
  }

 private:
  // d^k u/dt^k(t[N]) of the Real inputs is k! times the coefficient of s^k (zero beyond the
  // polynomial's degree: a zero-order hold has none; a cubic Hermite input is cut after the
  // FMU's order). A zero derivative is set only when the FMU may hold a non-zero one (the first
  // step, after a non-zero one or a restored FMU state, or a failed call): set values persist,
  // so a ZOH run calls fmi2SetRealInputDerivatives once per order.
  absl::Status SetInputDerivatives(const InputPolynomials& poly) {
    double factorial = 1.0;
    for (int k = 1; k <= input_derivative_order_; ++k) {
      factorial *= k;
      bool zero = true;
      for (size_t i = 0; i < derivative_.size(); ++i) {
        derivative_[i] = poly.coefficients.cols() > k
                             ? factorial * poly.coefficients(real_input_positions_[i], k)
                             : 0.0;
        zero = zero && derivative_[i] == 0.0;
      }
      if (zero && derivatives_known_zero_[k - 1]) continue;
      derivatives_known_zero_[k - 1] = false;
      if (absl::Status s = instance_->SetInputDerivatives(real_input_vrs_, k, derivative_.data());
          !s.ok()) {
        return s;
      }
      derivatives_known_zero_[k - 1] = zero;
    }
    return absl::OkStatus();
  }

  // fmiXDoStep over [request.time, request.time + request.step], in substeps after early
  // returns and events (FMI 3 event mode). `outcome` is that of the last fmiXDoStep; an FMU
  // ending its simulation in an event counts as terminated there.
  absl::Status DoSteps(const StepRequest& request, DoStepOutcome* outcome) {
    constexpr int kMaxSubsteps = 100000;
    // FMI 2.0.4 section 4.2.2 (fmi2DoStep): "noSetFMUStatePriorToCurrentPoint = fmi2True if
    // fmi2SetFMUstate will no longer be called for time instants prior to
    // currentCommunicationPoint in this simulation run [the slave can use this flag to flush a
    // result buffer]"; FMI 3.0.1 section 4.2.1 (fmi3DoStep) likewise. Rollback restores the
    // snapshot taken at the start of the step being tried, never an earlier one, and a
    // checkpoint is restored into a new instance: true. False once the protocol's explicit Save
    // kept a snapshot that may be restored after later steps (SetEarlierStateKept).
    // A tentative step's substeps after an early return start after request.time, which the
    // master may restore: false for them.
    const bool final_step = request.mode == StepMode::kFinal && !earlier_state_kept_;
    const bool first_no_set_prior = !earlier_state_kept_;
    const double t_end = request.time + request.step;
    double t = time_;
    for (int substeps = 1;; ++substeps) {
      const bool no_set_prior = substeps == 1 ? first_no_set_prior : final_step;
      // A clock tick inside the step ends a substep there (a tick about at t_end is at t_end).
      double stop = t_end;
      if (const double tick = clocks_.NextTick(); tick < t_end - EndTolerance(t, t_end)) {
        stop = std::max(tick, t);
      }
      if (absl::Status s = instance_->DoStep(t, stop - t, no_set_prior, outcome); !s.ok()) {
        return s;
      }
      if (outcome->terminated || outcome->discarded) return absl::OkStatus();
      // eventHandlingNeeded means something only to an instance in event mode (FMI 3.0.1
      // section 4.2.1: without eventModeUsed the FMU handles its events itself).
      if (!kind().has_event_mode) outcome->event_needed = false;
      absl::StatusOr<double> reached = Reached(t, stop, *outcome);
      if (!reached.ok()) return reached.status();
      const double tick_tolerance = EndTolerance(t, stop);
      const bool tick = clocks_.NextTick() <= *reached + tick_tolerance;
      if (!outcome->early_return && !outcome->event_needed && !tick && stop >= t_end) {
        return absl::OkStatus();
      }
      if (substeps >= kMaxSubsteps) {
        return absl::InternalError(absl::StrCat(Prefix(), "fmi3DoStep returned early ", substeps,
                                                " times in the step from t=", request.time,
                                                " (h=", request.step, ")"));
      }
      t = *reached;
      instance_->set_time(t);
      if (t < t_end && !input_indices_.empty()) {
        // The inputs at the event, from the step's polynomials (held, for a zero-order hold).
        inputs_at_.resize(static_cast<Eigen::Index>(input_indices_.size()));
        request.inputs.Value(t - request.time, inputs_at_);
        if (absl::Status s = SetInputs(inputs_at_); !s.ok()) return s;
      }
      if (outcome->event_needed || tick) {
        if (absl::Status s = HandleEvent(/*enter_event_mode=*/true, t, tick_tolerance); !s.ok()) {
          return s;
        }
        if (ended_) {
          outcome->terminated = true;
          outcome->last_successful_time = t;
          return absl::OkStatus();
        }
      }
      if (t >= t_end) return absl::OkStatus();
    }
  }

  // Where fmi3DoStep(t, stop - t) ended: `stop`, or lastSuccessfulTime after an early return.
  // FMI 3.0.1 section 4.2.1: lastSuccessfulTime is the FMU's own time. An FMU computes the end
  // of a step in its own arithmetic (t_start + n * h, say), which differs from the caller's
  // t + h in the last bits: an early return that close to `stop` is the whole step (its event,
  // if any, is handled there).
  absl::StatusOr<double> Reached(double t, double stop, const DoStepOutcome& outcome) const {
    if (!outcome.early_return) return stop;
    const double reached = outcome.last_successful_time;
    if (std::abs(reached - stop) <= EndTolerance(t, stop)) return stop;
    if (!(reached >= t && reached <= stop)) {
      return absl::InternalError(absl::StrCat(Prefix(), "fmi3DoStep(t=", t, ", h=", stop - t,
                                              ") returned early at lastSuccessfulTime=", reached,
                                              ", outside the step"));
    }
    return reached;
  }

  // How far from t_end a lastSuccessfulTime still is t_end: a few ulps of it, or 1e-9 of the
  // step (an FMU's clock counted as t_start + n * h drifts from the caller's sums by more than
  // an ulp over many steps).
  static double EndTolerance(double t, double t_end) {
    return std::max(16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t_end)),
                    1e-9 * (t_end - t));
  }

  // FMI 3 event mode: (fmi3EnterEventMode,) the event iteration with the clocks that tick at t
  // (within `tick_tolerance`: FmuUnitBase::EventIteration), fmi3EnterStepMode. An FMU that ends its
  // simulation here sets ended_ and stays in Event Mode.
  absl::Status HandleEvent(bool enter_event_mode, double t, double tick_tolerance) {
    if (enter_event_mode) {
      if (absl::Status s = instance_->EnterEventMode(); !s.ok()) return s;
      instance_->Log(0, "cosimo", absl::StrCat(Prefix(), "event at t=", t).c_str());
    }
    EventUpdate update;
    if (absl::Status s = EventIteration(t, tick_tolerance, &update); !s.ok()) return s;
    if (update.terminate_simulation) {
      ended_ = true;
      return absl::OkStatus();
    }
    return instance_->EnterStepMode();
  }

  void Fail(StepReply* reply, const absl::Status& status) {
    reply->status = StepStatus::kFailed;
    reply->message = std::string(status.message());
    reply->end_time = time_;
  }

  bool ended_ = false;
  bool earlier_state_kept_ = false;  // SetEarlierStateKept: noSetFMUStatePriorToCurrentPoint false
  Eigen::VectorXd inputs_at_;        // DoSteps' buffer
  std::vector<uint32_t> real_input_vrs_;
  std::vector<int> real_input_positions_;
  int input_derivative_order_ = 0;            // highest order set (0: none)
  std::vector<double> derivative_;            // per Real input, sized at load
  std::vector<bool> derivatives_known_zero_;  // per order: the FMU holds zero derivatives
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> CreateCoSimulationUnit(
    const v1::Unit& spec, fmi::ModelDescription md, std::shared_ptr<FmuInstance> instance) {
  return std::unique_ptr<Unit>(
      std::make_unique<CoSimulationUnit>(spec, std::move(md), std::move(instance)));
}

}  // namespace cosimo::units::fmu
