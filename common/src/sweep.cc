#include "cosimo/common/sweep.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/json_check.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "json_fields.h"

namespace cosimo {
namespace {

namespace fs = std::filesystem;
namespace pb = google::protobuf;

using Problems = std::vector<std::string>;

bool AllFinite(const pb::RepeatedField<double>& values) {
  for (double v : values) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

// linspace / logspace: [a, b, n].
void CheckSpace(const pb::RepeatedField<double>& v, const std::string& field, bool positive,
                Problems& problems) {
  if (v.size() != 3) {
    problems.push_back(field + ": give [a, b, n] (3 numbers, not " + std::to_string(v.size()) +
                       ")");
  } else if (!AllFinite(v)) {
    problems.push_back(field + ": a, b and n must be finite");
  } else if (v[2] < 1.0) {
    problems.push_back(field + ": n must be >= 1 (not " + FormatDouble(v[2]) + ")");
  } else if (v[2] != std::floor(v[2])) {
    problems.push_back(field + ": n must be a whole number (not " + FormatDouble(v[2]) + ")");
  } else if (positive && (v[0] <= 0.0 || v[1] <= 0.0)) {
    problems.push_back(field + ": a and b must be > 0");
  }
}

constexpr double kMaxNormalDeviations = 9.0;

// uniform, normal, log_uniform: [p, q]. A normal's standard deviation may be 0 in a RANDOM
// design (every value the mean), not in a LATIN_HYPERCUBE's, whose strata are of equal
// probability.
void CheckPair(const pb::RepeatedField<double>& v, const std::string& field,
               v1::SweepDesign::Kind kind, Problems& problems) {
  const bool normal = field.ends_with(".normal");
  const bool log = field.ends_with(".log_uniform");
  if (v.size() != 2) {
    problems.push_back(field +
                       (normal ? ": give [mean, standard deviation]" : ": give [low, high]") +
                       " (2 numbers, not " + std::to_string(v.size()) + ")");
  } else if (!AllFinite(v)) {
    problems.push_back(field + ": the numbers must be finite");
  } else if (normal && kind == v1::SweepDesign::LATIN_HYPERCUBE && v[1] <= 0.0) {
    problems.push_back(field + ": the standard deviation must be > 0 in a LATIN_HYPERCUBE design");
  } else if (normal && v[1] < 0.0) {
    problems.push_back(field + ": the standard deviation must be >= 0");
  } else if (normal && !(std::abs(v[0]) + kMaxNormalDeviations * v[1] <=
                         std::numeric_limits<double>::max())) {
    // A design's standard normal values reach 8.6 (Box-Muller from 53-bit uniforms) and 8.2
    // (the Latin hypercube's quantiles of 2^-53 and 1 - 2^-53): beyond, values would overflow.
    problems.push_back(field + ": the mean plus " + FormatDouble(kMaxNormalDeviations) +
                       " standard deviations must stay within the double range (" +
                       FormatDouble(std::numeric_limits<double>::max()) +
                       "); the values would overflow");
  } else if (!normal && v[0] > v[1]) {
    problems.push_back(field + ": low must be <= high");
  } else if (log && v[0] <= 0.0) {
    problems.push_back(field + ": low must be > 0");
  }
}

void CheckParameter(const v1::SweepParameter& p, const std::string& field,
                    v1::SweepDesign::Kind kind, Problems& problems) {
  if (p.name().empty()) problems.push_back(field + ".name: missing");
  const std::vector<std::pair<const char*, int>> sources = {
      {"values", p.values_size()},     {"linspace", p.linspace_size()},
      {"logspace", p.logspace_size()}, {"uniform", p.uniform_size()},
      {"normal", p.normal_size()},     {"log_uniform", p.log_uniform_size()}};
  std::vector<std::string> given;
  for (const auto& [name, size] : sources) {
    if (size > 0) given.push_back(name);
  }
  const bool grid = kind == v1::SweepDesign::GRID;
  const bool list = kind == v1::SweepDesign::LIST;
  const std::string allowed = list   ? "values"
                              : grid ? "values, linspace or logspace"
                                     : "uniform, normal or log_uniform";
  if (given.size() != 1) {
    problems.push_back(absl::StrCat(
        field, ": give exactly one of ", allowed, " (", v1::SweepDesign::Kind_Name(kind),
        " design; given: ", given.empty() ? "none" : absl::StrJoin(given, ", "), ")"));
    return;
  }
  const std::string source = field + "." + given[0];
  if (allowed.find(given[0]) == std::string::npos || (!grid && !list && given[0] == "values")) {
    problems.push_back(absl::StrCat(source, ": not for a ", v1::SweepDesign::Kind_Name(kind),
                                    " design (give ", allowed, ")"));
  } else if (given[0] == "values" && !AllFinite(p.values())) {
    problems.push_back(source + ": every value must be finite");
  } else if (given[0] == "linspace" || given[0] == "logspace") {
    CheckSpace(given[0] == "linspace" ? p.linspace() : p.logspace(), source, given[0] == "logspace",
               problems);
  } else if (!grid && !list) {
    CheckPair(given[0] == "uniform"  ? p.uniform()
              : given[0] == "normal" ? p.normal()
                                     : p.log_uniform(),
              source, kind, problems);
  }
}

// The columns of a sweep's table besides its parameters and KPIs (SweepTableColumns).
const std::set<std::string> kTableColumns = {"index", "status", "wall_time_s", "message"};

// Each KPI's column name: unique, and neither a parameter's nor one of the table's own (issue
// 41: a KPI named "status" gave a table with two status columns).
void CheckKpis(const v1::Sweep& sweep, Problems& problems) {
  std::set<std::string> names;
  std::set<std::string> parameters;
  for (const v1::SweepParameter& p : sweep.parameters()) parameters.insert(p.name());
  for (int i = 0; i < sweep.kpis_size(); ++i) {
    const v1::Kpi& kpi = sweep.kpis(i);
    const std::string field = absl::StrCat("kpis[", i, "]");
    if (absl::StatusOr<VariableRef> ref = ParseVariableRef(kpi.variable(), field + ".variable");
        !ref.ok()) {
      problems.push_back(std::string(ref.status().message()));
    }
    if (kpi.kind() == v1::Kpi::FIRST_CROSSING && !std::isfinite(kpi.level())) {
      problems.push_back(field + ".level: must be finite");
    }
    if (kpi.kind() == v1::Kpi::AT && !std::isfinite(kpi.time())) {
      problems.push_back(field + ".time: must be finite");
    }
    const std::string name = KpiName(kpi);
    if (kTableColumns.count(name) != 0) {
      problems.push_back(absl::StrCat(
          field, ": the name '", name,
          "' is a column the sweep's table has already (index, status, wall_time_s, message); "
          "give it another name"));
    } else if (parameters.count(name) != 0) {
      problems.push_back(absl::StrCat(field, ": the name '", name,
                                      "' is a swept parameter's (a column of the sweep's table); "
                                      "give it another name"));
    } else if (!names.insert(name).second) {
      problems.push_back(field + ": a second KPI named '" + name + "' (give it a name)");
    }
  }
}

// A LIST design's parameters: values of one length (the number of variants).
void CheckListLengths(const v1::Sweep& sweep, Problems& problems) {
  for (int i = 1; i < sweep.parameters_size(); ++i) {
    if (sweep.parameters(i).values_size() != sweep.parameters(0).values_size()) {
      problems.push_back(
          absl::StrCat("parameters[", i, "].values: ", sweep.parameters(i).values_size(),
                       " values, but parameters[0] has ", sweep.parameters(0).values_size(),
                       " (a LIST design takes the i-th of each)"));
    }
  }
}

}  // namespace

absl::StatusOr<v1::Sweep> ParseSweepJson(std::string_view json) {
  v1::Sweep sweep;
  if (absl::Status s = ParseJsonMessage(json, "sweep", &sweep); !s.ok()) return s;
  return sweep;
}

absl::StatusOr<v1::Scenario> LoadBaseScenario(const v1::Scenario* inline_base,
                                              const std::string& scenario_file,
                                              const std::string& path) {
  const fs::path dir = fs::absolute(fs::path(path)).parent_path();
  if (inline_base != nullptr) {
    v1::Scenario base = *inline_base;
    for (v1::Unit& unit : *base.mutable_units()) {
      for (const UnitArtifact& a : MutableUnitArtifacts(&unit)) {
        if (!a.path->empty() && fs::path(*a.path).is_relative()) {
          *a.path = (dir / *a.path).lexically_normal().string();
        }
      }
    }
    return base;
  }
  if (scenario_file.empty()) return v1::Scenario();
  const fs::path file = (dir / scenario_file).lexically_normal();
  absl::StatusOr<v1::Scenario> base = LoadScenarioFile(file.string());
  if (!base.ok()) {
    return absl::Status(base.status().code(),
                        path + ": scenario_file: " + std::string(base.status().message()));
  }
  return base;
}

absl::StatusOr<LoadedSweep> LoadSweepFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read sweep file '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<v1::Sweep> sweep = ParseSweepJson(buffer.str());
  if (!sweep.ok()) {
    return absl::Status(sweep.status().code(), path + ": " + std::string(sweep.status().message()));
  }
  absl::StatusOr<v1::Scenario> base = LoadBaseScenario(
      sweep->has_scenario() ? &sweep->scenario() : nullptr, sweep->scenario_file(), path);
  if (!base.ok()) return base.status();
  return LoadedSweep{*std::move(sweep), *std::move(base)};
}

absl::Status ValidateSweep(const v1::Sweep& sweep) {
  Problems problems;
  if (!sweep.has_scenario() && sweep.scenario_file().empty()) {
    problems.push_back("scenario_file: missing (or give the base scenario inline as scenario)");
  }
  const v1::SweepDesign& design = sweep.design();
  if (design.kind() == v1::SweepDesign::LIST) {
    CheckListLengths(sweep, problems);
  } else if (design.kind() != v1::SweepDesign::GRID && design.samples() == 0) {
    problems.push_back("design.samples: must be >= 1 for a " +
                       v1::SweepDesign::Kind_Name(design.kind()) + " design");
  }
  if (sweep.parameters_size() == 0) problems.push_back("parameters: at least one is needed");
  std::set<std::string> names;
  for (int i = 0; i < sweep.parameters_size(); ++i) {
    const std::string field = absl::StrCat("parameters[", i, "]");
    CheckParameter(sweep.parameters(i), field, design.kind(), problems);
    if (!sweep.parameters(i).name().empty() && !names.insert(sweep.parameters(i).name()).second) {
      problems.push_back(field + ".name: '" + sweep.parameters(i).name() + "' is swept twice");
    }
  }
  CheckKpis(sweep, problems);
  return ProblemsStatus(problems);
}

}  // namespace cosimo
