#include "units/src/hybrid/hybrid_unit.h"

#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "cosimo/common/status.h"
#include "units/src/fmi/fmu_unit.h"
#include "units/src/fmi/fmu_units.h"
#include "units/src/model_unit.h"
#include "units/src/models/builtin_models.h"
#include "units/src/models/linearizer.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {
namespace {

// The seed of the bottom network: another stream than the top's.
constexpr uint64_t kBottomSeedOffset = 0x5851F42D4C957F2Dull;

// The networks' weights from hybrid.weights, when it names a file.
absl::Status LoadWeights(const v1::HybridModel& hybrid, const std::string& prefix, DenseNet* top,
                         DenseNet* bottom) {
  if (!hybrid.has_weights()) return absl::OkStatus();
  {
    const std::string& path = hybrid.weights().path();
    if (path.empty()) {
      return absl::InvalidArgumentError(prefix + "hybrid.weights.path is empty (not fetched)");
    }
    absl::StatusOr<v1::HybridWeights> weights = ReadWeightsFile(path);
    if (!weights.ok()) return Annotate(weights.status(), prefix + "hybrid.weights");
    if (absl::Status s = top->FromProto(weights->top(), "top"); !s.ok()) {
      return Annotate(s, prefix + "hybrid.weights");
    }
    if (absl::Status s = bottom->FromProto(weights->bottom(), "bottom"); !s.ok()) {
      return Annotate(s, prefix + "hybrid.weights");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HybridUnit>> HybridUnit::Create(const v1::Unit& spec) {
  const std::string prefix = "unit '" + spec.name() + "': ";
  if (!spec.has_hybrid()) return absl::InvalidArgumentError(prefix + "hybrid is required");
  const v1::HybridModel& hybrid = spec.hybrid();
  std::unique_ptr<HybridUnit> unit(new HybridUnit());
  unit->name_ = spec.name();
  unit->jacobian_error_ = std::make_shared<absl::Status>();

  // The wrapped model, as the unit it would be on its own (same name, parameters, solver).
  v1::Unit inner_spec;
  inner_spec.set_name(spec.name());
  *inner_spec.mutable_parameters() = spec.parameters();
  const Model* inner = nullptr;
  std::unique_ptr<Model> owned;
  HybridModel::InnerJacobians jacobians;
  if (hybrid.has_builtin()) {
    *inner_spec.mutable_builtin() = hybrid.builtin();
    COSIMO_ASSIGN_OR_RETURN(owned, CreateBuiltinModel(inner_spec));
    inner = owned.get();
    auto linearizer = std::make_shared<Linearizer>(*inner);
    jacobians = [linearizer](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                             Eigen::MatrixXd* A, Eigen::MatrixXd* B, Eigen::MatrixXd* C,
                             Eigen::MatrixXd* D) {
      linearizer->Jacobians(t, x, u, A, B, C, D);
      return true;
    };
  } else if (hybrid.has_fmu()) {
    if (absl::Status s = unit->WrapFmu(spec, &inner_spec, &inner, &jacobians); !s.ok()) return s;
  } else {
    return absl::InvalidArgumentError(prefix + "hybrid needs the model it wraps (builtin or fmu)");
  }
  const int n = inner->num_states();
  if (n == 0) {
    return absl::InvalidArgumentError(prefix +
                                      "the model a hybrid unit wraps must have continuous states");
  }
  DenseNet top(n, hybrid.top(), hybrid.seed());
  DenseNet bottom(n, hybrid.bottom(), hybrid.seed() + kBottomSeedOffset);
  if (absl::Status s = LoadWeights(hybrid, prefix, &top, &bottom); !s.ok()) return s;
  auto model = std::make_unique<HybridModel>(inner, std::move(owned), std::move(top),
                                             std::move(bottom), std::move(jacobians));
  unit->model_ = model.get();
  model->set_evaluable(unit->inner_ == nullptr);
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver,
                          CreateSolver(spec.solver(), *model, spec.name()));
  unit->unit_ = std::make_unique<ModelUnit>(spec.name(), std::move(model), std::move(solver));
  return unit;
}

// The wrapped Model Exchange FMU: the unit behind (inner_), its equations and their
// Jacobians (directional derivatives or finite differences of the FMU).
absl::Status HybridUnit::WrapFmu(const v1::Unit& spec, v1::Unit* inner_spec, const Model** inner,
                                 HybridModel::InnerJacobians* jacobians) {
  const std::string prefix = "unit '" + spec.name() + "': ";
  const v1::HybridModel& hybrid = spec.hybrid();

  if (hybrid.fmu().path().empty()) {
    return absl::InvalidArgumentError(prefix + "hybrid.fmu.path is empty (not fetched)");
  }
  *inner_spec->mutable_fmu() = hybrid.fmu();
  *inner_spec->mutable_solver() = spec.solver();  // a solver: loaded as Model Exchange
  COSIMO_ASSIGN_OR_RETURN(inner_, CreateFmuUnit(*inner_spec, hybrid.fmu().path()));
  equations_ = dynamic_cast<fmu::ModelExchangeEquations*>(inner_.get());
  if (equations_ == nullptr) {
    return absl::InvalidArgumentError(prefix + "hybrid.fmu must offer Model Exchange");
  }
  if (equations_->has_events()) {
    return absl::InvalidArgumentError(
        prefix +
        "hybrid.fmu has event indicators (state events); a hybrid unit wraps the "
        "continuous equations of a Model Exchange FMU");
  }
  *inner = &equations_->equations();
  fmu::ModelExchangeEquations* equations = equations_;
  std::shared_ptr<absl::Status> error = jacobian_error_;
  *jacobians = [equations, error](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::MatrixXd* A, Eigen::MatrixXd* B, Eigen::MatrixXd* C,
                                  Eigen::MatrixXd* D) {
    Linearization lin;
    if (absl::Status s = equations->JacobiansAt(t, x, u, &lin); !s.ok()) {
      if (error->ok()) *error = s;
      return false;
    }
    *A = std::move(lin.A);
    *B = std::move(lin.B);
    *C = std::move(lin.C);
    *D = std::move(lin.D);
    return true;
  };
  return absl::OkStatus();
}

HybridUnit::~HybridUnit() {
  unit_.reset();  // before the FMU unit whose equations it uses
}

const UnitDescription& HybridUnit::description() const { return unit_->description(); }
double HybridUnit::time() const { return unit_->time(); }

absl::Status HybridUnit::SetRecorded(const std::vector<std::string>& names) {
  return unit_->SetRecorded(names);
}

absl::Status HybridUnit::TakeError() {
  absl::Status s = equations_ != nullptr ? equations_->TakeError() : absl::OkStatus();
  if (s.ok()) s = *jacobian_error_;
  *jacobian_error_ = absl::OkStatus();
  return s;
}

absl::Status HybridUnit::Initialize(double start_time, double stop_time) {
  if (inner_ != nullptr) {
    if (absl::Status s = inner_->Initialize(start_time, stop_time); !s.ok()) return s;
    model_->set_evaluable(true);
  }
  if (absl::Status s = unit_->Initialize(start_time, stop_time); !s.ok()) return s;
  return TakeError();
}

absl::Status HybridUnit::Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) {
  if (absl::Status s = unit_->Evaluate(inputs, reply); !s.ok()) return s;
  return TakeError();
}

void HybridUnit::Step(const StepRequest& request, StepReply* reply) {
  unit_->Step(request, reply);
  if (absl::Status s = TakeError(); !s.ok()) {
    reply->status = StepStatus::kFailed;
    reply->message = std::string(s.message());
  }
}

absl::StatusOr<std::unique_ptr<UnitSnapshot>> HybridUnit::Save() { return unit_->Save(); }

absl::Status HybridUnit::Restore(const UnitSnapshot& snapshot) { return unit_->Restore(snapshot); }

absl::StatusOr<std::string> HybridUnit::Serialize(const UnitSnapshot& snapshot) {
  return unit_->Serialize(snapshot);
}

absl::StatusOr<std::unique_ptr<UnitSnapshot>> HybridUnit::Deserialize(std::string_view bytes) {
  return unit_->Deserialize(bytes);
}

absl::StatusOr<Linearization> HybridUnit::Linearize(const Eigen::VectorXd& inputs) {
  absl::StatusOr<Linearization> lin = unit_->Linearize(inputs);
  if (absl::Status s = TakeError(); !s.ok()) return s;
  return lin;
}

absl::Status HybridUnit::Terminate() {
  absl::Status s = unit_->Terminate();
  if (inner_ != nullptr) {
    absl::Status t = inner_->Terminate();
    if (s.ok()) s = t;
  }
  return s;
}

absl::StatusOr<v1::HybridWeights> ReadWeightsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read weights file '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  v1::HybridWeights weights;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(buffer.str(), &weights, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError("weights file '" + path + "' is not a HybridWeights JSON: " +
                                      std::string(status.message()));
  }
  return weights;
}

std::string WeightsJson(const v1::HybridWeights& weights) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(weights, &json, options);
  return json;
}

absl::Status WriteWeightsFile(const std::string& path, const v1::HybridWeights& weights) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << WeightsJson(weights);
  out.close();
  if (!out) return absl::InternalError("cannot write weights file '" + path + "'");
  return absl::OkStatus();
}

v1::HybridWeights WeightsOf(const HybridModel& model) {
  v1::HybridWeights weights;
  model.top().ToProto(weights.mutable_top());
  model.bottom().ToProto(weights.mutable_bottom());
  return weights;
}

}  // namespace cosimo::units
