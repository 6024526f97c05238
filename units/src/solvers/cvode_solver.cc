// SUNDIALS CVODE (6.x C API): BDF with Newton iteration and a dense direct linear solver; the
// model's analytic Jacobian when it gives one, CVODE's difference quotients otherwise. Every
// communication step re-initialises CVODE at t0 (the input polynomial changes there) and
// integrates to the stop time t0 + h exactly. CVODE's error messages are captured (not printed)
// and reported with the unit name and time; a failure never aborts the process.
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "units/src/models/linearizer.h"
#include "units/src/solvers/solver_util.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {
namespace {

constexpr long kMaxInternalSteps = 50000;  // per communication step

std::string FlagName(int flag) {
  char* name = CVodeGetReturnFlagName(flag);
  std::string result = name != nullptr ? name : std::to_string(flag);
  std::free(name);
  return result;
}

class CvodeSolver final : public Solver {
 public:
  CvodeSolver(const Model& model, double initial_step, double tolerance, std::string unit_name)
      : model_(&model),
        initial_step_(initial_step),
        tolerance_(tolerance),
        unit_name_(std::move(unit_name)),
        x_(model.num_states()),
        u_(model.num_inputs()),
        linearizer_(model) {}

  ~CvodeSolver() override {
    if (cvode_ != nullptr) CVodeFree(&cvode_);
    if (linear_solver_ != nullptr) SUNLinSolFree(linear_solver_);
    if (matrix_ != nullptr) SUNMatDestroy(matrix_);
    if (y_ != nullptr) N_VDestroy(y_);
    if (context_ != nullptr) SUNContext_Free(&context_);
  }
  CvodeSolver(const CvodeSolver&) = delete;
  CvodeSolver& operator=(const CvodeSolver&) = delete;

  absl::Status Setup() {
    const sunindextype n = model_->num_states();
    if (n == 0) return absl::OkStatus();
    auto fail = [&](const std::string& what) {
      return absl::InternalError("unit '" + unit_name_ + "': CVODE set-up failed: " + what);
    };
    if (SUNContext_Create(nullptr, &context_) != 0) return fail("SUNContext_Create");
    y_ = N_VNew_Serial(n, context_);
    if (y_ == nullptr) return fail("N_VNew_Serial");
    Eigen::Map<Eigen::VectorXd>(N_VGetArrayPointer(y_), n) = model_->InitialState();
    cvode_ = CVodeCreate(CV_BDF, context_);
    if (cvode_ == nullptr) return fail("CVodeCreate");
    if (CVodeSetErrHandlerFn(cvode_, &CvodeSolver::ErrorHandler, this) != CV_SUCCESS) {
      return fail("CVodeSetErrHandlerFn");
    }
    int flag = CVodeInit(cvode_, &CvodeSolver::Rhs, 0.0, y_);
    if (flag != CV_SUCCESS) return fail("CVodeInit: " + FlagName(flag));
    CVodeSetUserData(cvode_, this);
    flag = CVodeSStolerances(cvode_, tolerance_, tolerance_);
    if (flag != CV_SUCCESS) return fail("CVodeSStolerances: " + FlagName(flag) + " " + error_);
    CVodeSetMaxNumSteps(cvode_, kMaxInternalSteps);
    if (initial_step_ > 0.0) CVodeSetInitStep(cvode_, initial_step_);
    matrix_ = SUNDenseMatrix(n, n, context_);
    if (matrix_ == nullptr) return fail("SUNDenseMatrix");
    linear_solver_ = SUNLinSol_Dense(y_, matrix_, context_);
    if (linear_solver_ == nullptr) return fail("SUNLinSol_Dense");
    flag = CVodeSetLinearSolver(cvode_, linear_solver_, matrix_);
    if (flag != CV_SUCCESS) return fail("CVodeSetLinearSolver: " + FlagName(flag));
    if (linearizer_.analytic()) {
      jacobian_.resize(n, n);
      flag = CVodeSetJacFn(cvode_, &CvodeSolver::Jacobian);
      if (flag != CV_SUCCESS) return fail("CVodeSetJacFn: " + FlagName(flag));
    }
    return absl::OkStatus();
  }

  std::string name() const override { return "CVODE"; }

  SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double t0, double h,
                          Eigen::VectorXd& x) override {
    SolverOutcome outcome;
    const Eigen::Index n = model.num_states();
    if (n == 0) {
      outcome.substeps = 1;
      return outcome;
    }
    model_ = &model;
    inputs_ = &inputs;
    t0_ = t0;
    error_.clear();
    rhs_calls_ = 0;
    abandoned_ = false;
    Eigen::Map<Eigen::VectorXd>(N_VGetArrayPointer(y_), n) = x;
    int flag = CVodeReInit(cvode_, t0, y_);
    if (flag == CV_SUCCESS) flag = CVodeSetStopTime(cvode_, t0 + h);
    double reached = t0;
    if (flag == CV_SUCCESS) flag = CVode(cvode_, t0 + h, y_, &reached, CV_NORMAL);
    if (abandoned_) return Abandoned(name(), reached);
    if (flag < 0) {
      outcome.status = flag == CV_TOO_MUCH_WORK ? StepStatus::kRejected : StepStatus::kFailed;
      outcome.message = "unit '" + unit_name_ + "': CVODE failed at t=" + FormatNumber(reached) +
                        " on the step from t=" + FormatNumber(t0) +
                        " to t=" + FormatNumber(t0 + h) + ": " + FlagName(flag);
      if (!error_.empty()) outcome.message += ": " + error_;
      return outcome;
    }
    x = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(y_), n);
    long steps = 0;
    CVodeGetNumSteps(cvode_, &steps);
    outcome.substeps = static_cast<int>(steps);
    return outcome;
  }

 private:
  static int Rhs(realtype t, N_Vector y, N_Vector ydot, void* user_data) {
    auto* self = static_cast<CvodeSolver*>(user_data);
    if (CheckAbandon(++self->rhs_calls_)) {
      self->abandoned_ = true;
      return -1;  // unrecoverable: CVode returns at once
    }
    const Eigen::Index n = self->x_.size();
    self->x_ = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(y), n);
    self->inputs_->Value(t - self->t0_, self->u_);
    Eigen::Map<Eigen::VectorXd> out(N_VGetArrayPointer(ydot), n);
    self->model_->Derivatives(t, self->x_, self->u_, out);
    return out.allFinite() ? 0 : 1;  // 1: recoverable, CVODE retries with a smaller step
  }

  static int Jacobian(realtype t, N_Vector y, N_Vector /*fy*/, SUNMatrix jac, void* user_data,
                      N_Vector /*tmp1*/, N_Vector /*tmp2*/, N_Vector /*tmp3*/) {
    auto* self = static_cast<CvodeSolver*>(user_data);
    const Eigen::Index n = self->x_.size();
    self->x_ = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(y), n);
    self->inputs_->Value(t - self->t0_, self->u_);
    self->linearizer_.StateJacobian(t, self->x_, self->u_, &self->jacobian_);
    // SUNDIALS dense matrices are column major, as Eigen's default.
    Eigen::Map<Eigen::MatrixXd>(SUNDenseMatrix_Data(jac), n, n) = self->jacobian_;
    return self->jacobian_.allFinite() ? 0 : 1;
  }

  static void ErrorHandler(int error_code, const char* /*module*/, const char* function,
                           char* message, void* user_data) {
    if (error_code >= 0) return;  // warnings
    auto* self = static_cast<CvodeSolver*>(user_data);
    self->error_ = std::string(function != nullptr ? function : "") + ": " +
                   (message != nullptr ? message : "");
  }

  const Model* model_;
  const InputPolynomials* inputs_ = nullptr;
  double t0_ = 0.0;
  double initial_step_;
  double tolerance_;
  std::string unit_name_;
  Eigen::VectorXd x_, u_;
  Eigen::MatrixXd jacobian_;
  Linearizer linearizer_;
  std::string error_;
  int rhs_calls_ = 0;       // in this Integrate: every 4096th checks for an abandon request
  bool abandoned_ = false;  // the right-hand side stopped CVODE on an abandon request

  SUNContext context_ = nullptr;
  N_Vector y_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver linear_solver_ = nullptr;
  void* cvode_ = nullptr;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Solver>> NewCvodeSolver(const Model& model, double initial_step,
                                                       double tolerance, std::string unit_name) {
  auto solver = std::make_unique<CvodeSolver>(model, initial_step, tolerance, std::move(unit_name));
  const absl::Status status = solver->Setup();
  if (!status.ok()) return status;
  return std::unique_ptr<Solver>(std::move(solver));
}

}  // namespace cosimo::units
