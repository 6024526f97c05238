// A job's results as files: the CSV (cosimo/common/csv.h) and its metadata as JSON, the file the
// README calls `<results>.csv.meta.json`. Stateless.
#pragma once

#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "cosimo/client/client.h"
#include "cosimo/v1/job_service.pb.h"

namespace cosimo::client {

// The metadata as JSON (proto field names, every field), counts as JSON numbers (protobuf's JSON
// mapping would write 64-bit integers as strings).
std::string MetadataJson(const v1::ResultsMetadata& metadata);

// Writes the CSV to `csv_path` ("-": standard output) and, unless `metadata_path` is empty, the
// metadata JSON to `metadata_path`. Errors name the file.
[[nodiscard]] absl::Status WriteResultFiles(const JobResults& results, const std::string& csv_path,
                                            const std::string& metadata_path);

// The results CSV written as a running job's rows come (`cosimo run`), so that formatting them
// overlaps the run instead of following it (issue 40: writing 600,000 rows after the job's end
// took 160-210 ms, a third of a one-FMU run's cost per step). The rows go to `<csv_path>.part`,
// renamed to `csv_path` by Finish: a run that fails leaves an earlier file of that name as it
// was. The file's bytes are those WriteResultFiles writes. Not for standard output ("-"): Finish
// then writes it all. One thread.
class ResultsFileWriter {
 public:
  explicit ResultsFileWriter(std::string csv_path);
  ~ResultsFileWriter();  // removes the part file of a run that did not finish
  ResultsFileWriter(const ResultsFileWriter&) = delete;
  ResultsFileWriter& operator=(const ResultsFileWriter&) = delete;

  // Writes the rows of `table` not written yet (the header first). A table with fewer rows than
  // written, or other columns, starts the file anew. An error (a full disk) is kept for Finish,
  // which then writes the whole table once more.
  void Update(const ResultTable& table);
  // Writes the rest of `results`, renames the file into place, and writes the metadata JSON to
  // `metadata_path` unless it is empty. Errors name the file.
  [[nodiscard]] absl::Status Finish(const JobResults& results, const std::string& metadata_path);

 private:
  void Restart(const ResultTable& table);

  std::string path_, part_path_;
  std::ofstream out_;
  std::vector<std::string> columns_;
  size_t rows_written_ = 0;
  bool failed_ = false;
};

}  // namespace cosimo::client
