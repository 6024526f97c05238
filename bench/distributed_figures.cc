// Figures 1-3: real cosimo-worker processes over loopback against the raw gRPC round trip.
//
// Baseline and subject alternate in rounds (ping-pong, run, ping-pong, run, ...) so that a
// compiler starting on the other core slows both alike; every figure is a ratio of medians.
#include <algorithm>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "bench/cluster.h"
#include "bench/figures.h"
#include "bench/harness.h"
#include "bench/ping_pong.h"
#include "bench/scenarios.h"
#include "bench/step_timer.h"
#include "cosimo/common/status.h"

namespace cosimo::bench {
namespace {

constexpr double kNsPerUs = 1e3;

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

// Runs `scenario` on the cluster and appends its per-step durations (and per-iteration costs).
absl::Status TimeRun(WorkerCluster& cluster, const v1::Scenario& scenario, int steps,
                     std::vector<double>* durations, std::vector<double>* per_iteration,
                     uint64_t* iterations, int64_t* elapsed_ns) {
  StepTimer timer(static_cast<size_t>(steps));
  absl::StatusOr<orchestrator::MasterResult> result = cluster.Run(scenario, &timer);
  if (!result.ok()) return result.status();
  if (durations != nullptr) timer.AppendDurations(durations);
  if (per_iteration != nullptr) timer.AppendPerIteration(per_iteration);
  if (iterations != nullptr) *iterations += timer.iterations();
  if (elapsed_ns != nullptr) *elapsed_ns += timer.elapsed_ns();
  return absl::OkStatus();
}

absl::Status AppendPings(PingPong& ping, int count, std::vector<double>* rtt) {
  COSIMO_ASSIGN_OR_RETURN(std::vector<double> samples, ping.Measure(count));
  rtt->insert(rtt->end(), samples.begin(), samples.end());
  return absl::OkStatus();
}

}  // namespace

bool Options::Wants(const std::string& id) const {
  if (only.empty()) return true;
  std::string list = "," + only + ",";
  return list.find("," + id + ",") != std::string::npos;
}

absl::Status RunDistributedFigures(const Options& options, Report* report) {
  const bool smoke = options.smoke;
  const int rounds = smoke ? 1 : 4;
  const int pings_per_round = smoke ? 200 : 10000;
  const int jacobi_steps = smoke ? 300 : options.jacobi_steps;
  std::vector<int> scaling = options.scaling_units;
  if (smoke) scaling = {2, 4};
  const int max_units =
      options.Wants("fig2") ? std::max(2, *std::max_element(scaling.begin(), scaling.end())) : 2;

  const MessageSizes sizes = StepMessageSizes(1, 1);
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<PingPong> ping, PingPong::Start(1, 1, options.log_path));
  std::unique_ptr<CallbackPingPong> callback_ping;
  if (options.Wants("fig1")) {
    COSIMO_ASSIGN_OR_RETURN(callback_ping, CallbackPingPong::Start(1, 1, options.log_path));
  }
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<WorkerCluster> cluster,
                          WorkerCluster::Start(max_units, options.worker_binary, options.log_path));
  // Warm-up: connections, allocator, caches.
  std::vector<double> ignored;
  COSIMO_RETURN_IF_ERROR(AppendPings(*ping, smoke ? 50 : 2000, &ignored));
  COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, RingScenario(2, smoke ? 50 : 2000), smoke ? 50 : 2000,
                                 nullptr, nullptr, nullptr, nullptr));

  // ---- Figure 1: two units, Jacobi (also the round trip that figure 2 quotes).
  std::vector<double> rtt, steps, handoff, cb_event, cb_handoff, single_poller,
      single_poller_fan_out;
  double single_poller_cpu = 0.0, single_poller_runs = 0.0, fan_out_cpu = 0.0, fan_out_runs = 0.0;
  const int per_round = options.Wants("fig1") ? jacobi_steps / rounds : 0;
  // CPU time and thread runs of the processes involved, to tell the CPU cost of a step from its
  // latency: this process (the orchestrator's side), the workers, the ping-pong peers.
  const std::vector<pid_t> workers = cluster->worker_pids();
  const std::vector<pid_t> ping_side = {0, ping->peer_pid()};
  Usage ping_use, step_self, step_workers, cb_event_use, cb_handoff_use;
  for (int r = 0; r < rounds && per_round > 0; ++r) {
    Usage::Span span(ping_side, &ping_use);
    COSIMO_RETURN_IF_ERROR(AppendPings(*ping, pings_per_round, &rtt));
    span.Stop(pings_per_round);

    Usage::Span self({0}, &step_self), others(workers, &step_workers);
    const size_t before = steps.size();
    COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, RingScenario(2, per_round), per_round, &steps, nullptr,
                                   nullptr, nullptr));
    self.Stop(static_cast<int64_t>(steps.size() - before + 1));
    others.Stop(static_cast<int64_t>(steps.size() - before + 1));

    COSIMO_ASSIGN_OR_RETURN(std::vector<double> h, ping->MeasureWithHandoff(pings_per_round / 2));
    handoff.insert(handoff.end(), h.begin(), h.end());
    const std::vector<pid_t> cb_side = {0, callback_ping->peer_pid()};
    Usage::Span event_span(cb_side, &cb_event_use);
    COSIMO_ASSIGN_OR_RETURN(std::vector<double> ce,
                            callback_ping->Measure(pings_per_round / 2, true));
    event_span.Stop(static_cast<int64_t>(ce.size()));
    cb_event.insert(cb_event.end(), ce.begin(), ce.end());
    Usage::Span handoff_span(cb_side, &cb_handoff_use);
    COSIMO_ASSIGN_OR_RETURN(std::vector<double> ch,
                            callback_ping->Measure(pings_per_round / 2, false));
    handoff_span.Stop(static_cast<int64_t>(ch.size()));
    cb_handoff.insert(cb_handoff.end(), ch.begin(), ch.end());
    for (int peers = 1; peers <= 2; ++peers) {
      COSIMO_ASSIGN_OR_RETURN(AsyncPingResult a,
                              MeasureAsyncPingPong(pings_per_round / 2, peers, options.log_path));
      std::vector<double>& into = peers == 1 ? single_poller : single_poller_fan_out;
      into.insert(into.end(), a.samples.begin(), a.samples.end());
      (peers == 1 ? single_poller_cpu : fan_out_cpu) += a.cpu_us / rounds;
      (peers == 1 ? single_poller_runs : fan_out_runs) += a.runs / rounds;
    }
  }
  COSIMO_RETURN_IF_ERROR(AppendPings(*ping, pings_per_round, &rtt));
  const double rtt_us = Median(rtt) / kNsPerUs;
  const double step_us = Median(steps) / kNsPerUs;
  if (per_round > 0) {
    report->Add(
        {"fig1", "Jacobi macro step, 2 units on 2 workers / raw gRPC stream round trip", step_us,
         rtt_us, "us", step_us / rtt_us, "<= 1.5", step_us / rtt_us <= 1.5,
         absl::StrCat(
             steps.size(), " steps in ", rounds, " rounds; ", rtt.size(), " ping-pongs of ",
             sizes.command, " B / ", sizes.reply, " B messages; p90 step ",
             Fixed(Quantile(steps, 0.9) / kNsPerUs, 1), " us, p90 round trip ",
             Fixed(Quantile(rtt, 0.9) / kNsPerUs, 1), " us; per step: CPU ",
             Fixed(step_self.CpuUsPer() + step_workers.CpuUsPer(), 1), " us (orchestrator ",
             Fixed(step_self.CpuUsPer(), 1), ", workers ", Fixed(step_workers.CpuUsPer(), 1),
             "), thread runs ", Fixed(step_self.RunsPer(), 2), " orchestrator + ",
             Fixed(step_workers.RunsPer(), 2), " workers; per ping-pong: CPU ",
             Fixed(ping_use.CpuUsPer(), 1), " us, thread runs ", Fixed(ping_use.RunsPer(), 2))});
    const double handoff_us = Median(handoff) / kNsPerUs;
    report->Add({"fig1.handoff",
                 "raw ping-pong with a reader thread handing replies over / raw ping-pong",
                 handoff_us, rtt_us, "us", handoff_us / rtt_us, "", true,
                 absl::StrCat(handoff.size(),
                              " ping-pongs: the threading WorkerConnection had "
                              "before 44089f1 (the handler thread reads, a condition variable "
                              "wakes the writer), without the unit, the master or a second "
                              "worker")});
    const double event_us = Median(cb_event) / kNsPerUs;
    report->Add({"fig1.callback",
                 "raw ping-pong over gRPC's callback API, next write from OnReadDone / raw "
                 "ping-pong",
                 event_us, rtt_us, "us", event_us / rtt_us, "", true,
                 absl::StrCat(cb_event.size(), " ping-pongs; per ping-pong: CPU ",
                              Fixed(cb_event_use.CpuUsPer(), 1), " us, thread runs ",
                              Fixed(cb_event_use.RunsPer(), 2))});
    const double cb_handoff_us = Median(cb_handoff) / kNsPerUs;
    report->Add({"fig1.callback_handoff",
                 "raw ping-pong over gRPC's callback API, OnReadDone wakes the writing thread / "
                 "raw ping-pong",
                 cb_handoff_us, rtt_us, "us", cb_handoff_us / rtt_us, "", true,
                 absl::StrCat(cb_handoff.size(), " ping-pongs; per ping-pong: CPU ",
                              Fixed(cb_handoff_use.CpuUsPer(), 1), " us, thread runs ",
                              Fixed(cb_handoff_use.RunsPer(), 2))});
  }

  if (per_round > 0) {
    const double single_us = Median(single_poller) / kNsPerUs;
    report->Add({"fig1.single_poller",
                 "raw ping-pong, async API, the server's one thread is the only poller of its "
                 "process / raw ping-pong",
                 single_us, rtt_us, "us", single_us / rtt_us, "", true,
                 absl::StrCat(single_poller.size(),
                              " ping-pongs in a process of its own; per "
                              "ping-pong: CPU ",
                              Fixed(single_poller_cpu, 1), " us, thread runs ",
                              Fixed(single_poller_runs, 2))});
    const double fan_out_us = Median(single_poller_fan_out) / kNsPerUs;
    report->Add({"fig1.single_poller_2",
                 "the same fan out to 2 peers (a Jacobi step's messages, no master) / raw "
                 "ping-pong",
                 fan_out_us, rtt_us, "us", fan_out_us / rtt_us, "", true,
                 absl::StrCat(single_poller_fan_out.size(), " rounds; per round: CPU ",
                              Fixed(fan_out_cpu, 1), " us, thread runs ", Fixed(fan_out_runs, 2))});
  }

  // ---- Figure 2: scaling. The 2-unit case runs first and last; its median is the baseline.
  if (options.Wants("fig2")) {
    std::vector<int> order = scaling;
    if (std::find(order.begin(), order.end(), 2) == order.end()) order.insert(order.begin(), 2);
    order.push_back(2);
    std::vector<std::vector<double>> per_units(static_cast<size_t>(max_units) + 1);
    const int scaling_work = smoke ? 400 : 60000;  // unit-steps per configuration
    for (int n : order) {
      const int steps_n = std::max(smoke ? 100 : 3000, scaling_work / n);
      COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, RingScenario(n, steps_n), steps_n,
                                     &per_units[static_cast<size_t>(n)], nullptr, nullptr,
                                     nullptr));
    }
    const double two_us = Median(per_units[2]) / kNsPerUs;
    // The transport's CPU floor: every unit-step costs at least the CPU of one raw ping-pong (all
    // processes), and N of them share the machine's cores.
    Usage floor_use;
    Usage::Span span(ping_side, &floor_use);
    std::vector<double> floor_rtt;
    COSIMO_RETURN_IF_ERROR(AppendPings(*ping, pings_per_round, &floor_rtt));
    span.Stop(pings_per_round);
    const double pingpong_cpu_us = floor_use.CpuUsPer();
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (int n : scaling) {
      const double n_us = Median(per_units[static_cast<size_t>(n)]) / kNsPerUs;
      const bool checked = n == max_units && n == 32;
      report->Add(
          {absl::StrCat("fig2.", n),
           absl::StrCat("Jacobi macro step, ", n, " units on ", n, " workers / the 2-unit step"),
           n_us, two_us, "us", n_us / two_us, checked ? "<= 6" : "",
           !checked || n_us / two_us <= 6.0,
           absl::StrCat(per_units[static_cast<size_t>(n)].size(), " steps; ", Fixed(n_us / n, 2),
                        " us per unit-step; ", Fixed(n_us / rtt_us, 2), " raw round trips")});
    }
    const int largest = *std::max_element(scaling.begin(), scaling.end());
    const double floor_us = largest * pingpong_cpu_us / cores;
    report->Add(
        {absl::StrCat("fig2.", largest, ".floor"),
         absl::StrCat("transport CPU floor of ", largest, " units: ", largest,
                      " x CPU of a raw ping-pong / ", cores, " cores, against the 2-unit step"),
         floor_us, two_us, "us", floor_us / two_us, "", true,
         absl::StrCat("CPU of one raw ping-pong (both processes) ", Fixed(pingpong_cpu_us, 1),
                      " us; a ratio of 6 needs at least ",
                      Fixed(largest * pingpong_cpu_us / (6.0 * two_us), 1),
                      " free cores at this 2-unit step")});
  }

  // ---- Figure 3: fixed point with rollback over gRPC.
  if (!options.Wants("fig3")) return absl::OkStatus();
  const int fp_steps = smoke ? 50 : 2000;
  const int fp_rounds = smoke ? 1 : 2;
  std::vector<double> fp_rtt, per_iteration;
  uint64_t iterations = 0;
  int64_t elapsed = 0;
  size_t fp_measured = 0;
  for (int r = 0; r < fp_rounds; ++r) {
    COSIMO_RETURN_IF_ERROR(AppendPings(*ping, pings_per_round, &fp_rtt));
    std::vector<double> durations;
    COSIMO_RETURN_IF_ERROR(TimeRun(*cluster, FixedPointScenario(fp_steps / fp_rounds, 1e-8),
                                   fp_steps / fp_rounds, &durations, &per_iteration, &iterations,
                                   &elapsed));
    fp_measured += durations.size();
  }
  COSIMO_RETURN_IF_ERROR(AppendPings(*ping, pings_per_round, &fp_rtt));
  const double fp_rtt_us = Median(fp_rtt) / kNsPerUs;
  const double iteration_us = Median(per_iteration) / kNsPerUs;
  const double per_step = static_cast<double>(iterations) / static_cast<double>(fp_measured);
  const double rate = static_cast<double>(iterations) / (static_cast<double>(elapsed) * 1e-9);
  report->Add(
      {"fig3", "fixed-point iteration with rollback, 2 units over gRPC / raw round trip",
       iteration_us, fp_rtt_us, "us", iteration_us / fp_rtt_us, "<= 1.5",
       iteration_us / fp_rtt_us <= 1.5,
       absl::StrCat(Fixed(per_step, 2), " iterations per step (+1 commit round trip); ",
                    Fixed(rate, 0), " iterations/s; ", Fixed((per_step + 1.0) / per_step, 2),
                    " unit messages per iteration per unit")});
  report->Add({"fig3.rate", "fixed-point iterations per second over gRPC (x 1e3)", rate / 1e3,
               1e3 / fp_rtt_us, "k/s", rate * fp_rtt_us / 1e6, "", true,
               "baseline: raw round trips per second; ratio: iterations per raw round trip"});
  return absl::OkStatus();
}

}  // namespace cosimo::bench
