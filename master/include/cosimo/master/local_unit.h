// A UnitProxy that runs the unit in this process through a units::UnitHost (its Run, the one
// command dispatcher the worker's CommandHandler uses too): the same command semantics as a
// remote worker, without sockets. A worker runs a sweep's variants whole over LocalUnits
// (worker/src/variant_runner.cc); tests and benchmarks run scenarios in-process with them.
// RunInProcess loads a scenario's units here and runs it (RunOverUnits, cosimo/master/run.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/master/run.h"
#include "cosimo/master/unit_proxy.h"
#include "cosimo/units/unit_host.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo::master {

class LocalUnit final : public UnitProxy {
 public:
  // Loads the unit described by `load` (as a worker would on LoadUnit). With `where` (how an
  // orchestrator names the worker, "worker w3 on host h1"), an error of the unit that does not
  // name it reads "unit 'u' (<where>): ...", as a RemoteUnit's does.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<LocalUnit>> Create(
      const v1::LoadUnit& load, const std::string& where = "");

  const std::string& name() const override { return name_; }
  const UnitDescription& description() const override { return host_->description(); }
  IterativeMode iterative_mode() const override { return host_->iterative_mode(); }
  UnitLocation location() const override { return {"local", ""}; }
  void Send(const UnitCommand& command) override;
  [[nodiscard]] absl::Status Await(UnitResponse* response) override;

 private:
  LocalUnit(std::string name, std::string where, std::unique_ptr<units::UnitHost> host)
      : name_(std::move(name)), where_(std::move(where)), host_(std::move(host)) {}

  std::string name_;
  std::string where_;
  std::unique_ptr<units::UnitHost> host_;
  UnitResponse pending_;
  UnitCommand::Kind pending_kind_ = UnitCommand::Kind::kStep;  // what pending_ holds
  absl::Status pending_status_;
};

// Prepares a unit's LoadUnit before it is loaded (the worker fetches its artifacts); an error
// ends the loading with it.
using PrepareLoad = std::function<absl::Status(v1::LoadUnit*)>;

// Reads the units after the run, before they are released (their descriptions); only the units
// that loaded.
using InspectUnits = std::function<void(const std::vector<UnitProxy*>&)>;

// Loads `loads` (one per scenario unit, in order: LoadUnitFor's) as LocalUnits, each prepared
// first when `prepare` is given, and runs `scenario` over them (RunOverUnits); `inspect`, when
// given, reads the units afterwards. Errors of the units say options.where as
// LocalUnit::Create's. Callers: worker/src/variant_runner.cc, worker/src/job_command.cc,
// bench/inprocess_figures.cc, bench/sweep_figure.cc.
[[nodiscard]] absl::StatusOr<MasterResult> RunInProcess(const v1::Scenario& scenario,
                                                        const std::vector<v1::LoadUnit>& loads,
                                                        const RunOptions& options = {},
                                                        const PrepareLoad& prepare = {},
                                                        const InspectUnits& inspect = {});

}  // namespace cosimo::master
