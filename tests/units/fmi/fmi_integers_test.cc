// FMI 3 Int64 / UInt64 values beyond 2^53 reach StepReply::integers exactly (the doubles in
// `outputs` and `recorded` cannot hold them). The probe FMU's outputs: x, string_reads (Int32),
// big = 2^53 + 1, negative = -(2^53 + 1) (Int64), ubig = 2^64 - 1 (UInt64).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::Load;
using testing::Spec;
using testing::StepOnce;

constexpr int64_t kBig = (int64_t{1} << 53) + 1;

TEST(FmiIntegersTest, SixtyFourBitIntegersAreExactOutputsFirstThenRecorded) {
  auto unit = Load(Spec("p", "fmi3_probe"));
  ASSERT_NE(unit, nullptr);
  ASSERT_EQ(unit->description().outputs.size(), 5u);
  EXPECT_EQ(unit->description().outputs[2].type, ValueType::kInteger);
  ASSERT_TRUE(unit->SetRecorded({"ubig", "x", "big"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  const StepReply reply = StepOnce(*unit, 0.1, Eigen::MatrixXd::Zero(1, 1));
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_EQ(reply.outputs[2], static_cast<double>(kBig));  // rounded to 2^53
  // Integer outputs (string_reads, big, negative, ubig), then integer recorded (ubig, big).
  EXPECT_THAT(reply.integers,
              ::testing::ElementsAre(0u, static_cast<uint64_t>(kBig), static_cast<uint64_t>(-kBig),
                                     UINT64_MAX, UINT64_MAX, static_cast<uint64_t>(kBig)));
  OutputsReply outputs;
  ASSERT_TRUE(unit->Evaluate(Eigen::VectorXd::Zero(1), &outputs).ok());
  ASSERT_EQ(outputs.integers.size(), 6u);
  EXPECT_EQ(outputs.integers[3], UINT64_MAX);
}

TEST(FmiIntegersTest, IntegersOfOtherWidthsComeFromTheirDoubles) {
  auto unit = Load(Spec("m", "fmi2_msd"));  // Integer output `steps`: DoStep calls
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  StepReply reply;
  for (int n = 0; n < 3; ++n) reply = StepOnce(*unit, 0.1, Eigen::MatrixXd::Zero(1, 1));
  EXPECT_THAT(reply.integers, ::testing::ElementsAre(3u));
}

}  // namespace
}  // namespace cosimo::units::fmu
