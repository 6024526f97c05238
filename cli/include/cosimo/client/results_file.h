// A job's results as files: the CSV (cosimo/common/csv.h) and its metadata as JSON, the file the
// README calls `<results>.csv.meta.json`. Stateless.
#pragma once

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

}  // namespace cosimo::client
