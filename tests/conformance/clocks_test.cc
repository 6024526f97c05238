// FMI 3 clocks (issue 43): the test FMU fmi3_clocks (tests/fmus/clocks.c) under `cosimo run`,
// against its analytic ticks. CTest label `conformance`.
//
// tick is a periodic input clock whose ticks Cosimo computes: at shift + k * period from the
// start (fmi3_clocks: constant, 0.25 s from the model description; fmi3_clocks_calculated: the
// parameters period and shift, asked with fmi3GetIntervalDecimal / fmi3GetShiftDecimal). alarm
// is a countdown clock the FMU schedules itself (fmi3GetIntervalDecimal in every Event Mode):
// at k * alarm_delay (0.35 s), k = 1..max_alarms (3). Their clocked outputs: count and t_tick
// (ticks so far, time of the last), alarms and t_alarm. The record's clock columns are 1 at
// the rows that end a communication step in which the clock ticked (the first row: at the
// start), 0 elsewhere (docs/fmi.md, "Clocks").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using testing::TempDir;
using testing::WriteFile;

constexpr double kTol = 1e-9;

// Ticks at first, first + interval, ... up to `last` (and at most `count` of them).
std::vector<double> Ticks(double first, double interval, double last, int count = 1000) {
  std::vector<double> ticks;
  for (int k = 0; k < count && first + k * interval <= last + kTol; ++k)
    ticks.push_back(first + k * interval);
  return ticks;
}

// Checks the clock's column, its counter and the time of its last tick (within `tol`) at every
// row.
void CheckClock(const Table& t, const std::string& prefix, const std::string& clock,
                const std::string& counter, const std::string& last,
                const std::vector<double>& ticks, double tol = kTol) {
  const int c = t.Column(prefix + clock), n = t.Column(prefix + counter),
            l = t.Column(prefix + last);
  ASSERT_GE(c, 0) << clock;
  ASSERT_GE(n, 0) << counter;
  ASSERT_GE(l, 0) << last;
  double previous = -1.0;
  int ticked_rows = 0;
  for (const auto& row : t.rows) {
    const double time = row[0];
    int so_far = 0, in_step = 0;
    double last_tick = -1.0;
    for (double tick : ticks) {
      if (tick > time + tol) break;
      ++so_far;
      last_tick = tick;
      if (tick > previous + tol) ++in_step;
    }
    EXPECT_EQ(row[static_cast<size_t>(n)], so_far) << counter << " at t=" << time;
    EXPECT_NEAR(row[static_cast<size_t>(l)], last_tick, tol) << last << " at t=" << time;
    EXPECT_EQ(row[static_cast<size_t>(c)], in_step > 0 ? 1.0 : 0.0) << clock << " at t=" << time;
    ticked_rows += in_step > 0;
    previous = time;
  }
  EXPECT_GT(ticked_rows, 0) << clock;
}

// The default record (every output: the clocked ones) at the end of the default run (1.5 s).
void CheckClockedOnly(const Table& t) {
  const int count = t.Column("clocks.count"), alarms = t.Column("clocks.alarms");
  ASSERT_GE(count, 0);
  ASSERT_GE(alarms, 0);
  EXPECT_EQ(t.rows.back()[static_cast<size_t>(count)], 7);  // 0, 0.25, ..., 1.5
  EXPECT_EQ(t.rows.back()[static_cast<size_t>(alarms)], 3);
  EXPECT_NEAR(t.rows.back()[static_cast<size_t>(t.Column("clocks.t_tick"))], 1.5, kTol);
  EXPECT_NEAR(t.rows.back()[static_cast<size_t>(t.Column("clocks.t_alarm"))], 1.05, kTol);
}

const std::vector<std::string> kRecord = {"tick", "count", "t_tick", "alarm", "alarms", "t_alarm"};

// Co-Simulation in Event Mode, H = 0.1: the ticks at 0.25 and 0.75 and the alarms at 0.35 and
// 1.05 fall inside communication steps, which the unit cuts there.
TEST(ClockConformance, ConstantAndCountdownClocksTickInCoSimulation) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi3_clocks", 1.5, 0.1, "", kRecord));
  const RunResult r = CosimoRun(dir, "cs", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ASSERT_FALSE(r.table.rows.empty());
  EXPECT_EQ(r.table.rows.back()[0], 1.5);
  CheckClock(r.table, "u.", "tick", "count", "t_tick", Ticks(0.0, 0.25, 1.5));
  CheckClock(r.table, "u.", "alarm", "alarms", "t_alarm", Ticks(0.35, 0.35, 1.5, 3));
}

