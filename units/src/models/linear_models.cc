// linear_state_space and the tutorial's car models.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cosimo/common/status.h"
#include "units/src/models/affine_model.h"
#include "units/src/models/model_factories.h"

namespace cosimo::units {
namespace {

// Row-major list of rows x cols numbers into a matrix.
Eigen::MatrixXd RowMajor(const std::vector<double>& values, Eigen::Index rows, Eigen::Index cols) {
  Eigen::MatrixXd out(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) out(i, j) = values[i * cols + j];
  }
  return out;
}

std::vector<VariableInfo> Indexed(const std::string& prefix, Eigen::Index count,
                                  Causality causality) {
  std::vector<VariableInfo> out;
  for (Eigen::Index i = 0; i < count; ++i) {
    out.push_back(Variable(prefix + std::to_string(i), causality));
  }
  return out;
}

std::string Count(size_t n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }

// The numbers of inputs (m) and outputs (q) that B (n x m) and C (q x n) give, checked against
// those given (-1: not given); without C the outputs are the states.
absl::Status SizesFromBAndC(ModelParameters& p, Eigen::Index n, const std::vector<double>& b,
                            const std::vector<double>& c, Eigen::Index* m, Eigen::Index* q) {
  if (n == 0) return absl::OkStatus();
  {  // from B, then from C
    if (!b.empty()) {
      if (b.size() % n != 0) {
        return p.Error("parameter 'B' has " + Count(b.size()) + "; with " + std::to_string(n) +
                       " states (A is " + std::to_string(n) + "x" + std::to_string(n) +
                       ") it needs n x inputs = a multiple of " + std::to_string(n));
      }
      const Eigen::Index from_b = static_cast<Eigen::Index>(b.size()) / n;
      if (*m >= 0 && *m != from_b) {
        return p.Error("parameter 'B' gives " + std::to_string(from_b) +
                       " inputs but num_inputs is " + std::to_string(*m));
      }
      *m = from_b;
    }
    if (!c.empty()) {
      if (c.size() % n != 0) {
        return p.Error("parameter 'C' has " + Count(c.size()) + "; with " + std::to_string(n) +
                       " states it needs outputs x n = a multiple of " + std::to_string(n));
      }
      const Eigen::Index from_c = static_cast<Eigen::Index>(c.size()) / n;
      if (*q >= 0 && *q != from_c) {
        return p.Error("parameter 'C' gives " + std::to_string(from_c) +
                       " outputs but num_outputs is " + std::to_string(*q));
      }
      *q = from_c;
    } else if (*q < 0) {
      *q = n;  // y = x
    }
  }
  return absl::OkStatus();
}

// What D (q x m) can still tell of m and q.
absl::Status SizesFromD(ModelParameters& p, const std::vector<double>& d, Eigen::Index* m,
                        Eigen::Index* q) {
  if (d.empty()) return absl::OkStatus();
  Eigen::Index& inputs = *m;
  Eigen::Index& outputs = *q;
  const auto nd = static_cast<Eigen::Index>(d.size());
  if (inputs < 0 && outputs > 0 && nd % outputs == 0) inputs = nd / outputs;
  if (outputs < 0 && inputs > 0 && nd % inputs == 0) outputs = nd / inputs;
  if (inputs < 0 && outputs < 0 && nd == 1) inputs = outputs = 1;
  if (inputs < 0 || outputs < 0) {
    return p.Error("parameter 'D' has " + Count(d.size()) +
                   " but the numbers of inputs and outputs are not known; give num_inputs");
  }
  if (nd != inputs * outputs) {
    return p.Error("parameter 'D' has " + Count(d.size()) + "; with " + std::to_string(outputs) +
                   " outputs and " + std::to_string(inputs) + " inputs it needs " +
                   std::to_string(outputs * inputs) + " (outputs x inputs, row-major)");
  }
  return absl::OkStatus();
}

}  // namespace

