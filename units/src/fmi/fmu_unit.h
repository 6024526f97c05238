// FMU units (FMI 1.0 / 2.0 / 3.0, Co-Simulation and Model Exchange).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::units {

// Loads the .fmu at `fmu_path` for the scenario unit `spec`. Errors name the unit, the file and
// what was wrong (archive entry, XML field, missing symbol or library).
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateFmuUnit(const v1::Unit& spec,
                                                                  const std::string& fmu_path);

}  // namespace cosimo::units