// An iterative scheme redoes each step from a snapshot (fmi3GetFMUState and the unit's clock
// schedule): the same ticks and values.
TEST(ClockConformance, RedoneStepsTickOnceFromTheirSnapshot) {
  const std::string dir = TempDir("conformance-clocks");
  std::string scenario = OneFmuScenario("fmi3_clocks", 1.5, 0.1, "", kRecord);
  scenario.replace(scenario.find("JACOBI"), 6, "FIXED_POINT");
  WriteFile(dir + "/s.json", scenario);
  const RunResult r = CosimoRun(dir, "redone", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  CheckClock(r.table, "u.", "tick", "count", "t_tick", Ticks(0.0, 0.25, 1.5));
  CheckClock(r.table, "u.", "alarm", "alarms", "t_alarm", Ticks(0.35, 0.35, 1.5, 3));
}

// A calculated clock: its interval (period 0.3) and shift (0.1) are the FMU's answers, not the
// model description's; ticks at 0.1, 0.4, ... about on the communication points.
TEST(ClockConformance, CalculatedClockTicksAtTheFmusIntervalAndShift) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json",
            OneFmuScenario("fmi3_clocks_calculated", 1.5, 0.1, "", kRecord,
                           R"({ "period": 0.3, "shift": 0.1, "alarm_delay": 0.5 })"));
  const RunResult r = CosimoRun(dir, "calculated", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  CheckClock(r.table, "u.", "tick", "count", "t_tick", Ticks(0.1, 0.3, 1.5));
  CheckClock(r.table, "u.", "alarm", "alarms", "t_alarm", Ticks(0.5, 0.5, 1.5, 3));
}

// A clock that supports fractions: its interval (period 1/3 s: counter 1 of resolution 3) and
// shift are asked with fmi3GetIntervalFraction / fmi3GetShiftFraction (fmi3_clocks_fraction
// fails the decimal forms for it); ticks at k / 3.
TEST(ClockConformance, AClockThatSupportsFractionsIsAskedForThem) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi3_clocks_fraction", 1.5, 0.1, "", kRecord,
                                            R"({ "period": 0.3333333333333333 })"));
  const RunResult r = CosimoRun(dir, "fraction", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  CheckClock(r.table, "u.", "tick", "count", "t_tick", Ticks(0.0, 1.0 / 3.0, 1.5));
  CheckClock(r.table, "u.", "alarm", "alarms", "t_alarm", Ticks(0.35, 0.35, 1.5, 3));
}

