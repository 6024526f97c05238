// The gRPC service adapters: they translate messages and delegate to the JobManager and
// ArtifactStore (WorkerService is in worker_service.h); no domain logic lives here. Status
// conversion goes through cosimo::ToGrpcStatus only.
#pragma once

#include <chrono>

#include "cosimo/v1/artifact_service.grpc.pb.h"
#include "cosimo/v1/job_service.grpc.pb.h"
#include "orchestrator/src/artifact_store.h"
#include "orchestrator/src/job_manager.h"
#include "orchestrator/src/token_check.h"

namespace cosimo::orchestrator {

class JobServiceImpl final : public v1::JobService::Service {
 public:
  // `auth` checks every call's token; it outlives the service.
  JobServiceImpl(JobManager* jobs, const TokenCheck* auth) : jobs_(jobs), auth_(auth) {}
  grpc::Status SubmitJob(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                         v1::SubmitJobResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                      v1::GetJobResponse* response) override;
  grpc::Status WatchJob(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::JobStatus>* writer) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                         v1::CancelJobResponse* response) override;
  grpc::Status ResumeJob(grpc::ServerContext* context, const v1::ResumeJobRequest* request,
                         v1::ResumeJobResponse* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override;
  grpc::Status GetResults(grpc::ServerContext* context, const v1::GetResultsRequest* request,
                          grpc::ServerWriter<v1::ResultsChunk>* writer) override;
  grpc::Status DeleteJob(grpc::ServerContext* context, const v1::DeleteJobRequest* request,
                         v1::DeleteJobResponse* response) override;
  grpc::Status ListWorkers(grpc::ServerContext* context, const v1::ListWorkersRequest* request,
                           v1::ListWorkersResponse* response) override;
  grpc::Status GetTrainingResult(grpc::ServerContext* context,
                                 const v1::GetTrainingResultRequest* request,
                                 v1::TrainingResult* response) override;
  grpc::Status GetJobLogs(grpc::ServerContext* context, const v1::GetJobLogsRequest* request,
                          v1::GetJobLogsResponse* response) override;

 private:
  JobManager* jobs_;
  const TokenCheck* auth_;
};

// The most data one UploadChunk may carry (artifact_service.proto).
constexpr size_t kMaxUploadChunkBytes = size_t{1} << 20;

class ArtifactServiceImpl final : public v1::ArtifactService::Service {
 public:
  // Uploads must announce their size (UploadChunk.size), at most `max_upload_bytes`, and send
  // exactly that much in chunks of at most kMaxUploadChunkBytes; otherwise they are refused
  // before more is written.
  // `auth` checks uploads and Stat (clients), `fetch_auth` fetches (workers and clients).
  ArtifactServiceImpl(ArtifactStore* store, const TokenCheck* auth, const TokenCheck* fetch_auth,
                      uint64_t max_upload_bytes)
      : store_(store), auth_(auth), fetch_auth_(fetch_auth), max_upload_bytes_(max_upload_bytes) {}
  grpc::Status Upload(grpc::ServerContext* context, grpc::ServerReader<v1::UploadChunk>* reader,
                      v1::UploadResponse* response) override;
  grpc::Status Stat(grpc::ServerContext* context, const v1::StatRequest* request,
                    v1::StatResponse* response) override;
  grpc::Status Fetch(grpc::ServerContext* context, const v1::FetchRequest* request,
                     grpc::ServerWriter<v1::FetchChunk>* writer) override;

 private:
  ArtifactStore* store_;
  const TokenCheck* auth_;
  const TokenCheck* fetch_auth_;
  uint64_t max_upload_bytes_;
};

}  // namespace cosimo::orchestrator
