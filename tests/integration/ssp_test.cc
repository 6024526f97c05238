// SSP import (cosimo/ssp/ssp_import.h): an .ssp archive (made with `zip`) of two test FMUs
// with inline, file and system parameter bindings, the errors for what is not supported, and
// `cosimo import` / `cosimo run SYSTEM.ssp` against the same system written as a scenario.
#include "cosimo/ssp/ssp_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "cosimo/common/scenario.h"
#include "tests/integration/process.h"

namespace cosimo {
namespace {

namespace fs = std::filesystem;
using testing::BinDir;
using ::testing::HasSubstr;
using testing::Process;
using testing::ReadFile;
using testing::WriteFile;

std::string Fmu(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

// Two mass-spring-dampers pulling on each other (the second FMU's source percent-encoded): "msd
// A".x -> msd2.F and msd2.x -> "msd A".F, the second connection written from its input end (the
// connector kinds say which is which).
std::string Ssd(
    const std::string& elements_extra = "", const std::string& connections_extra = "",
    const std::string& experiment = R"(<ssd:DefaultExperiment startTime="0" stopTime="5"/>)") {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="two-masses"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssd:System name="root">
    <ssd:Elements>
      <ssd:Component name="msd A" source="resources/msd.fmu" type="application/x-fmu-sharedlibrary">
        <ssd:Connectors>
          <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="F" kind="input"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="a">
                <ssv:Parameters>
                  <ssv:Parameter name="m"><ssv:Real value="2"/></ssv:Parameter>
                  <ssv:Parameter name="x"><ssv:Real value="1"/></ssv:Parameter>
                  <ssv:Parameter name="damping"><ssv:Boolean value="false"/></ssv:Parameter>
                  <ssv:Parameter name="label"><ssv:String value="left"/></ssv:Parameter>
                </ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
      <ssd:Component name="msd2" source="resources/other/msd%202.fmu">
        <ssd:Connectors>
          <ssd:Connector name="x" kind="output"/>
          <ssd:Connector name="F" kind="input"/>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="./resources/msd2.ssv"/>
        </ssd:ParameterBindings>
      </ssd:Component>)" +
         elements_extra + R"(
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="msd A" startConnector="x" endElement="msd2" endConnector="F"/>
      <ssd:Connection startElement="msd A" startConnector="F" endElement="msd2" endConnector="x"/>)" +
         connections_extra + R"(
    </ssd:Connections>
    <ssd:ParameterBindings>
      <ssd:ParameterBinding>
        <ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="system">
            <ssv:Parameters>
              <ssv:Parameter name="msd2.cf"><ssv:Real value="0.25"/></ssv:Parameter>
            </ssv:Parameters>
          </ssv:ParameterSet>
        </ssd:ParameterValues>
      </ssd:ParameterBinding>
    </ssd:ParameterBindings>
  </ssd:System>
  )" + experiment +
         R"(
</ssd:SystemStructureDescription>
)";
}

constexpr const char* kMsd2Ssv = R"(<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet version="1.0" name="msd2"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssv:Parameters>
    <ssv:Parameter name="c"><ssv:Real value="3"/></ssv:Parameter>
    <ssv:Parameter name="x"><ssv:Float64 value="-0.5"/></ssv:Parameter>
  </ssv:Parameters>
</ssv:ParameterSet>
)";

class SspTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir("cosimo-ssp");
    fs::create_directories(dir_ + "/system/resources/other");
    fs::copy_file(Fmu("fmi2_msd"), dir_ + "/system/resources/msd.fmu");
    fs::copy_file(Fmu("fmi2_msd"), dir_ + "/system/resources/other/msd 2.fmu");
    WriteFile(dir_ + "/system/resources/msd2.ssv", kMsd2Ssv);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The system as an archive.
  std::string Pack(const std::string& ssd) {
    WriteFile(dir_ + "/system/SystemStructure.ssd", ssd);
    const std::string ssp = dir_ + "/two.ssp";
    fs::remove(ssp);
    const std::string command = "cd " + dir_ + "/system && zip -q -r " + ssp +
                                " SystemStructure.ssd resources > " + dir_ + "/zip.log 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << ReadFile(dir_ + "/zip.log");
    return ssp;
  }

  // The system as a lone .ssd beside its resources.
  std::string Loose(const std::string& ssd) {
    WriteFile(dir_ + "/system/two.ssd", ssd);
    return dir_ + "/system/two.ssd";
  }

  std::string dir_;
};

