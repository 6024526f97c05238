// Durable job records in SQLite: each job's status, scenario and, once it succeeded, its
// results (columns, values, metadata). With an empty path the database lives in memory (the
// embedded `cosimo run`). Thread safe (one connection, serialised by a mutex).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/csv.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/scenario.pb.h"

struct sqlite3;

namespace cosimo::orchestrator {

struct StoredJob {
  v1::JobStatus status;
  v1::Scenario scenario;
};

struct StoredResults : ResultTable {
  v1::ResultsMetadata metadata;
};

class JobStore {
 public:
  // Opens (creating if needed) `path`; ":memory:" or empty for a store that lives in memory.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<JobStore>> Open(const std::string& path);
  ~JobStore();

  [[nodiscard]] absl::Status Put(const v1::JobStatus& status, const v1::Scenario& scenario);
  [[nodiscard]] absl::Status UpdateStatus(const v1::JobStatus& status);
  [[nodiscard]] absl::Status PutResults(const std::string& job_id, const StoredResults& results);
  [[nodiscard]] absl::StatusOr<std::vector<StoredJob>> LoadAll();
  [[nodiscard]] absl::StatusOr<StoredResults> LoadResults(const std::string& job_id);
  // Removes the job's record and results (nothing to remove is not an error).
  [[nodiscard]] absl::Status Delete(const std::string& job_id);

 private:
  explicit JobStore(sqlite3* db) : db_(db) {}
  [[nodiscard]] absl::Status Exec(const std::string& sql);
  [[nodiscard]] absl::Status Error(const std::string& what) const;

  std::mutex mutex_;
  sqlite3* db_;
};

}  // namespace cosimo::orchestrator
