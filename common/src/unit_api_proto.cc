#include "cosimo/common/unit_api_proto.h"

namespace cosimo {
namespace {

v1::Variable::Causality ToProto(Causality c) {
  switch (c) {
    case Causality::kInput:
      return v1::Variable::INPUT;
    case Causality::kOutput:
      return v1::Variable::OUTPUT;
    case Causality::kState:
      return v1::Variable::STATE;
    case Causality::kParameter:
      return v1::Variable::PARAMETER;
    case Causality::kLocal:
      return v1::Variable::LOCAL;
  }
  return v1::Variable::LOCAL;
}

Causality FromProto(v1::Variable::Causality c) {
  switch (c) {
    case v1::Variable::INPUT:
      return Causality::kInput;
    case v1::Variable::OUTPUT:
      return Causality::kOutput;
    case v1::Variable::STATE:
      return Causality::kState;
    case v1::Variable::PARAMETER:
      return Causality::kParameter;
    default:
      return Causality::kLocal;
  }
}

void AddVariables(const std::vector<VariableInfo>& variables, v1::UnitLoaded* out) {
  for (const VariableInfo& v : variables) {
    v1::Variable* p = out->add_variables();
    p->set_name(v.name);
    p->set_causality(ToProto(v.causality));
    p->set_unit(v.unit);
    p->set_description(v.description);
    p->set_type(ToProto(v.type));
    p->set_discrete(v.discrete);
    p->set_clocked(v.clocked);
    for (const std::string& alias : v.aliases) p->add_aliases(alias);
  }
}

template <typename Field>
void CopyToStrings(const Field& field, std::vector<std::string>* out) {
  out->resize(static_cast<size_t>(field.size()));
  for (int i = 0; i < field.size(); ++i) (*out)[static_cast<size_t>(i)] = field.Get(i);
}

template <typename Field>
void CopyFromStrings(const std::vector<std::string>& v, Field* field) {
  // Reuses the field's strings (the hot path has none, or the same few every step).
  while (field->size() > static_cast<int>(v.size())) field->RemoveLast();
  for (size_t i = 0; i < v.size(); ++i) {
    if (static_cast<int>(i) < field->size()) {
      *field->Mutable(static_cast<int>(i)) = v[i];
    } else {
      field->Add()->assign(v[i]);
    }
  }
}

template <typename Field>
void CopyToVector(const Field& field, Eigen::VectorXd* out) {
  out->resize(field.size());
  for (int i = 0; i < field.size(); ++i) (*out)[i] = field.Get(i);
}

template <typename Field>
void CopyFromVector(const Eigen::VectorXd& v, Field* field) {
  field->Clear();
  field->Reserve(static_cast<int>(v.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) field->AddAlreadyReserved(v[i]);
}

template <typename Field>
void CopyFromStd(const std::vector<double>& v, Field* field) {
  field->Clear();
  field->Reserve(static_cast<int>(v.size()));
  for (double x : v) field->AddAlreadyReserved(x);
}

}  // namespace

v1::ValueType ToProto(ValueType type) {
  switch (type) {
    case ValueType::kReal:
      return v1::REAL;
    case ValueType::kInteger:
      return v1::INTEGER;
    case ValueType::kBoolean:
      return v1::BOOLEAN;
    case ValueType::kString:
      return v1::STRING;
  }
  return v1::REAL;
}

ValueType FromProto(v1::ValueType type) {
  switch (type) {
    case v1::INTEGER:
      return ValueType::kInteger;
    case v1::BOOLEAN:
      return ValueType::kBoolean;
    case v1::STRING:
      return ValueType::kString;
    default:
      return ValueType::kReal;
  }
}

void ToProto(const UnitDescription& d, v1::UnitLoaded* out) {
  // Inputs first, then outputs, then the others: the order FromProto restores.
  AddVariables(d.inputs, out);
  AddVariables(d.outputs, out);
  AddVariables(d.others, out);
  out->mutable_event_times()->Assign(d.event_times.begin(), d.event_times.end());
  out->mutable_sample_times()->Assign(d.sample_times.begin(), d.sample_times.end());
  v1::Capabilities* c = out->mutable_capabilities();
  c->set_can_rollback(d.capabilities.can_rollback);
  c->set_provides_jacobians(d.capabilities.provides_jacobians);
  c->set_provides_state_derivatives(d.capabilities.provides_state_derivatives);
  c->set_can_vary_step(d.capabilities.can_vary_step);
  c->set_input_reactive(d.capabilities.input_reactive);
  c->set_output_reactive(d.capabilities.output_reactive);
  c->set_max_output_derivative_order(d.capabilities.max_output_derivative_order);
  c->set_max_input_order(d.capabilities.max_input_order);
}

UnitDescription FromProto(const v1::UnitLoaded& loaded) {
  UnitDescription d;
  for (const v1::Variable& p : loaded.variables()) {
    VariableInfo v{p.name(),        FromProto(p.causality()), p.unit(),
                   p.description(), FromProto(p.type()),      p.discrete()};
    v.aliases.assign(p.aliases().begin(), p.aliases().end());
    v.clocked = p.clocked();
    if (v.type == ValueType::kString) {
      d.others.push_back(std::move(v));
    } else if (v.causality == Causality::kInput) {
      d.inputs.push_back(std::move(v));
    } else if (v.causality == Causality::kOutput) {
      d.outputs.push_back(std::move(v));
    } else {
      d.others.push_back(std::move(v));
    }
  }
  const v1::Capabilities& c = loaded.capabilities();
  d.capabilities.can_rollback = c.can_rollback();
  d.capabilities.provides_jacobians = c.provides_jacobians();
  d.capabilities.provides_state_derivatives = c.provides_state_derivatives();
  d.capabilities.can_vary_step = c.can_vary_step();
  d.capabilities.input_reactive = c.input_reactive();
  d.capabilities.output_reactive = c.output_reactive();
  d.capabilities.max_output_derivative_order = c.max_output_derivative_order();
  d.capabilities.max_input_order = c.max_input_order();
  d.event_times.assign(loaded.event_times().begin(), loaded.event_times().end());
  d.sample_times.assign(loaded.sample_times().begin(), loaded.sample_times().end());
  return d;
}

void ToProto(const StepRequest& r, v1::Step* out) {
  out->set_time(r.time);
  out->set_step(r.step);
  out->set_mode(r.mode == StepMode::kTentative ? v1::Step::TENTATIVE : v1::Step::FINAL);
  const Eigen::MatrixXd& c = r.inputs.coefficients;
  out->set_order(static_cast<int>(c.cols()));
  auto* field = out->mutable_coefficients();
  field->Clear();
  field->Reserve(static_cast<int>(c.size()));
  for (Eigen::Index i = 0; i < c.rows(); ++i) {
    for (Eigen::Index k = 0; k < c.cols(); ++k) field->AddAlreadyReserved(c(i, k));
  }
  out->set_sensitivities(r.sensitivities);
  out->set_commit_previous(r.commit_previous);
}

void FromProto(const v1::Step& step, StepRequest* out) {
  out->time = step.time();
  out->step = step.step();
  out->mode = step.mode() == v1::Step::TENTATIVE ? StepMode::kTentative : StepMode::kFinal;
  const int order = std::max(1, step.order());
  const int rows = step.coefficients_size() / order;
  Eigen::MatrixXd& c = out->inputs.coefficients;
  if (c.rows() != rows || c.cols() != order) c.resize(rows, order);
  for (int i = 0; i < rows; ++i) {
    for (int k = 0; k < order; ++k) c(i, k) = step.coefficients(i * order + k);
  }
  out->sensitivities = step.sensitivities();
  out->commit_previous = step.commit_previous();
}

void ToProto(const StepReply& r, v1::StepDone* out) {
  v1::StepDone::Status s = v1::StepDone::OK;
  switch (r.status) {
    case StepStatus::kOk:
      s = v1::StepDone::OK;
      break;
    case StepStatus::kRejected:
      s = v1::StepDone::REJECTED;
      break;
    case StepStatus::kDiverged:
      s = v1::StepDone::DIVERGED;
      break;
    case StepStatus::kFailed:
      s = v1::StepDone::FAILED;
      break;
    case StepStatus::kEnded:
      s = v1::StepDone::ENDED;
      break;
  }
  out->set_status(s);
  if (r.message.empty()) {
    out->clear_error();
  } else {
    out->mutable_error()->set_message(r.message);
  }
  out->set_end_time(r.end_time);
  CopyFromVector(r.outputs, out->mutable_values());
  CopyFromVector(r.derivatives, out->mutable_derivatives());
  CopyFromStd(r.recorded, out->mutable_recorded());
  CopyFromStrings(r.recorded_strings, out->mutable_recorded_strings());
  out->mutable_integers()->Assign(r.integers.begin(), r.integers.end());
  out->set_estimated(r.estimated);
  const Eigen::MatrixXd& sy = r.output_sensitivity;
  const Eigen::MatrixXd& sd = r.derivative_sensitivity;
  auto* fy = out->mutable_output_sensitivity();
  auto* fd = out->mutable_derivative_sensitivity();
  fy->Clear();
  fd->Clear();
  if (sy.size() > 0 && sy.rows() == sd.rows() && sy.cols() == sd.cols()) {
    out->set_sensitivity_columns(static_cast<int>(sy.cols()));
    fy->Reserve(static_cast<int>(sy.size()));
    fd->Reserve(static_cast<int>(sd.size()));
    for (Eigen::Index o = 0; o < sy.rows(); ++o) {
      for (Eigen::Index c = 0; c < sy.cols(); ++c) {
        fy->AddAlreadyReserved(sy(o, c));
        fd->AddAlreadyReserved(sd(o, c));
      }
    }
  } else {
    out->set_sensitivity_columns(0);
  }
}

void FromProto(const v1::StepDone& d, StepReply* out) {
  switch (d.status()) {
    case v1::StepDone::REJECTED:
      out->status = StepStatus::kRejected;
      break;
    case v1::StepDone::DIVERGED:
      out->status = StepStatus::kDiverged;
      break;
    case v1::StepDone::FAILED:
      out->status = StepStatus::kFailed;
      break;
    case v1::StepDone::ENDED:
      out->status = StepStatus::kEnded;
      break;
    default:
      out->status = StepStatus::kOk;
      break;
  }
  out->message = d.has_error() ? d.error().message() : std::string();
  out->end_time = d.end_time();
  CopyToVector(d.values(), &out->outputs);
  CopyToVector(d.derivatives(), &out->derivatives);
  out->recorded.assign(d.recorded().begin(), d.recorded().end());
  CopyToStrings(d.recorded_strings(), &out->recorded_strings);
  out->integers.assign(d.integers().begin(), d.integers().end());
  out->estimated = d.estimated();
  const int columns = d.sensitivity_columns();
  const int rows = columns > 0 ? d.output_sensitivity_size() / columns : 0;
  if (rows == 0 || d.derivative_sensitivity_size() != rows * columns) {
    out->output_sensitivity.resize(0, 0);
    out->derivative_sensitivity.resize(0, 0);
  } else {
    out->output_sensitivity.resize(rows, columns);
    out->derivative_sensitivity.resize(rows, columns);
    for (int o = 0; o < rows; ++o) {
      for (int c = 0; c < columns; ++c) {
        out->output_sensitivity(o, c) = d.output_sensitivity(o * columns + c);
        out->derivative_sensitivity(o, c) = d.derivative_sensitivity(o * columns + c);
      }
    }
  }
}

void ToProto(const OutputsReply& r, v1::Outputs* out) {
  CopyFromVector(r.outputs, out->mutable_values());
  CopyFromVector(r.derivatives, out->mutable_derivatives());
  CopyFromStd(r.recorded, out->mutable_recorded());
  CopyFromStrings(r.recorded_strings, out->mutable_recorded_strings());
  out->mutable_integers()->Assign(r.integers.begin(), r.integers.end());
}

void FromProto(const v1::Outputs& o, OutputsReply* out) {
  CopyToVector(o.values(), &out->outputs);
  CopyToVector(o.derivatives(), &out->derivatives);
  out->recorded.assign(o.recorded().begin(), o.recorded().end());
  CopyToStrings(o.recorded_strings(), &out->recorded_strings);
  out->integers.assign(o.integers().begin(), o.integers().end());
}

void ToProto(const absl::Status& status, v1::CommandError* out) {
  out->set_code(static_cast<int>(status.code()));
  out->set_message(std::string(status.message()));
}

absl::Status FromProto(const v1::CommandError& error) {
  if (error.code() == 0 && error.message().empty()) return absl::OkStatus();
  const int code = error.code() == 0 ? static_cast<int>(absl::StatusCode::kUnknown) : error.code();
  return absl::Status(static_cast<absl::StatusCode>(code), error.message());
}

v1::UnitMode ToProto(IterativeMode mode) {
  return mode == IterativeMode::kRollback ? v1::UNIT_MODE_ROLLBACK : v1::UNIT_MODE_ESTIMATE;
}

absl::StatusOr<IterativeMode> IterativeModeFromProto(v1::UnitMode mode) {
  switch (mode) {
    case v1::UNIT_MODE_ROLLBACK:
      return IterativeMode::kRollback;
    case v1::UNIT_MODE_ESTIMATE:
      return IterativeMode::kEstimate;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "UnitLoaded.iterative_mode must be ROLLBACK or ESTIMATE, got ", v1::UnitMode_Name(mode)));
  }
}

