// The verbs of `cosimo` that look after jobs on the service: watch, results, status, cancel,
// delete, list, workers (cli/src/verbs.h).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cosimo/client/results_file.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/status.h"
#include "progress.h"
#include "verbs.h"

namespace cosimo::cli {
namespace {

std::string FormatTime(int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d %H:%M:%S", &tm);
  return buffer;
}

// The cell of `table`'s row `row`, column `column`, as the results CSV writes it (unquoted).
std::string Cell(const ResultTable& table, size_t row, size_t column) {
  const double v = table.values[row * table.columns.size() + column];
  size_t strings = 0, integers = 0;  // the string and integer columns before `column`
  for (size_t c = 0; c < column; ++c) {
    strings += table.type(c) == ValueType::kString ? 1 : 0;
    integers += table.type(c) == ValueType::kInteger ? 1 : 0;
  }
  switch (table.type(column)) {
    case ValueType::kString:
      return table.strings[row * table.string_columns() + strings];
    case ValueType::kBoolean:
      return v != 0.0 ? "true" : "false";
    case ValueType::kInteger: {
      const size_t at = row * table.integer_columns() + integers;
      return at < table.integers.size() ? FormatInteger(table.integers[at], v) : FormatDouble(v);
    }
    default:
      return FormatDouble(v);
  }
}

// `cosimo watch JOB --follow VAR...`: the latest row's values of `names`, a line each time the
// job recorded more rows, until it ends.
class ValueFollower {
 public:
  ValueFollower(Client& client, std::string job, std::vector<std::string> names)
      : client_(client), job_(std::move(job)), names_(std::move(names)) {}

  // Prints the latest values if there are new rows; an error for a name that is no column.
  absl::Status Show() {
    absl::StatusOr<JobResults> r =
        client_.Results(job_, client::ResultsRequest{.partial = true, .last_rows = 1});
    if (!r.ok() || r->rows() == 0) return absl::OkStatus();  // no rows yet, or none any more
    if (picked_.empty()) COSIMO_RETURN_IF_ERROR(Pick(r->columns));
    const uint64_t rows = r->first_row + r->rows();
    if (rows == shown_) return absl::OkStatus();
    shown_ = rows;
    std::string line = "t=" + Cell(*r, r->rows() - 1, 0);
    for (size_t k = 0; k < picked_.size(); ++k) {
      line += "  " + names_[k] + "=" + Cell(*r, r->rows() - 1, picked_[k]);
    }
    std::cout << line << std::endl;
    return absl::OkStatus();
  }

 private:
  absl::Status Pick(const std::vector<std::string>& columns) {
    for (const std::string& name : names_) {
      auto it = std::find(columns.begin(), columns.end(), name);
      if (it == columns.end()) {
        std::string all;
        for (const std::string& c : columns) all += (all.empty() ? "" : ", ") + c;
        return absl::InvalidArgumentError("--follow '" + name + "': job " + job_ +
                                          " records no such variable (columns: " + all + ")");
      }
      picked_.push_back(static_cast<size_t>(it - columns.begin()));
    }
    return absl::OkStatus();
  }

