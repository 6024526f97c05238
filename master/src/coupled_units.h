// CoupledUnits: the units of one master run and what every algorithm does with them: their
// input approximations (extrapolated, or with a right end from the coupling unknowns), step
// rounds through the fan-out, the coupling unknowns z at t[N+1] and their residuals, the error
// estimate of adaptive H, and accepting or rejecting a tentative step. The algorithms
// (algorithm.h) decide what to send; the run (master.cc) owns the time loop.
//
// Call order per macro step: one or more rounds (StepRound / EvaluateStepMap), then either
// CommitAll + Accept (or Accept alone for final steps) or RejectAll. One thread (the job's); no
// allocation per step once built.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "master/src/master_config.h"
#include "master/src/unit_slot.h"

namespace cosimo::master {

// One coupling unknown at t[N+1]: the value (or, with HERMITE, the derivative) of a connected
// input; its residual is source output (derivative) minus the unknown.
struct Unknown {
  int unit = -1;
  int input = -1;
  bool derivative = false;
  int source_unit = -1;
  int source_output = -1;
};

// What one attempt of a macro step gave.
struct Attempt {
  bool accepted = false;
  int iterations = 0;
  double error = -1.0;  // scaled error estimate (<= 1 is within adaptive.tolerance); < 0: none
  std::string reason;   // why rejected
  bool converged_easily = false;
};

// Units that rejected or diverged in a round, with their reasons.
struct Rejection {
  bool rejected = false;
  std::string reason;
  void Add(const std::string& why);
};

class CoupledUnits {
 public:
  explicit CoupledUnits(const MasterConfig& config);

  const MasterConfig& config() const { return config_; }
  std::vector<UnitSlot>& slots() { return slots_; }
  const std::vector<UnitSlot>& slots() const { return slots_; }
  const std::vector<Unknown>& unknowns() const { return unknowns_; }
  Eigen::Index num_unknowns() const { return static_cast<Eigen::Index>(unknowns_.size()); }

  // The slot's input coefficients for [t, t + h] extrapolated from its sources' histories, or,
  // with use_fresh, from the fresh reply of a source already stepped (Gauss-Seidel).
  void FillInputsExtrapolated(UnitSlot& slot, double h, bool use_fresh);
  // The slot's input coefficients with the right ends taken from the unknowns z.
  void FillInputsFromUnknowns(UnitSlot& slot, double h, const Eigen::VectorXd& z);
  // The unknowns extrapolated to t[N] + h from the histories (the predictor).
  void Predict(double h, Eigen::VectorXd* z) const;

  // Readies the slot's Step command for [t, t + h] (inputs filled by the caller), carrying a
  // pending commit.
  void PrepareStep(UnitSlot& slot, double t, double h, StepMode mode, bool sensitivities);
  // The outcome of a Step reply: an error (a lost unit, a failed step, a reply of the wrong
  // size), or OK with a rejection or divergence added to *rejection.
  [[nodiscard]] absl::Status CheckStep(UnitSlot& slot, absl::Status awaited, double t, double h,
                                       Rejection* rejection) const;
  // One round of tentative steps with inputs from z; g = the coupled outputs (derivatives) for
  // each unknown. A unit rejecting or diverging sets *rejection and leaves g as it was.
  [[nodiscard]] absl::Status EvaluateStepMap(double t, double h, const Eigen::VectorXd& z,
                                             bool sensitivities, Eigen::VectorXd* g,
                                             Rejection* rejection);
  // The replies' outputs for each value unknown (0 for derivative unknowns): what an
  // extrapolated step's inputs stood for.
  void ReplyOutputs(Eigen::VectorXd* g) const;

  // max_j |r_j| / (tol (1 + |ref_j|)), the worst unknown in *worst; infinite on NaN.
  double ScaledResidual(const Eigen::VectorXd& r, const Eigen::VectorXd& ref, int* worst) const;
  // The interpolation error of the inputs on [t[N], t[N] + h] against the new values `actual`
  // at its end, scaled by adaptive.tolerance; -1 when there is no estimate.
  double ErrorEstimate(double h, const Eigen::VectorXd& actual) const;
  // "d/dt of a.y -> b.u" for error messages.
  std::string DescribeUnknown(int j) const;

  // Accepts the tentative step ending at t: Commit round trips to the estimated units (their
  // real integration), a pending commit for those that roll back.
  [[nodiscard]] absl::Status CommitAll(double t);
  // Discards the tentative steps from t; units with a pending commit were not stepped from t.
  [[nodiscard]] absl::Status RejectAll(double t);
  // Takes the last replies as the accepted outputs at t_new (and into the histories).
  void TakeReplies(double t_new);

 private:
  // CheckStep's uncommon cases, formatted.
  [[nodiscard]] ABSL_ATTRIBUTE_NOINLINE absl::Status CheckFailedStep(const UnitSlot& slot,
                                                                     absl::Status awaited, double t,
                                                                     double h,
                                                                     Rejection* rejection) const;
  const MasterConfig& config_;
  std::vector<UnitSlot> slots_;
  std::vector<Unknown> unknowns_;
};

}  // namespace cosimo::master
