#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cosimo::client {
namespace {

// A calibration job's figures: its iteration, its runs, its best objective and point.
std::string FitFields(const v1::FitStatus& f, int detail) {
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), "iteration %u, %llu runs, objective %.6g", f.iteration(),
                static_cast<unsigned long long>(f.evaluations()), f.best_objective());
  std::string out = buffer;
  const v1::Calibration& c = f.calibration().calibration();
  for (int i = 0; detail == 0 && i < f.parameters_size() && i < c.parameters_size(); ++i) {
    std::snprintf(buffer, sizeof(buffer), "%s %s %.6g", i == 0 ? ";" : ",",
                  c.parameters(i).name().c_str(), f.parameters(i));
    out += buffer;
  }
  return out;
}

}  // namespace

ProgressPrinter::ProgressPrinter(FILE* out) : out_(out), tty_(isatty(fileno(out)) != 0) {}

std::string ProgressPrinter::FormatLine(const v1::JobStatus& s, int width) {
  return Bar(Fraction(s), width) + Fields(s, 0);
}

double ProgressPrinter::Fraction(const v1::JobStatus& s) {
  if (s.has_fit()) {
    const uint32_t max = s.fit().calibration().calibration().optimizer().max_iterations();
    return std::clamp(static_cast<double>(s.fit().iteration()) / (max > 0 ? max : 100), 0.0, 1.0);
  }
  if (s.has_sweep()) {
    const uint64_t total = s.sweep().variants_total();
    return total > 0 ? std::clamp(static_cast<double>(s.sweep().variants_done()) /
                                      static_cast<double>(total),
                                  0.0, 1.0)
                     : 0.0;
  }
  if (s.has_training()) {
    const int epochs = s.training().request().epochs();
    return epochs > 0 ? std::clamp(static_cast<double>(s.training().epoch()) / epochs, 0.0, 1.0)
                      : 0.0;
  }
  const double span = s.stop_time() - s.start_time();
  return span > 0 ? std::clamp((s.time() - s.start_time()) / span, 0.0, 1.0) : 0.0;
}

std::string ProgressPrinter::Bar(double fraction, int width) {
  const int bar = std::max(0, width);
  const int filled = static_cast<int>(std::lround(fraction * bar));
  // Built by appends: GCC 12 at -O3 reports a false -Wrestrict on the chained operator+.
  std::string line;
  line.reserve(static_cast<size_t>(bar) + 3);
  line.push_back('[');
  line.append(static_cast<size_t>(filled), '#');
  line.append(static_cast<size_t>(bar - filled), ' ');
  line.append("] ");
  return line;
}

// The figures after the bar; `detail` 0 is all of them, 1 drops iterations and rejections, 2
// keeps the fraction, the time and the ETA.
std::string ProgressPrinter::Fields(const v1::JobStatus& s, int detail) {
  if (s.has_training()) return TrainingFields(s.training(), detail);
  if (s.has_fit()) return FitFields(s.fit(), detail);
  if (s.has_sweep()) return SweepFields(s.sweep(), detail);
  const double fraction = Fraction(s);
  const double steps_per_s = s.wall_seconds() > 0 ? s.steps_accepted() / s.wall_seconds() : 0.0;
  const double iterations_per_step =
      s.steps_accepted() > 0 ? static_cast<double>(s.iterations()) / s.steps_accepted() : 0.0;
  // No ETA until there is a rate: a second of running and a percent done (the first statuses
  // of a short job come before its steps do, and would promise minutes).
  constexpr double kMinWall = 1.0, kMinFraction = 0.01;
  std::string eta = "--";
  if (fraction >= kMinFraction && fraction < 1 && s.wall_seconds() >= kMinWall) {
    const double remaining = s.wall_seconds() * (1 - fraction) / fraction;
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.0fs", std::ceil(remaining));
    eta = buffer;
  } else if (fraction >= 1) {
    eta = "0s";
  }
  char buffer[256];
  if (detail == 0) {
    std::snprintf(buffer, sizeof(buffer),
                  "%3.0f%%  t=%.6g/%.6g s  %.0f steps/s  %.2f it/step  %llu rejected  ETA %s",
                  fraction * 100, s.time(), s.stop_time(), steps_per_s, iterations_per_step,
                  static_cast<unsigned long long>(s.steps_rejected()), eta.c_str());
  } else if (detail == 1) {
    std::snprintf(buffer, sizeof(buffer), "%3.0f%%  t=%.6g/%.6g s  %.0f steps/s  ETA %s",
                  fraction * 100, s.time(), s.stop_time(), steps_per_s, eta.c_str());
  } else {
    std::snprintf(buffer, sizeof(buffer), "%3.0f%% t=%.4g/%.4g ETA %s", fraction * 100, s.time(),
                  s.stop_time(), eta.c_str());
  }
  return buffer;
}

