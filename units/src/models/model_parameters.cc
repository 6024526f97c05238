#include "units/src/models/model_parameters.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace cosimo::units {
namespace {

std::string Num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

}  // namespace

ModelParameters::ModelParameters(const v1::Unit& spec, std::string model)
    : params_(spec), model_(std::move(model)) {}

absl::Status ModelParameters::Error(const std::string& message) const {
  return absl::InvalidArgumentError("unit '" + params_.unit_name() + "': model '" + model_ +
                                    "': " + message);
}

absl::StatusOr<double> ModelParameters::Number(const std::string& name, double fallback,
                                               Sign sign) {
  read_.insert(name);
  absl::StatusOr<double> value = params_.Number(name, fallback);
  if (!value.ok()) return value.status();
  if (!std::isfinite(*value)) return Error("parameter '" + name + "' must be finite");
  if (sign == Sign::kPositive && !(*value > 0.0)) {
    return Error("parameter '" + name + "' must be > 0 (got " + Num(*value) + ")");
  }
  if (sign == Sign::kNonNegative && !(*value >= 0.0)) {
    return Error("parameter '" + name + "' must be >= 0 (got " + Num(*value) + ")");
  }
  return value;
}

absl::StatusOr<std::vector<double>> ModelParameters::Vector(const std::string& name) {
  read_.insert(name);
  if (!params_.Has(name)) return std::vector<double>{};
  absl::StatusOr<std::vector<double>> values = params_.Vector(name);
  if (!values.ok()) return values.status();
  for (size_t i = 0; i < values->size(); ++i) {
    if (!std::isfinite((*values)[i])) {
      return Error("parameter '" + name + "'[" + std::to_string(i) + "] must be finite");
    }
  }
  return values;
}

absl::Status ModelParameters::CheckAllKnown() {
  unknown_.clear();
  for (const std::string& name : params_.Names()) {
    if (read_.count(name) > 0) continue;
    if (!defer_unknown_) return UnknownError(name);
    unknown_.push_back(name);
  }
  return absl::OkStatus();
}

absl::Status ModelParameters::UnknownError(const std::string& name) const {
  std::string known;
  for (const std::string& k : read_) known += (known.empty() ? "" : ", ") + k;
  return Error("unknown parameter '" + name + "' (known: " + (known.empty() ? "none" : known) +
               ")");
}

}  // namespace cosimo::units
