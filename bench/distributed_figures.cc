// Figures 1-3: real cosimo-worker processes over loopback against the raw gRPC round trip.
//
// Baseline and subject alternate in rounds (ping-pong, run, ping-pong, run, ...) so that a
// compiler starting on the other core slows both alike; every figure is a ratio of medians.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "figures.h"
#include "harness.h"
#include "ping_pong.h"
#include "scenarios.h"
#include "step_timer.h"

namespace cosimo::bench {
namespace {

constexpr double kNsPerUs = 1e3;

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

// Runs `scenario` on the cluster and appends its per-step durations (and per-iteration costs).
// Units without a worker label run one per worker process ("single"); fig2.N.slots pins its units
// to the slotted workers ("slots").
absl::Status TimeRun(WorkerCluster& cluster, v1::Scenario scenario, int steps,
                     std::vector<double>* durations, std::vector<double>* per_iteration,
                     uint64_t* iterations, int64_t* elapsed_ns, uint64_t* commands = nullptr) {
  for (v1::Unit& unit : *scenario.mutable_units()) {
    if (unit.worker_label().empty()) unit.set_worker_label("single");
  }
  StepTimer timer(static_cast<size_t>(steps));
  absl::StatusOr<master::MasterResult> result = cluster.Run(scenario, &timer, commands);
  if (!result.ok()) return result.status();
  if (durations != nullptr) timer.AppendDurations(durations);
  if (per_iteration != nullptr) timer.AppendPerIteration(per_iteration);
  if (iterations != nullptr) *iterations += timer.iterations();
  if (elapsed_ns != nullptr) *elapsed_ns += timer.elapsed_ns();
  return absl::OkStatus();
}

// Wall time in us of one `cosimo run` of the 2-unit ring with `steps` steps: the whole process
// (an embedded orchestrator, its worker processes, the job, the results CSV), as a user runs it.
absl::StatusOr<double> TimeCosimoRun(const std::string& cosimo, int steps, const std::string& log) {
  namespace fs = std::filesystem;
  const std::string dir =
      fs::temp_directory_path() / ("cosimo-bench-run-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string scenario = dir + "/ring.json";
  std::ofstream(scenario) << ScenarioToJson(RingScenario(2, steps));
  const auto start = std::chrono::steady_clock::now();
  ChildProcess run({cosimo, "run", scenario, "--out", dir + "/ring.csv"}, log);
  const int code = run.Wait();
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  if (code != 0) {
    return absl::InternalError(absl::StrCat("'", cosimo, " run' failed (see ", log, ")"));
  }
  return us;
}

// The median of samples[from..] over the median of baseline[baseline_from..]: one round's
// ratio, its two sides measured one right after the other.
double PairRatio(const std::vector<double>& samples, size_t from,
                 const std::vector<double>& baseline, size_t baseline_from) {
  const auto begin = [](const std::vector<double>& v, size_t i) {
    return v.begin() + static_cast<std::ptrdiff_t>(i);
  };
  return Median({begin(samples, from), samples.end()}) /
         Median({begin(baseline, baseline_from), baseline.end()});
}

// "(3 rounds: 1.08 to 1.21)".
std::string RatioRange(const std::vector<double>& ratios) {
  if (ratios.empty()) return "(no round)";
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  return absl::StrCat("(", ratios.size(), " rounds: ", Fixed(*lo, 2), " to ", Fixed(*hi, 2), ")");
}

// "CPU 180.5 us (orchestrator 112.5, workers 68.0), thread runs 4.29 orchestrator + 2.17
// workers": the cost per unit of work of this process and of the workers.
std::string SplitCost(const Usage& self, const Usage& workers) {
  return absl::StrCat("CPU ", Fixed(self.CpuUsPer() + workers.CpuUsPer(), 1), " us (orchestrator ",
                      Fixed(self.CpuUsPer(), 1), ", workers ", Fixed(workers.CpuUsPer(), 1),
                      "), thread runs ", Fixed(self.RunsPer(), 2), " orchestrator + ",
                      Fixed(workers.RunsPer(), 2), " workers");
}

// Ping-pongs of one mode, each batch measured in a child process of its own, pooled.
struct PingSeries {
  std::vector<double> samples;
  double cpu_us_total = 0.0;
  double runs_total = 0.0;
  double peer_cpu_us_total = 0.0;
  double peer_runs_total = 0.0;

  absl::Status Measure(PingMode mode, int count, int peers, const std::string& log_path) {
    COSIMO_ASSIGN_OR_RETURN(PingResult r, MeasurePingPong(mode, count, peers, log_path));
    const double n = static_cast<double>(r.samples.size());
    samples.insert(samples.end(), r.samples.begin(), r.samples.end());
    cpu_us_total += r.cpu_us * n;
    runs_total += r.runs * n;
    peer_cpu_us_total += r.peer_cpu_us * n;
    peer_runs_total += r.peer_runs * n;
    return absl::OkStatus();
  }
  double MedianUs() const { return Median(samples) / kNsPerUs; }
  double CpuUs() const { return samples.empty() ? 0.0 : cpu_us_total / samples.size(); }
  double Runs() const { return samples.empty() ? 0.0 : runs_total / samples.size(); }
  double PeerCpuUs() const { return samples.empty() ? 0.0 : peer_cpu_us_total / samples.size(); }
  double PeerRuns() const { return samples.empty() ? 0.0 : peer_runs_total / samples.size(); }
  // "CPU 85.2 us, thread runs 4.84" per round trip.
  std::string Cost() const {
    return absl::StrCat("CPU ", Fixed(CpuUs(), 1), " us, thread runs ", Fixed(Runs(), 2));
  }
};

}  // namespace

bool Options::Wants(const std::string& id) const {
  if (only.empty()) return true;
  std::string list = "," + only + ",";
  return list.find("," + id + ",") != std::string::npos;
}

absl::Status RunDistributedFigures(const Options& options, Report* report) {
  const bool smoke = options.smoke;
  const int rounds = smoke ? 1 : 8;
  const int pings_per_round = smoke ? 200 : 10000;
  const int jacobi_steps = smoke ? 300 : options.jacobi_steps;
  std::vector<int> scaling = options.scaling_units;
  if (smoke) scaling = {2, 4};
  const int max_units =
      options.Wants("fig2") ? std::max(2, *std::max_element(scaling.begin(), scaling.end())) : 2;

  const MessageSizes sizes = StepMessageSizes(1, 1);
  const std::string& log = options.log_path;
  // fig2.N.slots: N units on 2 worker processes of N/2 slots each, beside the one-slot workers.
  const int slotted = options.Wants("fig2") && max_units >= 4 ? 2 : 0;
  COSIMO_ASSIGN_OR_RETURN(
      std::unique_ptr<WorkerCluster> cluster,
      WorkerCluster::Start(max_units, options.worker_binary, log, slotted, max_units / 2));
  // Warm-up: connections, allocator, caches (each ping-pong process warms itself up).
  COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, RingScenario(2, smoke ? 50 : 2000), smoke ? 50 : 2000,
                                 nullptr, nullptr, nullptr, nullptr));