// A training job's figures: epoch, loss and training time (`detail` 2: epoch and loss).
std::string ProgressPrinter::TrainingFields(const v1::TrainingStatus& t, int detail) {
  char buffer[128];
  if (detail < 2) {
    std::snprintf(buffer, sizeof(buffer), "epoch %d/%d  loss %.6e  %.1f s", t.epoch(),
                  t.request().epochs(), t.loss(), t.seconds());
  } else {
    std::snprintf(buffer, sizeof(buffer), "epoch %d/%d loss %.3e", t.epoch(), t.request().epochs(),
                  t.loss());
  }
  return buffer;
}

// A sweep's figures: variants done of all, failed, ETA (`detail` 2: done and ETA).
std::string ProgressPrinter::SweepFields(const v1::SweepStatus& t, int detail) {
  const auto done = static_cast<unsigned long long>(t.variants_done());
  const auto total = static_cast<unsigned long long>(t.variants_total());
  std::string eta = "--";
  if (done == total) {
    eta = "0s";
  } else if (t.eta_seconds() > 0) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.0fs", std::ceil(t.eta_seconds()));
    eta = buffer;
  }
  char buffer[128];
  if (detail < 2) {
    std::snprintf(buffer, sizeof(buffer), "variants %llu/%llu  %llu failed  ETA %s", done, total,
                  static_cast<unsigned long long>(t.variants_failed()), eta.c_str());
  } else {
    std::snprintf(buffer, sizeof(buffer), "%llu/%llu ETA %s", done, total, eta.c_str());
  }
  return buffer;
}

std::string ProgressPrinter::FitLine(const v1::JobStatus& s, int columns) {
  // One column stays free: a line that fills the terminal's last column wraps on some.
  const int room = std::max(1, columns - 1);
  constexpr int kMinBar = 10;
  constexpr int kMaxBar = 30;
  for (int detail = 0; detail <= 2; ++detail) {
    const std::string fields = Fields(s, detail);
    const int bar = room - static_cast<int>(fields.size()) - 3;
    if (bar >= kMinBar) return Bar(Fraction(s), std::min(bar, kMaxBar)) + fields;
  }
  std::string fields = Fields(s, 2);
  fields.resize(std::min(fields.size(), static_cast<size_t>(room)));
  return fields;
}

int ProgressPrinter::Columns() const {
  struct winsize size = {};
  if (ioctl(fileno(out_), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && std::atoi(columns) > 0) {
    return std::atoi(columns);
  }
  return 80;
}

void ProgressPrinter::Update(const v1::JobStatus& s) {
  const auto now = std::chrono::steady_clock::now();
  const bool changed = s.state() != last_state_ || s.message() != last_message_;
  if (s.state() == v1::QUEUED) {
    if (changed) {
      if (drawn_) std::fputc('\n', out_);
      drawn_ = false;
      std::fprintf(out_, "job %s queued: %s\n", s.job_id().c_str(), s.message().c_str());
    }
  } else if (s.state() == v1::RUNNING) {
    if (tty_) {
      std::fprintf(out_, "\r%s\x1b[K", FitLine(s, Columns()).c_str());
      drawn_ = true;
    } else if (changed || now - last_line_ > std::chrono::seconds(2)) {
      std::fprintf(out_, "job %s running: %s\n", s.job_id().c_str(), FormatLine(s, 20).c_str());
      last_line_ = now;
    }
  } else if (changed) {
    if (tty_ && drawn_) std::fprintf(out_, "\r%s\x1b[K\n", FitLine(s, Columns()).c_str());
    drawn_ = false;
    // A training job's last figures too (its plain lines may have missed the last epochs).
    const std::string training = s.has_training() ? "  " + TrainingFields(s.training(), 0)
                                 : s.has_sweep()  ? "  " + SweepFields(s.sweep(), 0)
                                 : s.has_fit()    ? "  " + FitFields(s.fit(), 0)
                                                  : "";
    std::fprintf(out_, "job %s %s%s%s%s\n", s.job_id().c_str(),
                 v1::JobState_Name(s.state()).c_str(), s.message().empty() ? "" : ": ",
                 s.message().c_str(), training.c_str());
  }
  std::fflush(out_);
  last_state_ = s.state();
  last_message_ = s.message();
}

void ProgressPrinter::Finish() {
  if (drawn_) std::fputc('\n', out_);
  drawn_ = false;
  std::fflush(out_);
}

}  // namespace cosimo::client
