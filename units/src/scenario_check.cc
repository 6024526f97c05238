#include "cosimo/units/scenario_check.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sensitivities.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/fmi/fmu_experiment.h"
#include "units/src/models/builtin_models.h"

namespace cosimo::units {
namespace {

// A unit's variables by name: "input", "output" or another causality.
using Variables = std::map<std::string, std::string>;
// Their types where the connection check knows them (FmuExperiment::variable_types; a built-in's
// Real variables "Float64"); a table column has none: a number of any type, held for discrete
// inputs.
using Types = std::map<std::string, std::string>;

// Up to 12 names of `variables` with the given causality (empty: any), for messages.
std::string Names(const Variables& variables, const std::string& causality = "") {
  std::string names;
  int n = 0;
  for (const auto& [name, c] : variables) {
    if (!causality.empty() && c != causality) continue;
    if (++n > 12) {
      absl::StrAppend(&names, ", ...");
      break;
    }
    absl::StrAppend(&names, names.empty() ? "" : ", ", name);
  }
  return names.empty() ? "none" : names;
}

// The edit distance (Levenshtein, ignoring case) between a and b.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = absl::ascii_tolower(static_cast<unsigned char>(a[i - 1])) ==
                        absl::ascii_tolower(static_cast<unsigned char>(b[j - 1]));
      const size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

// " did you mean 'x'?" with the names of `variables` closest to `name` (at most three, at an
// edit distance of at most a third of the name's length, and at least 1), or "".
std::string DidYouMean(const Variables& variables, const std::string& name) {
  const size_t limit = std::max<size_t>(1, name.size() / 3);
  size_t best = limit + 1;
  std::vector<std::string> closest;
  for (const auto& [candidate, causality] : variables) {
    const size_t d = EditDistance(name, candidate);
    if (d > best) continue;
    if (d < best) closest.clear(), best = d;
    closest.push_back(candidate);
  }
  if (closest.empty() || closest.size() > 3) return "";
  std::string text = " did you mean ";
  for (size_t k = 0; k < closest.size(); ++k) {
    absl::StrAppend(&text, k == 0 ? "" : (k + 1 == closest.size() ? " or " : ", "), "'", closest[k],
                    "'");
  }
  return text + "?";
}

// What a misspelt reference is told: the closest names, then the names it may take (a `from`
// takes an output; a `to` an input; parameters belong in `parameters` but are listed beside the
// inputs, a `to` being a value the unit receives; `record` any variable).
enum class RefKind { kRecord, kFrom, kTo };
std::string NoVariable(const Variables& variables, const std::string& name, RefKind kind) {
  std::string text = absl::StrCat("has no variable '", name, "'");
  if (const std::string mean = DidYouMean(variables, name); !mean.empty()) {
    absl::StrAppend(&text, ";", mean);
  }
  switch (kind) {
    case RefKind::kFrom:
      return absl::StrCat(text, " (outputs: ", Names(variables, "output"), ")");
    case RefKind::kTo:
      return absl::StrCat(text, " (inputs: ", Names(variables, "input"),
                          "; parameters: ", Names(variables, "parameter"), ")");
    case RefKind::kRecord:
      break;
  }
  return absl::StrCat(text, " (variables: ", Names(variables), ")");
}

// An integer type's sign and width ("Int8" ... "UInt64"); bits 0: not an integer type (an
// Enumeration is not one here: it feeds the same Enumeration only).
struct IntegerType {
  bool is_signed = false;
  int bits = 0;
};
IntegerType IntegerTypeOf(const std::string& type) {
  for (const int bits : {8, 16, 32, 64}) {
    if (type == absl::StrCat("Int", bits)) return {true, bits};
    if (type == absl::StrCat("UInt", bits)) return {false, bits};
  }
  return {};
}

// FMI 3 clocks (docs/fmi.md, "Clocks"): an output clock feeds triggered input clocks only.
constexpr char kClockOnlyClock[] = "a Clock feeds only a Clock, and a Clock only a Clock";

// Why an output of type `from` cannot feed an input of type `to`, or "" when it can: floats feed
// floats, integers integers that hold every value of theirs (FMI 3 widths: no narrowing),
// Boolean Boolean, an Enumeration the same Enumeration. An end without a type (a table column)
// feeds any number (a discrete input holds its samples; a value that is none of the input's is
// an error of the step naming the input), a Clock a Clock. String and Binary variables are
// recorded, not connected.
std::string TypeMismatch(const std::string& from, const std::string& to) {
  for (const std::string* t : {&from, &to}) {
    if (*t == "String" || *t == "Binary") return *t + " variables are recorded, not connected";
  }
  if ((from == "Clock") != (to == "Clock")) return kClockOnlyClock;
  if (from.empty() || to.empty()) return "";
  const auto is_float = [](const std::string& t) { return t == "Float64" || t == "Float32"; };
  if (is_float(from) && is_float(to)) return "";
  const IntegerType a = IntegerTypeOf(from), b = IntegerTypeOf(to);
  if (a.bits > 0 && b.bits > 0) {
    const bool fits = b.is_signed ? (a.is_signed ? b.bits >= a.bits : b.bits > a.bits)
                                  : (!a.is_signed && b.bits >= a.bits);
    return fits ? "" : absl::StrCat("an ", to, " does not hold every ", from, " (narrowing)");
  }
  if (from == to) return "";
  return "floats feed floats, integers integers, Boolean Boolean, an Enumeration the same "
         "Enumeration (or a map: Connection.map)";
}

// The same for a connection with a map (SSP's Boolean, Integer and Enumeration mapping
// transformations, SSP 1.0 section 5.3.2): integers and Enumerations map to integers and
// Enumerations, Booleans to Booleans only (ssc:BooleanMappingTransformation), with 0 and 1.
std::string MappedTypeMismatch(const v1::Connection& c, const std::string& from,
                               const std::string& to) {
  for (const std::string* t : {&from, &to}) {
    if (*t == "String" || *t == "Binary") return *t + " variables are recorded, not connected";
    if (*t == "Clock") return "a Clock takes no map";
    if (*t == "Float64" || *t == "Float32") {
      return "a map needs integer, Enumeration or Boolean ends (a factor and offset are for "
             "floats)";
    }
  }
  const bool from_bool = from == "Boolean", to_bool = to == "Boolean";
  if ((from_bool && !to.empty() && !to_bool) || (to_bool && !from.empty() && !from_bool)) {
    return "a Boolean maps to a Boolean only (SSP: ssc:BooleanMappingTransformation)";
  }
  for (const v1::MapEntry& e : c.map()) {
    for (auto [is_bool, v] : {std::pair<bool, double>{from_bool, e.source()},
                              std::pair<bool, double>{to_bool, e.target()}}) {
      if (is_bool && v != 0.0 && v != 1.0) {
        return absl::StrCat("a Boolean's map entries are 0 (false) and 1 (true), not ", v);
      }
    }
  }
  return "";
}

// A connection between two variables whose units were read: a problem when their types differ,
// or when it connects clocks (ticks exchanged once per step) under an algorithm that redoes
// steps (FIXED_POINT, NEWTON, adaptive steps).
void CheckTypes(const v1::Connection& c, const std::string& field,
                const std::map<std::string, Types>& types, const v1::Algorithm& algorithm,
                std::vector<std::string>* problems) {
  absl::StatusOr<VariableRef> from = ParseVariableRef(c.from(), field);
  absl::StatusOr<VariableRef> to = ParseVariableRef(c.to(), field);
  if (!from.ok() || !to.ok()) return;
  const auto type_of = [&](const VariableRef& ref) -> std::string {
    auto unit = types.find(ref.unit);
    if (unit == types.end()) return "";
    auto type = unit->second.find(ref.variable);
    return type == unit->second.end() ? "" : type->second;
  };
  const std::string from_type = type_of(*from), to_type = type_of(*to);
  const std::string why = c.map().empty() ? TypeMismatch(from_type, to_type)
                                          : MappedTypeMismatch(c, from_type, to_type);
  if (!why.empty()) {
    const auto shown = [](const std::string& t) { return t.empty() ? "a number" : t; };
    problems->push_back(absl::StrCat(field, ": '", c.from(), "' (", shown(from_type),
                                     ") cannot feed '", c.to(), "' (", shown(to_type), "): ", why));
    return;
  }
  const bool iterative =
      algorithm.kind() == v1::Algorithm::FIXED_POINT || algorithm.kind() == v1::Algorithm::NEWTON;
  if (from_type == "Clock" && (iterative || algorithm.has_adaptive())) {
    problems->push_back(absl::StrCat(
        field, ": the clock connection '", c.from(), "' -> '", c.to(), "' needs algorithm.kind ",
        "JACOBI or GAUSS_SEIDEL with fixed steps: a tick is exchanged once per step, which ",
        iterative ? v1::Algorithm::Kind_Name(algorithm.kind()) : "an adaptive step",
        " would redo (docs/fmi.md, \"Clocks\")"));
  }
}

// What one check read of files that never change (ScenarioCheckOptions::files_immutable), for
// the next: a sweep checks each variant's scenario, whose FMUs and tables are the base's. Keyed
// by the file (and for an FMU the name its errors use); at most kMaxKept of each.
class ReadFilesCache {
 public:
  static ReadFilesCache& Global() {
    static ReadFilesCache cache;
    return cache;
  }
  absl::StatusOr<FmuExperiment> Fmu(const std::string& file, const std::string& named) {
    const std::string key = file + "\n" + named;
    {
      absl::MutexLock lock(&mutex_);
      if (auto it = fmus_.find(key); it != fmus_.end()) return it->second;
    }
    absl::StatusOr<FmuExperiment> read = ReadFmuExperiment(file, named);
    absl::MutexLock lock(&mutex_);
    if (fmus_.size() >= kMaxKept) fmus_.clear();
    fmus_.emplace(key, read);
    return read;
  }
  std::optional<Variables> Table(const std::string& file) {
    absl::MutexLock lock(&mutex_);
    auto it = tables_.find(file);
    return it == tables_.end() ? std::nullopt : std::optional<Variables>(it->second);
  }
  void KeepTable(const std::string& file, const Variables& columns) {
    absl::MutexLock lock(&mutex_);
    if (tables_.size() >= kMaxKept) tables_.clear();
    tables_[file] = columns;
  }

