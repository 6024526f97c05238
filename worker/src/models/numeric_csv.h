// A numeric CSV: a header naming the columns, the first column time (non-decreasing), every
// cell a finite number; blank lines and lines starting with '#' are skipped, fields may be
// quoted. The table source unit replays one; `cosimo train` reads measured data from one.
// Stateless.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo::worker {

struct NumericCsv {
  std::vector<std::string> header;  // every column, time first
  std::vector<double> times;        // the first column
  Eigen::MatrixXd values;           // rows x (columns - 1): the other columns
};

// Errors start with `where` and name the line, the column (number and name) and the text.
[[nodiscard]] absl::StatusOr<NumericCsv> ParseNumericCsv(const std::string& text,
                                                         const std::string& where);

}  // namespace cosimo::worker
