// A writer of Prometheus' text exposition format (version 0.0.4, served as
// "text/plain; version=0.0.4"): for each metric family a # HELP and a # TYPE line, then its
// samples, `name{label="value",...} value`. Label values are escaped (backslash, double quote,
// newline); values are written in the shortest form that reads back (+Inf, -Inf, NaN as the
// format spells them). Histograms are written from cumulative bucket counts.
//
// Call order: Family, then its Sample / Histogram calls, then the next Family; text() at the end.
// Not thread-safe (one writer per scrape).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cosimo::orchestrator::http {

using Labels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  enum class Type { kCounter, kGauge, kHistogram };

  // Starts a family: `name` (e.g. cosimo_jobs), what it measures, and its type.
  void Family(std::string_view name, std::string_view help, Type type);
  // One sample of the current family; `suffix` is appended to its name (_total, _bucket, ...).
  void Sample(const Labels& labels, double value, std::string_view suffix = "");
  // The _bucket (cumulative, le="..." then le="+Inf"), _sum and _count samples of one histogram
  // of the current family. `upper_bounds` and `counts` are per bucket, not cumulative; `counts`
  // has one more entry than `upper_bounds` (the observations above the last bound).
  void Histogram(const Labels& labels, const std::vector<double>& upper_bounds,
                 const std::vector<uint64_t>& counts, double sum);

  const std::string& text() const { return text_; }

  // The value as the format writes it: shortest round-trip decimal, +Inf, -Inf, NaN.
  static std::string FormatValue(double value);
  // A label value with \ " and newline escaped.
  static std::string EscapeLabelValue(std::string_view value);

 private:
  std::string family_;
  std::string text_;
};

}  // namespace cosimo::orchestrator::http