TEST_F(SspTest, ImportsComponentsConnectionsParametersAndTimes) {
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Pack(Ssd()), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const v1::Scenario& s = imported->scenario;
  EXPECT_EQ(s.name(), "two-masses");
  EXPECT_EQ(s.start_time(), 0.0);
  EXPECT_EQ(s.stop_time(), 5.0);
  ASSERT_EQ(s.units_size(), 2);
  EXPECT_EQ(s.units(0).name(), "msd_A");
  EXPECT_EQ(s.units(1).name(), "msd2");
  // The FMUs are extracted byte for byte.
  EXPECT_EQ(s.units(0).fmu().path(), dir_ + "/out/resources/msd.fmu");
  EXPECT_EQ(ReadFile(s.units(1).fmu().path()), ReadFile(Fmu("fmi2_msd")));
  const auto& a = s.units(0).parameters();
  EXPECT_EQ(a.at("m").number_value(), 2.0);
  EXPECT_EQ(a.at("x").number_value(), 1.0);
  EXPECT_FALSE(a.at("damping").bool_value());
  EXPECT_EQ(a.at("damping").kind_case(), google::protobuf::Value::kBoolValue);
  EXPECT_EQ(a.at("label").string_value(), "left");
  const auto& b = s.units(1).parameters();
  EXPECT_EQ(b.at("c").number_value(), 3.0);    // from resources/msd2.ssv
  EXPECT_EQ(b.at("x").number_value(), -0.5);   // from resources/msd2.ssv (an SSP 2.0 type)
  EXPECT_EQ(b.at("cf").number_value(), 0.25);  // bound on the system as "msd2.cf"
  ASSERT_EQ(s.connections_size(), 2);
  EXPECT_EQ(s.connections(0).from(), "msd_A.x");
  EXPECT_EQ(s.connections(0).to(), "msd2.F");
  EXPECT_EQ(s.connections(1).from(), "msd2.x");  // turned round: from output to input
  EXPECT_EQ(s.connections(1).to(), "msd_A.F");
  EXPECT_EQ(s.algorithm().kind(), v1::Algorithm::JACOBI);
  EXPECT_DOUBLE_EQ(s.algorithm().step_size(), 0.005);  // a thousandth: the FMUs have no stepSize
  EXPECT_THAT(imported->notices, ::testing::Contains(HasSubstr("'msd A' is unit 'msd_A'")));
  EXPECT_TRUE(ValidateScenario(s).ok()) << ValidateScenario(s);

  // The same system as a lone .ssd: the FMUs stay where they are.
  options.step_size = 0.01;
  imported = ssp::ImportSsp(Loose(Ssd()), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.units(1).fmu().path(), dir_ + "/system/resources/other/msd 2.fmu");
  EXPECT_EQ(imported->scenario.algorithm().step_size(), 0.01);
  EXPECT_FALSE(imported->scenario.units(1).has_solver());

  // implementation="ModelExchange": the unit gets a solver, which makes it Model Exchange.
  std::string me = Ssd();
  const std::string component = R"(<ssd:Component name="msd2")";
  me.replace(me.find(component), component.size(),
             R"(<ssd:Component name="msd2" implementation="ModelExchange")");
  imported = ssp::ImportSsp(Loose(me), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.units(1).solver().method(), v1::Solver::CVODE);
  EXPECT_FALSE(imported->scenario.units(0).has_solver());
  EXPECT_THAT(imported->notices, ::testing::Contains(HasSubstr("'msd2' runs as Model Exchange")));
}

