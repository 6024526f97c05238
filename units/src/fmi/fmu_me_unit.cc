// Model Exchange FMU unit: the worker's solver (units/src/solvers) integrates the FMU's
// continuous states through a Model adapter, with the FMI event handling around it.
//
// Calling sequence (FMI 2.0 section 3.2.3, FMI 3.0 section 3.2):
//   Initialize: fmiXInstantiate, parameters and start values, (fmi2SetupExperiment)
//     fmiXEnterInitializationMode, fmiXExitInitializationMode, event iteration
//     (fmi2NewDiscreteStates / fmi3UpdateDiscreteStates until no new discrete states are
//     needed), fmiXEnterContinuousTimeMode, read the states and event indicators.
//   Step [t0, t0 + H], in chunks of solver.step (or H):
//     integrate the chunk (fmiXSetTime, fmiXSetContinuousStates, set inputs,
//     fmiXGetDerivatives inside the solver); the chunk ends early at the next time event;
//     read the event indicators at its end; a sign change is a state event, located by
//     bisection (re-integrating from the saved start of the chunk) to within the event
//     tolerance; at the accepted point fmiXCompletedIntegratorStep (step events); on any
//     event: fmiXEnterEventMode, event iteration, fmiXEnterContinuousTimeMode, re-read the
//     states when they changed (re-initialisation), reset the solver's history.
//   FMI 3 clocks (fmu_clocks.h): their ticks are time events; in the event, the input clocks
//     that tick are activated (fmi3SetClock) and the inputs they clock set before the event
//     iteration, the intervals asked after it. A connected triggered input clock whose input is
//     1 at t0 (another unit's output clock ticked) ticks at t0, in the Event Mode before the
//     chunks where discrete inputs that changed are set (SetDiscreteInputs).
//   Save/Restore: the unit's states, time, next time event, clocks and solver history, plus
//     fmiXGetFMUstate / fmiXSetFMUstate when offered.
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "units/src/fmi/fmu_me_model.h"
#include "units/src/fmi/fmu_unit_base.h"
#include "units/src/fmi/fmu_units.h"
#include "units/src/models/model.h"
#include "units/src/solvers/solver.h"
#include "units/src/solvers/state_events.h"

namespace cosimo::units::fmu {
namespace {

constexpr int kMaxEventsPerStep = 100000;
constexpr double kNever = std::numeric_limits<double>::infinity();

// Names the writer of a serialised snapshot; a new layout gets a new tag.
constexpr char kMeTag[] = "cosimo.FmuModelExchange.1";

class ModelExchangeUnit : public FmuUnitBase, public ModelExchangeEquations {
 public:
  ModelExchangeUnit(const v1::Unit& spec, fmi::ModelDescription md,
                    std::shared_ptr<FmuInstance> instance)
      : FmuUnitBase(spec, std::move(md), std::move(instance), /*model_exchange=*/true),
        model_(instance_.get(), &continuous_inputs_, &outputs_, description_,
               description_.capabilities.output_reactive) {
    std::vector<VariableInfo> states;
    for (int index : state_indices_) {
      const fmi::ScalarVariable& v = md_.variables[index];
      states.push_back(
          VariableInfo{v.name, Causality::kState, v.unit, v.description, ValueType::kReal});
    }
    model_.set_states(std::move(states));
    model_.set_unit_name(spec_.name());
    model_.set_initial_state(
        Eigen::VectorXd::Zero(static_cast<Eigen::Index>(state_indices_.size())));
    // Discrete inputs change the FMU in events too (SetDiscreteInputs).
    bool discrete = md_.number_of_event_indicators > 0;
    for (const fmi::ScalarVariable& v : md_.variables) {
      discrete = discrete || (v.variability == fmi::Variability::kDiscrete &&
                              v.causality != fmi::FmiCausality::kParameter);
    }
    InputsChanged();
    held_discrete_ = start_inputs_;
    has_events_ = md_.number_of_event_indicators > 0;
    description_.capabilities.can_rollback = kind().can_get_and_set_fmu_state || !discrete;
    chunk_ = spec_.solver().step() > 0.0 ? spec_.solver().step() : 0.0;
  }

