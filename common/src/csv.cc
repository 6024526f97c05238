#include "cosimo/common/csv.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>

namespace cosimo {
namespace {

void WriteText(std::ostream& out, const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) {
    out << text;
    return;
  }
  out << '"';
  for (char c : text) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}

}  // namespace

size_t ResultTable::string_columns() const {
  return static_cast<size_t>(std::count(types.begin(), types.end(), ValueType::kString));
}

size_t ResultTable::integer_columns() const {
  return static_cast<size_t>(std::count(types.begin(), types.end(), ValueType::kInteger));
}

std::string FormatInteger(uint64_t bits, double value) {
  return value < 0.0 ? std::to_string(static_cast<int64_t>(bits)) : std::to_string(bits);
}

size_t FormatDouble(double value, char* buffer, size_t size) {
  const std::to_chars_result r = std::to_chars(buffer, buffer + size, value);
  return r.ec == std::errc() ? static_cast<size_t>(r.ptr - buffer) : 0;
}

std::string FormatDouble(double value) {
  char buffer[32];
  return std::string(buffer, FormatDouble(value, buffer, sizeof(buffer)));
}

void WriteCsv(std::ostream& out, const ResultTable& table) {
  const size_t width = table.columns.size();
  for (size_t c = 0; c < width; ++c) {
    if (c > 0) out << ',';
    WriteText(out, table.columns[c]);
  }
  out << '\n';
  if (width == 0) return;
  const size_t texts_per_row = table.string_columns();
  const size_t integers_per_row = table.integer_columns();
  const bool exact = table.integers.size() == table.rows() * integers_per_row;
  char buffer[32];
  for (size_t r = 0; r < table.rows(); ++r) {
    size_t text = r * texts_per_row;
    size_t integer = r * integers_per_row;
    for (size_t c = 0; c < width; ++c) {
      if (c > 0) out << ',';
      const double v = table.values[r * width + c];
      switch (table.type(c)) {
        case ValueType::kBoolean:
          out << (v != 0.0 ? "true" : "false");
          break;
        case ValueType::kString:
          if (text < table.strings.size()) WriteText(out, table.strings[text]);
          ++text;
          break;
        case ValueType::kInteger:
          if (exact && !std::isnan(v)) {
            out << FormatInteger(table.integers[integer++], v);
            break;
          }
          ++integer;
          out.write(buffer, static_cast<std::streamsize>(FormatDouble(v, buffer, sizeof(buffer))));
          break;
        case ValueType::kReal:
          out.write(buffer, static_cast<std::streamsize>(FormatDouble(v, buffer, sizeof(buffer))));
          break;
      }
    }
    out << '\n';
  }
}

absl::Status WriteCsvFile(const std::string& path, const ResultTable& table) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError("cannot open '" + path + "' for writing");
  WriteCsv(out, table);
  out.close();
  if (!out) return absl::DataLossError("error while writing '" + path + "'");
  return absl::OkStatus();
}

}  // namespace cosimo

namespace cosimo {
namespace {

// Splits RFC 4180 text into rows of cells; `visit(line, cells)` is called for each row with the
// line number it starts on. A trailing line break does not make an empty row.
template <typename Visit>
absl::Status ForEachRow(std::string_view text, Visit&& visit) {
  std::vector<std::string> cells;
  std::string cell;
  size_t line = 1;
  size_t row_line = 1;
  size_t i = 0;
  bool row_open = false;
  while (i < text.size()) {
    row_open = true;
    const char c = text[i];
    if (c == '"' && cell.empty()) {
      const size_t quote_line = line;
      ++i;
      while (true) {
        if (i >= text.size()) {
          return absl::InvalidArgumentError("line " + std::to_string(quote_line) +
                                            ": a quoted cell is not closed");
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        cell += text[i++];
      }
      continue;
    }
    if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
      ++i;
      continue;
    }
    if (c == '\r' || c == '\n') {
      cells.push_back(std::move(cell));
      cell.clear();
      if (absl::Status s = visit(row_line, cells); !s.ok()) return s;
      cells.clear();
      row_open = false;
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++i;
      row_line = ++line;
      continue;
    }
    cell += c;
    ++i;
  }
  if (row_open) {
    cells.push_back(std::move(cell));
    return visit(row_line, cells);
  }
  return absl::OkStatus();
}

bool ParseNumber(const std::string& text, double& value) {
  if (text.empty()) {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const char* first = text.data();
  const char* last = first + text.size();
  if (*first == '+') ++first;
  const std::from_chars_result r = std::from_chars(first, last, value);
  return r.ec == std::errc() && r.ptr == last;
}

}  // namespace

absl::StatusOr<ResultTable> ReadCsv(std::string_view text) {
  ResultTable table;
  std::vector<bool> numeric;
  std::vector<bool> boolean;
  size_t rows = 0;
  // First pass: the header, the cell counts and each column's type.
  absl::Status status = ForEachRow(text, [&](size_t line, std::vector<std::string>& cells) {
    if (table.columns.empty()) {
      for (size_t c = 0; c < cells.size(); ++c) {
        if (std::find(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(c), cells[c]) !=
            cells.begin() + static_cast<std::ptrdiff_t>(c)) {
          return absl::InvalidArgumentError("line 1: column '" + cells[c] + "' appears twice");
        }
      }
      table.columns = cells;
      numeric.assign(cells.size(), true);
      boolean.assign(cells.size(), true);
      return absl::OkStatus();
    }
    if (cells.size() != table.columns.size()) {
      return absl::InvalidArgumentError("line " + std::to_string(line) + ": " +
                                        std::to_string(cells.size()) + " cells, the header has " +
                                        std::to_string(table.columns.size()));
    }
    double value;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (numeric[c] && !ParseNumber(cells[c], value)) numeric[c] = false;
      if (boolean[c] && cells[c] != "true" && cells[c] != "false") boolean[c] = false;
    }
    ++rows;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (table.columns.empty()) return absl::InvalidArgumentError("the CSV has no header row");
  const size_t width = table.columns.size();
  table.types.resize(width);
  for (size_t c = 0; c < width; ++c) {
    table.types[c] = numeric[c]   ? ValueType::kReal
                     : boolean[c] ? ValueType::kBoolean
                                  : ValueType::kString;
  }
  // Second pass: the values.
  table.values.reserve(rows * width);
  table.strings.reserve(rows * table.string_columns());
  bool header = true;
  status = ForEachRow(text, [&](size_t, std::vector<std::string>& cells) {
    if (header) {
      header = false;
      return absl::OkStatus();
    }
    for (size_t c = 0; c < width; ++c) {
      double value = std::numeric_limits<double>::quiet_NaN();
      switch (table.types[c]) {
        case ValueType::kReal:
        case ValueType::kInteger:
          ParseNumber(cells[c], value);
          break;
        case ValueType::kBoolean:
          value = cells[c] == "true" ? 1.0 : 0.0;
          break;
        case ValueType::kString:
          table.strings.push_back(std::move(cells[c]));
          break;
      }
      table.values.push_back(value);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return table;
}

absl::StatusOr<ResultTable> ReadCsvFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open '" + path + "'");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<ResultTable> table = ReadCsv(text);
  if (!table.ok()) {
    return absl::Status(table.status().code(), path + ": " + std::string(table.status().message()));
  }
  return table;
}

}  // namespace cosimo
