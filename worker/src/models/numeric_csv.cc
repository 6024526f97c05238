#include "worker/src/models/numeric_csv.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace cosimo::worker {
namespace {

std::string Trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string out = text.substr(begin, end - begin);
  if (out.size() >= 2 && out.front() == '"' && out.back() == '"') {
    out = out.substr(1, out.size() - 2);
  }
  return out;
}

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    if (ch == ',' && !quoted) {
      fields.push_back(Trim(field));
      field.clear();
    } else {
      field += ch;
    }
  }
  fields.push_back(Trim(field));
  return fields;
}

}  // namespace

absl::StatusOr<NumericCsv> ParseNumericCsv(const std::string& csv_text, const std::string& where) {
  std::istringstream in(csv_text);
  std::string line;
  int line_number = 0;
  std::vector<std::string> header;
  std::vector<double> times;
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    std::vector<std::string> fields = SplitFields(line);
    if (header.empty()) {
      if (fields.size() < 2) {
        return absl::InvalidArgumentError(where + " line " + std::to_string(line_number) +
                                          ": the header needs a time column and at least one "
                                          "output column");
      }
      for (size_t j = 0; j < fields.size(); ++j) {
        if (fields[j].empty()) {
          return absl::InvalidArgumentError(where + " line " + std::to_string(line_number) +
                                            ": column " + std::to_string(j + 1) + " has no name");
        }
        for (size_t k = 0; k < j; ++k) {
          if (fields[k] == fields[j]) {
            return absl::InvalidArgumentError(where + ": column name '" + fields[j] +
                                              "' appears twice");
          }
        }
      }
      header = std::move(fields);
      continue;
    }
    if (fields.size() != header.size()) {
      return absl::InvalidArgumentError(where + " line " + std::to_string(line_number) + ": " +
                                        std::to_string(fields.size()) + " fields, the header has " +
                                        std::to_string(header.size()));
    }
    std::vector<double> row(fields.size());
    for (size_t j = 0; j < fields.size(); ++j) {
      const char* begin = fields[j].c_str();
      char* end = nullptr;
      errno = 0;
      const double value = std::strtod(begin, &end);
      if (fields[j].empty() || end != begin + fields[j].size() || errno == ERANGE ||
          !std::isfinite(value)) {
        return absl::InvalidArgumentError(where + " line " + std::to_string(line_number) +
                                          " column " + std::to_string(j + 1) + " ('" + header[j] +
                                          "'): '" + fields[j] + "' is not a finite number");
      }
      row[j] = value;
    }
    if (!times.empty() && row[0] < times.back()) {
      return absl::InvalidArgumentError(where + " line " + std::to_string(line_number) + ": time " +
                                        fields[0] + " is before the previous row's");
    }
    times.push_back(row[0]);
    rows.push_back(std::move(row));
  }
  if (header.empty()) return absl::InvalidArgumentError(where + ": no header");
  if (rows.empty()) return absl::InvalidArgumentError(where + ": no data rows");
  Eigen::MatrixXd values(static_cast<Eigen::Index>(rows.size()),
                         static_cast<Eigen::Index>(header.size()) - 1);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 1; j < header.size(); ++j) {
      values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j) - 1) = rows[i][j];
    }
  }
  NumericCsv csv;
  csv.header = std::move(header);
  csv.times = std::move(times);
  csv.values = std::move(values);
  return csv;
}

}  // namespace cosimo::worker
