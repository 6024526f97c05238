#include "orchestrator/src/job_admission.h"

#include "cosimo/common/calibration.h"
#include "cosimo/common/digest.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep.h"
#include "cosimo/common/sweep_design.h"
#include "cosimo/units/scenario_check.h"
#include "orchestrator/src/training_job.h"

namespace cosimo::orchestrator {

// The limits of JobLimits a scenario is over (the per-client count is checked as it queues, the
// recorded rows as it runs: a scenario may run until it is canceled).
absl::Status CheckLimits(const v1::Scenario& scenario, const JobLimits& limits) {
  const size_t bytes = scenario.ByteSizeLong();
  if (bytes > limits.max_scenario_bytes) {
    return absl::ResourceExhaustedError(
        "the scenario is " + std::to_string(bytes) +
        " bytes (serialized), more than this orchestrator accepts: " +
        std::to_string(limits.max_scenario_bytes / 1024) +
        " KiB (cosimo-orchestrator --max-scenario-kb raises it)");
  }
  if (scenario.units_size() > limits.max_units) {
    return absl::ResourceExhaustedError(
        "the scenario has " + std::to_string(scenario.units_size()) +
        " units, more than this orchestrator runs in one job: " + std::to_string(limits.max_units) +
        " (cosimo-orchestrator --max-units-per-job raises it)");
  }
  return absl::OkStatus();
}

namespace {

units::ScenarioCheckOptions CheckOptions(ArtifactStore* artifacts) {
  units::ScenarioCheckOptions check;
  check.file = [artifacts](const std::string&, const std::string& digest) {
    return digest.empty() || !IsValidDigest(digest) ? std::string() : artifacts->PathOf(digest);
  };
  check.binary_for_this_platform = false;
  check.files_immutable = true;  // content-addressed
  return check;
}

// The sweep library's message with its fields named as the request's ("sweep.parameters[0]...");
// several problems come as "N problems:" and an indented line each.
absl::Status InSweep(const absl::Status& s) {
  std::string message(s.message());
  if (message.find('\n') == std::string::npos) {
    message = "sweep." + message;
  } else {
    for (size_t at = message.find("\n  "); at != std::string::npos;
         at = message.find("\n  ", at + 1)) {
      message.insert(at + 3, "sweep.");
    }
  }
  return absl::InvalidArgumentError(message);
}

}  // namespace

std::function<absl::Status(const v1::Scenario&)> ScenarioCheckFor(ArtifactStore* artifacts) {
  return [check = CheckOptions(artifacts)](const v1::Scenario& scenario) {
    if (absl::Status s = ValidateScenario(scenario); !s.ok()) {
      return units::WithUnitProblems(s, scenario, check);
    }
    return units::CheckUnitsAndVariables(scenario, check);
  };
}

absl::Status CheckSweepSubmission(const v1::Sweep& sweep, const v1::Scenario& base,
                                  const JobLimits& limits, ArtifactStore* artifacts) {
  v1::Sweep with_base = sweep;  // the request's scenario is its base
  *with_base.mutable_scenario() = base;
  if (absl::Status s = ValidateSweep(with_base); !s.ok()) return InSweep(s);
  if (const uint64_t n = VariantCount(sweep); n > limits.max_sweep_variants) {
    return absl::InvalidArgumentError(
        std::string(sweep.design().kind() == v1::SweepDesign::GRID ||
                            sweep.design().kind() == v1::SweepDesign::LIST
                        ? "sweep.parameters"
                        : "sweep.design.samples") +
        ": " + std::to_string(n) + " variants, more than this orchestrator runs in one sweep (" +
        std::to_string(limits.max_sweep_variants) + ")");
  }
  if (absl::Status s = CheckSweepAgainstBase(sweep, base, ScenarioCheckFor(artifacts)); !s.ok()) {
    return InSweep(s);
  }
  return absl::OkStatus();
}

absl::Status CheckFitSubmission(const v1::CalibrationJob& calibration, const v1::Scenario& base,
                                ArtifactStore* artifacts) {
  absl::StatusOr<LoadedCalibration> loaded = FromCalibrationJob(calibration, base);
  if (!loaded.ok()) return loaded.status();
  if (absl::Status s = CheckCalibrationAgainstBase(*loaded, ScenarioCheckFor(artifacts)); !s.ok()) {
    return absl::InvalidArgumentError("calibration: " + std::string(s.message()));
  }
  return absl::OkStatus();
}

absl::Status CheckSubmission(const v1::Scenario& scenario, const v1::TrainingRequest* training,
                             ArtifactStore* artifacts) {
  // The units against the built-in catalogue and the stored FMUs' model descriptions, as the
  // command line checks them before it submits, for every client; the platforms of the binaries
  // are the workers' to judge.
  const units::ScenarioCheckOptions check = CheckOptions(artifacts);
  // A structural problem comes with the units' problems, in one round.
  if (absl::Status s = ValidateScenario(scenario); !s.ok()) {
    return units::WithUnitProblems(s, scenario, check);
  }
  if (training != nullptr) {
    if (absl::StatusOr<int> unit = TrainedUnit(scenario, *training); !unit.ok()) {
      return unit.status();
    }
  }
  for (int i = 0; i < scenario.units_size(); ++i) {
    const v1::Unit& unit = scenario.units(i);
    for (const UnitArtifactRef& artifact : UnitArtifacts(unit)) {
      const std::string& digest = artifact.digest;
      const std::string field = "units[" + std::to_string(i) + "]." + artifact.field + ".digest";
      if (digest.empty()) {
        return absl::InvalidArgumentError(
            field + " is missing for unit '" + unit.name() +
            "': upload the file first (the cosimo client does this on submit)");
      }
      if (!artifacts->Touch(digest)) {  // a use: the retention period starts again
        return absl::FailedPreconditionError(field + ": artifact " + digest + " of unit '" +
                                             unit.name() +
                                             "' was never uploaded to this orchestrator");
      }
    }
  }
  if (absl::Status s = units::CheckUnitsAndVariables(scenario, check); !s.ok()) return s;
  if (training == nullptr) return absl::OkStatus();
  const std::string& digest = training->data_digest();
  if (digest.empty()) {
    return absl::InvalidArgumentError(
        "training.data_digest is missing: upload the data first (the cosimo client does this)");
  }
  if (!IsValidDigest(digest) || !artifacts->Touch(digest)) {
    return absl::FailedPreconditionError("training.data_digest: the data " + digest +
                                         " was never uploaded to this orchestrator");
  }
  return CheckTrainingRequest(scenario, *training, artifacts->PathOf(digest));
}

}  // namespace cosimo::orchestrator