  // ---- Figure 1: two units, Jacobi (also the round trip that figure 2 quotes).
  PingSeries rtt, handoff, callback, callback_handoff, single_poller, fan_out;
  std::vector<double> steps;
  std::vector<double> transport_ratios;  // per round: its steps against the fan-out beside them
  const int per_round = options.Wants("fig1") ? jacobi_steps / rounds : 0;
  // CPU time and thread runs of this process (the orchestrator's side) and the workers, to tell
  // the CPU cost of a step from its latency.
  const std::vector<pid_t> workers = cluster->worker_pids();
  Usage step_self, step_workers;
  const int variant_pings = pings_per_round / 2;
  for (int r = 0; r < rounds && per_round > 0; ++r) {
    COSIMO_RETURN_IF_ERROR(rtt.Measure(PingMode::kSync, pings_per_round, 1, log));

    Usage::Span self({0}, &step_self), others(workers, &step_workers);
    const size_t before = steps.size();
    COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, RingScenario(2, per_round), per_round, &steps, nullptr,
                                   nullptr, nullptr));
    self.Stop(static_cast<int64_t>(steps.size() - before + 1));
    others.Stop(static_cast<int64_t>(steps.size() - before + 1));
    // The transport's own fan-out right after the steps, so that the pair sees the same machine.
    const size_t fan_before = fan_out.samples.size();
    COSIMO_RETURN_IF_ERROR(fan_out.Measure(PingMode::kSinglePoller, variant_pings, 2, log));
    transport_ratios.push_back(PairRatio(steps, before, fan_out.samples, fan_before));

    COSIMO_RETURN_IF_ERROR(handoff.Measure(PingMode::kSyncHandoff, variant_pings, 1, log));
    COSIMO_RETURN_IF_ERROR(callback.Measure(PingMode::kCallback, variant_pings, 1, log));
    COSIMO_RETURN_IF_ERROR(
        callback_handoff.Measure(PingMode::kCallbackHandoff, variant_pings, 1, log));
    COSIMO_RETURN_IF_ERROR(single_poller.Measure(PingMode::kSinglePoller, variant_pings, 1, log));
  }
  COSIMO_RETURN_IF_ERROR(rtt.Measure(PingMode::kSync, pings_per_round, 1, log));
  const double rtt_us = rtt.MedianUs();
  const double step_us = Median(steps) / kNsPerUs;
  if (per_round > 0) {
    report->Add(
        {"fig1", "Jacobi macro step, 2 units on 2 workers / raw gRPC stream round trip", step_us,
         rtt_us, "us", step_us / rtt_us, "<= 1.5", step_us / rtt_us <= 1.5,
         absl::StrCat(steps.size(), " steps in ", rounds, " rounds; ", rtt.samples.size(),
                      " ping-pongs of ", sizes.command, " B / ", sizes.reply,
                      " B messages; p90 step ", Fixed(Quantile(steps, 0.9) / kNsPerUs, 1),
                      " us, p90 round trip ", Fixed(Quantile(rtt.samples, 0.9) / kNsPerUs, 1),
                      " us; per step: ", SplitCost(step_self, step_workers),
                      "; per ping-pong: ", rtt.Cost())});
    auto variant = [&](const char* id, const char* what, const PingSeries& series,
                       const std::string& how) {
      report->Add({id, what, series.MedianUs(), rtt_us, "us", series.MedianUs() / rtt_us, "", true,
                   absl::StrCat(series.samples.size(), " round trips", how,
                                "; per round trip: ", series.Cost())});
    };
    variant("fig1.handoff",
            "raw ping-pong with a reader thread handing replies over / raw ping-pong", handoff,
            " (the threading WorkerConnection had before 44089f1: the handler thread reads, a "
            "condition variable wakes the writer)");
    variant("fig1.callback",
            "raw ping-pong over gRPC's callback API, next write from OnReadDone / raw ping-pong",
            callback, "");
    variant("fig1.callback_handoff",
            "raw ping-pong over gRPC's callback API, OnReadDone wakes the writing thread / raw "
            "ping-pong",
            callback_handoff, "");
    variant("fig1.single_poller",
            "raw ping-pong, async API, the server's one thread is the only poller of its process "
            "/ raw ping-pong",
            single_poller, "");
    variant("fig1.single_poller_2",
            "the same fanned out to 2 peers (a Jacobi step's messages, no master) / raw ping-pong",
            fan_out, " (rounds of one command to each peer and both replies)");
    const double ratio = Median(transport_ratios);
    report->Add({"fig1.transport",
                 "Jacobi macro step, 2 units on 2 workers / gRPC's own fan-out to 2 peers "
                 "(fig1.single_poller_2)",
                 step_us, fan_out.MedianUs(), "us", ratio, "<= 1.15", ratio <= 1.15,
                 absl::StrCat("the same runs as fig1; ", fan_out.samples.size(),
                              " fan-out rounds, measured right after each round of steps; ratio: "
                              "the median of the rounds' ratios ",
                              RatioRange(transport_ratios))});
  }

  // ---- fig1.embedded: what `cosimo run` costs per step, the whole program (JobManager, the
  // in-process client, results): the marginal time of 3N steps over N, so that starting the
  // processes cancels out. Alternating pairs, the median of the differences.
  const std::string cosimo =
      (std::filesystem::path(options.worker_binary).parent_path() / "cosimo").string();
  if (per_round > 0 && access(cosimo.c_str(), X_OK) == 0) {
    const int n = smoke ? 200 : 20000;
    std::vector<double> marginal;
    for (int r = 0; r < (smoke ? 1 : 3); ++r) {
      COSIMO_ASSIGN_OR_RETURN(const double short_us, TimeCosimoRun(cosimo, n, log));
      COSIMO_ASSIGN_OR_RETURN(const double long_us, TimeCosimoRun(cosimo, 3 * n, log));
      marginal.push_back((long_us - short_us) / (2.0 * n) * kNsPerUs);
    }
    const double embedded_us = Median(marginal) / kNsPerUs;
    report->Add({"fig1.embedded",
                 "`cosimo run` of the 2-unit ring, marginal time per step / raw round trip",
                 embedded_us, rtt_us, "us", embedded_us / rtt_us, "", true,
                 absl::StrCat(marginal.size(), " pairs of runs of ", n, " and ", 3 * n,
                              " steps (whole processes: embedded orchestrator and JobManager, "
                              "2 worker processes, the results CSV); fig1's step is ",
                              Fixed(step_us, 1), " us")});
  }

  // ---- Figure 2: scaling. The 2-unit case runs first and last; its median is the baseline.
  if (options.Wants("fig2")) {
    std::vector<int> order = scaling;
    if (std::find(order.begin(), order.end(), 2) == order.end()) order.insert(order.begin(), 2);
    order.push_back(2);
    std::vector<std::vector<double>> per_units(static_cast<size_t>(max_units) + 1);
    const int scaling_work = smoke ? 400 : 60000;  // unit-steps per configuration
    // CPU and thread runs per unit-step, this process and all workers.
    std::vector<Usage> self_use(per_units.size()), workers_use(per_units.size());
    for (int n : order) {
      const int steps_n = std::max(smoke ? 100 : 3000, scaling_work / n);
      const auto k = static_cast<size_t>(n);
      const size_t before = per_units[k].size();
      Usage::Span self({0}, &self_use[k]), others(workers, &workers_use[k]);
      COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, RingScenario(n, steps_n), steps_n, &per_units[k],
                                     nullptr, nullptr, nullptr));
      const auto unit_steps = static_cast<int64_t>((per_units[k].size() - before + 1) * k);
      self.Stop(unit_steps);
      others.Stop(unit_steps);
    }
    const double two_us = Median(per_units[2]) / kNsPerUs;
    // The workers' CPU floor: every unit-step costs its worker at least what the peer of a raw
    // ping-pong spends on a round trip (a wake, one message in, one out), and N workers share the
    // machine's cores. The orchestrator's own CPU comes on top.
    PingSeries floor_rtt;
    COSIMO_RETURN_IF_ERROR(floor_rtt.Measure(PingMode::kSync, pings_per_round, 1, log));
    const double peer_cpu_us = floor_rtt.PeerCpuUs();
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (int n : scaling) {
      const auto k = static_cast<size_t>(n);
      const double n_us = Median(per_units[k]) / kNsPerUs;
      report->Add(
          {absl::StrCat("fig2.", n),
           absl::StrCat("Jacobi macro step, ", n, " units on ", n, " workers / the 2-unit step"),
           n_us, two_us, "us", n_us / two_us, "", true,
           absl::StrCat(per_units[k].size(), " steps; ", Fixed(n_us / n, 2), " us per unit-step; ",
                        Fixed(n_us / rtt_us, 2), " raw round trips; per unit-step: ",
                        SplitCost(self_use[k], workers_use[k]))});
    }
    const int largest = *std::max_element(scaling.begin(), scaling.end());
    // fig2.N.slots: the N units packed onto 2 worker processes of N/2 slots (one message per
    // worker per step, the units stepped on the workers' threads), interleaved with the 2-unit
    // step on one-slot workers, its baseline.
    if (slotted > 0 && largest == max_units) {
      std::vector<double> two_steps, slot_steps;
      Usage slot_self, slot_workers;
      const int slot_steps_n = std::max(smoke ? 100 : 3000, scaling_work / largest);
      for (int r = 0; r < (smoke ? 1 : 3); ++r) {
        COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, RingScenario(2, slot_steps_n), slot_steps_n,
                                       &two_steps, nullptr, nullptr, nullptr));
        v1::Scenario packed = RingScenario(largest, slot_steps_n);
        for (v1::Unit& unit : *packed.mutable_units()) unit.set_worker_label("slots");
        const size_t before = slot_steps.size();
        Usage::Span self({0}, &slot_self), others(workers, &slot_workers);
        COSIMO_RETURN_IF_ERROR(
            TimeRun(*cluster, packed, slot_steps_n, &slot_steps, nullptr, nullptr, nullptr));
        const auto unit_steps = static_cast<int64_t>((slot_steps.size() - before + 1) * largest);
        self.Stop(unit_steps);
        others.Stop(unit_steps);
      }
      const double slot_us = Median(slot_steps) / kNsPerUs;
      const double slot_two_us = Median(two_steps) / kNsPerUs;
      report->Add(
          {absl::StrCat("fig2.", largest, ".slots"),
           absl::StrCat("Jacobi macro step, ", largest, " units on 2 workers of ", largest / 2,
                        " slots / the 2-unit step on 2 one-slot workers"),
           slot_us, slot_two_us, "us", slot_us / slot_two_us, "<= 3", slot_us / slot_two_us <= 3.0,
           absl::StrCat(slot_steps.size(), " steps, interleaved with as many 2-unit steps; ",
                        Fixed(slot_us / largest, 2),
                        " us per unit-step; per unit-step: ", SplitCost(slot_self, slot_workers))});
    }
    const double floor_us = largest * peer_cpu_us / cores;
    report->Add(
        {absl::StrCat("fig2.", largest, ".floor"),
         absl::StrCat("workers' CPU floor of ", largest, " units: ", largest,
                      " x a raw ping-pong peer's CPU per round trip / ", cores,
                      " cores, against the 2-unit step"),
         floor_us, two_us, "us", floor_us / two_us, "", true,
         absl::StrCat("a raw ping-pong's peer (dials out and answers, as a worker does) spends ",
                      Fixed(peer_cpu_us, 1), " us of CPU and ", Fixed(floor_rtt.PeerRuns(), 2),
                      " thread runs per round trip (the whole ping-pong ", floor_rtt.Cost(),
                      "); a ratio of 6 needs at least ",
                      Fixed(largest * peer_cpu_us / (6.0 * two_us), 1),
                      " free cores at this 2-unit step for the workers alone")});
    // The transport's own scaling: a raw fan-out to `largest` peers (one command to each, then
    // every reply: a Jacobi step's messages with no master and no units) against the same to 2,
    // interleaved.
    if (largest > 2) {
      PingSeries raw_two, raw_n;
      const int raw_rounds = std::max(smoke ? 50 : 2000, scaling_work / largest);
      for (int r = 0; r < (smoke ? 1 : 2); ++r) {
        COSIMO_RETURN_IF_ERROR(raw_two.Measure(PingMode::kSinglePoller, raw_rounds, 2, log));
        COSIMO_RETURN_IF_ERROR(raw_n.Measure(PingMode::kSinglePoller, raw_rounds, largest, log));
      }
      const double raw_n_us = raw_n.MedianUs();
      const double raw_two_us = raw_two.MedianUs();
      const double n_us = Median(per_units[static_cast<size_t>(largest)]) / kNsPerUs;
      report->Add(
          {absl::StrCat("fig2.", largest, ".transport"),
           absl::StrCat("Jacobi macro step, ", largest, " units on ", largest, " workers (fig2.",
                        largest, ") / gRPC's own fan-out to ", largest, " peers"),
           n_us, raw_n_us, "us", n_us / raw_n_us, "<= 1.2", n_us / raw_n_us <= 1.2,
           absl::StrCat("fig2.", largest, "'s steps; ", raw_n.samples.size(),
                        " raw fan-out rounds measured after them")});
      report->Add(
          {absl::StrCat("fig2.", largest, ".raw"),
           absl::StrCat("raw gRPC fan-out to ", largest,
                        " peers (a Jacobi step's messages, no master, no units) / the same to 2"),
           raw_n_us, raw_two_us, "us", raw_n_us / raw_two_us, "", true,
           absl::StrCat(
               raw_n.samples.size(), " rounds each; per peer and round: CPU ",
               Fixed(raw_n.PeerCpuUs(), 1), " us, thread runs ", Fixed(raw_n.PeerRuns(), 2),
               " (2 peers: ", Fixed(raw_two.PeerCpuUs(), 1), " us, ", Fixed(raw_two.PeerRuns(), 2),
               "), the server's CPU ", Fixed(raw_n.CpuUs() / largest - raw_n.PeerCpuUs(), 1),
               " us (2 peers: ", Fixed(raw_two.CpuUs() / 2 - raw_two.PeerCpuUs(), 1), " us); the ",
               largest, "-unit Jacobi step is ", Fixed(n_us / raw_n_us, 2), "x this fan-out, the ",
               "2-unit step ", Fixed(two_us / raw_two_us, 2), "x the 2-peer one")});
      // What gRPC's client side alone implies: every peer process of that fan-out spent this much
      // CPU per round, and `largest` of them share the cores, whatever the server does.
      const double peers_us = largest * raw_n.PeerCpuUs() / cores;
      const double workers_us = workers_use[static_cast<size_t>(largest)].CpuUsPer();
      report->Add(
          {absl::StrCat("fig2.", largest, ".peers"),
           absl::StrCat("CPU of ", largest, " raw gRPC peers per round of that fan-out / ", cores,
                        " cores (no master, no units, no orchestrator), against the 2-unit step"),
           peers_us, two_us, "us", peers_us / two_us, "", true,
           absl::StrCat("a raw peer spends ", Fixed(raw_n.PeerCpuUs(), 1), " us per round among ",
                        largest, " peers (", Fixed(raw_two.PeerCpuUs(), 1), " us among 2); the ",
                        largest, " workers of fig2.", largest, " spent ", Fixed(workers_us, 1),
                        " us per unit-step, i.e. ", Fixed(largest * workers_us / cores / two_us, 2),
                        "x the 2-unit step on their own")});
      // The kernel's floor: the same fan-out over plain TCP sockets, with no gRPC.
      PingSeries sockets_two, sockets_n;
      for (int r = 0; r < (smoke ? 1 : 2); ++r) {
        COSIMO_RETURN_IF_ERROR(sockets_two.Measure(PingMode::kSockets, raw_rounds, 2, log));
        COSIMO_RETURN_IF_ERROR(sockets_n.Measure(PingMode::kSockets, raw_rounds, largest, log));
      }
      const double sockets_n_us = sockets_n.MedianUs();
      report->Add(
          {absl::StrCat("fig2.", largest, ".sockets"),
           absl::StrCat("the same fan-out to ", largest,
                        " processes over plain TCP sockets (no gRPC: the kernel's share), "
                        "against the 2-unit step"),
           sockets_n_us, two_us, "us", sockets_n_us / two_us, "", true,
           absl::StrCat(sockets_n.samples.size(), " rounds each; ", Fixed(sockets_n_us, 1),
                        " us per round to ", largest, " peers, ", Fixed(sockets_two.MedianUs(), 1),
                        " us to 2 (", Fixed(sockets_n_us / sockets_two.MedianUs(), 2),
                        "x); per peer and round: CPU ", Fixed(sockets_n.PeerCpuUs(), 1),
                        " us, thread runs ", Fixed(sockets_n.PeerRuns(), 2), "; the server's CPU ",
                        Fixed(sockets_n.CpuUs() / largest - sockets_n.PeerCpuUs(), 1),
                        " us per peer; gRPC's own fan-out takes ",
                        Fixed(raw_n_us / sockets_n_us, 2), "x these sockets' round")});
    }
  }

  // ---- Figure 3: fixed point with rollback over gRPC.
  if (!options.Wants("fig3")) return absl::OkStatus();
  const int fp_steps = smoke ? 50 : 2000;
  const int fp_rounds = smoke ? 1 : 4;
  PingSeries fp_rtt;
  std::vector<double> per_iteration;
  Usage fp_self, fp_others;  // per iteration
  const std::vector<pid_t> fp_workers = cluster->worker_pids();
  uint64_t iterations = 0;
  uint64_t commands = 0;  // to both units, whole jobs
  int64_t elapsed = 0;
  size_t fp_measured = 0;
  PingSeries fp_fan_out;          // gRPC's own fan-out to 2 peers, as fig1.single_poller_2
  std::vector<double> fp_ratios;  // per round, as fig1.transport's
  for (int r = 0; r < fp_rounds; ++r) {
    COSIMO_RETURN_IF_ERROR(fp_rtt.Measure(PingMode::kSync, pings_per_round, 1, log));
    const size_t iterations_before_round = per_iteration.size();
    std::vector<double> durations;
    const uint64_t iterations_before = iterations;
    Usage::Span self({0}, &fp_self), others(fp_workers, &fp_others);
    COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, FixedPointScenario(fp_steps / fp_rounds, 1e-8),
                                   fp_steps / fp_rounds, &durations, &per_iteration, &iterations,
                                   &elapsed, &commands));
    self.Stop(static_cast<int64_t>(iterations - iterations_before));
    others.Stop(static_cast<int64_t>(iterations - iterations_before));
    fp_measured += durations.size();
    const size_t fan_before = fp_fan_out.samples.size();
    COSIMO_RETURN_IF_ERROR(fp_fan_out.Measure(PingMode::kSinglePoller, variant_pings, 2, log));
    fp_ratios.push_back(
        PairRatio(per_iteration, iterations_before_round, fp_fan_out.samples, fan_before));
  }
  COSIMO_RETURN_IF_ERROR(fp_rtt.Measure(PingMode::kSync, pings_per_round, 1, log));
  const double fp_rtt_us = fp_rtt.MedianUs();
  const double iteration_us = Median(per_iteration) / kNsPerUs;
  const double per_step = static_cast<double>(iterations) / static_cast<double>(fp_measured);
  const double rate = static_cast<double>(iterations) / (static_cast<double>(elapsed) * 1e-9);
  report->Add(
      {"fig3", "fixed-point iteration with rollback, 2 units over gRPC / raw round trip",
       iteration_us, fp_rtt_us, "us", iteration_us / fp_rtt_us, "<= 1.5",
       iteration_us / fp_rtt_us <= 1.5,
       absl::StrCat(
           Fixed(per_step, 2), " iterations per step; ", Fixed(rate, 0), " iterations/s; ",
           Fixed(static_cast<double>(commands) / (2.0 * static_cast<double>(iterations)), 3),
           " commands per iteration per unit (counted, whole jobs); per iteration: ",
           SplitCost(fp_self, fp_others))});
  const double fp_ratio = Median(fp_ratios);
  report->Add(
      {"fig3.transport",
       "fixed-point iteration with rollback, 2 units over gRPC / gRPC's own fan-out to 2 "
       "peers (as fig1.single_poller_2)",
       iteration_us, fp_fan_out.MedianUs(), "us", fp_ratio, "<= 1.15", fp_ratio <= 1.15,
       absl::StrCat(fp_fan_out.samples.size(),
                    " fan-out rounds, measured right after each of fig3's runs; ratio: the median "
                    "of the runs' ratios ",
                    RatioRange(fp_ratios))});
  report->Add({"fig3.rate", "fixed-point iterations per second over gRPC (x 1e3)", rate / 1e3,
               1e3 / fp_rtt_us, "k/s", rate * fp_rtt_us / 1e6, "", true,
               "baseline: raw round trips per second; ratio: iterations per raw round trip"});
  return absl::OkStatus();
}

}  // namespace cosimo::bench
