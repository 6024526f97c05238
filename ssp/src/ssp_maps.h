// A connection's value mapping (SSP 1.0 section 5.3.2: ssc:BooleanMappingTransformation,
// ssc:IntegerMappingTransformation, ssc:EnumerationMappingTransformation with ssc:MapEntry
// source and target), read from the SSD and resolved into the numbers of a scenario's
// Connection.map: Booleans 0 and 1, integers as they are, Enumeration items by name into the
// values the FMUs' modelDescription.xml <TypeDefinitions> give them. Private to cosimo_ssp.
// Thread safety: none needed (values and functions).
#pragma once

#include <pugixml.hpp>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/fmi/fmu_experiment.h"
#include "cosimo/v1/scenario.pb.h"
#include "ssp/src/ssp_files.h"

namespace cosimo::ssp {

// One mapping transformation as written.
struct ValueMapping {
  std::string kind;  // "Boolean", "Integer" or "Enumeration"
  std::vector<std::pair<std::string, std::string>> entries;  // MapEntry source, target
  std::string where;                                         // "two.ssd line 12"
};

// Whether `kind` (a local element name) is one of the three mapping transformations.
bool IsMappingTransformation(const std::string& kind);

// The transformation element `node` of `file` (IsMappingTransformation); an entry without a
// source or a target is an error naming its line.
absl::StatusOr<ValueMapping> ReadValueMapping(const XmlFile& file, const pugi::xml_node& node);

// One end of a mapped connection: the scenario's "unit.variable" and its FMU's description.
struct MappedEnd {
  std::string name;
  const FmuExperiment* fmu = nullptr;  // null: not read (an Enumeration cannot be resolved)
  std::string variable;
};

// The entries as numbers: a Boolean "true"/"false" (or 1/0) as 1/0, an integer as it is, an
// Enumeration item by name as its value in the end's Enumeration type. Errors name the
// transformation's line, the end and the value.
absl::StatusOr<std::vector<v1::MapEntry>> ResolveValueMapping(const ValueMapping& mapping,
                                                              const MappedEnd& from,
                                                              const MappedEnd& to);

}  // namespace cosimo::ssp
