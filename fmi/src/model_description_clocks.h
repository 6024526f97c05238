// FMI 3 Clock variables and clocked variables in the model description (model_description.cc):
// the attributes of a <Clock> element, the `clocks` attribute of any variable, and the checks
// that make a bad or inconsistent declaration an error naming the variable (FMI 3.0.1 sections
// 2.2.8 and 2.4.7.5.2). Private to cosimo_fmi; plain functions.
#pragma once

#include <pugixml.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "cosimo/fmi/model_description.h"

namespace cosimo::fmi {

// A <Clock> element's attributes into v->clock; the message (without the variable's name)
// says what is wrong.
absl::Status ReadClockAttributes(const pugi::xml_node& node, ScalarVariable* v);

// Resolves each variable's `clocks` (value references, `raw_clocks` per variable) to indices
// into md->variables[i].clocks and checks every Clock's declaration against its causality,
// interval variability and kind (Scheduled Execution needs priorities). `by_vr` maps value
// references to indices. Errors start with `source` and name the variable.
absl::Status ResolveClocks(const std::string& source,
                           const std::vector<std::vector<int64_t>>& raw_clocks,
                           const std::unordered_map<int64_t, int>& by_vr, ModelDescription* md);

}  // namespace cosimo::fmi
