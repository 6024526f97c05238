#include "master/src/initial_outputs.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/status.h"
#include "master/src/fan_out.h"

namespace cosimo::master {
namespace {

absl::Status InitialDerivatives(CoupledUnits& units, const std::vector<int>& order, bool cyclic) {
  std::vector<UnitSlot>& slots = units.slots();
  const MasterConfig& config = units.config();
  const double start = config.algorithm.start_time;
  // Evaluate replies give dy/dt at frozen inputs (u' = 0). For an output reactive unit the
  // true derivative adds dG/du u', with u' the sources' output derivatives: a central
  // directional difference of Evaluate along u' (exact for outputs linear in u). Hermite
  // coupling needs it at t0, where no converged step gives the derivative yet.
  std::vector<Eigen::VectorXd> frozen(slots.size());
  for (size_t u = 0; u < slots.size(); ++u) frozen[u] = slots[u].derivatives;
  const int sweeps = cyclic ? 50 : 1;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    double change = 0.0;
    for (int u : order) {
      UnitSlot& s = slots[u];
      if (s.num_inputs == 0 || !config.descriptions[u].capabilities.output_reactive) continue;
      Eigen::VectorXd u0(s.num_inputs), du(s.num_inputs);
      for (int i = 0; i < s.num_inputs; ++i) {
        const Coupling::Source& src = s.sources[i];
        u0[i] = src.unit < 0 ? 0.0 : slots[src.unit].outputs[src.output];
        // Integer and Boolean inputs are piecewise constant: no direction to differentiate
        // along (and a perturbed value would be no integer: FMUs refuse it).
        const bool real =
            config.descriptions[u].inputs[static_cast<size_t>(i)].type == ValueType::kReal;
        du[i] = src.unit < 0 || !real ? 0.0 : slots[src.unit].derivatives[src.output];
      }
      const double du_norm = du.lpNorm<Eigen::Infinity>();
      Eigen::VectorXd corrected = frozen[u];
      if (du_norm > 0.0) {
        const double eps = 1e-5 * (1.0 + u0.lpNorm<Eigen::Infinity>()) / du_norm;
        Eigen::VectorXd y_plus, y_minus;
        for (double sign : {1.0, -1.0}) {
          s.command.kind = UnitCommand::Kind::kEvaluate;
          s.command.inputs = u0 + sign * eps * du;
          COSIMO_RETURN_IF_ERROR(Annotate(
              CallUnit(s),
              absl::StrCat("unit '", s.name, "' at t=", start, ": evaluate output derivatives")));
          (sign > 0 ? y_plus : y_minus) = s.response.outputs.outputs;
        }
        corrected += (y_plus - y_minus) / (2.0 * eps);
        // Leave the unit evaluated at the consistent inputs.
        s.command.inputs = u0;
        COSIMO_RETURN_IF_ERROR(Annotate(
            CallUnit(s),
            absl::StrCat("unit '", s.name, "' at t=", start, ": evaluate initial outputs")));
        s.recorded = s.response.outputs.recorded;
        s.recorded_strings = s.response.outputs.recorded_strings;
        s.integers = s.response.outputs.integers;
      }
      change = std::max(change, (corrected - s.derivatives).lpNorm<Eigen::Infinity>() /
                                    (1.0 + corrected.lpNorm<Eigen::Infinity>()));
      s.derivatives = corrected;
    }
    if (change <= 1e-12) break;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status InitializeUnits(CoupledUnits& units) {
  const double start = units.config().algorithm.start_time;
  // Per unit, the outputs that feed a discrete input (a table holds them between samples).
  std::vector<UnitSlot>& slots = units.slots();
  std::vector<std::vector<int>> hold(slots.size());
  for (size_t c = 0; c < slots.size(); ++c) {
    const std::vector<VariableInfo>& inputs = units.config().descriptions[c].inputs;
    for (size_t i = 0; i < inputs.size() && i < slots[c].sources.size(); ++i) {
      const Coupling::Source& src = slots[c].sources[i];
      if (!inputs[i].discrete || src.unit < 0) continue;
      std::vector<int>& h = hold[static_cast<size_t>(src.unit)];
      if (std::find(h.begin(), h.end(), src.output) == h.end()) h.push_back(src.output);
    }
  }
  return FanOut(
      slots,
      [&](UnitSlot& s) {
        s.command.kind = UnitCommand::Kind::kInitialize;
        s.command.time = start;
        s.command.hold_outputs = hold[static_cast<size_t>(&s - slots.data())];
        return true;
      },
      [&](UnitSlot& s, absl::Status awaited) {
        if (!awaited.ok()) {
          return Annotate(awaited,
                          absl::StrCat("unit '", s.name, "' at t=", start, ": initialize"));
        }
        const OutputsReply& out = s.response.outputs;
        if (out.outputs.size() != s.num_outputs) {
          return absl::InternalError(absl::StrCat("unit '", s.name, "' initialised with ",
                                                  out.outputs.size(), " outputs; it declares ",
                                                  s.num_outputs));
        }
        s.outputs = out.outputs;
        if (out.derivatives.size() == s.num_outputs) s.derivatives = out.derivatives;
        s.recorded = out.recorded;
        s.recorded_strings = out.recorded_strings;
        s.integers = out.integers;
        s.integers = out.integers;
        return absl::OkStatus();
      });
}

absl::Status ResolveInitialOutputs(CoupledUnits& units) {
  std::vector<UnitSlot>& slots = units.slots();
  const MasterConfig& config = units.config();
  const double start = config.algorithm.start_time;
  // Evaluate every unit with inputs from its sources' outputs, in feedthrough order; with a
  // feedthrough cycle, sweep until the outputs stop changing.
  std::vector<CouplingEdge> feedthrough;
  for (const CouplingEdge& e : config.edges) {
    if (IsFeedthrough(config.descriptions, e)) feedthrough.push_back(e);
  }
  const int n = static_cast<int>(slots.size());
  const std::vector<std::vector<int>> cycles = Cycles(n, feedthrough);
  std::vector<int> order;
  if (cycles.empty()) {
    COSIMO_ASSIGN_OR_RETURN(order, TopologicalOrder(n, feedthrough));
  } else {
    for (int u = 0; u < n; ++u) order.push_back(u);
  }
  // With a feedthrough cycle, sweep until the outputs stop changing; then one more pass so that
  // every unit (also those evaluated before their sources settled) has its outputs, output
  // derivatives and recorded values at the final inputs.
  const int sweeps = cycles.empty() ? 2 : 200;
  bool final_pass = false;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    double change = 0.0;
    for (int u : order) {
      UnitSlot& s = slots[u];
      if (s.num_inputs == 0) continue;
      for (int i = 0; i < s.num_inputs; ++i) {
        const Coupling::Source& src = s.sources[i];
        s.command.inputs[i] = src.unit < 0 ? 0.0 : slots[src.unit].outputs[src.output];
      }
      s.command.kind = UnitCommand::Kind::kEvaluate;
      COSIMO_RETURN_IF_ERROR(Annotate(CallUnit(s), absl::StrCat("unit '", s.name, "' at t=", start,
                                                                ": evaluate initial outputs")));
      const OutputsReply& out = s.response.outputs;
      if (out.outputs.size() != s.num_outputs) {
        return absl::InternalError(
            absl::StrCat("unit '", s.name, "' evaluated ", out.outputs.size(), " outputs"));
      }
      for (int o = 0; o < s.num_outputs; ++o) {
        change = std::max(
            change, std::abs(out.outputs[o] - s.outputs[o]) / (1.0 + std::abs(out.outputs[o])));
      }
      s.outputs = out.outputs;
      if (out.derivatives.size() == s.num_outputs) s.derivatives = out.derivatives;
      s.recorded = out.recorded;
      s.recorded_strings = out.recorded_strings;
      s.integers = out.integers;
    }
    if (cycles.empty() && sweep == 0) continue;
    if (cycles.empty()) break;
    if (change <= 1e-13) {
      if (final_pass) break;
      final_pass = true;
      continue;
    }
    if (sweep + 1 == sweeps || !std::isfinite(change)) {
      std::vector<std::string> described;
      for (const std::vector<int>& c : cycles) {
        described.push_back(DescribeCycle(c, config.names, config.descriptions, feedthrough));
      }
      return absl::FailedPreconditionError(
          absl::StrCat("at t=", start, ": the initial outputs of the feedthrough loop ",
                       absl::StrJoin(described, "; "), " did not converge in ", sweeps,
                       " fixed-point sweeps (last change ", change, ")"));
    }
  }
  COSIMO_RETURN_IF_ERROR(InitialDerivatives(units, order, !cycles.empty()));
  for (UnitSlot& s : slots) s.history.Push(start, s.outputs, s.derivatives);
  return absl::OkStatus();
}

}  // namespace cosimo::master
