// The values of an SSP system: parameter values, linear transformations, parameter mappings,
// unit names, and the problems an import collects. Private to cosimo_ssp. Thread safety: none
// needed (values and functions).
#pragma once

#include <pugixml.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/struct.pb.h"
#include "ssp/src/ssp_files.h"
#include "ssp/src/ssp_maps.h"

namespace cosimo::ssp {

// A scenario unit name ([A-Za-z_][A-Za-z0-9_]*) for an SSP element name.
std::string UnitName(const std::string& element);

// The value of one ssv:Parameter (its one typed child).
absl::StatusOr<google::protobuf::Value> ParameterValue(const XmlFile& file,
                                                       const pugi::xml_node& parameter);

// A connection's value transformation: end = factor * start + offset, or a value mapping.
struct Transform {
  double factor = 1.0;
  double offset = 0.0;
  std::optional<ValueMapping> mapping;
  bool mixed = false;  // a chain with a mapping and another transformation (not supported)
};

// `total` (the transformation of a chain of connections) preceded by `earlier` (that of the
// connection before the chain): total(earlier(value)). A mapping composed with another
// transformation sets `mixed`.
void ComposeBefore(const Transform& earlier, Transform* total);

// An ssc:LinearTransformation's factor (default 1) and offset (default 0); an attribute that is
// not a finite number is an error naming it.
absl::StatusOr<Transform> ReadTransform(const XmlFile& file, const pugi::xml_node& node);

// A parameter mapping (ssm:ParameterMapping, inline or from a file): parameter name in the
// source -> the element's variable, with an optional linear transformation of the value.
struct MappingEntry {
  std::string target;
  Transform transform;
};
using Mapping = std::map<std::string, MappingEntry>;

// The entries of an ssm:ParameterMapping (inline, or read from `files` when it names a source).
absl::StatusOr<Mapping> ReadMapping(const SspSource& files, const XmlFile& file,
                                    const pugi::xml_node& node);

// Collects what cannot be imported, so that all of it is reported at once.
class Problems {
 public:
  void Unsupported(std::string text) {
    unsupported_ = true;
    list_.push_back(std::move(text));
  }
  void Invalid(std::string text) { list_.push_back(std::move(text)); }
  // Adds a failed status's message (kUnimplemented counts as unsupported).
  void Add(const absl::Status& status) {
    if (status.code() == absl::StatusCode::kUnimplemented) {
      Unsupported(std::string(status.message()));
    } else {
      Invalid(std::string(status.message()));
    }
  }
  bool empty() const { return list_.empty(); }
  absl::Status ToStatus() const {
    if (list_.size() == 1) {
      return unsupported_ ? absl::UnimplementedError(list_[0])
                          : absl::InvalidArgumentError(list_[0]);
    }
    std::string text = absl::StrCat(list_.size(), " problems:");
    for (const std::string& p : list_) absl::StrAppend(&text, "\n  ", p);
    return unsupported_ ? absl::UnimplementedError(text) : absl::InvalidArgumentError(text);
  }

 private:
  std::vector<std::string> list_;
  bool unsupported_ = false;
};

}  // namespace cosimo::ssp
