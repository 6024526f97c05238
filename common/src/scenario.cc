#include "cosimo/common/scenario.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/algorithm_settings.h"
#include "cosimo/common/json_check.h"
#include "json_fields.h"

namespace cosimo {
namespace {

namespace fs = std::filesystem;

bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string Num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

absl::Status ValidateSolver(const v1::Solver& solver, const std::string& field) {
  if (solver.step() < 0 || std::isnan(solver.step())) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".step must be > 0 (got ", Num(solver.step()), ")"));
  }
  if (!(solver.tolerance() >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".tolerance must be > 0, or 0 for the solver's default (got ",
                     Num(solver.tolerance()), ")"));
  }
  if (solver.max_iterations() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".max_iterations must be >= 1, or 0 for the solver's default (got ",
                     solver.max_iterations(), ")"));
  }
  if (!v1::Solver::Method_IsValid(solver.method())) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".method is unknown"));
  }
  return absl::OkStatus();
}

constexpr int kMaxLayerSize = 4096;

absl::Status ValidateNetwork(const v1::DenseNetwork& net, const std::string& field) {
  for (int i = 0; i < net.layers_size(); ++i) {
    const v1::DenseLayer& layer = net.layers(i);
    if (layer.size() <= 0 || layer.size() > kMaxLayerSize) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".layers[", i, "].size must be in 1..",
                                                     kMaxLayerSize, " (got ", layer.size(), ")"));
    }
    if (!v1::DenseLayer::Activation_IsValid(layer.activation())) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".layers[", i, "].activation is not TANH, RELU or IDENTITY"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateHybrid(const v1::Unit& unit, const std::string& field) {
  const v1::HybridModel& hybrid = unit.hybrid();
  switch (hybrid.wrapped_case()) {
    case v1::HybridModel::kBuiltin:
      if (hybrid.builtin().model().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".hybrid.builtin.model is required (unit '", unit.name(), "')"));
      }
      break;
    case v1::HybridModel::kFmu:
      if (hybrid.fmu().path().empty() && hybrid.fmu().digest().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".hybrid.fmu.path is required (unit '", unit.name(), "')"));
      }
      break;
    case v1::HybridModel::WRAPPED_NOT_SET:
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".hybrid: unit '", unit.name(), "' needs the model it wraps (builtin or fmu)"));
  }
  if (absl::Status s = ValidateNetwork(hybrid.top(), field + ".hybrid.top"); !s.ok()) return s;
  return ValidateNetwork(hybrid.bottom(), field + ".hybrid.bottom");
}

// "a, b, c": the scenario's unit names, for messages.
std::string UnitNames(const v1::Scenario& scenario) {
  std::vector<std::string> names;
  for (const v1::Unit& u : scenario.units()) names.push_back(u.name());
  return absl::StrJoin(names, ", ");
}

}  // namespace

int FindUnit(const v1::Scenario& scenario, const std::string& name) {
  for (int i = 0; i < scenario.units_size(); ++i) {
    if (scenario.units(i).name() == name) return i;
  }
  return -1;
}

absl::Status CheckUnitRef(const v1::Scenario& scenario, std::string_view text,
                          const std::string& field, VariableRef* ref) {
  absl::StatusOr<VariableRef> parsed = ParseVariableRef(text, field);
  if (!parsed.ok()) return parsed.status();
  if (FindUnit(scenario, parsed->unit) < 0) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": unknown unit '", parsed->unit,
                                                   "' (units: ", UnitNames(scenario), ")"));
  }
  *ref = *std::move(parsed);
  return absl::OkStatus();
}

std::vector<UnitArtifact> MutableUnitArtifacts(v1::Unit* unit) {
  std::vector<UnitArtifact> out;
  if (unit->has_fmu()) {
    out.push_back(
        {"fmu", unit->mutable_fmu()->mutable_path(), unit->mutable_fmu()->mutable_digest()});
  }
  if (unit->has_table()) {
    out.push_back(
        {"table", unit->mutable_table()->mutable_path(), unit->mutable_table()->mutable_digest()});
  }
  if (unit->has_hybrid()) {
    v1::HybridModel* hybrid = unit->mutable_hybrid();
    if (hybrid->has_fmu()) {
      out.push_back({"hybrid.fmu", hybrid->mutable_fmu()->mutable_path(),
                     hybrid->mutable_fmu()->mutable_digest()});
    }
    if (hybrid->has_weights()) {
      out.push_back({"hybrid.weights", hybrid->mutable_weights()->mutable_path(),
                     hybrid->mutable_weights()->mutable_digest()});
    }
  }
  return out;
}