  Client& client_;
  const std::string job_;
  const std::vector<std::string> names_;
  std::vector<size_t> picked_;
  uint64_t shown_ = 0;  // the rows recorded when the last line was printed
};

int FollowToEnd(Client& client, const std::string& job, const std::vector<std::string>& names) {
  SetWatchedJob(job);
  ValueFollower follower(client, job, names);
  while (true) {
    absl::StatusOr<v1::JobStatus> status = client.Get(job);
    if (!status.ok()) return Fail(status.status());
    if (absl::Status s = follower.Show(); !s.ok()) return Fail(s, 2);
    if (IsFinished(status->state())) {
      std::cerr << job << " " << v1::JobState_Name(status->state())
                << (status->message().empty() ? "" : ": " + status->message()) << "\n";
      return status->state() == v1::SUCCEEDED ? 0 : 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace

int Fail(const absl::Status& status, int code) {
  std::cerr << "cosimo: " << status.message() << "\n";
  return code;
}

int ExitCodeFor(const absl::Status& status) {
  if (g_interrupted) return 130;
  if (status.code() == absl::StatusCode::kInvalidArgument) return 2;
  return 1;
}

absl::Status WriteResults(const JobResults& results, const std::string& out, std::string metadata,
                          client::ResultsFileWriter* writer) {
  if (metadata.empty() && out != "-") metadata = out + ".meta.json";
  if (absl::Status s = writer != nullptr ? writer->Finish(results, metadata)
                                         : client::WriteResultFiles(results, out, metadata);
      !s.ok()) {
    return s;
  }
  std::cerr << "results written to " << (out == "-" ? "standard output" : out) << " ("
            << results.rows() << " rows, " << results.columns.size() << " columns"
            << (metadata.empty() ? "" : "; metadata in " + metadata) << ")\n";
  return absl::OkStatus();
}

std::string AlignedColumns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const std::vector<std::string>& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string text;
  for (const std::vector<std::string>& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      text += row[c];
      if (c + 1 < row.size()) text.append(width[c] - row[c].size() + 1, ' ');
    }
    text += "\n";
  }
  return text;
}

int WatchToEnd(Client& client, const std::string& job) {
  SetWatchedJob(job);
  client::ProgressPrinter printer;
  absl::StatusOr<v1::JobStatus> status =
      client.Watch(job, [&](const v1::JobStatus& s) { printer.Update(s); });
  printer.Finish();
  if (!status.ok()) return Fail(status.status());
  return status->state() == v1::SUCCEEDED ? 0 : 1;
}

int WriteWeights(Client& client, const std::string& job, std::string out) {
  absl::StatusOr<v1::TrainingResult> result = client.TrainingResult(job);
  if (!result.ok()) return Fail(result.status());
  if (out.empty()) out = result->unit() + ".weights.json";
  if (out == "-") {
    std::cout << result->weights_json() << std::flush;
  } else {
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    file << result->weights_json();
    file.close();
    if (!file) return Fail(absl::PermissionDeniedError("cannot write '" + out + "'"));
  }
  std::fprintf(stderr,
               "trained unit '%s': loss %.6e -> %.6e in %d epochs, %.1f s on worker %s (%s); "
               "weights written to %s\n",
               result->unit().c_str(), result->first_loss(), result->final_loss(), result->epochs(),
               result->seconds(), result->worker().c_str(), result->host().c_str(),
               out == "-" ? "standard output" : out.c_str());
  return 0;
}

int Watch(Options& o) {
  return WithClient(o, [&](Client& client) {
    return o.follow.empty() ? WatchToEnd(client, o.job_id)
                            : FollowToEnd(client, o.job_id, o.follow);
  });
}

int Results(Options& o) {
  return WithClient(o, [&](Client& client) {
    // A training job's result is its weights file (docs/hybrid.md), not a CSV. A calibration's
    // status with its measured samples, for measured.csv.
    absl::StatusOr<v1::JobStatus> status =
        client.Get(o.job_id, std::chrono::milliseconds(0), /*calibration_samples=*/true);
    if (!status.ok()) return Fail(status.status());
    if (status->has_training() && o.variant < 0) {
      return WriteWeights(client, o.job_id, o.out_given ? o.out : "");
    }
    // A calibration's: the files `cosimo fit` writes, into the folder --out (default fit).
    if (status->has_fit() && o.variant < 0 && !o.partial) {
      if (status->state() != v1::SUCCEEDED) {
        return Fail(absl::FailedPreconditionError("fit job " + o.job_id + " is " +
                                                  v1::JobState_Name(status->state()) + ": " +
                                                  status->message()));
      }
      absl::StatusOr<JobResults> best = client.Results(o.job_id);
      if (!best.ok()) return Fail(best.status());
      return WriteFitFiles(*status, *best, o.out_given ? o.out : "fit");
    }
    client::ResultsRequest request{.partial = o.partial};
    if (o.variant >= 0) request.variant = static_cast<uint64_t>(o.variant);
    absl::StatusOr<JobResults> r = client.Results(o.job_id, request);
    if (!r.ok()) return Fail(r.status());
    if (absl::Status s = WriteResults(*r, o.out, o.metadata_out); !s.ok()) return Fail(s);
    if (r->metadata.partial() && !status->has_sweep()) {
      std::cerr << "cosimo: partial results: job " << o.job_id
                << " is still running; these are the rows recorded so far, a prefix of its "
                   "results\n";
    } else if (r->metadata.partial()) {
      std::cerr << "cosimo: partial table: job " << o.job_id << " is "
                << v1::JobState_Name(status->state())
                << "; its variants not run are CANCELED rows (cosimo resume runs them)\n";
    }
    return 0;
  });
}

namespace {

// What a job has done so far: a sweep's variants, a training job's epochs, a simulation's
// simulated time and steps.
void PrintHowFar(const v1::JobStatus& j) {
  using ull = unsigned long long;
  if (j.has_sweep()) {
    const v1::SweepStatus& s = j.sweep();
    std::printf("variants:  %llu of %llu done, %llu failed, %llu to go\n",
                static_cast<ull>(s.variants_done()), static_cast<ull>(s.variants_total()),
                static_cast<ull>(s.variants_failed()),
                static_cast<ull>(s.variants_total() - s.variants_done()));
    if (s.eta_seconds() > 0.0 && j.state() == v1::RUNNING) {
      std::printf("eta:       %.0f s\n", s.eta_seconds());
    }
    return;
  }
  if (j.has_fit()) {
    const v1::FitStatus& f = j.fit();
    std::printf("fit:       iteration %u, %llu runs, best objective %.6g", f.iteration(),
                static_cast<ull>(f.evaluations()), f.best_objective());
    const v1::Calibration& c = f.calibration().calibration();
    for (int i = 0; i < f.parameters_size() && i < c.parameters_size(); ++i) {
      std::printf("%s %s %.6g", i == 0 ? ";" : ",", c.parameters(i).name().c_str(),
                  f.parameters(i));
    }
    std::printf("\n");
    return;
  }
  if (j.has_training()) {
    const v1::TrainingStatus& t = j.training();
    std::printf("epochs:    %d of %d, loss %.6g (first %.6g)\n", t.epoch(), t.request().epochs(),
                t.loss(), t.first_loss());
    return;
  }
  std::printf("time:      %.6g of [%.6g, %.6g] s\nsteps:     %llu accepted, %llu rejected\n",
              j.time(), j.start_time(), j.stop_time(), static_cast<ull>(j.steps_accepted()),
              static_cast<ull>(j.steps_rejected()));
}

}  // namespace

int Status(Options& o) {
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<v1::JobStatus> s = client.Get(o.job_id);
    if (!s.ok()) return Fail(s.status());
    const v1::JobStatus& j = *s;
    std::printf("job:       %s\nname:      %s\nowner:     %s\nstate:     %s\n", j.job_id().c_str(),
                j.name().c_str(), j.owner().empty() ? "-" : j.owner().c_str(),
                v1::JobState_Name(j.state()).c_str());
    PrintHowFar(j);
    std::printf("submitted: %s\nended:     %s\n", FormatTime(j.submitted_unix_ms()).c_str(),
                j.finished_unix_ms() != 0 ? FormatTime(j.finished_unix_ms()).c_str() : "-");
    if (!j.message().empty()) std::printf("message:   %s\n", j.message().c_str());
    return 0;
  });
}

int Logs(Options& o) {
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<std::vector<v1::LogEntry>> lines = client.Logs(o.job_id, o.log_unit);
    if (!lines.ok()) return Fail(lines.status());
    for (const v1::LogEntry& line : *lines) std::cout << client::FormatLogLine(line) << "\n";
    return 0;
  });
}

