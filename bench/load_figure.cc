// The load figure: a real cosimo-orchestrator process (in memory, as `cosimo-orchestrator
// --listen` alone runs it), 4 cosimo-worker processes, and 200 tiny jobs submitted at once by 8
// clients (bench/job_load.h); the orchestrator's resident memory (VmRSS of /proc/PID/status)
// before them, after them, and after 200 more. The finished jobs stay listed (no retention), so
// what grows with them is their records and results; the second batch shows whether the first
// left more behind than that.

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "figures.h"
#include "job_load.h"
#include "service.h"

namespace cosimo::bench {
namespace {

// VmRSS of process `pid`, MiB; 0 when it cannot be read.
double ResidentMiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      double kib = 0.0;
      fields >> kib;
      return kib / 1024.0;
    }
  }
  return 0.0;
}

// Every job of `run` succeeded and was listed once, or what went wrong.
absl::Status Check(const LoadRun& run, size_t expected_listed) {
  if (!run.errors.empty()) return absl::InternalError("load: " + run.errors.front());
  if (run.listed.size() != expected_listed) {
    return absl::InternalError(
        absl::StrCat("load: ", run.listed.size(), " jobs listed, ", expected_listed, " expected"));
  }
  for (const v1::JobStatus& job : run.listed) {
    if (job.state() != v1::SUCCEEDED) {
      return absl::InternalError("load: job " + job.job_id() + " " +
                                 v1::JobState_Name(job.state()) + ": " + job.message());
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunLoadFigure(const Options& options, Report* report) {
  const int jobs = options.smoke ? 20 : 200;
  constexpr int kWorkers = 4, kClients = 8;
  absl::StatusOr<std::unique_ptr<ServiceProcesses>> service =
      ServiceProcesses::Start(options, kWorkers);
  if (!service.ok()) return service.status();
  const std::string& address = (*service)->address();
  // One job first, so that the job path (its threads, gRPC's buffers) has been through once.
  const v1::Scenario tiny = TinyJob();
  LoadRun warm = SubmitAtOnceAndWait(address, tiny, 1, 1, std::chrono::seconds(60));
  if (absl::Status s = Check(warm, 1); !s.ok()) return s;
  const double before = ResidentMiB((*service)->orchestrator_pid());
  LoadRun first = SubmitAtOnceAndWait(address, tiny, jobs, kClients, std::chrono::seconds(600));
  if (absl::Status s = Check(first, static_cast<size_t>(jobs) + 1); !s.ok()) return s;
  const double after = ResidentMiB((*service)->orchestrator_pid());
  LoadRun second = SubmitAtOnceAndWait(address, tiny, jobs, kClients, std::chrono::seconds(600));
  if (absl::Status s = Check(second, 2 * static_cast<size_t>(jobs) + 1); !s.ok()) return s;
  const double again = ResidentMiB((*service)->orchestrator_pid());

  report->Add(
      {"load.rss",
       absl::StrCat("orchestrator RSS after ", jobs, " tiny jobs at once on ", kWorkers,
                    " workers / before them"),
       after, before, "MiB", after / before, "", true,
       absl::StrCat(kClients, " clients submitting at once; all succeeded in ",
                    absl::SixDigits(first.seconds), " s (", absl::SixDigits(jobs / first.seconds),
                    " jobs/s); before = after one warm-up job")});
  report->Add({"load.rss2",
               absl::StrCat("orchestrator RSS after ", jobs, " more / after the first ", jobs),
               again, after, "MiB", again / after, "", true,
               absl::StrCat("the second batch in ", absl::SixDigits(second.seconds),
                            " s; every job's record and results stay listed")});
  return absl::OkStatus();
}

}  // namespace cosimo::bench
