// The non-iterative algorithms: one round of steps per attempt, Jacobi fanned out to every unit
// at once from extrapolated inputs, Gauss-Seidel one unit at a time in the reactive order with
// the fresh outputs of the units already stepped. With adaptive H the steps are tentative and
// the attempt carries the error estimate of the extrapolated inputs.
#include <utility>

#include "absl/strings/str_cat.h"
#include "master/src/algorithm.h"
#include "master/src/fan_out.h"

namespace cosimo::master {
namespace {

class NonIterative : public Algorithm {
 public:
  explicit NonIterative(CoupledUnits& units)
      : units_(units), actual_(Eigen::VectorXd::Zero(units.num_unknowns())) {}

  absl::Status DoStep(double t, double h, Attempt* attempt) final {
    const StepMode mode = units_.config().tentative ? StepMode::kTentative : StepMode::kFinal;
    Rejection rejection;
    COSIMO_RETURN_IF_ERROR(Round(t, h, mode, &rejection));
    attempt->iterations = 1;
    attempt->converged_easily = true;
    if (rejection.rejected) {
      attempt->reason = std::move(rejection.reason);
      return absl::OkStatus();
    }
    if (units_.config().algorithm.adaptive) {
      // Error estimate: the extrapolated inputs at t[N+1] against the outputs they stood for.
      units_.ReplyOutputs(&actual_);
      attempt->error = units_.ErrorEstimate(h, actual_);
      if (attempt->error > 1.0) {
        attempt->reason = absl::StrCat("error estimate ", attempt->error,
                                       " x adaptive.tolerance (interpolation error of the inputs)");
        return absl::OkStatus();
      }
    }
    attempt->accepted = true;
    return absl::OkStatus();
  }

 protected:
  // Steps every unit over [t, t + h].
  virtual absl::Status Round(double t, double h, StepMode mode, Rejection* rejection) = 0;

  CoupledUnits& units_;

 private:
  Eigen::VectorXd actual_;  // the outputs the unknowns stand for, at t[N+1]
};

class Jacobi final : public NonIterative {
 public:
  using NonIterative::NonIterative;

 protected:
  absl::Status Round(double t, double h, StepMode mode, Rejection* rejection) override {
    return FanOut(
        units_.slots(),
        [&](UnitSlot& s) {
          units_.PrepareStep(s, t, h, mode, false);
          units_.FillInputsExtrapolated(s, h, /*use_fresh=*/false);
          return true;
        },
        [&](UnitSlot& s, absl::Status awaited) {
          return units_.CheckStep(s, std::move(awaited), t, h, rejection);
        });
  }
};

class GaussSeidel final : public NonIterative {
 public:
  using NonIterative::NonIterative;

 protected:
  absl::Status Round(double t, double h, StepMode mode, Rejection* rejection) override {
    std::vector<UnitSlot>& slots = units_.slots();
    for (UnitSlot& s : slots) s.stepped = false;
    for (int u : units_.config().order) {
      UnitSlot& s = slots[u];
      units_.PrepareStep(s, t, h, mode, false);
      units_.FillInputsExtrapolated(s, h, /*use_fresh=*/true);
      COSIMO_RETURN_IF_ERROR(units_.CheckStep(s, CallUnit(s), t, h, rejection));
      s.stepped = true;
      if (rejection->rejected) break;
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Algorithm> MakeJacobi(CoupledUnits& units) {
  return std::make_unique<Jacobi>(units);
}

std::unique_ptr<Algorithm> MakeGaussSeidel(CoupledUnits& units) {
  return std::make_unique<GaussSeidel>(units);
}

}  // namespace cosimo::master
