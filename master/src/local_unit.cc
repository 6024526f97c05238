#include "cosimo/master/local_unit.h"

#include <utility>

namespace cosimo::master {

namespace {

// RemoteUnit::Context's wording: the unit and the worker, unless the error names the unit.
absl::Status InUnit(const absl::Status& status, const std::string& name, const std::string& where) {
  if (status.ok() || where.empty()) return status;
  if (status.message().find("unit '" + name + "'") != absl::string_view::npos) return status;
  return absl::Status(status.code(),
                      "unit '" + name + "' (" + where + "): " + std::string(status.message()));
}

// Member-wise swap: cheaper than std::swap's three moves of every member. Lists every member of
// StepReply (common/include/cosimo/common/unit_api.h says so beside it); the size check fails
// when a member is added, as a reminder (64-bit builds).
static_assert(sizeof(StepReply) == 208 || sizeof(void*) != 8,
              "StepReply changed: swap the new member in SwapReplies, then update this size");
void SwapReplies(StepReply& a, StepReply& b) {
  std::swap(a.status, b.status);
  if (!a.message.empty() || !b.message.empty()) a.message.swap(b.message);
  std::swap(a.end_time, b.end_time);
  a.outputs.swap(b.outputs);
  a.derivatives.swap(b.derivatives);
  a.recorded.swap(b.recorded);
  a.recorded_strings.swap(b.recorded_strings);
  a.integers.swap(b.integers);
  std::swap(a.estimated, b.estimated);
  a.output_sensitivity.swap(b.output_sensitivity);
  a.derivative_sensitivity.swap(b.derivative_sensitivity);
}

}  // namespace

absl::StatusOr<std::unique_ptr<LocalUnit>> LocalUnit::Create(const v1::LoadUnit& load,
                                                             const std::string& where) {
  absl::StatusOr<std::unique_ptr<units::UnitHost>> host = units::UnitHost::Create(load);
  if (!host.ok()) return InUnit(host.status(), load.unit().name(), where);
  return std::unique_ptr<LocalUnit>(new LocalUnit(load.unit().name(), where, *std::move(host)));
}

void LocalUnit::Send(const UnitCommand& command) {
  pending_kind_ = command.kind;
  pending_status_ = host_->Run(command, &pending_);
}

absl::Status LocalUnit::Await(UnitResponse* response) {
  // Swapping hands the reply over and keeps both sets of buffers alive for reuse: no copy and,
  // once sized, no allocation per step. Only the member the command filled is swapped.
  switch (pending_kind_) {
    case UnitCommand::Kind::kStep:
    case UnitCommand::Kind::kCommit:
      SwapReplies(response->step, pending_.step);
      break;
    case UnitCommand::Kind::kInitialize:
    case UnitCommand::Kind::kEvaluate:
      std::swap(response->outputs, pending_.outputs);
      break;
    case UnitCommand::Kind::kTerminate:
      std::swap(response->report, pending_.report);
      break;
    case UnitCommand::Kind::kCheckpoint:
      response->checkpoint.swap(pending_.checkpoint);
      break;
    case UnitCommand::Kind::kRestoreCheckpoint:
    case UnitCommand::Kind::kSave:
    case UnitCommand::Kind::kRestore:
    case UnitCommand::Kind::kReject:
      break;
  }
  return InUnit(pending_status_, name_, where_);
}

absl::StatusOr<MasterResult> RunInProcess(const v1::Scenario& scenario,
                                          const std::vector<v1::LoadUnit>& loads,
                                          const RunOptions& options, const PrepareLoad& prepare,
                                          const InspectUnits& inspect) {
  std::vector<std::unique_ptr<LocalUnit>> units;
  absl::Status loaded;
  for (const v1::LoadUnit& given : loads) {
    v1::LoadUnit load = given;
    if (prepare) loaded = InUnit(prepare(&load), load.unit().name(), options.where);
    absl::StatusOr<std::unique_ptr<LocalUnit>> unit =
        loaded.ok() ? LocalUnit::Create(load, options.where)
                    : absl::StatusOr<std::unique_ptr<LocalUnit>>(loaded);
    if (!unit.ok()) {
      loaded = unit.status();
      break;
    }
    units.push_back(*std::move(unit));
  }
  std::vector<UnitProxy*> proxies;
  for (auto& unit : units) proxies.push_back(unit.get());
  absl::StatusOr<MasterResult> result = RunOverUnits(scenario, proxies, loaded, options);
  if (inspect) inspect(proxies);
  return result;
}

}  // namespace cosimo::master
