// The table source unit: replays a CSV table. The header names the columns; the first column is
// time (s, non-decreasing; a repeated time makes a jump), every other column becomes an output.
// Between samples the outputs are interpolated linearly or the previous sample is held; before
// the first sample and after the last, the first and last rows are held. dy/dt is the slope of
// the current segment (0 when held). No inputs, no states; a snapshot is the time.
// Call order and thread safety: see cosimo/units/unit.h.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/units/unit.h"

namespace cosimo::units {

enum class TableInterpolation { kLinear, kHold };

// Parses `csv_text`; `source` names the file in error messages (with line and column).
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateTableUnitFromText(
    const std::string& unit_name, const std::string& source, const std::string& csv_text,
    TableInterpolation interpolation);

}  // namespace cosimo::units
