// Builds the Unit a scenario's unit entry describes: a built-in model with its solver, an FMU,
// or a table source. Stateless, thread safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::units {

// `artifact_path` is the local file of the unit's FMU or table (already fetched); empty for
// built-in models. Errors name the unit and the field at fault.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateUnit(const v1::Unit& spec,
                                                               const std::string& artifact_path);

// How many unpacked FMUs this process keeps loaded between the units made from one file (a
// sweep's variants; units/src/fmi/fmu_cache.h); 0 unpacks every unit's FMU anew.
inline constexpr size_t kDefaultFmuCacheSize = 8;
void SetFmuCacheSize(size_t entries);

// Names of the built-in models, for validation messages and the worker's Hello.
std::vector<std::string> BuiltinModelNames();

}  // namespace cosimo::units
