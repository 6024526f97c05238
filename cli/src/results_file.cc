#include "cosimo/client/results_file.h"

#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cosimo/common/csv.h"

namespace cosimo::client {
namespace {

namespace pb = google::protobuf;

bool Is64Bit(const pb::FieldDescriptor& field) {
  return field.cpp_type() == pb::FieldDescriptor::CPPTYPE_INT64 ||
         field.cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT64;
}

// A 64-bit integer that protobuf wrote as a string, as a number.
void ToNumber(const pb::FieldDescriptor& field, nlohmann::json* value) {
  if (!value->is_string()) return;
  const std::string text = value->get<std::string>();
  try {
    if (field.cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT64) {
      *value = std::stoull(text);
    } else {
      *value = std::stoll(text);
    }
  } catch (const std::exception&) {
    // Not a number (cannot happen for protobuf's output): left as it is.
  }
}

// Walks `json` (printed from a message of type `descriptor` with proto field names) and turns
// the 64-bit integer fields into numbers.
void NumbersFor(const pb::Descriptor& descriptor, nlohmann::json* json) {
  if (!json->is_object()) return;
  for (int i = 0; i < descriptor.field_count(); ++i) {
    const pb::FieldDescriptor& field = *descriptor.field(i);
    auto it = json->find(field.name());
    if (it == json->end()) continue;
    if (field.is_map()) {
      const pb::FieldDescriptor& value = *field.message_type()->map_value();
      for (auto& [key, element] : it->items()) {
        if (value.message_type() != nullptr) NumbersFor(*value.message_type(), &element);
        if (Is64Bit(value)) ToNumber(value, &element);
      }
      continue;
    }
    auto fix = [&](nlohmann::json* element) {
      if (field.message_type() != nullptr) NumbersFor(*field.message_type(), element);
      if (Is64Bit(field)) ToNumber(field, element);
    };
    if (field.is_repeated() && it->is_array()) {
      for (nlohmann::json& element : *it) fix(&element);
    } else {
      fix(&*it);
    }
  }
}

}  // namespace

std::string MetadataJson(const v1::ResultsMetadata& metadata) {
  std::string json;
  pb::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  (void)pb::util::MessageToJsonString(metadata, &json, options);
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return json;
  NumbersFor(*v1::ResultsMetadata::descriptor(), &parsed);
  return parsed.dump(2) + "\n";
}

namespace {

absl::Status WriteMetadataFile(const v1::ResultsMetadata& metadata, const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  std::ofstream meta(path, std::ios::trunc);
  meta << MetadataJson(metadata);
  meta.close();
  if (!meta) return absl::PermissionDeniedError("cannot write '" + path + "'");
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteResultFiles(const JobResults& results, const std::string& csv_path,
                              const std::string& metadata_path) {
  if (csv_path == "-") {
    WriteCsv(std::cout, results);
    std::cout.flush();
    if (!std::cout) return absl::DataLossError("cannot write the results to standard output");
  } else if (absl::Status s = WriteCsvFile(csv_path, results); !s.ok()) {
    return s;
  }
  return WriteMetadataFile(results.metadata, metadata_path);
}

ResultsFileWriter::ResultsFileWriter(std::string csv_path)
    : path_(std::move(csv_path)), part_path_(path_ + ".part") {}

ResultsFileWriter::~ResultsFileWriter() {
  if (out_.is_open()) {
    out_.close();
    std::remove(part_path_.c_str());
  }
}

void ResultsFileWriter::Restart(const ResultTable& table) {
  if (out_.is_open()) out_.close();
  out_.open(part_path_, std::ios::binary | std::ios::trunc);
  columns_ = table.columns;
  rows_written_ = 0;
  if (out_) WriteCsvHeader(out_, table);
}

void ResultsFileWriter::Update(const ResultTable& table) {
  if (path_ == "-" || failed_ || table.columns.empty()) return;
  if (!out_.is_open() || table.columns != columns_ || table.rows() < rows_written_) {
    Restart(table);
  }
  WriteCsvRows(out_, table, rows_written_, table.rows());
  rows_written_ = table.rows();
  if (!out_) failed_ = true;  // Finish writes it all once more, and says why if it fails again
}

absl::Status ResultsFileWriter::Finish(const JobResults& results,
                                       const std::string& metadata_path) {
  if (path_ == "-" || failed_) {
    if (out_.is_open()) out_.close();
    std::remove(part_path_.c_str());
    return WriteResultFiles(results, path_, metadata_path);
  }
  // A table with no columns (no rows recorded) is written as WriteCsv writes it: its header.
  if (!out_.is_open() || results.columns != columns_ || results.rows() < rows_written_) {
    Restart(results);
  }
  WriteCsvRows(out_, results, rows_written_, results.rows());
  rows_written_ = results.rows();
  out_.close();
  if (!out_) {
    std::remove(part_path_.c_str());
    return absl::DataLossError("error while writing '" + path_ + "'");
  }
  if (std::rename(part_path_.c_str(), path_.c_str()) != 0) {
    std::remove(part_path_.c_str());
    return absl::PermissionDeniedError("cannot write '" + path_ + "' (rename from '" + part_path_ +
                                       "' failed)");
  }
  return WriteMetadataFile(results.metadata, metadata_path);
}

}  // namespace cosimo::client
