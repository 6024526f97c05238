// Reading a built-in model's parameters from a scenario unit: defaults, sign checks, and an
// error for every parameter the model does not know (a typo must not pass silently). Errors
// name the unit, the model and the parameter. Not thread safe; one per model construction.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/scenario.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::units {

enum class Sign { kAny, kPositive, kNonNegative };

class ModelParameters {
 public:
  ModelParameters(const v1::Unit& spec, std::string model);

  const std::string& unit_name() const { return params_.unit_name(); }
  const std::string& model() const { return model_; }
  bool Has(const std::string& name) const { return params_.Has(name); }

  [[nodiscard]] absl::StatusOr<double> Number(const std::string& name, double fallback,
                                              Sign sign = Sign::kAny);
  // A list of numbers; empty when absent.
  [[nodiscard]] absl::StatusOr<std::vector<double>> Vector(const std::string& name);
  // Marks a parameter as known without reading it.
  void Known(const std::string& name) { read_.insert(name); }

  // Error naming the first given parameter the model never asked for. After DeferUnknown it
  // only keeps them (Unknown()), for the caller to match against the model's inputs.
  [[nodiscard]] absl::Status CheckAllKnown();
  void DeferUnknown() { defer_unknown_ = true; }
  // The given parameters the model never asked for, by name, with their values (numbers, or
  // the value's kind as an error), once CheckAllKnown ran with DeferUnknown.
  const std::vector<std::string>& Unknown() const { return unknown_; }
  [[nodiscard]] absl::StatusOr<double> Value(const std::string& name) const {
    return params_.RequiredNumber(name);
  }
  // The error CheckAllKnown gives for `name`.
  absl::Status UnknownError(const std::string& name) const;
  // "unit 'u': model 'm': <message>".
  absl::Status Error(const std::string& message) const;

 private:
  Parameters params_;
  std::string model_;
  std::set<std::string> read_;
  bool defer_unknown_ = false;
  std::vector<std::string> unknown_;
};

}  // namespace cosimo::units
