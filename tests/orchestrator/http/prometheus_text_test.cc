// The Prometheus text exposition writer and the metrics registry's histograms, against the
// format's rules (https://prometheus.io/docs/instrumenting/exposition_formats/).
#include "orchestrator/src/http/prometheus_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "orchestrator/src/metrics.h"

namespace cosimo::orchestrator::http {
namespace {

using ::testing::HasSubstr;

TEST(PrometheusTextTest, FamiliesHaveHelpTypeAndLabelledSamples) {
  PrometheusText out;
  out.Family("cosimo_jobs", "Jobs by state.", PrometheusText::Type::kGauge);
  out.Sample({{"state", "running"}}, 2);
  out.Sample({{"state", "queued"}}, 0);
  out.Family("cosimo_job_steps_accepted", "Steps.", PrometheusText::Type::kCounter);
  out.Sample({{"job", "7"}, {"unit", "a"}}, 1234, "_total");
  out.Family("cosimo_queue_length", "Queue.", PrometheusText::Type::kGauge);
  out.Sample({}, 3);
  EXPECT_EQ(out.text(),
            "# HELP cosimo_jobs Jobs by state.\n"
            "# TYPE cosimo_jobs gauge\n"
            "cosimo_jobs{state=\"running\"} 2\n"
            "cosimo_jobs{state=\"queued\"} 0\n"
            "# HELP cosimo_job_steps_accepted Steps.\n"
            "# TYPE cosimo_job_steps_accepted counter\n"
            "cosimo_job_steps_accepted_total{job=\"7\",unit=\"a\"} 1234\n"
            "# HELP cosimo_queue_length Queue.\n"
            "# TYPE cosimo_queue_length gauge\n"
            "cosimo_queue_length 3\n");
}

TEST(PrometheusTextTest, LabelValuesAndHelpAreEscaped) {
  PrometheusText out;
  out.Family("m", "a \\ back\nslash", PrometheusText::Type::kGauge);
  out.Sample({{"job", "a\"b\\c\nd"}}, 1);
  EXPECT_EQ(out.text(),
            "# HELP m a \\\\ back\\nslash\n# TYPE m gauge\nm{job=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(PrometheusTextTest, ValuesReadBackExactlyAndInfinitiesAreSpelledOut) {
  EXPECT_EQ(PrometheusText::FormatValue(0.1), "0.1");
  EXPECT_EQ(PrometheusText::FormatValue(1e-4), "0.0001");
  EXPECT_EQ(PrometheusText::FormatValue(2.5e-4), "0.00025");
  EXPECT_EQ(std::stod(PrometheusText::FormatValue(1.0 / 3.0)), 1.0 / 3.0);
  EXPECT_EQ(std::stod(PrometheusText::FormatValue(12345678901234567.0)), 12345678901234567.0);
  EXPECT_EQ(std::stod(PrometheusText::FormatValue(0.1 + 0.2)), 0.1 + 0.2);
  EXPECT_EQ(PrometheusText::FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(PrometheusText::FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(PrometheusText::FormatValue(std::nan("")), "NaN");
}

TEST(PrometheusTextTest, HistogramBucketsAreCumulativeAndEndWithInf) {
  PrometheusText out;
  out.Family("step_seconds", "Steps.", PrometheusText::Type::kHistogram);
  out.Histogram({{"worker", "w1"}}, {0.1, 1}, {2, 3, 1}, 4.5);
  EXPECT_EQ(out.text(),
            "# HELP step_seconds Steps.\n"
            "# TYPE step_seconds histogram\n"
            "step_seconds_bucket{worker=\"w1\",le=\"0.1\"} 2\n"
            "step_seconds_bucket{worker=\"w1\",le=\"1\"} 5\n"
            "step_seconds_bucket{worker=\"w1\",le=\"+Inf\"} 6\n"
            "step_seconds_sum{worker=\"w1\"} 4.5\n"
            "step_seconds_count{worker=\"w1\"} 6\n");
}

TEST(MetricsHistogramTest, AnObservationOnABoundGoesToThatBucket) {
  Histogram h({0.1, 1.0});
  for (double v : {0.05, 0.1, 0.5, 1.0, 3.0}) h.Observe(v);
  const Histogram::Counts c = h.Read();
  EXPECT_EQ(c.counts, (std::vector<uint64_t>{2, 2, 1}));  // le 0.1: 0.05 and 0.1
  EXPECT_EQ(c.count, 5u);
  EXPECT_DOUBLE_EQ(c.sum, 4.65);
}

TEST(MetricsTest, SeriesOfJobsAndWorkersThatAreGoneAreForgotten) {
  Metrics metrics;
  metrics.OnAcceptedStep("1", 10, 1, 12, 0.002);
  metrics.OnAcceptedStep("2", 5, 0, 5, 0.003);
  metrics.WorkerRoundTrip("w1")->Observe(0.001);
  metrics.WorkerRoundTrip("w2")->Observe(0.001);
  Metrics::Snapshot s = metrics.Read({"1", "2"}, {"w1", "w2"});
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs["1"].steps_accepted, 10u);
  EXPECT_EQ(s.jobs["1"].steps_rejected, 1u);
  EXPECT_EQ(s.jobs["1"].iterations, 12u);
  EXPECT_EQ(s.step_seconds.count, 2u);
  EXPECT_EQ(s.worker_round_trip.size(), 2u);
  // Job 1 deleted, worker w2 detached.
  s = metrics.Read({"2"}, {"w1"});
  EXPECT_EQ(s.jobs.size(), 1u);
  EXPECT_TRUE(s.jobs.contains("2"));
  EXPECT_EQ(s.worker_round_trip.size(), 1u);
  EXPECT_TRUE(s.worker_round_trip.contains("w1"));
  // The step time histogram is the orchestrator's, not a job's: it keeps its observations.
  EXPECT_EQ(s.step_seconds.count, 2u);
}

}  // namespace
}  // namespace cosimo::orchestrator::http
