// Durable job records in SQLite: each job's status, scenario and, once it succeeded, its
// results (columns, values, metadata). With an empty path the database lives in memory (the
// embedded `cosimo run`). Thread safe (one connection, serialised by a mutex).
//
// Results are stored in chunks of whole rows (a few MiB each), all in one transaction: SQLite
// holds at most 1e9 bytes in one blob, so a table bigger than that is never one blob. Every
// SQLite return code is checked; a table that cannot be stored is an error, never a partial or
// empty result.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/csv.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/scenario.pb.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cosimo::orchestrator {

struct StoredJob {
  v1::JobStatus status;
  v1::Scenario scenario;
};

struct StoredResults : ResultTable {
  v1::ResultsMetadata metadata;
};

struct JobStoreOptions {
  // Bytes of results per stored chunk (whole rows; a single row bigger than this is one chunk).
  size_t chunk_bytes = size_t{8} << 20;
  // SQLite's limit on one blob or text (SQLITE_LIMIT_LENGTH); 0 keeps SQLite's (1e9 bytes).
  // Tests lower it to reach the limit without gigabytes of memory.
  int max_blob_bytes = 0;
};

// `bytes` as the int length SQLite's bind functions take, or an error naming `what` when it does
// not fit (a cast would wrap to a negative or small length and store the wrong bytes).
[[nodiscard]] absl::StatusOr<int> BlobLength(size_t bytes, const std::string& what);

class JobStore {
 public:
  // Opens (creating if needed) `path`; ":memory:" or empty for a store that lives in memory.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<JobStore>> Open(
      const std::string& path, const JobStoreOptions& options = {});
  ~JobStore();

  [[nodiscard]] absl::Status Put(const v1::JobStatus& status, const v1::Scenario& scenario);
  [[nodiscard]] absl::Status UpdateStatus(const v1::JobStatus& status);
  [[nodiscard]] absl::Status PutResults(const std::string& job_id, const StoredResults& results);
  [[nodiscard]] absl::StatusOr<std::vector<StoredJob>> LoadAll();
  // The scenario stored with the job (NotFound when there is no such job).
  [[nodiscard]] absl::StatusOr<v1::Scenario> LoadScenario(const std::string& job_id);
  [[nodiscard]] absl::StatusOr<StoredResults> LoadResults(const std::string& job_id);
  // Removes the job's record and results (nothing to remove is not an error).
  [[nodiscard]] absl::Status Delete(const std::string& job_id);

 private:
  JobStore(sqlite3* db, const JobStoreOptions& options) : db_(db), options_(options) {}
  [[nodiscard]] absl::Status Exec(const std::string& sql);
  [[nodiscard]] absl::Status Error(const std::string& what) const;
  [[nodiscard]] absl::Status BindBlob(sqlite3_stmt* stmt, int index, const std::string& bytes,
                                      const std::string& what) const;
  [[nodiscard]] absl::Status PutResultsLocked(const std::string& job_id,
                                              const StoredResults& results);

  std::mutex mutex_;
  sqlite3* db_;
  const JobStoreOptions options_;
};

}  // namespace cosimo::orchestrator
