// Figure 5: a Co-Simulation FMU stepped through its unit (units::Unit::Step of the FMU unit:
// inputs, input derivatives, fmi2DoStep, outputs; no output derivatives, as LoadUnit asks when no
// input the unit feeds is HERMITE and the step is fixed) against a bare loop over the same shared
// library (dlopen): fmi2SetReal(inputs), fmi2DoStep, fmi2GetReal and fmi2GetInteger of the same
// outputs. fig5.hermite: the unit also reading its output derivatives
// (fmi2GetRealOutputDerivatives), as it does when they are used. Test FMU fmi2_msd
// (mass-spring-damper, RK4 substeps of 1e-4 s inside DoStep), communication step 1e-3 s.
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "bare_fmu.h"
#include "cosimo/common/status.h"
#include "cosimo/units/unit_factory.h"
#include "figures.h"
#include "scenarios.h"

namespace cosimo::bench {
namespace {

constexpr double kNsPerUs = 1e3;

}  // namespace

absl::Status RunFmuFigure(const Options& options, Report* report) {
  if (options.fmu_path.empty() || options.fmu_library.empty()) {
    return absl::FailedPreconditionError(
        "figure 5 needs the test FMUs (configure with COSIMO_BUILD_TESTS=ON)");
  }
  const double h = kMacroStep;
  BareFmu bare;
  COSIMO_RETURN_IF_ERROR(bare.Open(options.fmu_library));
  v1::Unit spec;
  spec.set_name("msd");
  spec.mutable_fmu()->set_path(options.fmu_path);
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<units::Unit> unit,
                          units::CreateUnit(spec, options.fmu_path));
  COSIMO_RETURN_IF_ERROR(unit->SetRecorded({}));
  COSIMO_RETURN_IF_ERROR(unit->Initialize(0.0, 1e12));
  StepRequest request;
  request.step = h;
  request.inputs.coefficients = Eigen::MatrixXd::Constant(1, 1, 0.5);
  StepReply reply;

  const int rounds = options.smoke ? 5 : 200;
  const int batch = options.smoke ? 20 : 500;
  std::vector<double> bare_ns, unit_ns, hermite_ns;
  bool ok = true;
  for (int r = 0; r < rounds && ok; ++r) {
    int64_t start = NowNs();
    for (int i = 0; i < batch; ++i) ok = bare.Step(h) && ok;
    bare_ns.push_back(static_cast<double>(NowNs() - start) / batch);
    for (bool hermite : {false, true}) {
      unit->SetOutputDerivativesNeeded(hermite);
      start = NowNs();
      for (int i = 0; i < batch; ++i) {
        request.time = unit->time();
        unit->Step(request, &reply);
        ok = ok && reply.status == StepStatus::kOk;
      }
      (hermite ? hermite_ns : unit_ns).push_back(static_cast<double>(NowNs() - start) / batch);
    }
  }
  if (!ok) return absl::InternalError("figure 5: an FMU step failed: " + reply.message);
  const double bare_us = Median(bare_ns) / kNsPerUs;
  const double unit_us = Median(unit_ns) / kNsPerUs;
  report->Add({"fig5", "FMU (fmi2_msd, CS) step through its unit / bare fmi2DoStep loop", unit_us,
               bare_us, "us", unit_us / bare_us, "<= 1.1", unit_us / bare_us <= 1.1,
               absl::StrCat(rounds, " x ", batch,
                            " steps of 1 ms (10 RK4 substeps in DoStep), interleaved; bare loop: "
                            "SetReal, DoStep, GetReal, GetInteger")});
  const double hermite_us = Median(hermite_ns) / kNsPerUs;
  report->Add({"fig5.hermite",
               "the same unit also reading its output derivatives (a HERMITE consumer) / bare loop",
               hermite_us, bare_us, "us", hermite_us / bare_us, "", true,
               "fmi2GetRealOutputDerivatives of the 2 Real outputs every step"});
  return absl::OkStatus();
}

}  // namespace cosimo::bench
