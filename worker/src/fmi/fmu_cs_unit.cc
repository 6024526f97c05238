// Co-Simulation FMU unit.
//
// Calling sequence (FMI 2.0 section 4.2.4, FMI 3.0 section 4.2): Initialize: fmiXInstantiate,
// set parameters and start values, fmi2SetupExperiment + fmi2EnterInitializationMode (FMI 3:
// fmi3EnterInitializationMode), fmiXExitInitializationMode. Step: set inputs at t[N] (and
// their first derivative where canInterpolateInputs), fmiXDoStep(t[N], H), read outputs (and
// output derivatives where maxOutputDerivativeOrder > 0). Save/Restore: fmiXGetFMUstate /
// fmiXSetFMUstate where canGetAndSetFMUstate. Terminate: fmiXTerminate (freeing in the
// instance's destructor).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "worker/src/fmi/fmu_unit_base.h"
#include "worker/src/fmi/fmu_units.h"

namespace cosimo::worker::fmi {
namespace {

// An FMU state plus the unit's own time; frees the FMU state with the instance it came from.
class CsSnapshot : public UnitSnapshot {
 public:
  CsSnapshot(std::shared_ptr<FmuInstance> instance, void* state, double time, bool ended)
      : instance_(std::move(instance)), state_(state), time_(time), ended_(ended) {}
  ~CsSnapshot() override { instance_->FreeState(&state_); }
  const FmuInstance* instance() const { return instance_.get(); }
  void* state() const { return state_; }
  double time() const { return time_; }
  bool ended() const { return ended_; }

 private:
  std::shared_ptr<FmuInstance> instance_;
  void* state_;
  double time_;
  bool ended_;
};

class CoSimulationUnit : public FmuUnitBase {
 public:
  CoSimulationUnit(const v1::Unit& spec, ModelDescription md, std::shared_ptr<FmuInstance> instance)
      : FmuUnitBase(spec, std::move(md), std::move(instance), /*model_exchange=*/false) {
    description_.capabilities.can_rollback = kind().can_get_and_set_fmu_state;
    for (size_t k = 0; k < input_indices_.size(); ++k) {
      const ScalarVariable& v = md_.variables[input_indices_[k]];
      if (v.type == VarType::kFloat64) {
        real_input_vrs_.push_back(v.value_reference);
        real_input_positions_.push_back(static_cast<int>(k));
      }
    }
    slope_.assign(real_input_vrs_.size(), 0.0);
  }

