#include "units/src/host/transformed_unit.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/common/scenario.h"

namespace cosimo::units::host {
namespace {

class TransformedUnit final : public Unit {
 public:
  TransformedUnit(std::unique_ptr<Unit> unit, Eigen::VectorXd factor, Eigen::VectorXd offset)
      : unit_(std::move(unit)), factor_(std::move(factor)), offset_(std::move(offset)) {}

  const UnitDescription& description() const override { return unit_->description(); }
  double time() const override { return unit_->time(); }
  absl::Status SetRecorded(const std::vector<std::string>& names) override {
    return unit_->SetRecorded(names);
  }
  void SetOutputDerivativesNeeded(bool needed) override {
    unit_->SetOutputDerivativesNeeded(needed);
  }
  absl::Status SetConnectedInputs(const std::vector<bool>& connected) override {
    return unit_->SetConnectedInputs(connected);
  }
  void SetNonFiniteAllowed(bool allowed) override { unit_->SetNonFiniteAllowed(allowed); }
  absl::Status Initialize(double start_time, double stop_time) override {
    return unit_->Initialize(start_time, stop_time);
  }
  absl::Status HoldOutputs(const std::vector<int>& outputs) override {
    return unit_->HoldOutputs(outputs);
  }
  // The values sent that give the unit its start inputs: (start - offset) / factor; where the
  // factor is 0 every value sent gives the offset.
  std::optional<Eigen::VectorXd> StartInputs() const override {
    std::optional<Eigen::VectorXd> start = unit_->StartInputs();
    if (!start.has_value() || start->size() != factor_.size()) return start;
    Eigen::VectorXd sent = *start;
    for (Eigen::Index i = 0; i < sent.size(); ++i) {
      sent(i) = factor_(i) != 0.0 ? (sent(i) - offset_(i)) / factor_(i) : 0.0;
    }
    return sent;
  }
  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override {
    return unit_->Evaluate(Own(inputs), reply);
  }
  void Step(const StepRequest& request, StepReply* reply) override {
    if (request.inputs.coefficients.rows() != factor_.size()) {
      unit_->Step(request, reply);  // the unit names the wrong size
      return;
    }
    own_.time = request.time;
    own_.step = request.step;
    own_.mode = request.mode;
    own_.sensitivities = request.sensitivities;
    own_.commit_previous = request.commit_previous;
    own_.inputs.coefficients = factor_.asDiagonal() * request.inputs.coefficients;
    if (own_.inputs.coefficients.cols() > 0) own_.inputs.coefficients.col(0) += offset_;
    unit_->Step(own_, reply);
  }
  void SetEarlierStateKept() override { unit_->SetEarlierStateKept(); }
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override { return unit_->Save(); }
  absl::Status Restore(const UnitSnapshot& snapshot) override { return unit_->Restore(snapshot); }
  absl::StatusOr<std::string> Serialize(const UnitSnapshot& snapshot) override {
    return unit_->Serialize(snapshot);
  }
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(std::string_view bytes) override {
    return unit_->Deserialize(bytes);
  }
  // d/d(value sent) = d/d(input) * factor.
  absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override {
    absl::StatusOr<Linearization> lin = unit_->Linearize(Own(inputs));
    if (!lin.ok()) return lin;
    if (lin->B.cols() == factor_.size()) lin->B = lin->B * factor_.asDiagonal();
    if (lin->D.cols() == factor_.size()) lin->D = lin->D * factor_.asDiagonal();
    return lin;
  }
  absl::Status Terminate() override { return unit_->Terminate(); }

 private:
  Eigen::VectorXd Own(const Eigen::VectorXd& sent) const {
    if (sent.size() != factor_.size()) return sent;
    return factor_.cwiseProduct(sent) + offset_;
  }

  std::unique_ptr<Unit> unit_;
  Eigen::VectorXd factor_, offset_;
  StepRequest own_;  // Step's request as the unit sees it (storage reused)
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> WithInputTransforms(std::unique_ptr<Unit> unit,
                                                          const v1::LoadUnit& load) {
  if (load.input_transforms().empty()) return unit;
  const std::vector<VariableInfo>& inputs = unit->description().inputs;
  const auto n = static_cast<Eigen::Index>(inputs.size());
  Eigen::VectorXd factor = Eigen::VectorXd::Ones(n);
  Eigen::VectorXd offset = Eigen::VectorXd::Zero(n);
  for (const v1::InputTransform& t : load.input_transforms()) {
    const std::vector<int> named = VariablesNamed(inputs, t.input());  // an array: each element
    if (named.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unit '", load.unit().name(), "': a connection with a factor or offset ",
                       "feeds '", t.input(), "', which is not an input of the unit"));
    }
    for (int i : named) {
      factor(i) = t.factor();
      offset(i) = t.offset();
    }
  }
  return std::unique_ptr<Unit>(
      std::make_unique<TransformedUnit>(std::move(unit), std::move(factor), std::move(offset)));
}

}  // namespace cosimo::units::host
