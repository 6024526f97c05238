// Figures 4 and 6: in-process orchestration (LocalUnit) against the unit's own step, and the
// COSTARICA estimate against a real step of the same unit.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/units/unit_factory.h"
#include "cosimo/units/unit_host.h"
#include "figures.h"
#include "scenarios.h"
#include "step_timer.h"

namespace cosimo::bench {
namespace {

constexpr double kNsPerUs = 1e3;

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

v1::LoadUnit LoadOf(const v1::Scenario& scenario, int i) {
  return LoadUnitFor(scenario, i, "bench");
}

// The scenario in this process (RunInProcess: LocalUnits); appends per-step durations.
absl::StatusOr<master::MasterResult> RunLocal(const v1::Scenario& scenario, int steps,
                                              std::vector<double>* durations) {
  StepTimer timer(static_cast<size_t>(steps));
  absl::StatusOr<master::MasterResult> result =
      master::RunInProcess(scenario, LoadUnitsFor(scenario, "bench"), {.observer = &timer});
  if (result.ok() && durations != nullptr) timer.AppendDurations(durations);
  return result;
}

// A unit stepped directly (units::Unit::Step) with zero-order-hold inputs, as the master would
// ask it: the baseline of figures 4 and 6.
class DirectUnit {
 public:
  static absl::StatusOr<DirectUnit> Create(const v1::Unit& spec, double macro_step) {
    DirectUnit d;
    COSIMO_ASSIGN_OR_RETURN(d.unit_, units::CreateUnit(spec, ""));
    COSIMO_RETURN_IF_ERROR(d.unit_->SetRecorded({}));
    COSIMO_RETURN_IF_ERROR(d.unit_->Initialize(0.0, 1e12));
    const auto inputs = static_cast<Eigen::Index>(d.unit_->description().inputs.size());
    d.request_.step = macro_step;
    d.request_.mode = StepMode::kFinal;
    d.request_.inputs.coefficients = Eigen::MatrixXd::Constant(inputs, 1, 0.5);
    return d;
  }
  // One real step; false on a failed step.
  bool Step() {
    request_.time = unit_->time();
    unit_->Step(request_, &reply_);
    return reply_.status == StepStatus::kOk;
  }
  units::Unit& unit() { return *unit_; }

 private:
  std::unique_ptr<units::Unit> unit_;
  StepRequest request_;
  StepReply reply_;
};

// Median time of one direct step, ns, over `rounds` batches of `batch`.
absl::StatusOr<double> DirectStepNs(DirectUnit& unit, int rounds, int batch) {
  bool ok = true;
  const double ns = MedianPerOp(rounds, batch, [&] {
    for (int i = 0; i < batch; ++i) ok = unit.Step() && ok;
  });
  if (!ok) return absl::InternalError("direct step failed");
  return ns;
}

// Figure 4 for one unit kind: a ring of two such units under Jacobi.
absl::Status OrchestrationFigure(const std::string& id, const std::string& what,
                                 const v1::Unit& unit_spec, const v1::Scenario& scenario, int steps,
                                 int rounds, const std::string& target, Report* report) {
  COSIMO_ASSIGN_OR_RETURN(DirectUnit direct, DirectUnit::Create(unit_spec, kMacroStep));
  std::vector<double> direct_samples, master_steps;
  const int batch = std::max(10, steps / 20);
  COSIMO_RETURN_IF_ERROR(RunLocal(scenario, std::min(steps, 1000), nullptr).status());  // warm
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 5; ++k) {
      COSIMO_ASSIGN_OR_RETURN(double ns, DirectStepNs(direct, 3, batch));
      direct_samples.push_back(ns);
    }
    COSIMO_RETURN_IF_ERROR(RunLocal(scenario, steps, &master_steps).status());
  }
  const double direct_us = Median(direct_samples) / kNsPerUs;
  const double unit_step_us = Median(master_steps) / scenario.units_size() / kNsPerUs;
  const double overhead_us = unit_step_us - direct_us;
  const double ratio = overhead_us / direct_us;
  report->Add(
      {id, what, overhead_us, direct_us, "us", ratio, target, target.empty() || ratio <= 2.0,
       absl::StrCat(master_steps.size(), " macro steps of ", scenario.units_size(), " units; ",
                    Fixed(unit_step_us, 3),
                    " us per unit-step through RunMaster + LocalUnit + UnitHost (",
                    Fixed(unit_step_us / direct_us, 2), "x the direct step)",
                    overhead_us < 0.0 ? "; the overhead is below the noise of this run" : "")});
  return absl::OkStatus();
}

