#include "cosimo/common/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace cosimo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CpuListTest, ReadsNumbersAndRangesAsTasksetDoes) {
  EXPECT_THAT(*ParseCpuList("0", "--cpus"), ElementsAre(0));
  EXPECT_THAT(*ParseCpuList("2-4", "--cpus"), ElementsAre(2, 3, 4));
  // Sorted, each CPU once.
  EXPECT_THAT(*ParseCpuList("5,0-1,1", "--cpus"), ElementsAre(0, 1, 5));
}

TEST(CpuListTest, BadListNamesTheFlagAndThePart) {
  for (const char* bad : {"", "a", "1-", "-1", "3-1", "0,,1", "1.5", "0-9999", "0 1"}) {
    absl::StatusOr<std::vector<int>> list = ParseCpuList(bad, "--cpus");
    ASSERT_FALSE(list.ok()) << "'" << bad << "' was accepted";
    EXPECT_THAT(list.status().message(), HasSubstr("--cpus '")) << bad;
    EXPECT_THAT(list.status().message(), HasSubstr("is not a CPU number or a range")) << bad;
  }
  EXPECT_THAT(ParseCpuList("0,x", "--cpus").status().message(), HasSubstr("'x' is not"));
}

// Pinning holds for the calling thread and the threads it starts; a thread of its own, so that
// the test's other threads keep every CPU.
TEST(PinToCpusTest, PinsTheCallerAndTheThreadsItStarts) {
  const std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  std::vector<int> caller, child;
  absl::Status status;
  std::thread([&] {
    status = PinToCpus({allowed.back()}, "--cpus");
    caller = AllowedCpus();
    std::thread([&] { child = AllowedCpus(); }).join();
  }).join();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(caller, ElementsAre(allowed.back()));
  EXPECT_THAT(child, ElementsAre(allowed.back()));
  EXPECT_EQ(AllowedCpus(), allowed);  // this thread is untouched
}

TEST(PinToCpusTest, CpuThisProcessMayNotUseIsRefusedNamingTheAllowedOnes) {
  const std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  absl::Status status;
  std::thread([&] { status = PinToCpus({allowed.back() + 1}, "--cpus"); }).join();
  // (Unless this machine has more CPUs than this process may use: then the next one may exist
  // but is still outside the process's set, and is refused all the same.)
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("--cpus: CPU " + std::to_string(allowed.back() + 1) + " is not one"));
  EXPECT_THAT(status.message(), HasSubstr("may run on (" + std::to_string(allowed.front())));
  EXPECT_EQ(AllowedCpus(), allowed);
}

// Waits for `pid`; its exit code, or -1 when a signal ended it.
int ExitCode(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

std::string ReadAll(int fd) {
  std::string text;
  char buffer[256];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) text.append(buffer, static_cast<size_t>(n));
  return text;
}

TEST(SpawnProcessTest, TheChildGetsItsDescriptorsAndDefaultSignalHandlers) {
  int out[2], three[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(three, O_CLOEXEC), 0);
  // A handler of ours: the child must not keep it (its SIGUSR1 ends it, as by default).
  struct sigaction action {};
  action.sa_handler = [](int) {};
  struct sigaction before {};
  ASSERT_EQ(sigaction(SIGUSR1, &action, &before), 0);
  absl::StatusOr<pid_t> pid =
      SpawnProcess({"/bin/sh", "-c", "echo out; echo three >&3; kill -USR1 $$; echo survived"},
                   {.stdout_fd = out[1], .fd3 = three[1], .own_process_group = true});
  sigaction(SIGUSR1, &before, nullptr);
  close(out[1]);
  close(three[1]);
  ASSERT_TRUE(pid.ok()) << pid.status();
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1) << status;
  EXPECT_EQ(ReadAll(out[0]), "out\n");  // not "survived": the default action ended it
  EXPECT_EQ(ReadAll(three[0]), "three\n");
  close(out[0]);
  close(three[0]);
}

TEST(SpawnProcessTest, ItsOwnProcessGroupOnlyWhenAsked) {
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  absl::StatusOr<pid_t> own = SpawnProcess({"/bin/sh", "-c", "cut -d\" \" -f5 /proc/$$/stat"},
                                           {.stdout_fd = out[1], .own_process_group = true});
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(ExitCode(*own), 0);
  absl::StatusOr<pid_t> shared =
      SpawnProcess({"/bin/sh", "-c", "cut -d\" \" -f5 /proc/$$/stat"}, {.stdout_fd = out[1]});
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(ExitCode(*shared), 0);
  close(out[1]);
  std::string text = ReadAll(out[0]);
  close(out[0]);
  int first = 0, second = 0;
  ASSERT_EQ(std::sscanf(text.c_str(), "%d %d", &first, &second), 2) << text;
  EXPECT_EQ(first, *own);        // it leads its group
  EXPECT_EQ(second, getpgrp());  // ours
}

