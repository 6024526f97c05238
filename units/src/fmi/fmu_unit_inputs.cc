// How the FMU units set their inputs (fmu_unit_base.h): the connected plain ones at every
// exchange, the clocked ones (FMI 3.0.1 section 2.2.8.3: "clocked variables ... can only be set
// while their clock is active") in the Event Mode where their clock ticks, and the triggered
// input clocks that another unit's output clock ticked (docs/fmi.md, "Clocks").
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "units/src/fmi/fmu_unit_base.h"

namespace cosimo::units::fmu {

absl::Status FmuUnitBase::SetConnectedInputs(const std::vector<bool>& connected) {
  if (connected.size() != input_indices_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(), connected.size(), " connection flags for ", input_indices_.size(), " inputs"));
  }
  connected_ = connected;
  GroupInputs();
  InputsChanged();
  return absl::OkStatus();
}

absl::Status FmuUnitBase::SetInputs(const Eigen::VectorXd& u) {
  if (static_cast<size_t>(u.size()) != all_inputs_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Prefix(), u.size(), " input values for ", all_inputs_.size(), " inputs"));
  }
  return SetInputValues(u.data());
}

absl::Status FmuUnitBase::SetInputValues(const double* u) {
  KeepInputs(u);
  if (inputs_.batches().empty()) return absl::OkStatus();
  if (absl::Status s = CheckInputValues(u); !s.ok()) return s;
  return instance_->Set(inputs_, u);
}

absl::Status FmuUnitBase::CheckInputValues(const double* u) const {
  for (const VariableGroup::Batch& b : inputs_.batches()) {
    if (fmi::IsReal(b.type)) continue;
    for (int position : b.positions) {
      const double v = u[position];
      const bool boolean = b.type == fmi::VarType::kBoolean;
      if (boolean ? (v == 0.0 || v == 1.0) : (std::isfinite(v) && v == std::floor(v))) continue;
      const fmi::ScalarVariable& var = md_.variables[input_indices_[static_cast<size_t>(position)]];
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(), "input '", var.name, "' (", fmi::VarTypeName(var.type), ") was sent ", v,
          " by its connection: a ", fmi::VarTypeName(var.type), " input takes ",
          boolean ? "0 or 1 (false or true)" : "integers",
          ", and Cosimo rounds nothing (a table feeding it must not interpolate between its "
          "samples)"));
    }
  }
  return absl::OkStatus();
}

// inputs_: the connected inputs set at every exchange; clocked_inputs_: per input clock, the
// connected inputs it clocks; trigger_inputs_: the connected triggered input clocks.
void FmuUnitBase::GroupInputs() {
  const size_t m = input_indices_.size();
  std::vector<bool> plain(m, false);
  clocked_inputs_.clear();
  trigger_inputs_.clear();
  for (size_t k = 0; k < m; ++k) {
    const fmi::ScalarVariable& v = md_.variables[static_cast<size_t>(input_indices_[k])];
    if (!connected_[k]) continue;
    if (v.type == fmi::VarType::kClock) {
      trigger_inputs_.emplace_back(input_indices_[k], static_cast<int>(k));
      continue;
    }
    plain[k] = v.clocks.empty();
    for (int clock : v.clocks) {
      auto it = std::find_if(clocked_inputs_.begin(), clocked_inputs_.end(),
                             [&](const auto& c) { return c.first == clock; });
      if (it == clocked_inputs_.end()) {
        clocked_inputs_.emplace_back(clock, std::vector<bool>(m, false));
        it = clocked_inputs_.end() - 1;
      }
      it->second[k] = true;
    }
  }
  inputs_ = all_inputs_.Only(plain);
  clocked_groups_.clear();
  for (const auto& [clock, keep] : clocked_inputs_)
    clocked_groups_.push_back(all_inputs_.Only(keep));
}

bool FmuUnitBase::TriggerInputClocks(const double* u, double t) {
  bool any = false;
  for (const auto& [index, position] : trigger_inputs_) {
    if (u[position] < 0.5) continue;
    clocks_.Trigger(index, t);
    any = true;
  }
  return any;
}

absl::Status FmuUnitBase::SetClockedInputs(const double* u) {
  if (clocked_inputs_.empty() || u == nullptr) return absl::OkStatus();
  const std::vector<int> due = clocks_.Due();
  for (size_t c = 0; c < clocked_inputs_.size(); ++c) {
    if (std::find(due.begin(), due.end(), clocked_inputs_[c].first) == due.end()) continue;
    if (absl::Status s = instance_->Set(clocked_groups_[c], u); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace cosimo::units::fmu
