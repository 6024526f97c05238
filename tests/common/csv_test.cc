#include "cosimo/common/csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "cosimo/common/digest.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/unit_api.h"

namespace cosimo {
namespace {

// Full precision in the fewest digits: every value reads back to the same double.
TEST(CsvTest, HeaderThenRowsAtFullPrecision) {
  std::ostringstream out;
  ResultTable table;
  table.columns = {"time", "a.y"};
  table.values = {0.0, 0.1, 0.1, 1.0 / 3.0};
  WriteCsv(out, table);
  EXPECT_EQ(out.str(), "time,a.y\n0,0.1\n0.1,0.3333333333333333\n");
}

TEST(CsvTest, BooleansAsWordsStringsAsTheyAreQuotedOnlyWhenNeeded) {
  ResultTable table;
  table.columns = {"time", "f.on", "f.label", "f.n", "f.note"};
  table.types = {ValueType::kReal, ValueType::kBoolean, ValueType::kString, ValueType::kInteger,
                 ValueType::kString};
  const double nan = std::nan("");
  table.values = {0.0, 1.0, nan, 3.0,  nan,  //
                  0.5, 0.0, nan, -4.0, nan};
  table.strings = {"msd", "a, \"b\"", "line\nbreak", ""};
  EXPECT_EQ(table.rows(), 2u);
  EXPECT_EQ(table.string_columns(), 2u);
  std::ostringstream out;
  WriteCsv(out, table);
  EXPECT_EQ(out.str(),
            "time,f.on,f.label,f.n,f.note\n"
            "0,true,msd,3,\"a, \"\"b\"\"\"\n"
            "0.5,false,\"line\nbreak\",-4,\n");
}

TEST(ResultsProtoTest, ChunksOfWholeRowsReassembleTheTable) {
  ResultTable in;
  in.columns = {"time", "f.label", "f.on"};
  in.types = {ValueType::kReal, ValueType::kString, ValueType::kBoolean};
  for (int r = 0; r < 7; ++r) {
    in.values.insert(in.values.end(), {0.1 * r, std::nan(""), static_cast<double>(r % 2)});
    in.strings.push_back("row " + std::to_string(r));
  }
  v1::ResultsHeader header;
  ToProto(in, &header);
  ResultTable out;
  FromProto(header, &out);
  for (size_t first = 0; first < in.rows(); first += 3) {  // chunks of 3, 3 and 1 rows
    v1::ResultRows rows;
    RowsToProto(in, first, 3, &rows);
    EXPECT_EQ(rows.strings_size(), first + 3 <= in.rows() ? 3 : 1);
    AppendRows(rows, &out);
  }
  EXPECT_EQ(out.columns, in.columns);
  EXPECT_EQ(out.types, in.types);
  EXPECT_EQ(out.strings, in.strings);
  ASSERT_EQ(out.values.size(), in.values.size());
  for (size_t i = 0; i < in.values.size(); ++i) {
    if (!std::isnan(in.values[i])) {
      EXPECT_EQ(out.values[i], in.values[i]) << i;
    }
  }
  // A header without column types (stored before they existed) means every column is REAL.
  header.clear_column_types();
  FromProto(header, &out);
  EXPECT_EQ(out.type(1), ValueType::kReal);
}

TEST(CsvTest, IntegersBeyondTwoToThe53AreWrittenExactly) {
  // 2^53 + 1 and 2^64 - 1 have no double: the table's exact integers are written, the doubles
  // (2^53, 2^64) only give the sign. A table without them writes the doubles, one off.
  ResultTable table;
  table.columns = {"time", "p.big", "p.ubig", "p.neg", "p.small"};
  table.types = {ValueType::kReal, ValueType::kInteger, ValueType::kInteger, ValueType::kInteger,
                 ValueType::kInteger};
  const int64_t big = (int64_t{1} << 53) + 1;
  table.values = {0.0, static_cast<double>(big), 0x1p64, -static_cast<double>(big), -3.0};
  table.integers = {static_cast<uint64_t>(big), UINT64_MAX, static_cast<uint64_t>(-big),
                    IntegerBits(-3.0)};
  EXPECT_EQ(table.integer_columns(), 4u);
  std::ostringstream out;
  WriteCsv(out, table);
  EXPECT_EQ(out.str(),
            "time,p.big,p.ubig,p.neg,p.small\n"
            "0,9007199254740993,18446744073709551615,-9007199254740993,-3\n");
  table.integers.clear();
  std::ostringstream doubles;
  WriteCsv(doubles, table);
  EXPECT_EQ(doubles.str(),
            "time,p.big,p.ubig,p.neg,p.small\n"
            "0,9007199254740992,18446744073709551616,-9007199254740992,-3\n");
}

TEST(ResultsProtoTest, ExactIntegersTravelWithTheirRows) {
  ResultTable in;
  in.columns = {"time", "p.n"};
  in.types = {ValueType::kReal, ValueType::kInteger};
  for (uint64_t r = 0; r < 5; ++r) {
    in.values.insert(in.values.end(), {0.1 * r, 0x1p64});
    in.integers.push_back(UINT64_MAX - r);
  }
  ResultTable out;
  out.columns = in.columns;
  out.types = in.types;
  for (size_t first = 0; first < in.rows(); first += 2) {
    v1::ResultRows rows;
    RowsToProto(in, first, 2, &rows);
    EXPECT_EQ(rows.integers_size(), first + 2 <= in.rows() ? 2 : 1);
    AppendRows(rows, &out);
  }
  EXPECT_EQ(out.integers, in.integers);
}

TEST(CsvTest, FormattedValuesReadBackExactly) {
  for (double v : {1.0 / 3.0, 39.98001, -1e-300, 6.02214076e23, 0.1 + 0.2, 5e-324}) {
    EXPECT_EQ(std::strtod(FormatDouble(v).c_str(), nullptr), v);
  }
}

TEST(CsvReadTest, WhatTheWriterWritesReadsBackWithItsTypes) {
  ResultTable table;
  table.columns = {"time", "f.on", "f.label", "f.x"};
  table.types = {ValueType::kReal, ValueType::kBoolean, ValueType::kString, ValueType::kReal};
  const double nan = std::nan("");
  table.values = {0.0, 1.0, nan, 1.0 / 3.0,  //
                  0.1, 0.0, nan, -6.02214076e23};
  table.strings = {"a, \"b\"", "line\nbreak"};
  std::ostringstream out;
  WriteCsv(out, table);
  absl::StatusOr<ResultTable> back = ReadCsv(out.str());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->columns, table.columns);
  EXPECT_EQ(back->types, table.types);
  EXPECT_EQ(back->strings, table.strings);
  ASSERT_EQ(back->rows(), 2u);
  for (size_t i : {0u, 1u, 3u, 4u, 5u, 7u}) EXPECT_EQ(back->values[i], table.values[i]) << i;
}

TEST(CsvReadTest, EmptyCellsAndNonFiniteNumbersAreReal) {
  absl::StatusOr<ResultTable> table = ReadCsv("time,x\r\n0,\r\n1,inf\r\n2,nan");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->type(1), ValueType::kReal);
  ASSERT_EQ(table->rows(), 3u);
  EXPECT_TRUE(std::isnan(table->values[1]));
  EXPECT_TRUE(std::isinf(table->values[3]));
  EXPECT_TRUE(std::isnan(table->values[5]));
}

