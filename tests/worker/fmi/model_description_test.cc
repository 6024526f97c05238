#include "worker/src/fmi/model_description.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/worker/fmi/fmi_test_util.h"
#include "worker/src/fmi/fmu_archive.h"

namespace cosimo::worker::fmi {
namespace {

ModelDescription Read(const std::string& fmu) {
  auto unpacked = UnpackFmu(testing::FmuPath(fmu));
  EXPECT_TRUE(unpacked.ok()) << unpacked.status();
  auto md = ParseModelDescriptionFile((*unpacked)->dir() + "/modelDescription.xml");
  EXPECT_TRUE(md.ok()) << md.status();
  return *md;
}

TEST(FmiModelDescriptionTest, Fmi2MassSpringDamper) {
  const ModelDescription md = Read("fmi2_msd");
  EXPECT_EQ(md.version, FmiVersion::kFmi2);
  EXPECT_EQ(md.guid, "{cosimo-test-msd}");
  EXPECT_EQ(md.model_name, "msd");
  ASSERT_TRUE(md.co_simulation.offered);
  ASSERT_TRUE(md.model_exchange.offered);
  EXPECT_EQ(md.co_simulation.model_identifier, "fmi2_msd");
  EXPECT_TRUE(md.co_simulation.can_get_and_set_fmu_state);
  EXPECT_TRUE(md.co_simulation.provides_directional_derivative);
  EXPECT_TRUE(md.co_simulation.can_interpolate_inputs);
  EXPECT_EQ(md.co_simulation.max_output_derivative_order, 1);
  EXPECT_TRUE(md.model_exchange.needs_completed_integrator_step);
  EXPECT_EQ(md.default_stop_time, 10.0);

  const ScalarVariable& x = md.variables[md.Find("x")];
  EXPECT_EQ(x.causality, FmiCausality::kOutput);
  EXPECT_EQ(x.initial, Initial::kExact);
  EXPECT_EQ(x.start, "1");
  EXPECT_EQ(x.unit, "m");
  // FMI 2 value references are unique per type only: Real 0, Integer 0, Boolean 0, String 0.
  EXPECT_EQ(md.variables[md.Find("steps")].type, VarType::kInt32);
  EXPECT_EQ(md.variables[md.Find("steps")].value_reference, 0u);
  EXPECT_EQ(md.variables[md.Find("damping")].type, VarType::kBoolean);
  EXPECT_EQ(md.variables[md.Find("label")].type, VarType::kString);
  EXPECT_EQ(md.variables[md.Find("label")].value_reference, 0u);
  EXPECT_EQ(md.variables[md.Find("m")].causality, FmiCausality::kParameter);
  EXPECT_EQ(md.variables[md.Find("F")].causality, FmiCausality::kInput);

  ASSERT_EQ(md.derivatives.size(), 2u);
  EXPECT_EQ(md.variables[md.derivatives[1].index].name, "der_v");
  EXPECT_EQ(md.variables[md.derivatives[1].index].derivative_of, md.Find("v"));
  std::vector<int> deps = md.derivatives[1].dependencies;
  EXPECT_EQ(deps, (std::vector<int>{md.Find("x"), md.Find("v"), md.Find("F")}));
  ASSERT_EQ(md.outputs.size(), 3u);
  EXPECT_TRUE(md.outputs[2].dependencies_given);
  EXPECT_TRUE(md.outputs[2].dependencies.empty());
  EXPECT_EQ(md.initial_unknowns.size(), 3u);
}

TEST(FmiModelDescriptionTest, Fmi3BouncingBall) {
  const ModelDescription md = Read("fmi3_bouncing_ball");
  EXPECT_EQ(md.version, FmiVersion::kFmi3);
  EXPECT_EQ(md.guid, "{cosimo-test-bouncing-ball3}");
  EXPECT_EQ(md.number_of_event_indicators, 1);
  EXPECT_EQ(md.model_exchange.model_identifier, "fmi3_bouncing_ball");
  EXPECT_TRUE(md.model_exchange.can_get_and_set_fmu_state);
  EXPECT_TRUE(md.model_exchange.provides_directional_derivative);
  EXPECT_EQ(md.variables[md.Find("time")].causality, FmiCausality::kIndependent);
  EXPECT_EQ(md.variables[md.Find("bounces")].type, VarType::kInt32);
  EXPECT_EQ(md.variables[md.Find("kicked")].type, VarType::kBoolean);
  ASSERT_EQ(md.derivatives.size(), 2u);
  // FMI 3 refers to states by value reference: der_h (vr 2) is the derivative of h (vr 0).
  EXPECT_EQ(md.variables[md.derivatives[0].index].derivative_of, md.Find("h"));
  EXPECT_EQ(md.variables[md.derivatives[1].index].derivative_of, md.Find("v"));
}

TEST(FmiModelDescriptionTest, Errors) {
  auto bad = ParseModelDescriptionText("<fmiModelDescription fmiVersion=\"2.0\"", "a.xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a.xml: XML error"), std::string::npos);

