#include "cosimo/units/trainer.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "units/src/hybrid/hybrid_unit.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {

// The hybrid's state and its sensitivities as one ODE: X = [x; vec(S)] (S column-major,
// states x parameters), dX/dt = [F(x, u, t); dF/dx S + dF/dp].
class Trainer::SensitivityModel final : public Model {
 public:
  explicit SensitivityModel(HybridModel* hybrid) : hybrid_(hybrid) {
    const int n = hybrid->num_states();
    const int size = n * (1 + hybrid->num_parameters());
    states_.reserve(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i) {
      states_.push_back(
          VariableInfo{absl::StrCat("X", i), Causality::kState, "", "", ValueType::kReal});
    }
    x_.resize(n);
  }

  const std::vector<VariableInfo>& inputs() const override { return hybrid_->inputs(); }
  const std::vector<VariableInfo>& outputs() const override { return outputs_; }
  const std::vector<VariableInfo>& states() const override { return states_; }
  Eigen::VectorXd InitialState() const override {
    return Eigen::VectorXd::Zero(static_cast<Eigen::Index>(states_.size()));
  }
  bool direct_feedthrough() const override { return false; }

  void Derivatives(double t, const Eigen::VectorXd& X, const Eigen::VectorXd& u,
                   Eigen::Ref<Eigen::VectorXd> dX) const override {
    const Eigen::Index n = x_.size(), p = hybrid_->num_parameters();
    x_ = X.head(n);
    Eigen::Map<const Eigen::MatrixXd> S(X.data() + n, n, p);
    Eigen::Map<Eigen::MatrixXd> dS(dX.data() + n, n, p);
    if (!hybrid_->Sensitivities(t, x_, u, S, dX.head(n), dS)) {
      dX.setConstant(std::numeric_limits<double>::quiet_NaN());
    }
  }
  void Outputs(double, const Eigen::VectorXd&, const Eigen::VectorXd&,
               Eigen::Ref<Eigen::VectorXd>) const override {}

 private:
  HybridModel* hybrid_;
  std::vector<VariableInfo> states_, outputs_;
  mutable Eigen::VectorXd x_;
};

int Trainer::num_parameters() const { return model_->num_parameters(); }

v1::HybridWeights Trainer::weights() const { return WeightsOf(*model_); }

Trainer::~Trainer() {
  if (unit_ != nullptr) (void)unit_->Terminate();
}

absl::StatusOr<std::unique_ptr<Trainer>> Trainer::Create(const v1::Scenario& scenario,
                                                         const std::string& unit,
                                                         const std::string& data_text,
                                                         const std::string& data_source) {
  int index = -1;
  std::string names;
  for (int i = 0; i < scenario.units_size(); ++i) {
    if (scenario.units(i).name() == unit) index = i;
    names += (names.empty() ? "" : ", ") + scenario.units(i).name();
  }
  if (index < 0) {
    return absl::InvalidArgumentError("--unit: the scenario has no unit '" + unit +
                                      "' (units: " + names + ")");
  }
  const v1::Unit& spec = scenario.units(index);
  if (!spec.has_hybrid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("units[", index, "]: unit '", unit,
                     "' is not a hybrid unit; only a hybrid unit's networks can be trained"));
  }
  std::unique_ptr<Trainer> trainer(new Trainer());
  trainer->name_ = unit;
  trainer->spec_ = spec;
  trainer->start_time_ = scenario.start_time();
  trainer->stop_time_ = scenario.stop_time();
  COSIMO_ASSIGN_OR_RETURN(trainer->unit_, HybridUnit::Create(spec));
  if (absl::Status s = trainer->unit_->Initialize(scenario.start_time(), scenario.stop_time());
      !s.ok()) {
    return s;
  }
  trainer->model_ = &trainer->unit_->model();
  if (absl::Status s = trainer->ReadData(scenario, index, data_text, data_source); !s.ok()) {
    return s;
  }
  COSIMO_ASSIGN_OR_RETURN(trainer->solver_, CreateSolver(spec.solver(), *trainer->model_, unit));
  trainer->sensitivity_model_ = std::make_unique<SensitivityModel>(trainer->model_);
  COSIMO_ASSIGN_OR_RETURN(trainer->sensitivity_solver_,
                          CreateSolver(spec.solver(), *trainer->sensitivity_model_, unit));
  return trainer;
}

