#include "orchestrator/src/services.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>

#include "cosimo/common/digest.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/rpc_status.h"
#include "cosimo/common/status.h"

namespace cosimo::orchestrator {

// ----- JobService -----------------------------------------------------------------------------

grpc::Status JobServiceImpl::SubmitJob(grpc::ServerContext* context,
                                       const v1::SubmitJobRequest* request,
                                       v1::SubmitJobResponse* response) {
  Caller caller;
  if (grpc::Status s = auth_->Check(*context, &caller); !s.ok()) return s;
  absl::StatusOr<std::string> id = jobs_->Submit(
      request->scenario(), caller, request->has_training() ? &request->training() : nullptr,
      request->has_sweep() ? &request->sweep() : nullptr,
      request->has_calibration() ? &request->calibration() : nullptr);
  if (!id.ok()) return ToGrpcStatus(id.status());
  response->set_job_id(*id);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                    v1::GetJobResponse* response) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  absl::StatusOr<v1::JobStatus> status = jobs_->Get(request->job_id());
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::min(request->wait_for_end_ms(), 10000u));
  uint64_t version = 0;  // each change of the job wakes the wait; its end or the deadline ends it
  while (status.ok() && !IsFinished(status->state()) && !context->IsCancelled() &&
         std::chrono::steady_clock::now() < deadline) {
    status = jobs_->WaitForChange(request->job_id(), &version,
                                  std::chrono::duration_cast<std::chrono::milliseconds>(
                                      deadline - std::chrono::steady_clock::now()) +
                                      std::chrono::milliseconds(1));
  }
  if (!status.ok()) return ToGrpcStatus(status.status());
  if (request->calibration_samples() && status->has_fit()) {
    absl::StatusOr<v1::CalibrationJob> samples = jobs_->CalibrationSamples(request->job_id());
    if (!samples.ok()) return ToGrpcStatus(samples.status());
    *status->mutable_fit()->mutable_calibration()->mutable_samples() = samples->samples();
  }
  *response->mutable_status() = *std::move(status);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::WatchJob(grpc::ServerContext* context,
                                      const v1::WatchJobRequest* request,
                                      grpc::ServerWriter<v1::JobStatus>* writer) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  const auto interval =
      std::chrono::milliseconds(request->min_interval_ms() > 0 ? request->min_interval_ms() : 200);
  uint64_t version = 0;
  while (!context->IsCancelled()) {
    absl::StatusOr<v1::JobStatus> status =
        jobs_->WaitForChange(request->job_id(), &version, std::chrono::milliseconds(1000));
    if (!status.ok()) return ToGrpcStatus(status.status());
    if (!writer->Write(*status)) return grpc::Status::OK;
    if (IsFinished(status->state())) return grpc::Status::OK;
    std::this_thread::sleep_for(interval);
  }
  return grpc::Status(grpc::StatusCode::CANCELLED, "watch canceled by the client");
}

