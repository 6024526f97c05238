// A UnitProxy that runs the unit in this process through a worker::UnitHost: the same command
// semantics as a remote worker, without sockets. Used by in-process tests and benchmarks.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/orchestrator/unit_proxy.h"
#include "cosimo/v1/worker_service.pb.h"
#include "cosimo/worker/unit_host.h"

namespace cosimo::orchestrator {

class LocalUnit final : public UnitProxy {
 public:
  // Loads the unit described by `load` (as a worker would on LoadUnit).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<LocalUnit>> Create(const v1::LoadUnit& load);

  const std::string& name() const override { return name_; }
  const UnitDescription& description() const override { return host_->description(); }
  IterativeMode iterative_mode() const override { return host_->iterative_mode(); }
  UnitLocation location() const override { return {"local", ""}; }
  void Send(const UnitCommand& command) override;
  [[nodiscard]] absl::Status Await(UnitResponse* response) override;

 private:
  LocalUnit(std::string name, std::unique_ptr<worker::UnitHost> host)
      : name_(std::move(name)), host_(std::move(host)) {}

  std::string name_;
  std::unique_ptr<worker::UnitHost> host_;
  UnitResponse pending_;
  UnitCommand::Kind pending_kind_ = UnitCommand::Kind::kStep;  // what pending_ holds
  absl::Status pending_status_;
};

}  // namespace cosimo::orchestrator
