// What a submitted job must pass before it is queued: the limits of JobLimits a scenario alone
// can be over (its size, its units; a client's queued jobs are counted as it queues, the recorded
// rows as it runs), and the scenario itself: its structure, its units against the built-in
// catalogue and the stored FMUs' model descriptions, every artifact it names stored (each check
// a use, which starts the artifact's retention period again), and a training request's data.
// Errors name the scenario field at fault, or the limit and the flag that raises it. Stateless.
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "cosimo/orchestrator/server.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/sweep.pb.h"
#include "orchestrator/src/artifact_store.h"

namespace cosimo::orchestrator {

// ResourceExhausted naming the limit and its flag.
[[nodiscard]] absl::Status CheckLimits(const v1::Scenario& scenario, const JobLimits& limits);

// `training` may be null (a simulation). The caller keeps artifacts from being removed until the
// job is recorded (the job manager's artifact lock, held shared).
[[nodiscard]] absl::Status CheckSubmission(const v1::Scenario& scenario,
                                           const v1::TrainingRequest* training,
                                           ArtifactStore* artifacts);

// A scenario's structure and its units against the built-in catalogue and the stored FMUs' model
// descriptions (the checks of CheckSubmission but the artifacts' presence): what a sweep's
// variants are checked with as they run. `artifacts` not owned; it outlives the function.
std::function<absl::Status(const v1::Scenario&)> ScenarioCheckFor(ArtifactStore* artifacts);

// A sweep job (`base` has passed CheckSubmission): the sweep's own checks (ValidateSweep), its
// variants within limits.max_sweep_variants, and the sweep against its base
// (CheckSweepAgainstBase). InvalidArgument naming the field ("sweep.parameters[1].linspace: ...").
[[nodiscard]] absl::Status CheckSweepSubmission(const v1::Sweep& sweep, const v1::Scenario& base,
                                                const JobLimits& limits, ArtifactStore* artifacts);

// A calibration job (`base` has passed CheckSubmission): the calibration and its samples
// (FromCalibrationJob) and the calibration against its base (CheckCalibrationAgainstBase: its
// parameters apply, its measured variables are recorded, its times within the base's).
// InvalidArgument naming the field ("calibration.parameters[0]...").
[[nodiscard]] absl::Status CheckFitSubmission(const v1::CalibrationJob& calibration,
                                              const v1::Scenario& base, ArtifactStore* artifacts);

}  // namespace cosimo::orchestrator
