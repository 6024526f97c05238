// The Model Exchange FMU unit with sensitivities (fmu_sensitivity_unit.h).
#include "units/src/fmi/fmu_sensitivity_unit.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "units/src/fmi/fmu_units.h"
#include "units/src/model_unit.h"
#include "units/src/models/sensitivity_model.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units::fmu {
namespace {

// What the EquationsModels of a unit share: whether their FMUs are initialised (before, their
// Jacobians are zero: a Linearizer asks for them when it is made), the first error of their
// Jacobians.
struct Shared {
  bool evaluable = false;
  absl::Status error;
};

// A Model Exchange unit's equations as a Model the SensitivityModel owns (the unit owns them);
// their Jacobians from JacobiansAt. Not thread safe (a scratch Linearization), as the
// SensitivityModel and the FMU are not.
class EquationsModel final : public Model {
 public:
  EquationsModel(ModelExchangeEquations* equations, std::shared_ptr<Shared> shared)
      : equations_(equations), model_(&equations->equations()), shared_(std::move(shared)) {}

  const std::vector<VariableInfo>& inputs() const override { return model_->inputs(); }
  const std::vector<VariableInfo>& outputs() const override { return model_->outputs(); }
  const std::vector<VariableInfo>& states() const override { return model_->states(); }
  Eigen::VectorXd InitialState() const override { return model_->InitialState(); }
  bool direct_feedthrough() const override { return model_->direct_feedthrough(); }
  void Derivatives(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                   Eigen::Ref<Eigen::VectorXd> dxdt) const override {
    model_->Derivatives(t, x, u, dxdt);
  }
  void Outputs(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
               Eigen::Ref<Eigen::VectorXd> y) const override {
    model_->Outputs(t, x, u, y);
  }
  bool Jacobians(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u, Eigen::MatrixXd* A,
                 Eigen::MatrixXd* B, Eigen::MatrixXd* C, Eigen::MatrixXd* D) const override {
    // Before the FMUs are initialised: zero; after an error (kept for the unit): NaN, so that
    // the solver stops. Either way of the right sizes, as the callers multiply by them.
    const double fill = shared_->evaluable ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    Linearization& lin = lin_;  // kept: the same sizes at every call, no allocation
    absl::Status s = shared_->evaluable ? equations_->JacobiansAt(t, x, u, &lin)
                                        : absl::FailedPreconditionError("not initialised");
    if (!s.ok()) {
      if (shared_->evaluable && shared_->error.ok()) shared_->error = s;
      A->setConstant(num_states(), num_states(), fill);
      B->setConstant(num_states(), num_inputs(), fill);
      C->setConstant(num_outputs(), num_states(), fill);
      D->setConstant(num_outputs(), num_inputs(), fill);
      return true;
    }
    *A = lin.A;
    *B = lin.B;
    *C = lin.C;
    *D = lin.D;
    return true;
  }

 private:
  mutable Linearization lin_;
  ModelExchangeEquations* equations_;
  const Model* model_;
  std::shared_ptr<Shared> shared_;
};

// What of the FMU a unit with sensitivities does not handle; OK when nothing.
absl::Status CheckFmu(const v1::Unit& spec, const fmi::ModelDescription& md) {
  const std::string why = "unit '" + spec.name() + "': sensitivities: ";
  if (md.model_exchange.can_be_instantiated_only_once_per_process) {
    return absl::FailedPreconditionError(
        why +
        "the FMU can be instantiated only once per process (canBeInstantiatedOnlyOncePerProcess), "
        "and its sensitivities need one instance per perturbed parameter value");
  }
  if (md.number_of_event_indicators > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        why, "the FMU has ", md.number_of_event_indicators,
        " event indicators (state events); the sensitivities jump at events and Cosimo does not "
        "carry them across"));
  }
  for (const fmi::ScalarVariable& v : md.variables) {
    if (v.type == fmi::VarType::kClock) {
      return absl::FailedPreconditionError(
          why + "the FMU has clocks (first: '" + v.name +
          "'), which tick in events; the sensitivities are not carried across events");
    }
    if (fmi::IsEventInput(v)) {
      return absl::FailedPreconditionError(
          why + "the FMU's input '" + v.name +
          "' is discrete (set only in events); the sensitivities are not carried across events");
    }
  }
  return CheckSensitivitySolver(spec);
}

