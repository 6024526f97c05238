// Results CSV (DESIGN section 8): header `time,<unit>.<variable>,...`, one row per
// communication point, values printed with full double precision (%.17g). Stateless.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace cosimo {

// `values` is row-major, columns.size() values per row (the first column is time).
void WriteCsv(std::ostream& out, const std::vector<std::string>& columns,
              const std::vector<double>& values);
[[nodiscard]] absl::Status WriteCsvFile(const std::string& path,
                                        const std::vector<std::string>& columns,
                                        const std::vector<double>& values);

// Formats one double as %.17g (shortest form that reads back to the same value).
std::string FormatDouble(double value);

}  // namespace cosimo
