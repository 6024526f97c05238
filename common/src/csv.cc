#include "cosimo/common/csv.h"

#include <cstdio>
#include <fstream>

namespace cosimo {

std::string FormatDouble(double value) {
  char buffer[32];
  const int n = std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0);
}

void WriteCsv(std::ostream& out, const std::vector<std::string>& columns,
              const std::vector<double>& values) {
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) out << ',';
    out << columns[c];
  }
  out << '\n';
  if (columns.empty()) return;
  char buffer[32];
  for (size_t i = 0; i < values.size(); ++i) {
    const int n = std::snprintf(buffer, sizeof(buffer), "%.17g", values[i]);
    out.write(buffer, n);
    out << (((i + 1) % columns.size() == 0) ? '\n' : ',');
  }
}

absl::Status WriteCsvFile(const std::string& path, const std::vector<std::string>& columns,
                          const std::vector<double>& values) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError("cannot open '" + path + "' for writing");
  WriteCsv(out, columns, values);
  out.close();
  if (!out) return absl::DataLossError("error while writing '" + path + "'");
  return absl::OkStatus();
}

}  // namespace cosimo
