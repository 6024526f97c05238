// The designs of a parameter sweep (cosimo.v1.SweepDesign): the values each variant gives the
// swept parameters. Random designs give the same samples on every machine for a seed: they use
// the raw output of std::mt19937_64 (standardised by C++) with the transforms below, never the
// standard library's distributions (whose algorithms are implementation-defined). The
// transforms of normal and log-uniform draws use std::log, std::exp, std::cos and std::sqrt, so
// those samples match to the last bit where the math library rounds the same (glibc does on
// every platform it runs on); uniform draws and the strata of a Latin hypercube are exact.
//
// Draw order (part of the contract: it fixes the samples of a seed):
//   RANDOM: for each variant in order, for each parameter in order, one value (a uniform or
//   log-uniform value takes one Uniform53 draw, a normal value one StandardNormal).
//   LATIN_HYPERCUBE: for each parameter in order, its permutation of the strata (Fisher-Yates,
//   i from n-1 down to 1, j = floor(Uniform53 * (i + 1))), then for each variant in order the
//   position inside its stratum (one Uniform53): u = (stratum + draw) / n, the value's quantile:
//   low + (high - low) u (uniform), exp(log low + (log high - log low) u) (log-uniform),
//   mean + sd InverseNormalCdf(u) (normal; u kept in [2^-53, 1 - 2^-53], so |value - mean| is at
//   most 8.2 sd, and each of the n strata of equal probability still holds one value).
// Stateless, thread safe.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/sweep.pb.h"

namespace cosimo {

// A uniform double in [0, 1) from the top 53 bits of one draw: (x >> 11) * 2^-53.
double Uniform53(std::mt19937_64& rng);
// A standard normal value by Box-Muller from two Uniform53 draws u1, u2 (in that order):
// sqrt(-2 log(1 - u1)) cos(2 pi u2) (the sine half is not used).
double StandardNormal(std::mt19937_64& rng);

// The standard normal distribution's quantile function Phi^-1(p): the x with Phi(x) = p, for p in
// [0, 1] (-inf at 0, +inf at 1; NaN outside). Wichura's rational approximations, Algorithm AS 241
// (PPND16), relative error about 1e-16; the same coefficients and order of operations as
// Python's statistics.NormalDist.inv_cdf.
double InverseNormalCdf(double p);

// n values from a to b inclusive, evenly spaced (a + (b - a) i / (n - 1), or
// a (1 - t) + b t with t = i / (n - 1) where b - a overflows the double range; the first is a, the
// last b, every value between them; n = 1: a). n >= 1.
std::vector<double> Linspace(double a, double b, int64_t n);
// n values from a to b inclusive, evenly spaced in log (exp(log a + (log b - log a) i / (n - 1));
// the first a, the last b, every value between them). a, b > 0, n >= 1.
std::vector<double> Logspace(double a, double b, int64_t n);

// Every combination of the axes' values, the first axis varying slowest; [variant][axis].
std::vector<std::vector<double>> GridDesign(const std::vector<std::vector<double>>& axes);

// n points of a Latin hypercube in [0, 1)^d, drawn as the header says; [variant][dimension].
std::vector<std::vector<double>> LatinHypercube(int64_t n, int d, std::mt19937_64& rng);

// The number of variants of a validated sweep (ValidateSweep); saturates at UINT64_MAX.
uint64_t VariantCount(const v1::Sweep& sweep);

// The values of every variant of a validated sweep, [variant][parameter], in variant order.
std::vector<std::vector<double>> DesignValues(const v1::Sweep& sweep);

// The value a parameter takes first in a grid, or the low end / mean of its distribution:
// what the checks against the base scenario try.
double FirstValue(const v1::SweepParameter& parameter);

}  // namespace cosimo