TEST_F(SspTest, WhatIsNotSupportedIsRefusedNamingTheElementAndLine) {
  struct Case {
    std::string ssd;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {Ssd(R"(
      <ssd:SignalDictionaryReference name="dict" dictionary="signals"/>)"),
       "element 'dict' is an ssd:SignalDictionaryReference; only FMU components and systems"},
      {Ssd("", R"(
      <ssd:Connection startElement="msd A" startConnector="x" endElement="msd2" endConnector="F"/>)"),
       "'msd2.F' is already fed by two.ssd line"},
      {Ssd("", R"(
      <ssd:Connection startElement="msd2" startConnector="x" endElement="msd A" endConnector="m">
        <ssc:BooleanMappingTransformation/>
      </ssd:Connection>)"),
       "ssc:BooleanMappingTransformation has no ssc:MapEntry"},
      {Ssd("", R"(
      <ssd:Connection startElement="msd2" startConnector="x" endElement="msd A" endConnector="m">
        <ssc:LinearTransformation factor="two"/>
      </ssd:Connection>)"),
       "ssc:LinearTransformation factor=\"two\" is not a finite number"},
      {Ssd("", R"(
      <ssd:Connection startElement="msd2" startConnector="x" endElement="msd A" endConnector="m">
        <ssc:UnitConversion/>
      </ssd:Connection>)"),
       "ssc:UnitConversion is not supported"},
      {Ssd("", R"(
      <ssd:Connection startElement="msd2" startConnector="x" endElement="ghost" endConnector="u"/>)"),
       "no component 'ghost'"},
      {Ssd(R"(
      <ssd:Component name="c3" source="resources/missing.fmu"/>)"),
       "component 'c3', source 'resources/missing.fmu'"},
      {Ssd(R"(
      <ssd:Component name="msd_A" source="resources/msd.fmu"/>)"),
       "makes the unit name 'msd_A', which another component has already"},
      {Ssd(R"(
      <ssd:Component name="c4" source="file:///tmp/x.fmu"/>)"),
       "is an absolute URI; only references relative to the SSD are supported"},
      {Ssd("", "", ""), "no DefaultExperiment with a stopTime; give the stop time (--stop-time)"},
      {"<ssd:SystemStructureDescription>\n  <ssd:System>\n</ssd:SystemStructureDescription>",
       "line 3: not well-formed XML"},
  };
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  for (const Case& c : cases) {
    absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Loose(c.ssd), options);
    ASSERT_FALSE(imported.ok()) << c.expected;
    EXPECT_THAT(std::string(imported.status().message()), HasSubstr(c.expected));
    EXPECT_THAT(std::string(imported.status().message()), HasSubstr("two.ssd"));
  }
  // Enumeration values, with the line of the value.
  std::string enumeration = Ssd();
  const std::string label = R"(<ssv:String value="left"/>)";
  enumeration.replace(enumeration.find(label), label.size(), R"(<ssv:Enumeration value="L"/>)");
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Loose(enumeration), options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(
      std::string(imported.status().message()),
      HasSubstr("two.ssd line 21: parameter 'label': Enumeration values are not supported"));
  // Every problem at once, each with its line.
  std::string many = Ssd(R"(
      <ssd:Component name="c3" source="resources/missing.fmu"/>)",
                         R"(
      <ssd:Connection startElement="msd2" startConnector="x" endElement="ghost" endConnector="u"/>)");
  many.replace(many.find(label), label.size(), R"(<ssv:Enumeration value="L"/>)");
  imported = ssp::ImportSsp(Loose(many), options);
  ASSERT_FALSE(imported.ok());
  const std::string message(imported.status().message());
  EXPECT_THAT(message, HasSubstr("3 problems:"));
  EXPECT_THAT(message, HasSubstr("two.ssd line 21: parameter 'label': Enumeration values"));
  EXPECT_THAT(message, HasSubstr("component 'c3', source 'resources/missing.fmu'"));
  EXPECT_THAT(message, HasSubstr("no component 'ghost'"));
  // An archive without its SystemStructure.ssd.
  const std::string ssp = Pack(Ssd());
  std::system(("cd " + dir_ + " && zip -q -d " + ssp + " SystemStructure.ssd").c_str());
  imported = ssp::ImportSsp(ssp, options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()), HasSubstr("no SystemStructure.ssd"));
}

// `cosimo import` then `cosimo run` of its scenario, and `cosimo run SYSTEM.ssp`, give the
// results of the same system written as a scenario by hand.
TEST_F(SspTest, ImportedSystemRunsLikeTheSameScenarioWrittenByHand) {
  const std::string ssp = Pack(Ssd());
  Process import({BinDir() + "/cosimo", "import", ssp, "--out", dir_ + "/imported/two.json",
                  "--step-size", "0.01"},
                 dir_ + "/import.log");
  ASSERT_EQ(import.Wait(std::chrono::seconds(60)), 0) << import.log();
  EXPECT_THAT(import.log(), HasSubstr("scenario written to"));
  const std::string json = ReadFile(dir_ + "/imported/two.json");
  EXPECT_THAT(json, HasSubstr("\"two_resources/resources/msd.fmu\""));  // relative to the JSON

  const std::string by_hand = R"({"name": "two-masses", "start_time": 0, "stop_time": 5,
    "units": [
      {"name": "msd_A", "fmu": {"path": ")" +
                              Fmu("fmi2_msd") + R"("},
       "parameters": {"m": 2, "x": 1, "damping": false, "label": "left"}},
      {"name": "msd2", "fmu": {"path": ")" +
                              Fmu("fmi2_msd") + R"("},
       "parameters": {"c": 3, "x": -0.5, "cf": 0.25}} ],
    "connections": [ {"from": "msd_A.x", "to": "msd2.F"}, {"from": "msd2.x", "to": "msd_A.F"} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.01}})";
  WriteFile(dir_ + "/by_hand.json", by_hand);

  auto run = [&](const std::vector<std::string>& args, const std::string& out) {
    std::vector<std::string> argv = {BinDir() + "/cosimo", "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--out", dir_ + "/" + out});
    Process p(argv, dir_ + "/" + out + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(120)), 0) << p.log();
    return ReadFile(dir_ + "/" + out);
  };
  const std::string reference = run({dir_ + "/by_hand.json"}, "by_hand.csv");
  ASSERT_EQ(std::count(reference.begin(), reference.end(), '\n'), 1 + 501);
  EXPECT_EQ(run({dir_ + "/imported/two.json"}, "imported.csv"), reference);
  EXPECT_EQ(run({ssp, "--step-size", "0.01"}, "direct.csv"), reference);
}

