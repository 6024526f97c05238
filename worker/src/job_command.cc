#include "cosimo/worker/job_command.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "cosimo/common/checkpoint_parts.h"
#include "cosimo/common/process.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/unit_api_proto.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
#include "cosimo/units/abandon.h"

namespace cosimo::worker {
namespace {

using Clock = std::chrono::steady_clock;

void ToProto(const master::Progress& p, v1::JobProgress* out) {
  out->set_time(p.time);
  out->set_steps_accepted(p.steps_accepted);
  out->set_steps_rejected(p.steps_rejected);
  out->set_iterations(p.iterations);
}

// The orchestrator's JobObserver, seen from the worker: the same row limit and checkpoint policy
// by wall time, its progress and checkpoints sent on rather than published and stored.
class ForwardingObserver final : public master::MasterObserver {
 public:
  ForwardingObserver(const v1::RunJob& command, const JobMessageSink& send)
      : send_(send),
        max_rows_(command.max_recorded_rows()),
        checkpoint_interval_(std::chrono::milliseconds(command.checkpoint_interval_ms())),
        progress_interval_(std::chrono::milliseconds(command.progress_interval_ms())),
        rows_interval_(std::chrono::milliseconds(command.rows_interval_ms())),
        chunk_bytes_(command.result_chunk_bytes() > 0 ? command.result_chunk_bytes()
                                                      : kResultRowsChunkBytes),
        part_bytes_(command.checkpoint_part_bytes()),
        last_checkpoint_(Clock::now()),
        last_rows_(Clock::now()) {}

  void OnStart(double) override { last_checkpoint_ = last_rows_ = Clock::now(); }
  // Called once an accepted step, before RowsDue and CheckpointDue: the step's one clock reading
  // (three were 4 % of a cheap FMU's step).
  void OnProgress(const master::Progress& progress) override {
    last_ = progress;
    if (max_rows_ > 0 && progress.steps_accepted + 1 > max_rows_) rows_exceeded_ = true;
    now_ = Clock::now();
    if (now_ - last_sent_ < progress_interval_) return;
    last_sent_ = now_;
    ToProto(progress, message_.mutable_job_progress());
    Send();
  }
  bool Canceled() override { return rows_exceeded_ || gone_ || units::AbandonRequested(); }
  bool CheckpointDue() override {
    return checkpoint_interval_.count() > 0 && now_ - last_checkpoint_ >= checkpoint_interval_;
  }
  // One message, or parts when it is bigger than the orchestrator receives at once.
  void OnCheckpoint(const v1::JobCheckpoint& checkpoint) override {
    last_checkpoint_ = Clock::now();
    if (!NeedsParts(checkpoint, part_bytes_)) {
      *message_.mutable_job_checkpoint() = checkpoint;
      Send();
      return;
    }
    for (v1::CheckpointPart& part : SplitCheckpoint(checkpoint, part_bytes_)) {
      *message_.mutable_job_checkpoint_part() = std::move(part);
      if (!Send()) return;
    }
  }
  size_t RowChunkBytes() override { return chunk_bytes_; }
  bool RowsDue() override {
    // The first rows at once (they name the columns), then every rows_interval_ms.
    return rows_interval_.count() > 0 && (!columns_sent_ || now_ - last_rows_ >= rows_interval_);
  }
  // Sent at once: the stream's write waits while the orchestrator's flow-control window is full,
  // so no more than this chunk is held here.
  absl::Status OnRows(uint64_t first_row, const ResultTable& rows) override {
    v1::JobRows* chunk = message_.mutable_job_rows();
    chunk->set_first_row(first_row);
    chunk->set_row_count(rows.rows());
    RowsToProto(rows, 0, rows.rows(), chunk->mutable_rows());
    if (!columns_sent_) {  // the first chunk of the run names the columns
      for (const std::string& column : rows.columns) chunk->add_columns(column);
      for (ValueType type : rows.types) chunk->add_types(cosimo::ToProto(type));
      columns_sent_ = true;
    }
    last_rows_ = Clock::now();
    if (!Send()) return absl::CancelledError("the orchestrator's stream ended");
    return absl::OkStatus();
  }
  void OnCheckpointFailed(const absl::Status& why) override {
    v1::JobProgress* p = message_.mutable_job_progress();
    ToProto(last_, p);
    p->set_cannot_checkpoint(std::string(why.message()));
    Send();
  }

