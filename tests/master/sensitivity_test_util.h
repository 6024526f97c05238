// The check of forward sensitivities against whole co-simulations, shared by the sensitivity
// tests of built-in units (sensitivity_test.cc) and of FMU units (fmu_sensitivity_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cosimo/common/sensitivities.h"
#include "cosimo/common/sweep.h"
#include "tests/master/master_test_util.h"

namespace cosimo::master::testing {

// The run of SensitivityScenario(base) with the sensitivities of `variables` ("<unit>.<var>") to
// `parameters` ("<unit>.<parameter>" with its value in `base`): its own values are the plain
// run's (1e-9), and each sensitivity equals the central differences of two whole runs with the
// parameter moved by +-1e-4 of its value, within 1e-6 of the largest difference quotient (which
// must not be zero: the parameter moves the variable). `label` names the case in failures.
inline void ExpectSensitivitiesOfWholeRuns(
    const v1::Scenario& base, const std::vector<std::pair<std::string, double>>& parameters,
    const std::vector<std::string>& variables, const std::string& label) {
  std::vector<std::string> names;
  for (const auto& p : parameters) names.push_back(p.first);
  absl::StatusOr<v1::Scenario> augmented = SensitivityScenario(base, names, variables);
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  absl::StatusOr<MasterResult> run = RunScenario(*augmented);
  ASSERT_TRUE(run.ok()) << run.status();
  absl::StatusOr<MasterResult> plain = RunScenario(base);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_EQ(Rows(*run), Rows(*plain));
  for (size_t row = 0; row < Rows(*plain); row += 7) {
    for (const std::string& v : variables) {
      EXPECT_NEAR(At(*run, row, v), At(*plain, row, v), 1e-9 * (1.0 + std::abs(At(*plain, row, v))))
          << v << " row " << row << " (" << label << ")";
    }
  }
  for (const auto& [parameter, value] : parameters) {
    const size_t dot = parameter.find('.');
    const std::string unit = parameter.substr(0, dot), key = parameter.substr(dot + 1);
    const double h = 1e-4 * std::abs(value);
    v1::Scenario up = base, down = base;
    for (v1::Scenario* s : {&up, &down}) {
      for (v1::Unit& u : *s->mutable_units()) {
        if (u.name() == unit) SetUnitParameter(&u, key, value + (s == &up ? h : -h));
      }
    }
    absl::StatusOr<MasterResult> r_up = RunScenario(up), r_down = RunScenario(down);
    ASSERT_TRUE(r_up.ok() && r_down.ok());
    ASSERT_EQ(Rows(*r_up), Rows(*plain));
    for (const std::string& v : variables) {
      const size_t at = v.find('.');
      const std::string d = v.substr(0, at + 1) + SensitivityName(v.substr(at + 1), parameter);
      double scale = 0.0, worst = 0.0;
      for (size_t row = 0; row < Rows(*plain); ++row) {
        const double fd = (At(*r_up, row, v) - At(*r_down, row, v)) / (2 * h);
        scale = std::max(scale, std::abs(fd));
        worst = std::max(worst, std::abs(At(*run, row, d) - fd));
      }
      EXPECT_GT(scale, 1e-6) << d << ": the parameter moves the variable (" << label << ")";
      EXPECT_LT(worst, 1e-6 * scale) << d << " against central differences (" << label << ")";
    }
  }
}

}  // namespace cosimo::master::testing