// An SSP of FMI 1.0 FMUs (issue 43: published SSP examples hold FMI 1.0 Co-Simulation FMUs)
// imports and runs, its columns equal to those of the same system made of the FMI 2 FMUs: the
// model and its integration inside the FMU are the same, and nothing iterates.
TEST_F(SspTest, Fmi1FmusImportAndRunLikeTheirFmi2Counterparts) {
  const std::string fmi2 = Pack(Ssd());
  fs::copy_file(Fmu("fmi1_msd_cs"), dir_ + "/system/resources/msd.fmu",
                fs::copy_options::overwrite_existing);
  fs::copy_file(Fmu("fmi1_msd_cs"), dir_ + "/system/resources/other/msd 2.fmu",
                fs::copy_options::overwrite_existing);
  fs::rename(fmi2, dir_ + "/fmi2.ssp");
  const std::string fmi1 = Pack(Ssd());
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(fmi1, options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->scenario.units_size(), 2);
  EXPECT_EQ(ReadFile(imported->scenario.units(1).fmu().path()), ReadFile(Fmu("fmi1_msd_cs")));
  EXPECT_TRUE(ValidateScenario(imported->scenario).ok()) << ValidateScenario(imported->scenario);

  // The columns of `names` in a results CSV, by header name.
  auto run = [&](const std::string& ssp, const std::string& out) {
    Process p({BinDir() + "/cosimo", "run", ssp, "--step-size", "0.01", "--out", dir_ + "/" + out},
              dir_ + "/" + out + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(120)), 0) << p.log();
    std::istringstream csv(ReadFile(dir_ + "/" + out));
    std::string line;
    std::getline(csv, line);
    std::vector<std::string> header = absl::StrSplit(line, ',');
    const std::vector<std::string> names = {"time", "msd_A.x", "msd_A.v", "msd2.x", "msd2.v"};
    std::vector<std::string> rows;
    while (std::getline(csv, line)) {
      std::vector<std::string> cells = absl::StrSplit(line, ',');
      std::string row;
      for (const std::string& name : names) {
        const auto it = std::find(header.begin(), header.end(), name);
        EXPECT_NE(it, header.end()) << out << ": no column " << name;
        if (it != header.end()) row += cells[static_cast<size_t>(it - header.begin())] + ",";
      }
      rows.push_back(row);
    }
    return rows;
  };
  const std::vector<std::string> reference = run(dir_ + "/fmi2.ssp", "fmi2.csv");
  ASSERT_EQ(reference.size(), 501u);
  EXPECT_EQ(run(fmi1, "fmi1.csv"), reference);
}

// In the style of OMSimulator's test suite (an SSD as OMEdit writes it: geometry, annotations,
// typed connectors): the two masses with the second one inside a nested system reached through
// that system's connectors with a linear transformation on each connection of the way, a
// parameter set mapped onto the first one's variables (with a linear transformation), the top
// system's output connector, and OMSimulator's fixed-step master.
std::string NestedSsd(const std::string& step_annotation) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping"
    xmlns:oms="https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd"
    xmlns:osp="https://opensimulationplatform.com/xsd/OspModelDescription"
    name="nested" version="1.0">
  <ssd:System name="root" description="">
    <ssd:Connectors>
      <ssd:Connector name="position" kind="output">
        <ssc:Real unit="m"/>
        <ssd:ConnectorGeometry x="1.0" y="0.5"/>
      </ssd:Connector>
    </ssd:Connectors>
    <ssd:ElementGeometry x1="0" y1="0" x2="10" y2="10"/>
    <ssd:Elements>
      <ssd:Component name="A" type="application/x-fmu-sharedlibrary" source="resources/msd.fmu">
        <ssd:Connectors>
          <ssd:Connector name="x" kind="output"><ssc:Real unit="m"/></ssd:Connector>
          <ssd:Connector name="F" kind="input"><ssc:Real unit="N"/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ElementGeometry x1="10" y1="10" x2="30" y2="30"/>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="tool_names">
                <ssv:Parameters>
                  <ssv:Parameter name="mass_g"><ssv:Real value="2000"/></ssv:Parameter>
                  <ssv:Parameter name="x"><ssv:Real value="1"/></ssv:Parameter>
                </ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
            <ssd:ParameterMapping>
              <ssm:ParameterMapping version="1.0">
                <ssm:MappingEntry source="mass_g" target="m">
                  <ssc:LinearTransformation factor="0.001" offset="0"/>
                </ssm:MappingEntry>
              </ssm:ParameterMapping>
            </ssd:ParameterMapping>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
      <ssd:System name="sub">
        <ssd:Connectors>
          <ssd:Connector name="force" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="pos" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:Elements>
          <ssd:Component name="msd2" source="resources/other/msd%202.fmu">
            <ssd:Connectors>
              <ssd:Connector name="x" kind="output"/>
              <ssd:Connector name="F" kind="input"/>
            </ssd:Connectors>
            <ssd:ParameterBindings>
              <ssd:ParameterBinding source="resources/msd2.ssv">
                <ssd:ParameterMapping source="resources/msd2.ssm"/>
              </ssd:ParameterBinding>
            </ssd:ParameterBindings>
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startElement="" startConnector="force" endElement="msd2" endConnector="F">
            <ssc:LinearTransformation factor="2" offset="0.5"/>
            <ssd:ConnectionGeometry pointsX="1 2" pointsY="1 2"/>
          </ssd:Connection>
          <ssd:Connection startElement="msd2" startConnector="x" endConnector="pos"/>
        </ssd:Connections>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="sub">
                <ssv:Parameters>
                  <ssv:Parameter name="msd2.cf"><ssv:Real value="0.25"/></ssv:Parameter>
                </ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:System>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="A" startConnector="x" endElement="sub" endConnector="force">
        <ssc:LinearTransformation factor="3"/>
      </ssd:Connection>
      <ssd:Connection startElement="sub" startConnector="pos" endElement="A" endConnector="F"/>
      <ssd:Connection startElement="A" startConnector="x" endConnector="position"/>
    </ssd:Connections>
    <ssd:Annotations>
      <ssc:Annotation type="org.openmodelica">
        <oms:Annotations>
          <oms:SimulationInformation>)" +
         step_annotation + R"(
          </oms:SimulationInformation>
        </oms:Annotations>
      </ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="5">
    <ssd:Annotations>
      <ssc:Annotation type="com.opensimulationplatform">
        <osp:Algorithm><osp:FixedStepAlgorithm baseStepSize="0.02"/></osp:Algorithm>
      </ssc:Annotation>
    </ssd:Annotations>
  </ssd:DefaultExperiment>
