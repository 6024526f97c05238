// RunMaster: resolves the configuration, builds the algorithm, initialises the units, runs the
// time loop (attempts, rejections and the step control, accepted steps to the observers) and
// terminates the units. The algorithms are in algorithm.h, the policy of H in step_control.h,
// the recording in recorder.h.
#include "cosimo/master/master.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "master/src/algorithm.h"
#include "master/src/checkpoint.h"
#include "master/src/fan_out.h"
#include "master/src/initial_outputs.h"
#include "master/src/master_config.h"
#include "master/src/recorder.h"
#include "master/src/step_control.h"

namespace cosimo::master {
namespace {

// The run's counters, as a checkpoint stores them and a resumed run starts from.
struct RunCounters {
  uint64_t steps_accepted = 0;
  uint64_t steps_rejected = 0;
  uint64_t iterations = 0;           // internal iterations of every attempt
  uint64_t accepted_iterations = 0;  // of the accepted attempts only
  uint64_t iterations_max = 0;       // of one accepted attempt

  void SaveTo(v1::JobCheckpoint* checkpoint) const {
    checkpoint->set_steps_accepted(steps_accepted);
    checkpoint->set_steps_rejected(steps_rejected);
    checkpoint->set_iterations(iterations);
    checkpoint->set_accepted_iterations(accepted_iterations);
    checkpoint->set_iterations_max(iterations_max);
  }
  void LoadFrom(const v1::JobCheckpoint& checkpoint) {
    steps_accepted = checkpoint.steps_accepted();
    steps_rejected = checkpoint.steps_rejected();
    iterations = checkpoint.iterations();
    accepted_iterations = checkpoint.accepted_iterations();
    iterations_max = checkpoint.iterations_max();
  }
  Progress At(double t) const { return {t, steps_accepted, steps_rejected, iterations}; }
};

// One RunMaster call. Call order: Run once.
class MasterRun {
 public:
  MasterRun(const MasterConfig& config, MasterObserver* observer, const v1::JobCheckpoint* resume)
      : config_(config),
        resume_(resume),
        units_(config),
        algorithm_(MakeAlgorithm(units_)),
        step_control_(config),
        recorder_(config, &result_, observer != nullptr ? observer->RowChunkBytes() : 0),
        progress_reporter_(observer),
        observer_(observer) {}

  absl::StatusOr<MasterResult> Run() {
    absl::Status s = InitializeUnits(units_);
    if (s.ok() && resume_ != nullptr) {
      s = Resume(*resume_);
      if (s.ok() && observer_ != nullptr) observer_->OnStart(t_);
    } else if (s.ok()) {
      s = ResolveInitialOutputs(units_);
      if (s.ok()) {
        for (StepObserver* o : observers_) o->OnStart(t_, units_.slots());
      }
    }
    if (s.ok()) s = TimeLoop();
    if (s.ok() && recorder_.streams()) s = recorder_.Flush(*observer_);
    if (!s.ok()) {
      TerminateQuietly();
      return s;
    }
    COSIMO_RETURN_IF_ERROR(Terminate(&result_.units));
    result_.steps_accepted = counters_.steps_accepted;
    result_.steps_rejected = counters_.steps_rejected;
    result_.iterations_max = counters_.iterations_max;
    result_.rows_held_max = recorder_.rows_held_max();
    result_.iterations_mean = counters_.steps_accepted == 0
                                  ? 0.0
                                  : static_cast<double>(counters_.accepted_iterations) /
                                        static_cast<double>(counters_.steps_accepted);
    return std::move(result_);
  }

 private:
  absl::Status TimeLoop() {
    const double stop = config_.algorithm.stop_time;
    double& t = t_;
    uint64_t& n = n_;
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
        counters_.iterations += static_cast<uint64_t>(attempt.iterations);
        if (attempt.accepted) break;
        ++counters_.steps_rejected;
        if (!config_.tentative) return StepControl::Failed(t, h, attempt);
        COSIMO_RETURN_IF_ERROR(units_.RejectAll(t));
        COSIMO_ASSIGN_OR_RETURN(h, step_control_.AfterRejection(t, h, attempt));
        t_next = t + h;
      }
      if (config_.tentative) COSIMO_RETURN_IF_ERROR(units_.CommitAll(t_next));
      units_.TakeReplies(t_next);
      if (!config_.algorithm.allow_non_finite) COSIMO_RETURN_IF_ERROR(CheckFinite(t_next));
      ++counters_.steps_accepted;
      counters_.accepted_iterations += static_cast<uint64_t>(attempt.iterations);
      counters_.iterations_max =
          std::max(counters_.iterations_max, static_cast<uint64_t>(attempt.iterations));
      t = t_next;
      ++n;
      const Progress progress = counters_.At(t);
      for (StepObserver* o : observers_) o->OnAccepted(t, units_.slots(), progress);
      if (recorder_.Full() || (recorder_.streams() && observer_->RowsDue())) {
        COSIMO_RETURN_IF_ERROR(recorder_.Flush(*observer_));
      }
      step_control_.AfterAcceptance(h, attempt);
      if (t < stop && CheckpointDue()) COSIMO_RETURN_IF_ERROR(Checkpoint());
    }
    return absl::OkStatus();
  }

