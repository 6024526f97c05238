#include "units/src/host/transformed_unit.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/scenario.h"

namespace cosimo::units::host {
namespace {

// An input's map (InputTransform.map): value sent -> the input's value; empty: none.
using ValueMap = std::map<double, double>;

class TransformedUnit final : public Unit {
 public:
  TransformedUnit(std::unique_ptr<Unit> unit, std::string name, Eigen::VectorXd factor,
                  Eigen::VectorXd offset, std::vector<ValueMap> maps, std::vector<std::string> from)
      : unit_(std::move(unit)),
        name_(std::move(name)),
        factor_(std::move(factor)),
        offset_(std::move(offset)),
        maps_(std::move(maps)),
        from_(std::move(from)) {}

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
  // factor is 0 every value sent gives the offset. A mapped input: a source whose target is the
  // start value, else (no start, or none maps to it) one the map has, so that the first Evaluate
  // (UnitHost::Initialize, before any output is known) sends a value the map takes.
  std::optional<Eigen::VectorXd> StartInputs() const override {
    std::optional<Eigen::VectorXd> start = unit_->StartInputs();
    const bool mapped =
        std::any_of(maps_.begin(), maps_.end(), [](const ValueMap& m) { return !m.empty(); });
    if (start.has_value() && start->size() != factor_.size()) return start;
    if (!start.has_value() && !mapped) return start;
    Eigen::VectorXd sent = start.value_or(Eigen::VectorXd::Zero(factor_.size()));
    for (Eigen::Index i = 0; i < sent.size(); ++i) {
      if (start.has_value()) {
        sent(i) = factor_(i) != 0.0 ? (sent(i) - offset_(i)) / factor_(i) : 0.0;
      }
      const ValueMap& map = maps_[static_cast<size_t>(i)];
      if (map.empty() || (!start.has_value() && map.count(0.0) != 0)) continue;
      const auto inverse = std::find_if(map.begin(), map.end(), [&](const auto& entry) {
        return start.has_value() && entry.second == (*start)(i);
      });
      sent(i) = inverse != map.end() ? inverse->first : map.begin()->first;
    }
    return sent;
  }
  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override {
    absl::StatusOr<Eigen::VectorXd> own = Own(inputs);
    if (!own.ok()) return own.status();
    return unit_->Evaluate(*own, reply);
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
    // A mapped input is held over the step at its value's target.
    for (Eigen::Index i = 0; i < own_.inputs.coefficients.rows(); ++i) {
      if (maps_[static_cast<size_t>(i)].empty() || own_.inputs.coefficients.cols() == 0) continue;
      absl::StatusOr<double> target = Mapped(i, own_.inputs.coefficients(i, 0));
      if (!target.ok()) {
        reply->status = StepStatus::kFailed;
        reply->message = std::string(target.status().message());
        reply->end_time = unit_->time();
        return;
      }
      own_.inputs.coefficients.row(i).setZero();
      own_.inputs.coefficients(i, 0) = *target;
    }
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
  // A mapped input's value is piecewise constant in the value sent: its columns are zero.
  absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override {
    absl::StatusOr<Eigen::VectorXd> own = Own(inputs);
    if (!own.ok()) return own.status();
    absl::StatusOr<Linearization> lin = unit_->Linearize(*own);
    if (!lin.ok()) return lin;
    Eigen::VectorXd slope = factor_;
    for (size_t i = 0; i < maps_.size(); ++i) {
      if (!maps_[i].empty()) slope(static_cast<Eigen::Index>(i)) = 0.0;
    }
    if (lin->B.cols() == slope.size()) lin->B = lin->B * slope.asDiagonal();
    if (lin->D.cols() == slope.size()) lin->D = lin->D * slope.asDiagonal();
    return lin;
  }
  absl::Status Terminate() override { return unit_->Terminate(); }

 private:
  absl::StatusOr<Eigen::VectorXd> Own(const Eigen::VectorXd& sent) const {
    if (sent.size() != factor_.size()) return sent;
    Eigen::VectorXd own = factor_.cwiseProduct(sent) + offset_;
    for (Eigen::Index i = 0; i < own.size(); ++i) {
      if (maps_[static_cast<size_t>(i)].empty()) continue;
      absl::StatusOr<double> target = Mapped(i, own(i));
      if (!target.ok()) return target.status();
      own(i) = *target;
    }
    return own;
  }

  // The target of input i's map for `value`; an error naming the connection and the value when
  // no entry has it as its source.
  absl::StatusOr<double> Mapped(Eigen::Index i, double value) const {
    const ValueMap& map = maps_[static_cast<size_t>(i)];
    if (auto it = map.find(value); it != map.end()) return it->second;
    std::vector<std::string> sources;
    for (const auto& entry : map) sources.push_back(absl::StrCat(entry.first));
    return absl::FailedPreconditionError(absl::StrCat(
        "unit '", name_, "': the connection '", from_[static_cast<size_t>(i)], "' -> '", name_, ".",
        unit_->description().inputs[static_cast<size_t>(i)].name, "' sends ", value,
        ", which its map has no entry for (sources: ", absl::StrJoin(sources, ", "), ")"));
  }

  std::unique_ptr<Unit> unit_;
  std::string name_;  // the unit's, for messages
  Eigen::VectorXd factor_, offset_;
  std::vector<ValueMap> maps_;     // per input
  std::vector<std::string> from_;  // per input: the output feeding it, for messages
  StepRequest own_;                // Step's request as the unit sees it (storage reused)
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> WithInputTransforms(std::unique_ptr<Unit> unit,
                                                          const v1::LoadUnit& load) {
  if (load.input_transforms().empty()) return unit;
  const std::vector<VariableInfo>& inputs = unit->description().inputs;
  const auto n = static_cast<Eigen::Index>(inputs.size());
  Eigen::VectorXd factor = Eigen::VectorXd::Ones(n);
  Eigen::VectorXd offset = Eigen::VectorXd::Zero(n);
  std::vector<ValueMap> maps(inputs.size());
  std::vector<std::string> from(inputs.size());
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
      for (const v1::MapEntry& e : t.map()) maps[static_cast<size_t>(i)][e.source()] = e.target();
      from[static_cast<size_t>(i)] = t.from();
    }
  }
  return std::unique_ptr<Unit>(
      std::make_unique<TransformedUnit>(std::move(unit), load.unit().name(), std::move(factor),
                                        std::move(offset), std::move(maps), std::move(from)));
}

}  // namespace cosimo::units::host
