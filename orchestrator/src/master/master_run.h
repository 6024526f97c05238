// The state of one RunMaster call: units with their preallocated commands and replies, sample
// histories, the coupling unknowns of iterative schemes, and the time loop. Private to the
// master; master.cc holds setup, initial values, the time loop and recording; step_attempts.cc
// holds one attempt of a macro step (Jacobi, Gauss-Seidel, fixed point, Newton, one linear
// solve). One thread; no allocation per step once sized (recording appends rows).
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/scenario.h"
#include "cosimo/orchestrator/master.h"
#include "orchestrator/src/master/coupling_graph.h"
#include "orchestrator/src/master/input_approximation.h"

namespace cosimo::orchestrator::master {

// JFNK: the largest Krylov space per Newton iteration (GMRES without restart).
constexpr int kMaxKrylovDimension = 40;

struct UnitSlot {
  UnitProxy* proxy = nullptr;
  std::string name;
  int num_inputs = 0;
  int num_outputs = 0;
  Approximation approx;
  UnitCommand command;
  UnitResponse response;
  SampleHistory history;                      // accepted outputs of this unit
  Eigen::VectorXd outputs;                    // accepted outputs at the newest communication point
  Eigen::VectorXd derivatives;                // their time derivatives (zeros when not offered)
  std::vector<double> recorded;               // accepted extra recorded values
  std::vector<std::string> recorded_strings;  // and the kString ones
  std::vector<Coupling::Source> sources;      // per input
  std::vector<int> value_unknown;             // per input: index in z, -1 when unconnected
  std::vector<int> derivative_unknown;        // per input: HERMITE derivative unknown, else -1
  int first_unknown = 0;
  int num_unknowns = 0;
  bool stepped = false;  // Gauss-Seidel: already stepped in this macro step
  // Rolls back under tentative steps (iterative_mode "rollback"): its commit keeps the state of
  // its last tentative step, whose reply the master already has, so it rides on the unit's next
  // Step (commit_previous) instead of a round trip of its own.
  bool rolls_back = false;
  bool commit_pending = false;  // accepted, not yet told: the next Step carries the commit
};

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

class MasterRun {
 public:
  MasterRun(const v1::Scenario& scenario, const std::vector<UnitProxy*>& units,
            MasterObserver* observer);
  [[nodiscard]] absl::StatusOr<MasterResult> Run();

 private:
  // master.cc
  absl::Status Setup();
  absl::Status InitializeUnits();
  absl::Status ResolveInitialOutputs();
  absl::Status InitialDerivatives(const std::vector<int>& order, bool cyclic);
  absl::Status TimeLoop();
  absl::Status Accept(double t_new, bool tentative);
  void RecordRow(double t);
  absl::Status Terminate(MasterResult* result);
  void TerminateQuietly();
  std::string UnitList(const std::vector<int>& units) const;

