#include "cosimo/client/client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "cosimo/common/csv.h"
#include "cosimo/common/digest.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/rpc_status.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"

namespace cosimo::client {

namespace fs = std::filesystem;

std::string DefaultOrchestrator() {
  const char* env = std::getenv("COSIMO_ORCHESTRATOR");
  return (env != nullptr && *env != '\0') ? env : "localhost:7700";
}

Client::Client(const std::string& target, std::chrono::milliseconds call_deadline,
               std::shared_ptr<grpc::ChannelCredentials> credentials)
    : target_(target), call_deadline_(call_deadline) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  if (credentials == nullptr) credentials = grpc::InsecureChannelCredentials();
  channel_ = grpc::CreateCustomChannel(target, credentials, args);
  jobs_ = v1::JobService::NewStub(channel_);
  artifacts_ = v1::ArtifactService::NewStub(channel_);
}

Client::Client(std::shared_ptr<grpc::Channel> channel, std::string name,
               std::chrono::milliseconds call_deadline)
    : target_(std::move(name)), call_deadline_(call_deadline), channel_(std::move(channel)) {
  jobs_ = v1::JobService::NewStub(channel_);
  artifacts_ = v1::ArtifactService::NewStub(channel_);
}

void Client::SetDeadline(grpc::ClientContext* context) const {
  context->set_deadline(std::chrono::system_clock::now() + call_deadline_);
}

namespace {

absl::Status Rpc(const grpc::Status& status, const std::string& what, const std::string& target) {
  if (status.ok()) return absl::OkStatus();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::UnavailableError("cannot reach the orchestrator at " + target + " (" + what +
                                  ": " + status.error_message() + ")");
  }
  // gRPC's own refusal of a message over the orchestrator's limit names no flag.
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
      status.error_message().find("message larger than max") != std::string::npos) {
    return absl::ResourceExhaustedError(what + ": " + status.error_message() +
                                        " (bytes; the orchestrator receives messages of at most "
                                        "cosimo-orchestrator --max-message-mb)");
  }
  return FromGrpcStatus(status);
}

}  // namespace

absl::StatusOr<std::string> Client::Upload(const std::string& path) {
  absl::StatusOr<std::string> digest = DigestOfFile(path);
  if (!digest.ok()) return digest.status();
  if (!empty_store_) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::StatRequest request;
    request.set_digest(*digest);
    v1::StatResponse response;
    absl::Status s = Rpc(artifacts_->Stat(&context, request, &response), "upload", target_);
    if (!s.ok()) return s;
    if (response.stored()) return digest;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read '" + path + "'");
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  grpc::ClientContext context;
  // Uploads get time in proportion to their size (at least 10 MB/s).
  context.set_deadline(std::chrono::system_clock::now() + call_deadline_ +
                       std::chrono::seconds(size / (10 << 20)));
  v1::UploadResponse response;
  auto writer = artifacts_->Upload(&context, &response);
  v1::UploadChunk chunk;
  chunk.set_digest(*digest);
  chunk.set_size(size);
  chunk.set_file_name(fs::path(path).filename().string());
  std::string buffer(FileChunkBytes(size), '\0');
  bool sent_any = false;
  while (in || !sent_any) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n <= 0 && sent_any) break;
    chunk.set_data(buffer.data(), static_cast<size_t>(std::max<std::streamsize>(0, n)));
    if (!writer->Write(chunk)) break;
    sent_any = true;
    chunk.clear_digest();
    chunk.clear_size();
    chunk.clear_file_name();
  }
  writer->WritesDone();
  absl::Status s = Rpc(writer->Finish(), "upload of " + path, target_);
  if (!s.ok()) return Annotate(s, "upload of '" + path + "'");
  return digest;
}