  absl::Status CreateSolverForUnit() {
    auto solver = CreateSolver(spec_.solver(), model_, spec_.name());
    if (!solver.ok()) return solver.status();
    solver_ = std::move(*solver);
    return absl::OkStatus();
  }

  absl::Status Initialize(double start_time, double stop_time) override {
    time_ = start_time;
    stop_time_ = stop_time;
    instance_->set_time(start_time);
    if (absl::Status s = instance_->Instantiate(); !s.ok()) return s;
    if (absl::Status s = ApplyParameters(); !s.ok()) return s;
    std::optional<double> tolerance = md_.default_tolerance;
    if (spec_.solver().tolerance() > 0.0) tolerance = spec_.solver().tolerance();
    if (absl::Status s = instance_->EnterInitializationMode(tolerance, start_time, stop_time);
        !s.ok()) {
      return s;
    }
    if (!clocks_.empty()) COSIMO_RETURN_IF_ERROR(clocks_.Start(instance_.get(), start_time));
    if (absl::Status s = instance_->ExitInitializationMode(); !s.ok()) return s;
    x_.setZero(static_cast<Eigen::Index>(state_indices_.size()));
    z_.assign(static_cast<size_t>(md_.number_of_event_indicators), 0.0);
    if (absl::Status s = HandleEvent(/*enter_event_mode=*/false); !s.ok()) return s;
    model_.set_initial_state(x_);
    u_.setZero(static_cast<Eigen::Index>(input_indices_.size()));
    initialized_ = true;
    return absl::OkStatus();
  }

  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override {
    if (!initialized_)
      return absl::FailedPreconditionError(Prefix() + "Evaluate before Initialize");
    if (static_cast<size_t>(inputs.size()) != all_inputs_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(Prefix(), inputs.size(), " input values for ",
                                                     all_inputs_.size(), " inputs"));
    }
    if (absl::Status s = CheckInputValues(inputs.data()); !s.ok()) return s;
    if (!ended_) {
      if (absl::Status s = SetDiscreteInputs(inputs.data()); !s.ok()) return s;
    }
    u_ = inputs;
    if (!ended_) {
      if (absl::Status s = model_.SetPoint(time_, x_, u_); !s.ok()) return s;
    }
    return ReadOutputs(&reply->outputs, &reply->derivatives, &reply->recorded,
                       &reply->recorded_strings, &reply->integers);
  }

  void SetEarlierStateKept() override { earlier_state_kept_ = true; }
  void SetNonFiniteAllowed(bool allowed) override { model_.set_check_finite(!allowed); }

