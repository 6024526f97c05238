#include "cosimo/common/csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace cosimo {
namespace {

// `text` as a CSV field, appended to `out`: quoted, its quotes doubled, when it holds a comma, a
// quote or a line break.
void AppendText(const std::string& text, std::string* out) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace

size_t ResultTable::string_columns() const {
  return static_cast<size_t>(std::count(types.begin(), types.end(), ValueType::kString));
}

size_t ResultTable::integer_columns() const {
  return static_cast<size_t>(std::count(types.begin(), types.end(), ValueType::kInteger));
}

void ResultTable::KeepRows(size_t keep) {
  if (keep >= rows()) return;
  values.resize(keep * columns.size());
  strings.resize(std::min(strings.size(), keep * string_columns()));
  integers.resize(std::min(integers.size(), keep * integer_columns()));
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

void WriteCsvHeader(std::ostream& out, const ResultTable& table) {
  std::string header;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (c > 0) header.push_back(',');
    AppendText(table.columns[c], &header);
  }
  header.push_back('\n');
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
}

void WriteCsvRows(std::ostream& out, const ResultTable& table, size_t begin, size_t end) {
  const size_t width = table.columns.size();
  end = std::min(end, table.rows());
  if (width == 0 || begin >= end) return;
  const size_t texts_per_row = table.string_columns();
  const size_t integers_per_row = table.integer_columns();
  const bool exact = table.integers.size() == table.rows() * integers_per_row;
  std::vector<ValueType> types(width);
  for (size_t c = 0; c < width; ++c) types[c] = table.type(c);
  // The rows are formatted into a block written at once: a stream insertion per value (its
  // sentry, its virtual calls) cost as much as formatting the value (issue 40: writing the CSV
  // was a fifth of a one-FMU run's time per step).
  constexpr size_t kBlock = 64 * 1024;
  std::string block;
  block.reserve(kBlock + 64);
  char number[32];
  for (size_t r = begin; r < end; ++r) {
    size_t string = r * texts_per_row;
    size_t integer = r * integers_per_row;
    for (size_t c = 0; c < width; ++c) {
      if (c > 0) block.push_back(',');
      const double v = table.values[r * width + c];
      switch (types[c]) {
        case ValueType::kBoolean:
          block.append(v != 0.0 ? "true" : "false");
          break;
        case ValueType::kString:
          if (string < table.strings.size()) AppendText(table.strings[string], &block);
          ++string;
          break;
        case ValueType::kInteger:
          if (exact && !std::isnan(v)) {
            block.append(FormatInteger(table.integers[integer++], v));
            break;
          }
          ++integer;
          [[fallthrough]];
        case ValueType::kReal:
          block.append(number, FormatDouble(v, number, sizeof(number)));
          break;
      }
      if (block.size() >= kBlock) {
        out.write(block.data(), static_cast<std::streamsize>(block.size()));
        block.clear();
      }
    }
    block.push_back('\n');
  }
  out.write(block.data(), static_cast<std::streamsize>(block.size()));
}

void WriteCsv(std::ostream& out, const ResultTable& table) {
  WriteCsvHeader(out, table);
  WriteCsvRows(out, table, 0, table.rows());
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

bool ParseNumber(const std::string& text, double& value) {
  if (text.empty()) {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const char* first = text.data();
  const char* last = first + text.size();
  if (*first == '+') ++first;
  const std::from_chars_result r = std::from_chars(first, last, value);
  if (r.ec == std::errc::result_out_of_range && r.ptr == last) {
    // libstdc++ reports a subnormal (5e-324, which the writer writes) as out of range: strtod
    // gives it. An overflow (1e999) stays refused.
    value = std::strtod(std::string(first, last).c_str(), nullptr);
    return std::isfinite(value);
  }
  return r.ec == std::errc() && r.ptr == last;
}

}  // namespace

absl::Status ForEachCsvRecord(std::string_view text, CsvVisitor visit) {
  std::vector<std::string> cells;
  std::string cell;
  size_t line = 1;
  size_t row_line = 1;
  size_t i = 0;
  bool row_open = false;
  while (i < text.size()) {
    row_open = true;
    const char c = text[i];
    // A quote opens a quoted cell at its start, or after spaces only (which are dropped: `a,
    // "b,c"` is the cells a and b,c).
    if (c == '"' && cell.find_first_not_of(" \t") == std::string::npos) {
      cell.clear();
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

absl::StatusOr<ResultTable> ReadCsv(std::string_view text) {
  ResultTable table;
  std::vector<bool> numeric;
  std::vector<bool> boolean;
  size_t rows = 0;
  // First pass: the header, the cell counts and each column's type.
  absl::Status status = ForEachCsvRecord(text, [&](size_t line, std::vector<std::string>& cells) {
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
  status = ForEachCsvRecord(text, [&](size_t, std::vector<std::string>& cells) {
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

namespace {

std::string_view TrimCell(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  // A quoted cell after spaces keeps its quotes in RFC 4180: take them off here.
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  return text;
}

}  // namespace

absl::StatusOr<NumericCsv> ParseNumericCsv(std::string_view text, const std::string& where) {
  NumericCsv csv;
  std::vector<std::vector<double>> rows;
  auto at = [&](size_t line) { return absl::StrCat(where, " line ", line); };
  absl::Status status = ForEachCsvRecord(text, [&](size_t line, std::vector<std::string>& cells) {
    for (std::string& cell : cells) cell = std::string(TrimCell(cell));
    if ((cells.size() == 1 && cells[0].empty()) ||
        (!cells.empty() && !cells[0].empty() && cells[0][0] == '#')) {
      return absl::OkStatus();  // a blank line or a comment
    }
    if (csv.header.empty()) {
      if (cells.size() < 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            at(line), ": the header needs a time column and at least one output column"));
      }
      for (size_t j = 0; j < cells.size(); ++j) {
        if (cells[j].empty()) {
          return absl::InvalidArgumentError(
              absl::StrCat(at(line), ": column ", j + 1, " has no name"));
        }
        if (std::find(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(j), cells[j]) !=
            cells.begin() + static_cast<std::ptrdiff_t>(j)) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, ": column name '", cells[j], "' appears twice"));
        }
      }
      csv.header = std::move(cells);
      return absl::OkStatus();
    }
    if (cells.size() != csv.header.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          at(line), ": ", cells.size(), " fields, the header has ", csv.header.size()));
    }
    std::vector<double> row(cells.size());
    for (size_t j = 0; j < cells.size(); ++j) {
      if (cells[j].empty() || !ParseNumber(cells[j], row[j]) || !std::isfinite(row[j])) {
        return absl::InvalidArgumentError(absl::StrCat(at(line), " column ", j + 1, " ('",
                                                       csv.header[j], "'): '", cells[j],
                                                       "' is not a finite number"));
      }
    }
    if (!csv.times.empty() && row[0] < csv.times.back()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at(line), ": time ", cells[0], " is before the previous row's"));
    }
    csv.times.push_back(row[0]);
    rows.push_back(std::move(row));
    return absl::OkStatus();
  });
  if (!status.ok() && !absl::StartsWith(status.message(), where)) {  // the reader's own error
    return absl::InvalidArgumentError(absl::StrCat(where, " ", status.message()));
  }
  if (!status.ok()) return status;
  if (csv.header.empty()) return absl::InvalidArgumentError(where + ": no header");
  if (rows.empty()) return absl::InvalidArgumentError(where + ": no data rows");
  csv.values.resize(static_cast<Eigen::Index>(rows.size()),
                    static_cast<Eigen::Index>(csv.header.size()) - 1);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 1; j < csv.header.size(); ++j) {
      csv.values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j) - 1) = rows[i][j];
    }
  }
  return csv;
}

}  // namespace cosimo
