#include "ssp/src/ssp_experiment.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "cosimo/fmi/fmu_experiment.h"

namespace cosimo::ssp {

absl::Status Experiment(const XmlFile& ssd, const pugi::xml_node& root,
                        const SspImportOptions& options, v1::Scenario* out) {
  v1::Scenario& scenario = *out;
  const pugi::xml_node experiment = Child(root, "DefaultExperiment");
  double start = 0.0;
  double stop = 0.0;
  if (experiment) {
    start = experiment.attribute("startTime").as_double(0.0);
    stop = experiment.attribute("stopTime").as_double(0.0);
  }
  if (options.stop_time > 0.0) stop = options.stop_time;
  if (!(stop > start)) {
    return absl::InvalidArgumentError(
        absl::StrCat(ssd.Where(experiment ? experiment : root),
                     experiment ? ": DefaultExperiment has no stopTime after its startTime"
                                : ": no DefaultExperiment with a stopTime",
                     "; give the stop time (--stop-time). SSP sets no default (SSP 2.0 section "
                     "5.1.1: DefaultExperiment and its stopTime are optional, \"for "
                     "informational purposes\"); the exporting tool chose its own: "
                     "OMSimulator, for one, runs from 0 to 1 s unless told otherwise"));
  }
  scenario.set_start_time(start);
  scenario.set_stop_time(stop);
  return absl::OkStatus();
}

// JACOBI with the step: --step-size; else the OSP annotation's baseStepSize
// (com.opensimulationplatform, osp:FixedStepAlgorithm); else OMSimulator's fixed-step master
// (org.openmodelica, oms:FixedStepMaster stepSize); else the smallest DefaultExperiment
// stepSize of the FMUs; else a thousandth of the run.
void Algorithm(const pugi::xml_node& root, const pugi::xml_node& system,
               const SspImportOptions& options, SspImport* out) {
  v1::Scenario& scenario = out->scenario;
  v1::Algorithm* algorithm = scenario.mutable_algorithm();
  algorithm->set_kind(v1::Algorithm::JACOBI);
  std::optional<double> step;
  std::string from;
  if (options.step_size > 0.0) {
    step = options.step_size;
    from = "--step-size";
  }
  const pugi::xml_node experiment = Child(root, "DefaultExperiment");
  if (!step) {
    const pugi::xml_node fixed =
        Find(Annotation(experiment, "com.opensimulationplatform"), "FixedStepAlgorithm");
    step = NumberAttribute(fixed, "baseStepSize");
    from = "the OSP annotation's baseStepSize";
  }
  if (!step) {
    for (const pugi::xml_node& owner : {system, experiment}) {
      const pugi::xml_node master = Find(Annotation(owner, "org.openmodelica"), "FixedStepMaster");
      if (!step) step = NumberAttribute(master, "stepSize");
    }
    from = "OMSimulator's FixedStepMaster stepSize";
  }
  if (!step) {
    for (const v1::Unit& unit : scenario.units()) {
      absl::StatusOr<FmuExperiment> e = ReadFmuExperiment(unit.fmu().path());
      if (e.ok() && e->step_size) step = std::min(step.value_or(*e->step_size), *e->step_size);
    }
    from = "the smallest DefaultExperiment stepSize of the FMUs";
  }
  if (!step || !(*step > 0)) {
    step = (scenario.stop_time() - scenario.start_time()) / 1000.0;
    from = "a thousandth of the run";
  }
  algorithm->set_step_size(*step);
  out->notices.push_back(absl::StrCat("SSP describes no master algorithm: the scenario uses ",
                                      "JACOBI with step_size ", *step, " (", from,
                                      "); edit it as needed"));
}

}  // namespace cosimo::ssp
