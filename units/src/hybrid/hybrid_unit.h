// HybridUnit: the unit of a scenario's `hybrid` entry (docs/hybrid.md). A HybridModel (the
// wrapped built-in model or Model Exchange FMU between the networks) integrated by the unit's
// solver through a ModelUnit, so it offers what every built-in unit does: rollback by snapshots
// (the wrapped model holds no state of its own: an FMU with state events is refused, and the
// time events and step events of an FMU are not handled), Jacobians by the
// chain rule for COSTARICA and Newton, der(<state>) recording.
//
// The wrapped FMU is loaded as Model Exchange (the unit's solver, RK45 by default, integrates
// it); its directional derivatives give its Jacobians when it provides them, central
// differences otherwise. Weights come from spec.hybrid().weights().path() (a local file: the
// worker fetched it there by digest); without weights the networks are initialised from `seed`.
// Call order and thread safety: see cosimo/units/unit.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/units/trainer.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/hybrid/hybrid_model.h"

namespace cosimo::units {

namespace fmu {
class ModelExchangeEquations;
}
class ModelUnit;

class HybridUnit final : public Unit {
 public:
  // Errors name the unit and the field (hybrid.fmu, hybrid.weights, a layer of the weights).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<HybridUnit>> Create(const v1::Unit& spec);
  ~HybridUnit() override;

  const UnitDescription& description() const override;
  double time() const override;
  [[nodiscard]] absl::Status SetRecorded(const std::vector<std::string>& names) override;
  [[nodiscard]] absl::Status Initialize(double start_time, double stop_time) override;
  [[nodiscard]] absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override;
  void Step(const StepRequest& request, StepReply* reply) override;
  [[nodiscard]] absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override;
  [[nodiscard]] absl::Status Restore(const UnitSnapshot& snapshot) override;
  // The ModelUnit's state: the wrapped model and the networks hold none that changes.
  [[nodiscard]] absl::StatusOr<std::string> Serialize(const UnitSnapshot& snapshot) override;
  [[nodiscard]] absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(
      std::string_view bytes) override;
  [[nodiscard]] absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override;
  [[nodiscard]] absl::Status Terminate() override;

  // The model, for training (cosimo train): its networks' parameters and sensitivities. Valid
  // as long as the unit; evaluable after Initialize.
  HybridModel& model() { return *model_; }
  // The first error the wrapped FMU met since the last call (OK for built-in models).
  [[nodiscard]] absl::Status TakeError();

 private:
  HybridUnit() = default;
  absl::Status WrapFmu(const v1::Unit& spec, v1::Unit* inner_spec, const Model** inner,
                       HybridModel::InnerJacobians* jacobians);

  std::string name_;
  std::unique_ptr<Unit> inner_;  // the FMU unit; null for built-in models
  fmu::ModelExchangeEquations* equations_ = nullptr;
  std::shared_ptr<absl::Status> jacobian_error_;
  HybridModel* model_ = nullptr;  // owned by unit_
  std::unique_ptr<ModelUnit> unit_;
};

// ReadWeightsFile, WeightsJson and WriteWeightsFile are declared in cosimo/units/trainer.h.
// The weights of a model's networks.
v1::HybridWeights WeightsOf(const HybridModel& model);

}  // namespace cosimo::units
