// Connections with a factor, an offset or a map (LoadUnit.input_transforms) as a decorator around
// the unit: the host and its policies see a unit whose inputs are the values the orchestrator
// sends, and the unit behind sees factor * value + offset (on a step's polynomial: the factor on
// every coefficient, the offset on the constant one). Its linearisation is with respect to the
// values sent (B and D times the factors), so the rollback sensitivities and the COSTARICA
// estimates of either policy need nothing else. A connection with a map (LoadUnit.input_transforms'
// map, Connection.map) holds the input over a step at the target of the value sent, its sensitivity
// zero; a value the map has no entry for fails the step (or Evaluate) naming the connection and
// the value. Private to the worker; not thread safe (as the unit).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo::units::host {

// `unit` itself when `load` has no input transforms, else the unit behind the decorator. Errors
// name a transform of an input the unit does not have.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> WithInputTransforms(std::unique_ptr<Unit> unit,
                                                                        const v1::LoadUnit& load);

}  // namespace cosimo::units::host