 private:
  static constexpr size_t kMaxKept = 64;
  absl::Mutex mutex_;
  std::map<std::string, absl::StatusOr<FmuExperiment>> fmus_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, Variables> tables_ ABSL_GUARDED_BY(mutex_);  // those read without problem
};

std::optional<Variables> BuiltinVariables(const v1::Unit& unit, const std::string& field,
                                          Types* types, std::vector<std::string>* problems) {
  absl::StatusOr<UnitDescription> described = DescribeBuiltinUnit(unit);
  if (!described.ok()) {
    problems->push_back(absl::StrCat(field, ": ", described.status().message()));
    return std::nullopt;
  }
  Variables v;
  const UnitDescription& d = *described;
  for (const auto* list : {&d.others, &d.inputs, &d.outputs}) {
    for (const VariableInfo& info : *list) {
      v[info.name] = CausalityName(info.causality);
      if (info.type == ValueType::kReal) (*types)[info.name] = "Float64";
    }
  }
  return v;
}

// FMI 3 clocks (docs/fmi.md, "Clocks"): in Co-Simulation they tick only in Event Mode
// (hasEventMode); Scheduled Execution needs an input clock whose partition Cosimo activates.
void CheckClockKinds(const FmuExperiment& fmu, const std::string& field, bool model_exchange,
                     bool scheduled, std::vector<std::string>* problems) {
  std::string input_clock, clock;  // the first of each, by name
  for (size_t k = 0; k < fmu.variables.size() && k < fmu.variable_types.size(); ++k) {
    if (fmu.variable_types[k] != "Clock") continue;
    const std::string& name = fmu.variables[k].first;
    const bool unrecordable =
        std::find(fmu.unrecordable.begin(), fmu.unrecordable.end(), name) != fmu.unrecordable.end();
    if (unrecordable) continue;  // a local clock: Cosimo neither drives nor reads it
    if (clock.empty()) clock = name;
    if (input_clock.empty() && fmu.variables[k].second == "input") input_clock = name;
  }
  if (scheduled && input_clock.empty()) {
    problems->push_back(absl::StrCat(field,
                                     ": the FMU offers only Scheduled Execution and has no input "
                                     "clock (time-based or triggered) whose partition Cosimo "
                                     "could activate"));
  } else if (!model_exchange && !scheduled && !clock.empty() && !fmu.cs_has_event_mode) {
    problems->push_back(absl::StrCat(
        field, ": the FMU has clocks (first: '", clock,
        "') but its CoSimulation interface has no Event Mode (hasEventMode), in which alone "
        "clocks tick; give the unit a solver to run it as Model Exchange, if it offers that"));
  }
}

// A Model Exchange FMU unit with sensitivities (units/src/fmi/fmu_sensitivity_unit.h): what its
// model description refuses, and its variables "d(<variable>)/d(<parameter>)" of its inputs,
// outputs and states (Float64).
void AddSensitivities(const v1::Unit& unit, const FmuExperiment& fmu, const std::string& field,
                      Variables* v, Types* types, std::vector<std::string>* problems) {
  const std::string where = field + ".sensitivities";
  if (fmu.me_instantiated_once) {
    problems->push_back(where +
                        ": the FMU can be instantiated only once per process "
                        "(canBeInstantiatedOnlyOncePerProcess), and its sensitivities need one "
                        "instance per perturbed parameter value");
  }
  if (fmu.event_indicators > 0) {
    problems->push_back(absl::StrCat(where, ": the FMU has ", fmu.event_indicators,
                                     " event indicators (state events); the sensitivities jump "
                                     "at events and Cosimo does not carry them across"));
  }
  if (fmu.has_clocks) {
    problems->push_back(where +
                        ": the FMU has clocks, which tick in events; the sensitivities jump at "
                        "events and Cosimo does not carry them across");
  }
  if (!fmu.event_inputs.empty()) {
    problems->push_back(where + ": the FMU's input '" + fmu.event_inputs.front() +
                        "' is discrete (set only in events); the sensitivities are not carried "
                        "across events");
  }
  const std::string own = unit.name() + ".";
  for (int i = 0; i < unit.sensitivities_size(); ++i) {
    const std::string& p = unit.sensitivities(i);
    if (!absl::StartsWith(p, own)) continue;  // another unit's: checked there
    const std::string key = p.substr(own.size());
    const auto found = v->find(key);
    const auto type = types->find(key);
    const std::string at = absl::StrCat(where, "[", i, "] '", p, "': ");
    if (found == v->end()) {
      problems->push_back(at + "the FMU has no variable '" + key + "'");
    } else if (found->second != "parameter") {
      problems->push_back(at + "'" + key + "' is " + found->second +
                          ", not a parameter of the FMU (causality parameter)");
    } else if (type == types->end() || (type->second != "Float64" && type->second != "Float32")) {
      problems->push_back(at + "'" + key + "' is not a Real parameter: it has no derivative");
    }
  }
  std::vector<std::pair<std::string, std::string>> bases;
  for (const std::string& state : fmu.states) bases.emplace_back(state, "local");
  for (const auto& [name, causality] : fmu.variables) {
    if (causality == "input" || causality == "output") bases.emplace_back(name, causality);
  }
  for (const std::string& p : unit.sensitivities()) {
    for (const auto& [name, causality] : bases) {
      const std::string d = SensitivityName(name, p);
      (*v)[d] = causality;
      (*types)[d] = "Float64";
    }
  }
}

std::optional<Variables> FmuVariables(const v1::Unit& unit, const std::string& file,
                                      const std::string& field, const ScenarioCheckOptions& options,
                                      Types* types, std::vector<std::string>* problems) {
  const bool by_path = !unit.fmu().path().empty();
  const std::string& named = by_path ? unit.fmu().path() : unit.fmu().digest();
  absl::StatusOr<FmuExperiment> fmu = options.files_immutable
                                          ? ReadFilesCache::Global().Fmu(file, named)
                                          : ReadFmuExperiment(file, named);
  const bool binary_for_this_platform = options.binary_for_this_platform;
  if (!fmu.ok()) {
    problems->push_back(
        absl::StrCat(field, by_path ? ".fmu.path: " : ".fmu.digest: ", fmu.status().message()));
    return std::nullopt;
  }
  const bool model_exchange = unit.has_solver();
  // An FMU that offers only Scheduled Execution runs as such (without a solver).
  const bool scheduled = !model_exchange && fmu->cs_identifier.empty() &&
                         fmu->me_identifier.empty() && !fmu->se_identifier.empty();
  const std::string& id = model_exchange ? fmu->me_identifier
                          : scheduled    ? fmu->se_identifier
                                         : fmu->cs_identifier;
  if (id.empty()) {
    problems->push_back(absl::StrCat(
        field, ": the FMU has no ", model_exchange ? "ModelExchange" : "CoSimulation", " interface",
        model_exchange ? ""
                       : " (give the unit a solver "
                         "to run it as Model Exchange)"));
  } else if (binary_for_this_platform) {
    const std::string platform = fmu->fmi_version.rfind("3", 0) == 0 ? "x86_64-linux" : "linux64";
    const std::string binary = absl::StrCat("binaries/", platform, "/", id, ".so");
    bool found = false;
    std::vector<std::string> platforms;
    for (const std::string& entry : fmu->binaries) {
      found = found || entry == binary;
      const size_t slash = entry.find('/', 9);
      if (slash == std::string::npos || slash + 1 == entry.size()) continue;
      const std::string p = entry.substr(9, slash - 9);
      if (std::find(platforms.begin(), platforms.end(), p) == platforms.end()) {
        platforms.push_back(p);
      }
    }
    if (!found) {
      std::string has;
      for (const std::string& p : platforms) absl::StrAppend(&has, has.empty() ? "" : ", ", p);
      problems->push_back(
          absl::StrCat(field, ": the FMU has no binary for this platform (", binary, "); ",
                       platforms.empty() ? "it has no binaries at all (a source-only FMU?)"
                                         : absl::StrCat("it has binaries for: ", has)));
    }
  }
  Variables v;
  for (size_t k = 0; k < fmu->variables.size(); ++k) {
    v[fmu->variables[k].first] = fmu->variables[k].second;
    if (k < fmu->variable_types.size()) (*types)[fmu->variables[k].first] = fmu->variable_types[k];
  }
  // Not an input a connection feeds ("'b.tick' is a time-based input clock ..., not an input").
  for (const std::string& clock : fmu->time_based_input_clocks)
    v[clock] = "a time-based input clock (Cosimo computes its ticks)";
  if (!id.empty()) CheckClockKinds(*fmu, field, model_exchange, scheduled, problems);
  if (!id.empty() && model_exchange && unit.sensitivities_size() > 0) {
    AddSensitivities(unit, *fmu, field, &v, types, problems);
  }
  for (const auto& [name, value] : unit.parameters()) {
    if (v.count(name) == 0) {
      problems->push_back(absl::StrCat(field, ".parameters.", name, ": the FMU has no variable '",
                                       name, "' (parameters: ", Names(v, "parameter"), ")"));
    } else if (auto type = types->find(name);
               type != types->end() && type->second == "String" &&
               value.kind_case() != google::protobuf::Value::kStringValue) {
      // Caught here, not by every variant at its start (issue 41: a sweep of numbers over it).
      problems->push_back(absl::StrCat(
          field, ".parameters.", name, ": the FMU's variable '", name,
          "' is a String: give it a string, not ",
          value.kind_case() == google::protobuf::Value::kNumberValue ? "a number" : "this value"));
    }
  }
  return v;
}

// The table's columns, read by the reader the table unit uses (its data checked too).
std::optional<Variables> TableVariables(const v1::Unit& unit, const std::string& file,
                                        const std::string& field, bool files_immutable,
                                        std::vector<std::string>* problems) {
  if (files_immutable) {
    if (std::optional<Variables> kept = ReadFilesCache::Global().Table(file)) return kept;
  }
  const bool by_path = !unit.table().path().empty();
  const std::string source = absl::StrCat(field, by_path ? ".table.path" : ".table.digest");
  const std::string& named = by_path ? unit.table().path() : unit.table().digest();
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in) {
    problems->push_back(absl::StrCat(source, ": cannot read '", named, "'"));
    return std::nullopt;
  }
  absl::StatusOr<NumericCsv> csv = ParseNumericCsv(text, absl::StrCat(source, " '", named, "'"));
  if (!csv.ok()) {
    problems->push_back(std::string(csv.status().message()));
    return std::nullopt;
  }
  Variables v;
  for (size_t c = 1; c < csv->header.size(); ++c) v[csv->header[c]] = "output";
  if (files_immutable) ReadFilesCache::Global().KeepTable(file, v);
  return v;
}

// One problem as it is, several as "N problems:" then one line each.
absl::Status Joined(const std::vector<std::string>& problems) {
  if (problems.empty()) return absl::OkStatus();
  if (problems.size() == 1) return absl::InvalidArgumentError(problems[0]);
  std::string text = absl::StrCat(problems.size(), " problems:");
  for (const std::string& p : problems) absl::StrAppend(&text, "\n  ", p);
  return absl::InvalidArgumentError(text);
}

// Every problem CheckUnitsAndVariables reports, one a line.
std::vector<std::string> UnitProblems(const v1::Scenario& scenario,
                                      const ScenarioCheckOptions& options) {
  std::vector<std::string> problems;
  std::map<std::string, std::optional<Variables>> units;
  std::map<std::string, Types> types;
  for (int i = 0; i < scenario.units_size(); ++i) {
    const v1::Unit& unit = scenario.units(i);
    const std::string field = absl::StrCat("units[", i, "] ('", unit.name(), "')");
    std::optional<Variables> v;
    if (unit.has_builtin()) {
      v = BuiltinVariables(unit, field, &types[unit.name()], &problems);
    } else if (unit.has_fmu()) {
      const std::string file = options.file(unit.fmu().path(), unit.fmu().digest());
      if (!file.empty()) {
        v = FmuVariables(unit, file, field, options, &types[unit.name()], &problems);
      }
    } else if (unit.has_table()) {
      const std::string file = options.file(unit.table().path(), unit.table().digest());
      if (!file.empty()) v = TableVariables(unit, file, field, options.files_immutable, &problems);
    }
    units[unit.name()] = v;
  }
  // A reference "<unit>.<variable>" in `field`: the variable's causality, or nullopt after a
  // problem (none when the unit itself could not be read).
  auto lookup = [&](const std::string& text, const std::string& field,
                    RefKind kind) -> std::optional<std::string> {
    absl::StatusOr<VariableRef> ref = ParseVariableRef(text, field);
    if (!ref.ok()) {
      problems.push_back(std::string(ref.status().message()));
      return std::nullopt;
    }
    auto unit = units.find(ref->unit);
    if (unit == units.end()) {
      problems.push_back(absl::StrCat(field, ": no unit '", ref->unit, "'"));
      return std::nullopt;
    }
    if (!unit->second) return std::nullopt;
    auto variable = unit->second->find(ref->variable);
    if (variable == unit->second->end()) {
      problems.push_back(absl::StrCat(field, ": unit '", ref->unit, "' ",
                                      NoVariable(*unit->second, ref->variable, kind)));
      return std::nullopt;
    }
    return variable->second;
  };
  for (int i = 0; i < scenario.record_size(); ++i) {
    (void)lookup(scenario.record(i), absl::StrCat("record[", i, "] '", scenario.record(i), "'"),
                 RefKind::kRecord);
  }
  for (int i = 0; i < scenario.connections_size(); ++i) {
    const v1::Connection& c = scenario.connections(i);
    const std::string field = absl::StrCat("connections[", i, "]");
    const std::optional<std::string> from =
        lookup(c.from(), field + ".from '" + c.from() + "'", RefKind::kFrom);
    if (from && *from != "output") {
      problems.push_back(
          absl::StrCat(field, ".from: '", c.from(), "' is ", *from, ", not an output"));
    }
    const std::optional<std::string> to =
        lookup(c.to(), field + ".to '" + c.to() + "'", RefKind::kTo);
    if (to && *to != "input") {
      problems.push_back(absl::StrCat(field, ".to: '", c.to(), "' is ", *to, ", not an input"));
    }
    if (from && to) CheckTypes(c, field, types, scenario.algorithm(), &problems);
  }
  return problems;
}

}  // namespace

