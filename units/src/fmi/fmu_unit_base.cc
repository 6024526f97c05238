#include "units/src/fmi/fmu_unit_base.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"

namespace cosimo::units::fmu {
namespace {

Causality ToCausality(const fmi::ModelDescription& md, int index, bool is_state) {
  if (is_state) return Causality::kState;
  switch (md.variables[index].causality) {
    case fmi::FmiCausality::kInput:
      return Causality::kInput;
    case fmi::FmiCausality::kOutput:
      return Causality::kOutput;
    case fmi::FmiCausality::kParameter:
    case fmi::FmiCausality::kCalculatedParameter:
    case fmi::FmiCausality::kStructuralParameter:
      return Causality::kParameter;
    case fmi::FmiCausality::kLocal:
    case fmi::FmiCausality::kIndependent:
      return Causality::kLocal;
  }
  return Causality::kLocal;
}

ValueType ToValueType(fmi::VarType type) {
  switch (type) {
    case fmi::VarType::kFloat64:
    case fmi::VarType::kFloat32:
      return ValueType::kReal;
    case fmi::VarType::kBoolean:
    case fmi::VarType::kClock:  // recorded as 1 at its ticks, 0 elsewhere
      return ValueType::kBoolean;
    case fmi::VarType::kString:
      return ValueType::kString;
    default:
      return ValueType::kInteger;
  }
}

// A numeric or Boolean variable's start value as a double (0 when it has none).
double StartNumber(const fmi::ScalarVariable& v) {
  if (!v.start.has_value()) return 0.0;
  const std::string& text = *v.start;
  if (v.type == fmi::VarType::kBoolean) return text == "true" || text == "1" ? 1.0 : 0.0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end != text.c_str() ? value : 0.0;
}

VariableInfo Info(const fmi::ModelDescription& md, int index, bool is_state) {
  const fmi::ScalarVariable& v = md.variables[index];
  VariableInfo info{v.name, ToCausality(md, index, is_state), v.unit, v.description,
                    ToValueType(v.type)};
  info.aliases = v.aliases;
  return info;
}

}  // namespace

FmuUnitBase::FmuUnitBase(const v1::Unit& spec, fmi::ModelDescription md,
                         std::shared_ptr<FmuInstance> instance, bool model_exchange)
    : spec_(spec),
      md_(std::move(md)),
      instance_(std::move(instance)),
      model_exchange_(model_exchange),
      clocks_(md_) {
  ClassifyVariables();
  SetCapabilities();
}

// Inputs, outputs, states and the others, from the scalars and the elements of FMI 3 arrays in
// declaration order; the value groups read and written through them.
void FmuUnitBase::ClassifyVariables() {
  std::vector<bool> is_state(md_.variables.size(), false);
  for (const fmi::Unknown& d : md_.derivatives) {
    derivative_indices_.push_back(d.index);
    state_indices_.push_back(md_.variables[d.index].derivative_of);
    is_state[md_.variables[d.index].derivative_of] = true;
  }
  std::vector<int> real_outputs;  // the Float64 ones
  for (int i : md_.Scalars()) {
    const fmi::ScalarVariable& v = md_.variables[i];
    if ((v.type == fmi::VarType::kString || v.type == fmi::VarType::kBinary) &&
        v.causality != fmi::FmiCausality::kIndependent) {
      // Recordable (Binary as hexadecimal text), not connectable.
      VariableInfo info = Info(md_, i, false);
      info.type = ValueType::kString;
      description_.others.push_back(std::move(info));
      continue;
    }
    const bool clock = v.type == fmi::VarType::kClock;
    // Output and triggered input clocks are connectable (fmu_unit_inputs.cc), time-based input
    // clocks recordable only.
    if (clock && clocks_.Has(i) && v.causality == fmi::FmiCausality::kInput &&
        v.clock.interval_variability != fmi::IntervalVariability::kTriggered) {
      VariableInfo info = Info(md_, i, false);
      info.causality = Causality::kLocal;  // recordable, not connectable
      description_.others.push_back(std::move(info));
      continue;
    }
    if (clock ? !clocks_.Has(i) : !fmi::IsNumeric(v.type)) continue;
    if (v.causality == fmi::FmiCausality::kInput) {
      input_indices_.push_back(i);
      description_.inputs.push_back(Info(md_, i, false));
      description_.inputs.back().discrete =
          v.variability != fmi::Variability::kContinuous ||
          (v.type != fmi::VarType::kFloat64 && v.type != fmi::VarType::kFloat32);
      description_.inputs.back().clocked = clock || !v.clocks.empty();
    } else if (v.causality == fmi::FmiCausality::kOutput) {
      description_.outputs.push_back(Info(md_, i, false));
      description_.outputs.back().clocked = clock;
      if (clock) clock_outputs_.emplace_back(i, static_cast<int>(output_indices_.size()));
      if (v.type == fmi::VarType::kFloat64) {
        real_outputs.push_back(i);
        real_output_positions_.push_back(static_cast<int>(output_indices_.size()));
      }
      output_indices_.push_back(i);
    } else if (v.causality != fmi::FmiCausality::kIndependent) {
      description_.others.push_back(Info(md_, i, is_state[i]));
    }
  }
  // fmiXGetOutputDerivatives names an FMI 3 array once and returns its every element's.
  real_output_layout_ = LayoutOf(md_, real_outputs);
  output_derivative_values_.assign(real_output_layout_.n_values, 0.0);
  for (size_t o = 0; o < description_.outputs.size(); ++o) {
    if (description_.outputs[o].type == ValueType::kInteger)
      integer_outputs_.push_back(static_cast<int>(o));
  }
  output_bits_.assign(output_indices_.size(), 0);
  all_inputs_ = VariableGroup(md_, input_indices_);
  connected_.assign(input_indices_.size(), true);
  GroupInputs();
  start_inputs_ = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(input_indices_.size()));
  for (size_t k = 0; k < input_indices_.size(); ++k)
    start_inputs_[static_cast<Eigen::Index>(k)] = StartNumber(md_.variables[input_indices_[k]]);
  std::vector<bool> read(output_indices_.size(), true);  // not the clocks
  for (const auto& [index, position] : clock_outputs_) read[static_cast<size_t>(position)] = false;
  outputs_ = VariableGroup(md_, output_indices_).Only(read);
  states_ = VariableGroup(md_, state_indices_);
  derivatives_ = VariableGroup(md_, derivative_indices_);
}

