#include "fmi/src/model_description_clocks.h"

#include <cmath>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace cosimo::fmi {
namespace {

struct VariabilityName {
  const char* name;
  IntervalVariability value;
};
constexpr VariabilityName kIntervalVariabilities[] = {
    {"constant", IntervalVariability::kConstant},
    {"fixed", IntervalVariability::kFixed},
    {"calculated", IntervalVariability::kCalculated},
    {"tunable", IntervalVariability::kTunable},
    {"changing", IntervalVariability::kChanging},
    {"countdown", IntervalVariability::kCountdown},
    {"triggered", IntervalVariability::kTriggered}};

// An optional attribute read as a number of type T; an attribute that is not one is an error.
template <typename T>
absl::Status Number(const pugi::xml_node& node, const char* name, std::optional<T>* out) {
  const pugi::xml_attribute a = node.attribute(name);
  if (!a) return absl::OkStatus();
  T value{};
  const std::string text = a.as_string();
  bool ok = false;
  if constexpr (std::is_floating_point_v<T>) {
    ok = absl::SimpleAtod(text, &value) && std::isfinite(value);
  } else {
    ok = absl::SimpleAtoi(text, &value);
  }
  if (!ok) return absl::InvalidArgumentError(absl::StrCat(name, "=\"", text, "\" is not a number"));
  *out = value;
  return absl::OkStatus();
}

// What is wrong with the Clock `v` (its own declaration), or "".
std::string ClockProblem(const ScalarVariable& v, bool scheduled_execution) {
  const ClockAttributes& c = v.clock;
  const IntervalVariability iv = c.interval_variability;
  if (v.causality != FmiCausality::kInput && v.causality != FmiCausality::kOutput &&
      v.causality != FmiCausality::kLocal) {
    return "a Clock's causality is input, output or local";
  }
  if (v.causality == FmiCausality::kOutput && iv != IntervalVariability::kTriggered) {
    return absl::StrCat(
        "an output Clock is a triggered clock (intervalVariability=\"triggered\"), "
        "not \"",
        IntervalVariabilityName(iv), "\"");
  }
  const bool interval_given = c.interval_decimal.has_value() || c.interval_counter.has_value();
  if (iv == IntervalVariability::kTriggered &&
      (interval_given || c.shift_decimal != 0.0 || c.shift_counter != 0)) {
    return "a triggered Clock has no interval or shift";
  }
  if (iv == IntervalVariability::kConstant && !interval_given) {
    return "a constant Clock gives its interval (intervalDecimal, or intervalCounter with "
           "resolution)";
  }
  if (c.interval_decimal && !(*c.interval_decimal > 0.0)) {
    return absl::StrCat("intervalDecimal ", *c.interval_decimal, " is not positive");
  }
  if (c.shift_decimal < 0.0) return absl::StrCat("shiftDecimal ", c.shift_decimal, " is negative");
  if ((c.interval_counter || c.shift_counter != 0) && !c.resolution) {
    return "intervalCounter and shiftCounter need a resolution";
  }
  if (c.resolution && *c.resolution == 0) return "resolution 0";
  if (c.interval_counter && *c.interval_counter == 0) return "intervalCounter 0";
  if (scheduled_execution && v.causality == FmiCausality::kInput && !c.priority) {
    return "an input Clock of a Scheduled Execution FMU needs a priority";
  }
  return "";
}

}  // namespace

const char* IntervalVariabilityName(IntervalVariability v) {
  for (const VariabilityName& n : kIntervalVariabilities) {
    if (n.value == v) return n.name;
  }
  return "none";
}

double ClockAttributes::Interval() const {
  if (interval_decimal) return *interval_decimal;
  if (interval_counter && resolution && *resolution > 0) {
    return static_cast<double>(*interval_counter) / static_cast<double>(*resolution);
  }
  return 0.0;
}

double ClockAttributes::Shift() const {
  if (shift_counter != 0 && resolution && *resolution > 0) {
    return static_cast<double>(shift_counter) / static_cast<double>(*resolution);
  }
  return shift_decimal;
}

absl::Status ReadClockAttributes(const pugi::xml_node& node, ScalarVariable* v) {
  ClockAttributes& c = v->clock;
  const std::string variability = node.attribute("intervalVariability").as_string();
  c.interval_variability = IntervalVariability::kNone;
  for (const VariabilityName& n : kIntervalVariabilities) {
    if (variability == n.name) c.interval_variability = n.value;
  }
  if (c.interval_variability == IntervalVariability::kNone) {
    return absl::InvalidArgumentError(
        variability.empty()
            ? std::string("a Clock needs an intervalVariability")
            : absl::StrCat("unknown intervalVariability '", variability,
                           "' (constant, fixed, calculated, tunable, changing, countdown or "
                           "triggered)"));
  }
  c.can_be_deactivated = node.attribute("canBeDeactivated").as_bool(false);
  c.supports_fraction = node.attribute("supportsFraction").as_bool(false);
  std::optional<double> shift;
  std::optional<uint64_t> shift_counter;
  for (absl::Status s :
       {Number(node, "priority", &c.priority), Number(node, "intervalDecimal", &c.interval_decimal),
        Number(node, "shiftDecimal", &shift), Number(node, "resolution", &c.resolution),
        Number(node, "intervalCounter", &c.interval_counter),
        Number(node, "shiftCounter", &shift_counter)}) {
    if (!s.ok()) return s;
  }
  c.shift_decimal = shift.value_or(0.0);
  c.shift_counter = shift_counter.value_or(0);
  return absl::OkStatus();
}

absl::Status ResolveClocks(const std::string& source,
                           const std::vector<std::vector<int64_t>>& raw_clocks,
                           const std::unordered_map<int64_t, int>& by_vr, ModelDescription* md) {
  const bool se = md->scheduled_execution.offered;
  for (size_t i = 0; i < md->variables.size() && i < raw_clocks.size(); ++i) {
    ScalarVariable& v = md->variables[i];
    auto bad = [&](const std::string& what) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": variable '", v.name, "': ", what));
    };
    if (v.type == VarType::kClock) {
      if (std::string why = ClockProblem(v, se); !why.empty()) return bad(why);
    }
    for (int64_t vr : raw_clocks[i]) {
      auto it = by_vr.find(vr);
      if (it == by_vr.end()) {
        return bad(absl::StrCat("clocks names value reference ", vr, ", which no variable has"));
      }
      const ScalarVariable& clock = md->variables[static_cast<size_t>(it->second)];
      if (clock.type != VarType::kClock) {
        return bad(absl::StrCat("clocks names value reference ", vr, ", the ",
                                VarTypeName(clock.type), " '", clock.name, "', not a Clock"));
      }
      v.clocks.push_back(it->second);
    }
    if (!v.clocks.empty() && v.type != VarType::kClock &&
        v.variability == Variability::kContinuous) {
      return bad(
          "a clocked variable is discrete (it changes only at its clocks' ticks), not "
          "continuous");
    }
  }
  return absl::OkStatus();
}

}  // namespace cosimo::fmi
