// cosimo-bench: measures the figures of issue 7 and prints them as a table and a JSON file.
//   cosimo-bench [--smoke] [--only fig1,fig4,load,...] [--json PATH] [--jacobi-steps N]
//                [--units 2,4,8,16,32] [--log PATH] [--no-pin]
// --no-pin: leave the workers and the ping-pong peers where the kernel puts them (harness.h,
// PeerCpu).
// --ping-peer ADDRESS and --ping-server MODE OUT are the ping-pong peer and server modes
// (started by the benchmark itself).
// Exit code: 0 when every figure was measured (met or not), 1 when one could not be measured.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cosimo/common/process.h"
#include "figures.h"
#include "ping_pong.h"

namespace {

std::vector<int> ParseInts(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(std::stoi(item));
  }
  return out;
}

int Usage() {
  std::cerr << "usage: cosimo-bench [--smoke] [--only fig1,fig4,...] [--json PATH] "
               "[--jacobi-steps N] [--units 2,4,...] [--log PATH] [--no-pin]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  cosimo::SetUpProcess();
  cosimo::KeepFreedMemory();
  cosimo::bench::Options options;
  options.worker_binary = COSIMO_BENCH_WORKER;
  options.orchestrator_binary = COSIMO_BENCH_ORCHESTRATOR;
  options.fmu_path = COSIMO_BENCH_FMU;
  options.fmu_library = COSIMO_BENCH_FMU_LIBRARY;
  options.cheap_fmu_path = COSIMO_BENCH_CHEAP_FMU;
  options.cheap_fmu_library = COSIMO_BENCH_CHEAP_FMU_LIBRARY;
  options.car_scenario = COSIMO_BENCH_CAR;
  options.log_path = "/tmp/cosimo-bench.log";
  std::string json_path, peer, ping_mode, ping_out;
  int peer_outputs = 1, ping_count = 0, ping_peers = 1, ping_cpu = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--smoke") {
      options.smoke = true;
    } else if (arg == "--json" && has_value) {
      json_path = argv[++i];
    } else if (arg == "--only" && has_value) {
      options.only = argv[++i];
    } else if (arg == "--jacobi-steps" && has_value) {
      options.jacobi_steps = std::stoi(argv[++i]);
    } else if (arg == "--units" && has_value) {
      options.scaling_units = ParseInts(argv[++i]);
      if (options.scaling_units.empty()) return Usage();
    } else if (arg == "--log" && has_value) {
      options.log_path = argv[++i];
    } else if (arg == "--ping-peer" && has_value) {
      peer = argv[++i];
    } else if (arg == "--ping-outputs" && has_value) {
      peer_outputs = std::stoi(argv[++i]);
    } else if (arg == "--ping-server" && i + 2 < argc) {
      ping_mode = argv[++i];
      ping_out = argv[++i];
    } else if (arg == "--ping-count" && has_value) {
      ping_count = std::stoi(argv[++i]);
    } else if (arg == "--ping-peers" && has_value) {
      ping_peers = std::stoi(argv[++i]);
    } else if (arg == "--ping-cpu" && has_value) {
      ping_cpu = std::stoi(argv[++i]);
    } else if (arg == "--no-pin") {
      cosimo::bench::SetPinPeers(false);
    } else {
      return Usage();
    }
  }
  if (!peer.empty()) {
    if (ping_cpu >= 0) {
      if (absl::Status s = cosimo::PinToCpus({ping_cpu}, "--ping-cpu"); !s.ok()) {
        std::cerr << s.message() << "\n";
        return 2;
      }
    }
    return cosimo::bench::RunPingPeer(peer, peer_outputs);
  }
  if (!ping_mode.empty()) {
    return cosimo::bench::RunPingServer(ping_mode, ping_out, ping_count, ping_peers,
                                        options.log_path);
  }

  spdlog::set_level(spdlog::level::warn);
  std::cout << "cosimo-bench (" << (options.smoke ? "smoke" : "full") << ") on "
            << cosimo::bench::MachineDescription()
            << (cosimo::bench::PinPeers() ? "; workers and ping-pong peers pinned, one per CPU"
                                          : "; nothing pinned (--no-pin)")
            << "\n";
  cosimo::bench::Report report;
  int failures = 0;
  auto run = [&](std::vector<std::string> ids, const char* name, auto&& body) {
    bool wanted = false;
    for (const std::string& id : ids) wanted = wanted || options.Wants(id);
    if (!wanted) return;
    std::cout << "running " << name << " ..." << std::endl;
    const absl::Status s = body();
    if (!s.ok()) {
      ++failures;
      std::cerr << name << ": " << s << "\n";
    }
  };
  run({"fig1", "fig2", "fig3"}, "figures 1-3 (distributed)",
      [&] { return cosimo::bench::RunDistributedFigures(options, &report); });
  run({"fig4", "fig6"}, "figures 4 and 6 (in-process, COSTARICA)",
      [&] { return cosimo::bench::RunInProcessFigures(options, &report); });
  run({"fig5"}, "figure 5 (FMU)", [&] { return cosimo::bench::RunFmuFigure(options, &report); });
  run({"fig9", "fig10"}, "figures 9 and 10 (`cosimo run` on one machine)",
      [&] { return cosimo::bench::RunLocalRunFigures(options, &report); });
  run({"fig7"}, "figure 7 (hybrid unit training)",
      [&] { return cosimo::bench::RunHybridFigure(options, &report); });
  run({"fig8", "fig8.fmu", "fig11"},
      "figures 8 and 11 (sweeps and a calibration through the service)",
      [&] { return cosimo::bench::RunSweepFigures(options, &report); });
  run({"fig12"}, "figure 12 (a fit's standard errors against 20 repeated fits)",
      [&] { return cosimo::bench::RunFitErrorFigures(options, &report); });
  run({"load"}, "load (200 jobs at once, orchestrator RSS)",
      [&] { return cosimo::bench::RunLoadFigure(options, &report); });

  std::cout << "\n" << report.Table() << "\n";
  for (const cosimo::bench::Figure& f : report.figures()) {
    if (!f.note.empty()) std::cout << "  " << f.id << ": " << f.note << "\n";
  }
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << report.Json(options.smoke ? "smoke" : "full");
    if (!out) {
      std::cerr << "cannot write " << json_path << "\n";
      return 1;
    }
    std::cout << "\nfigures written to " << json_path << "\n";
  }
  return failures == 0 ? 0 : 1;
}
