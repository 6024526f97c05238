#include "fmi/src/model_description_attributes.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cosimo::fmi {

absl::StatusOr<FmiCausality> ParseCausality(const std::string& text) {
  if (text.empty() || text == "local") return FmiCausality::kLocal;
  if (text == "parameter") return FmiCausality::kParameter;
  if (text == "calculatedParameter") return FmiCausality::kCalculatedParameter;
  if (text == "structuralParameter") return FmiCausality::kStructuralParameter;
  if (text == "input") return FmiCausality::kInput;
  if (text == "output") return FmiCausality::kOutput;
  if (text == "independent") return FmiCausality::kIndependent;
  return absl::InvalidArgumentError("unknown causality '" + text + "'");
}

absl::StatusOr<Variability> ParseVariability(const std::string& text, VarType type) {
  if (text.empty()) {
    return IsReal(type) ? Variability::kContinuous : Variability::kDiscrete;
  }
  if (text == "constant") return Variability::kConstant;
  if (text == "fixed") return Variability::kFixed;
  if (text == "tunable") return Variability::kTunable;
  if (text == "discrete") return Variability::kDiscrete;
  if (text == "continuous") return Variability::kContinuous;
  return absl::InvalidArgumentError("unknown variability '" + text + "'");
}

absl::StatusOr<Initial> ParseInitial(const std::string& text, const ScalarVariable& v) {
  if (text == "exact") return Initial::kExact;
  if (text == "approx") return Initial::kApprox;
  if (text == "calculated") return Initial::kCalculated;
  if (!text.empty()) return absl::InvalidArgumentError("unknown initial '" + text + "'");
  // Defaults (FMI 2.0 table in 2.2.7, FMI 3.0 table in 2.4.7.5).
  switch (v.causality) {
    case FmiCausality::kParameter:
    case FmiCausality::kStructuralParameter:
      return Initial::kExact;
    case FmiCausality::kCalculatedParameter:
      return Initial::kCalculated;
    case FmiCausality::kInput:
    case FmiCausality::kIndependent:
      return Initial::kNone;
    case FmiCausality::kOutput:
    case FmiCausality::kLocal:
      if (v.variability == Variability::kConstant) return Initial::kExact;
      return v.start ? Initial::kApprox : Initial::kCalculated;
  }
  return Initial::kNone;
}

// "1 4 7" -> integers.
absl::StatusOr<std::vector<int64_t>> ParseList(const char* text) {
  std::vector<int64_t> out;
  for (absl::string_view part : absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(part, &value)) {
      return absl::InvalidArgumentError(absl::StrCat("'", part, "' is not an integer"));
    }
    out.push_back(value);
  }
  return out;
}

// Letters, digits, '_', '-' and '.', not starting with '.': no folder separator, no "..".
bool IsPlainFileName(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.size() > 255) return false;
  for (const char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

void ReadKind(const pugi::xml_node& node, FmiVersion version, KindInfo* kind) {
  if (!node) return;
  kind->offered = true;
  kind->model_identifier = node.attribute("modelIdentifier").as_string();
  const bool fmi2 = version == FmiVersion::kFmi2;
  kind->can_get_and_set_fmu_state =
      node.attribute(fmi2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState").as_bool(false);
  kind->can_serialize_fmu_state =
      node.attribute(fmi2 ? "canSerializeFMUstate" : "canSerializeFMUState").as_bool(false);
  kind->provides_directional_derivative =
      node.attribute(fmi2 ? "providesDirectionalDerivative" : "providesDirectionalDerivatives")
          .as_bool(false);
  kind->can_be_instantiated_only_once_per_process =
      node.attribute("canBeInstantiatedOnlyOncePerProcess").as_bool(false);
  kind->can_handle_variable_communication_step_size =
      node.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
  kind->can_interpolate_inputs = fmi2 && node.attribute("canInterpolateInputs").as_bool(false);
  kind->max_output_derivative_order = node.attribute("maxOutputDerivativeOrder").as_int(0);
  kind->has_event_mode = !fmi2 && node.attribute("hasEventMode").as_bool(false);
  kind->needs_completed_integrator_step =
      fmi2 ? !node.attribute("completedIntegratorStepNotNeeded").as_bool(false)
           : node.attribute("needsCompletedIntegratorStep").as_bool(false);
}

}  // namespace cosimo::fmi
