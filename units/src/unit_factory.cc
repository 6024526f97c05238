#include "cosimo/units/unit_factory.h"

#include "units/src/fmi/fmu_cache.h"
#include "units/src/fmi/fmu_unit.h"
#include "units/src/hybrid/hybrid_unit.h"
#include "units/src/models/builtin_models.h"

namespace cosimo::units {

absl::StatusOr<std::unique_ptr<Unit>> CreateUnit(const v1::Unit& spec,
                                                 const std::string& artifact_path) {
  switch (spec.model_case()) {
    case v1::Unit::kBuiltin:
      return CreateBuiltinUnit(spec);
    case v1::Unit::kFmu:
      return CreateFmuUnit(spec, artifact_path.empty() ? spec.fmu().path() : artifact_path);
    case v1::Unit::kTable:
      return CreateTableUnit(spec, artifact_path.empty() ? spec.table().path() : artifact_path);
    case v1::Unit::kHybrid: {
      absl::StatusOr<std::unique_ptr<HybridUnit>> unit = HybridUnit::Create(spec);
      if (!unit.ok()) return unit.status();
      return std::unique_ptr<Unit>(std::move(*unit));
    }
    case v1::Unit::MODEL_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("unit '" + spec.name() +
                                    "': one of builtin, fmu, table or hybrid is required");
}

void SetFmuCacheSize(size_t entries) { fmu::FmuCache::Global().set_max_idle(entries); }

std::vector<std::string> BuiltinModelNames() { return BuiltinModelNamesList(); }

}  // namespace cosimo::units