  // step_attempts.cc
  absl::Status NonIterativeAttempt(double t, double h, bool tentative, Attempt* attempt);
  absl::Status IterativeAttempt(double t, double h, Attempt* attempt);
  // Tentative steps of every unit with inputs from z; g = the coupled outputs for each unknown.
  // A unit rejecting or diverging sets *rejected (with the reason in *reason).
  absl::Status EvaluateStepMap(double t, double h, const Eigen::VectorXd& z, Eigen::VectorXd* g,
                               bool* rejected, std::string* reason);
  // Finite-difference Jacobian of r(z) = g(z) - z, perturbing one unknown of every unit per
  // round (a unit's outputs depend on its own inputs only).
  absl::Status FiniteDifferenceJacobian(double t, double h, double scale, bool* rejected,
                                        std::string* reason);
  // newton.cc. One Newton update z <- z - dz for the residual r_ = g_ - z_ (iteration m of
  // the attempt, scaled residual `residual`, previous one `last_residual`), with the Jacobian
  // from newton_jacobian_. Sets *rejected when a unit rejects a tentative round.
  absl::Status NewtonUpdate(double t, double h, int m, double residual, double last_residual,
                            bool* rejected, std::string* reason);
  // J from the sensitivities in the units' replies of the last round (DIRECTIONAL). False,
  // with a warning, when a unit gave none.
  bool DirectionalJacobian(double h);
  // Jacobian-free Newton-Krylov: GMRES on the scaled system, each product J v by one extra
  // tentative round (g(z + eps v) - g(z)) / eps - v.
  absl::Status KrylovSolve(double t, double h, bool* rejected, std::string* reason);
  // Residual weights w_j = 1 / (tol (1 + |g_j|)): the convergence test is |w r|_inf <= 1.
  void ResidualWeights();
  absl::Status AwaitStep(UnitSlot& slot, double t, double h, bool* rejected, std::string* reason);
  void FillInputsFromUnknowns(UnitSlot& slot, double h, const Eigen::VectorXd& z);
  void FillInputsExtrapolated(UnitSlot& slot, double h, bool use_fresh);
  void Predict(double h, Eigen::VectorXd* z) const;
  double ScaledResidual(const Eigen::VectorXd& r, const Eigen::VectorXd& ref, int* worst) const;
  double ErrorEstimate(const Eigen::VectorXd& predicted, const Eigen::VectorXd& actual) const;
  std::string DescribeUnknown(int j) const;
  // Sends the slot's Step command (filled by the caller), carrying a pending commit.
  void SendStep(UnitSlot& slot);
  // Accepts the tentative step ending at t: Commit round trips to the estimated units (their
  // real integration), a pending commit for those that roll back.
  absl::Status CommitAll(double t);
  // Discards the tentative steps from t; units with a pending commit were not stepped from t.
  absl::Status RejectAll(double t);

  const v1::Scenario& scenario_;
  std::vector<UnitProxy*> proxies_;
  MasterObserver* observer_;

  std::vector<UnitSlot> slots_;
  std::vector<UnitDescription> descriptions_;
  std::vector<std::string> names_;
  Coupling coupling_;
  std::vector<CouplingEdge> edges_;
  RecordPlan plan_;
  std::vector<int> order_;  // stepping order (Gauss-Seidel; scenario order otherwise)
  std::vector<Unknown> unknowns_;

  v1::Algorithm::Kind kind_ = v1::Algorithm::JACOBI;
  bool iterative_ = false;
  bool adaptive_ = false;
  bool linear_coupling_ = false;
  // NEWTON: the resolved Jacobian source (never AUTO after Setup).
  v1::Algorithm::NewtonJacobian newton_jacobian_ = v1::Algorithm::FINITE_DIFFERENCES;
  double start_ = 0.0, stop_ = 0.0, step_ = 0.0;
  double tolerance_ = 1e-6;
  int max_iterations_ = 50;
  double min_step_ = 0.0, max_step_ = 0.0, error_tolerance_ = 0.0;
  double relaxation_ = 1.0;
  bool aitken_ = false;
  int error_order_ = 0;
  double h_attempt_ =
      0.0;  // step size of the current attempt  // lowest approximation order among the units

  // Iteration buffers, sized in Setup.
  Eigen::VectorXd z_, z_pred_, g_, g_pert_, r_, r_prev_, dz_, z_pert_;
  Eigen::MatrixXd jacobian_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  bool have_jacobian_ = false;
  bool want_sensitivities_ = false;  // EvaluateStepMap asks the units for sensitivities  //
                                     // jacobian_/lu_ hold a factorised Jacobian of this attempt
  // JFNK (GMRES) buffers, sized in Setup: Krylov basis, Hessenberg matrix, Givens rotations.
  int krylov_dim_ = 0;
  Eigen::MatrixXd krylov_basis_;  // nz x (krylov_dim + 1), scaled space
  Eigen::MatrixXd hessenberg_;    // (krylov_dim + 1) x krylov_dim
  Eigen::VectorXd givens_c_, givens_s_, krylov_rhs_, krylov_y_;
  Eigen::VectorXd weights_, work_;  // residual weights; scratch of size nz
  uint64_t krylov_iterations_ = 0;  // total GMRES iterations (one tentative round each)

  MasterResult result_;
  Progress progress_;
  uint64_t accepted_iterations_ = 0;
  bool terminated_ = false;
};

}  // namespace cosimo::orchestrator::master
