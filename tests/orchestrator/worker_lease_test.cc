// WorkerLease gives its workers back exactly once on every path out of a job: an explicit
// Release followed by the destructor, the destructor alone, an early return, an exception, and
// moves (the moved-from lease gives nothing back; an assigned-over one gives its own back first).
// The releaser is a counter, not a pool: no workers, no threads.
#include "orchestrator/src/worker_lease.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace cosimo::orchestrator {
namespace {

// Counts the releases of the leases it makes, and how many workers each gave back.
struct Releases {
  std::vector<size_t> sizes;
  WorkerLease Lease(size_t workers) {
    return WorkerLease(WorkerLease::Workers(workers),
                       [this](const WorkerLease::Workers& held) { sizes.push_back(held.size()); });
  }
};

TEST(WorkerLeaseTest, AReleaseBeforeTheEndIsTheOnlyOne) {
  Releases releases;
  {
    WorkerLease lease = releases.Lease(2);
    EXPECT_TRUE(lease.held());
    lease.Release();
    EXPECT_FALSE(lease.held());
    EXPECT_EQ(lease.workers().size(), 2u) << "still readable after the release";
    lease.Release();
  }
  EXPECT_EQ(releases.sizes, std::vector<size_t>{2});
}

TEST(WorkerLeaseTest, TheDestructorReleasesWhatWasNotReleased) {
  Releases releases;
  { WorkerLease lease = releases.Lease(3); }
  EXPECT_EQ(releases.sizes, std::vector<size_t>{3});
}

// A job thread that leaves early (its checkpoint or scenario could not be read back).
TEST(WorkerLeaseTest, AnEarlyReturnReleasesOnce) {
  Releases releases;
  auto run = [&](bool fail_early) {
    WorkerLease lease = releases.Lease(1);
    if (fail_early) return;
    lease.Release();
  };
  run(true);
  run(false);
  EXPECT_EQ(releases.sizes, (std::vector<size_t>{1, 1}));
}

TEST(WorkerLeaseTest, AnExceptionReleasesOnce) {
  Releases releases;
  try {
    WorkerLease lease = releases.Lease(2);
    throw std::runtime_error("a runner failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(releases.sizes, std::vector<size_t>{2});
}

TEST(WorkerLeaseTest, AMovedLeaseIsReleasedOnceByItsNewOwner) {
  Releases releases;
  {
    WorkerLease first = releases.Lease(2);
    WorkerLease second(std::move(first));
    EXPECT_FALSE(first.held());  // NOLINT(bugprone-use-after-move): moved-from holds nothing
    EXPECT_TRUE(second.held());
    first.Release();
    EXPECT_TRUE(releases.sizes.empty());
  }
  EXPECT_EQ(releases.sizes, std::vector<size_t>{2});
}

TEST(WorkerLeaseTest, AssigningOverALeaseReleasesItFirst) {
  Releases releases;
  {
    WorkerLease lease = releases.Lease(1);
    lease = releases.Lease(4);
    EXPECT_EQ(releases.sizes, std::vector<size_t>{1});
    EXPECT_EQ(lease.workers().size(), 4u);
  }
  EXPECT_EQ(releases.sizes, (std::vector<size_t>{1, 4}));
}

TEST(WorkerLeaseTest, AnEmptyLeaseReleasesNothing) {
  WorkerLease lease;
  EXPECT_FALSE(lease.held());
  lease.Release();
}

}  // namespace
}  // namespace cosimo::orchestrator
