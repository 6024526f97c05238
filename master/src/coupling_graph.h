// The coupling as a directed graph of units, for the master algorithms: which dependencies are
// reactive (the destination needs the source's output at the same time instant), the
// Gauss-Seidel order derived from them, and the algebraic loops (cycles of reactive
// dependencies). Stateless functions over plain values; thread safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/master/coupling.h"

namespace cosimo::master {

struct CouplingEdge {
  int from_unit = -1;
  int from_output = -1;
  int to_unit = -1;
  int to_input = -1;
};

// Every connection, in unit/input order.
std::vector<CouplingEdge> Edges(const Coupling& coupling);

// An edge is reactive when its destination is input reactive (it needs u(t[N+1]) to step) or
// output reactive (its outputs at t[N+1] depend on u(t[N+1])): under Gauss-Seidel the
// destination must then step after its source.
bool IsReactive(const std::vector<UnitDescription>& units, const CouplingEdge& edge);
// Feedthrough only (destination output reactive): what matters for consistent outputs at t0.
bool IsFeedthrough(const std::vector<UnitDescription>& units, const CouplingEdge& edge);

// Groups of units that form cycles in the graph of the selected edges (strongly connected
// components of more than one unit, or a unit feeding itself), each sorted by index.
std::vector<std::vector<int>> Cycles(int num_units, const std::vector<CouplingEdge>& edges);

// A topological order of the units under the selected edges, ties broken by scenario order.
// Fails when the edges contain a cycle.
[[nodiscard]] absl::StatusOr<std::vector<int>> TopologicalOrder(
    int num_units, const std::vector<CouplingEdge>& edges);

// The Gauss-Seidel order: topological over the reactive edges. An algebraic loop is an error
// that names the units and connections in the loop.
[[nodiscard]] absl::StatusOr<std::vector<int>> GaussSeidelOrder(
    const std::vector<std::string>& names, const std::vector<UnitDescription>& units,
    const Coupling& coupling);

// "'a', 'b' (a.y -> b.u, b.y -> a.u)": a cycle described for error messages.
std::string DescribeCycle(const std::vector<int>& cycle, const std::vector<std::string>& names,
                          const std::vector<UnitDescription>& units,
                          const std::vector<CouplingEdge>& edges);

}  // namespace cosimo::master
