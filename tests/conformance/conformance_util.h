// What the conformance tests share (tests/conformance): `cosimo run` on a scenario or an FMU,
// the results CSV read back, the FMI cross-check band, the analytic oscillator of the msd test
// FMUs. Header-only: each *_test.cc of the folder is one file of the conformance_tests program.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/process.h"

namespace cosimo {

inline std::string Fmu(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

// A results CSV: the header's names and the rows as numbers (a Boolean's true 1, false 0).
struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> rows;
  int Column(const std::string& name) const {
    auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  }
};

// The cells of one CSV line; a quoted cell (a name with a comma: "u.Y[1,2]") as its text.
inline std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

inline Table ReadCsv(const std::string& path) {
  Table t;
  std::istringstream in(testing::ReadFile(path));
  std::string line;
  if (!std::getline(in, line)) return t;
  t.names = SplitCsvLine(line);
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::vector<double> values;
    for (std::string cell; std::getline(row, cell, ',');)  // Booleans: true 1, false 0
      values.push_back(cell == "true" ? 1.0 : std::strtod(cell.c_str(), nullptr));
    t.rows.push_back(values);
  }
  return t;
}

// Runs `cosimo run ARGS... --out DIR/NAME.csv`; the exit code and the log.
struct RunResult {
  int code = -1;
  std::string log;
  Table table;
};
inline RunResult CosimoRun(const std::string& dir, const std::string& name,
                           std::vector<std::string> args) {
  const std::string out = dir + "/" + name + ".csv";
  std::vector<std::string> argv = {testing::BinDir() + "/cosimo", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--out", out});
  testing::Process p(argv, dir + "/" + name + ".log");
  RunResult r;
  r.code = p.Wait(std::chrono::seconds(120));
  r.log = p.log();
  if (r.code == 0) r.table = ReadCsv(out);
  return r;
}

// The FMI cross-check band: |value - expected| <= 1e-3 (range of the expected signal, at least
// 1e-3 in absolute terms for a constant one) on at least 99% of the rows.
inline void ExpectInBand(const Table& t, const std::string& column,
                         const std::function<double(double)>& expected, const std::string& what) {
  const int c = t.Column(column);
  ASSERT_GE(c, 0) << what << ": no column " << column;
  ASSERT_GT(t.rows.size(), 10u) << what;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& row : t.rows) {
    lo = std::min(lo, expected(row[0]));
    hi = std::max(hi, expected(row[0]));
  }
  const double band = 1e-3 * std::max(hi - lo, 1.0);
  size_t inside = 0;
  double worst = 0.0, worst_t = 0.0;
  for (const auto& row : t.rows) {
    const double error = std::abs(row[static_cast<size_t>(c)] - expected(row[0]));
    if (error <= band) ++inside;
    if (error > worst) worst = error, worst_t = row[0];
  }
  EXPECT_GE(static_cast<double>(inside), 0.99 * static_cast<double>(t.rows.size()))
      << what << " " << column << ": " << inside << " of " << t.rows.size()
      << " points in the band " << band << "; worst error " << worst << " at t=" << worst_t;
}

// A scenario of one FMU unit; `solver` empty: Co-Simulation.
inline std::string OneFmuScenario(const std::string& fmu, double stop, double step,
                                  const std::string& solver, const std::vector<std::string>& record,
                                  const std::string& parameters = "{}") {
  std::string rec;
  for (const std::string& r : record) rec += (rec.empty() ? "\"u." : ", \"u.") + r + "\"";
  return R"({ "name": "conformance", "start_time": 0, "stop_time": )" + std::to_string(stop) +
         R"(, "units": [ { "name": "u", "fmu": { "path": ")" + Fmu(fmu) + R"(" },
         "parameters": )" +
         parameters + (solver.empty() ? "" : R"(, "solver": )" + solver) +
         R"( } ], "algorithm": { "kind": "JACOBI", "step_size": )" + std::to_string(step) +
         R"( }, "record": [ )" + rec + " ] }";
}

inline constexpr char kMe[] = R"({ "method": "RK45", "step": 0.001, "tolerance": 1e-9 })";

// m x'' + cf x' + c x = 0 with m = c = 1, cf = 0.2, x(0) = 1, v(0) = 0 (the msd FMUs' start).
inline double MsdX(double t) {
  const double a = 0.1, wd = std::sqrt(1.0 - a * a);
  return std::exp(-a * t) * (std::cos(wd * t) + a / wd * std::sin(wd * t));
}
inline double MsdV(double t) {
  const double a = 0.1, wd = std::sqrt(1.0 - a * a);
  return -std::exp(-a * t) * (1.0 + a * a / (wd * wd)) * wd * std::sin(wd * t);
}

}  // namespace cosimo
