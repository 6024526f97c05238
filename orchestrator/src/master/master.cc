// RunMaster: resolves the configuration, builds the algorithm, initialises the units, runs the
// time loop (attempts, rejections and the step control, accepted steps to the observers) and
// terminates the units. The algorithms are in algorithm.h, the policy of H in step_control.h,
// the recording in recorder.h.
#include "cosimo/orchestrator/master.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/master/algorithm.h"
#include "orchestrator/src/master/fan_out.h"
#include "orchestrator/src/master/initial_outputs.h"
#include "orchestrator/src/master/master_config.h"
#include "orchestrator/src/master/recorder.h"
#include "orchestrator/src/master/step_control.h"

namespace cosimo::orchestrator {
namespace master {
namespace {

// One RunMaster call. Call order: Run once.
class MasterRun {
 public:
  MasterRun(const MasterConfig& config, MasterObserver* observer)
      : config_(config),
        units_(config),
        algorithm_(MakeAlgorithm(units_)),
        step_control_(config),
        recorder_(config, &result_),
        progress_reporter_(observer),
        observer_(observer) {}

  absl::StatusOr<MasterResult> Run() {
    absl::Status s = InitializeUnits(units_);
    if (s.ok()) s = ResolveInitialOutputs(units_);
    if (s.ok()) {
      for (StepObserver* o : observers_) o->OnStart(config_.algorithm.start_time, units_.slots());
      s = TimeLoop();
    }
    if (!s.ok()) {
      TerminateQuietly();
      return s;
    }
    COSIMO_RETURN_IF_ERROR(Terminate(&result_.units));
    result_.iterations_mean = result_.steps_accepted == 0
                                  ? 0.0
                                  : static_cast<double>(accepted_iterations_) /
                                        static_cast<double>(result_.steps_accepted);
    return std::move(result_);
  }

 private:
  absl::Status TimeLoop() {
    const double stop = config_.algorithm.stop_time;
    uint64_t n = 0;
    double t = config_.algorithm.start_time;
    while (t < stop) {
      if (observer_ != nullptr && observer_->Canceled()) {
        return absl::CancelledError(absl::StrCat("canceled at t=", t));
      }
      double t_next = step_control_.NextTime(t, n);
      double h = t_next - t;
      Attempt attempt;
      while (true) {
        attempt = Attempt();
        COSIMO_RETURN_IF_ERROR(algorithm_->DoStep(t, h, &attempt));
        progress_.iterations += static_cast<uint64_t>(attempt.iterations);
        if (attempt.accepted) break;
        ++result_.steps_rejected;
        ++progress_.steps_rejected;
        if (!config_.tentative) return StepControl::Failed(t, h, attempt);
        COSIMO_RETURN_IF_ERROR(units_.RejectAll(t));
        COSIMO_ASSIGN_OR_RETURN(h, step_control_.AfterRejection(t, h, attempt));
        t_next = t + h;
      }
      if (config_.tentative) COSIMO_RETURN_IF_ERROR(units_.CommitAll(t_next));
      units_.TakeReplies(t_next);
      ++result_.steps_accepted;
      accepted_iterations_ += static_cast<uint64_t>(attempt.iterations);
      result_.iterations_max =
          std::max(result_.iterations_max, static_cast<uint64_t>(attempt.iterations));
      t = t_next;
      ++n;
      progress_.time = t;
      progress_.steps_accepted = result_.steps_accepted;
      for (StepObserver* o : observers_) o->OnAccepted(t, units_.slots(), progress_);
      step_control_.AfterAcceptance(h, attempt);
    }
    return absl::OkStatus();
  }

  absl::Status Terminate(std::vector<UnitSummary>* summaries) {
    terminated_ = true;
    return FanOut(
        units_.slots(),
        [](UnitSlot& s) {
          s.command.kind = UnitCommand::Kind::kTerminate;
          return true;
        },
        [&](UnitSlot& s, absl::Status awaited) {
          if (!awaited.ok())
            return Annotate(awaited, absl::StrCat("unit '", s.name, "': terminate"));
          summaries->push_back({s.name, s.proxy->location(), s.response.report});
          return absl::OkStatus();
        });
  }

  void TerminateQuietly() {
    if (terminated_) return;
    std::vector<UnitSummary> ignored;
    absl::Status s = Terminate(&ignored);
    if (!s.ok()) spdlog::warn("terminating units after a failed run: {}", s.message());
  }

  const MasterConfig& config_;
  CoupledUnits units_;
  std::unique_ptr<Algorithm> algorithm_;
  StepControl step_control_;
  MasterResult result_;
  Recorder recorder_;
  ProgressReporter progress_reporter_;
  StepObserver* observers_[2] = {&recorder_, &progress_reporter_};
  MasterObserver* observer_;
  Progress progress_;
  uint64_t accepted_iterations_ = 0;
  bool terminated_ = false;
};

}  // namespace
}  // namespace master

absl::StatusOr<MasterResult> RunMaster(const v1::Scenario& scenario,
                                       const std::vector<UnitProxy*>& units,
                                       MasterObserver* observer) {
  COSIMO_ASSIGN_OR_RETURN(const master::MasterConfig config,
                          master::ResolveMasterConfig(scenario, units));
  master::MasterRun run(config, observer);
  return run.Run();
}

}  // namespace cosimo::orchestrator
