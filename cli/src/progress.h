// Shows a job's progress: a live bar on a terminal (simulated time / stop time, steps per
// second, iterations per step, rejections, ETA), plain lines when the output is not a terminal.
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

  // The bar text, without terminal control characters (for tests).
  static std::string FormatLine(const v1::JobStatus& status, int width);

 private:
  FILE* out_;
  bool tty_;
  bool drawn_ = false;
  v1::JobState last_state_ = v1::JOB_STATE_UNSPECIFIED;
  std::string last_message_;
  std::chrono::steady_clock::time_point last_line_;
};

}  // namespace cosimo::client
