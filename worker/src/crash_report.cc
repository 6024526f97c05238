#include "cosimo/worker/crash_report.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cosimo/common/crash.h"
#include "cosimo/units/crash_context.h"

namespace cosimo::worker {
namespace {

int crash_fd = -1;                // the crash file, opened before any crash (-1: none)
int terminal_fd = STDERR_FILENO;  // the worker's own standard error (InstallCrashReport)

// Async-signal-safe text building into a fixed buffer: no allocation, no locale, no stdio.
struct Line {
  char text[1024];
  size_t size = 0;

  void Add(const char* s) {
    for (; s != nullptr && *s != '\0' && size + 1 < sizeof(text); ++s) text[size++] = *s;
  }
  void AddInt(int64_t v) {
    char digits[24];
    int n = 0;
    const bool negative = v < 0;
    uint64_t u = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (negative) Add("-");
    while (n > 0 && size + 1 < sizeof(text)) text[size++] = digits[--n];
  }
  void AddHex(uint64_t v) {
    for (int shift = 60; shift >= 0; shift -= 4) {
      const char digit[2] = {"0123456789abcdef"[(v >> shift) & 0xf], '\0'};
      Add(digit);
    }
  }
};

const char* SignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
  }
  return "SIGNAL";
}

void WriteAll(int fd, const Line& line) {
  size_t done = 0;
  while (done < line.size) {
    const ssize_t n = write(fd, line.text + done, line.size - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

void OnFatalSignal(int sig) {
  const units::CrashContext& c = units::ThisThreadCrashContext();
  uint64_t bits = 0;
  std::memcpy(&bits, &c.time, sizeof bits);
  Line report;
  report.Add("cosimo-crash ");
  report.Add(SignalName(sig));
  report.Add(" variant=");
  report.AddInt(c.variant);
  report.Add(" time=");
  report.AddHex(bits);
  report.Add(" job=");
  report.Add(c.job);
  report.Add(" unit=");
  report.Add(c.unit);
  report.Add("\n");
  if (crash_fd >= 0) WriteAll(crash_fd, report);
  Line human;
  human.Add("cosimo-worker: fatal signal ");
  human.Add(SignalName(sig));
  if (c.unit != nullptr) {
    human.Add(" in unit '");
    human.Add(c.unit);
    human.Add("'");
  }
  if (c.job != nullptr) {
    human.Add(" of job ");
    human.Add(c.job);
  }
  if (c.variant >= 0) {
    human.Add(" (sweep variant ");
    human.AddInt(c.variant);
    human.Add(")");
  }
  human.Add("; the process ends\n");
  WriteAll(terminal_fd, human);
  // SA_RESETHAND restored the default action: the fault happens again on return (or abort()
  // raises again) and ends the process with the signal, as without this handler.
}

}  // namespace

void InstallCrashReport(const std::string& path, int stderr_fd) {
  terminal_fd = stderr_fd;
  if (!path.empty()) {
    crash_fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (crash_fd < 0) {
      spdlog::warn(
          "the crash file '{}' cannot be opened ({}): a crash is reported on standard "
          "error only",
          path, std::strerror(errno));
    }
  }
  struct sigaction action {};
  action.sa_handler = OnFatalSignal;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &action, nullptr);
}

std::optional<v1::CrashReport> ParseCrashLine(const std::string& line) {
  std::istringstream in(line);
  std::string tag, signal, variant, time;
  if (!(in >> tag >> signal >> variant >> time) || tag != "cosimo-crash" ||
      variant.rfind("variant=", 0) != 0 || time.rfind("time=", 0) != 0) {
    return std::nullopt;
  }
  const size_t job_at = line.find(" job=");
  const size_t unit_at = line.find(" unit=", job_at == std::string::npos ? 0 : job_at);
  if (job_at == std::string::npos || unit_at == std::string::npos) return std::nullopt;
  v1::CrashReport report;
  report.set_signal(signal);
  try {
    report.set_variant(std::stoll(variant.substr(8)));
    const uint64_t bits = std::stoull(time.substr(5), nullptr, 16);
    double t = 0.0;
    std::memcpy(&t, &bits, sizeof t);
    report.set_time(t);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  report.set_job_id(line.substr(job_at + 5, unit_at - job_at - 5));
  std::string unit = line.substr(unit_at + 6);
  while (!unit.empty() && (unit.back() == '\n' || unit.back() == '\r')) unit.pop_back();
  report.set_unit(unit);
  return report;
}

std::optional<v1::CrashReport> TakeCrashReport(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line)) return std::nullopt;
  file.close();
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  std::optional<v1::CrashReport> report = ParseCrashLine(line);
  if (report) spdlog::warn("the worker before this one crashed: {}", DescribeCrash(*report));
  return report;
}

}  // namespace cosimo::worker
