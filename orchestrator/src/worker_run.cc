#include "orchestrator/src/worker_run.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "cosimo/common/checkpoint_parts.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/unit_api_proto.h"
#include "orchestrator/src/checkpoint_relay.h"
#include "orchestrator/src/results_metadata.h"
#include "orchestrator/src/simulation_runner.h"

namespace cosimo::orchestrator {
namespace {

master::Progress FromProto(const v1::JobProgress& p) {
  master::Progress out;
  out.time = p.time();
  out.steps_accepted = p.steps_accepted();
  out.steps_rejected = p.steps_rejected();
  out.iterations = p.iterations();
  return out;
}

// The table's columns as a worker's first JobRows names them.
v1::ResultsHeader ColumnsOf(const v1::JobRows& rows) {
  v1::ResultsHeader header;
  *header.mutable_columns() = rows.columns();
  *header.mutable_column_types() = rows.types();
  return header;
}

// The run's end: the result RunOverUnits would have given, its rows streamed to the store.
void Finish(const WorkerConnection& worker, const v1::JobDone& done, WorkerRun* run,
            master::MasterResult* result) {
  if (done.has_error()) {
    run->result = cosimo::FromProto(done.error());
    return;
  }
  result->columns.assign(done.columns().begin(), done.columns().end());
  for (int type : done.types()) {
    result->types.push_back(cosimo::FromProto(static_cast<v1::ValueType>(type)));
  }
  result->steps_accepted = done.steps_accepted();
  result->steps_rejected = done.steps_rejected();
  result->iterations_mean = done.iterations_mean();
  result->iterations_max = done.iterations_max();
  result->rows_held_max = done.rows_held_max();
  for (const v1::UnitRun& unit : done.units()) {
    result->units.push_back(
        {unit.name(), {worker.id(), worker.host()}, ReportFromProto(unit.report())});
    run->descriptions.push_back(cosimo::FromProto(unit.loaded()));
  }
  run->result = std::move(*result);
}

// The RunJob command, its checkpoint to resume from in parts after it when it is bigger than
// the worker receives at once.
bool SendRunJob(WorkerConnection& worker, const v1::RunJob& command, uint64_t seq) {
  v1::OrchestratorMessage message;
  message.set_seq(seq);
  *message.mutable_run_job() = command;
  const size_t part_bytes = command.checkpoint_part_bytes();
  if (!command.has_resume() || !NeedsParts(command.resume(), part_bytes)) {
    return worker.Write(message);
  }
  message.mutable_run_job()->clear_resume();
  message.mutable_run_job()->set_resume_in_parts(true);
  if (!worker.Write(message)) return false;
  spdlog::debug("{}: its checkpoint at t={} sent to {} in parts ({} bytes)", command.job_id(),
                command.resume().time(), worker.Describe(), command.resume().ByteSizeLong());
  for (v1::CheckpointPart& part : SplitCheckpoint(command.resume(), part_bytes)) {
    v1::OrchestratorMessage next;
    next.set_seq(seq);
    *next.mutable_resume_part() = std::move(part);
    if (!worker.Write(next)) return false;
  }
  return true;
}

}  // namespace

WorkerRun RunJobOnWorker(WorkerConnection& worker, const v1::RunJob& command,
                         const ReplyWaitOptions& wait, JobObserver& observer) {
  constexpr uint64_t kSeq = 1;
  WorkerRun run{absl::UnknownError("no JobDone"), {}};
  if (!SendRunJob(worker, command, kSeq)) {
    run.result = absl::UnavailableError(worker.Describe() + " is gone: " + worker.lost_reason());
    return run;
  }
  master::MasterResult result;
  CheckpointRelay checkpoints(observer);
  CheckpointJoiner parts;
  v1::WorkerMessage reply;
  while (true) {
    if (absl::Status s = worker.WaitReply(kSeq, &reply, wait); !s.ok()) {
      run.result = s;
      return run;
    }
    switch (reply.body_case()) {
      case v1::WorkerMessage::kJobProgress:
        if (!reply.job_progress().cannot_checkpoint().empty()) {
          observer.OnCheckpointFailed(
              absl::FailedPreconditionError(reply.job_progress().cannot_checkpoint()));
        }
        observer.OnProgress(FromProto(reply.job_progress()));
        break;
      case v1::WorkerMessage::kJobCheckpoint:
        checkpoints.Pass(std::move(*reply.mutable_job_checkpoint()));
        break;
      case v1::WorkerMessage::kJobCheckpointPart:
        if (std::optional<absl::StatusOr<v1::JobCheckpoint>> joined =
                parts.Add(std::move(*reply.mutable_job_checkpoint_part()))) {
          if (joined->ok()) {
            spdlog::debug("{}: a checkpoint at t={} came in parts ({} bytes)", command.job_id(),
                          (*joined)->time(), (*joined)->ByteSizeLong());
            checkpoints.Pass(**std::move(joined));
          } else {
            observer.OnCheckpointFailed(joined->status());
          }
        }
        break;
      case v1::WorkerMessage::kJobRows:
        if (reply.job_rows().columns_size() > 0) observer.OnColumns(ColumnsOf(reply.job_rows()));
        // Stored before the next read is posted: while the store takes it, the stream's flow
        // control holds the worker back.
        if (absl::Status s =
                observer.AppendRows(reply.job_rows().first_row(), reply.job_rows().row_count(),
                                    reply.job_rows().rows());
            !s.ok()) {
          worker.MarkLost("given up: the job's rows could not be stored");
          worker.CancelStream();
          run.result = s;
          return run;
        }
        break;
      case v1::WorkerMessage::kJobDone:
        observer.OnProgress(FromProto(reply.job_done().last()));
        Finish(worker, reply.job_done(), &run, &result);
        worker.HandOverLoop();  // this thread waits on the loop no more
        return run;
      default:
        run.result = absl::InternalError(
            worker.Describe() + ": expected JobProgress, JobCheckpoint, JobRows or JobDone");
        return run;
    }
    worker.ResumeReads();  // the next message is read at once, not behind a command
  }
}

bool SimulationRunner::RunsOnOneWorker(const WorkerLease& lease) const {
  const WorkerLease::Workers& workers = lease.workers();
  if (!env_.master_in_worker || workers.empty() || !workers.front()->runs_jobs()) return false;
  return std::all_of(workers.begin(), workers.end(),
                     [&](const auto& w) { return w == workers.front(); });
}

void SimulationRunner::RunOnWorker(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
                                   WorkerLease lease,
                                   const std::optional<v1::JobCheckpoint>& checkpoint) {
  const WorkerLease::Workers& workers = lease.workers();
  WorkerConnection& worker = *workers.front();
  spdlog::info("job {} running on {}, its master there", job->id, worker.Describe());
  v1::RunJob command;
  command.set_job_id(job->id);
  *command.mutable_scenario() = scenario;
  for (v1::LoadUnit& load : LoadUnitsFor(scenario, job->id)) *command.add_loads() = std::move(load);
  if (checkpoint) *command.mutable_resume() = *checkpoint;
  command.set_max_recorded_rows(env_.limits.max_recorded_rows);
  command.set_checkpoint_interval_ms(
      std::chrono::duration_cast<std::chrono::milliseconds>(env_.checkpoint_interval).count());
  command.set_progress_interval_ms(100);
  command.set_rows_interval_ms(static_cast<int32_t>(kRowsInterval.count()));
  command.set_result_chunk_bytes(kRowChunkBytes);
  command.set_checkpoint_part_bytes(env_.checkpoint_part_bytes);
  command.set_where(worker.Describe());
  env_.running_units->Set(workers, scenario);
  const std::function<void(const master::Progress&)> publish = Publisher(job);
  JobObserver observer = ObserverFor(job, publish, checkpoint);
  WorkerRun run = RunJobOnWorker(worker, command, {env_.command_timeout, &job->cancel}, observer);
  const bool lost_worker = worker.lost();
  std::vector<v1::RecordedVariable> variables;
  if (run.result.ok()) {
    std::vector<const UnitDescription*> descriptions;
    for (const UnitDescription& d : run.descriptions) descriptions.push_back(&d);
    variables = RecordedVariables(scenario, *run.result, descriptions);
  }
  env_.running_units->Clear(workers);
  const std::string master = "worker " + worker.id();
  lease.Release();
  publish(observer.last());
  if (!run.result.ok()) {
    EndFailedRun(job, run.result.status(), observer, lost_worker);
    return;
  }
  StoreResults(*job, scenario, *std::move(run.result), std::move(variables), master);
}

}  // namespace cosimo::orchestrator