int Cancel(Options& o) {
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<v1::JobStatus> s = client.Cancel(o.job_id);
    if (!s.ok()) return Fail(s.status());
    // A running job stops at its next step: say what it became, or that it was asked to.
    if (IsFinished(s->state())) {
      std::cout << s->job_id() << " " << v1::JobState_Name(s->state()) << "\n";
    } else {
      std::cout << s->job_id() << " cancel requested (cosimo watch " << s->job_id()
                << " follows it to its end)\n";
    }
    return 0;
  });
}

int Resume(Options& o) {
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<v1::JobStatus> s = client.Resume(o.job_id);
    if (!s.ok()) return Fail(s.status());
    std::cout << s->job_id() << " " << v1::JobState_Name(s->state()) << ": " << s->message()
              << "\n";
    return 0;
  });
}

int Delete(Options& o) {
  return WithClient(o, [&](Client& client) {
    if (absl::Status s = client.Delete(o.job_id); !s.ok()) return Fail(s);
    std::cout << o.job_id << " deleted\n";
    return 0;
  });
}

int List(Options& o) {
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<std::vector<v1::JobStatus>> jobs = client.List();
    if (!jobs.ok()) return Fail(jobs.status());
    std::printf("%-16s %-10s %-20s %-12s %-19s %-19s %12s  %s\n", "JOB", "STATE", "NAME", "OWNER",
                "SUBMITTED", "ENDED", "TIME/STOP", "MESSAGE");
    for (const v1::JobStatus& j : *jobs) {
      char progress[40];
      if (j.has_training()) {
        std::snprintf(progress, sizeof(progress), "epoch %d/%d", j.training().epoch(),
                      j.training().request().epochs());
      } else if (j.has_fit()) {
        std::snprintf(progress, sizeof(progress), "it %u, %.4g", j.fit().iteration(),
                      j.fit().best_objective());
      } else if (j.has_sweep()) {
        std::snprintf(progress, sizeof(progress), "%llu/%llu var",
                      static_cast<unsigned long long>(j.sweep().variants_done()),
                      static_cast<unsigned long long>(j.sweep().variants_total()));
      } else {
        std::snprintf(progress, sizeof(progress), "%.4g/%.4g", j.time(), j.stop_time());
      }
      const std::string ended = j.finished_unix_ms() != 0 ? FormatTime(j.finished_unix_ms()) : "-";
      std::printf("%-16s %-10s %-20s %-12s %-19s %-19s %12s  %s\n", j.job_id().c_str(),
                  v1::JobState_Name(j.state()).c_str(), j.name().c_str(),
                  j.owner().empty() ? "-" : j.owner().c_str(),
                  FormatTime(j.submitted_unix_ms()).c_str(), ended.c_str(), progress,
                  j.message().c_str());
    }
    return 0;
  });
}

int Workers(Options& o) {
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<std::vector<v1::WorkerStatus>> pool = client.Workers();
    if (!pool.ok()) return Fail(pool.status());
    std::vector<std::vector<std::string>> rows = {
        {"WORKER", "HOST", "PID", "STATE", "SLOTS", "JOB", "LABELS"}};
    for (const v1::WorkerStatus& w : *pool) {
      std::string labels;
      for (const std::string& label : w.labels()) labels += (labels.empty() ? "" : ",") + label;
      // Slots the running job uses of the worker's (cosimo-worker --slots; 0 means 1, as a
      // worker from before slots reports).
      const std::string slots =
          std::to_string(w.slots_busy()) + "/" + std::to_string(std::max(w.slots(), 1));
      rows.push_back({w.worker_id(), w.host(), std::to_string(w.pid()), w.busy() ? "busy" : "idle",
                      slots, w.job_id().empty() ? "-" : w.job_id(), labels.empty() ? "-" : labels});
    }
    std::cout << AlignedColumns(rows);
    std::cerr << pool->size() << " worker" << (pool->size() == 1 ? "" : "s") << "\n";
    return 0;
  });
}

}  // namespace cosimo::cli