// The value of the FMU's parameter `key`: the unit's `parameters` entry, else its start value.
// An error when `key` is not a Real parameter of the FMU.
absl::StatusOr<double> ParameterValue(const v1::Unit& spec, const fmi::ModelDescription& md,
                                      const std::string& key) {
  const std::string what = "unit '" + spec.name() + "': sensitivities: parameter '" + key + "'";
  const fmi::ScalarVariable* found = nullptr;
  for (const fmi::ScalarVariable& v : md.variables) {
    if (v.name == key) found = &v;
  }
  if (found == nullptr) {
    return absl::InvalidArgumentError(what + ": the FMU has no variable '" + key + "'");
  }
  if (found->causality != fmi::FmiCausality::kParameter) {
    return absl::InvalidArgumentError(
        what +
        " is not a parameter of the FMU (causality parameter): the sensitivities are to "
        "parameters");
  }
  if (!fmi::IsReal(found->type) || found->is_array) {
    return absl::InvalidArgumentError(what + " is not a Real scalar: it has no derivative");
  }
  if (auto it = spec.parameters().find(key); it != spec.parameters().end()) {
    if (it->second.kind_case() != google::protobuf::Value::kNumberValue) {
      return absl::InvalidArgumentError(what + " is not given a number");
    }
    return it->second.number_value();
  }
  double value = 0.0;
  if (!found->start.has_value() || !absl::SimpleAtod(*found->start, &value)) {
    return absl::InvalidArgumentError(what + " has no start value in the FMU; give it one");
  }
  return value;
}

class FmuSensitivityUnit final : public Unit {
 public:
  ~FmuSensitivityUnit() override { unit_.reset(); }  // before the FMUs whose equations it uses