// Figure 6: one macro step of the estimated ten-state unit as the fixed-point master drives it
// (first tentative step: linearisation at t[N] + estimate; further tentative steps: estimates;
// Commit: the real integration), against a direct real step of an identical unit.
absl::Status CostaricaFigure(const Options& options, Report* report) {
  const double h = 0.01;  // s: 100 RK4 substeps of 1e-4 s
  const int rounds = options.smoke ? 20 : 3000;
  constexpr int kEstimates = 10;  // further tentative steps per macro step
  const v1::Scenario scenario = EstimatedLoopScenario(rounds + 10, h);
  const v1::LoadUnit load = LoadOf(scenario, 0);
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<units::UnitHost> host, units::UnitHost::Create(load));
  if (host->iterative_mode() != IterativeMode::kEstimate) {
    return absl::InternalError(std::string("the ten-state unit is not estimated but ") +
                               IterativeModeName(host->iterative_mode()));
  }
  OutputsReply outputs;
  COSIMO_RETURN_IF_ERROR(host->Initialize(0.0, &outputs));
  COSIMO_ASSIGN_OR_RETURN(DirectUnit direct, DirectUnit::Create(load.unit(), h));

  StepRequest request;
  request.step = h;
  request.mode = StepMode::kTentative;
  request.inputs.coefficients = Eigen::MatrixXd::Constant(1, 1, 0.5);
  StepReply reply;
  std::vector<double> first, estimate, commit, real;
  double t = 0.0;
  for (int r = 0; r < rounds; ++r) {
    request.time = t;
    request.inputs.coefficients(0, 0) = 0.5;
    const int64_t t0 = NowNs();
    host->Step(request, &reply);
    const int64_t t1 = NowNs();
    bool ok = reply.status == StepStatus::kOk && reply.estimated;
    for (int k = 0; k < kEstimates; ++k) {
      request.inputs.coefficients(0, 0) = 0.5 + 1e-3 * k;
      host->Step(request, &reply);
      ok = ok && reply.status == StepStatus::kOk && reply.estimated;
    }
    const int64_t t2 = NowNs();
    host->Commit(&reply);
    const int64_t t3 = NowNs();
    ok = ok && reply.status == StepStatus::kOk && !reply.estimated;
    const int64_t t4 = NowNs();
    ok = direct.Step() && ok;
    const int64_t t5 = NowNs();
    if (!ok) return absl::InternalError(absl::StrCat("COSTARICA step failed at t=", t));
    first.push_back(static_cast<double>(t1 - t0));
    estimate.push_back(static_cast<double>(t2 - t1) / kEstimates);
    commit.push_back(static_cast<double>(t3 - t2));
    real.push_back(static_cast<double>(t5 - t4));
    t += h;
  }
  const double real_us = Median(real) / kNsPerUs;
  const double estimate_us = Median(estimate) / kNsPerUs;
  const double first_us = Median(first) / kNsPerUs;
  const double commit_us = Median(commit) / kNsPerUs;
  report->Add({"fig6", "COSTARICA estimate (tentative step) / real step, 10 states, RK4 x 100",
               estimate_us, real_us, "us", estimate_us / real_us, "<= 0.1",
               estimate_us / real_us <= 0.1,
               absl::StrCat(rounds, " macro steps x ", kEstimates,
                            " estimates through UnitHost; baseline: units::Unit::Step")});
  report->Add({"fig6.setup",
               "first tentative step of an attempt (linearise at t[N] + Van Loan + estimate) / "
               "real step",
               first_us, real_us, "us", first_us / real_us, "", true,
               "once per macro step attempt"});
  report->Add({"fig6.commit", "Commit (the one real integration, through UnitHost) / real step",
               commit_us, real_us, "us", commit_us / real_us, "", true, ""});

  // Real integrations per accepted step, from the unit's own report after a fixed-point run.
  const int steps = options.smoke ? 20 : 500;
  const v1::Scenario loop = EstimatedLoopScenario(steps, h);
  COSIMO_ASSIGN_OR_RETURN(master::MasterResult result, RunLocal(loop, steps, nullptr));
  const master::UnitSummary* plant = nullptr;
  for (const master::UnitSummary& u : result.units) {
    if (u.name == "plant") plant = &u;
  }
  if (plant == nullptr) return absl::InternalError("no report for the estimated unit");
  const double accepted = static_cast<double>(result.steps_accepted);
  const double per_step = static_cast<double>(plant->report.real_integrations) / accepted;
  report->Add(
      {"fig6.integrations", "real integrations per accepted step, estimated unit (fixed point)",
       per_step, 1.0, "", per_step, "== 1",
       plant->report.real_integrations == result.steps_accepted,
       absl::StrCat(result.steps_accepted, " accepted steps, ", plant->report.real_integrations,
                    " real integrations, ", plant->report.estimates, " estimates (",
                    Fixed(result.iterations_mean, 2), " iterations per step), mode ",
                    UnitModeName(plant->report.mode))});
  return absl::OkStatus();
}

}  // namespace

absl::Status RunInProcessFigures(const Options& options, Report* report) {
  const bool smoke = options.smoke;
  if (!options.Wants("fig4"))
    return options.Wants("fig6") ? CostaricaFigure(options, report) : absl::OkStatus();
  COSIMO_RETURN_IF_ERROR(OrchestrationFigure(
      "fig4", "in-process Jacobi (LocalUnit) overhead per unit-step / the unit's own step",
      TrivialUnit("u", 1.0), RingScenario(2, smoke ? 500 : 100000), smoke ? 500 : 100000,
      smoke ? 1 : 5, "<= 2", report));
  v1::Scenario ten = RingScenario(2, smoke ? 50 : 3000);
  for (int i = 0; i < ten.units_size(); ++i) {
    const std::string name = ten.units(i).name();
    *ten.mutable_units(i) = TenStateUnit(name, kMacroStep, 100);
  }
  COSIMO_RETURN_IF_ERROR(OrchestrationFigure(
      "fig4.10state", "the same with the ten-state RK4 x 100 unit",
      TenStateUnit("u", kMacroStep, 100), ten, smoke ? 50 : 3000, smoke ? 1 : 3, "", report));
  return options.Wants("fig6") ? CostaricaFigure(options, report) : absl::OkStatus();
}

}  // namespace cosimo::bench