absl::Status Client::UploadArtifacts(v1::Scenario* scenario) {
  std::map<std::string, std::string> sent;  // path -> digest: a file of several units once
  for (v1::Unit& unit : *scenario->mutable_units()) {
    for (const UnitArtifact& artifact : MutableUnitArtifacts(&unit)) {
      if (artifact.path->empty() || !artifact.digest->empty()) continue;
      if (auto it = sent.find(*artifact.path); it != sent.end()) {
        *artifact.digest = it->second;
        continue;
      }
      absl::StatusOr<std::string> uploaded = Upload(*artifact.path);
      // An unreachable orchestrator is not the unit's fault: said as it is.
      if (absl::IsUnavailable(uploaded.status())) return uploaded.status();
      if (!uploaded.ok()) return Annotate(uploaded.status(), "unit '" + unit.name() + "'");
      *artifact.digest = *uploaded;
      sent.emplace(*artifact.path, *uploaded);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Client::Submit(v1::Scenario scenario) {
  v1::SubmitJobRequest request;
  if (absl::Status s = UploadArtifacts(&scenario); !s.ok()) return s;
  *request.mutable_scenario() = std::move(scenario);
  return SubmitRequest(request);
}

absl::StatusOr<std::string> Client::SubmitTraining(v1::Scenario scenario,
                                                   v1::TrainingRequest training,
                                                   const std::string& data_path) {
  if (!std::ifstream(data_path, std::ios::binary)) {
    return absl::InvalidArgumentError("--data: cannot read '" + data_path + "'");
  }
  if (absl::Status s = UploadArtifacts(&scenario); !s.ok()) return s;
  absl::StatusOr<std::string> data = Upload(data_path);
  if (!data.ok()) return Annotate(data.status(), "the training data");
  training.set_data_digest(*data);
  training.set_data_name(fs::path(data_path).filename().string());
  v1::SubmitJobRequest request;
  *request.mutable_scenario() = std::move(scenario);
  *request.mutable_training() = std::move(training);
  return SubmitRequest(request);
}

absl::StatusOr<std::string> Client::SubmitSweep(v1::Scenario base, v1::Sweep sweep) {
  if (absl::Status s = UploadArtifacts(&base); !s.ok()) return s;
  sweep.clear_base();
  v1::SubmitJobRequest request;
  *request.mutable_scenario() = std::move(base);
  *request.mutable_sweep() = std::move(sweep);
  return SubmitRequest(request);
}

absl::StatusOr<std::string> Client::SubmitFit(v1::Scenario base, v1::CalibrationJob calibration) {
  if (absl::Status s = UploadArtifacts(&base); !s.ok()) return s;
  calibration.mutable_calibration()->clear_scenario();
  v1::SubmitJobRequest request;
  *request.mutable_scenario() = std::move(base);
  *request.mutable_calibration() = std::move(calibration);
  return SubmitRequest(request);
}

absl::StatusOr<v1::TrainingResult> Client::TrainingResult(const std::string& job_id) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::GetTrainingResultRequest request;
  request.set_job_id(job_id);
  v1::TrainingResult response;
  absl::Status s =
      Rpc(jobs_->GetTrainingResult(&context, request, &response), "training result", target_);
  if (!s.ok()) return s;
  return response;
}

std::string FormatLogLine(const v1::LogEntry& line) {
  std::string text =
      line.unit() + " t=" + (std::isnan(line.time()) ? "-" : FormatDouble(line.time()));
  if (line.source() == "fmi") {
    text += " " + line.status() + (line.category().empty() ? "" : " [" + line.category() + "]");
  } else {
    text += " " + line.source() + ":";
  }
  return text + " " + line.text();
}

absl::StatusOr<std::vector<v1::LogEntry>> Client::Logs(const std::string& job_id,
                                                       const std::string& unit) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::GetJobLogsRequest request;
  request.set_job_id(job_id);
  request.set_unit(unit);
  v1::GetJobLogsResponse response;
  if (absl::Status s = Rpc(jobs_->GetJobLogs(&context, request, &response), "job log", target_);
      !s.ok()) {
    return s;
  }
  return std::vector<v1::LogEntry>(response.entries().begin(), response.entries().end());
}

absl::StatusOr<std::string> Client::SubmitRequest(const v1::SubmitJobRequest& request) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::SubmitJobResponse response;
  absl::Status s = Rpc(jobs_->SubmitJob(&context, request, &response), "submit", target_);
  if (!s.ok()) return s;
  return response.job_id();
}

absl::StatusOr<v1::JobStatus> Client::Get(const std::string& job_id,
                                          std::chrono::milliseconds wait_for_end,
                                          bool calibration_samples) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + call_deadline_ + wait_for_end);
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  request.set_wait_for_end_ms(static_cast<uint32_t>(wait_for_end.count()));
  request.set_calibration_samples(calibration_samples);
  v1::GetJobResponse response;
  absl::Status s = Rpc(jobs_->GetJob(&context, request, &response), "get job", target_);
  if (!s.ok()) return s;
  return response.status();
}

absl::StatusOr<v1::JobStatus> Client::Watch(
    const std::string& job_id, const std::function<void(const v1::JobStatus&)>& on_update,
    int min_interval_ms) {
  grpc::ClientContext context;
  // A watch lasts as long as the job: the deadline only guards against a lost orchestrator
  // that never answers (the server sends a status at least every second while running).
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::hours(24 * 30));
  v1::WatchJobRequest request;
  request.set_job_id(job_id);
  request.set_min_interval_ms(min_interval_ms);
  auto reader = jobs_->WatchJob(&context, request);
  v1::JobStatus status;
  v1::JobStatus last;
  bool any = false;
  while (reader->Read(&status)) {
    any = true;
    if (on_update) on_update(status);
    last = status;
  }
  absl::Status s = Rpc(reader->Finish(), "watch", target_);
  if (!s.ok()) return s;
  if (!any) return absl::UnavailableError("watch: the orchestrator sent no status");
  return last;
}

