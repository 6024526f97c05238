// What scenario.cc and coupling.cc share: finding units and checking "<unit>.<variable>"
// references. Private to cosimo_common.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cosimo/common/scenario.h"

namespace cosimo::scenario_internal {

// "a, b, c": the scenario's unit names, for messages.
std::string UnitNames(const v1::Scenario& scenario);
// The index of the unit so named, or -1.
int FindUnit(const v1::Scenario& scenario, const std::string& name);
// Parses `text` as "<unit>.<variable>" naming a unit of the scenario; errors name `field`.
absl::Status CheckUnitRef(const v1::Scenario& scenario, std::string_view text,
                          const std::string& field, VariableRef* ref);

}  // namespace cosimo::scenario_internal
