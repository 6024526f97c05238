// The FMI 1.0 part of the model description reader (model_description.cc): what FMI 1.0 writes
// differently from FMI 2.0 (the <Implementation> element, causality and variability, alias and
// negatedAlias, <DirectDependency>, <TypeDefinitions><Type>, numberOfContinuousStates), read into
// the version-neutral ModelDescription as cosimo/fmi/model_description.h describes. Private to
// cosimo_fmi; a function, no state between calls.
#pragma once

#include <pugixml.hpp>

#include <string>

#include "absl/status/statusor.h"
#include "cosimo/fmi/model_description.h"

namespace cosimo::fmi {

class Fmi1Reader {
 public:
  // `md` holds what the reader of every version took from the root (fmiVersion, modelName,
  // guid, numberOfEventIndicators, DefaultExperiment); the rest is read from `root`. Errors
  // name `source` and the element or attribute.
  [[nodiscard]] static absl::StatusOr<ModelDescription> Read(const pugi::xml_node& root,
                                                             const std::string& source,
                                                             ModelDescription md);
};

}  // namespace cosimo::fmi