// The measured data: the compared columns (the unit's recorded outputs and states, else its
// outputs the data has) and the inputs, at the rows within the scenario's time span.
absl::Status Trainer::ReadData(const v1::Scenario& scenario, int index,
                               const std::string& data_text, const std::string& data_source) {
  const std::string& unit = name_;
  const std::string prefix = "unit '" + unit + "': ";
  const HybridModel& model = *model_;
  COSIMO_ASSIGN_OR_RETURN(NumericCsv csv, ParseNumericCsv(data_text, data_source));
  auto column_of = [&](const std::string& name) {
    for (size_t j = 1; j < csv.header.size(); ++j) {
      if (csv.header[j] == name) return static_cast<int>(j) - 1;
    }
    return -1;
  };
  std::string columns;
  for (const std::string& c : csv.header) columns += (columns.empty() ? "" : ", ") + c;
  std::vector<std::string> wanted = RecordedNames(scenario, index);
  if (wanted.empty()) {
    for (const VariableInfo& v : model.outputs()) {
      if (column_of(unit + "." + v.name) >= 0) wanted.push_back(v.name);
    }
    if (wanted.empty()) {
      return absl::InvalidArgumentError(data_source + ": no column '" + unit +
                                        ".<output>' for an output of unit '" + unit +
                                        "' (columns: " + columns + ")");
    }
  }
  std::vector<int> data_columns;
  for (const std::string& name : wanted) {
    // Outputs first, as recording does; then states (index -1 - state).
    int found = 0;
    bool known = false;
    for (size_t i = 0; i < model.outputs().size() && !known; ++i) {
      if (model.outputs()[i].name != name) continue;
      found = static_cast<int>(i);
      known = true;
    }
    for (size_t i = 0; i < model.states().size() && !known; ++i) {
      if (model.states()[i].name != name) continue;
      found = -1 - static_cast<int>(i);
      known = true;
    }
    if (!known) {
      return absl::InvalidArgumentError(prefix + "record names '" + unit + "." + name +
                                        "', which is neither an output nor a state; training "
                                        "compares outputs and states");
    }
    const int column = column_of(unit + "." + name);
    if (column < 0) {
      return absl::InvalidArgumentError(data_source + ": no column '" + unit + "." + name +
                                        "' (recorded variable of unit '" + unit +
                                        "'; columns: " + columns + ")");
    }
    compared_names_.push_back(unit + "." + name);
    compared_index_.push_back(found);
    data_columns.push_back(column);
  }
  std::vector<int> input_columns;
  for (const VariableInfo& v : model.inputs())
    input_columns.push_back(column_of(unit + "." + v.name));
  return TakeSamples(scenario, csv, data_source, data_columns, input_columns);
}

// The data's rows within the scenario's time span: the measured values of the compared
// columns and the inputs (0 where the data has no column for one).
absl::Status Trainer::TakeSamples(const v1::Scenario& scenario, const NumericCsv& csv,
                                  const std::string& data_source,
                                  const std::vector<int>& data_columns,
                                  const std::vector<int>& input_columns) {
  std::vector<Eigen::Index> rows;
  for (size_t r = 0; r < csv.times.size(); ++r) {
    const double t = csv.times[r];
    if (t >= scenario.start_time() - 1e-12 && t <= scenario.stop_time() + 1e-12) {
      rows.push_back(static_cast<Eigen::Index>(r));
    }
  }
  if (rows.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        data_source, ": no row with a time within the scenario's [start_time, stop_time] = [",
        scenario.start_time(), ", ", scenario.stop_time(), "]"));
  }
  const Eigen::Index q = static_cast<Eigen::Index>(data_columns.size());
  const Eigen::Index m = static_cast<Eigen::Index>(input_columns.size());
  measured_.resize(static_cast<Eigen::Index>(rows.size()), q);
  inputs_ = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), m);
  for (size_t k = 0; k < rows.size(); ++k) {
    const Eigen::Index r = rows[k], row = static_cast<Eigen::Index>(k);
    times_.push_back(csv.times[static_cast<size_t>(r)]);
    for (Eigen::Index j = 0; j < q; ++j) {
      measured_(row, j) = csv.values(r, data_columns[static_cast<size_t>(j)]);
    }
    for (Eigen::Index j = 0; j < m; ++j) {
      const int c = input_columns[static_cast<size_t>(j)];
      if (c >= 0) inputs_(row, j) = csv.values(r, c);
    }
  }

  return absl::OkStatus();
}

absl::StatusOr<double> Trainer::Loss(Eigen::VectorXd* gradient) { return Run(gradient, nullptr); }

absl::StatusOr<Eigen::MatrixXd> Trainer::Simulate() {
  Eigen::MatrixXd trajectory;
  COSIMO_RETURN_IF_ERROR(Run(nullptr, &trajectory).status());
  return trajectory;
}

