// The Cosimo client library: what the `cosimo` command line uses, and what any C++ program can
// use to drive an orchestrator. It uploads the FMUs and tables a scenario names (chunked,
// addressed by SHA-256, skipped when the orchestrator already has them), rewrites the scenario
// to their digests, submits, watches, cancels, lists and fetches results.
//
// Every call has a deadline. Thread safety: a Client may be shared between threads.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/security/credentials.h>

#include "absl/status/statusor.h"
#include "cosimo/client/phase_timer.h"
#include "cosimo/common/csv.h"
#include "cosimo/v1/artifact_service.grpc.pb.h"
#include "cosimo/v1/job_service.grpc.pb.h"
#include "cosimo/v1/scenario.pb.h"
#include "cosimo/v1/sweep.pb.h"

namespace cosimo::client {

struct JobResults : ResultTable {
  v1::ResultsMetadata metadata;
  uint64_t first_row = 0;  // the job's table's row this one's first row is (ResultsRequest)
};

// Which results Client::Results reads (GetResultsRequest).
struct ResultsRequest {
  // That variant's full results of a sweep job that keeps them (once the variant has succeeded).
  std::optional<uint64_t> variant = std::nullopt;
  // A running simulation job's rows recorded so far (metadata.partial), a prefix of its results.
  bool partial = false;
  uint64_t first_row = 0;                            // from this row on
  std::optional<uint64_t> last_rows = std::nullopt;  // only the last this many of those
};

// The orchestrator address a verb uses when --orchestrator is not given: $COSIMO_ORCHESTRATOR,
// else localhost:7700.
std::string DefaultOrchestrator();

// One line of a job's log as `cosimo logs` and `cosimo run` print it: "msd t=0.5 fmi2Warning
// [category] text" for an FMI log message, "msd t=0.5 stdout: text" for output (t=- while the
// unit loads).
std::string FormatLogLine(const v1::LogEntry& line);

class Client {
 public:
  // `credentials`: from MakeChannelCredentials (cosimo/common/security.h); null: plain gRPC.
  explicit Client(const std::string& target,
                  std::chrono::milliseconds call_deadline = std::chrono::seconds(30),
                  std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);
  // Over `channel` (e.g. an in-process one), `name` saying which orchestrator in messages.
  Client(std::shared_ptr<grpc::Channel> channel, std::string name,
         std::chrono::milliseconds call_deadline = std::chrono::seconds(30));

  // Uploads one file; returns its digest. Idempotent: a stored artifact is not sent again.
  [[nodiscard]] absl::StatusOr<std::string> Upload(const std::string& path);
  // The orchestrator's artifact store is known to start empty (the private one of `cosimo run`):
  // uploads are sent without first asking whether it holds them (one round trip less).
  void AssumeEmptyStore() { empty_store_ = true; }
  // Uploads the scenario's artifacts, sets their digests, and submits. Returns the job id.
  [[nodiscard]] absl::StatusOr<std::string> Submit(v1::Scenario scenario);
  // A training job (docs/hybrid.md): uploads the scenario's artifacts and the data CSV, sets
  // training's data_digest and data_name, and submits. Returns the job id.
  [[nodiscard]] absl::StatusOr<std::string> SubmitTraining(v1::Scenario scenario,
                                                           v1::TrainingRequest training,
                                                           const std::string& data_path);
  // A sweep job (docs/sweeps.md): uploads the base scenario's artifacts and submits the sweep
  // over it (the sweep's own base fields cleared). Returns the job id.
  [[nodiscard]] absl::StatusOr<std::string> SubmitSweep(v1::Scenario base, v1::Sweep sweep);
  // A calibration job (docs/calibration.md): uploads the base scenario's artifacts and submits
  // the calibration (its measured samples read by the caller) over it. Returns the job id.
  [[nodiscard]] absl::StatusOr<std::string> SubmitFit(v1::Scenario base,
                                                      v1::CalibrationJob calibration);
  // The job's status; with `wait_for_end` > 0, once it has ended or after that long (at most
  // 10 s), whichever is first (GetJobRequest.wait_for_end_ms).
  // With `calibration_samples`, a calibration job's status carries its measured samples
  // (GetJobRequest.calibration_samples), which statuses leave out otherwise.
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Get(
      const std::string& job_id,
      std::chrono::milliseconds wait_for_end = std::chrono::milliseconds(0),
      bool calibration_samples = false);
  // Streams the job's status to `on_update` until it ends; returns the final status.
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Watch(
      const std::string& job_id, const std::function<void(const v1::JobStatus&)>& on_update,
      int min_interval_ms = 200);
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Cancel(const std::string& job_id);
  // Queues a failed or canceled sweep again: its finished variants are kept (ResumeJob).
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Resume(const std::string& job_id);
  [[nodiscard]] absl::StatusOr<std::vector<v1::JobStatus>> List();
  // The workers attached to the orchestrator.
  [[nodiscard]] absl::StatusOr<std::vector<v1::WorkerStatus>> Workers();
  // Forgets a finished job and its results on the orchestrator.
  [[nodiscard]] absl::Status Delete(const std::string& job_id);
  // Fails (naming the state and the reason) unless the job succeeded. With `variant`: that
  // variant's full results of a sweep job that keeps them (once the variant has succeeded).
  [[nodiscard]] absl::StatusOr<JobResults> Results(const std::string& job_id,
                                                   std::optional<uint64_t> variant = std::nullopt);
  // The same, or a part of it, or a running job's rows so far (`request`).
  [[nodiscard]] absl::StatusOr<JobResults> Results(const std::string& job_id,
                                                   const ResultsRequest& request);
  // Results(job_id, {partial, first_row = rows held}) appended to `held` (the job's rows from
  // its first; empty to begin), whose metadata becomes the one read: a job's rows read as it runs
  // and the rest once it ended. Rows the orchestrator no longer holds (a run resumed from a
  // checkpoint cut them back) are cut from `held` too; an error leaves the rows held before (or
  // fewer, when rows were cut) and their metadata; results with other columns are an error.
  [[nodiscard]] absl::Status ReadMoreResults(const std::string& job_id, bool partial,
                                             JobResults* held);
  // A succeeded training job's weights file; fails naming the state otherwise.
  [[nodiscard]] absl::StatusOr<v1::TrainingResult> TrainingResult(const std::string& job_id);
  // The job's log so far (its units' FMI log messages and output), of `unit` alone unless empty.
  [[nodiscard]] absl::StatusOr<std::vector<v1::LogEntry>> Logs(const std::string& job_id,
                                                               const std::string& unit = "");