void FmuUnitBase::SetCapabilities() {
  Capabilities& caps = description_.capabilities;
  const fmi::KindInfo& k = kind();
  std::vector<bool> is_input(md_.variables.size(), false);
  for (int i : input_indices_) {
    is_input[i] = true;
    // <ModelStructure> names an FMI 3 array as a whole.
    if (md_.variables[i].array_of >= 0) is_input[md_.variables[i].array_of] = true;
  }
  for (const fmi::Unknown& out : md_.outputs) {
    if (!out.dependencies_given) {
      caps.output_reactive = caps.output_reactive || !input_indices_.empty();
      continue;
    }
    for (int dep : out.dependencies) caps.output_reactive = caps.output_reactive || is_input[dep];
  }
  caps.input_reactive = false;
  if (model_exchange_) {
    caps.can_vary_step = true;
    caps.max_input_order = 3;
    caps.max_output_derivative_order = 0;
    caps.provides_state_derivatives = true;
    caps.provides_jacobians = true;  // directional derivatives or finite differences
  } else {
    caps.can_vary_step = k.can_handle_variable_communication_step_size;
    // FMI 2 only (FMI 3 has no input derivatives); see fmu_cs_unit.cc for the order.
    caps.max_input_order =
        k.can_interpolate_inputs ? std::max(1, k.max_output_derivative_order) : 0;
    caps.max_output_derivative_order = k.max_output_derivative_order > 0 ? 1 : 0;
    caps.provides_state_derivatives = !derivative_indices_.empty();
    caps.provides_jacobians = k.provides_directional_derivative;
  }
}

