#include "master/src/master_config.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cosimo::master {
namespace {

// Units matching `pred`, by index.
template <typename Pred>
std::vector<int> UnitsWhere(const MasterConfig& c, Pred pred) {
  std::vector<int> found;
  for (int u = 0; u < static_cast<int>(c.units.size()); ++u) {
    if (pred(u)) found.push_back(u);
  }
  return found;
}

// Input reactive units with connected inputs cannot run under JACOBI; GAUSS_SEIDEL needs an
// order without algebraic loops.
absl::Status CheckReactivity(MasterConfig& c) {
  const int n = static_cast<int>(c.units.size());
  const AlgorithmSettings& a = c.algorithm;
  if (a.kind == v1::Algorithm::JACOBI) {
    const std::vector<int> reactive = UnitsWhere(c, [&](int u) {
      return c.descriptions[u].capabilities.input_reactive && !c.coupling.inputs[u].empty();
    });
    if (!reactive.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "at t=", a.start_time, ": units ", UnitList(c, reactive),
          " are input reactive (they need their inputs at t[N+1] to step) and cannot run "
          "under JACOBI; use GAUSS_SEIDEL, FIXED_POINT or NEWTON"));
    }
  }
  if (a.kind == v1::Algorithm::GAUSS_SEIDEL) {
    absl::StatusOr<std::vector<int>> order = GaussSeidelOrder(c.names, c.descriptions, c.coupling);
    if (!order.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("at t=", a.start_time, ": ", order.status().message()));
    }
    c.order = *std::move(order);
  } else {
    for (int u = 0; u < n; ++u) c.order.push_back(u);
  }
  return absl::OkStatus();
}

// HERMITE needs output derivatives from every source.
absl::Status CheckHermiteSources(const MasterConfig& c) {
  for (const CouplingEdge& e : c.edges) {
    if (c.units[e.to_unit].approx.kind != v1::HERMITE) continue;
    if (c.descriptions[e.from_unit].capabilities.max_output_derivative_order < 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", c.names[e.to_unit], "' input '",
                       c.descriptions[e.to_unit].inputs[e.to_input].name,
                       "' uses HERMITE, but unit '", c.names[e.from_unit],
                       "' gives no output derivatives (max_output_derivative_order 0); "
                       "use FOH or POLYNOMIAL for it"));
    }
  }
  return absl::OkStatus();
}

// Tentative steps (iterative kinds, adaptive steps) need rollback or COSTARICA, which needs
// the unit's Jacobians.
absl::Status CheckTentativeSteps(const MasterConfig& c) {
  if (!c.tentative) return absl::OkStatus();
  const std::vector<int> impossible = UnitsWhere(c, [&](int u) {
    return !c.units[u].rolls_back && !c.descriptions[u].capabilities.provides_jacobians;
  });
  if (impossible.empty()) return absl::OkStatus();
  const AlgorithmSettings& a = c.algorithm;
  return absl::FailedPreconditionError(absl::StrCat(
      "at t=", a.start_time, ": units ", UnitList(c, impossible),
      " cannot roll back (rollback FORBID or no state save/restore) and provide no "
      "Jacobians, so COSTARICA cannot estimate their tentative steps under ",
      v1::Algorithm::Kind_Name(a.kind), a.adaptive ? " with adaptive steps" : "",
      "; allow rollback (rollback AUTO) or use a non-iterative kind with fixed steps"));
}

// FMI 3 clocks and clocked variables are exchanged at ticks, once per step (docs/fmi.md,
// "Clocks"): not under iterative schemes or adaptive steps, which redo and judge steps by their
// inputs. The scenario check refuses Clock connections first; this names a clocked one too.
absl::Status CheckClockedInputs(const MasterConfig& c) {
  if (!c.tentative) return absl::OkStatus();
  for (size_t u = 0; u < c.units.size(); ++u) {
    const std::vector<VariableInfo>& inputs = c.descriptions[u].inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].clocked || c.coupling.inputs[u][i].unit < 0) continue;
      return absl::FailedPreconditionError(
          absl::StrCat("input '", c.names[u], ".", inputs[i].name,
                       "' is an FMI 3 clock or clocked variable, exchanged only at ticks, which ",
                       v1::Algorithm::Kind_Name(c.algorithm.kind),
                       c.algorithm.adaptive ? " with adaptive steps" : "",
                       " cannot redo; use JACOBI or GAUSS_SEIDEL with fixed steps"));
    }
  }
  return absl::OkStatus();
}

// Adaptive H needs every unit to vary its step: otherwise H stays fixed (a warning).
void ResolveAdaptive(MasterConfig& c) {
  if (!c.algorithm.adaptive) return;
  const std::vector<int> fixed =
      UnitsWhere(c, [&](int u) { return !c.descriptions[u].capabilities.can_vary_step; });
  if (fixed.empty()) return;
  spdlog::warn("units {} cannot vary their step size: the communication step stays fixed at {} s",
               UnitList(c, fixed), c.algorithm.step_size);
  c.algorithm.adaptive = false;
}

