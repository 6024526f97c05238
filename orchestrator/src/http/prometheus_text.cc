#include "orchestrator/src/http/prometheus_text.h"

#include <charconv>
#include <cmath>

namespace cosimo::orchestrator::http {

std::string PrometheusText::FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  // Shortest round trip, in %g style: 0.0001 rather than 1e-04 (bucket bounds read as usual).
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general);
  return std::string(buffer, result.ptr);
}

std::string PrometheusText::EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void PrometheusText::Family(std::string_view name, std::string_view help, Type type) {
  family_ = std::string(name);
  // HELP text escapes backslash and newline only.
  std::string escaped;
  for (char c : help) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  const char* type_name = type == Type::kCounter ? "counter"
                          : type == Type::kGauge ? "gauge"
                                                 : "histogram";
  text_.append("# HELP ").append(name).append(" ").append(escaped);
  text_.append("\n# TYPE ").append(name).append(" ").append(type_name).append("\n");
}

void PrometheusText::Sample(const Labels& labels, double value, std::string_view suffix) {
  text_.append(family_).append(suffix);
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      text_.append(i == 0 ? "" : ",").append(labels[i].first).append("=\"");
      text_.append(EscapeLabelValue(labels[i].second)).append("\"");
    }
    text_ += '}';
  }
  text_.append(" ").append(FormatValue(value)).append("\n");
}

void PrometheusText::Histogram(const Labels& labels, const std::vector<double>& upper_bounds,
                               const std::vector<uint64_t>& counts, double sum) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= upper_bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    Labels with_le = labels;
    with_le.emplace_back("le", i < upper_bounds.size() ? FormatValue(upper_bounds[i]) : "+Inf");
    Sample(with_le, static_cast<double>(cumulative), "_bucket");
  }
  Sample(labels, sum, "_sum");
  Sample(labels, static_cast<double>(cumulative), "_count");
}

}  // namespace cosimo::orchestrator::http