</ssd:SystemStructureDescription>
)";
}

constexpr const char* kMsd2Ssm = R"(<?xml version="1.0" encoding="UTF-8"?>
<ssm:ParameterMapping version="1.0"
    xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping">
  <ssm:MappingEntry source="c" target="c"/>
  <ssm:MappingEntry source="x" target="x"/>
</ssm:ParameterMapping>
)";

TEST_F(SspTest, FlattensNestedSystemsFollowsSystemConnectorsAndMapsParameters) {
  WriteFile(dir_ + "/system/resources/msd2.ssm", kMsd2Ssm);
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  const std::string master = R"(<oms:FixedStepMaster description="oms-ma" stepSize="0.01"/>)";
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Pack(NestedSsd(master)), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const v1::Scenario& s = imported->scenario;
  ASSERT_EQ(s.units_size(), 2);
  EXPECT_EQ(s.units(0).name(), "A");
  EXPECT_EQ(s.units(1).name(), "sub_msd2");
  EXPECT_DOUBLE_EQ(s.units(0).parameters().at("m").number_value(), 2.0);  // 2000 g, mapped
  EXPECT_EQ(s.units(0).parameters().count("mass_g"), 0u);
  EXPECT_EQ(s.units(0).parameters().at("x").number_value(), 1.0);
  EXPECT_EQ(s.units(1).parameters().at("c").number_value(), 3.0);    // .ssv through the .ssm
  EXPECT_EQ(s.units(1).parameters().at("cf").number_value(), 0.25);  // bound on "sub"
  ASSERT_EQ(s.connections_size(), 2);
  EXPECT_EQ(s.connections(0).from(), "A.x");  // through sub's connector "force"
  EXPECT_EQ(s.connections(0).to(), "sub_msd2.F");
  // The transformations on the way composed: 2 (3 x) + 0.5.
  EXPECT_EQ(s.connections(0).factor(), 6.0);
  EXPECT_EQ(s.connections(0).offset(), 0.5);
  EXPECT_FALSE(s.connections(1).has_factor());
  EXPECT_EQ(s.connections(1).from(), "sub_msd2.x");  // through sub's connector "pos"
  EXPECT_EQ(s.connections(1).to(), "A.F");
  ASSERT_EQ(s.record_size(), 1);
  EXPECT_EQ(s.record(0), "A.x");               // the system's output "position"
  EXPECT_EQ(s.algorithm().step_size(), 0.02);  // OSP's baseStepSize comes first
  EXPECT_THAT(imported->notices, ::testing::Contains(HasSubstr("baseStepSize")));
  EXPECT_TRUE(ValidateScenario(s).ok()) << ValidateScenario(s);

  // Without the OSP annotation, OMSimulator's fixed-step master gives the step.
  std::string oms = NestedSsd(master);
  const size_t osp = oms.find("<ssd:Annotations>", oms.find("<ssd:DefaultExperiment"));
  oms.erase(osp, oms.find("</ssd:DefaultExperiment>") - osp);
  imported = ssp::ImportSsp(Loose(oms), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.algorithm().step_size(), 0.01);

  // It runs as the same system written by hand.
  WriteFile(dir_ + "/by_hand.json", R"({"name": "nested", "start_time": 0, "stop_time": 5,
    "units": [
      {"name": "A", "fmu": {"path": ")" +
                                        Fmu("fmi2_msd") +
                                        R"("}, "parameters": {"m": 2, "x": 1}},
      {"name": "sub_msd2", "fmu": {"path": ")" +
                                        Fmu("fmi2_msd") +
                                        R"("}, "parameters": {"c": 3, "x": -0.5, "cf": 0.25}} ],
    "connections": [ {"from": "A.x", "to": "sub_msd2.F", "factor": 6, "offset": 0.5},
                     {"from": "sub_msd2.x", "to": "A.F"} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.02}, "record": ["A.x"]})");
  auto run = [&](const std::string& scenario, const std::string& out) {
    Process p({BinDir() + "/cosimo", "run", scenario, "--out", dir_ + "/" + out},
              dir_ + "/" + out + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(120)), 0) << p.log();
    return ReadFile(dir_ + "/" + out);
  };
  const std::string reference = run(dir_ + "/by_hand.json", "by_hand.csv");
  ASSERT_EQ(std::count(reference.begin(), reference.end(), '\n'), 1 + 251);
  EXPECT_EQ(run(dir_ + "/two.ssp", "nested.csv"), reference);
}