absl::Status FmuUnitBase::SetRecorded(const std::vector<std::string>& names) {
  std::vector<int> indices;
  std::vector<bool> read;  // per recorded value: read from the FMU (not a clock)
  recorded_clocks_.clear();
  recorded_string_vrs_.clear();
  recorded_string_binary_.clear();
  changing_string_vrs_.clear();
  changing_string_binary_.clear();
  changing_string_positions_.clear();
  strings_read_ = false;
  for (const std::string& name : names) {
    const int index = md_.Find(name);
    if (index < 0) {
      return absl::NotFoundError(
          absl::StrCat(Prefix(), "no variable '", name, "' in model '", md_.model_name, "'"));
    }
    const fmi::ScalarVariable& v = md_.variables[index];
    if (v.is_array) {  // its every element, in row-major order (one column each)
      if (v.first_element < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(Prefix(), "variable '", name,
                         "' is an array that cannot be recorded: ", v.not_expanded));
      }
      for (uint64_t e = 0; e < v.size; ++e)
        indices.push_back(v.first_element + static_cast<int>(e));
      continue;
    }
    if (v.type == fmi::VarType::kString || v.type == fmi::VarType::kBinary) {
      const bool binary = v.type == fmi::VarType::kBinary;
      if (v.variability == fmi::Variability::kDiscrete ||
          v.variability == fmi::Variability::kContinuous) {
        changing_string_vrs_.push_back(v.value_reference);
        changing_string_binary_.push_back(binary);
        changing_string_positions_.push_back(static_cast<int>(recorded_string_vrs_.size()));
      }
      recorded_string_vrs_.push_back(v.value_reference);
      recorded_string_binary_.push_back(binary);
      continue;
    }
    if (v.type == fmi::VarType::kClock && clocks_.Has(index)) {
      recorded_clocks_.emplace_back(index, static_cast<int>(indices.size()));
    } else if (!fmi::IsNumeric(v.type)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(), "variable '", name, "' is a ", fmi::VarTypeName(v.type),
          ": only numeric, Boolean, String and Binary values and input and output Clocks can be "
          "recorded"));
    }
    indices.push_back(index);
  }
  read.assign(indices.size(), true);
  for (const auto& [clock, position] : recorded_clocks_)
    read[static_cast<size_t>(position)] = false;
  recorded_ = VariableGroup(md_, indices).Only(read);
  integer_recorded_.clear();
  for (size_t r = 0; r < indices.size(); ++r) {
    if (ToValueType(md_.variables[indices[r]].type) == ValueType::kInteger)
      integer_recorded_.push_back(static_cast<int>(r));
  }
  recorded_bits_.assign(indices.size(), 0);
  return absl::OkStatus();
}

absl::Status FmuUnitBase::ApplyParameters() {
  // In name order (the message's map has none): an array before its elements ("u" before
  // "u[2]"), so that an element given alone overrides the list.
  const std::map<std::string, google::protobuf::Value> parameters(spec_.parameters().begin(),
                                                                  spec_.parameters().end());
  for (const auto& [name, value] : parameters) {
    const int index = md_.Find(name);
    const std::string where = absl::StrCat(Prefix(), "parameter '", name, "'");
    if (index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": no such variable in model '", md_.model_name, "'"));
    }
    const fmi::ScalarVariable& v = md_.variables[index];
    const bool settable = v.variability != fmi::Variability::kConstant &&
                          v.causality != fmi::FmiCausality::kIndependent &&
                          v.causality != fmi::FmiCausality::kCalculatedParameter &&
                          (v.causality == fmi::FmiCausality::kInput ||
                           v.initial == fmi::Initial::kExact || v.initial == fmi::Initial::kApprox);
    if (!settable) {
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       ": the variable cannot be set before initialisation (it is "
                       "constant, calculated or has no start value)"));
    }
    if (md_.SizesAnArray(index)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": it sizes an array, whose size Cosimo takes from its start value"));
    }
    if (v.is_array) {
      if (absl::Status s = ApplyArrayParameter(index, value, where); !s.ok()) return s;
      continue;
    }
    if (v.type == fmi::VarType::kString) {
      if (value.kind_case() != google::protobuf::Value::kStringValue) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": a string is expected"));
      }
      if (absl::Status s = instance_->SetString(v.value_reference, value.string_value()); !s.ok()) {
        return s;
      }
      continue;
    }
    if (!fmi::IsNumeric(v.type)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", fmi::VarTypeName(v.type), " variables cannot be set"));
    }
    double number = 0.0;
    if (value.kind_case() == google::protobuf::Value::kNumberValue) {
      number = value.number_value();
      if (v.type != fmi::VarType::kFloat64 && v.type != fmi::VarType::kFloat32 &&
          number != std::floor(number)) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": ", fmi::VarTypeName(v.type),
                                                       " expects an integer, got ", number));
      }
    } else if (value.kind_case() == google::protobuf::Value::kBoolValue) {
      number = value.bool_value() ? 1.0 : 0.0;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(where, ": a number or Boolean is expected"));
    }
    if (absl::Status s = instance_->Set(VariableGroup(md_, {index}), &number); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status FmuUnitBase::ApplyArrayParameter(int index, const google::protobuf::Value& value,
                                              const std::string& where) {
  const fmi::ScalarVariable& array = md_.variables[static_cast<size_t>(index)];
  if (array.first_element < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": the array cannot be set: ", array.not_expanded));
  }
  // FMI 3.0.1 section 2.4.7.6: an array's values in row-major order, as its start attribute
  // lists them; the JSON may nest one list per dimension ([[1, 2, 3], [4, 5, 6]]) or be flat.
  std::vector<double> numbers;
  std::string why;
  auto flatten = [&](const auto& self, const google::protobuf::Value& v) -> void {
    if (v.kind_case() == google::protobuf::Value::kListValue) {
      for (const google::protobuf::Value& item : v.list_value().values()) self(self, item);
    } else if (v.kind_case() == google::protobuf::Value::kNumberValue) {
      numbers.push_back(v.number_value());
    } else if (v.kind_case() == google::protobuf::Value::kBoolValue) {
      numbers.push_back(v.bool_value() ? 1.0 : 0.0);
    } else if (why.empty()) {
      why = "the list holds something that is not a number or Boolean";
    }
  };
  if (value.kind_case() != google::protobuf::Value::kListValue) {
    why = "a list is expected";
  } else {
    flatten(flatten, value);
  }
  if (why.empty() && numbers.size() != array.size) {
    why = absl::StrCat("the list has ", numbers.size(), " values");
  }
  const bool integral =
      array.type != fmi::VarType::kFloat64 && array.type != fmi::VarType::kFloat32;
  for (double x : numbers) {
    if (why.empty() && integral && x != std::floor(x)) {
      why = absl::StrCat(fmi::VarTypeName(array.type), " expects integers, got ", x);
    }
  }
  if (!why.empty()) {
    std::string shape;
    for (uint64_t d : array.dimensions) absl::StrAppend(&shape, shape.empty() ? "" : "x", d);
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", why, ": the ", fmi::VarTypeName(array.type), " array '",
                     array.name, "' (", shape, ") takes a list of ", array.size,
                     " numbers in row-major order (nested lists allowed)"));
  }
  std::vector<int> elements(array.size);
  for (size_t e = 0; e < elements.size(); ++e)
    elements[e] = array.first_element + static_cast<int>(e);
  return instance_->Set(VariableGroup(md_, elements), numbers.data());
}

