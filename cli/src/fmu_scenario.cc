#include "cosimo/client/fmu_scenario.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cosimo::client {
namespace {

namespace fs = std::filesystem;

// A unit name from the model name: letters, digits and '_' (the scenario's rule for names).
std::string UnitName(const std::string& model_name, const std::string& fmu_path) {
  std::string name = model_name.empty() ? fs::path(fmu_path).stem().string() : model_name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "fmu_" + name;
  return name;
}

std::string Num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", v);
  return buffer;
}

// What `cosimo run MODEL.fmu` records: every output (arrays as their elements); an FMU without
// outputs its continuous states and their derivatives, else every continuous local.
absl::Status RecordByDefault(const FmuExperiment& e, const std::string& unit,
                             const std::string& fmu_path, SingleFmuScenario* out) {
  const auto recordable = [&](const std::string& name) {
    return std::find(e.unrecordable.begin(), e.unrecordable.end(), name) == e.unrecordable.end();
  };
  std::vector<std::string> left_out;
  for (const std::string& output : e.outputs) {
    if (recordable(output)) {
      out->scenario.add_record(unit + "." + output);
    } else {
      left_out.push_back(output);
    }
  }
  if (!left_out.empty()) {
    out->notices.push_back(
        absl::StrCat("outputs not recorded (Clock variables, or arrays that cannot be expanded): ",
                     absl::StrJoin(left_out, ", ")));
  }
  if (out->scenario.record().empty()) {
    // Many Modelica exports have no outputs: their continuous states and derivatives instead,
    // else every continuous local.
    std::vector<std::string> names = e.states;
    names.insert(names.end(), e.derivatives.begin(), e.derivatives.end());
    const char* what = "its continuous states and their derivatives";
    if (names.empty()) {
      names = e.continuous_locals;
      what = "its continuous local variables";
    }
    for (const std::string& name : names) {
      if (recordable(name)) out->scenario.add_record(unit + "." + name);
    }
    if (out->scenario.record().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("FMU '", fmu_path,
                       "' has no output, continuous state or continuous local variable to record"));
    }
    out->notices.push_back(absl::StrCat("the FMU has no output to record: recording ", what, " (",
                                        out->scenario.record_size(), " variables)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SingleFmuScenario> ScenarioForFmu(const std::string& fmu_path,
                                                 const SingleFmuOptions& options) {
  absl::StatusOr<FmuExperiment> e = ReadFmuExperiment(fmu_path);
  if (!e.ok()) return e.status();
  SingleFmuScenario out;
  v1::Scenario& s = out.scenario;
  const std::string unit = UnitName(e->model_name, fmu_path);
  s.set_name(unit);
  s.set_start_time(e->start_time);
  if (options.stop_time > 0) {
    s.set_stop_time(options.stop_time);
  } else if (e->stop_time) {
    s.set_stop_time(*e->stop_time);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path, "' has no DefaultExperiment stopTime: give --stop-time"));
  }
  if (!(s.stop_time() > s.start_time())) {
    return absl::InvalidArgumentError(absl::StrCat("--stop-time (", Num(s.stop_time()),
                                                   ") must be after the FMU's startTime (",
                                                   Num(s.start_time()), ")"));
  }
  double step = options.step_size;
  if (!(step > 0) && e->step_size) step = *e->step_size;
  if (!(step > 0)) {
    step = (s.stop_time() - s.start_time()) / 1000;
    out.notices.push_back(absl::StrCat("the FMU gives no DefaultExperiment stepSize: step ",
                                       Num(step), " (a thousandth of the run; --step sets it)"));
  }
  v1::Unit* u = s.add_units();
  u->set_name(unit);
  u->mutable_fmu()->set_path(fs::absolute(fmu_path).lexically_normal().string());
  if (e->cs_identifier.empty() && e->me_identifier.empty() && e->se_identifier.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path,
                     "' offers neither Co-Simulation nor Model Exchange nor Scheduled Execution"));
  }
  if (e->cs_identifier.empty() && e->me_identifier.empty()) {
    out.notices.push_back(
        "the FMU offers only Scheduled Execution: Cosimo activates its model partitions at "
        "their clocks' ticks");
  } else if (e->cs_identifier.empty()) {
    // Model Exchange only: integrated by CVODE at the DefaultExperiment's tolerance (as FMPy
    // does); the solver's own default tolerance without one.
    v1::Solver* solver = u->mutable_solver();
    solver->set_method(v1::Solver::CVODE);
    if (e->tolerance) solver->set_tolerance(*e->tolerance);
    out.notices.push_back(absl::StrCat(
        "the FMU offers only Model Exchange: solver CVODE, tolerance ",
        e->tolerance ? Num(*e->tolerance) + " (DefaultExperiment's)" : "CVODE's default"));
  }
  v1::Algorithm* a = s.mutable_algorithm();
  a->set_kind(v1::Algorithm::JACOBI);
  a->set_step_size(step);
  if (absl::Status st = RecordByDefault(*e, unit, fmu_path, &out); !st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<std::string>> ApplyDefaultExperiments(v1::Scenario* scenario) {
  std::vector<std::string> notices;
  const bool needs_stop = scenario->stop_time() == 0.0;
  const bool needs_step = scenario->algorithm().step_size() == 0.0;
  if (!needs_stop && !needs_step) return notices;
  std::optional<double> stop, step;
  bool every_stop = true, every_step = true;
  int fmus = 0;
  std::string stops, steps;
  for (const v1::Unit& unit : scenario->units()) {
    if (!unit.has_fmu()) continue;
    ++fmus;
    absl::StatusOr<FmuExperiment> e = ReadFmuExperiment(unit.fmu().path());
    if (!e.ok()) return notices;  // validation and the submit say what is wrong with it
    if (needs_stop) {
      if (!e->stop_time) every_stop = false;
      if (e->stop_time) {
        stop = std::min(stop.value_or(*e->stop_time), *e->stop_time);
        absl::StrAppend(&stops, stops.empty() ? "" : ", ", unit.name(), " ", Num(*e->stop_time));
      }
    }
    if (needs_step) {
      if (!e->step_size) every_step = false;
      if (e->step_size) {
        step = std::min(step.value_or(*e->step_size), *e->step_size);
        absl::StrAppend(&steps, steps.empty() ? "" : ", ", unit.name(), " ", Num(*e->step_size));
      }
    }
  }
  if (fmus == 0) return notices;
  if (needs_stop && every_stop && stop && *stop > scenario->start_time()) {
    scenario->set_stop_time(*stop);
    notices.push_back(
        absl::StrCat("stop_time ", Num(*stop), " from the FMUs' DefaultExperiment (", stops, ")"));
  }
  if (needs_step && every_step && step) {
    scenario->mutable_algorithm()->set_step_size(*step);
    notices.push_back(absl::StrCat("algorithm.step_size ", Num(*step),
                                   " from the FMUs' DefaultExperiment (", steps, ")"));
  }
  return notices;
}

}  // namespace cosimo::client
