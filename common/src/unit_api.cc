#include "cosimo/common/unit_api.h"

namespace cosimo {

void InputPolynomials::Value(double s, Eigen::Ref<Eigen::VectorXd> out) const {
  // Horner's scheme per input.
  const int n = order();
  for (Eigen::Index i = 0; i < coefficients.rows(); ++i) {
    double v = 0.0;
    for (int k = n - 1; k >= 0; --k) v = v * s + coefficients(i, k);
    out[i] = v;
  }
}

void InputPolynomials::Derivative(double s, Eigen::Ref<Eigen::VectorXd> out) const {
  const int n = order();
  for (Eigen::Index i = 0; i < coefficients.rows(); ++i) {
    double v = 0.0;
    for (int k = n - 1; k >= 1; --k) v = v * s + k * coefficients(i, k);
    out[i] = v;
  }
}

const char* IterativeModeName(IterativeMode mode) {
  return mode == IterativeMode::kRollback ? "rollback" : "estimate";
}

const char* UnitModeName(UnitMode mode) {
  switch (mode) {
    case UnitMode::kRollback:
      return "rollback";
    case UnitMode::kEstimate:
      return "estimate";
    case UnitMode::kEstimateDegraded:
      return "estimate-degraded";
    case UnitMode::kDirect:
      break;
  }
  return "direct";
}

const char* CausalityName(Causality causality) {
  switch (causality) {
    case Causality::kInput:
      return "input";
    case Causality::kOutput:
      return "output";
    case Causality::kState:
      return "state";
    case Causality::kParameter:
      return "parameter";
    case Causality::kLocal:
      return "local";
  }
  return "unknown";
}

const char* ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kReal:
      return "real";
    case ValueType::kInteger:
      return "integer";
    case ValueType::kBoolean:
      return "boolean";
    case ValueType::kString:
      return "string";
  }
  return "unknown";
}

const char* StepStatusName(StepStatus status) {
  switch (status) {
    case StepStatus::kOk:
      return "ok";
    case StepStatus::kRejected:
      return "rejected";
    case StepStatus::kDiverged:
      return "diverged";
    case StepStatus::kFailed:
      return "failed";
    case StepStatus::kEnded:
      return "ended";
  }
  return "unknown";
}

}  // namespace cosimo