  void Step(const StepRequest& request, StepReply* reply) override {
    reply->estimated = false;
    reply->message.clear();
    reply->end_time = time_;
    reply->derivatives.resize(0);
    // fmiXCompletedIntegratorStep's noSetFMUStatePriorToCurrentPoint (FMI 2.0.4 section 3.2.2,
    // FMI 3.0.1 section 3.2.1: the FMU state is not set back before the integrator's current
    // point): in a tentative step the master may restore the start of the communication step,
    // which is before the integrator's points inside it; a final step is never undone.
    no_set_prior_ = request.mode == StepMode::kFinal && !earlier_state_kept_;
    if (!initialized_ || instance_->failed()) {
      return Fail(reply,
                  absl::FailedPreconditionError(
                      Prefix() + (initialized_ ? "the FMU failed before" : "not initialised")));
    }
    if (!ended_ && std::abs(request.time - time_) > 1e-9 * std::max(1.0, std::abs(time_))) {
      return Fail(reply, absl::FailedPreconditionError(
                             absl::StrCat(Prefix(), "step requested at t=", request.time,
                                          " but the unit is at t=", time_)));
    }
    const Eigen::Index m = static_cast<Eigen::Index>(input_indices_.size());
    InputPolynomials poly = request.inputs;
    if (poly.coefficients.cols() == 0 || m == 0) poly.coefficients = Eigen::MatrixXd::Zero(m, 1);
    if (poly.coefficients.rows() != m) {
      return Fail(reply, absl::InvalidArgumentError(absl::StrCat(Prefix(), "step inputs have ",
                                                                 poly.coefficients.rows(),
                                                                 " rows for ", m, " inputs")));
    }
    const double t0 = time_;
    const double t_end = t0 + request.step;
    clocks_.ClearTicked();  // the clock columns say which clocks ticked in this step
    if (!ended_) {
      // u(t0) is column 0, contiguous in the column-major coefficient matrix.
      const double* u0 = poly.coefficients.data();
      if (absl::Status s = CheckInputValues(u0); !s.ok()) return Fail(reply, s);
      // Another unit's output clock ticked in its step that ended here: an event now.
      const bool tick = TriggerInputClocks(u0, t0);
      if (absl::Status s = SetDiscreteInputs(u0, tick); !s.ok()) return Fail(reply, s);
    }
    if (!ended_) {
      StepStatus status = StepStatus::kOk;
      std::string message;
      if (absl::Status s = Advance(poly, t0, t_end, &status, &message); !s.ok()) {
        return Fail(reply, s);
      }
      if (status != StepStatus::kOk) {
        reply->status = status;
        reply->message = Prefix() + message;
        reply->end_time = time_;
        return;
      }
    }
    poly.Value(time_ - t0, u_);
    if (!ended_) {
      if (absl::Status s = model_.SetPoint(time_, x_, u_); !s.ok()) return Fail(reply, s);
    }
    reply->status = ended_ ? StepStatus::kEnded : StepStatus::kOk;
    if (ended_)
      reply->message = absl::StrCat(Prefix(), "the FMU ended its simulation at t=", time_);
    reply->end_time = time_;
    if (absl::Status s = ReadOutputs(&reply->outputs, nullptr, &reply->recorded,
                                     &reply->recorded_strings, &reply->integers);
        !s.ok()) {
      return Fail(reply, s);
    }
  }

  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override {
    if (!description_.capabilities.can_rollback) {
      return absl::UnimplementedError(
          Prefix() + "the FMU has discrete states and does not offer canGetAndSetFMUstate");
    }
    auto snap = std::make_unique<MeSnapshot>();
    if (kind().can_get_and_set_fmu_state) {
      if (absl::Status s = instance_->GetState(&snap->fmu_state); !s.ok()) return s;
      snap->instance = instance_;
    }
    snap->owner = this;
    snap->time = time_;
    snap->x = x_;
    snap->z = z_;
    snap->next_event = next_event_;
    snap->ended = ended_;
    snap->clocks = clocks_.Save();
    snap->held_discrete = held_discrete_;
    snap->history = solver_->SaveHistory();
    return std::unique_ptr<UnitSnapshot>(std::move(snap));
  }