TEST(CsvReadTest, ErrorsNameTheLine) {
  absl::StatusOr<ResultTable> ragged = ReadCsv("time,x\n0,1\n1\n");
  EXPECT_EQ(ragged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ragged.status().message().find("line 3: 1 cells, the header has 2"), std::string::npos)
      << ragged.status();
  absl::StatusOr<ResultTable> open_quote = ReadCsv("time,x\n0,\"abc\n");
  EXPECT_NE(open_quote.status().message().find("line 2: a quoted cell is not closed"),
            std::string::npos)
      << open_quote.status();
  absl::StatusOr<ResultTable> twice = ReadCsv("time,x,x\n");
  EXPECT_NE(twice.status().message().find("column 'x' appears twice"), std::string::npos);
  EXPECT_FALSE(ReadCsv("").ok());
  EXPECT_EQ(ReadCsvFile("/nonexistent/r.csv").status().code(), absl::StatusCode::kNotFound);
}

// The shortest form that reads back: decimal literals come out as written, not at 17 digits.
// The numeric reader (tables, training data, the scenario checks) shares ReadCsv's RFC 4180
// records: a quoted column name may hold a comma, comments and blank lines are skipped, cells
// are trimmed.
TEST(NumericCsvTest, QuotedNamesCommentsAndSpaces) {
  absl::StatusOr<NumericCsv> csv =
      ParseNumericCsv("# measured\n\ntime, \"a,b\" ,c\r\n0, 1, 2\n# mid\n0.5,3 ,4\n", "t.csv");
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_EQ(csv->header, (std::vector<std::string>{"time", "a,b", "c"}));
  EXPECT_EQ(csv->times, (std::vector<double>{0.0, 0.5}));
  ASSERT_EQ(csv->values.rows(), 2);
  EXPECT_EQ(csv->values(1, 0), 3.0);
  EXPECT_EQ(csv->values(1, 1), 4.0);
  // A subnormal, as the results CSV writes one, reads back (a results file is a table too).
  const double tiny = std::numeric_limits<double>::denorm_min();
  csv = ParseNumericCsv("time,x\n0," + FormatDouble(tiny) + "\n", "t.csv");
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_EQ(csv->values(0, 0), tiny);
  absl::StatusOr<ResultTable> table = ReadCsv("time,x\n0," + FormatDouble(tiny) + "\n");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->type(1), ValueType::kReal);
  EXPECT_EQ(table->values[1], tiny);
}