  absl::Status Initialize(double start_time, double stop_time) override {
    time_ = start_time;
    stop_time_ = stop_time;
    slopes_known_zero_ = false;
    instance_->set_time(start_time);
    if (absl::Status s = instance_->Instantiate(); !s.ok()) return s;
    if (absl::Status s = ApplyParameters(); !s.ok()) return s;
    if (absl::Status s =
            instance_->EnterInitializationMode(md_.default_tolerance, start_time, stop_time);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = instance_->ExitInitializationMode(); !s.ok()) return s;
    initialized_ = true;
    return absl::OkStatus();
  }

  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override {
    if (!initialized_)
      return absl::FailedPreconditionError(Prefix() + "Evaluate before Initialize");
    if (absl::Status s = SetInputs(inputs); !s.ok()) return s;
    return ReadOutputs(&reply->outputs, &reply->derivatives, &reply->recorded,
                       &reply->recorded_strings);
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
                        &reply->recorded_strings);
      return;
    }
    if (std::abs(request.time - time_) > 1e-9 * std::max(1.0, std::abs(time_))) {
      return Fail(reply, absl::FailedPreconditionError(
                             absl::StrCat(Prefix(), "step requested at t=", request.time,
                                          " but the unit is at t=", time_)));
    }
    instance_->set_time(time_);
    const InputPolynomials& poly = request.inputs;
    const Eigen::Index m = static_cast<Eigen::Index>(input_indices_.size());
    if (m > 0) {
      if (poly.coefficients.cols() == 0 || poly.coefficients.rows() != m) {
        return Fail(reply, absl::InvalidArgumentError(absl::StrCat(Prefix(), "step inputs have ",
                                                                   poly.coefficients.rows(),
                                                                   " rows for ", m, " inputs")));
      }
      // u(t[N]) is column 0, contiguous in the column-major coefficient matrix: no copy.
      if (absl::Status s = instance_->Set(inputs_, poly.coefficients.data()); !s.ok()) {
        return Fail(reply, s);
      }
    }
    if (kind().can_interpolate_inputs && !real_input_vrs_.empty()) {
      if (absl::Status s = SetInputSlopes(poly); !s.ok()) return Fail(reply, s);
    }
    DoStepOutcome outcome;
    const bool no_set_prior = !kind().can_get_and_set_fmu_state;
    if (absl::Status s = instance_->DoStep(time_, request.step, no_set_prior, &outcome); !s.ok()) {
      return Fail(reply, s);
    }
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
                                     &reply->recorded_strings);
        !s.ok()) {
      return Fail(reply, s);
    }
  }

  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override {
    if (!kind().can_get_and_set_fmu_state) {
      return absl::UnimplementedError(Prefix() + "the FMU does not offer canGetAndSetFMUstate");
    }
    void* state = nullptr;
    if (absl::Status s = instance_->GetState(&state); !s.ok()) return s;
    return std::unique_ptr<UnitSnapshot>(
        std::make_unique<CsSnapshot>(instance_, state, time_, ended_));
  }

  absl::Status Restore(const UnitSnapshot& snapshot) override {
    const auto* snap = dynamic_cast<const CsSnapshot*>(&snapshot);
    if (snap == nullptr || snap->instance() != instance_.get()) {
      return absl::InvalidArgumentError(Prefix() + "the snapshot is not one of this unit");
    }
    // The FMU state carries the input derivatives it was saved with.
    slopes_known_zero_ = false;
    if (absl::Status s = instance_->SetState(snap->state()); !s.ok()) return s;
    time_ = snap->time();
    ended_ = snap->ended();
    instance_->set_time(time_);
    return absl::OkStatus();
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
  // du/dt(t[N]) of the Real inputs is the coefficient of s; zero for a zero-order hold. A zero
  // slope is set only when the FMU may hold a non-zero one (the first step, after a non-zero
  // slope or a restored FMU state, or a failed call): set values persist, so a ZOH run calls
  // fmi2SetRealInputDerivatives once.
  absl::Status SetInputSlopes(const InputPolynomials& poly) {
    bool zero = true;
    for (size_t i = 0; i < slope_.size(); ++i) {
      slope_[i] =
          poly.coefficients.cols() > 1 ? poly.coefficients(real_input_positions_[i], 1) : 0.0;
      zero = zero && slope_[i] == 0.0;
    }
    if (zero && slopes_known_zero_) return absl::OkStatus();
    slopes_known_zero_ = false;
    if (absl::Status s = instance_->SetInputDerivatives(real_input_vrs_, 1, slope_.data());
        !s.ok()) {
      return s;
    }
    slopes_known_zero_ = zero;
    return absl::OkStatus();
  }

  void Fail(StepReply* reply, const absl::Status& status) {
    reply->status = StepStatus::kFailed;
    reply->message = std::string(status.message());
    reply->end_time = time_;
  }

  bool initialized_ = false;
  bool ended_ = false;
  std::vector<uint32_t> real_input_vrs_;
  std::vector<int> real_input_positions_;
  std::vector<double> slope_;       // per Real input, sized at load
  bool slopes_known_zero_ = false;  // the FMU holds zero input derivatives
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> CreateCoSimulationUnit(
    const v1::Unit& spec, ModelDescription md, std::shared_ptr<FmuInstance> instance) {
  return std::unique_ptr<Unit>(
      std::make_unique<CoSimulationUnit>(spec, std::move(md), std::move(instance)));
}

}  // namespace cosimo::worker::fmi