std::vector<UnitArtifactRef> UnitArtifacts(const v1::Unit& unit) {
  v1::Unit copy = unit;
  std::vector<UnitArtifactRef> out;
  for (const UnitArtifact& a : MutableUnitArtifacts(&copy)) {
    out.push_back({a.field, *a.path, *a.digest});
  }
  return out;
}

absl::StatusOr<v1::Scenario> ParseScenarioJson(std::string_view json) {
  // Size, depth, syntax and numbers are checked first, with line and column (a million nested
  // lists kept the parsers below busy for an hour; 1e400 threw); protobuf then maps the fields.
  if (absl::Status s = CheckJson(json, "scenario"); !s.ok()) return s;
  try {
    const nlohmann::json parsed = nlohmann::json::parse(json.begin(), json.end());
    // Fields and enum values checked first: errors with the field path and the valid choices,
    // all of them (protobuf's parser names only the first, in its own words).
    if (std::vector<std::string> errors = JsonFieldErrors(parsed, *v1::Scenario::descriptor());
        !errors.empty()) {
      if (errors.size() == 1) return absl::InvalidArgumentError("scenario: " + errors[0]);
      return absl::InvalidArgumentError(
          absl::StrCat("scenario: ", errors.size(), " errors:\n  ", absl::StrJoin(errors, "\n  ")));
    }
  } catch (const nlohmann::json::exception& e) {  // CheckJson let nothing through that throws
    return absl::InvalidArgumentError(std::string("scenario is not valid JSON: ") + e.what());
  }
  v1::Scenario scenario;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &scenario, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError("scenario: " + std::string(status.message()));
  }
  return scenario;
}

absl::StatusOr<v1::Scenario> LoadScenarioFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read scenario file '" + path + "'");
  std::error_code ec;
  if (const uintmax_t size = fs::file_size(path, ec); !ec && size > JsonLimits().max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": scenario is ", size, " bytes, more than the limit of ", JsonLimits().max_bytes));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(buffer.str());
  if (!scenario.ok()) {
    return absl::Status(scenario.status().code(),
                        path + ": " + std::string(scenario.status().message()));
  }
  const fs::path dir = fs::absolute(fs::path(path)).parent_path();
  auto resolve = [&](std::string* p) {
    if (!p->empty() && fs::path(*p).is_relative()) *p = (dir / *p).lexically_normal().string();
  };
  for (v1::Unit& unit : *scenario->mutable_units()) {
    for (const UnitArtifact& artifact : MutableUnitArtifacts(&unit)) resolve(artifact.path);
  }
  return scenario;
}

std::string ScenarioToJson(const v1::Scenario& scenario) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.add_whitespace = true;
  (void)google::protobuf::util::MessageToJsonString(scenario, &out, options);
  return out;
}

absl::StatusOr<VariableRef> ParseVariableRef(std::string_view text, std::string_view field) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) {
    return absl::InvalidArgumentError(std::string(field) + ": '" + std::string(text) +
                                      "' is not of the form <unit>.<variable>");
  }
  return VariableRef{std::string(text.substr(0, dot)), std::string(text.substr(dot + 1))};
}

namespace {

// The unit's model: one of builtin, fmu, table or hybrid, with what each requires.
absl::Status ValidateModel(const v1::Unit& unit, const std::string& field) {
  switch (unit.model_case()) {
    case v1::Unit::kBuiltin:
      if (unit.builtin().model().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".builtin.model is required (unit '", unit.name(), "')"));
      }
      break;
    case v1::Unit::kFmu:
      if (unit.fmu().path().empty() && unit.fmu().digest().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".fmu.path is required (unit '", unit.name(), "')"));
      }
      break;
    case v1::Unit::kTable:
      if (unit.table().path().empty() && unit.table().digest().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".table.path is required (unit '", unit.name(), "')"));
      }
      break;
    case v1::Unit::kHybrid:
      if (absl::Status s = ValidateHybrid(unit, field); !s.ok()) return s;
      break;
    case v1::Unit::MODEL_NOT_SET:
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": unit '", unit.name(), "' needs one of builtin, fmu, table or hybrid"));
  }
  return absl::OkStatus();
}

