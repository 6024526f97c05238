// MasterConfig: everything a master run decides before its first command, resolved once from
// the scenario and the loaded units. The algorithm's defaults and rules come from
// ResolveAlgorithm (common/algorithm_settings.h, which ValidateScenario applies too); this adds
// what depends on the units: the coupling and the recorded columns resolved against their
// variables, their input approximations, the capability checks (reactivity against the
// algorithm, algebraic loops, HERMITE derivatives, tentative steps), and the resolved choices
// (adaptive H off when a unit cannot vary its step, linear coupling, the Newton Jacobian).
// A plain value; thread safe once built.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/algorithm_settings.h"
#include "cosimo/common/scenario.h"
#include "cosimo/master/coupling.h"
#include "cosimo/master/unit_proxy.h"
#include "master/src/coupling_graph.h"
#include "master/src/input_approximation.h"

namespace cosimo::master {

struct UnitConfig {
  UnitProxy* proxy = nullptr;
  std::string name;
  int num_inputs = 0;
  int num_outputs = 0;
  Approximation approx;  // of its inputs
  // Per input: an FMI 3 clock or clocked input (VariableInfo::clocked), sent the source's value
  // at the start of the step, held, by every algorithm.
  std::vector<bool> clocked_inputs;
  // Rolls back under tentative steps (it saves and restores its state); otherwise COSTARICA
  // estimates its tentative steps and it integrates for real on commit.
  bool rolls_back = false;
};

struct MasterConfig {
  // The scenario's settings; `adaptive` is off here when a unit cannot vary its step.
  AlgorithmSettings algorithm;
  // Every step is tentative (iterative kinds, adaptive H): it can be rejected.
  bool tentative = false;
  // Every unit estimated and algorithm.linear_coupling: one linear solve per step.
  bool linear_coupling = false;
  // NEWTON: where the Jacobian comes from, never AUTO.
  v1::Algorithm::NewtonJacobian newton_jacobian = v1::Algorithm::FINITE_DIFFERENCES;
  // Lowest approximation order among the units with inputs (0 without inputs): the error
  // estimate's exponent for adaptive H.
  int error_order = 0;

  std::vector<std::string> names;  // scenario order, as every index below
  std::vector<UnitDescription> descriptions;
  std::vector<UnitConfig> units;
  Coupling coupling;
  std::vector<CouplingEdge> edges;
  RecordPlan plan;
  std::vector<int> order;  // stepping order: Gauss-Seidel's, else the scenario's
};

// `units` in scenario order, loaded. Errors name the scenario field, or the units and the time
// (start_time) for capability checks.
[[nodiscard]] absl::StatusOr<MasterConfig> ResolveMasterConfig(
    const v1::Scenario& scenario, const std::vector<UnitProxy*>& units);

// "'a', 'b'": the named units of a config, quoted, for messages.
std::string UnitList(const MasterConfig& config, const std::vector<int>& units);

}  // namespace cosimo::master