  // The first NaN or infinite accepted output, in scenario and output order, fails the run
  // (algorithm.allow_non_finite records it instead): a unit that diverges is not a result.
  absl::Status CheckFinite(double t) const {
    const std::vector<UnitSlot>& slots = units_.slots();
    for (size_t u = 0; u < slots.size(); ++u) {
      const Eigen::VectorXd& y = slots[u].outputs;
      for (Eigen::Index k = 0; k < y.size(); ++k) {
        if (std::isfinite(y(k))) continue;
        const auto& outputs = config_.descriptions[u].outputs;
        return absl::FailedPreconditionError(absl::StrCat(
            "unit '", slots[u].name, "': output '",
            static_cast<size_t>(k) < outputs.size() ? outputs[static_cast<size_t>(k)].name : "?",
            "' is ", y(k), " at t=", t,
            " (set algorithm.allow_non_finite to record non-finite values and go on)"));
      }
    }
    return absl::OkStatus();
  }

  bool CheckpointDue() {
    if (checkpoint_failed_) return false;
    const int every = config_.algorithm.checkpoint_every;
    if (every > 0 && n_ % static_cast<uint64_t>(every) == 0) return true;
    return observer_ != nullptr && observer_->CheckpointDue();
  }

  // A unit that cannot serialise ends the checkpoints, not the run; a lost unit ends the run.
  absl::Status Checkpoint() {
    v1::JobCheckpoint checkpoint;
    absl::Status s = CheckpointUnits(units_, &checkpoint);
    if (!s.ok()) {
      if (s.code() == absl::StatusCode::kUnavailable) return s;
      checkpoint_failed_ = true;
      spdlog::warn("no checkpoints from t={}: {}", t_, s.message());
      if (observer_ != nullptr) observer_->OnCheckpointFailed(s);
      return absl::OkStatus();
    }
    checkpoint.set_time(t_);
    checkpoint.set_step_index(n_);
    checkpoint.set_next_step_size(step_control_.next_step());
    counters_.SaveTo(&checkpoint);
    if (recorder_.streams()) {
      // Every row so far goes before the checkpoint, which only counts them.
      COSIMO_RETURN_IF_ERROR(recorder_.Flush(*observer_));
      CheckpointTable(result_, {}, &checkpoint);
      checkpoint.set_rows_streamed(recorder_.rows_recorded());
    } else {
      CheckpointTable(result_, observer_ != nullptr ? observer_->Checkpointed() : CheckpointMark{},
                      &checkpoint);
    }
    if (observer_ != nullptr) observer_->OnCheckpoint(checkpoint);
    return absl::OkStatus();
  }

  absl::Status Resume(const v1::JobCheckpoint& checkpoint) {
    if (checkpoint.rows_streamed() > 0 && !recorder_.streams()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the checkpoint's first ", checkpoint.rows_streamed(),
                       " rows were streamed to the job's store, not kept in it"));
    }
    COSIMO_RETURN_IF_ERROR(RestoreTable(checkpoint, &result_));
    recorder_.StartAt(checkpoint.rows_streamed());
    recorder_.Recount();
    COSIMO_RETURN_IF_ERROR(RestoreUnits(units_, checkpoint));
    t_ = checkpoint.time();
    n_ = checkpoint.step_index();
    step_control_.set_next_step(checkpoint.next_step_size());
    counters_.LoadFrom(checkpoint);
    spdlog::info("resumed from the checkpoint at t={} (accepted step {})", t_, n_);
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
  const v1::JobCheckpoint* resume_;  // may be null
  CoupledUnits units_;
  std::unique_ptr<Algorithm> algorithm_;
  StepControl step_control_;
  MasterResult result_;
  Recorder recorder_;
  ProgressReporter progress_reporter_;
  StepObserver* observers_[2] = {&recorder_, &progress_reporter_};
  MasterObserver* observer_;
  RunCounters counters_;
  bool terminated_ = false;
  double t_ = config_.algorithm.start_time;
  uint64_t n_ = 0;                  // accepted steps
  bool checkpoint_failed_ = false;  // a unit cannot serialise: no more checkpoints
};

}  // namespace

absl::StatusOr<MasterResult> RunMaster(const v1::Scenario& scenario,
                                       const std::vector<UnitProxy*>& units,
                                       MasterObserver* observer, const v1::JobCheckpoint* resume) {
  COSIMO_ASSIGN_OR_RETURN(const MasterConfig config, ResolveMasterConfig(scenario, units));
  MasterRun run(config, observer, resume);
  return run.Run();
}

}  // namespace cosimo::master
