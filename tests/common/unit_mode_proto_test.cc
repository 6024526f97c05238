// The unit modes cross the worker protocol as enums (UnitLoaded.iterative_mode, Ack.mode) and
// are converted in one place (unit_api_proto.h); the results metadata names them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cosimo/common/unit_api.h"
#include "cosimo/common/unit_api_proto.h"

namespace cosimo {
namespace {

TEST(UnitModeProtoTest, ReportsRoundTripThroughTheAckWithTheirMetadataNames) {
  const struct {
    UnitMode mode;
    const char* name;
  } cases[] = {{UnitMode::kDirect, "direct"},
               {UnitMode::kRollback, "rollback"},
               {UnitMode::kEstimate, "estimate"},
               {UnitMode::kEstimateDegraded, "estimate-degraded"}};
  for (const auto& c : cases) {
    UnitReport report;
    report.mode = c.mode;
    report.real_integrations = 7;
    report.estimates = 3;
    v1::Ack ack;
    ToProto(report, &ack);
    const UnitReport back = ReportFromProto(ack);
    EXPECT_EQ(back.mode, c.mode) << c.name;
    EXPECT_EQ(back.real_integrations, 7u);
    EXPECT_EQ(back.estimates, 3u);
    EXPECT_STREQ(UnitModeName(back.mode), c.name);
  }
}

TEST(UnitModeProtoTest, IterativeModeRoundTripsAndAMissingOneIsAnError) {
  for (IterativeMode mode : {IterativeMode::kRollback, IterativeMode::kEstimate}) {
    absl::StatusOr<IterativeMode> back = IterativeModeFromProto(ToProto(mode));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, mode);
  }
  EXPECT_STREQ(IterativeModeName(IterativeMode::kRollback), "rollback");
  // A worker that does not say (the field's default) or says DIRECT cannot load.
  const absl::StatusOr<IterativeMode> unset = IterativeModeFromProto(v1::UNIT_MODE_DIRECT);
  ASSERT_FALSE(unset.ok());
  EXPECT_THAT(std::string(unset.status().message()),
              ::testing::HasSubstr("UnitLoaded.iterative_mode must be ROLLBACK or ESTIMATE, got "
                                   "UNIT_MODE_DIRECT"));
}

}  // namespace
}  // namespace cosimo