// Tunable and changing clocks: the interval asked in Event Mode changes at the third tick (0.2
// s, then period2 = 0.3 s from the tick at 0.4): ticks at 0, 0.2, 0.4, 0.7, 1.0, 1.3; H = 0.15
// puts most of them inside communication steps.
TEST(ClockConformance, TunableAndChangingClocksFollowTheIntervalTheFmuGives) {
  for (const char* fmu : {"fmi3_clocks_tunable", "fmi3_clocks_changing"}) {
    const std::string dir = TempDir("conformance-clocks");
    WriteFile(dir + "/s.json",
              OneFmuScenario(fmu, 1.5, 0.15, "", kRecord,
                             R"({ "period": 0.2, "period2": 0.3, "switch_after": 3 })"));
    const RunResult r = CosimoRun(dir, fmu, {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << r.log;
    SCOPED_TRACE(fmu);
    CheckClock(r.table, "u.", "tick", "count", "t_tick", {0.0, 0.2, 0.4, 0.7, 1.0, 1.3});
    CheckClock(r.table, "u.", "alarm", "alarms", "t_alarm", Ticks(0.35, 0.35, 1.5, 3));
  }
}

// A triggered output clock: overflow ticks at the state event x = t = x_trigger (0.62), which
// the FMU reports with fmi3GetClock in the Event Mode that follows (its clocked outputs count
// it only when it was asked). Co-Simulation: fmi3DoStep returns early at the end of the FMU's
// RK4 substep (1e-4 s) where the indicator changed sign; Model Exchange: the unit locates it.
TEST(ClockConformance, AnOutputClockTicksAtItsStateEvent) {
  for (const char* solver : {"", kMe}) {
    const std::string dir = TempDir("conformance-clocks");
    WriteFile(dir + "/s.json", OneFmuScenario("fmi3_clocks", 1.5, 0.1, solver,
                                              {"overflow", "overflows", "t_overflow"}));
    const RunResult r = CosimoRun(dir, "overflow", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << r.log;
    SCOPED_TRACE(*solver == 0 ? "CS" : "ME");
    CheckClock(r.table, "u.", "overflow", "overflows", "t_overflow", {0.62}, 1.5e-4);
  }
}

// Model Exchange: the ticks are time events of the unit's integration.
TEST(ClockConformance, ClocksTickAsTimeEventsInModelExchange) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi3_clocks", 1.5, 0.1, kMe, kRecord));
  const RunResult r = CosimoRun(dir, "me", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  CheckClock(r.table, "u.", "tick", "count", "t_tick", Ticks(0.0, 0.25, 1.5));
  CheckClock(r.table, "u.", "alarm", "alarms", "t_alarm", Ticks(0.35, 0.35, 1.5, 3));
}

// Scheduled Execution: a partition per clock, activated at its ticks (fmi3_clocks_se offers
// only Scheduled Execution); the same ticks and values.
TEST(ClockConformance, ScheduledExecutionActivatesEachClocksPartition) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi3_clocks_se", 1.5, 0.1, "", kRecord));
  const RunResult r = CosimoRun(dir, "se", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  CheckClock(r.table, "u.", "tick", "count", "t_tick", Ticks(0.0, 0.25, 1.5));
  CheckClock(r.table, "u.", "alarm", "alarms", "t_alarm", Ticks(0.35, 0.35, 1.5, 3));
}

// Partitions that tick together run by priority: with alarm_delay 0.25 the alarms (priority
// 0) tick with tick (priority 1, constant 0.25 s) at 0.25, 0.5 and 0.75, alarm's partition
// first, so tick's ran last at every row (last = 1); an importer running them in declaration or
// value reference order leaves last = 2 from 0.25 to 1.
TEST(ClockConformance, PartitionsTickingTogetherRunByPriority) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json",
            OneFmuScenario("fmi3_clocks_se", 1.5, 0.1, "", {"last", "count", "alarms"},
                           R"({ "alarm_delay": 0.25 })"));
  const RunResult r = CosimoRun(dir, "priority", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  const int last = r.table.Column("u.last"), alarms = r.table.Column("u.alarms");
  ASSERT_GE(last, 0);
  ASSERT_FALSE(r.table.rows.empty());
  EXPECT_EQ(r.table.rows.back()[static_cast<size_t>(alarms)], 3);  // ticked together
  for (const auto& row : r.table.rows) EXPECT_EQ(row[static_cast<size_t>(last)], 1) << row[0];
}

// `cosimo run MODEL.fmu` of a Scheduled-Execution-only FMU, with the default record.
TEST(ClockConformance, CosimoRunRunsAScheduledExecutionOnlyFmu) {
  const std::string dir = TempDir("conformance-clocks");
  const RunResult r = CosimoRun(dir, "default-se", {Fmu("fmi3_clocks_se")});
  ASSERT_EQ(r.code, 0) << r.log;
  EXPECT_THAT(r.log, ::testing::HasSubstr("offers only Scheduled Execution"));
  ASSERT_FALSE(r.table.rows.empty());
  EXPECT_EQ(r.table.rows.back()[0], 1.5);
  CheckClockedOnly(r.table);
}

// `cosimo run MODEL.fmu`: the clocked outputs recorded by default follow the ticks.
TEST(ClockConformance, CosimoRunModelFmuRecordsTheClockedOutputs) {
  const std::string dir = TempDir("conformance-clocks");
  const RunResult r = CosimoRun(dir, "default", {Fmu("fmi3_clocks")});
  ASSERT_EQ(r.code, 0) << r.log;
  ASSERT_FALSE(r.table.rows.empty());
  EXPECT_EQ(r.table.rows.back()[0], 1.5);
  CheckClockedOnly(r.table);
}

// `cosimo run` of units a (fmi3_clocks) and b (`b_fmu`) with the one connection `from` -> `to`.
RunResult RunOneConnection(const std::string& name, const std::string& b_fmu,
                           const std::string& from, const std::string& to) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json", R"({ "name": "c", "start_time": 0, "stop_time": 1,
    "units": [ { "name": "a", "fmu": { "path": ")" +
                                 Fmu("fmi3_clocks") + R"(" } },
               { "name": "b", "fmu": { "path": ")" +
                                 Fmu(b_fmu) + R"(" } } ],
    "connections": [ { "from": ")" +
                                 from + R"(", "to": ")" + to + R"(" } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 } })");
  return CosimoRun(dir, name, {dir + "/s.json"});
}

// A connection between a Clock and a variable of another type is refused by the scenario check,
// before the run (exit code 2), naming the connection.
TEST(ClockConformance, AClockFeedsOnlyAClock) {
  const RunResult r = RunOneConnection("connected", "fmi3_clock_receiver", "a.count", "b.trigger");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.log, ::testing::HasSubstr("connections[0]: 'a.count' (Int32) cannot feed "
                                          "'b.trigger' (Clock): a Clock feeds only a Clock"));
}