void ToProto(const UnitReport& report, v1::Ack* out) {
  switch (report.mode) {
    case UnitMode::kDirect:
      out->set_mode(v1::UNIT_MODE_DIRECT);
      break;
    case UnitMode::kRollback:
      out->set_mode(v1::UNIT_MODE_ROLLBACK);
      break;
    case UnitMode::kEstimate:
      out->set_mode(v1::UNIT_MODE_ESTIMATE);
      break;
    case UnitMode::kEstimateDegraded:
      out->set_mode(v1::UNIT_MODE_ESTIMATE_DEGRADED);
      break;
  }
  out->set_real_integrations(report.real_integrations);
  out->set_estimates(report.estimates);
}

UnitReport ReportFromProto(const v1::Ack& ack) {
  UnitReport report;
  switch (ack.mode()) {
    case v1::UNIT_MODE_ROLLBACK:
      report.mode = UnitMode::kRollback;
      break;
    case v1::UNIT_MODE_ESTIMATE:
      report.mode = UnitMode::kEstimate;
      break;
    case v1::UNIT_MODE_ESTIMATE_DEGRADED:
      report.mode = UnitMode::kEstimateDegraded;
      break;
    default:
      report.mode = UnitMode::kDirect;
      break;
  }
  report.real_integrations = ack.real_integrations();
  report.estimates = ack.estimates();
  return report;
}

}  // namespace cosimo
