#include "cosimo/master/run.h"

namespace cosimo::master {

absl::StatusOr<MasterResult> RunOverUnits(const v1::Scenario& scenario,
                                          const std::vector<UnitProxy*>& units,
                                          const absl::Status& loaded, const RunOptions& options) {
  absl::StatusOr<MasterResult> result =
      loaded.ok() ? RunMaster(scenario, units, options.observer, options.resume)
                  : absl::StatusOr<MasterResult>(loaded);
  if (!result.ok()) {
    for (UnitProxy* unit : units) unit->Abandon();
  }
  return result;
}

}  // namespace cosimo::master
