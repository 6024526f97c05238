// The benchmark harness: a monotonic clock, robust statistics (medians of samples), the figure
// table and its JSON file, and child processes (cosimo-worker, the ping-pong peer).
//
// Every figure is a ratio of two medians measured in the same run, so that a machine shared with
// compilers changes both sides alike. Baselines and subjects are measured in interleaved rounds
// where that is possible (see the callers). Not thread safe unless a function says so.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace cosimo::bench {

// Nanoseconds on the steady clock.
inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Keeps the compiler from dropping a computation whose result is otherwise unused.
template <typename T>
inline void DoNotOptimize(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

// Median of `samples` (reordered). 0 for no samples.
double Median(std::vector<double> samples);
// The q-quantile (0..1) of `samples`, nearest rank.
double Quantile(std::vector<double> samples, double q);

// Runs `body` (which does `batch` operations) `rounds` times and returns the median time of
// one operation, ns.
template <typename Body>
double MedianPerOp(int rounds, int batch, Body&& body) {
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(rounds));
  for (int r = 0; r < rounds; ++r) {
    const int64_t start = NowNs();
    body();
    samples.push_back(static_cast<double>(NowNs() - start) / batch);
  }
  return Median(std::move(samples));
}

// One row of the result table: a figure, its baseline, the ratio and the target.
struct Figure {
  std::string id;         // "fig1", "fig2.32", ...
  std::string title;      // what is measured
  double value = 0.0;     // the subject, in `unit`
  double baseline = 0.0;  // the baseline, in `unit`
  std::string unit;       // of value and baseline, e.g. "us"
  double ratio = 0.0;     // value / baseline (or the figure's own definition)
  std::string target;     // e.g. "<= 1.5"; empty: informational
  bool met = true;        // ratio within target (true when informational)
  std::string note;       // how it was measured (sample counts, sizes)
};

class Report {
 public:
  void Add(Figure figure) { figures_.push_back(std::move(figure)); }
  const std::vector<Figure>& figures() const { return figures_; }
  // The table as printed and as copied into docs/benchmarks.md (GitHub Markdown).
  std::string Table() const;
  // {"machine": {...}, "mode": ..., "figures": [{...}, ...]}.
  std::string Json(const std::string& mode) const;

 private:
  std::vector<Figure> figures_;
};

// "nproc N, <CPU model>, <UTC date>".
std::string MachineDescription();

// A child process started by SpawnProcess, its stdout and stderr to `log_path`; killed (SIGTERM,
// then SIGKILL) and reaped on destruction. The child dies with this process (PR_SET_PDEATHSIG).
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  pid_t pid() const { return pid_; }
  // Waits for the child to exit; its exit code (-1 if it was killed by a signal).
  int Wait();

 private:
  pid_t pid_ = -1;
};

// What the scheduler counted so far for every thread of process `pid` (0: this process), from
// /proc/<pid>/task/*/schedstat: CPU time, and how many times a thread was put on a CPU (a
// thread wake-up or a preemption each). Threads that already exited are not counted.
struct SchedStat {
  int64_t cpu_ns = 0;
  int64_t runs = 0;
};
SchedStat ProcessSchedStat(pid_t pid);

// CPU time and thread runs of some processes over measured spans, per unit of work.
struct Usage {
  SchedStat total;
  int64_t count = 0;  // units of work (steps, ping-pongs) measured

  double CpuUsPer() const;
  double RunsPer() const;

  // Measures `pids` (0: this process) from construction to Stop(count).
  class Span {
   public:
    Span(std::vector<pid_t> pids, Usage* usage);
    void Stop(int64_t count);

   private:
    SchedStat Sample() const;
    std::vector<pid_t> pids_;
    Usage* usage_;
    SchedStat start_;
  };
};

// The path of this executable (/proc/self/exe).
std::string SelfPath();

// Where the peer processes of a measurement run: the worker processes of figures 1-3 and the
// peers of every ping-pong and fan-out they are compared with. Pinned (the default), the k-th
// peer process of a measurement runs on the k-th CPU this process may use (modulo their count),
// on both sides of every comparison alike; the orchestrator's side (this process, a ping server)
// is never pinned. Unpinned, the kernel places them (cosimo-bench --no-pin). docs/benchmarks.md,
// "Placement", says why.
void SetPinPeers(bool pin);
bool PinPeers();
// The CPU of the k-th peer process, or -1 when peers are not pinned.
int PeerCpu(int k);

}  // namespace cosimo::bench
