// The housekeeper's period: a quarter of the shorter retention period set, between a second and
// an hour; without any period it starts no thread. (What a pass removes is JobManagerTest's and
// ArtifactStoreTest's, by a manual clock.)
#include "orchestrator/src/housekeeper.h"

#include <gtest/gtest.h>

namespace cosimo::orchestrator {
namespace {

using namespace std::chrono_literals;

std::chrono::seconds PeriodOf(std::chrono::seconds jobs, std::chrono::seconds artifacts) {
  return Housekeeper(nullptr, {jobs, artifacts}).period();
}

TEST(HousekeeperTest, PassesEveryQuarterOfTheShorterPeriodBetweenASecondAndAnHour) {
  EXPECT_EQ(PeriodOf(1h, 0s), 15min);
  EXPECT_EQ(PeriodOf(24h, 2h), 30min);
  EXPECT_EQ(PeriodOf(0s, 2s), 1s);
  EXPECT_EQ(PeriodOf(24h * 30, 0s), 1h);
}

TEST(HousekeeperTest, WithoutAPeriodItStartsNothingAndStopsAtOnce) {
  Housekeeper keeper(nullptr, {});
  keeper.Start();  // would pass over a null job manager at once if it started
  EXPECT_FALSE(keeper.running());
  keeper.Stop();
  keeper.Stop();
  EXPECT_FALSE(keeper.running());
}

}  // namespace
}  // namespace cosimo::orchestrator
