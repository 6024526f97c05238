#include "cosimo/worker/job_command.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

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
        last_checkpoint_(Clock::now()) {
    if (command.has_resume()) {
      const v1::JobCheckpoint& resume = command.resume();
      const auto columns = static_cast<uint64_t>(resume.columns_size());
      sent_.rows = columns == 0 ? 0 : static_cast<uint64_t>(resume.values_size()) / columns;
      sent_.strings = static_cast<uint64_t>(resume.strings_size());
    }
  }

  void OnStart(double) override { last_checkpoint_ = Clock::now(); }
  void OnProgress(const master::Progress& progress) override {
    last_ = progress;
    if (max_rows_ > 0 && progress.steps_accepted + 1 > max_rows_) rows_exceeded_ = true;
    const auto now = Clock::now();
    if (now - last_sent_ < progress_interval_) return;
    last_sent_ = now;
    ToProto(progress, message_.mutable_job_progress());
    Send();
  }
  bool Canceled() override { return rows_exceeded_ || gone_ || units::AbandonRequested(); }
  bool CheckpointDue() override {
    return checkpoint_interval_.count() > 0 &&
           Clock::now() - last_checkpoint_ >= checkpoint_interval_;
  }
  void OnCheckpoint(const v1::JobCheckpoint& checkpoint) override {
    last_checkpoint_ = Clock::now();
    *message_.mutable_job_checkpoint() = checkpoint;
    if (!Send()) return;
    // What the orchestrator stores: the rows of the checkpoints before and of this one.
    const auto columns = static_cast<uint64_t>(checkpoint.columns_size());
    sent_.rows = checkpoint.rows_from() +
                 (columns == 0 ? 0 : static_cast<uint64_t>(checkpoint.values_size()) / columns);
    sent_.strings = checkpoint.strings_from() + static_cast<uint64_t>(checkpoint.strings_size());
  }
  void OnCheckpointFailed(const absl::Status& why) override {
    v1::JobProgress* p = message_.mutable_job_progress();
    ToProto(last_, p);
    p->set_cannot_checkpoint(std::string(why.message()));
    Send();
  }
  master::CheckpointMark Checkpointed() override { return sent_; }

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
  Clock::time_point last_checkpoint_;
  Clock::time_point last_sent_;
  master::Progress last_;
  master::CheckpointMark sent_;
  bool rows_exceeded_ = false;
  bool gone_ = false;
  v1::WorkerMessage message_;
};

// The table's rows in chunks of at most about kResultRowsChunkBytes each.
bool SendRows(const ResultTable& table, const JobMessageSink& send) {
  const size_t columns = table.columns.size();
  const size_t texts = table.string_columns();
  const size_t integers = table.integers.empty() ? 0 : table.integer_columns();
  const size_t rows = table.rows();
  v1::WorkerMessage message;
  size_t bytes = 0;
  for (size_t row = 0; row < rows; ++row) {
    v1::ResultRows* chunk = message.mutable_result_rows();
    chunk->mutable_values()->Add(
        table.values.begin() + static_cast<std::ptrdiff_t>(row * columns),
        table.values.begin() + static_cast<std::ptrdiff_t>((row + 1) * columns));
    bytes += columns * sizeof(double);
    for (size_t j = row * texts; j < (row + 1) * texts; ++j) {
      chunk->add_strings(table.strings[j]);
      bytes += table.strings[j].size() + 8;
    }
    for (size_t j = row * integers; j < (row + 1) * integers; ++j) {
      chunk->add_integers(table.integers[j]);
      bytes += sizeof(uint64_t);
    }
    if (bytes >= kResultRowsChunkBytes || row + 1 == rows) {
      if (!send(&message)) return false;
      message.Clear();
      bytes = 0;
    }
  }
  return true;
}

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
}

}  // namespace

bool RunJobCommand(const v1::RunJob& command, const CommandHandler::ArtifactFetcher& fetch,
                   const JobMessageSink& send) {
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
  if (!SendRows(*result, send)) return false;
  Succeeded(*result, loaded, done);
  return send(&message);
}

}  // namespace cosimo::worker