// A time-based input clock ticks where Cosimo computes: a connection to it is refused by the
// scenario check (exit code 2), naming the connection.
TEST(ClockConformance, AConnectionToATimeBasedInputClockIsRefused) {
  const RunResult r = RunOneConnection("time-based", "fmi3_clocks", "a.overflow", "b.tick");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.log, ::testing::HasSubstr("connections[0].to: 'b.tick' is a time-based input "
                                          "clock (Cosimo computes its ticks), not an input"));
}

// fmi3_clocks' output clock overflow (ticking at its state event t = 0.62, with overflows
// counting it) feeding the triggered input clock trigger of fmi3_clock_receiver (with the
// clocked input u from overflows), under `algorithm` (docs/fmi.md, "Clocks"); the receiver in
// Model Exchange when `receiver_solver` is not empty (its "solver").
std::string ClockPairScenario(const std::string& receiver, const std::string& algorithm,
                              const std::string& receiver_solver = "") {
  const std::string solver = receiver_solver.empty() ? "" : R"(, "solver": )" + receiver_solver;
  return R"({ "name": "pair", "start_time": 0, "stop_time": 1.5,
    "units": [ { "name": "a", "fmu": { "path": ")" +
         Fmu("fmi3_clocks") + R"(" } }, { "name": "b", "fmu": { "path": ")" + Fmu(receiver) +
         R"(" })" + solver + R"( } ],
    "connections": [ { "from": "a.overflow", "to": "b.trigger" },
                     { "from": "a.overflows", "to": "b.u" } ],
    "algorithm": )" +
         algorithm + R"(,
    "record": [ "a.overflow", "a.overflows", "a.t_overflow", "b.trigger", "b.received", "b.t_received",
                "b.u_seen" ] })";
}