  // The main unit and the perturbed ones (each parameter of the FMU: P + h, then P - h).
  absl::Status Build(const v1::Unit& spec, const fmi::ModelDescription& md,
                     const MeUnitMaker& make) {
    v1::Unit plain = spec;
    plain.clear_sensitivities();
    COSIMO_RETURN_IF_ERROR(Add(make(plain), spec.name()));
    const std::string own = spec.name() + ".";
    std::vector<std::string> names;
    std::vector<ParameterEffect> effects;
    for (const std::string& p : spec.sensitivities()) {
      names.push_back(p);
      effects.emplace_back();
      if (!p.starts_with(own)) continue;  // another unit's: it comes in through the inputs
      const std::string key = p.substr(own.size());
      COSIMO_ASSIGN_OR_RETURN(const double value, ParameterValue(spec, md, key));
      const double h = SensitivityStep(value);
      for (const double side : {h, -h}) {
        v1::Unit moved = plain;
        (*moved.mutable_parameters())[key].set_number_value(value + side);
        COSIMO_RETURN_IF_ERROR(Add(make(moved), spec.name()));
        (side > 0 ? effects.back().plus : effects.back().minus) =
            std::make_unique<EquationsModel>(equations_.back(), shared_);
      }
      effects.back().plus_step = effects.back().minus_step = h;
    }
    std::unique_ptr<Model> model = MakeSensitivityModel(
        std::make_unique<EquationsModel>(equations_.front(), shared_), names, std::move(effects));
    COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver,
                            CreateSolver(spec.solver(), *model, spec.name()));
    unit_ = std::make_unique<ModelUnit>(spec.name(), std::move(model), std::move(solver));
    return absl::OkStatus();
  }

  const UnitDescription& description() const override { return unit_->description(); }
  double time() const override { return unit_->time(); }
  absl::Status SetRecorded(const std::vector<std::string>& names) override {
    return unit_->SetRecorded(names);
  }
  void SetNonFiniteAllowed(bool allowed) override {
    for (const std::unique_ptr<Unit>& fmu : fmus_) fmu->SetNonFiniteAllowed(allowed);
  }
  absl::Status SetConnectedInputs(const std::vector<bool>& connected) override {
    const std::vector<bool> own(connected.begin(),
                                connected.begin() + std::min(connected.size(), FmuInputs()));
    for (const std::unique_ptr<Unit>& fmu : fmus_)
      COSIMO_RETURN_IF_ERROR(fmu->SetConnectedInputs(own));
    return unit_->SetConnectedInputs(connected);
  }
  std::optional<Eigen::VectorXd> StartInputs() const override {
    std::optional<Eigen::VectorXd> own = fmus_.front()->StartInputs();
    if (!own.has_value()) return std::nullopt;
    Eigen::VectorXd all = Eigen::VectorXd::Zero(unit_->model().num_inputs());
    all.head(own->size()) = *own;
    return all;
  }

  absl::Status Initialize(double start_time, double stop_time) override {
    for (const std::unique_ptr<Unit>& fmu : fmus_) {
      COSIMO_RETURN_IF_ERROR(fmu->Initialize(start_time, stop_time));
    }
    shared_->evaluable = true;
    COSIMO_RETURN_IF_ERROR(unit_->Initialize(start_time, stop_time));
    return TakeErrors();
  }
  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override {
    COSIMO_RETURN_IF_ERROR(unit_->Evaluate(inputs, reply));
    return TakeErrors();
  }
  void Step(const StepRequest& request, StepReply* reply) override {
    unit_->Step(request, reply);
    absl::Status s = TakeErrors();
    if (s.ok() && reply->status == StepStatus::kOk) s = AcceptPoint(request);
    if (!s.ok()) {
      reply->status = StepStatus::kFailed;
      reply->message = std::string(s.message());
    }
  }
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override { return unit_->Save(); }
  absl::Status Restore(const UnitSnapshot& snapshot) override { return unit_->Restore(snapshot); }
  absl::StatusOr<std::string> Serialize(const UnitSnapshot& snapshot) override {
    return unit_->Serialize(snapshot);
  }
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(std::string_view bytes) override {
    return unit_->Deserialize(bytes);
  }
  absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override {
    absl::StatusOr<Linearization> lin = unit_->Linearize(inputs);
    COSIMO_RETURN_IF_ERROR(TakeErrors());
    return lin;
  }
  absl::Status Terminate() override {
    absl::Status s = unit_->Terminate();
    for (const std::unique_ptr<Unit>& fmu : fmus_) {
      absl::Status t = fmu->Terminate();
      if (s.ok()) s = t;
    }
    return s;
  }

 private:
  absl::Status Add(absl::StatusOr<std::unique_ptr<Unit>> made, const std::string& name) {
    if (!made.ok()) return made.status();
    auto* equations = dynamic_cast<ModelExchangeEquations*>(made->get());
    if (equations == nullptr) {
      return absl::InvalidArgumentError("unit '" + name +
                                        "': sensitivities: the FMU is not run as Model Exchange");
    }
    fmus_.push_back(*std::move(made));
    equations_.push_back(equations);
    return absl::OkStatus();
  }

  size_t FmuInputs() const { return equations_.front()->equations().inputs().size(); }

  // The first error of the FMUs (or their Jacobians) since the last call.
  absl::Status TakeErrors() {
    absl::Status s = shared_->error;
    shared_->error = absl::OkStatus();
    for (ModelExchangeEquations* e : equations_) {
      absl::Status t = e->TakeError();
      if (s.ok()) s = t;
    }
    return s;
  }

  // Every FMU at the step's end point: no event there (ModelExchangeEquations::AcceptPoint).
  absl::Status AcceptPoint(const StepRequest& request) {
    const double t = unit_->time();
    const Eigen::Index n = equations_.front()->equations().num_states();
    const Eigen::VectorXd x = unit_->state().head(n);
    Eigen::VectorXd all = Eigen::VectorXd::Zero(unit_->model().num_inputs());
    if (request.inputs.order() > 0 && request.inputs.coefficients.rows() == all.size()) {
      request.inputs.Value(t - request.time, all);
    }
    const Eigen::VectorXd u = all.head(static_cast<Eigen::Index>(FmuInputs()));
    for (ModelExchangeEquations* e : equations_) COSIMO_RETURN_IF_ERROR(e->AcceptPoint(t, x, u));
    return absl::OkStatus();
  }

  std::vector<std::unique_ptr<Unit>> fmus_;  // the main one first; declared before unit_
  std::vector<ModelExchangeEquations*> equations_;
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::unique_ptr<ModelUnit> unit_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> CreateSensitivityUnit(const v1::Unit& spec,
                                                            const fmi::ModelDescription& md,
                                                            const MeUnitMaker& make) {
  COSIMO_RETURN_IF_ERROR(CheckFmu(spec, md));
  auto unit = std::make_unique<FmuSensitivityUnit>();
  COSIMO_RETURN_IF_ERROR(unit->Build(spec, md, make));
  return std::unique_ptr<Unit>(std::move(unit));
}

}  // namespace cosimo::units::fmu