  absl::Status Restore(const UnitSnapshot& snapshot) override {
    const auto* snap = dynamic_cast<const MeSnapshot*>(&snapshot);
    if (snap == nullptr || snap->owner != this) {
      return absl::InvalidArgumentError(Prefix() + "the snapshot is not one of this unit");
    }
    if (snap->fmu_state != nullptr) {
      if (absl::Status s = instance_->SetState(snap->fmu_state); !s.ok()) return s;
    }
    MarkStringsChanged();
    time_ = snap->time;
    x_ = snap->x;
    z_ = snap->z;
    next_event_ = snap->next_event;
    ended_ = snap->ended;
    clocks_.Restore(snap->clocks);
    // Without an FMU state the FMU keeps the discrete inputs it was last given: set them again.
    held_discrete_ =
        snap->fmu_state != nullptr && snap->held_discrete.size() == held_discrete_.size()
            ? snap->held_discrete
            : Eigen::VectorXd::Constant(held_discrete_.size(),
                                        std::numeric_limits<double>::quiet_NaN());
    solver_->RestoreHistory(snap->history);
    instance_->set_time(time_);
    if (!ended_) return model_.SetPoint(time_, x_, u_);
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Serialize(const UnitSnapshot& snapshot) override {
    const auto* snap = dynamic_cast<const MeSnapshot*>(&snapshot);
    if (snap == nullptr || snap->owner != this) {
      return absl::InvalidArgumentError(Prefix() + "the snapshot is not one of this unit");
    }
    StateWriter out;
    out.Tag(kMeTag);
    out.Double(snap->time);
    out.Vector(snap->x);
    out.Doubles(snap->z);
    out.Bool(snap->next_event.has_value());
    out.Double(snap->next_event.value_or(0.0));
    out.Bool(snap->ended);
    solver_->WriteHistory(snap->history, &out);
    if (absl::Status s = WriteFmuState(snap->fmu_state, &out); !s.ok()) return s;
    if (!clocks_.empty()) out.Doubles(snap->clocks);  // none written for an FMU without
    return out.Take();
  }

  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(std::string_view bytes) override {
    if (absl::Status s = CheckSerializable(); !s.ok()) return s;
    StateReader in(bytes);
    in.ExpectTag(kMeTag);
    auto snap = std::make_unique<MeSnapshot>();
    snap->owner = this;
    snap->time = in.Double();
    snap->x = in.Vector();
    snap->z = in.Doubles();
    const bool has_next_event = in.Bool();
    const double next_event = in.Double();
    if (has_next_event) snap->next_event = next_event;
    snap->ended = in.Bool();
    snap->history = solver_->ReadHistory(&in);
    absl::StatusOr<void*> state = ReadFmuState(&in);
    if (!state.ok()) return state.status();
    snap->fmu_state = *state;
    snap->instance = instance_;
    if (!clocks_.empty()) snap->clocks = in.Doubles();
    if (absl::Status s = in.Finish(Prefix() + "checkpoint"); !s.ok()) return s;
    if (snap->x.size() != x_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(), "the checkpoint has ", snap->x.size(), " states, the unit ", x_.size()));
    }
    return std::unique_ptr<UnitSnapshot>(std::move(snap));
  }

  absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override {
    if (ended_) return absl::FailedPreconditionError(Prefix() + "the FMU ended its simulation");
    Linearization lin;
    lin.x = x_;
    lin.xdot.resize(x_.size());
    lin.y.resize(static_cast<Eigen::Index>(output_indices_.size()));
    if (absl::Status s = CheckInputSize(inputs); !s.ok()) return s;
    if (absl::Status s = Evaluate(time_, x_, inputs, &lin.xdot, &lin.y); !s.ok()) return s;
    if (absl::Status s = JacobiansAt(time_, x_, inputs, &lin); !s.ok()) return s;
    return lin;
  }

  // ModelExchangeEquations.
  const Model& equations() const override { return model_; }
  bool has_events() const override { return has_events_; }
  bool directional_derivatives() const override { return kind().provides_directional_derivative; }
  absl::Status TakeError() override { return model_.TakeError(); }

