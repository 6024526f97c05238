// Issue 41 item 10, the pool shared between jobs (docs/deployment.md, "Sharing the pool"): a
// sweep held every worker until it ended, so a 0.3 s job waited 23 s behind one and a 6-variant
// sweep 95 s behind a 100,000-variant one. Now a sweep gives workers back between variants while
// other jobs wait (an equal share by job): a short job submitted during a long sweep finishes
// long before it, and a small sweep behind a big one on a single worker makes progress while the
// big one pauses (RUNNING, its start kept, saying it waits) and goes on afterwards. Real
// orchestrator and worker processes, variants whole on their workers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "cosimo/client/client.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

// A long variant: the car for 100 s with a vehicle solver step of 1e-5 s (10^7 RK4 substeps),
// about a second whole on a worker; the short job is the plain car (10 s), well under 0.3 s.
v1::Scenario SlowCar() {
  v1::Scenario car = LongCar(100);
  car.mutable_units(1)->mutable_solver()->set_step(1e-5);
  return car;
}

class PoolSharingTest : public DistributedTest {
 protected:
  // Starts `n` workers with slots for one car variant whole each, and waits until they attach.
  void Workers(int n) {
    StartWorkers(n, {"--slots", "2"});
    client::Client client(orchestrator_->address());
    for (int i = 0; i < 800; ++i) {
      absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
      if (workers.ok() && static_cast<int>(workers->size()) == n) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    FAIL() << "the workers did not attach";
  }

  // Until `id` has `done` variants done and holds `busy` workers (or has ended).
  v1::JobStatus WaitForSweep(client::Client& client, const std::string& id, uint64_t done,
                             int busy) {
    for (int i = 0; i < 2400; ++i) {
      absl::StatusOr<v1::JobStatus> s = client.Get(id);
      EXPECT_TRUE(s.ok()) << s.status();
      if (!s.ok() || s->state() > v1::RUNNING) return s.ok() ? *s : v1::JobStatus();
      int holding = 0;
      absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
      if (!workers.ok()) continue;
      for (const v1::WorkerStatus& w : *workers) holding += w.job_id() == id ? 1 : 0;
      if (s->sweep().variants_done() >= done && holding >= busy) return *s;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ADD_FAILURE() << "the sweep did not get there";
    return {};
  }
};

TEST_F(PoolSharingTest, AShortJobDuringALongSweepFinishesLongBeforeIt) {
  Workers(2);
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> sweep = client.SubmitSweep(SlowCar(), GainSweep(40));
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  // Both workers in the sweep's hands: nothing idle for the short job.
  v1::JobStatus status = WaitForSweep(client, *sweep, 1, 2);
  ASSERT_EQ(status.state(), v1::RUNNING) << status.message();
  const auto submitted = Clock::now();
  absl::StatusOr<std::string> job = client.Submit(LongCar(10));
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::JobStatus> done = client.Watch(*job, nullptr, 50);
  const double waited = std::chrono::duration<double>(Clock::now() - submitted).count();
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::SUCCEEDED) << done->message();
  absl::StatusOr<v1::JobStatus> after = client.Get(*sweep);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->state(), v1::RUNNING) << "the sweep ended first: " << after->message();
  EXPECT_LT(after->sweep().variants_done(), 30u);
  // It waited for one variant to end on one of the workers, not for the sweep.
  EXPECT_LT(waited, 15.0);
  EXPECT_THAT(orchestrator_->process().log(), HasSubstr("back to the pool"));
  ASSERT_TRUE(client.Cancel(*sweep).ok());
  EXPECT_EQ(client.Watch(*sweep, nullptr, 50)->state(), v1::CANCELED);
}

TEST_F(PoolSharingTest, ASmallSweepBehindABigOneMakesProgress) {
  Workers(1);
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> big = client.SubmitSweep(SlowCar(), GainSweep(500));
  ASSERT_TRUE(big.ok()) << big.status();
  v1::JobStatus before = WaitForSweep(client, *big, 1, 1);
  ASSERT_EQ(before.state(), v1::RUNNING) << before.message();
  absl::StatusOr<std::string> small = client.SubmitSweep(SlowCar(), GainSweep(3));
  ASSERT_TRUE(small.ok()) << small.status();
  bool paused = false;  // the big one said it waits
  double big_wall = before.wall_seconds();
  absl::StatusOr<v1::JobStatus> s;
  for (int i = 0; i < 2400; ++i) {
    s = client.Get(*small);
    ASSERT_TRUE(s.ok()) << s.status();
    if (s->state() > v1::RUNNING) break;
    absl::StatusOr<v1::JobStatus> b = client.Get(*big);
    ASSERT_TRUE(b.ok()) << b.status();
    ASSERT_EQ(b->state(), v1::RUNNING) << b->message();
    paused = paused || b->message().find("paused") != std::string::npos;
    EXPECT_GE(b->wall_seconds(), big_wall) << "the big sweep started again";
    big_wall = b->wall_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_EQ(s->state(), v1::SUCCEEDED) << s->message();
  EXPECT_EQ(s->sweep().variants_done(), 3u);
  EXPECT_TRUE(paused) << "the big sweep never said it waits";
  absl::StatusOr<v1::JobStatus> b = client.Get(*big);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->state(), v1::RUNNING) << b->message();
  EXPECT_LT(b->sweep().variants_done(), 100u);
  EXPECT_GE(b->wall_seconds(), big_wall) << "the big sweep started again";
  // It goes on with the pool to itself.
  v1::JobStatus later = WaitForSweep(client, *big, b->sweep().variants_done() + 2, 1);
  EXPECT_EQ(later.state(), v1::RUNNING) << later.message();
  EXPECT_THAT(later.message(), Not(HasSubstr("paused")));
  ASSERT_TRUE(client.Cancel(*big).ok());
  EXPECT_EQ(client.Watch(*big, nullptr, 50)->state(), v1::CANCELED);
}

}  // namespace
}  // namespace cosimo::testing