absl::Status FmuUnitBase::ReadOutputs(Eigen::VectorXd* outputs, Eigen::VectorXd* derivatives,
                                      std::vector<double>* recorded,
                                      std::vector<std::string>* recorded_strings,
                                      std::vector<uint64_t>* integers) {
  outputs->resize(static_cast<Eigen::Index>(outputs_.size()));
  if (outputs_.size() > 0) {
    for (int o : integer_outputs_) output_bits_[o] = 0;  // Get sets the 64-bit ones
    if (absl::Status s = instance_->Get(outputs_, outputs->data(),
                                        integers != nullptr ? output_bits_.data() : nullptr);
        !s.ok()) {
      return s;
    }
  }
  for (const auto& [index, position] : clock_outputs_) (*outputs)[position] = clocks_.Ticked(index);
  if (derivatives != nullptr) {
    if (output_derivatives_needed_ && description_.capabilities.max_output_derivative_order > 0) {
      derivatives->setZero(static_cast<Eigen::Index>(outputs_.size()));
      std::vector<double>& values = output_derivative_values_;  // sized at load
      if (!values.empty()) {
        if (absl::Status s = instance_->GetOutputDerivatives(real_output_layout_.vrs, 1,
                                                             values.data(), values.size());
            !s.ok()) {
          return s;
        }
      }
      for (size_t i = 0; i < real_output_positions_.size(); ++i)
        (*derivatives)[real_output_positions_[i]] = values[real_output_layout_.slots[i]];
    } else {
      derivatives->resize(0);
    }
  }
  if (recorded_strings != nullptr) {
    if (absl::Status s = ReadRecordedStrings(recorded_strings); !s.ok()) return s;
  }
  recorded->resize(recorded_.size());
  if (recorded_.size() > 0) {
    for (int r : integer_recorded_) recorded_bits_[r] = 0;
    if (absl::Status s = instance_->Get(recorded_, recorded->data(),
                                        integers != nullptr ? recorded_bits_.data() : nullptr);
        !s.ok()) {
      return s;
    }
    for (const auto& [clock, position] : recorded_clocks_)
      (*recorded)[position] = clocks_.Ticked(clock);
  }
  if (integers != nullptr) {
    // Get wrote the 64-bit ones (0 stays 0); the others are exact as doubles.
    integers->clear();
    for (int o : integer_outputs_) {
      integers->push_back(output_bits_[o] != 0 ? output_bits_[o] : IntegerBits((*outputs)[o]));
    }
    for (int r : integer_recorded_) {
      integers->push_back(recorded_bits_[r] != 0 ? recorded_bits_[r] : IntegerBits((*recorded)[r]));
    }
  }
  return absl::OkStatus();
}

