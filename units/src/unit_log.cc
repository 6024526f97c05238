#include "cosimo/units/unit_log.h"

#include <fcntl.h>
#include <stdio_ext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/units/crash_context.h"

namespace cosimo::units {
namespace {

std::atomic<bool> enabled{false};
std::atomic<bool> captured{false};
int stdout_pipe = -1;  // the reading ends of the capture pipes (CaptureOutput)
int stderr_pipe = -1;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Book {
 public:
  // A line of `job`'s `unit`, within the job's bound.
  void Add(v1::LogEntry entry) ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    AddLocked(std::move(entry));
  }

  // Output lines of the calling thread's command, else of the command drained last.
  void AddOutput(const char* source, const std::string& text) ABSL_LOCKS_EXCLUDED(mutex_) {
    const CrashContext& call = ThisThreadCrashContext();
    absl::MutexLock lock(&mutex_);
    if (call.job != nullptr && call.unit != nullptr) {
      last_job_ = call.job;
      last_unit_ = call.unit;
      last_time_ = call.time;
    }
    if (last_job_.empty()) return;  // printed before any unit ran: nobody's
    size_t begin = 0;
    while (begin < text.size()) {
      size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      v1::LogEntry line;
      line.set_job_id(last_job_);
      line.set_unit(last_unit_);
      line.set_source(source);
      line.set_text(text.substr(begin, end - begin));
      line.set_time(last_time_);
      line.set_unix_ms(NowMs());
      AddLocked(std::move(line));
      begin = end + 1;
    }
  }

  std::vector<v1::LogEntry> Take() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    std::vector<v1::LogEntry> taken;
    taken.swap(lines_);
    return taken;
  }

 private:
  void AddLocked(v1::LogEntry entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    size_t& bytes = bytes_[entry.job_id()];
    if (bytes >= kMaxLogBytesPerJob) return;
    bytes += entry.text().size() + 1;
    if (bytes >= kMaxLogBytesPerJob) {
      entry.set_source("cosimo");
      entry.clear_status();
      entry.clear_category();
      entry.set_text("the job's log from this worker is over " +
                     std::to_string(kMaxLogBytesPerJob >> 20) +
                     " MiB: its further lines are dropped");
    }
    lines_.push_back(std::move(entry));
  }

  absl::Mutex mutex_;
  std::vector<v1::LogEntry> lines_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, size_t> bytes_ ABSL_GUARDED_BY(mutex_);  // text kept, per job
  std::string last_job_ ABSL_GUARDED_BY(mutex_);
  std::string last_unit_ ABSL_GUARDED_BY(mutex_);
  double last_time_ ABSL_GUARDED_BY(mutex_) = 0.0;
};

Book& TheBook() {
  static Book* book = new Book;  // never destroyed: units may log while the process exits
  return *book;
}

// Reads the pipe `fd` (non-blocking) to its end.
std::string ReadAvailable(int fd) {
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return text;
  }
}

// A pipe whose ends are close-on-exec and non-blocking, of 1 MiB where the system allows.
bool MakePipe(int ends[2]) {
  if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  (void)fcntl(ends[0], F_SETPIPE_SZ, 1 << 20);  // else the default 64 KiB
  return true;
}

}  // namespace

void EnableUnitLog() { enabled.store(true, std::memory_order_relaxed); }
bool UnitLogEnabled() { return enabled.load(std::memory_order_relaxed); }

bool AddUnitLogLine(const char* source, const char* status, const char* category,
                    std::string text) {
  if (!UnitLogEnabled()) return false;
  const CrashContext& call = ThisThreadCrashContext();
  if (call.job == nullptr || call.unit == nullptr) return false;
  v1::LogEntry line;
  line.set_job_id(call.job);
  line.set_unit(call.unit);
  line.set_source(source);
  line.set_status(status != nullptr ? status : "");
  line.set_category(category != nullptr ? category : "");
  line.set_text(std::move(text));
  line.set_time(call.time);
  line.set_unix_ms(NowMs());
  TheBook().Add(std::move(line));
  return true;
}

std::vector<v1::LogEntry> TakeUnitLogLines() {
  DrainOutput();  // what was written straight to the descriptors too
  return TheBook().Take();
}

int CaptureOutput() {
  int out[2], err[2];
  if (!MakePipe(out)) return -1;
  if (!MakePipe(err)) {
    close(out[0]);
    close(out[1]);
    return -1;
  }
  const int original = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  if (original < 0) return -1;
  std::fflush(stdout);
  std::fflush(stderr);
  // dup2 leaves descriptors 1 and 2 inheritable, and non-blocking (a flag of the pipe's end).
  if (dup2(out[1], STDOUT_FILENO) < 0 || dup2(err[1], STDERR_FILENO) < 0) return -1;
  close(out[1]);
  close(err[1]);
  stdout_pipe = out[0];
  stderr_pipe = err[0];
  // Fully buffered: OutputPending sees what a command printed without a system call.
  static char out_buffer[1 << 16], err_buffer[1 << 16];
  std::setvbuf(stdout, out_buffer, _IOFBF, sizeof(out_buffer));
  std::setvbuf(stderr, err_buffer, _IOFBF, sizeof(err_buffer));
  EnableUnitLog();
  captured.store(true, std::memory_order_release);
  return original;
}

bool OutputPending() {
  return captured.load(std::memory_order_relaxed) &&
         (__fpending(stdout) != 0 || __fpending(stderr) != 0);
}

void DrainOutput() {
  if (!captured.load(std::memory_order_acquire)) return;
  std::fflush(stdout);
  std::fflush(stderr);
  if (std::string out = ReadAvailable(stdout_pipe); !out.empty()) {
    TheBook().AddOutput("stdout", out);
  }
  if (std::string err = ReadAvailable(stderr_pipe); !err.empty()) {
    TheBook().AddOutput("stderr", err);
  }
}

}  // namespace cosimo::units
