// SSP's mapping transformations (issue 46, 7; SSP 1.0 section 5.3.2, "Transformation Choice":
// ssc:BooleanMappingTransformation, ssc:IntegerMappingTransformation and
// ssc:EnumerationMappingTransformation, each a list of ssc:MapEntry source/target) imported into
// Connection.map and applied by the worker: two fmi2_discrete units, a's level, gear and lamp
// outputs mapped into b's n_in, mode_in and flag_in, which b echoes as n_seen, mode_seen and
// flag_seen. Enumeration entries name items (Gear P R N D = 1 2 3 4 into Mode off eco sport =
// 10 20 30), resolved with the FMU's <TypeDefinitions>. CTest label `conformance`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteFile;

std::string Ssd(const std::string& level_entries) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" version="1.0" name="mapped">
  <ssd:System name="mapped">
    <ssd:Elements>
      <ssd:Component name="a" source="resources/discrete.fmu"/>
      <ssd:Component name="b" source="resources/discrete.fmu"/>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="a" startConnector="level" endElement="b" endConnector="n_in">
        <ssc:IntegerMappingTransformation>)" +
         level_entries + R"(</ssc:IntegerMappingTransformation>
      </ssd:Connection>
      <ssd:Connection startElement="a" startConnector="gear" endElement="b" endConnector="mode_in">
        <ssc:EnumerationMappingTransformation>
          <ssc:MapEntry source="P" target="off"/><ssc:MapEntry source="R" target="eco"/>
          <ssc:MapEntry source="N" target="sport"/><ssc:MapEntry source="D" target="eco"/>
        </ssc:EnumerationMappingTransformation>
      </ssd:Connection>
      <ssd:Connection startElement="a" startConnector="lamp" endElement="b" endConnector="flag_in">
        <ssc:BooleanMappingTransformation>
          <ssc:MapEntry source="false" target="true"/><ssc:MapEntry source="true" target="false"/>
        </ssc:BooleanMappingTransformation>
      </ssd:Connection>
    </ssd:Connections>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
)";
}

std::string System(const std::string& level_entries) {
  const std::string dir = TempDir("conformance-mapping");
  std::filesystem::create_directories(dir + "/resources");
  std::filesystem::copy_file(Fmu("fmi2_discrete"), dir + "/resources/discrete.fmu");
  WriteFile(dir + "/mapped.ssd", Ssd(level_entries));
  return dir;
}

constexpr char kLevels[] = R"(
          <ssc:MapEntry source="0" target="100"/><ssc:MapEntry source="1" target="101"/>
          <ssc:MapEntry source="2" target="102"/><ssc:MapEntry source="3" target="103"/>
          <ssc:MapEntry source="4" target="104"/>)";

// Jacobi at H = 0.05: b's inputs over [t, t + H] are a's outputs at t, mapped; b's echoes at
// t + H show them. level = floor(t / 0.25).
TEST(SspMappings, MappedValuesArrive) {
  const std::string dir = System(kLevels);
  const RunResult r = CosimoRun(dir, "mapped", {dir + "/mapped.ssd", "--step-size", "0.05"});
  ASSERT_EQ(r.code, 0) << r.log;
  const int level = r.table.Column("a.level"), gear = r.table.Column("a.gear");
  const int lamp = r.table.Column("a.lamp"), n = r.table.Column("b.n_seen");
  const int mode = r.table.Column("b.mode_seen"), flag = r.table.Column("b.flag_seen");
  ASSERT_TRUE(level >= 0 && gear >= 0 && lamp >= 0 && n >= 0 && mode >= 0 && flag >= 0) << r.log;
  ASSERT_EQ(r.table.rows.size(), 21u);
  const std::map<double, double> gear_to_mode = {{1, 10}, {2, 20}, {3, 30}, {4, 20}};
  for (size_t k = 1; k < r.table.rows.size(); ++k) {
    const std::vector<double>& before = r.table.rows[k - 1];
    const std::vector<double>& row = r.table.rows[k];
    EXPECT_EQ(row[static_cast<size_t>(n)], 100 + before[static_cast<size_t>(level)]) << row[0];
    EXPECT_EQ(row[static_cast<size_t>(mode)], gear_to_mode.at(before[static_cast<size_t>(gear)]))
        << row[0];
    EXPECT_EQ(row[static_cast<size_t>(flag)], 1 - before[static_cast<size_t>(lamp)]) << row[0];
  }
  EXPECT_EQ(r.table.rows.back()[static_cast<size_t>(level)], 4);  // every level was mapped
}

// A value no entry maps fails the job naming the connection and the value (level 4 at t = 1 is
// not reached before the last step: levels 0 to 2 only mapped, so level 3 fails at t = 0.75).
TEST(SspMappings, AValueWithoutAnEntryFailsTheJob) {
  const std::string dir = System(R"(
          <ssc:MapEntry source="0" target="100"/><ssc:MapEntry source="1" target="101"/>
          <ssc:MapEntry source="2" target="102"/>)");
  const RunResult r = CosimoRun(dir, "unmapped", {dir + "/mapped.ssd", "--step-size", "0.05"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("the connection 'a.level' -> 'b.n_in' sends 3, which its map has "
                               "no entry for (sources: 0, 1, 2)"));
}

// Enumeration items that are not the type's are refused by the import, naming the line.
TEST(SspMappings, AnUnknownEnumerationItemIsRefused) {
  const std::string dir = System(kLevels);
  std::string ssd = Ssd(kLevels);
  const std::string item = R"(target="sport")";
  ssd.replace(ssd.find(item), item.size(), R"(target="race")");
  WriteFile(dir + "/mapped.ssd", ssd);
  const RunResult r = CosimoRun(dir, "unknown", {dir + "/mapped.ssd", "--step-size", "0.05"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("ssc:MapEntry target=\"race\" is not an item of 'b.mode_in' (eco, "
                               "off, sport)"));
}

}  // namespace
}  // namespace cosimo