absl::StatusOr<double> Trainer::Run(Eigen::VectorXd* gradient, Eigen::MatrixXd* trajectory) {
  HybridModel& model = *model_;
  const Eigen::Index n = model.num_states(), np = model.num_parameters();
  const Eigen::Index m = model.num_inputs(), p = model.num_outputs();
  const Eigen::Index q = static_cast<Eigen::Index>(compared_index_.size());
  const bool sensitivities = gradient != nullptr;
  Eigen::VectorXd X = Eigen::VectorXd::Zero(sensitivities ? n * (1 + np) : n);
  X.head(n) = model.InitialState();
  Solver& solver = sensitivities ? *sensitivity_solver_ : *solver_;
  const Model& integrated = sensitivities ? static_cast<const Model&>(*sensitivity_model_) : model;
  solver.Reset();
  if (sensitivities) gradient->setZero(np);
  if (trajectory != nullptr) trajectory->resize(static_cast<Eigen::Index>(times_.size()), q);

  double loss = 0.0, t = start_time_;
  Eigen::VectorXd x(n), u(m), y(p), row(np);
  Eigen::MatrixXd A, B, C, D;
  InputPolynomials poly;
  for (size_t k = 0; k < times_.size(); ++k) {
    const Eigen::Index kk = static_cast<Eigen::Index>(k);
    const double tk = times_[k];
    if (tk > t) {
      // Inputs linear from the previous sample (held before the first).
      poly.coefficients.resize(m, 2);
      if (k == 0) {
        poly.coefficients.col(0) = inputs_.row(0).transpose();
        poly.coefficients.col(1).setZero();
      } else {
        poly.coefficients.col(0) = inputs_.row(kk - 1).transpose();
        poly.coefficients.col(1) = (inputs_.row(kk) - inputs_.row(kk - 1)).transpose() / (tk - t);
      }
      const SolverOutcome outcome = solver.Integrate(integrated, poly, t, tk - t, X);
      COSIMO_RETURN_IF_ERROR(unit_->TakeError());
      if (outcome.status != StepStatus::kOk) {
        return absl::FailedPreconditionError(absl::StrCat("unit '", name_,
                                                          "': the simulation failed between t=", t,
                                                          " and t=", tk, ": ", outcome.message));
      }
      t = tk;
    }
    x = X.head(n);
    u = inputs_.row(kk).transpose();
    if (p > 0) model.Outputs(tk, x, u, y);
    const bool need_c = sensitivities && p > 0;
    if (need_c) model.Jacobians(tk, x, u, &A, &B, &C, &D);
    COSIMO_RETURN_IF_ERROR(unit_->TakeError());
    Eigen::Map<const Eigen::MatrixXd> S(X.data() + n, n, sensitivities ? np : 0);
    for (Eigen::Index j = 0; j < q; ++j) {
      const int index = compared_index_[static_cast<size_t>(j)];
      const double value = index >= 0 ? y[index] : x[-1 - index];
      const double r = value - measured_(kk, j);
      loss += r * r;
      if (trajectory != nullptr) (*trajectory)(kk, j) = value;
      if (sensitivities) {
        if (index >= 0) {
          row.noalias() = (C.row(index) * S).transpose();
        } else {
          row = S.row(-1 - index).transpose();
        }
        *gradient += 2.0 * r * row;
      }
    }
  }
  const double count = static_cast<double>(times_.size()) * static_cast<double>(q);
  if (sensitivities) *gradient /= count;
  return loss / count;
}

absl::StatusOr<double> Trainer::Train(const TrainingOptions& options,
                                      const std::function<bool(const EpochProgress&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  Eigen::VectorXd params = model_->Parameters();
  const Eigen::Index np = params.size();
  Eigen::VectorXd m1 = Eigen::VectorXd::Zero(np), m2 = Eigen::VectorXd::Zero(np), g(np);
  double b1t = 1.0, b2t = 1.0;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    absl::StatusOr<double> loss = Run(&g, nullptr);
    if (!loss.ok()) return Annotate(loss.status(), absl::StrCat("training epoch ", epoch));
    if (!std::isfinite(*loss) || !g.allFinite()) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", name_, "': training diverged at epoch ", epoch, " (loss ", *loss,
                       "); try a smaller learning rate"));
    }
    EpochProgress report;
    report.epoch = epoch;
    report.epochs = options.epochs;
    report.loss = *loss;
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress && !progress(report)) break;
    b1t *= options.beta1;
    b2t *= options.beta2;
    m1 = options.beta1 * m1 + (1.0 - options.beta1) * g;
    m2 = options.beta2 * m2 + (1.0 - options.beta2) * g.cwiseProduct(g);
    const Eigen::VectorXd m_hat = m1 / (1.0 - b1t);
    const Eigen::VectorXd v_hat = m2 / (1.0 - b2t);
    params.array() -=
        options.learning_rate * m_hat.array() / (v_hat.array().sqrt() + options.epsilon);
    model_->SetParameters(params);
  }
  return Run(nullptr, nullptr);
}

}  // namespace cosimo::units