grpc::Status JobServiceImpl::CancelJob(grpc::ServerContext* context,
                                       const v1::CancelJobRequest* request,
                                       v1::CancelJobResponse* response) {
  Caller caller;
  if (grpc::Status s = auth_->Check(*context, &caller); !s.ok()) return s;
  absl::StatusOr<v1::JobStatus> status = jobs_->Cancel(request->job_id(), caller);
  if (!status.ok()) return ToGrpcStatus(status.status());
  *response->mutable_status() = *std::move(status);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::ResumeJob(grpc::ServerContext* context,
                                       const v1::ResumeJobRequest* request,
                                       v1::ResumeJobResponse* response) {
  Caller caller;
  if (grpc::Status s = auth_->Check(*context, &caller); !s.ok()) return s;
  absl::StatusOr<v1::JobStatus> status = jobs_->ResumeEnded(request->job_id(), caller);
  if (!status.ok()) return ToGrpcStatus(status.status());
  *response->mutable_status() = *std::move(status);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::ListJobs(grpc::ServerContext* context,
                                      const v1::ListJobsRequest* request,
                                      v1::ListJobsResponse* response) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  absl::StatusOr<JobManager::JobPage> page =
      jobs_->List(request->page_size(), request->page_token());
  if (!page.ok()) return ToGrpcStatus(page.status());
  for (v1::JobStatus& status : page->jobs) *response->add_jobs() = std::move(status);
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::ListWorkers(grpc::ServerContext* context,
                                         const v1::ListWorkersRequest*,
                                         v1::ListWorkersResponse* response) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  for (v1::WorkerStatus& worker : jobs_->Workers()) *response->add_workers() = std::move(worker);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::GetResults(grpc::ServerContext* context,
                                        const v1::GetResultsRequest* request,
                                        grpc::ServerWriter<v1::ResultsChunk>* writer) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  JobManager::ResultsRange range;
  range.first_row = request->first_row();
  if (request->has_last_rows()) range.last_rows = request->last_rows();
  if (request->has_variant()) range.variant = request->variant();
  range.partial = request->partial();
  v1::ResultsChunk chunk;
  return ToGrpcStatus(jobs_->ReadResults(
      request->job_id(), range,
      [&](const v1::ResultsHeader& header) {
        *chunk.mutable_header() = header;
        return writer->Write(chunk);
      },
      [&](uint64_t, uint64_t, const v1::ResultRows& rows) {
        *chunk.mutable_rows() = rows;
        return writer->Write(chunk);
      }));
}

grpc::Status JobServiceImpl::GetTrainingResult(grpc::ServerContext* context,
                                               const v1::GetTrainingResultRequest* request,
                                               v1::TrainingResult* response) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  absl::StatusOr<v1::TrainingResult> result = jobs_->TrainingResult(request->job_id());
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::GetJobLogs(grpc::ServerContext* context,
                                        const v1::GetJobLogsRequest* request,
                                        v1::GetJobLogsResponse* response) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  absl::StatusOr<std::vector<v1::LogEntry>> lines = jobs_->Logs(request->job_id(), request->unit());
  if (!lines.ok()) return ToGrpcStatus(lines.status());
  for (v1::LogEntry& line : *lines) *response->add_entries() = std::move(line);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::DeleteJob(grpc::ServerContext* context,
                                       const v1::DeleteJobRequest* request,
                                       v1::DeleteJobResponse* /*response*/) {
  Caller caller;
  if (grpc::Status s = auth_->Check(*context, &caller); !s.ok()) return s;
  return ToGrpcStatus(jobs_->Delete(request->job_id(), caller));
}

// ----- ArtifactService ------------------------------------------------------------------------

grpc::Status ArtifactServiceImpl::Upload(grpc::ServerContext* context,
                                         grpc::ServerReader<v1::UploadChunk>* reader,
                                         v1::UploadResponse* response) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  v1::UploadChunk chunk;
  if (!reader->Read(&chunk)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "empty upload");
  }
  const std::string digest = chunk.digest();
  if (!IsValidDigest(digest)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "upload: digest '" + digest + "' is not sha256:<64 hex digits>");
  }
  response->set_digest(digest);
  if (store_->Touch(digest)) {  // stored, and used now: the retention period starts again
    response->set_already_stored(true);
    while (reader->Read(&chunk)) {
    }
    return grpc::Status::OK;
  }
  const uint64_t size = chunk.size();
  if (size > max_upload_bytes_) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "upload: " + std::to_string(size) +
                            " bytes is more than this "
                            "orchestrator accepts (" +
                            std::to_string(max_upload_bytes_) + " bytes, --max-upload-mb)");
  }
  const std::string temp = store_->TemporaryPath();
  // Refuses the upload and removes what was written of it.
  auto refuse = [&temp](grpc::StatusCode code, const std::string& message) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return grpc::Status(code, "upload: " + message);
  };
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return refuse(grpc::StatusCode::INTERNAL, "cannot write " + temp);
    uint64_t written = 0;
    do {
      if (chunk.data().size() > kMaxUploadChunkBytes) {
        return refuse(grpc::StatusCode::INVALID_ARGUMENT,
                      "a chunk of " + std::to_string(chunk.data().size()) +
                          " bytes is more than the " + std::to_string(kMaxUploadChunkBytes) +
                          " bytes a chunk may hold");
      }
      if (chunk.data().size() > size - written) {
        return refuse(grpc::StatusCode::INVALID_ARGUMENT,
                      "more data than the " + std::to_string(size) + " bytes announced");
      }
      out.write(chunk.data().data(), static_cast<std::streamsize>(chunk.data().size()));
      written += chunk.data().size();
    } while (reader->Read(&chunk));
    out.close();
    if (!out) return refuse(grpc::StatusCode::INTERNAL, "error writing " + temp);
    if (written != size) {
      return refuse(
          grpc::StatusCode::INVALID_ARGUMENT,
          std::to_string(written) + " bytes received, " + std::to_string(size) + " announced");
    }
    spdlog::info("artifact {} uploaded ({} bytes)", digest, written);
  }
  return ToGrpcStatus(store_->Commit(temp, digest));
}

grpc::Status ArtifactServiceImpl::Stat(grpc::ServerContext* context, const v1::StatRequest* request,
                                       v1::StatResponse* response) {
  if (grpc::Status s = auth_->Check(*context); !s.ok()) return s;
  // A client asks before it skips the upload and submits: a use (touched before its size is
  // read), so that the artifact is not pruned in between.
  absl::StatusOr<uint64_t> size = store_->Touch(request->digest())
                                      ? store_->Size(request->digest())
                                      : absl::NotFoundError(request->digest());
  response->set_stored(size.ok());
  if (size.ok()) response->set_size(*size);
  return grpc::Status::OK;
}

grpc::Status ArtifactServiceImpl::Fetch(grpc::ServerContext* context,
                                        const v1::FetchRequest* request,
                                        grpc::ServerWriter<v1::FetchChunk>* writer) {
  if (grpc::Status s = fetch_auth_->Check(*context); !s.ok()) return s;
  absl::StatusOr<uint64_t> size = store_->Size(request->digest());
  if (!size.ok()) return ToGrpcStatus(size.status());
  std::ifstream in(store_->PathOf(request->digest()), std::ios::binary);
  if (!in) return grpc::Status(grpc::StatusCode::INTERNAL, "cannot read artifact");
  v1::FetchChunk chunk;
  chunk.set_size(*size);
  std::string buffer(FileChunkBytes(*size), '\0');
  bool first = true;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n <= 0 && !first) break;
    chunk.set_data(buffer.data(), static_cast<size_t>(std::max<std::streamsize>(n, 0)));
    if (!writer->Write(chunk)) break;
    chunk.clear_size();
    first = false;
  }
  return grpc::Status::OK;
}

}  // namespace cosimo::orchestrator