absl::StatusOr<v1::JobStatus> Client::Cancel(const std::string& job_id) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  v1::CancelJobResponse response;
  absl::Status s = Rpc(jobs_->CancelJob(&context, request, &response), "cancel", target_);
  if (!s.ok()) return s;
  return response.status();
}

absl::StatusOr<v1::JobStatus> Client::Resume(const std::string& job_id) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ResumeJobRequest request;
  request.set_job_id(job_id);
  v1::ResumeJobResponse response;
  absl::Status s = Rpc(jobs_->ResumeJob(&context, request, &response), "resume", target_);
  if (!s.ok()) return s;
  return response.status();
}

absl::Status Client::Delete(const std::string& job_id) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::DeleteJobRequest request;
  request.set_job_id(job_id);
  v1::DeleteJobResponse response;
  return Rpc(jobs_->DeleteJob(&context, request, &response), "delete", target_);
}

absl::StatusOr<std::vector<v1::JobStatus>> Client::List() {
  std::vector<v1::JobStatus> jobs;
  v1::ListJobsRequest request;
  do {  // a page at a time, each call with its own deadline
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::ListJobsResponse response;
    absl::Status s = Rpc(jobs_->ListJobs(&context, request, &response), "list", target_);
    if (!s.ok()) return s;
    jobs.insert(jobs.end(), response.jobs().begin(), response.jobs().end());
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty());
  return jobs;
}

absl::StatusOr<std::vector<v1::WorkerStatus>> Client::Workers() {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ListWorkersResponse response;
  absl::Status s = Rpc(jobs_->ListWorkers(&context, v1::ListWorkersRequest(), &response),
                       "list workers", target_);
  if (!s.ok()) return s;
  return std::vector<v1::WorkerStatus>(response.workers().begin(), response.workers().end());
}

absl::StatusOr<JobResults> Client::Results(const std::string& job_id,
                                           std::optional<uint64_t> variant) {
  return Results(job_id, ResultsRequest{.variant = variant});
}

absl::StatusOr<JobResults> Client::Results(const std::string& job_id, const ResultsRequest& read) {
  JobResults results;
  COSIMO_RETURN_IF_ERROR(ReadResults(job_id, read, &results));
  return results;
}

absl::Status Client::ReadMoreResults(const std::string& job_id, bool partial, JobResults* held) {
  // In place, not on a copy (a copy of the rows held at every read was quadratic in a long
  // run's rows); an error cuts back what it appended and restores the metadata.
  const size_t before = held->rows();
  const v1::ResultsMetadata metadata = held->metadata;
  absl::Status s = ReadResults(job_id, {.partial = partial, .first_row = before}, held);
  if (!s.ok()) {
    held->KeepRows(before);
    held->metadata = metadata;
    return s;
  }
  held->first_row = 0;
  return absl::OkStatus();
}

absl::Status Client::ReadResults(const std::string& job_id, const ResultsRequest& read,
                                 JobResults* into) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + call_deadline_ * 10);
  v1::GetResultsRequest request;
  request.set_job_id(job_id);
  if (read.variant) request.set_variant(*read.variant);
  request.set_partial(read.partial);
  request.set_first_row(read.first_row);
  if (read.last_rows) request.set_last_rows(*read.last_rows);
  auto reader = jobs_->GetResults(&context, request);
  const bool appending = into->rows() > 0;
  v1::ResultsChunk chunk;
  while (reader->Read(&chunk)) {
    if (!chunk.has_header()) {
      AppendRows(chunk.rows(), into);
      continue;
    }
    const v1::ResultsHeader& header = chunk.header();
    if (appending) {
      if (!std::equal(into->columns.begin(), into->columns.end(), header.columns().begin(),
                      header.columns().end())) {
        context.TryCancel();
        (void)reader->Finish();
        return absl::FailedPreconditionError("the results of " + job_id +
                                             " have other columns than the rows read before");
      }
      into->metadata = header.metadata();
      into->KeepRows(header.first_row());
      continue;
    }
    static_cast<ResultTable&>(*into) = ResultTable();
    FromProto(header, into);
    into->metadata = header.metadata();
    into->first_row = header.first_row();
    // Reserved at once rather than grown (each fresh page a page fault): a simulation's rows
    // are its accepted steps and its start.
    const uint64_t rows = std::min<uint64_t>(into->metadata.steps_accepted() + 1, 10'000'000);
    into->values.reserve(rows * into->columns.size());
  }
  return Rpc(reader->Finish(), "results", target_);
}

}  // namespace cosimo::client