// An element's ssd:ParameterBindings with one inline ssv:ParameterSet of Real values.
std::string InlineReals(const std::vector<std::pair<std::string, std::string>>& reals) {
  std::string xml = R"(<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="inline"><ssv:Parameters>)";
  for (const auto& [name, value] : reals) {
    xml += "\n            <ssv:Parameter name=\"" + name + "\"><ssv:Real value=\"" + value +
           "\"/></ssv:Parameter>";
  }
  return xml + R"(
          </ssv:Parameters></ssv:ParameterSet>
        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>)";
}

// Parameters bound to the connectors of systems, as OMSimulator's test suite writes them (issue
// 29, item 9). SSP 2.0 section 5.2.3: "Any variables of the system exposed through connectors of
// the system have the name of the connector as their name", "All kinds of system connectors can
// be parameterized", and "bindings at a system level take precedence over bindings at a
// sub-system or component level". The value flows along the connections that leave the
// connector (System parameter -> Element parameter, SSP 2.0 section 5.3.2.1), transformed on the
// way:
//   root.k_cref (parameter, inline 0.3) -> "msd A".cf, and -> sub.damping -> msd2.cf (x 2)
//   root.force (input, inline 13) -> sub.force -> msd2.F (an input: its value is a parameter)
//   sub.mass (parameter, from sub.ssv's mass_g = 3000 through sub.ssm, x 0.001) -> msd2.m, that
//     connection written from its end (msd2.m) to its start (the connector kinds say which is
//     which)
//   root.unused (parameter, inline 7): connected to nothing, a warning
// and "msd A" binds its own input F = 14, msd2 its own cf = 9 and m = 1 (overridden from above).
// No DefaultExperiment: the stop time comes from --stop-time (item 11).
std::string SystemParameterSsd() {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="system-parameters"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssd:System name="root">
    <ssd:Connectors>
      <ssd:Connector name="k_cref" kind="parameter"><ssc:Real/></ssd:Connector>
      <ssd:Connector name="force" kind="input"><ssc:Real/></ssd:Connector>
      <ssd:Connector name="unused" kind="parameter"><ssc:Real/></ssd:Connector>
    </ssd:Connectors>
    <ssd:Elements>
      <ssd:Component name="msd A" source="resources/msd.fmu">
        <ssd:Connectors>
          <ssd:Connector name="F" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="cf" kind="parameter"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        )" +
         InlineReals({{"F", "14"}}) + R"(
      </ssd:Component>
      <ssd:System name="sub">
        <ssd:Connectors>
          <ssd:Connector name="damping" kind="parameter"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="mass" kind="parameter"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="force" kind="input"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:Elements>
          <ssd:Component name="msd2" source="resources/other/msd%202.fmu">
            <ssd:Connectors>
              <ssd:Connector name="F" kind="input"><ssc:Real/></ssd:Connector>
              <ssd:Connector name="cf" kind="parameter"><ssc:Real/></ssd:Connector>
              <ssd:Connector name="m" kind="parameter"><ssc:Real/></ssd:Connector>
            </ssd:Connectors>
            )" +
         InlineReals({{"cf", "9"}, {"m", "1"}}) +
         R"(
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startElement="" startConnector="damping" endElement="msd2" endConnector="cf">
            <ssc:LinearTransformation factor="2"/>
          </ssd:Connection>
          <ssd:Connection startElement="msd2" startConnector="m" endConnector="mass"/>
          <ssd:Connection startConnector="force" endElement="msd2" endConnector="F"/>
        </ssd:Connections>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="resources/sub.ssv">
            <ssd:ParameterMapping source="resources/sub.ssm"/>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:System>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startConnector="k_cref" endElement="msd A" endConnector="cf"/>
      <ssd:Connection startConnector="k_cref" endElement="sub" endConnector="damping"/>
      <ssd:Connection startConnector="force" endElement="sub" endConnector="force"/>
    </ssd:Connections>
    )" +
         InlineReals({{"k_cref", "0.3"},
                      {"force", "13"},
                      {"unused", "7"},
                      {"sub.msd2.c", "4"},
                      {"ghost.p", "5"}}) +
         R"(
  </ssd:System>
