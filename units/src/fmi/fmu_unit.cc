// CreateFmuUnit: unpack, read the model description, choose the interface kind, load the
// binary and build the Co-Simulation, Model Exchange or Scheduled Execution unit.
#include "units/src/fmi/fmu_unit.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "cosimo/fmi/fmu_archive.h"
#include "cosimo/fmi/model_description.h"
#include "units/src/fmi/fmu_cache.h"
#include "units/src/fmi/fmu_instance.h"
#include "units/src/fmi/fmu_sensitivity_unit.h"
#include "units/src/fmi/fmu_units.h"

namespace cosimo::units {

absl::StatusOr<std::unique_ptr<Unit>> CreateFmuUnit(const v1::Unit& spec,
                                                    const std::string& fmu_path) {
  const std::string prefix = "unit '" + spec.name() + "': ";
  auto annotate = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
  };
  // Unpacked and read once per file; kept between the units made from it (fmu_cache.h).
  absl::StatusOr<std::shared_ptr<fmu::CachedFmu>> cached = fmu::FmuCache::Global().Take(fmu_path);
  if (!cached.ok()) return annotate(cached.status());
  // The instance holds the folder through this pointer, which shares the entry's ownership: the
  // entry goes back to the cache when the unit is gone.
  std::shared_ptr<fmi::UnpackedFmu> folder(*cached, (*cached)->folder.get());
  fmi::ModelDescription md = (*cached)->md;
  // Scheduled Execution when it is the only kind offered (FMI 3).
  const bool scheduled = !md.co_simulation.offered && !md.model_exchange.offered;
  if (scheduled && spec.has_solver()) {
    return absl::InvalidArgumentError(prefix +
                                      "solver is set but the FMU offers only Scheduled Execution");
  }
  // Model Exchange when it is the only kind offered, or when both are and the unit names a
  // solver; Co-Simulation otherwise.
  const bool model_exchange =
      md.model_exchange.offered && (!md.co_simulation.offered || spec.has_solver());
  if (spec.has_solver() && !md.model_exchange.offered) {
    return absl::InvalidArgumentError(
        prefix + "solver is set but the FMU offers only Co-Simulation (it steps itself)");
  }
  auto load = [&](const std::string& name) {
    return md.version == fmi::FmiVersion::kFmi1 ? fmu::LoadFmi1(md, folder, name)
           : md.version == fmi::FmiVersion::kFmi2
               ? fmu::LoadFmi2(md, model_exchange, folder, name)
               : fmu::LoadFmi3(md, model_exchange, folder, name, scheduled);
  };
  if (!spec.sensitivities().empty() && !model_exchange) {
    return absl::FailedPreconditionError(
        prefix + "sensitivities need the FMU's equations, which Co-Simulation does not give: " +
        (md.model_exchange.offered ? "give the unit a solver to run it as Model Exchange"
                                   : "the FMU offers no Model Exchange"));
  }
  absl::StatusOr<std::shared_ptr<fmu::FmuInstance>> instance = load(spec.name());
  if (!instance.ok()) return instance.status();
  const fmi::KindInfo& kind = model_exchange ? md.model_exchange
                              : scheduled    ? md.scheduled_execution
                                             : md.co_simulation;
  if (absl::StatusOr<std::string> binary = fmi::BinaryPath(
          *folder, md.version == fmi::FmiVersion::kFmi3 ? "x86_64-linux" : "linux64",
          kind.model_identifier, spec.name());
      binary.ok()) {
    (*cached)->Pin(*binary);
  }
  if (scheduled) {
    return fmu::CreateScheduledExecutionUnit(spec, std::move(md), std::move(*instance));
  }
  if (!spec.sensitivities().empty()) {
    // The main instance (loaded above) and one more per perturbed parameter value.
    std::shared_ptr<fmu::FmuInstance> first = *std::move(instance);
    return fmu::CreateSensitivityUnit(
        spec, md, [&](const v1::Unit& s) -> absl::StatusOr<std::unique_ptr<Unit>> {
          std::shared_ptr<fmu::FmuInstance> next = std::exchange(first, nullptr);
          if (next == nullptr) {
            COSIMO_ASSIGN_OR_RETURN(next, load(s.name()));
          }
          return fmu::CreateModelExchangeUnit(s, md, std::move(next));
        });
  }
  if (model_exchange) {
    return fmu::CreateModelExchangeUnit(spec, std::move(md), std::move(*instance));
  }
  return fmu::CreateCoSimulationUnit(spec, std::move(md), std::move(*instance));
}

}  // namespace cosimo::units