// The child's 2 given as our descriptor 3 while its 3 is another: each reaches its own.
TEST(SpawnProcessTest, ADescriptorThatIsAnothersTargetStillReachesItsOwn) {
  // Whatever this program has as 3 (kept aside), else /dev/null there: the pipes come above it.
  const int saved = fcntl(3, F_DUPFD_CLOEXEC, 100);
  if (saved < 0) {
    ASSERT_EQ(open("/dev/null", O_RDONLY | O_CLOEXEC), 3);
  }
  int err[2], three[2];
  ASSERT_EQ(pipe2(err, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(three, O_CLOEXEC), 0);
  ASSERT_EQ(dup3(err[1], 3, O_CLOEXEC), 3);
  absl::StatusOr<pid_t> pid = SpawnProcess({"/bin/sh", "-c", "echo two >&2; echo three >&3"},
                                           {.stderr_fd = 3, .fd3 = three[1]});
  if (saved >= 0) {
    dup3(saved, 3, O_CLOEXEC);
    close(saved);
  } else {
    close(3);
  }
  close(err[1]);
  close(three[1]);
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(ExitCode(*pid), 0);
  EXPECT_EQ(ReadAll(err[0]), "two\n");
  EXPECT_EQ(ReadAll(three[0]), "three\n");
  close(err[0]);
  close(three[0]);
}

TEST(SpawnProcessTest, AProgramThatCannotBeRunEndsTheChildWith127) {
  absl::StatusOr<pid_t> pid = SpawnProcess({"/nonexistent/program"});
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(ExitCode(*pid), 127);
  EXPECT_FALSE(SpawnProcess({}).ok());
}

TEST(ForkProcessTest, TheChildRunsTheFunctionWithOnlyItsDescriptorsAndEndsWithItsResult) {
  int out[2], three[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(three, O_CLOEXEC), 0);
  const int other = open("/dev/null", O_RDONLY | O_CLOEXEC);  // not the child's
  ASSERT_GT(other, 3);
  struct sigaction action {};
  action.sa_handler = [](int) {};
  struct sigaction before {};
  ASSERT_EQ(sigaction(SIGUSR1, &action, &before), 0);
  const pid_t parent = getpid();
  int value = 41;  // the child's copy, written there, not here
  absl::StatusOr<pid_t> pid = ForkProcess(
      [&] {
        ++value;
        const bool own = getpid() != parent && getppid() == parent;
        const bool other_closed = fcntl(other, F_GETFD) == -1 && errno == EBADF;
        struct sigaction now {};
        sigaction(SIGUSR1, nullptr, &now);
        std::printf("%d %d %d %d", value, own, other_closed, now.sa_handler == SIG_DFL);
        (void)!write(3, "three", 5);
        return 7;
      },
      {.stdout_fd = out[1], .fd3 = three[1]});
  sigaction(SIGUSR1, &before, nullptr);
  close(out[1]);
  close(three[1]);
  close(other);
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(ExitCode(*pid), 7);
  EXPECT_EQ(value, 41);
  EXPECT_EQ(ReadAll(out[0]), "42 1 1 1");  // printf's buffer flushed before _exit
  EXPECT_EQ(ReadAll(three[0]), "three");
  close(out[0]);
  close(three[0]);
}

TEST(ForkProcessTest, AnExceptionEndsTheChildWith70AndNeverReturnsToTheCaller) {
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  absl::StatusOr<pid_t> pid =
      ForkProcess([]() -> int { throw std::runtime_error("no"); }, {.stdout_fd = out[1]});
  close(out[1]);
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(ExitCode(*pid), 70);
  EXPECT_EQ(ReadAll(out[0]), "");
  close(out[0]);
}

// In a forked child (one thread) ForkKeepsNoLocks is true until it starts another thread, and
// stays true beside one counted as waiting for signals. (Checked there: this test program may
// run threads of earlier tests.)
TEST(ForkProcessTest, ForkKeepsNoLocksCountsTheThreadsBesideTheCaller) {
  absl::StatusOr<pid_t> pid = ForkProcess([] {
    int failures = 0;
    if (!ForkKeepsNoLocks()) failures |= 1;
    absl::Mutex mutex;
    bool done = false;
    std::thread other([&] {
      absl::MutexLock lock(&mutex);
      mutex.Await(absl::Condition(&done));
    });
    // The thread exists once it runs: wait for /proc to count it.
    for (int i = 0; i < 1000 && ForkKeepsNoLocks(); ++i) usleep(1000);
    if (ForkKeepsNoLocks()) failures |= 2;
    CountSignalWaitingThread();  // as if `other` only waited for signals
    if (!ForkKeepsNoLocks()) failures |= 4;
    {
      absl::MutexLock lock(&mutex);
      done = true;
    }
    other.join();
    return failures;
  });
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(ExitCode(*pid), 0) << "1: not true alone, 2: not false beside a thread, "
                                  "4: a counted thread still counted";
}

}  // namespace
}  // namespace cosimo