absl::Status FmuUnitBase::EventIteration(double t, double tick_tolerance, EventUpdate* update) {
  if (!clocks_.empty()) {
    if (absl::Status s = clocks_.Activate(instance_.get(), t, tick_tolerance); !s.ok()) return s;
    if (absl::Status s = SetClockedInputs(last_inputs()); !s.ok()) return s;
  }
  constexpr int kMaxEventIterations = 1000;
  int iterations = 0;
  do {
    if (absl::Status s = instance_->UpdateDiscreteStates(update); !s.ok()) return s;
    if (++iterations > kMaxEventIterations) {
      return absl::InternalError(absl::StrCat(Prefix(), "the event iteration at t=", t,
                                              " did not converge in ", kMaxEventIterations,
                                              " iterations"));
    }
  } while (update->discrete_states_need_update && !update->terminate_simulation);
  if (clocks_.empty()) return absl::OkStatus();
  return clocks_.AfterUpdate(instance_.get(), t);
}

absl::Status FmuUnitBase::ReadRecordedStrings(std::vector<std::string>* values) {
  if (!strings_read_) {
    if (absl::Status s =
            ReadTexts(recorded_string_vrs_, recorded_string_binary_, &recorded_string_values_);
        !s.ok()) {
      return s;
    }
    strings_read_ = true;
  } else if (strings_changed_ && !changing_string_vrs_.empty()) {
    if (absl::Status s =
            ReadTexts(changing_string_vrs_, changing_string_binary_, &changing_string_values_);
        !s.ok()) {
      return s;
    }
    for (size_t i = 0; i < changing_string_vrs_.size(); ++i)
      recorded_string_values_[changing_string_positions_[i]].swap(changing_string_values_[i]);
  }
  strings_changed_ = false;
  *values = recorded_string_values_;
  return absl::OkStatus();
}

absl::Status FmuUnitBase::ReadTexts(const std::vector<uint32_t>& vrs,
                                    const std::vector<bool>& binary,
                                    std::vector<std::string>* values) {
  if (std::find(binary.begin(), binary.end(), true) == binary.end()) {
    return instance_->GetStrings(vrs, values);
  }
  std::vector<uint32_t> string_vrs, binary_vrs;
  for (size_t i = 0; i < vrs.size(); ++i) (binary[i] ? binary_vrs : string_vrs).push_back(vrs[i]);
  std::vector<std::string> strings, hex;
  if (absl::Status s = instance_->GetStrings(string_vrs, &strings); !s.ok()) return s;
  if (absl::Status s = instance_->GetBinaries(binary_vrs, &hex); !s.ok()) return s;
  values->resize(vrs.size());
  size_t next_string = 0, next_binary = 0;
  for (size_t i = 0; i < vrs.size(); ++i) {
    (*values)[i] = std::move(binary[i] ? hex[next_binary++] : strings[next_string++]);
  }
  return absl::OkStatus();
}

absl::Status FmuUnitBase::ReadStates(Eigen::VectorXd* x, Eigen::VectorXd* xdot) {
  x->resize(static_cast<Eigen::Index>(states_.size()));
  xdot->resize(static_cast<Eigen::Index>(derivatives_.size()));
  if (states_.size() == 0) return absl::OkStatus();
  if (absl::Status s = instance_->Get(states_, x->data()); !s.ok()) return s;
  return instance_->Get(derivatives_, xdot->data());
}

