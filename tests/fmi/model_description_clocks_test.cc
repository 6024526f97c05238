// FMI 3 Clock variables and clocked variables in the model description (issue 43; FMI 3.0.1
// sections 2.2.8 and 2.4.7.5.2): their attributes as declared, the `clocks` of a variable
// resolved to the Clock variables, and an error naming the variable for a bad declaration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cosimo/fmi/model_description.h"

namespace cosimo::fmi {
namespace {

using ::testing::HasSubstr;

// A Co-Simulation (or, with `se`, Scheduled Execution) FMU with the variables given.
std::string Md(const std::string& variables, bool se = false) {
  return std::string("<fmiModelDescription fmiVersion=\"3.0\" instantiationToken=\"t\">") +
         (se ? "<ScheduledExecution modelIdentifier=\"m\"/>"
             : "<CoSimulation modelIdentifier=\"m\" hasEventMode=\"true\"/>") +
         "<ModelVariables>" + variables + "</ModelVariables></fmiModelDescription>";
}

TEST(FmiModelDescriptionClocksTest, ClockAttributesAndClockedVariables) {
  const auto md = ParseModelDescriptionText(
      Md(R"(<Clock name="c" valueReference="7" causality="input" intervalVariability="constant"
                   intervalDecimal="0.25" shiftDecimal="0.1" priority="2" canBeDeactivated="true"/>
            <Clock name="k" valueReference="8" causality="input" intervalVariability="fixed"
                   resolution="1000" intervalCounter="250" shiftCounter="50" supportsFraction="true"/>
            <Clock name="o" valueReference="9" causality="output" intervalVariability="triggered"/>
            <Clock name="d" valueReference="10" causality="input" intervalVariability="countdown"/>
            <Int32 name="n" valueReference="1" causality="output" variability="discrete" clocks="7 9"/>
            <Float64 name="x" valueReference="2" causality="output" variability="continuous"/>)"),
      "clocks.xml");
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->Clocks(), (std::vector<int>{0, 1, 2, 3}));
  const ClockAttributes& c = md->variables[md->Find("c")].clock;
  EXPECT_EQ(md->variables[md->Find("c")].type, VarType::kClock);
  EXPECT_EQ(c.interval_variability, IntervalVariability::kConstant);
  EXPECT_EQ(c.interval_decimal, 0.25);
  EXPECT_EQ(c.shift_decimal, 0.1);
  EXPECT_EQ(c.priority, 2u);
  EXPECT_TRUE(c.can_be_deactivated);
  EXPECT_DOUBLE_EQ(c.Interval(), 0.25);
  EXPECT_DOUBLE_EQ(c.Shift(), 0.1);
  const ClockAttributes& k = md->variables[md->Find("k")].clock;
  EXPECT_EQ(k.interval_variability, IntervalVariability::kFixed);
  EXPECT_TRUE(k.supports_fraction);
  EXPECT_EQ(k.resolution, 1000u);
  EXPECT_EQ(k.interval_counter, 250u);
  EXPECT_EQ(k.shift_counter, 50u);
  EXPECT_DOUBLE_EQ(k.Interval(), 0.25);
  EXPECT_DOUBLE_EQ(k.Shift(), 0.05);
  EXPECT_EQ(md->variables[md->Find("o")].clock.interval_variability,
            IntervalVariability::kTriggered);
  EXPECT_EQ(md->variables[md->Find("d")].clock.interval_variability,
            IntervalVariability::kCountdown);
  EXPECT_EQ(md->variables[md->Find("n")].clocks, (std::vector<int>{md->Find("c"), md->Find("o")}));
  EXPECT_TRUE(md->variables[md->Find("x")].clocks.empty());
  EXPECT_EQ(md->variables[md->Find("x")].clock.interval_variability, IntervalVariability::kNone);
}

TEST(FmiModelDescriptionClocksTest, BadDeclarationsNameTheVariable) {
  const struct {
    std::string variables;
    std::string error;
    bool se = false;
  } cases[] = {
      {R"(<Clock name="c" valueReference="1" causality="input"/>)",
       "variable 'c': a Clock needs an intervalVariability"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="often"/>)",
       "variable 'c': unknown intervalVariability 'often'"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="constant"/>)",
       "variable 'c': a constant Clock gives its interval"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="constant"
                 intervalDecimal="-1"/>)",
       "variable 'c': intervalDecimal -1 is not positive"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="fixed"
                 intervalDecimal="x"/>)",
       "variable 'c': intervalDecimal=\"x\" is not a number"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="constant"
                 intervalCounter="3"/>)",
       "variable 'c': intervalCounter and shiftCounter need a resolution"},
      {R"(<Clock name="c" valueReference="1" causality="output" intervalVariability="constant"
                 intervalDecimal="1"/>)",
       "variable 'c': an output Clock is a triggered clock"},
      {R"(<Clock name="c" valueReference="1" causality="parameter" intervalVariability="fixed"/>)",
       "variable 'c': a Clock's causality is input, output or local"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="triggered"
                 intervalDecimal="1"/>)",
       "variable 'c': a triggered Clock has no interval or shift"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="fixed"/>)",
       "variable 'c': an input Clock of a Scheduled Execution FMU needs a priority", true},
      {R"(<Int32 name="n" valueReference="2" variability="discrete" clocks="5"/>)",
       "variable 'n': clocks names value reference 5, which no variable has"},
      {R"(<Int32 name="n" valueReference="2" variability="discrete" clocks="3"/>
          <Float64 name="y" valueReference="3"/>)",
       "variable 'n': clocks names value reference 3, the Float64 'y', not a Clock"},
      {R"(<Clock name="c" valueReference="1" causality="input" intervalVariability="countdown"/>
          <Float64 name="y" valueReference="3" variability="continuous" clocks="1"/>)",
       "variable 'y': a clocked variable is discrete"},
  };
  for (const auto& c : cases) {
    const auto md = ParseModelDescriptionText(Md(c.variables, c.se), "bad.xml");
    ASSERT_FALSE(md.ok()) << c.variables;
    EXPECT_THAT(md.status().message(), HasSubstr("bad.xml: " + c.error)) << c.variables;
  }
}

}  // namespace
}  // namespace cosimo::fmi
