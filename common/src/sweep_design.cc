#include "cosimo/common/sweep_design.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace cosimo {
namespace {

// a + (b - a) t for t in [0, 1], within [min(a, b), max(a, b)], without overflow where b - a
// overflows (a and b of opposite signs near the ends of the double range: issue 41).
double Between(double a, double b, double t) {
  const double d = b - a;
  const double v = std::isfinite(d) ? a + d * t : a * (1.0 - t) + b * t;
  return std::clamp(v, std::min(a, b), std::max(a, b));
}

// exp(Between(log a, log b, t)) within [min(a, b), max(a, b)]; a, b > 0.
double LogBetween(double a, double b, double t) {
  return std::clamp(std::exp(Between(std::log(a), std::log(b), t)), std::min(a, b), std::max(a, b));
}

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

// A value of the parameter's distribution from its quantile u in [0, 1] (a Latin hypercube's;
// uniform and log-uniform values of a RANDOM design too).
double FromUnit(const v1::SweepParameter& p, double u) {
  if (p.log_uniform_size() == 2) return LogBetween(p.log_uniform(0), p.log_uniform(1), u);
  if (p.normal_size() == 2) {
    return p.normal(0) + p.normal(1) * InverseNormalCdf(std::clamp(u, 0x1.0p-53, 1 - 0x1.0p-53));
  }
  return Between(p.uniform(0), p.uniform(1), u);
}

// A polynomial's value at x, its coefficients from the constant term up (Horner).
template <size_t N>
double Polynomial(const double (&c)[N], double x) {
  double sum = c[N - 1];
  for (size_t i = N - 1; i-- > 0;) sum = sum * x + c[i];
  return sum;
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

double InverseNormalCdf(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  // Wichura, Algorithm AS 241 (Applied Statistics 37(3), 1988), PPND16: three rational
  // approximations of degree 7, the central one in q = p - 0.5, the two tails in
  // r = sqrt(-log(min(p, 1 - p))).
  static constexpr double kCentralNum[] = {3.3871328727963666080e0,  1.3314166789178437745e+2,
                                           1.9715909503065514427e+3, 1.3731693765509461125e+4,
                                           4.5921953931549871457e+4, 6.7265770927008700853e+4,
                                           3.3430575583588128105e+4, 2.5090809287301226727e+3};
  static constexpr double kCentralDen[] = {1.0,
                                           4.2313330701600911252e+1,
                                           6.8718700749205790830e+2,
                                           5.3941960214247511077e+3,
                                           2.1213794301586595867e+4,
                                           3.9307895800092710610e+4,
                                           2.8729085735721942674e+4,
                                           5.2264952788528545610e+3};
  static constexpr double kNearNum[] = {1.42343711074968357734e0,  4.63033784615654529590e0,
                                        5.76949722146069140550e0,  3.64784832476320460504e0,
                                        1.27045825245236838258e0,  2.41780725177450611770e-1,
                                        2.27238449892691845833e-2, 7.74545014278341407640e-4};
  static constexpr double kNearDen[] = {1.0,
                                        2.05319162663775882187e0,
                                        1.67638483018380384940e0,
                                        6.89767334985100004550e-1,
                                        1.48103976427480074590e-1,
                                        1.51986665636164571966e-2,
                                        5.47593808499534494600e-4,
                                        1.05075007164441684324e-9};
  static constexpr double kFarNum[] = {6.65790464350110377720e0,  5.46378491116411436990e0,
                                       1.78482653991729133580e0,  2.96560571828504891230e-1,
                                       2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                       2.71155556874348757815e-5, 2.01033439929228813265e-7};
  static constexpr double kFarDen[] = {1.0,
                                       5.99832206555887937690e-1,
                                       1.36929880922735805310e-1,
                                       1.48753612908506148525e-2,
                                       7.86869131145613259100e-4,
                                       1.84631831751005468180e-5,
                                       1.42151175831644588870e-7,
                                       2.04426310338993978564e-15};
  const double q = p - 0.5;
  if (std::abs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q * Polynomial(kCentralNum, r) / Polynomial(kCentralDen, r);
  }
  double r = std::sqrt(-std::log(q < 0.0 ? p : 1.0 - p));
  double x;
  if (r <= 5.0) {
    r -= 1.6;
    x = Polynomial(kNearNum, r) / Polynomial(kNearDen, r);
  } else {
    r -= 5.0;
    x = Polynomial(kFarNum, r) / Polynomial(kFarDen, r);
  }
  return q < 0.0 ? -x : x;
}

std::vector<double> Linspace(double a, double b, int64_t n) {
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(i == 0 ? a
                  : i + 1 == n
                      ? b
                      : Between(a, b, static_cast<double>(i) / static_cast<double>(n - 1)));
  }
  return out;
}

std::vector<double> Logspace(double a, double b, int64_t n) {
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(i == 0 ? a
                  : i + 1 == n
                      ? b
                      : LogBetween(a, b, static_cast<double>(i) / static_cast<double>(n - 1)));
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
  if (sweep.design().kind() == v1::SweepDesign::LIST) {
    return sweep.parameters_size() == 0 ? 0 : sweep.parameters(0).values_size();
  }
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
    case v1::SweepDesign::LIST: {
      std::vector<std::vector<double>> out(VariantCount(sweep));
      for (size_t k = 0; k < out.size(); ++k) {
        for (const v1::SweepParameter& p : sweep.parameters()) {
          out[k].push_back(p.values(static_cast<int>(k)));
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