absl::Status FmuUnitBase::LinearizeDirectional(Linearization* lin) {
  // Unknowns: derivatives then outputs; knowns: states then inputs (Float64 only; the rows and
  // columns of other types stay zero). Elements of FMI 3 arrays: the array's value reference
  // once, its every value seeded or read (FMI 3.0.1 section 3.2.2.7).
  const int n = static_cast<int>(state_indices_.size());
  const int m = static_cast<int>(input_indices_.size());
  const int p = static_cast<int>(output_indices_.size());
  if (!directional_) {
    DirectionalPlan plan;
    plan.unknown_vars = derivative_indices_;
    for (int i = 0; i < n; ++i) plan.unknown_rows.push_back(i);
    for (int i = 0; i < p; ++i) {
      if (md_.variables[output_indices_[i]].type != fmi::VarType::kFloat64) continue;
      plan.unknown_vars.push_back(output_indices_[i]);
      plan.unknown_rows.push_back(n + i);
    }
    std::vector<int> known_vars = state_indices_;
    for (int j = 0; j < n; ++j) plan.known_cols.push_back(j);
    for (int j = 0; j < m; ++j) {
      if (md_.variables[input_indices_[j]].type != fmi::VarType::kFloat64) continue;
      known_vars.push_back(input_indices_[j]);
      plan.known_cols.push_back(n + j);
    }
    plan.unknowns = LayoutOf(md_, plan.unknown_vars);
    size_t seeds = 0;
    for (int k : known_vars) {
      plan.knowns.push_back(LayoutOf(md_, {k}));
      seeds = std::max(seeds, plan.knowns.back().n_values);
    }
    plan.seed.assign(seeds, 0.0);
    plan.sensitivity.assign(plan.unknowns.n_values, 0.0);
    plan.jacobian = Eigen::MatrixXd::Zero(n + p, n + m);
    directional_ = std::move(plan);
  }
  DirectionalPlan& plan = *directional_;
  for (size_t k = 0; k < plan.knowns.size() && !plan.unknown_vars.empty(); ++k) {
    const ValueLayout& known = plan.knowns[k];
    std::fill(plan.seed.begin(), plan.seed.begin() + static_cast<std::ptrdiff_t>(known.n_values),
              0.0);
    plan.seed[known.slots[0]] = 1.0;
    if (absl::Status s = instance_->DirectionalDerivative(
            plan.unknowns.vrs, known.vrs, plan.seed.data(), known.n_values, plan.sensitivity.data(),
            plan.sensitivity.size());
        !s.ok()) {
      return s;
    }
    for (size_t r = 0; r < plan.unknown_vars.size(); ++r) {
      plan.jacobian(plan.unknown_rows[r], plan.known_cols[k]) =
          plan.sensitivity[plan.unknowns.slots[r]];
    }
  }
  lin->A = plan.jacobian.topLeftCorner(n, n);
  lin->B = plan.jacobian.topRightCorner(n, m);
  lin->C = plan.jacobian.bottomLeftCorner(p, n);
  lin->D = plan.jacobian.bottomRightCorner(p, m);
  return absl::OkStatus();
}

absl::Status FmuUnitBase::CheckSerializable() const {
  const bool fmi2 = md_.version == fmi::FmiVersion::kFmi2;
  if (md_.version == fmi::FmiVersion::kFmi1) {
    return absl::FailedPreconditionError(
        Prefix() + "cannot be checkpointed: FMI 1.0 has no FMU state to save");
  }
  if (!kind().can_get_and_set_fmu_state) {
    return absl::FailedPreconditionError(
        absl::StrCat(Prefix(), "cannot be checkpointed: the FMU does not declare ",
                     fmi2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState"));
  }
  if (!kind().can_serialize_fmu_state) {
    return absl::FailedPreconditionError(
        absl::StrCat(Prefix(), "cannot be checkpointed: the FMU does not declare ",
                     fmi2 ? "canSerializeFMUstate" : "canSerializeFMUState"));
  }
  return absl::OkStatus();
}

absl::Status FmuUnitBase::WriteFmuState(void* state, StateWriter* out) {
  if (absl::Status s = CheckSerializable(); !s.ok()) return s;
  std::string bytes;
  if (absl::Status s = instance_->SerializeState(state, &bytes); !s.ok()) return s;
  out->Bytes(bytes);
  return absl::OkStatus();
}

absl::StatusOr<void*> FmuUnitBase::ReadFmuState(StateReader* in) {
  if (absl::Status s = CheckSerializable(); !s.ok()) return s;
  const std::string bytes = in->Bytes();
  if (!in->ok()) return in->Finish(Prefix() + "checkpoint", /*all=*/false);
  void* state = nullptr;
  if (absl::Status s = instance_->DeserializeState(bytes, &state); !s.ok()) {
    instance_->FreeState(&state);
    return s;
  }
  return state;
}

}  // namespace cosimo::units::fmu