// Linear coupling applies to iterative kinds when every unit is estimated (the step map is
// then affine in the unknowns).
void ResolveLinearCoupling(MasterConfig& c) {
  if (!c.algorithm.linear_coupling || !c.algorithm.iterative) return;
  const std::vector<int> rolled = UnitsWhere(c, [&](int u) { return c.units[u].rolls_back; });
  if (rolled.empty()) {
    c.linear_coupling = true;
    return;
  }
  spdlog::warn(
      "algorithm.linear_coupling ignored: units {} roll back instead of being estimated, so the "
      "coupling is not affine; iterating instead",
      UnitList(c, rolled));
}

// NEWTON: AUTO takes the units' own sensitivities when every unit provides Jacobians, else
// Jacobian-free Newton-Krylov; DIRECTIONAL without them falls back to JFNK.
void ResolveNewtonJacobian(MasterConfig& c) {
  c.newton_jacobian = c.algorithm.newton_jacobian;
  if (c.algorithm.kind != v1::Algorithm::NEWTON) return;
  const std::vector<int> without =
      UnitsWhere(c, [&](int u) { return !c.descriptions[u].capabilities.provides_jacobians; });
  if (c.newton_jacobian == v1::Algorithm::AUTO) {
    c.newton_jacobian = without.empty() ? v1::Algorithm::DIRECTIONAL : v1::Algorithm::JFNK;
  } else if (c.newton_jacobian == v1::Algorithm::DIRECTIONAL && !without.empty()) {
    spdlog::warn(
        "algorithm.newton_jacobian DIRECTIONAL: units {} provide no Jacobians; using JFNK "
        "(Jacobian-free Newton-Krylov) instead",
        UnitList(c, without));
    c.newton_jacobian = v1::Algorithm::JFNK;
  }
  spdlog::info("NEWTON Jacobian: {}", v1::Algorithm::NewtonJacobian_Name(c.newton_jacobian));
}

}  // namespace

std::string UnitList(const MasterConfig& config, const std::vector<int>& units) {
  std::vector<std::string> quoted;
  for (int u : units) quoted.push_back(absl::StrCat("'", config.names[u], "'"));
  return absl::StrJoin(quoted, ", ");
}

absl::StatusOr<MasterConfig> ResolveMasterConfig(const v1::Scenario& scenario,
                                                 const std::vector<UnitProxy*>& units) {
  MasterConfig c;
  COSIMO_ASSIGN_OR_RETURN(c.algorithm, ResolveAlgorithm(scenario));
  if (static_cast<int>(units.size()) != scenario.units_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RunMaster: ", units.size(), " units given for a scenario with ", scenario.units_size()));
  }
  const int n = scenario.units_size();
  for (int u = 0; u < n; ++u) {
    if (units[u] == nullptr || units[u]->name() != scenario.units(u).name()) {
      return absl::InvalidArgumentError(
          absl::StrCat("RunMaster: unit ", u, " must be '", scenario.units(u).name(), "'"));
    }
    c.descriptions.push_back(units[u]->description());
    c.names.push_back(scenario.units(u).name());
  }
  COSIMO_ASSIGN_OR_RETURN(c.coupling, ResolveCoupling(scenario, c.descriptions));
  COSIMO_ASSIGN_OR_RETURN(c.plan, PlanRecording(scenario, c.descriptions));
  c.edges = Edges(c.coupling);

  c.units.resize(n);
  c.error_order = -1;
  for (int u = 0; u < n; ++u) {
    UnitConfig& uc = c.units[u];
    uc.proxy = units[u];
    uc.name = c.names[u];
    uc.rolls_back = units[u]->iterative_mode() == IterativeMode::kRollback;
    uc.num_inputs = static_cast<int>(c.descriptions[u].inputs.size());
    uc.num_outputs = static_cast<int>(c.descriptions[u].outputs.size());
    for (const VariableInfo& v : c.descriptions[u].inputs) uc.clocked_inputs.push_back(v.clocked);
    uc.approx.kind = EffectiveApproximation(scenario, u);
    uc.approx.degree = scenario.units(u).extrapolation_degree() > 0
                           ? scenario.units(u).extrapolation_degree()
                           : c.algorithm.extrapolation_degree;
    if (uc.num_inputs > 0) {
      c.error_order =
          c.error_order < 0 ? uc.approx.order() : std::min(c.error_order, uc.approx.order());
    }
  }
  c.error_order = std::max(c.error_order, 0);

  ResolveAdaptive(c);
  c.tentative = c.algorithm.iterative || c.algorithm.adaptive;
  COSIMO_RETURN_IF_ERROR(CheckReactivity(c));
  COSIMO_RETURN_IF_ERROR(CheckHermiteSources(c));
  COSIMO_RETURN_IF_ERROR(CheckTentativeSteps(c));
  COSIMO_RETURN_IF_ERROR(CheckClockedInputs(c));
  ResolveLinearCoupling(c);
  ResolveNewtonJacobian(c);
  return c;
}

}  // namespace cosimo::master