</ssd:SystemStructureDescription>
)";
}

constexpr const char* kSubSsv = R"(<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet version="1.0" name="sub"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssv:Parameters>
    <ssv:Parameter name="mass_g"><ssv:Real value="3000"/></ssv:Parameter>
  </ssv:Parameters>
</ssv:ParameterSet>
)";

constexpr const char* kSubSsm = R"(<?xml version="1.0" encoding="UTF-8"?>
<ssm:ParameterMapping version="1.0"
    xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon">
  <ssm:MappingEntry source="mass_g" target="mass">
    <ssc:LinearTransformation factor="0.001"/>
  </ssm:MappingEntry>
</ssm:ParameterMapping>
)";

TEST_F(SspTest, SystemParameterConnectorsFeedTheComponentsTheyAreConnectedTo) {
  WriteFile(dir_ + "/system/resources/sub.ssv", kSubSsv);
  WriteFile(dir_ + "/system/resources/sub.ssm", kSubSsm);
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  options.stop_time = 1.0;
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Pack(SystemParameterSsd()), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const v1::Scenario& s = imported->scenario;
  ASSERT_EQ(s.units_size(), 2);
  const auto& a = s.units(0).parameters();
  const auto& b = s.units(1).parameters();
  EXPECT_DOUBLE_EQ(a.at("cf").number_value(), 0.3);  // root.k_cref
  EXPECT_DOUBLE_EQ(b.at("cf").number_value(), 0.6);  // root.k_cref -> sub.damping, x 2
  EXPECT_DOUBLE_EQ(b.at("m").number_value(), 3.0);   // sub.ssv mass_g 3000 g -> sub.mass in kg
  EXPECT_DOUBLE_EQ(b.at("c").number_value(), 4.0);   // "sub.msd2.c" bound on root
  // Parameters naming inputs reach the FMU: bound on the component, or through system inputs.
  EXPECT_DOUBLE_EQ(a.at("F").number_value(), 14.0);
  EXPECT_DOUBLE_EQ(b.at("F").number_value(), 13.0);  // root.force -> sub.force -> msd2.F
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(s.connections_size(), 0);  // values, not connections
  EXPECT_THAT(imported->notices,
              ::testing::Contains(::testing::AllOf(HasSubstr("warning: SystemStructure.ssd line"),
                                                   HasSubstr("system parameter 'unused'"),
                                                   HasSubstr("feeds no component variable"))));
  EXPECT_THAT(imported->notices, ::testing::Contains(::testing::AllOf(
                                     HasSubstr("system parameter 'ghost.p' names no connector"),
                                     HasSubstr("SSP 2.0 section 5.2.3"))));
  EXPECT_THAT(imported->notices, ::testing::Not(::testing::Contains(HasSubstr("nothing feeds"))));
  EXPECT_TRUE(ValidateScenario(s).ok()) << ValidateScenario(s);

  // The same values run: the worker takes every one of them.
  Process run({BinDir() + "/cosimo", "run", dir_ + "/two.ssp", "--stop-time", "1", "--step-size",
               "0.1", "--out", dir_ + "/p.csv"},
              dir_ + "/run.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
  const std::string csv = ReadFile(dir_ + "/p.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 11);
  EXPECT_THAT(run.log(), HasSubstr("system parameter 'unused'"));
}

// Two connections into one connector (issue 29, item 10). SSP 2.0 section 5.3.2.1: "Implementations
// MUST ensure that data flow is specified unambiguously, including ensuring that not multiple
// connections with inbound data flow enter into a connector signifying an input, inout,
// parameter, or structuralParameter connector of an element, or a local, constant,
// calculatedParameter, or output connector of an enclosing system." Two outputs into the top
// system's output connector are refused, quoting it; inout is no way out (FMI has no inout
// variables: "with the kind inout not being valid for either FMI 3.0, 2.0, or 1.0", section
// 5.2.1). One connector feeding two is legal however the connections are written ("the terms
// start and end ... do not denote directionality of the data flow", section 5.3.2).
TEST_F(SspTest, TwoConnectionsIntoOneConnectorAreRefusedOneFeedingTwoIsNot) {
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  const std::string output = R"(
    <ssd:Connectors>
      <ssd:Connector name="position" kind="output"><ssc:Real/></ssd:Connector>
      <ssd:Connector name="p" kind="parameter"><ssc:Real/></ssd:Connector>
    </ssd:Connectors>)";
  std::string ssd = Ssd("", R"(
      <ssd:Connection startElement="msd A" startConnector="x" endConnector="position"/>
      <ssd:Connection startElement="msd2" startConnector="x" endConnector="position"/>)");
  const std::string system = R"(<ssd:System name="root">)";
  ssd.insert(ssd.find(system) + system.size(), output);
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Loose(ssd), options);
  ASSERT_FALSE(imported.ok());
  const std::string message(imported.status().message());
  EXPECT_THAT(message, HasSubstr("connection msd2.x -> (system).position: '(system).position' is "
                                 "already fed by two.ssd line"));
  EXPECT_THAT(message, HasSubstr("SSP 2.0 section 5.3.2.1 (Allowed Connections) forbids this"));
  EXPECT_THAT(message, HasSubstr("or output connector of an enclosing system"));

  // The system's parameter p feeds both components' c, each connection written from the
  // component (its end) to the system (its start).
  ssd = Ssd("", R"(
      <ssd:Connection startElement="msd A" startConnector="c" endConnector="p"/>
      <ssd:Connection startElement="msd2" startConnector="c" endConnector="p"/>)");
  ssd.insert(ssd.find(system) + system.size(), output);
  const std::string cf =
      R"(<ssv:Parameter name="msd2.cf"><ssv:Real value="0.25"/></ssv:Parameter>)";
  ssd.insert(ssd.find(cf) + cf.size(),
             R"(<ssv:Parameter name="p"><ssv:Real value="2"/></ssv:Parameter>)");
  imported = ssp::ImportSsp(Loose(ssd), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.units(0).parameters().at("c").number_value(), 2.0);
  EXPECT_EQ(imported->scenario.units(1).parameters().at("c").number_value(), 2.0);
  EXPECT_EQ(imported->scenario.connections_size(), 2);  // the two of Ssd()
}

