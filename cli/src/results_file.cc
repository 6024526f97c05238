#include "cosimo/client/results_file.h"

#include <google/protobuf/util/json_util.h>

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

absl::Status WriteResultFiles(const JobResults& results, const std::string& csv_path,
                              const std::string& metadata_path) {
  if (csv_path == "-") {
    WriteCsv(std::cout, results);
    std::cout.flush();
    if (!std::cout) return absl::DataLossError("cannot write the results to standard output");
  } else if (absl::Status s = WriteCsvFile(csv_path, results); !s.ok()) {
    return s;
  }
  if (metadata_path.empty()) return absl::OkStatus();
  std::ofstream meta(metadata_path, std::ios::trunc);
  meta << MetadataJson(results.metadata);
  meta.close();
  if (!meta) return absl::PermissionDeniedError("cannot write '" + metadata_path + "'");
  return absl::OkStatus();
}

}  // namespace cosimo::client
