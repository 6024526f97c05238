#include "master/src/recorder.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace cosimo::master {

Recorder::Recorder(const MasterConfig& config, ResultTable* table)
    : plan_(config.plan), table_(table) {
  table_->columns.push_back("time");
  table_->types.push_back(ValueType::kReal);
  for (const RecordColumn& c : plan_.columns) {
    if (c.unit < 0) continue;
    table_->columns.push_back(c.name);
    table_->types.push_back(c.type);
  }
  table_->values.reserve(ExpectedRows(config.algorithm) * table_->columns.size());
}

void Recorder::Record(double t, const std::vector<UnitSlot>& units) {
  table_->values.push_back(t);
  for (const RecordColumn& c : plan_.columns) {
    if (c.unit < 0) continue;
    const UnitSlot& s = units[c.unit];
    double v = std::nan("");
    if (c.type == ValueType::kString) {
      const bool has = c.recorded >= 0 && c.recorded < static_cast<int>(s.recorded_strings.size());
      table_->strings.push_back(has ? s.recorded_strings[c.recorded] : std::string());
    } else if (c.output >= 0) {
      v = s.outputs[c.output];
    } else if (c.recorded >= 0 && c.recorded < static_cast<int>(s.recorded.size())) {
      v = s.recorded[c.recorded];
    }
    table_->values.push_back(v);
    if (c.type == ValueType::kInteger) {
      const bool exact = c.integer >= 0 && c.integer < static_cast<int>(s.integers.size());
      table_->integers.push_back(exact ? s.integers[c.integer] : IntegerBits(v));
    }
  }
}

}  // namespace cosimo::master
