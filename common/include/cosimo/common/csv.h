// Results tables and the results CSV (docs/scenario.md, "Results"): header
// `time,<unit>.<variable>,...`, one row per communication point, numbers in the shortest form that
// reads back to the same double (std::to_chars: 0.1, not 0.10000000000000001), Booleans as `true` /
// `false`, strings as they are (quoted, RFC 4180, only when they hold a comma, a quote or a line
// break). Stateless. The reader takes the same format back (and any RFC 4180 CSV with a header
// row): what `cosimo plot` and training data use.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"

namespace cosimo {

// A table of recorded values: what a master run produces, the job store keeps and a client
// downloads.
struct ResultTable {
  std::vector<std::string> columns;  // "time", then "<unit>.<variable>"
  std::vector<ValueType> types;      // one per column; empty: every column is kReal
  std::vector<double> values;        // row-major, columns.size() per row; kString cells are NaN
  std::vector<std::string> strings;  // row-major texts of the kString columns, one per row each
  // Row-major exact values of the kInteger columns, one per row each (IntegerBits; the double
  // in `values` gives the sign). May be empty (tables from before): the doubles stand.
  std::vector<uint64_t> integers;

  size_t rows() const { return columns.empty() ? 0 : values.size() / columns.size(); }
  ValueType type(size_t column) const {
    return column < types.size() ? types[column] : ValueType::kReal;
  }
  size_t string_columns() const;
  size_t integer_columns() const;
  // Keeps the first `rows` rows (no more than it has) and drops the others.
  void KeepRows(size_t rows);
};

// The decimal text of an integer from its exact bits (IntegerBits, unit_api.h) and the sign of
// its double.
std::string FormatInteger(uint64_t bits, double value);

void WriteCsv(std::ostream& out, const ResultTable& table);
// WriteCsv in parts, for a table that grows (a running job's rows written as they come): the
// header, then rows [begin, end) (end clipped to the table's rows). The header and every range
// of rows in turn make the same bytes as WriteCsv.
void WriteCsvHeader(std::ostream& out, const ResultTable& table);
void WriteCsvRows(std::ostream& out, const ResultTable& table, size_t begin, size_t end);
[[nodiscard]] absl::Status WriteCsvFile(const std::string& path, const ResultTable& table);

// The one RFC 4180 reader under ReadCsv and ParseNumericCsv: splits `text` into records of
// cells and calls `visit(line, cells)` for each with the line it starts on (a quoted cell may
// hold commas, doubled quotes and line breaks). A trailing line break makes no empty record;
// an error from `visit` stops it and is returned; an unclosed quote is an error naming its line.
using CsvVisitor = absl::FunctionRef<absl::Status(size_t line, std::vector<std::string>& cells)>;
[[nodiscard]] absl::Status ForEachCsvRecord(std::string_view text, CsvVisitor visit);

// Reads a CSV with a header row. A column whose every cell is a number (or "nan", "inf", an empty
// cell: NaN) is kReal, one whose every cell is "true" / "false" is kBoolean, any other kString.
// Errors name the line and the column: a row with the wrong number of cells, an unterminated
// quote, a header that repeats a column.
[[nodiscard]] absl::StatusOr<ResultTable> ReadCsv(std::string_view text);
[[nodiscard]] absl::StatusOr<ResultTable> ReadCsvFile(const std::string& path);

// A numeric CSV: a header naming the columns, the first column time (non-decreasing), every
// cell a finite number; blank lines and lines starting with '#' are skipped, cells are trimmed
// of spaces and may be quoted (ForEachCsvRecord). The table source unit replays one, `cosimo
// train` reads measured data from one, and the scenario checks read a table unit's columns
// from one before the job runs.
struct NumericCsv {
  std::vector<std::string> header;  // every column, time first
  std::vector<double> times;        // the first column
  Eigen::MatrixXd values;           // rows x (columns - 1): the other columns
};
// Errors start with `where` and name the line, the column (number and name) and the text.
[[nodiscard]] absl::StatusOr<NumericCsv> ParseNumericCsv(std::string_view text,
                                                         const std::string& where);

// Formats one double in the shortest form that reads back to the same value (std::to_chars;
// "inf", "-inf", "nan" for those). The second form writes into `buffer` and returns the length.
std::string FormatDouble(double value);
size_t FormatDouble(double value, char* buffer, size_t size);

}  // namespace cosimo