  absl::Status AcceptPoint(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u) override {
    bool step_event = false, terminate = false;
    COSIMO_RETURN_IF_ERROR(model_.SetPoint(t, x, u));
    if (kind().needs_completed_integrator_step) {
      COSIMO_RETURN_IF_ERROR(instance_->CompletedIntegratorStep(false, &step_event, &terminate));
    }
    const double te = std::min(next_event_.value_or(kNever), clocks_.NextTick());
    if (!step_event && !terminate && te > t) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        Prefix(), "sensitivities: the FMU has ", terminate ? "ended its simulation" : "an event",
        " at t=", step_event || terminate ? t : te,
        ", which a unit with sensitivities does not handle (they jump at events)"));
  }

  absl::Status JacobiansAt(double t, const Eigen::VectorXd& x_at, const Eigen::VectorXd& inputs,
                           Linearization* lin) override {
    if (absl::Status s = CheckInputSize(inputs); !s.ok()) return s;
    if (kind().provides_directional_derivative) {
      if (absl::Status s = model_.SetPoint(t, x_at, inputs); !s.ok()) return s;
      if (absl::Status s = LinearizeDirectional(lin); !s.ok()) return s;
    } else {
      const Eigen::Index p = static_cast<Eigen::Index>(output_indices_.size());
      COSIMO_RETURN_IF_ERROR(CentralDifferences(
          [&](const Eigen::VectorXd& x, const Eigen::VectorXd& u, Eigen::VectorXd* dx,
              Eigen::VectorXd* y) { return Evaluate(t, x, u, dx, y); },
          x_at, inputs, p, lin));
    }
    if (ended_) return absl::OkStatus();
    return model_.SetPoint(time_, x_, u_);
  }

  absl::Status Terminate() override {
    if (!initialized_) return absl::OkStatus();
    return instance_->Terminate();
  }

 private:
  void Fail(StepReply* reply, const absl::Status& status) {
    reply->status = StepStatus::kFailed;
    reply->message = std::string(status.message());
    reply->end_time = time_;
  }

  absl::Status CheckInputSize(const Eigen::VectorXd& inputs) const {
    if (inputs.size() == static_cast<Eigen::Index>(input_indices_.size())) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(Prefix(), inputs.size(), " input values for ",
                                                   input_indices_.size(), " inputs"));
  }

  // dx/dt and y at (t, x, u).
  absl::Status Evaluate(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                        Eigen::VectorXd* dx, Eigen::VectorXd* y) {
    if (absl::Status s = model_.SetPoint(t, x, u); !s.ok()) return s;
    dx->resize(x.size());
    if (x.size() > 0) {
      if (absl::Status s = instance_->GetDerivatives(dx->data(), static_cast<size_t>(x.size()));
          !s.ok()) {
        return s;
      }
    }
    y->resize(static_cast<Eigen::Index>(outputs_.size()));
    if (outputs_.size() == 0) return absl::OkStatus();
    return instance_->Get(outputs_, y->data());
  }

  absl::Status Indicators(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                          std::vector<double>* z) {
    z->resize(z_.size());
    if (z_.empty()) return absl::OkStatus();
    if (absl::Status s = model_.SetPoint(t, x, u); !s.ok()) return s;
    return instance_->GetEventIndicators(z->data(), z->size());
  }

  // Integrates x from t over h with the inputs `poly` given on [t, ...].
  absl::Status Integrate(const InputPolynomials& poly, double t, double h, Eigen::VectorXd* x,
                         StepStatus* status, std::string* message) {
    const SolverOutcome outcome = solver_->Integrate(model_, poly, t, h, *x);
    if (absl::Status s = model_.TakeError(); !s.ok()) return s;
    // A non-finite derivative the solver did not recover from fails the step (issue 46, 6).
    absl::Status non_finite = model_.TakeNonFinite();
    if (!non_finite.ok() && (outcome.status != StepStatus::kOk || !x->allFinite())) {
      return non_finite;
    }
    *status = outcome.status;
    *message = outcome.message;
    return absl::OkStatus();
  }

  // Event Mode at time_ (entered if `enter_event_mode`): EventIteration, then Continuous-Time
  // Mode with the states and event indicators re-read, the solver's history reset.
  absl::Status HandleEvent(bool enter_event_mode) {
    if (enter_event_mode) {
      if (absl::Status s = instance_->EnterEventMode(); !s.ok()) return s;
    }
    MarkStringsChanged();  // discrete variables change only here (and on a restore)
    const double eps = 1e-12 * std::max(1.0, std::abs(time_));  // Advance's
    EventUpdate update;
    if (absl::Status s = EventIteration(time_, eps, &update); !s.ok()) return s;
    if (update.terminate_simulation) {
      ended_ = true;
      instance_->Log(1, "cosimo",
                     absl::StrCat(Prefix(), "the FMU ended its simulation at t=", time_).c_str());
      return absl::OkStatus();
    }
    next_event_.reset();
    if (update.next_event_time_defined) next_event_ = update.next_event_time;
    if (absl::Status s = instance_->EnterContinuousTimeMode(); !s.ok()) return s;
    if (x_.size() > 0) {
      if (absl::Status s =
              instance_->GetContinuousStates(x_.data(), static_cast<size_t>(x_.size()));
          !s.ok()) {
        return s;
      }
    }
    if (!z_.empty()) {
      if (absl::Status s = instance_->GetEventIndicators(z_.data(), z_.size()); !s.ok()) return s;
    }
    if (solver_ != nullptr) solver_->Reset();
    return absl::OkStatus();
  }

  // The state event in the chunk [t, *t_b] whose indicators crossed (LocateStateEvent,
  // solvers/state_events.h), re-integrating from the chunk's start (x_a, the solver's history).
  // On return *t_b is the bracket's end after the crossing, x_ the state there and *z_b its
  // indicators (or `status` says why the solver stopped).
  absl::Status LocateEvent(const InputPolynomials& poly, const InputPolynomials& shifted, double t0,
                           double t, const Eigen::VectorXd& x_a, const std::vector<double>& z_a,
                           const std::shared_ptr<const void>& history, double* t_b,
                           std::vector<double>* z_b, StepStatus* status, std::string* message) {
    Eigen::VectorXd u(u_.size());
    const IntegrateTo integrate_to = [&](double t_m, Eigen::VectorXd* x_m, std::vector<double>* z_m,
                                         bool* stopped) {
      solver_->RestoreHistory(history);
      *x_m = x_a;
      if (absl::Status s = Integrate(shifted, t, t_m - t, x_m, status, message); !s.ok()) return s;
      *stopped = *status != StepStatus::kOk;
      if (*stopped) return absl::OkStatus();
      poly.Value(t_m - t0, u);
      return Indicators(t_m, *x_m, u, z_m);
    };
    bool stopped = false;
    Eigen::VectorXd x_hi = x_;
    COSIMO_RETURN_IF_ERROR(LocateStateEvent(integrate_to, z_a, t, t_b, &x_hi, z_b, &stopped));
    if (!stopped) x_ = x_hi;
    return absl::OkStatus();
  }

  // Integrates from t0 to t_end with event handling; on return time_ is t_end unless the FMU
  // ended (or the solver refused: then `status` says why).
  absl::Status Advance(const InputPolynomials& poly, double t0, double t_end, StepStatus* status,
                       std::string* message) {
    const double eps = 1e-12 * std::max(1.0, std::abs(t_end));
    const double chunk = chunk_ > 0.0 ? chunk_ : t_end - t0;
    Eigen::VectorXd u(u_.size());
    std::vector<double> z_b;
    double t = t0;
    int events = 0;
    while (t < t_end - eps && !ended_) {
      double t_b = std::min(t + chunk, t_end);
      if (t_end - t_b < eps) t_b = t_end;
      bool time_event = false;
      if (const double te = std::min(next_event_.value_or(kNever), clocks_.NextTick());
          te <= t_b + eps) {
        t_b = std::max(te, t);
        time_event = true;
      }
      bool state_event = false;
      if (t_b - t > eps) {
        const InputPolynomials shifted = Shift(poly, t - t0);
        const Eigen::VectorXd x_a = x_;
        const std::vector<double> z_a = z_;
        const std::shared_ptr<const void> history = solver_->SaveHistory();
        if (absl::Status s = Integrate(shifted, t, t_b - t, &x_, status, message); !s.ok())
          return s;
        if (*status != StepStatus::kOk) return absl::OkStatus();
        poly.Value(t_b - t0, u);
        if (absl::Status s = Indicators(t_b, x_, u, &z_b); !s.ok()) return s;
        if (Crossed(z_a, z_b)) {
          const double chunk_end = t_b;
          if (absl::Status s =
                  LocateEvent(poly, shifted, t0, t, x_a, z_a, history, &t_b, &z_b, status, message);
              !s.ok()) {
            return s;
          }
          if (*status != StepStatus::kOk) return absl::OkStatus();
          state_event = true;
          time_event = time_event && t_b >= chunk_end - eps;
        }
      }
      t = t_b;
      time_ = t;
      poly.Value(t - t0, u);
      u_ = u;
      if (absl::Status s = model_.SetPoint(t, x_, u); !s.ok()) return s;
      bool step_event = false, terminate = false;
      if (kind().needs_completed_integrator_step) {
        if (absl::Status s =
                instance_->CompletedIntegratorStep(no_set_prior_, &step_event, &terminate);
            !s.ok()) {
          return s;
        }
        if (terminate) {
          ended_ = true;
          instance_->Log(1, "cosimo",
                         absl::StrCat(Prefix(), "the FMU ended its simulation at t=", t).c_str());
          break;
        }
      }
      if (state_event || time_event || step_event) {
        if (++events > kMaxEventsPerStep) {
          return absl::InternalError(absl::StrCat(Prefix(), "more than ", kMaxEventsPerStep,
                                                  " events in the step from t=", t0,
                                                  " (chattering?)"));
        }
        if (absl::Status s = HandleEvent(/*enter_event_mode=*/true); !s.ok()) return s;
      } else {
        z_ = z_b;
      }
    }
    if (!ended_) time_ = t_end;
    instance_->set_time(time_);
    return absl::OkStatus();
  }

  // The inputs of variability discrete (VariableInfo::discrete: every one but the continuous
  // Float64 and Float32 ones) may be set only in Initialization Mode and Event Mode (FMI 2.0.4
  // section 3.2.3, FMI 3.0.1 section 3.2.1): the solver sets continuous_inputs_ at every point
  // it evaluates; a discrete input is set at a communication point, in an event, when its value
  // changed.
  void InputsChanged() override {
    std::vector<bool> continuous(input_indices_.size()), discrete(input_indices_.size());
    for (size_t k = 0; k < input_indices_.size(); ++k) {
      discrete[k] = description_.inputs[k].discrete;
      continuous[k] = !discrete[k];
    }
    continuous_inputs_ = inputs_.Only(continuous);
    discrete_inputs_ = inputs_.Only(discrete);
    discrete_positions_.clear();
    for (const VariableGroup::Batch& b : discrete_inputs_.batches()) {
      discrete_positions_.insert(discrete_positions_.end(), b.positions.begin(), b.positions.end());
    }
  }

  // In an Event Mode at time_ when `u` (every input's value) changes discrete inputs or `tick`
  // (TriggerInputClocks): the continuous inputs set (model_.SetPoint), fmiXEnterEventMode,
  // fmiXSet... of the changed ones, HandleEvent (fmi3SetClock, the clocked inputs from `u`...).
  absl::Status SetDiscreteInputs(const double* u, bool tick = false) {
    KeepInputs(u);
    bool changed = false;
    for (int p : discrete_positions_) changed = changed || !(u[p] == held_discrete_[p]);
    if (!changed && !tick) return absl::OkStatus();
    const Eigen::Index m = static_cast<Eigen::Index>(input_indices_.size());
    COSIMO_RETURN_IF_ERROR(model_.SetPoint(time_, x_, Eigen::Map<const Eigen::VectorXd>(u, m)));
    if (absl::Status s = instance_->EnterEventMode(); !s.ok()) return s;
    if (changed) {
      if (absl::Status s = instance_->Set(discrete_inputs_, u); !s.ok()) return s;
      for (int p : discrete_positions_) held_discrete_[p] = u[p];
    }
    const char* why = !tick     ? "discrete inputs changed"
                      : changed ? "discrete inputs changed, input clock ticked"
                                : "input clock ticked";
    instance_->Log(0, "cosimo", absl::StrCat(Prefix(), "event (", why, ") at t=", time_).c_str());
    return HandleEvent(/*enter_event_mode=*/false);
  }

  VariableGroup continuous_inputs_, discrete_inputs_;
  std::vector<int> discrete_positions_;
  Eigen::VectorXd held_discrete_;  // per input: the discrete ones' values last set
  MeModel model_;
  std::unique_ptr<Solver> solver_;
  double chunk_ = 0.0;
  bool ended_ = false;
  bool earlier_state_kept_ = false;  // SetEarlierStateKept
  bool no_set_prior_ = false;        // this step's noSetFMUStatePriorToCurrentPoint
  bool has_events_ = false;
  Eigen::VectorXd x_, u_;
  std::vector<double> z_;
  std::optional<double> next_event_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> CreateModelExchangeUnit(
    const v1::Unit& spec, fmi::ModelDescription md, std::shared_ptr<FmuInstance> instance) {
  auto unit = std::make_unique<ModelExchangeUnit>(spec, std::move(md), std::move(instance));
  if (absl::Status s = unit->CreateSolverForUnit(); !s.ok()) return s;
  return std::unique_ptr<Unit>(std::move(unit));
}

}  // namespace cosimo::units::fmu
