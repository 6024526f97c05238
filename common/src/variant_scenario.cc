// The variants' scenarios and the checks of a sweep against its base scenario (sweep.h).
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep.h"
#include "cosimo/common/sweep_design.h"

namespace cosimo {
namespace {

namespace pb = google::protobuf;

v1::Unit* FindUnit(v1::Scenario* scenario, const std::string& name) {
  for (v1::Unit& unit : *scenario->mutable_units()) {
    if (unit.name() == name) return &unit;
  }
  return nullptr;
}

// An integer field's value: a whole number in [lo, hi].
template <typename T>
absl::StatusOr<T> Whole(double value, const std::string& what) {
  if (value != std::floor(value) || value < static_cast<double>(std::numeric_limits<T>::min()) ||
      value > static_cast<double>(std::numeric_limits<T>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " takes whole numbers in range, not ", FormatDouble(value)));
  }
  return static_cast<T>(value);
}

// A numeric field of the scenario by its path ("algorithm.adaptive.max_step").
absl::Status SetField(pb::Message* message, const std::string& path, double value,
                      const std::string& what) {
  const std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const pb::Descriptor* descriptor = message->GetDescriptor();
    const pb::FieldDescriptor* f = descriptor->FindFieldByName(parts[i]);
    if (f == nullptr || f->is_repeated() || f->is_map()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": neither a unit nor a field of the ",
                                                     "scenario ('", parts[i], "' in ",
                                                     descriptor->name(), ")"));
    }
    const pb::Reflection* r = message->GetReflection();
    if (i + 1 < parts.size()) {
      if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        return absl::InvalidArgumentError(what + ": '" + parts[i] + "' has no fields");
      }
      message = r->MutableMessage(message, f);
      continue;
    }
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_DOUBLE:
        r->SetDouble(message, f, value);
        return absl::OkStatus();
      case pb::FieldDescriptor::CPPTYPE_FLOAT:
        r->SetFloat(message, f, static_cast<float>(value));
        return absl::OkStatus();
      case pb::FieldDescriptor::CPPTYPE_INT32: {
        absl::StatusOr<int32_t> v = Whole<int32_t>(value, what);
        if (v.ok()) r->SetInt32(message, f, *v);
        return v.status();
      }
      case pb::FieldDescriptor::CPPTYPE_INT64: {
        absl::StatusOr<int64_t> v = Whole<int64_t>(value, what);
        if (v.ok()) r->SetInt64(message, f, *v);
        return v.status();
      }
      case pb::FieldDescriptor::CPPTYPE_UINT32: {
        absl::StatusOr<uint32_t> v = Whole<uint32_t>(value, what);
        if (v.ok()) r->SetUInt32(message, f, *v);
        return v.status();
      }
      default:
        return absl::InvalidArgumentError(what + ": not a numeric field");
    }
  }
  return absl::InvalidArgumentError(what + ": empty");
}

// The base gives the parameter a number already: a sweep's number in its place passes the checks
// the base passed (not so in place of a string: issue 41, a String parameter swept with numbers).
bool SetsAlreadyANumber(const v1::Unit& unit, const std::string& parameter) {
  const Parameters parameters(unit);
  const auto it = parameters.values().find(parameter);
  return it != parameters.values().end() &&
         it->second.kind_case() == google::protobuf::Value::kNumberValue;
}

// The variable is recorded by `base` (a name of its record, or an element of an array so named).
bool Recorded(const v1::Scenario& base, const std::string& variable) {
  return std::any_of(base.record().begin(), base.record().end(), [&](const std::string& r) {
    return r == variable || (variable.starts_with(r) && variable[r.size()] == '[');
  });
}

absl::Status CheckKpiVariables(const v1::Sweep& sweep, const v1::Scenario& base,
                               const ScenarioCheck& check) {
  for (int i = 0; i < sweep.kpis_size(); ++i) {
    const std::string field = absl::StrCat("kpis[", i, "].variable");
    const std::string& variable = sweep.kpis(i).variable();
    if (!base.record().empty()) {
      if (Recorded(base, variable)) continue;
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": '", variable, "' is not recorded by the base scenario (record: ",
                       absl::StrJoin(base.record(), ", "), ")"));
    }
    v1::Scenario probe = base;
    probe.add_record(variable);
    if (absl::Status s = check(probe); !s.ok()) {
      return absl::InvalidArgumentError(field + ": '" + variable +
                                        "': " + std::string(s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyParameter(v1::Scenario* scenario, const std::string& name, double value,
                            const std::string& field) {
  const std::string what = field + ": '" + name + "'";
  const size_t dot = name.find('.');
  v1::Unit* unit = dot == std::string::npos ? nullptr : FindUnit(scenario, name.substr(0, dot));
  if (unit == nullptr) return SetField(scenario, name, value, what);
  if (dot + 1 == name.size()) return absl::InvalidArgumentError(what + ": no parameter named");
  SetUnitParameter(unit, name.substr(dot + 1), value);
  return absl::OkStatus();
}

void SetUnitParameter(v1::Unit* unit, const std::string& parameter, double value) {
  pb::Value number;
  number.set_number_value(value);
  if (unit->has_builtin() && unit->builtin().parameters().contains(parameter)) {
    (*unit->mutable_builtin()->mutable_parameters())[parameter] = number;
  } else {
    (*unit->mutable_parameters())[parameter] = number;
  }
}

absl::StatusOr<v1::Scenario> VariantScenario(const v1::Scenario& base, const v1::Sweep& sweep,
                                             const std::vector<double>& values) {
  if (values.size() != static_cast<size_t>(sweep.parameters_size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a variant gives ", values.size(), " values for ", sweep.parameters_size(), " parameters"));
  }
  v1::Scenario scenario = base;
  for (int j = 0; j < sweep.parameters_size(); ++j) {
    if (absl::Status s = ApplyParameter(&scenario, sweep.parameters(j).name(), values[j],
                                        absl::StrCat("parameters[", j, "].name"));
        !s.ok()) {
      return s;
    }
  }
  return scenario;
}

absl::Status CheckSweepAgainstBase(const v1::Sweep& sweep, const v1::Scenario& base,
                                   const ScenarioCheck& check) {
  if (absl::Status s = check(base); !s.ok()) {
    return absl::Status(s.code(), "the base scenario: " + std::string(s.message()));
  }
  for (int j = 0; j < sweep.parameters_size(); ++j) {
    const v1::SweepParameter& p = sweep.parameters(j);
    const std::string field = absl::StrCat("parameters[", j, "].name");
    v1::Scenario probe = base;
    if (absl::Status s = ApplyParameter(&probe, p.name(), FirstValue(p), field); !s.ok()) return s;
    const size_t dot = p.name().find('.');
    const v1::Unit* unit = nullptr;
    for (const v1::Unit& u : base.units()) {
      if (dot != std::string::npos && u.name() == p.name().substr(0, dot)) unit = &u;
    }
    if (unit != nullptr && SetsAlreadyANumber(*unit, p.name().substr(dot + 1))) continue;
    if (absl::Status s = check(probe); !s.ok()) {
      return absl::InvalidArgumentError(field + ": '" + p.name() + "' with " +
                                        FormatDouble(FirstValue(p)) + ": " +
                                        std::string(s.message()));
    }
  }
  return CheckKpiVariables(sweep, base, check);
}

}  // namespace cosimo