ModelResult MakeLinearStateSpace(ModelParameters& p) {
  if (!p.Has("A"))
    return p.Error("parameter 'A' is required (n x n values, row-major; [] for none)");
  COSIMO_ASSIGN_OR_RETURN(const std::vector<double> a, p.Vector("A"));
  COSIMO_ASSIGN_OR_RETURN(const std::vector<double> b, p.Vector("B"));
  COSIMO_ASSIGN_OR_RETURN(const std::vector<double> c, p.Vector("C"));
  COSIMO_ASSIGN_OR_RETURN(const std::vector<double> d, p.Vector("D"));
  COSIMO_ASSIGN_OR_RETURN(const std::vector<double> x0, p.Vector("x0"));
  COSIMO_ASSIGN_OR_RETURN(const double inputs_given, p.Number("num_inputs", -1.0));
  COSIMO_ASSIGN_OR_RETURN(const double outputs_given, p.Number("num_outputs", -1.0));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());

  const auto n = static_cast<Eigen::Index>(std::llround(std::sqrt(static_cast<double>(a.size()))));
  if (static_cast<size_t>(n * n) != a.size()) {
    return p.Error("parameter 'A' has " + Count(a.size()) +
                   "; it must be square (n x n values, row-major)");
  }
  // Outputs: from C (p x n); without C the outputs are the states.
  Eigen::Index m = -1, q = -1;
  if (outputs_given >= 0) q = static_cast<Eigen::Index>(outputs_given);
  if (inputs_given >= 0) m = static_cast<Eigen::Index>(inputs_given);
  if (absl::Status s = SizesFromBAndC(p, n, b, c, &m, &q); !s.ok()) return s;
  if (absl::Status s = SizesFromD(p, d, &m, &q); !s.ok()) return s;
  if (m < 0) m = 0;
  if (q < 0) q = 0;
  if (n == 0 && (!b.empty() || !c.empty())) {
    return p.Error("parameters 'B' and 'C' need a non-empty 'A'");
  }
  if (!x0.empty() && static_cast<Eigen::Index>(x0.size()) != n) {
    return p.Error("parameter 'x0' has " + Count(x0.size()) + "; A has " + std::to_string(n) +
                   " states");
  }
  if (q == 0) return p.Error("the model has no outputs (give C or D)");

  AffineModelSpec spec;
  spec.inputs = Indexed("u", m, Causality::kInput);
  spec.outputs = Indexed("y", q, Causality::kOutput);
  spec.states = Indexed("x", n, Causality::kState);
  spec.A = RowMajor(a, n, n);
  spec.B = b.empty() ? Eigen::MatrixXd::Zero(n, m) : RowMajor(b, n, m);
  if (c.empty()) {
    spec.C = Eigen::MatrixXd::Zero(q, n);
    if (q == n) spec.C.setIdentity();
  } else {
    spec.C = RowMajor(c, q, n);
  }
  spec.D = d.empty() ? Eigen::MatrixXd::Zero(q, m) : RowMajor(d, q, m);
  spec.x0 = x0.empty() ? Eigen::VectorXd::Zero(n)
                       : Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(x0.data(), n));
  return std::unique_ptr<Model>(std::make_unique<AffineModel>(std::move(spec)));
}

// m v' = k (v_d - v) - c_f v; outputs v and the controller force F = k (v_d - v).
ModelResult MakeCar(ModelParameters& p) {
  COSIMO_ASSIGN_OR_RETURN(const double m, p.Number("m", 1576.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(const double k, p.Number("k", 1e3));
  COSIMO_ASSIGN_OR_RETURN(const double v_d, p.Number("v_d", 40.0));
  COSIMO_ASSIGN_OR_RETURN(const double c_f, p.Number("c_f", 0.5, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double v0, p.Number("v0", 0.0));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  AffineModelSpec spec;
  spec.states = {Variable("v", Causality::kState, "m/s", "speed")};
  spec.outputs = {Variable("v", Causality::kOutput, "m/s", "speed"),
                  Variable("F", Causality::kOutput, "N", "controller force k (v_d - v)")};
  spec.A = Eigen::MatrixXd::Constant(1, 1, -(k + c_f) / m);
  spec.f = Eigen::VectorXd::Constant(1, k * v_d / m);
  spec.C.resize(2, 1);
  spec.C << 1.0, -k;
  spec.g.resize(2);
  spec.g << 0.0, k * v_d;
  spec.x0 = Eigen::VectorXd::Constant(1, v0);
  return std::unique_ptr<Model>(std::make_unique<AffineModel>(std::move(spec)));
}

// F = k (v_d - v): no state, output reactive.
ModelResult MakeCarController(ModelParameters& p) {
  COSIMO_ASSIGN_OR_RETURN(const double k, p.Number("k", 1e3));
  COSIMO_ASSIGN_OR_RETURN(const double v_d, p.Number("v_d", 40.0));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  AffineModelSpec spec;
  spec.inputs = {Variable("v", Causality::kInput, "m/s", "measured speed")};
  spec.outputs = {Variable("F", Causality::kOutput, "N", "traction force")};
  spec.D = Eigen::MatrixXd::Constant(1, 1, -k);
  spec.g = Eigen::VectorXd::Constant(1, k * v_d);
  return std::unique_ptr<Model>(std::make_unique<AffineModel>(std::move(spec)));
}

// m v' = F - c_f v.
ModelResult MakeCarVehicle(ModelParameters& p) {
  COSIMO_ASSIGN_OR_RETURN(const double m, p.Number("m", 1576.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(const double c_f, p.Number("c_f", 0.5, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double v0, p.Number("v0", 0.0));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  AffineModelSpec spec;
  spec.inputs = {Variable("F", Causality::kInput, "N", "traction force")};
  spec.outputs = {Variable("v", Causality::kOutput, "m/s", "speed")};
  spec.states = {Variable("v", Causality::kState, "m/s", "speed")};
  spec.A = Eigen::MatrixXd::Constant(1, 1, -c_f / m);
  spec.B = Eigen::MatrixXd::Constant(1, 1, 1.0 / m);
  spec.C = Eigen::MatrixXd::Constant(1, 1, 1.0);
  spec.x0 = Eigen::VectorXd::Constant(1, v0);
  return std::unique_ptr<Model>(std::make_unique<AffineModel>(std::move(spec)));
}

}  // namespace cosimo::units
