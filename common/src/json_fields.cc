#include "json_fields.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/json_check.h"

namespace cosimo {
namespace {

namespace pb = google::protobuf;

std::string TypeName(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a Boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return absl::StrCat("the string \"", v.get<std::string>(), "\"");
  if (v.is_array()) return "a list";
  return "an object";
}

bool IsDynamic(const pb::Descriptor& d) {
  const std::string& name = d.full_name();
  return name == "google.protobuf.Value" || name == "google.protobuf.Struct" ||
         name == "google.protobuf.ListValue";
}

class Checker {
 public:
  explicit Checker(std::vector<std::string>* errors) : errors_(errors) {}

  void Message(const nlohmann::json& json, const pb::Descriptor& d, const std::string& path) {
    if (IsDynamic(d)) return;
    if (!json.is_object()) {
      Error(path, absl::StrCat("expected an object, got ", TypeName(json)));
      return;
    }
    for (const auto& [key, value] : json.items()) {
      const pb::FieldDescriptor* field = d.FindFieldByName(key);
      if (field == nullptr) field = d.FindFieldByCamelcaseName(key);
      if (field == nullptr) {
        for (int i = 0; i < d.field_count() && field == nullptr; ++i) {
          if (d.field(i)->json_name() == key) field = d.field(i);
        }
      }
      const std::string at = path.empty() ? key : absl::StrCat(path, ".", key);
      if (field == nullptr) {
        std::string fields;
        for (int i = 0; i < d.field_count(); ++i) {
          absl::StrAppend(&fields, i == 0 ? "" : ", ", d.field(i)->name());
        }
        Error(at, absl::StrCat("no such field (fields: ", fields, ")"));
        continue;
      }
      Field(value, *field, at);
    }
  }

 private:
  void Error(const std::string& path, const std::string& text) {
    errors_->push_back(absl::StrCat(path.empty() ? "scenario" : path, ": ", text));
  }

  void Field(const nlohmann::json& value, const pb::FieldDescriptor& field,
             const std::string& path) {
    if (value.is_null()) return;  // protobuf: the default
    if (field.is_map()) {
      if (!value.is_object()) {
        Error(path, absl::StrCat("expected an object, got ", TypeName(value)));
        return;
      }
      const pb::FieldDescriptor& v = *field.message_type()->map_value();
      for (const auto& [key, element] : value.items()) {
        Single(element, v, absl::StrCat(path, ".", key));
      }
      return;
    }
    if (field.is_repeated()) {
      if (!value.is_array()) {
        Error(path, absl::StrCat("expected a list, got ", TypeName(value)));
        return;
      }
      for (size_t i = 0; i < value.size(); ++i) {
        Single(value[i], field, absl::StrCat(path, "[", i, "]"));
      }
      return;
    }
    Single(value, field, path);
  }

  void Single(const nlohmann::json& value, const pb::FieldDescriptor& field,
              const std::string& path) {
    switch (field.cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        Message(value, *field.message_type(), path);
        return;
      case pb::FieldDescriptor::CPPTYPE_ENUM: {
        const pb::EnumDescriptor& e = *field.enum_type();
        if (value.is_string() && e.FindValueByName(value.get<std::string>()) != nullptr) return;
        if (value.is_number_integer() && e.FindValueByNumber(value.get<int>()) != nullptr) return;
        std::string names;
        for (int i = 0; i < e.value_count(); ++i) {
          absl::StrAppend(&names, i == 0 ? "" : ", ", e.value(i)->name());
        }
        Error(path,
              absl::StrCat(value.is_string() ? absl::StrCat("'", value.get<std::string>(), "'")
                                             : TypeName(value),
                           " is not one of ", names));
        return;
      }
      case pb::FieldDescriptor::CPPTYPE_STRING:
        if (!value.is_string()) {
          Error(path, absl::StrCat("expected a string, got ", TypeName(value)));
        }
        return;
      case pb::FieldDescriptor::CPPTYPE_BOOL:
        if (!value.is_boolean()) {
          Error(path, absl::StrCat("expected true or false, got ", TypeName(value)));
        }
        return;
      default:  // numbers; protobuf also takes them as strings ("1e-3", "Infinity")
        if (!value.is_number() && !value.is_string()) {
          Error(path, absl::StrCat("expected a number, got ", TypeName(value)));
        }
        return;
    }
  }

  std::vector<std::string>* errors_;
};

}  // namespace

std::vector<std::string> JsonFieldErrors(const nlohmann::json& json,
                                         const pb::Descriptor& descriptor) {
  std::vector<std::string> errors;
  Checker(&errors).Message(json, descriptor, "");
  return errors;
}

absl::Status ProblemsStatus(const std::vector<std::string>& problems) {
  if (problems.empty()) return absl::OkStatus();
  if (problems.size() == 1) return absl::InvalidArgumentError(problems[0]);
  return absl::InvalidArgumentError(
      absl::StrCat(problems.size(), " problems:\n  ", absl::StrJoin(problems, "\n  ")));
}

absl::Status ParseJsonMessage(std::string_view json, const std::string& what,
                              google::protobuf::Message* out) {
  if (absl::Status s = CheckJson(json, what); !s.ok()) return s;
  try {
    const nlohmann::json parsed = nlohmann::json::parse(json.begin(), json.end());
    if (std::vector<std::string> errors = JsonFieldErrors(parsed, *out->GetDescriptor());
        !errors.empty()) {
      return ProblemsStatus(errors);
    }
  } catch (const nlohmann::json::exception& e) {  // CheckJson let nothing through that throws
    return absl::InvalidArgumentError(what + " is not valid JSON: " + e.what());
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), out, options);
  if (!status.ok()) return absl::InvalidArgumentError(what + ": " + std::string(status.message()));
  return absl::OkStatus();
}

}  // namespace cosimo
