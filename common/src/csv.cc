#include "cosimo/common/csv.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

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

std::string FormatDouble(double value) {
  char buffer[32];
  const int n = std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0);
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
  char buffer[32];
  for (size_t r = 0; r < table.rows(); ++r) {
    size_t text = r * texts_per_row;
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
        case ValueType::kReal:
        case ValueType::kInteger:
          out.write(buffer, std::snprintf(buffer, sizeof(buffer), "%.17g", v));
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
