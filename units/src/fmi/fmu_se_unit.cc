// Scheduled Execution FMU unit (FMI 3.0.1 section 5): the worker is the scheduler of the FMU's
// model partitions, one per time-based input clock (fmu_clocks.h computes their ticks).
//
// Calling sequence: Initialize: fmi3InstantiateScheduledExecution, parameters and start values,
// fmi3EnterInitializationMode, the clocks' intervals and shifts (fmi3GetIntervalDecimal,
// fmi3GetShiftDecimal), fmi3ExitInitializationMode (the FMU is then in Clock Activation Mode),
// the partitions of the clocks that tick at the start time. Step [t, t + H]: at each tick in
// (t, t + H], in time order, the inputs at the tick (from the step's polynomials), then
// fmi3ActivateModelPartition(clock, tick) for each clock that ticks there, by priority (a lower
// value first, then declaration order), then the intervals asked again (a partition may start
// a countdown clock); outputs read at t + H. Terminate: fmi3Terminate.
//
// Partitions run to completion one at a time in the unit's thread: there is no preemption (a
// partition of a higher priority that ticks while one runs waits for it: with the ticks taken
// in time order, it never does); the lock and unlock preemption callbacks do nothing, and the
// clock update callback is not needed (the clocks are asked after each tick). No FMU state:
// the unit cannot roll back.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "units/src/fmi/fmu_unit_base.h"
#include "units/src/fmi/fmu_units.h"

namespace cosimo::units::fmu {
namespace {

class ScheduledExecutionUnit : public FmuUnitBase {
 public:
  ScheduledExecutionUnit(const v1::Unit& spec, fmi::ModelDescription md,
                         std::shared_ptr<FmuInstance> instance)
      : FmuUnitBase(spec, std::move(md), std::move(instance), /*model_exchange=*/false) {
    description_.capabilities.can_rollback = false;
    description_.capabilities.can_vary_step = true;
    description_.capabilities.provides_jacobians = false;
    description_.capabilities.max_output_derivative_order = 0;
    description_.capabilities.max_input_order = 0;
  }

  absl::Status Initialize(double start_time, double stop_time) override {
    time_ = start_time;
    stop_time_ = stop_time;
    instance_->set_time(start_time);
    COSIMO_RETURN_IF_ERROR(instance_->Instantiate());
    COSIMO_RETURN_IF_ERROR(ApplyParameters());
    COSIMO_RETURN_IF_ERROR(
        instance_->EnterInitializationMode(md_.default_tolerance, start_time, stop_time));
    COSIMO_RETURN_IF_ERROR(clocks_.Start(instance_.get(), start_time));
    COSIMO_RETURN_IF_ERROR(instance_->ExitInitializationMode());
    COSIMO_RETURN_IF_ERROR(RunPartitions(start_time, Tolerance(start_time)));
    initialized_ = true;
    return absl::OkStatus();
  }

  void Step(const StepRequest& request, StepReply* reply) override {
    reply->estimated = false;
    reply->message.clear();
    reply->end_time = time_;
    reply->derivatives.resize(0);
    absl::Status s =
        initialized_ && !instance_->failed()
            ? Advance(request)
            : absl::FailedPreconditionError(
                  Prefix() + (initialized_ ? "the FMU failed before" : "not initialised"));
    if (s.ok()) {
      s = ReadOutputs(&reply->outputs, nullptr, &reply->recorded, &reply->recorded_strings,
                      &reply->integers);
    }
    reply->status = s.ok() ? StepStatus::kOk : StepStatus::kFailed;
    if (!s.ok()) reply->message = std::string(s.message());
    reply->end_time = time_;
  }

  absl::Status Terminate() override {
    if (!initialized_) return absl::OkStatus();
    return instance_->Terminate();
  }

 private:
  static double Tolerance(double t) {
    return 16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
  }

  // The ticks in (time_, request.time + request.step], then time_ at the step's end.
  absl::Status Advance(const StepRequest& request) {
    if (std::abs(request.time - time_) > 1e-9 * std::max(1.0, std::abs(time_))) {
      return absl::FailedPreconditionError(absl::StrCat(
          Prefix(), "step requested at t=", request.time, " but the unit is at t=", time_));
    }
    clocks_.ClearTicked();  // the clock columns say which clocks ticked in this step
    const double t_end = request.time + request.step;
    // A tick within 1e-9 of the step of its end is at its end (a sum of intervals and the
    // master's t + H differ in the last bits).
    const double end_tolerance = std::max(Tolerance(t_end), 1e-9 * request.step);
    const Eigen::Index m = static_cast<Eigen::Index>(input_indices_.size());
    inputs_at_.resize(m);
    MarkStringsChanged();
    // Another unit's output clock ticked in its step that ended here: the partition now.
    if (m > 0) TriggerInputClocks(request.inputs.coefficients.data(), time_);
    for (double tick = clocks_.NextTick(); tick <= t_end + end_tolerance;
         tick = clocks_.NextTick()) {
      const double t = std::min(std::max(tick, time_), t_end);
      if (m > 0) {
        request.inputs.Value(t - request.time, inputs_at_);
        COSIMO_RETURN_IF_ERROR(SetInputs(inputs_at_));
      }
      time_ = t;
      instance_->set_time(t);
      COSIMO_RETURN_IF_ERROR(RunPartitions(tick, t >= t_end ? end_tolerance : Tolerance(t)));
    }
    time_ = t_end;
    instance_->set_time(t_end);
    if (m > 0) {
      request.inputs.Value(request.step, inputs_at_);
      COSIMO_RETURN_IF_ERROR(SetInputs(inputs_at_));
    }
    return absl::OkStatus();
  }

  // The partitions of the clocks that tick at `tick`, by priority; then the intervals asked.
  absl::Status RunPartitions(double tick, double tolerance) {
    const std::vector<uint32_t> due = clocks_.TakeDue(tick, tolerance);
    COSIMO_RETURN_IF_ERROR(SetClockedInputs(last_inputs()));
    for (uint32_t vr : due) COSIMO_RETURN_IF_ERROR(instance_->ActivateModelPartition(vr, tick));
    return clocks_.AfterUpdate(instance_.get(), tick);
  }

  Eigen::VectorXd inputs_at_;  // Advance's buffer
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> CreateScheduledExecutionUnit(
    const v1::Unit& spec, fmi::ModelDescription md, std::shared_ptr<FmuInstance> instance) {
  if (!FmuClocks(md).HasInputClock()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unit '", spec.name(),
        "': the FMU offers only Scheduled Execution and has no input clock (time-based or "
        "triggered) whose partition Cosimo could activate"));
  }
  return std::unique_ptr<Unit>(
      std::make_unique<ScheduledExecutionUnit>(spec, std::move(md), std::move(instance)));
}

}  // namespace cosimo::units::fmu
