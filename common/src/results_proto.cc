#include "cosimo/common/results_proto.h"

#include <algorithm>

#include "cosimo/common/unit_api_proto.h"

namespace cosimo {

void ToProto(const ResultTable& table, v1::ResultsHeader* out) {
  out->clear_columns();
  out->clear_column_types();
  for (size_t c = 0; c < table.columns.size(); ++c) {
    out->add_columns(table.columns[c]);
    out->add_column_types(ToProto(table.type(c)));
  }
}

void FromProto(const v1::ResultsHeader& header, ResultTable* table) {
  table->columns.assign(header.columns().begin(), header.columns().end());
  table->types.assign(header.columns_size(), ValueType::kReal);
  // Tables stored before column types existed have none: every column is then kReal.
  for (int c = 0; c < std::min(header.columns_size(), header.column_types_size()); ++c) {
    table->types[static_cast<size_t>(c)] = FromProto(header.column_types(c));
  }
}

void RowsToProto(const ResultTable& table, size_t first, size_t count, v1::ResultRows* out) {
  const size_t width = table.columns.size();
  const size_t rows = table.rows();
  first = std::min(first, rows);
  count = std::min(count, rows - first);
  auto* values = out->mutable_values();
  values->Clear();
  values->Reserve(static_cast<int>(count * width));
  for (size_t i = first * width; i < (first + count) * width; ++i) {
    values->AddAlreadyReserved(table.values[i]);
  }
  out->clear_strings();
  const size_t texts = table.string_columns();
  const size_t end = std::min(table.strings.size(), (first + count) * texts);
  for (size_t i = first * texts; i < end; ++i) out->add_strings(table.strings[i]);
  out->clear_integers();
  const size_t integers = table.integer_columns();
  const size_t last = std::min(table.integers.size(), (first + count) * integers);
  for (size_t i = first * integers; i < last; ++i) out->add_integers(table.integers[i]);
}

void AppendRows(const v1::ResultRows& rows, ResultTable* table) {
  table->values.insert(table->values.end(), rows.values().begin(), rows.values().end());
  table->strings.insert(table->strings.end(), rows.strings().begin(), rows.strings().end());
  table->integers.insert(table->integers.end(), rows.integers().begin(), rows.integers().end());
}

}  // namespace cosimo
