// The two FMU units: Co-Simulation (the FMU steps itself with fmiXDoStep) and Model Exchange
// (the worker's solver integrates the FMU's continuous states, with event handling). Built by
// CreateFmuUnit (fmu_unit.h) once the archive is unpacked and the binary loaded.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"
#include "cosimo/worker/unit.h"
#include "worker/src/fmi/fmu_instance.h"
#include "worker/src/fmi/model_description.h"

namespace cosimo::worker::fmi {

[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateCoSimulationUnit(
    const v1::Unit& spec, ModelDescription md, std::shared_ptr<FmuInstance> instance);
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateModelExchangeUnit(
    const v1::Unit& spec, ModelDescription md, std::shared_ptr<FmuInstance> instance);

}  // namespace cosimo::worker::fmi