  const master::Progress& last() const { return last_; }
  bool rows_exceeded() const { return rows_exceeded_; }
  bool gone() const { return gone_; }

 private:
  bool Send() {
    if (!gone_ && !send_(&message_)) gone_ = true;
    message_.Clear();
    return !gone_;
  }

  const JobMessageSink& send_;
  const uint64_t max_rows_;
  const Clock::duration checkpoint_interval_;
  const Clock::duration progress_interval_;
  const Clock::duration rows_interval_;
  const size_t chunk_bytes_;
  const size_t part_bytes_;  // a checkpoint bigger than this goes in parts (0: the default)
  Clock::time_point last_checkpoint_;
  Clock::time_point last_rows_;
  bool columns_sent_ = false;
  Clock::time_point last_sent_;
  Clock::time_point now_ = Clock::now();  // at the last OnProgress
  master::Progress last_;
  bool rows_exceeded_ = false;
  bool gone_ = false;
  v1::WorkerMessage message_;
};

void Succeeded(const master::MasterResult& result, const std::vector<v1::UnitLoaded>& loaded,
               v1::JobDone* done) {
  done->set_steps_accepted(result.steps_accepted);
  done->set_steps_rejected(result.steps_rejected);
  done->set_iterations_mean(result.iterations_mean);
  done->set_iterations_max(result.iterations_max);
  for (size_t u = 0; u < result.units.size(); ++u) {
    v1::UnitRun* unit = done->add_units();
    unit->set_name(result.units[u].name);
    if (u < loaded.size()) *unit->mutable_loaded() = loaded[u];
    cosimo::ToProto(result.units[u].report, unit->mutable_report());
  }
  for (const std::string& column : result.columns) done->add_columns(column);
  for (ValueType type : result.types) done->add_types(cosimo::ToProto(type));
  done->set_rows_held_max(result.rows_held_max);
}

}  // namespace

bool RunJobCommand(const v1::RunJob& command, const CommandHandler::ArtifactFetcher& fetch,
                   const JobMessageSink& send) {
  // A job's rows stream through this process from here on (a chunk recorded, its message, gRPC's
  // buffer): their memory is kept and reused from now on (issue 40: fig9, 1.7 against 2.05 without
  // it). Not set up front: a worker that only runs sweep variants ran them slower with it (fig8).
  KeepFreedMemory();
  ForwardingObserver observer(command, send);
  const std::vector<v1::LoadUnit> loads(command.loads().begin(), command.loads().end());
  std::vector<v1::UnitLoaded> loaded;
  master::RunOptions options{.observer = &observer,
                             .resume = command.has_resume() ? &command.resume() : nullptr,
                             .where = command.where()};
  absl::StatusOr<master::MasterResult> result = master::RunInProcess(
      command.scenario(), loads, options,
      [&fetch](v1::LoadUnit* load) { return FetchUnitArtifacts(load, fetch); },
      [&loaded](const std::vector<master::UnitProxy*>& units) {
        for (const master::UnitProxy* unit : units) {
          cosimo::ToProto(unit->description(), &loaded.emplace_back());
        }
      });
  if (observer.gone()) return false;
  v1::WorkerMessage message;
  v1::JobDone* done = message.mutable_job_done();
  ToProto(observer.last(), done->mutable_last());
  if (!result.ok()) {
    cosimo::ToProto(result.status(), done->mutable_error());
    done->set_rows_exceeded(observer.rows_exceeded());
    return send(&message);
  }
  Succeeded(*result, loaded, done);  // its rows streamed: none left in `result`
  return send(&message);
}

}  // namespace cosimo::worker