absl::Status CheckUnitsAndVariables(const v1::Scenario& scenario,
                                    const ScenarioCheckOptions& options) {
  return Joined(UnitProblems(scenario, options));
}

absl::Status WithUnitProblems(const absl::Status& structural, const v1::Scenario& scenario,
                              const ScenarioCheckOptions& options) {
  if (structural.ok()) return CheckUnitsAndVariables(scenario, options);
  // The structural problems, one or "N problems:" then one a line.
  std::vector<std::string> problems = absl::StrSplit(structural.message(), "\n  ");
  if (problems.size() > 1) problems.erase(problems.begin());
  // The fields the structural problems name ("connections[1]" of "connections[1].to: ...").
  std::vector<std::string> fields;
  for (const std::string& p : problems) fields.push_back(p.substr(0, p.find_first_of(".: '")));
  const size_t structural_count = problems.size();
  for (std::string& p : UnitProblems(scenario, options)) {
    const bool named = std::any_of(fields.begin(), fields.end(), [&](const std::string& f) {
      return !f.empty() && absl::StartsWith(p, f);
    });
    if (!named) problems.push_back(std::move(p));
  }
  return problems.size() == structural_count ? structural : Joined(problems);
}

absl::Status CheckScenario(const v1::Scenario& scenario, const ScenarioCheckOptions& options) {
  return WithUnitProblems(ValidateScenario(scenario), scenario, options);
}

}  // namespace cosimo::units