  const std::string& target() const { return target_; }

 private:
  // GetResults of `read` into `into`: a table with rows keeps its first header.first_row rows
  // and appends those read (FailedPrecondition for other columns); an empty one becomes the
  // table read.
  [[nodiscard]] absl::Status ReadResults(const std::string& job_id, const ResultsRequest& read,
                                         JobResults* into);
  void SetDeadline(grpc::ClientContext* context) const;
  // Uploads the files the scenario's units name and sets their digests.
  [[nodiscard]] absl::Status UploadArtifacts(v1::Scenario* scenario);
  [[nodiscard]] absl::StatusOr<std::string> SubmitRequest(const v1::SubmitJobRequest& request);

  std::string target_;
  std::chrono::milliseconds call_deadline_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::ArtifactService::Stub> artifacts_;
  bool empty_store_ = false;
};

// `cosimo run`: an orchestrator in this process on loopback (cosimo_embedded links it; the client
// library does not), cosimo-worker child processes for the units, the job submitted through the
// same client path as production. Child processes are stopped on every exit path (and die with
// this process, PR_SET_PDEATHSIG).
struct EmbeddedOptions {
  // The workers' program: default $COSIMO_WORKER_BINARY; without either, the workers are forks
  // of this process running the worker's main when that is safe (RunEmbedded), else
  // cosimo-worker beside us.
  std::string worker_binary;
  // At most this many worker processes, each hosting several units (cosimo-worker --slots) when
  // the scenario has more units than that (EmbeddedWorkerPlan). 0: one process per worker label
  // holding all that label's units, so that a job's master runs in its worker (RunJob,
  // docs/protocol.md) rather than a round trip per macro step away.
  int max_workers = 0;
  std::string worker_log_level = "warn";   // the orchestrator's is this process's (--log-level)
  std::string worker_log_format = "text";  // text or json (cosimo/common/logging.h)
  std::function<void(const v1::JobStatus&)> on_update;  // progress, may be empty
  // Set to true (from another thread, e.g. on Ctrl-C) to cancel the job.
  const std::atomic<bool>* cancel = nullptr;
  // Where the run's wall time goes (`cosimo run --timings`): marked as it goes; may be null.
  PhaseTimer* timings = nullptr;
  // Given the run's results (those RunEmbedded returns) while the orchestrator and the workers
  // stop, so that writing them overlaps their stopping; its error becomes the run's. May be
  // empty.
  std::function<absl::Status(const JobResults&)> on_results;
  // Given the rows read so far each time more are read while the job runs (a prefix of its
  // results; the table only grows), so that they can be written as they come. May be empty.
  std::function<void(const JobResults&)> on_rows;
  // Submits the job (the scenario's artifacts uploaded by it); empty: Client::Submit of the
  // scenario. `cosimo fit` submits a calibration job over it (Client::SubmitFit).
  std::function<absl::StatusOr<std::string>(Client&, const v1::Scenario&)> submit;
  // Each worker label's processes this many times over (>= 1): the variants of a sweep or a
  // calibration run on that many workers at once.
  int worker_copies = 1;
};
// The worker processes of an embedded run: per worker label of the scenario's units (in order
// of first use; "" for none), how many processes and how many slots each. The units of a label
// share max(1, its share of `max_workers`) processes, as few slots each as covers them; so with no
// labels: min(units, max_workers) processes of ceil(units / processes) slots. `max_workers` 0:
// one process per label with a slot for each of its units.
struct EmbeddedWorkers {
  std::string label;
  int processes = 1;
  int slots = 1;
};
std::vector<EmbeddedWorkers> EmbeddedWorkerPlan(const v1::Scenario& scenario, int max_workers);

[[nodiscard]] absl::StatusOr<JobResults> RunEmbedded(const v1::Scenario& scenario,
                                                     const EmbeddedOptions& options);

}  // namespace cosimo::client