TEST(NumericCsvTest, ErrorsNameTheLineTheColumnAndTheText) {
  auto error = [](const char* text) {
    absl::StatusOr<NumericCsv> csv = ParseNumericCsv(text, "t.csv");
    return csv.ok() ? std::string("ok") : std::string(csv.status().message());
  };
  EXPECT_EQ(error("time,x\n0,1\n1,nan\n"),
            "t.csv line 3 column 2 ('x'): 'nan' is not a finite number");
  EXPECT_EQ(error("time,x\n0,1e999\n"),
            "t.csv line 2 column 2 ('x'): '1e999' is not a finite number");
  EXPECT_EQ(error("time,x\n1,1\n0,1\n"), "t.csv line 3: time 0 is before the previous row's");
  EXPECT_EQ(error("time,x\n0,1,2\n"), "t.csv line 2: 3 fields, the header has 2");
  EXPECT_EQ(error("time,x,x\n0,1,2\n"), "t.csv: column name 'x' appears twice");
  EXPECT_EQ(error("time,x\n"), "t.csv: no data rows");
  EXPECT_EQ(error("time\n0\n"),
            "t.csv line 1: the header needs a time column and at least one output column");
  EXPECT_EQ(error("time,\"x\n0,1\n"), "t.csv line 1: a quoted cell is not closed");
}

TEST(CsvTest, FormattedValuesAreTheShortestThatReadBack) {
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(2.5), "2.5");
  EXPECT_EQ(FormatDouble(40000), "40000");
  EXPECT_EQ(FormatDouble(1e-7), "1e-07");
  EXPECT_EQ(FormatDouble(0.1 + 0.2), "0.30000000000000004");  // not 0.3: that is another double
  // Shorter than %.17g on every value of a time grid, and never longer than 17 digits.
  for (int i = 0; i <= 100; ++i) {
    const double t = i * 0.1;
    const std::string text = FormatDouble(t);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), t);
    char longer[32];
    std::snprintf(longer, sizeof(longer), "%.17g", t);
    EXPECT_LE(text.size(), std::string(longer).size()) << t;
  }
}

TEST(DigestTest, Sha256OfKnownStrings) {
  // FIPS 180-2 test vector for "abc".
  EXPECT_EQ(DigestOf("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_TRUE(IsValidDigest(DigestOf("")));
  EXPECT_FALSE(IsValidDigest("sha256:xyz"));
  EXPECT_FALSE(
      IsValidDigest("md5:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

TEST(InputPolynomialsTest, ValueAndDerivative) {
  InputPolynomials p;
  p.coefficients.resize(2, 3);
  p.coefficients << 1, 2, 3,  // 1 + 2s + 3s^2
      -1, 0, 0;               // constant
  Eigen::VectorXd v(2), d(2);
  p.Value(2.0, v);
  p.Derivative(2.0, d);
  EXPECT_EQ(v[0], 1 + 4 + 12);
  EXPECT_EQ(d[0], 2 + 12);
  EXPECT_EQ(v[1], -1);
  EXPECT_EQ(d[1], 0);
}

}  // namespace
}  // namespace cosimo
