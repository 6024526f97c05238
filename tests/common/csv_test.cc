#include "cosimo/common/csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "cosimo/common/digest.h"
#include "cosimo/common/unit_api.h"

namespace cosimo {
namespace {

TEST(CsvTest, HeaderThenRowsAtFullPrecision) {
  std::ostringstream out;
  ResultTable table;
  table.columns = {"time", "a.y"};
  table.values = {0.0, 0.1, 0.1, 1.0 / 3.0};
  WriteCsv(out, table);
  EXPECT_EQ(out.str(),
            "time,a.y\n0,0.10000000000000001\n0.10000000000000001,0.33333333333333331\n");
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

TEST(CsvTest, FormattedValuesReadBackExactly) {
  for (double v : {1.0 / 3.0, 39.98001, -1e-300, 6.02214076e23}) {
    EXPECT_EQ(std::strtod(FormatDouble(v).c_str(), nullptr), v);
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
