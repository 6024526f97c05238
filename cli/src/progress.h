// Shows a job's progress: a live bar on a terminal (simulated time / stop time, steps per
// second, iterations per step, rejections, ETA; a training job's epoch, loss and training time)
// that fits the terminal's width, plain lines when the output is not a terminal.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "cosimo/v1/job_service.pb.h"

namespace cosimo::client {

class ProgressPrinter {
 public:
  // Writes to `out` (stderr by default); decides bar or lines from isatty.
  explicit ProgressPrinter(FILE* out = stderr);
  void Update(const v1::JobStatus& status);
  // Ends the bar's line.
  void Finish();

  // The bar text, without terminal control characters (for tests): a bar `width` wide and every
  // figure.
  static std::string FormatLine(const v1::JobStatus& status, int width);
  // The line drawn on a terminal `columns` wide: shorter than that (a bar of 10 to 30 and as
  // many figures as fit), so that it is redrawn in place and never wraps.
  static std::string FitLine(const v1::JobStatus& status, int columns);

 private:
  static double Fraction(const v1::JobStatus& status);
  static std::string Bar(double fraction, int width);
  static std::string Fields(const v1::JobStatus& status, int detail);
  static std::string TrainingFields(const v1::TrainingStatus& training, int detail);
  static std::string SweepFields(const v1::SweepStatus& sweep, int detail);
  int Columns() const;  // the terminal's width ($COLUMNS, else 80, if it cannot be asked)

  FILE* out_;
  bool tty_;
  bool drawn_ = false;
  v1::JobState last_state_ = v1::JOB_STATE_UNSPECIFIED;
  std::string last_message_;
  std::chrono::steady_clock::time_point last_line_;
};

}  // namespace cosimo::client