// A connection's map (Connection.map): whole numbers, each source once, not with a factor or an
// offset. Appends one problem per fault to `problems`.
void CheckMap(const v1::Connection& c, const std::string& field,
              std::vector<std::string>* problems) {
  if (c.map().empty()) return;
  if (c.has_factor() || c.has_offset()) {
    problems->push_back(field + ": a map and a factor or offset exclude each other");
  }
  std::set<double> sources;
  for (int k = 0; k < c.map_size(); ++k) {
    const v1::MapEntry& e = c.map(k);
    for (auto [name, v] : {std::pair<const char*, double>{"source", e.source()},
                           std::pair<const char*, double>{"target", e.target()}}) {
      if (!std::isfinite(v) || v != std::floor(v)) {
        problems->push_back(
            absl::StrCat(field, ".map[", k, "].", name, " must be a whole number, got ", Num(v)));
      }
    }
    if (!sources.insert(e.source()).second) {
      problems->push_back(
          absl::StrCat(field, ".map[", k, "].source ", Num(e.source()), " is mapped already"));
    }
  }
}

// Connections: both ends name a unit, finite factor and offset, a map of whole numbers, no input
// fed twice. Every problem of every connection in one report.
absl::Status ValidateConnections(const v1::Scenario& scenario) {
  std::map<std::string, int> connected;  // input -> connection index
  std::vector<std::string> problems;
  for (int i = 0; i < scenario.connections_size(); ++i) {
    const v1::Connection& c = scenario.connections(i);
    VariableRef from, to;
    const std::string field = absl::StrCat("connections[", i, "]");
    if (absl::Status s = CheckUnitRef(scenario, c.from(), field + ".from", &from); !s.ok()) {
      problems.emplace_back(s.message());
    }
    absl::Status to_ok = CheckUnitRef(scenario, c.to(), field + ".to", &to);
    if (!to_ok.ok()) problems.emplace_back(to_ok.message());
    if (c.has_factor() && !std::isfinite(c.factor())) {
      problems.push_back(absl::StrCat(field, ".factor must be a finite number, got ", c.factor()));
    }
    if (c.has_offset() && !std::isfinite(c.offset())) {
      problems.push_back(absl::StrCat(field, ".offset must be a finite number, got ", c.offset()));
    }
    CheckMap(c, field, &problems);
    if (!to_ok.ok()) continue;
    auto [it, inserted] = connected.emplace(to.ToString(), i);
    if (!inserted) {
      problems.push_back(absl::StrCat(field, ".to: input '", to.ToString(),
                                      "' is already connected by connections[", it->second, "]"));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  if (problems.size() == 1) return absl::InvalidArgumentError(problems[0]);
  std::string text = absl::StrCat(problems.size(), " problems:");
  for (const std::string& p : problems) absl::StrAppend(&text, "\n  ", p);
  return absl::InvalidArgumentError(text);
}

}  // namespace

absl::Status ValidateScenario(const v1::Scenario& scenario) {
  if (scenario.name().size() > kMaxNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("name is ", scenario.name().size(), " bytes; at most ", kMaxNameBytes));
  }
  // Times and the algorithm: the rules (and defaults) the master applies too.
  if (absl::StatusOr<AlgorithmSettings> a = ResolveAlgorithm(scenario); !a.ok()) {
    return a.status();
  }
  if (scenario.units().empty()) {
    return absl::InvalidArgumentError("units: a scenario needs at least one unit");
  }
  std::set<std::string> names;
  for (int i = 0; i < scenario.units_size(); ++i) {
    const v1::Unit& unit = scenario.units(i);
    const std::string field = absl::StrCat("units[", i, "]");
    if (unit.name().size() > kMaxNameBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".name is ", unit.name().size(), " bytes; at most ", kMaxNameBytes));
    }
    if (!IsIdentifier(unit.name())) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".name '", unit.name(), "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)"));
    }
    if (!names.insert(unit.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".name: unit '", unit.name(), "' is defined twice"));
    }
    if (absl::Status s = ValidateModel(unit, field); !s.ok()) return s;
    if (absl::Status s = ValidateSolver(unit.solver(), field + ".solver"); !s.ok()) return s;
    if (unit.extrapolation_degree() < 0 || unit.extrapolation_degree() > kMaxExtrapolationDegree) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".extrapolation_degree must be in 0..", kMaxExtrapolationDegree));
    }
    if (!unit.sensitivities().empty() && !unit.has_builtin() &&
        !(unit.has_fmu() && unit.has_solver())) {
      return absl::InvalidArgumentError(field +
                                        ".sensitivities: only built-in units and FMU units run as "
                                        "Model Exchange (with a solver) give sensitivities "
                                        "(docs/calibration.md)");
    }
    for (int j = 0; j < unit.sensitivities_size(); ++j) {
      const std::string& p = unit.sensitivities(j);
      const size_t dot = p.find('.');
      if (dot == std::string::npos || dot == 0 || dot + 1 == p.size()) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".sensitivities[", j, "]: '", p,
                                                       "' is not \"<unit>.<parameter>\""));
      }
    }
  }

  if (absl::Status s = ValidateConnections(scenario); !s.ok()) return s;
  for (int i = 0; i < scenario.record_size(); ++i) {
    VariableRef ref;
    if (absl::Status s =
            CheckUnitRef(scenario, scenario.record(i), absl::StrCat("record[", i, "]"), &ref);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

v1::InputApproximation EffectiveApproximation(const v1::Scenario& scenario, int unit) {
  const v1::InputApproximation own = scenario.units(unit).input_approximation();
  if (own != v1::INPUT_APPROXIMATION_UNSPECIFIED) return own;
  const v1::InputApproximation algo = scenario.algorithm().input_approximation();
  return algo == v1::INPUT_APPROXIMATION_UNSPECIFIED ? v1::ZOH : algo;
}

Parameters::Parameters(const v1::Unit& unit) : unit_name_(unit.name()) {
  for (const auto& [name, value] : unit.parameters()) values_[name] = value;
  if (unit.has_builtin()) {
    for (const auto& [name, value] : unit.builtin().parameters()) values_[name] = value;
  }
}

bool Parameters::Has(const std::string& name) const { return values_.count(name) > 0; }

absl::StatusOr<double> Parameters::Number(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (it->second.kind_case() != google::protobuf::Value::kNumberValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", unit_name_, "': parameter '", name, "' must be a number"));
  }
  return it->second.number_value();
}

absl::StatusOr<double> Parameters::RequiredNumber(const std::string& name) const {
  if (!Has(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", unit_name_, "': parameter '", name, "' is required"));
  }
  return Number(name, 0.0);
}

absl::StatusOr<std::vector<double>> Parameters::Vector(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", unit_name_, "': parameter '", name, "' is required"));
  }
  const google::protobuf::Value& v = it->second;
  if (v.kind_case() == google::protobuf::Value::kNumberValue) {
    return std::vector<double>{v.number_value()};
  }
  if (v.kind_case() != google::protobuf::Value::kListValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", unit_name_, "': parameter '", name, "' must be a list of numbers"));
  }
  std::vector<double> out;
  for (int i = 0; i < v.list_value().values_size(); ++i) {
    const google::protobuf::Value& e = v.list_value().values(i);
    if (e.kind_case() != google::protobuf::Value::kNumberValue) {
      return absl::InvalidArgumentError(absl::StrCat("unit '", unit_name_, "': parameter '", name,
                                                     "'[", i, "] must be a number"));
    }
    out.push_back(e.number_value());
  }
  return out;
}

absl::StatusOr<std::string> Parameters::String(const std::string& name,
                                               const std::string& fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (it->second.kind_case() != google::protobuf::Value::kStringValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", unit_name_, "': parameter '", name, "' must be a string"));
  }
  return it->second.string_value();
}

std::vector<std::string> Parameters::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : values_) names.push_back(name);
  return names;
}

}  // namespace cosimo
