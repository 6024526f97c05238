#include "master/src/coupling_graph.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cosimo::master {

std::vector<CouplingEdge> Edges(const Coupling& coupling) {
  std::vector<CouplingEdge> edges;
  for (size_t u = 0; u < coupling.inputs.size(); ++u) {
    for (size_t i = 0; i < coupling.inputs[u].size(); ++i) {
      const Coupling::Source& s = coupling.inputs[u][i];
      if (s.unit < 0) continue;
      edges.push_back({s.unit, s.output, static_cast<int>(u), static_cast<int>(i)});
    }
  }
  return edges;
}

bool IsReactive(const std::vector<UnitDescription>& units, const CouplingEdge& edge) {
  const Capabilities& c = units[edge.to_unit].capabilities;
  return c.input_reactive || c.output_reactive;
}

bool IsFeedthrough(const std::vector<UnitDescription>& units, const CouplingEdge& edge) {
  return units[edge.to_unit].capabilities.output_reactive;
}

std::vector<std::vector<int>> Cycles(int num_units, const std::vector<CouplingEdge>& edges) {
  std::vector<std::vector<int>> next(num_units);
  std::vector<bool> self_loop(num_units, false);
  for (const CouplingEdge& e : edges) {
    next[e.from_unit].push_back(e.to_unit);
    if (e.from_unit == e.to_unit) self_loop[e.from_unit] = true;
  }
  // Tarjan's strongly connected components.
  std::vector<int> index(num_units, -1), low(num_units, 0);
  std::vector<bool> on_stack(num_units, false);
  std::vector<int> stack;
  std::vector<std::vector<int>> cycles;
  int counter = 0;
  std::function<void(int)> visit = [&](int v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on_stack[v] = true;
    for (int w : next[v]) {
      if (index[w] < 0) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on_stack[w]) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] == index[v]) {
      std::vector<int> component;
      int w = -1;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = false;
        component.push_back(w);
      } while (w != v);
      if (component.size() > 1 || self_loop[v]) {
        std::sort(component.begin(), component.end());
        cycles.push_back(std::move(component));
      }
    }
  };
  for (int v = 0; v < num_units; ++v) {
    if (index[v] < 0) visit(v);
  }
  std::sort(cycles.begin(), cycles.end());
  return cycles;
}

absl::StatusOr<std::vector<int>> TopologicalOrder(int num_units,
                                                  const std::vector<CouplingEdge>& edges) {
  std::vector<int> indegree(num_units, 0);
  std::vector<std::vector<int>> next(num_units);
  for (const CouplingEdge& e : edges) {
    next[e.from_unit].push_back(e.to_unit);
    ++indegree[e.to_unit];
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int u = 0; u < num_units; ++u) {
    if (indegree[u] == 0) ready.push(u);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int w : next[u]) {
      if (--indegree[w] == 0) ready.push(w);
    }
  }
  if (static_cast<int>(order.size()) != num_units) {
    return absl::FailedPreconditionError("the dependency graph has a cycle");
  }
  return order;
}

std::string DescribeCycle(const std::vector<int>& cycle, const std::vector<std::string>& names,
                          const std::vector<UnitDescription>& units,
                          const std::vector<CouplingEdge>& edges) {
  std::vector<std::string> unit_names;
  for (int u : cycle) unit_names.push_back(absl::StrCat("'", names[u], "'"));
  std::vector<std::string> links;
  for (const CouplingEdge& e : edges) {
    const bool inside = std::binary_search(cycle.begin(), cycle.end(), e.from_unit) &&
                        std::binary_search(cycle.begin(), cycle.end(), e.to_unit);
    if (!inside) continue;
    links.push_back(absl::StrCat(names[e.from_unit], ".",
                                 units[e.from_unit].outputs[e.from_output].name, " -> ",
                                 names[e.to_unit], ".", units[e.to_unit].inputs[e.to_input].name));
  }
  return absl::StrCat(absl::StrJoin(unit_names, ", "), " (", absl::StrJoin(links, ", "), ")");
}

absl::StatusOr<std::vector<int>> GaussSeidelOrder(const std::vector<std::string>& names,
                                                  const std::vector<UnitDescription>& units,
                                                  const Coupling& coupling) {
  std::vector<CouplingEdge> reactive;
  for (const CouplingEdge& e : Edges(coupling)) {
    if (IsReactive(units, e)) reactive.push_back(e);
  }
  const int n = static_cast<int>(units.size());
  const std::vector<std::vector<int>> cycles = Cycles(n, reactive);
  if (!cycles.empty()) {
    std::vector<std::string> described;
    for (const std::vector<int>& c : cycles) {
      described.push_back(DescribeCycle(c, names, units, reactive));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "algebraic loop under GAUSS_SEIDEL among units ", absl::StrJoin(described, "; "),
        ": every unit in the loop is input or output reactive, so none can step first; use "
        "algorithm.kind FIXED_POINT or NEWTON"));
  }
  return TopologicalOrder(n, reactive);
}

}  // namespace cosimo::master