  bad = ParseModelDescriptionText("<fmiModelDescription fmiVersion=\"1.0\"/>", "b.xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fmiVersion '1.0' is not supported"), std::string::npos);

  bad = ParseModelDescriptionText(
      "<fmiModelDescription fmiVersion=\"2.0\" guid=\"g\"><CoSimulation modelIdentifier=\"m\"/>"
      "<ModelVariables><ScalarVariable name=\"a\" valueReference=\"0\"><Real/></ScalarVariable>"
      "<ScalarVariable name=\"a\" valueReference=\"1\"><Real/></ScalarVariable>"
      "</ModelVariables></fmiModelDescription>",
      "c.xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("variable 'a' is declared twice"), std::string::npos);

  bad = ParseModelDescriptionText(
      "<fmiModelDescription fmiVersion=\"2.0\" guid=\"g\"><CoSimulation modelIdentifier=\"m\"/>"
      "<ModelVariables><ScalarVariable name=\"a\" valueReference=\"0\"><Real/></ScalarVariable>"
      "</ModelVariables><ModelStructure><Outputs><Unknown index=\"7\"/></Outputs>"
      "</ModelStructure></fmiModelDescription>",
      "d.xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("index 7 is out of range"), std::string::npos);

  // The modelIdentifier names the binary to load: a path leading out of the FMU is refused
  // (the worker loaded /tmp/x.so from modelIdentifier="../../../tmp/x").
  for (const std::string id : {"../../../tmp/x", "/tmp/x", "sub/x", "..", ".hidden", "a\\b"}) {
    for (const std::string kind : {"CoSimulation", "ModelExchange"}) {
      bad = ParseModelDescriptionText("<fmiModelDescription fmiVersion=\"3.0\"><" + kind +
                                          " modelIdentifier=\"" + id + "\"/></fmiModelDescription>",
                                      "f.xml");
      ASSERT_FALSE(bad.ok()) << id;
      EXPECT_NE(bad.status().message().find("f.xml: <" + kind + "> modelIdentifier '" + id +
                                            "' is not a plain file name"),
                std::string::npos)
          << bad.status();
    }
  }
  EXPECT_TRUE(ParseModelDescriptionText("<fmiModelDescription fmiVersion=\"3.0\"><CoSimulation "
                                        "modelIdentifier=\"Model_v1.2-x\"/></fmiModelDescription>",
                                        "g.xml")
                  .ok());

  bad = ParseModelDescriptionText("<fmiModelDescription fmiVersion=\"3.0\"/>", "e.xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("neither <CoSimulation> nor <ModelExchange>"),
            std::string::npos);
}

// A modelDescription.xml bigger than the limit is refused before it is read (a 2.5 GiB one cost
// the worker 7.9 GB). The big file here is sparse: it takes no disk space.
TEST(FmiModelDescriptionTest, OversizedFileIsRefusedUnread) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("cosimo_md_" + std::to_string(getpid()) + ".xml"))
          .string();
  std::ofstream(path) << std::string(2000, ' ');
  auto md = ParseModelDescriptionFile(path, 1000);
  ASSERT_FALSE(md.ok());
  EXPECT_NE(md.status().message().find(path + ": the file is 2000 bytes, more than the 1000"),
            std::string::npos)
      << md.status();
  std::filesystem::resize_file(path, uint64_t{5} << 29);  // 2.5 GiB, sparse
  md = ParseModelDescriptionFile(path);
  ASSERT_FALSE(md.ok());
  EXPECT_NE(md.status().message().find("the file is 2684354560 bytes"), std::string::npos)
      << md.status();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cosimo::worker::fmi
