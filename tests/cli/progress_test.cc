#include "cli/src/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

namespace cosimo::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

v1::JobStatus Running(double t, double wall) {
  v1::JobStatus s;
  s.set_job_id("job-x");
  s.set_state(v1::RUNNING);
  s.set_start_time(0);
  s.set_stop_time(10);
  s.set_time(t);
  s.set_steps_accepted(static_cast<uint64_t>(t * 100));
  s.set_iterations(static_cast<uint64_t>(t * 300));
  s.set_steps_rejected(2);
  s.set_wall_seconds(wall);
  return s;
}

TEST(ProgressTest, LineShowsFractionRateIterationsRejectionsAndEta) {
  const std::string line = ProgressPrinter::FormatLine(Running(2.5, 5.0), 20);
  EXPECT_THAT(line, HasSubstr("[#####               ]"));
  EXPECT_THAT(line, HasSubstr(" 25%"));
  EXPECT_THAT(line, HasSubstr("t=2.5/10 s"));
  EXPECT_THAT(line, HasSubstr("50 steps/s"));  // 250 steps in 5 s
  EXPECT_THAT(line, HasSubstr("3.00 it/step"));
  EXPECT_THAT(line, HasSubstr("2 rejected"));
  EXPECT_THAT(line, HasSubstr("ETA 15s"));  // 75% left at 25% per 5 s
}

// Issue 42: the first status of a job that takes 0.7 s came after 0.05 s at 0.02% done and
// promised "ETA 280s". No ETA until a second has passed and a percent is done.
TEST(ProgressTest, NoEtaUntilThereIsARate) {
  EXPECT_THAT(ProgressPrinter::FormatLine(Running(0.002, 0.05), 20), HasSubstr("ETA --"));
  EXPECT_THAT(ProgressPrinter::FormatLine(Running(0.5, 0.5), 20), HasSubstr("ETA --"));
  EXPECT_THAT(ProgressPrinter::FormatLine(Running(0.05, 2.0), 20), HasSubstr("ETA --"));
  EXPECT_THAT(ProgressPrinter::FormatLine(Running(5, 1.0), 20), HasSubstr("ETA 1s"));
}

// The bar is redrawn in place with \r: a line as wide as the terminal (or wider) wraps, and every
// redraw then starts a new line.
TEST(ProgressTest, LineFitsTheTerminalWidth) {
  v1::JobStatus s = Running(123.456789, 5.0);
  s.set_stop_time(1e9);
  s.set_steps_rejected(123456);
  for (int columns : {20, 40, 60, 80, 100, 200}) {
    const std::string line = ProgressPrinter::FitLine(s, columns);
    EXPECT_LT(static_cast<int>(line.size()), columns) << columns << ": " << line;
    EXPECT_THAT(line, HasSubstr("%")) << columns;
  }
  EXPECT_THAT(ProgressPrinter::FitLine(s, 200), HasSubstr("123456 rejected"));
  EXPECT_THAT(ProgressPrinter::FitLine(s, 80), HasSubstr("["));
  EXPECT_THAT(ProgressPrinter::FitLine(s, 80), HasSubstr("ETA"));
}

TEST(ProgressTest, PlainLinesWhenNotATerminal) {
  FILE* out = std::tmpfile();
  ProgressPrinter printer(out);
  v1::JobStatus queued = Running(0, 0);
  queued.set_state(v1::QUEUED);
  queued.set_message("waiting for workers: needs 2, 0 idle and matching");
  printer.Update(queued);
  printer.Update(Running(5, 1));
  v1::JobStatus done = Running(10, 2);
  done.set_state(v1::SUCCEEDED);
  printer.Update(done);
  printer.Finish();
  std::rewind(out);
  char buffer[2048] = {};
  const size_t n = std::fread(buffer, 1, sizeof(buffer) - 1, out);
  std::fclose(out);
  const std::string text(buffer, n);
  EXPECT_EQ(text.find('\r'), std::string::npos);  // no bar redraws in a file
  EXPECT_THAT(text, HasSubstr("job job-x queued: waiting for workers: needs 2"));
  EXPECT_THAT(text, HasSubstr("job job-x running: ["));
  EXPECT_THAT(text, HasSubstr("job job-x SUCCEEDED\n"));
}

// A training job shows its epochs, loss and training time instead of simulated time, and its
// last figures when it ends.
TEST(ProgressTest, TrainingJobShowsEpochLossAndTime) {
  v1::JobStatus s = Running(0, 3.0);
  v1::TrainingStatus* training = s.mutable_training();
  training->mutable_request()->set_epochs(300);
  training->set_epoch(75);
  training->set_loss(1.25e-3);
  training->set_seconds(2.5);
  const std::string line = ProgressPrinter::FormatLine(s, 20);
  EXPECT_THAT(line, HasSubstr("[#####               ]"));  // 75 of 300 epochs
  EXPECT_THAT(line, HasSubstr("epoch 75/300  loss 1.250000e-03  2.5 s"));
  EXPECT_THAT(line, Not(HasSubstr("t=")));
  for (int columns : {20, 40, 80}) {
    EXPECT_LT(static_cast<int>(ProgressPrinter::FitLine(s, columns).size()), columns);
  }
  FILE* out = std::tmpfile();
  ProgressPrinter printer(out);
  training->set_epoch(300);
  s.set_state(v1::SUCCEEDED);
  printer.Update(s);
  printer.Finish();
  std::rewind(out);
  char buffer[512] = {};
  const size_t n = std::fread(buffer, 1, sizeof(buffer) - 1, out);
  std::fclose(out);
  EXPECT_THAT(std::string(buffer, n), HasSubstr("job job-x SUCCEEDED  epoch 300/300  loss"));
}

TEST(ProgressTest, SweepShowsVariantsDoneFailedAndEta) {
  v1::JobStatus s;
  s.set_job_id("job-x");
  s.set_state(v1::RUNNING);
  v1::SweepStatus* sweep = s.mutable_sweep();
  sweep->set_variants_total(8);
  sweep->set_variants_done(2);
  sweep->set_variants_failed(1);
  sweep->set_eta_seconds(11.2);
  const std::string line = ProgressPrinter::FormatLine(s, 20);
  EXPECT_THAT(line, HasSubstr("[#####               ]"));
  EXPECT_THAT(line, HasSubstr("variants 2/8  1 failed  ETA 12s"));
  EXPECT_THAT(line, Not(HasSubstr("t=")));
  for (int columns : {20, 40, 80}) {
    EXPECT_LT(static_cast<int>(ProgressPrinter::FitLine(s, columns).size()), columns);
  }
}

}  // namespace
}  // namespace cosimo::client
