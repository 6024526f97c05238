// The one place where a ResultTable and the job service's results messages are converted: the
// job store keeps a table as a ResultsHeader and ResultRows, GetResults streams it as one header
// and chunks of whole rows, and the client reassembles it. Stateless, thread safe.
#pragma once

#include <cstddef>

#include "cosimo/common/csv.h"
#include "cosimo/v1/job_service.pb.h"

namespace cosimo {

// Columns and their types.
void ToProto(const ResultTable& table, v1::ResultsHeader* out);
// Replaces the columns and types of `table`.
void FromProto(const v1::ResultsHeader& header, ResultTable* table);

// Rows [first, first + count) of `table` (values and the texts of its kString columns).
void RowsToProto(const ResultTable& table, size_t first, size_t count, v1::ResultRows* out);
// Appends the rows of a chunk to `table` (whose header has been read).
void AppendRows(const v1::ResultRows& rows, ResultTable* table);

}  // namespace cosimo
