#include "cosimo/common/sweep_design.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace cosimo {
namespace {

// The grid values of a validated parameter.
std::vector<double> Axis(const v1::SweepParameter& p) {
  if (p.linspace_size() == 3) {
    return Linspace(p.linspace(0), p.linspace(1), static_cast<int64_t>(p.linspace(2)));
  }
  if (p.logspace_size() == 3) {
    return Logspace(p.logspace(0), p.logspace(1), static_cast<int64_t>(p.logspace(2)));
  }
  return {p.values().begin(), p.values().end()};
}

// A value of the parameter's distribution from u in [0, 1) (uniform, log-uniform).
double FromUnit(const v1::SweepParameter& p, double u) {
  if (p.log_uniform_size() == 2) {
    const double lo = std::log(p.log_uniform(0));
    return std::exp(lo + (std::log(p.log_uniform(1)) - lo) * u);
  }
  return p.uniform(0) + (p.uniform(1) - p.uniform(0)) * u;
}

std::vector<std::vector<double>> RandomDesign(const v1::Sweep& sweep) {
  std::mt19937_64 rng(sweep.design().seed());
  std::vector<std::vector<double>> out(sweep.design().samples());
  for (std::vector<double>& variant : out) {
    for (const v1::SweepParameter& p : sweep.parameters()) {
      if (p.normal_size() == 2) {
        variant.push_back(p.normal(0) + p.normal(1) * StandardNormal(rng));
      } else {
        variant.push_back(FromUnit(p, Uniform53(rng)));
      }
    }
  }
  return out;
}

}  // namespace

double Uniform53(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double StandardNormal(std::mt19937_64& rng) {
  const double u1 = Uniform53(rng);
  const double u2 = Uniform53(rng);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::vector<double> Linspace(double a, double b, int64_t n) {
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(i + 1 == n && n > 1 ? b
                                      : a + (b - a) * static_cast<double>(i) /
                                                static_cast<double>(std::max<int64_t>(n - 1, 1)));
  }
  return out;
}

std::vector<double> Logspace(double a, double b, int64_t n) {
  std::vector<double> out;
  const double la = std::log(a);
  const double lb = std::log(b);
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0) {
      out.push_back(a);
    } else if (i + 1 == n) {
      out.push_back(b);
    } else {
      out.push_back(std::exp(la + (lb - la) * static_cast<double>(i) / static_cast<double>(n - 1)));
    }
  }
  return out;
}

std::vector<std::vector<double>> GridDesign(const std::vector<std::vector<double>>& axes) {
  size_t total = 1;
  for (const std::vector<double>& axis : axes) total *= axis.size();
  std::vector<std::vector<double>> out(axes.empty() ? 0 : total);
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].resize(axes.size());
    size_t rest = k;
    for (size_t j = axes.size(); j-- > 0;) {
      out[k][j] = axes[j][rest % axes[j].size()];
      rest /= axes[j].size();
    }
  }
  return out;
}

std::vector<std::vector<double>> LatinHypercube(int64_t n, int d, std::mt19937_64& rng) {
  std::vector<std::vector<double>> out(static_cast<size_t>(n), std::vector<double>(d));
  std::vector<int64_t> strata(static_cast<size_t>(n));
  for (int j = 0; j < d; ++j) {
    for (int64_t i = 0; i < n; ++i) strata[i] = i;
    for (int64_t i = n - 1; i >= 1; --i) {
      const auto pick = static_cast<int64_t>(Uniform53(rng) * static_cast<double>(i + 1));
      std::swap(strata[i], strata[std::min(pick, i)]);
    }
    for (int64_t k = 0; k < n; ++k) {
      out[k][j] = (static_cast<double>(strata[k]) + Uniform53(rng)) / static_cast<double>(n);
    }
  }
  return out;
}

uint64_t VariantCount(const v1::Sweep& sweep) {
  if (sweep.design().kind() != v1::SweepDesign::GRID) return sweep.design().samples();
  if (sweep.parameters_size() == 0) return 0;
  uint64_t total = 1;
  for (const v1::SweepParameter& p : sweep.parameters()) {
    uint64_t n = static_cast<uint64_t>(p.values_size());
    if (p.linspace_size() == 3) n = static_cast<uint64_t>(p.linspace(2));
    if (p.logspace_size() == 3) n = static_cast<uint64_t>(p.logspace(2));
    if (n != 0 && total > std::numeric_limits<uint64_t>::max() / n) {
      return std::numeric_limits<uint64_t>::max();
    }
    total *= n;
  }
  return total;
}

std::vector<std::vector<double>> DesignValues(const v1::Sweep& sweep) {
  switch (sweep.design().kind()) {
    case v1::SweepDesign::RANDOM:
      return RandomDesign(sweep);
    case v1::SweepDesign::LATIN_HYPERCUBE: {
      std::mt19937_64 rng(sweep.design().seed());
      std::vector<std::vector<double>> out =
          LatinHypercube(sweep.design().samples(), sweep.parameters_size(), rng);
      for (std::vector<double>& variant : out) {
        for (int j = 0; j < sweep.parameters_size(); ++j) {
          variant[j] = FromUnit(sweep.parameters(j), variant[j]);
        }
      }
      return out;
    }
    default: {
      std::vector<std::vector<double>> axes;
      for (const v1::SweepParameter& p : sweep.parameters()) axes.push_back(Axis(p));
      return GridDesign(axes);
    }
  }
}

double FirstValue(const v1::SweepParameter& p) {
  if (p.values_size() > 0) return p.values(0);
  if (p.linspace_size() > 0) return p.linspace(0);
  if (p.logspace_size() > 0) return p.logspace(0);
  if (p.uniform_size() > 0) return p.uniform(0);
  if (p.normal_size() > 0) return p.normal(0);
  if (p.log_uniform_size() > 0) return p.log_uniform(0);
  return 0.0;
}

}  // namespace cosimo