// No DefaultExperiment (issue 29, item 11): refused, saying what to give and what the exporting
// tool would have done; --stop-time and --step-size are taken by import, run and submit alike.
TEST_F(SspTest, WithoutDefaultExperimentEveryVerbTakesTheStopTime) {
  WriteFile(dir_ + "/system/resources/sub.ssv", kSubSsv);
  WriteFile(dir_ + "/system/resources/sub.ssm", kSubSsm);
  const std::string ssp = Pack(SystemParameterSsd());
  for (const std::string& verb : std::vector<std::string>{"import", "run", "submit"}) {
    std::vector<std::string> argv = {BinDir() + "/cosimo", verb, ssp};
    if (verb == "import") argv.insert(argv.end(), {"--out", dir_ + "/refused.json"});
    if (verb == "submit") argv.insert(argv.end(), {"--orchestrator", "127.0.0.1:1"});
    Process refused(argv, dir_ + "/" + verb + "-refused.log");
    EXPECT_EQ(refused.Wait(std::chrono::seconds(60)), 2) << refused.log();
    EXPECT_THAT(refused.log(), HasSubstr("no DefaultExperiment with a stopTime; give the stop "
                                         "time (--stop-time)"))
        << verb;
    EXPECT_THAT(refused.log(), HasSubstr("SSP 2.0 section 5.1.1")) << verb;
    EXPECT_THAT(refused.log(), HasSubstr("OMSimulator, for one, runs from 0 to 1 s")) << verb;
  }
  Process import({BinDir() + "/cosimo", "import", ssp, "--out", dir_ + "/p.json", "--stop-time",
                  "2", "--step-size", "0.5"},
                 dir_ + "/import.log");
  ASSERT_EQ(import.Wait(std::chrono::seconds(60)), 0) << import.log();
  absl::StatusOr<v1::Scenario> scenario = LoadScenarioFile(dir_ + "/p.json");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_EQ(scenario->stop_time(), 2.0);
  EXPECT_EQ(scenario->algorithm().step_size(), 0.5);
  // submit imports with them too, then fails only for want of an orchestrator.
  Process submit({BinDir() + "/cosimo", "submit", ssp, "--stop-time", "2", "--step-size", "0.5",
                  "--orchestrator", "127.0.0.1:1"},
                 dir_ + "/submit.log");
  EXPECT_EQ(submit.Wait(std::chrono::seconds(60)), 1) << submit.log();
  EXPECT_THAT(submit.log(), HasSubstr("JACOBI with step_size 0.5 (--step-size)"));
  EXPECT_THAT(submit.log(), ::testing::Not(HasSubstr("DefaultExperiment")));
}

}  // namespace
}  // namespace cosimo
