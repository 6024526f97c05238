#include "harness.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cosimo/common/process.h"

namespace cosimo::bench {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// Three significant digits, no exponent for the usual ranges.
std::string Pretty(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  const double a = std::abs(v);
  if (a >= 100.0 || a == 0.0) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else if (a >= 10.0) {
    std::snprintf(buf, sizeof(buf), "%.1f", v);
  } else if (a >= 0.01) {
    std::snprintf(buf, sizeof(buf), "%.3g", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2e", v);
  }
  return buf;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string UtcDate() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

}  // namespace

double Median(std::vector<double> samples) { return Quantile(std::move(samples), 0.5); }

double Quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0.0;
  const size_t k = std::min(samples.size() - 1,
                            static_cast<size_t>(q * static_cast<double>(samples.size() - 1) + 0.5));
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(k),
                   samples.end());
  return samples[k];
}

std::string Report::Table() const {
  std::ostringstream out;
  out << "| figure | what | value | baseline | ratio | target | met |\n"
      << "|---|---|---|---|---|---|---|\n";
  for (const Figure& f : figures_) {
    out << "| " << f.id << " | " << f.title << " | " << Pretty(f.value) << " " << f.unit << " | "
        << Pretty(f.baseline) << " " << f.unit << " | " << Pretty(f.ratio) << " | "
        << (f.target.empty() ? "-" : f.target) << " | "
        << (f.target.empty() ? "-" : (f.met ? "yes" : "**no**")) << " |\n";
  }
  return out.str();
}

std::string Report::Json(const std::string& mode) const {
  std::ostringstream out;
  out << "{\n  \"machine\": {\"nproc\": " << std::thread::hardware_concurrency()
      << ", \"cpu\": " << JsonString(CpuModel()) << ", \"date\": " << JsonString(UtcDate())
      << "},\n  \"mode\": " << JsonString(mode) << ",\n  \"figures\": [\n";
  for (size_t i = 0; i < figures_.size(); ++i) {
    const Figure& f = figures_[i];
    out << "    {\"id\": " << JsonString(f.id) << ", \"title\": " << JsonString(f.title)
        << ", \"value\": " << JsonNumber(f.value) << ", \"baseline\": " << JsonNumber(f.baseline)
        << ", \"unit\": " << JsonString(f.unit) << ", \"ratio\": " << JsonNumber(f.ratio)
        << ", \"target\": " << JsonString(f.target) << ", \"met\": " << (f.met ? "true" : "false")
        << ", \"note\": " << JsonString(f.note) << "}" << (i + 1 < figures_.size() ? "," : "")
        << "\n";
  }
  out << "  ]\n}\n";
  return out.str();
}

std::string MachineDescription() {
  return absl::StrCat("nproc ", std::thread::hardware_concurrency(), ", ", CpuModel(), ", ",
                      UtcDate());
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& log_path) {
  // Not a fork: this process is large (the figures' loops, their FMUs), and a fork's copy of its
  // page tables and the faults after it counted in the programs timed (fig9.startup).
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  absl::StatusOr<pid_t> pid =
      SpawnProcess(argv, {.stdout_fd = log, .stderr_fd = log, .death_signal = SIGKILL});
  if (log >= 0) close(log);
  pid_ = pid.ok() ? *pid : -1;
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 200; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

SchedStat ProcessSchedStat(pid_t pid) {
  const std::string dir = pid == 0 ? "/proc/self/task" : absl::StrCat("/proc/", pid, "/task");
  SchedStat total;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    // "<ns on CPU> <ns waiting for a CPU> <times run on a CPU>"
    std::ifstream in(entry.path() / "schedstat");
    int64_t ns = 0, waited = 0, runs = 0;
    if (in >> ns >> waited >> runs) {
      total.cpu_ns += ns;
      total.runs += runs;
    }
  }
  return total;
}

double Usage::CpuUsPer() const {
  return count > 0 ? static_cast<double>(total.cpu_ns) / static_cast<double>(count) / 1e3 : 0.0;
}

double Usage::RunsPer() const {
  return count > 0 ? static_cast<double>(total.runs) / static_cast<double>(count) : 0.0;
}

Usage::Span::Span(std::vector<pid_t> pids, Usage* usage)
    : pids_(std::move(pids)), usage_(usage), start_(Sample()) {}

void Usage::Span::Stop(int64_t count) {
  const SchedStat end = Sample();
  usage_->total.cpu_ns += end.cpu_ns - start_.cpu_ns;
  usage_->total.runs += end.runs - start_.runs;
  usage_->count += count;
}

SchedStat Usage::Span::Sample() const {
  SchedStat sum;
  for (pid_t pid : pids_) {
    const SchedStat s = ProcessSchedStat(pid);
    sum.cpu_ns += s.cpu_ns;
    sum.runs += s.runs;
  }
  return sum;
}

int ChildProcess::Wait() {
  if (pid_ <= 0) return -1;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, 0);
  pid_ = -1;
  if (r <= 0 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

namespace {
bool pin_peers = true;
}  // namespace

void SetPinPeers(bool pin) { pin_peers = pin; }
bool PinPeers() { return pin_peers; }

int PeerCpu(int k) {
  if (!pin_peers) return -1;
  const std::vector<int> cpus = AllowedCpus();
  return cpus.empty() ? -1 : cpus[static_cast<size_t>(k) % cpus.size()];
}

std::string SelfPath() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace cosimo::bench
