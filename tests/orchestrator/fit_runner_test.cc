// The batches a calibration job stores to resume bit for bit (orchestrator/src/fit_runner.h): they
// read back exactly (the points and residuals' every bit, a failed point's missing residuals), and
// stored doubles that do not parse are DataLoss.
#include "orchestrator/src/fit_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace cosimo::orchestrator {
namespace {

bool SameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

TEST(FitBatchTest, StoredBatchesReadBackBitForBit) {
  FitBatch first;
  first.points = {Eigen::Vector2d(0.1, 1.0 / 3.0), Eigen::Vector2d(0.0, 1.0)};
  first.residuals = {Eigen::Vector3d(-1e-300, 2.5, std::nextafter(1.0, 2.0)), std::nullopt};
  FitBatch second;
  second.points = {Eigen::Vector2d(0.7, 0.2)};
  second.residuals = {Eigen::Vector3d(std::numeric_limits<double>::infinity(), 0.0, -0.0)};
  std::vector<double> stored = EncodeFitBatch(first, 3);
  const std::vector<double> more = EncodeFitBatch(second, 3);
  stored.insert(stored.end(), more.begin(), more.end());

  absl::StatusOr<std::vector<FitBatch>> back = DecodeFitBatches(stored);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  for (const auto& [mine, read] :
       {std::pair{&first, &(*back)[0]}, std::pair{&second, &(*back)[1]}}) {
    ASSERT_EQ(read->points.size(), mine->points.size());
    for (size_t p = 0; p < mine->points.size(); ++p) {
      EXPECT_TRUE(SameBits(read->points[p], mine->points[p])) << p;
      ASSERT_EQ(read->residuals[p].has_value(), mine->residuals[p].has_value()) << p;
      if (mine->residuals[p]) {
        EXPECT_TRUE(SameBits(*read->residuals[p], *mine->residuals[p])) << p;
      }
    }
  }
  EXPECT_TRUE(std::signbit((*(*back)[1].residuals[0])[2]));  // -0.0 stays -0.0
}

TEST(FitBatchTest, StoredDoublesThatDoNotParseAreDataLoss) {
  FitBatch batch;
  batch.points = {Eigen::Vector2d(0.1, 0.2)};
  batch.residuals = {Eigen::Vector3d(1, 2, 3)};
  std::vector<double> stored = EncodeFitBatch(batch, 3);
  stored.pop_back();  // cut short
  EXPECT_EQ(DecodeFitBatches(stored).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeFitBatches({-1.0, 2.0, 3.0}).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(DecodeFitBatches({}).ok());
}

}  // namespace
}  // namespace cosimo::orchestrator
