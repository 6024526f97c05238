#include "master/src/recorder.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace cosimo::master {

Recorder::Recorder(const MasterConfig& config, ResultTable* table, size_t chunk_bytes)
    : plan_(config.plan), table_(table), chunk_bytes_(chunk_bytes) {
  table_->columns.push_back("time");
  table_->types.push_back(ValueType::kReal);
  for (const RecordColumn& c : plan_.columns) {
    if (c.unit < 0) continue;
    table_->columns.push_back(c.name);
    table_->types.push_back(c.type);
  }
  size_t rows = ExpectedRows(config.algorithm);
  if (chunk_bytes_ > 0) rows = std::min(rows, chunk_bytes_ / (8 * table_->columns.size()) + 1);
  table_->values.reserve(rows * table_->columns.size());
}

absl::Status Recorder::Flush(MasterObserver& observer) {
  const uint64_t rows = table_->rows();
  if (rows == 0) return absl::OkStatus();
  absl::Status s = observer.OnRows(first_row_, *table_);
  first_row_ += rows;
  table_->values.clear();
  table_->strings.clear();
  table_->integers.clear();
  bytes_held_ = 0;
  return s;
}

void Recorder::Recount() {
  bytes_held_ = (table_->values.size() + table_->integers.size()) * sizeof(double);
  for (const std::string& text : table_->strings) bytes_held_ += text.size() + 8;
  rows_held_max_ = std::max(rows_held_max_, static_cast<uint64_t>(table_->rows()));
}

void Recorder::Record(double t, const std::vector<UnitSlot>& units) {
  const size_t values = table_->values.size() + table_->integers.size();
  size_t texts = 0;
  table_->values.push_back(t);
  for (const RecordColumn& c : plan_.columns) {
    if (c.unit < 0) continue;
    const UnitSlot& s = units[c.unit];
    double v = std::nan("");
    if (c.type == ValueType::kString) {
      const bool has = c.recorded >= 0 && c.recorded < static_cast<int>(s.recorded_strings.size());
      table_->strings.push_back(has ? s.recorded_strings[c.recorded] : std::string());
      texts += table_->strings.back().size() + 8;
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
  bytes_held_ +=
      (table_->values.size() + table_->integers.size() - values) * sizeof(double) + texts;
  rows_held_max_ = std::max(rows_held_max_, static_cast<uint64_t>(table_->rows()));
}

}  // namespace cosimo::master