// The pair's table under Jacobi, Gauss-Seidel and Jacobi with FOH inputs, the receiver in
// Model Exchange when `receiver_solver` is not empty: the receiver sees the tick at the
// communication point that ends the sender's step in which it ticked (0.7: the step [0.6, 0.7]
// holds 0.62), in the Event Mode that starts its next step, with u set there only
// (fmi3_clock_receiver fails a set of u while trigger is not active); its outputs show it from
// the row that ends that step (0.8). The three give the same table.
void CheckClockPair(const std::string& receiver_solver) {
  std::vector<Table> tables;
  for (const char* algorithm :
       {R"({ "kind": "JACOBI", "step_size": 0.1 })",
        R"({ "kind": "GAUSS_SEIDEL", "step_size": 0.1 })",
        R"({ "kind": "JACOBI", "step_size": 0.1, "input_approximation": "FOH" })"}) {
    SCOPED_TRACE(algorithm);
    const std::string dir = TempDir("conformance-clocks");
    WriteFile(dir + "/s.json",
              ClockPairScenario("fmi3_clock_receiver", algorithm, receiver_solver));
    const RunResult r = CosimoRun(dir, "pair", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << r.log;
    const Table& t = r.table;
    CheckClock(t, "a.", "overflow", "overflows", "t_overflow", {0.62}, 1.5e-4);  // the sender
    const int trigger = t.Column("b.trigger"), received = t.Column("b.received"),
              t_received = t.Column("b.t_received"), u_seen = t.Column("b.u_seen");
    ASSERT_GE(std::min({trigger, received, t_received, u_seen}), 0);
    ASSERT_EQ(t.rows.size(), 16u);
    for (const auto& row : t.rows) {
      const double time = row[0];
      const bool seen = time > 0.8 - kTol;
      EXPECT_EQ(row[static_cast<size_t>(trigger)], std::abs(time - 0.8) < kTol ? 1 : 0) << time;
      EXPECT_EQ(row[static_cast<size_t>(received)], seen ? 1 : 0) << time;
      EXPECT_NEAR(row[static_cast<size_t>(t_received)], seen ? 0.7 : -1.0, kTol) << time;
      EXPECT_EQ(row[static_cast<size_t>(u_seen)], seen ? 1 : 0) << time;
    }
    tables.push_back(t);
  }
  for (size_t k = 1; k < tables.size(); ++k) EXPECT_EQ(tables[k].rows, tables[0].rows) << k;
}

// The receiver in Co-Simulation: fmi3EnterEventMode at the start of its step [0.7, 0.8].
TEST(ClockConformance, AnOutputClockTicksTheInputClockOfAnotherUnit) { CheckClockPair(""); }

// The receiver in Model Exchange: the same Event Mode before its integration of [0.7, 0.8],
// then fmi3EnterContinuousTimeMode; the same table.
TEST(ClockConformance, AnOutputClockTicksTheInputClockOfAModelExchangeUnit) { CheckClockPair(kMe); }

// The same receiver offering only Scheduled Execution: the trigger's partition runs at 0.7, at
// the start of the receiver's step [0.7, 0.8].
TEST(ClockConformance, AnOutputClockActivatesAPartitionOfAnotherUnit) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json", ClockPairScenario("fmi3_clock_receiver_se",
                                               R"({ "kind": "JACOBI", "step_size": 0.1 })"));
  const RunResult r = CosimoRun(dir, "pair-se", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  const Table& t = r.table;
  const int received = t.Column("b.received"), t_received = t.Column("b.t_received"),
            u_seen = t.Column("b.u_seen");
  ASSERT_GE(std::min({received, t_received, u_seen}), 0);
  for (const auto& row : t.rows) {
    const bool seen = row[0] > 0.8 - kTol;
    EXPECT_EQ(row[static_cast<size_t>(received)], seen ? 1 : 0) << row[0];
    EXPECT_NEAR(row[static_cast<size_t>(t_received)], seen ? 0.7 : -1.0, kTol) << row[0];
    EXPECT_EQ(row[static_cast<size_t>(u_seen)], seen ? 1 : 0) << row[0];
  }
}

// Clocks tick only in Event Mode: a Co-Simulation FMU with clocks and without hasEventMode is
// refused by the scenario check (exit code 2), naming the unit and a clock.
TEST(ClockConformance, ClocksWithoutEventModeAreRefusedBeforeTheRun) {
  const std::string dir = TempDir("conformance-clocks");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi3_clocks_no_event_mode", 1.5, 0.1, "", kRecord));
  const RunResult r = CosimoRun(dir, "no-event-mode", {dir + "/s.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.log, ::testing::HasSubstr("units[0] ('u'): the FMU has clocks (first: 'tick') but "
                                          "its CoSimulation interface has no Event Mode"));
}

// Iterative schemes and adaptive steps would redo a step whose tick was exchanged: refused by
// the scenario check (exit code 2), naming the connection.
TEST(ClockConformance, AClockConnectionUnderAnIterativeSchemeIsRefused) {
  for (
      const char* algorithm :
      {R"({ "kind": "FIXED_POINT", "step_size": 0.1 })",
       R"({ "kind": "NEWTON", "step_size": 0.1 })",
       R"({ "kind": "JACOBI", "step_size": 0.1, "adaptive": { "min_step": 0.01, "max_step": 0.1, "tolerance": 1e-3 } })"}) {
    SCOPED_TRACE(algorithm);
    const std::string dir = TempDir("conformance-clocks");
    WriteFile(dir + "/s.json", ClockPairScenario("fmi3_clock_receiver", algorithm));
    const RunResult r = CosimoRun(dir, "iterative", {dir + "/s.json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.log, ::testing::HasSubstr("connections[0]: the clock connection 'a.overflow' -> "
                                            "'b.trigger' needs algorithm.kind JACOBI or "
                                            "GAUSS_SEIDEL with fixed steps"));
  }
}

}  // namespace
}  // namespace cosimo
