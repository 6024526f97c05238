#include "worker/src/fmi/fmu_unit.h"

namespace cosimo::worker {

absl::StatusOr<std::unique_ptr<Unit>> CreateFmuUnit(const v1::Unit& spec,
                                                    const std::string& fmu_path) {
  return absl::UnimplementedError("unit '" + spec.name() + "': FMU units (" + fmu_path +
                                  ") are not supported by this worker yet");
}

}  // namespace cosimo::worker
