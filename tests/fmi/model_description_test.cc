#include "cosimo/fmi/model_description.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cosimo/fmi/fmu_archive.h"

namespace cosimo::fmi {
namespace {

ModelDescription Read(const std::string& fmu) {
  auto unpacked = UnpackFmu(std::string(COSIMO_BINARY_DIR) + "/fmus/" + fmu + ".fmu");
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

  bad = ParseModelDescriptionText("<fmiModelDescription fmiVersion=\"0.9\"/>", "b.xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fmiVersion '0.9' is not supported"), std::string::npos);

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

// FMI 3 arrays (issue 29, 4; FMI 3.0.1 section 2.4.7.6): expanded into elements named
// "Y[i,j]", 1-based, row-major, each with its own start value and its array's value reference;
// a size from a <Dimension start> or from the structural parameter a <Dimension
// valueReference> names.
TEST(FmiModelDescriptionTest, Fmi3ArraysAreExpandedInRowMajorOrder) {
  const ModelDescription md = Read("fmi3_arrays");
  const int a = md.Find("A");
  ASSERT_GE(a, 0);
  const ScalarVariable& array = md.variables[static_cast<size_t>(a)];
  EXPECT_TRUE(array.is_array);
  EXPECT_EQ(array.dimensions, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(array.size, 6u);
  ASSERT_GE(array.first_element, 0);
  std::vector<std::string> names, starts;
  for (uint64_t e = 0; e < array.size; ++e) {
    const ScalarVariable& element = md.variables[static_cast<size_t>(array.first_element) + e];
    names.push_back(element.name);
    starts.push_back(element.start.value_or("?"));
    EXPECT_EQ(element.array_of, a);
    EXPECT_EQ(element.element, e);
    EXPECT_EQ(element.value_reference, 700u);
    EXPECT_EQ(element.causality, FmiCausality::kParameter);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"A[1,1]", "A[1,2]", "A[1,3]", "A[2,1]", "A[2,2]", "A[2,3]"}));
  EXPECT_EQ(starts, (std::vector<std::string>{"1", "2", "3", "4", "5", "6"}));
  // u's size is the start of the structural parameter n.
  const ScalarVariable& u = md.variables[static_cast<size_t>(md.Find("u"))];
  EXPECT_EQ(u.dimensions, (std::vector<uint64_t>{3}));
  EXPECT_TRUE(md.SizesAnArray(md.Find("n")));
  EXPECT_FALSE(md.SizesAnArray(md.Find("x")));
  EXPECT_EQ(md.ArrayOf("u[2]"), md.Find("u"));
  EXPECT_EQ(md.ArrayOf("x"), -1);
  // Scalars(): declared order, each array's elements in its place.
  std::vector<std::string> scalars;
  for (int i : md.Scalars()) scalars.push_back(md.variables[static_cast<size_t>(i)].name);
  EXPECT_EQ(scalars,
            (std::vector<std::string>{"time",   "n",      "A[1,1]", "A[1,2]", "A[1,3]", "A[2,1]",
                                      "A[2,2]", "A[2,3]", "u[1]",   "u[2]",   "u[3]",   "Y[1,1]",
                                      "Y[1,2]", "Y[1,3]", "Y[2,1]", "Y[2,2]", "Y[2,3]", "x",
                                      "der_x",  "s",      "v[1]",   "v[2]",   "v[3]"}));
}

TEST(FmiModelDescriptionTest, Fmi3ArraysThatCannotBeExpandedSayWhy) {
  const std::string xml = R"(<fmiModelDescription fmiVersion="3.0" modelName="m"
      instantiationToken="t"><CoSimulation modelIdentifier="m"/><ModelVariables>
    <String name="s" valueReference="1" causality="output"><Dimension start="2"/></String>
    <Float64 name="big" valueReference="2" causality="output">
      <Dimension start="1000"/><Dimension start="1000"/></Float64>
    <Float64 name="unsized" valueReference="3" causality="output">
      <Dimension valueReference="99"/></Float64>
    <Float64 name="y" valueReference="4" causality="output"><Dimension start="2"/></Float64>
  </ModelVariables></fmiModelDescription>)";
  auto md = ParseModelDescriptionText(xml, "a.xml");
  ASSERT_TRUE(md.ok()) << md.status();
  auto why = [&](const char* name) {
    return md->variables[static_cast<size_t>(md->Find(name))].not_expanded;
  };
  EXPECT_EQ(why("s"), "String arrays are not supported");
  EXPECT_NE(why("big").find("more than the 100000 elements"), std::string::npos) << why("big");
  EXPECT_NE(why("unsized").find("neither a start nor the valueReference"), std::string::npos);
  EXPECT_EQ(why("y"), "");
  EXPECT_GE(md->Find("y[2]"), 0);
  EXPECT_LT(md->Find("big[1,1]"), 0);
}

// FMI 3 <Alias> names (FMI 3.0.1 section 2.4.7): Find gives the aliased variable; an array's
// alias names its elements too; a name given twice (as a variable or an alias) is refused.
TEST(FmiModelDescriptionTest, Fmi3AliasesNameTheirVariable) {
  const std::string xml = R"(<fmiModelDescription fmiVersion="3.0" modelName="m"
      instantiationToken="t"><CoSimulation modelIdentifier="m"/><ModelVariables>
    <Float64 name="h" valueReference="1" causality="output" unit="m">
      <Alias name="h_ft" description="in feet" displayUnit="ft"/><Alias name="height"/></Float64>
    <Float64 name="y" valueReference="4" causality="output"><Dimension start="2"/>
      <Alias name="w"/></Float64>
  </ModelVariables></fmiModelDescription>)";
  auto md = ParseModelDescriptionText(xml, "a.xml");
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->Find("h_ft"), md->Find("h"));
  EXPECT_EQ(md->Find("height"), md->Find("h"));
  EXPECT_EQ(md->variables[static_cast<size_t>(md->Find("h"))].aliases,
            (std::vector<std::string>{"h_ft", "height"}));
  EXPECT_EQ(md->Find("w"), md->Find("y"));
  EXPECT_EQ(md->Find("w[2]"), md->Find("y[2]"));
  EXPECT_EQ(md->variables[static_cast<size_t>(md->Find("y[2]"))].aliases,
            (std::vector<std::string>{"w[2]"}));
  EXPECT_EQ(md->ArrayOf("w[1]"), md->Find("y"));

  std::string twice = xml;
  twice.replace(twice.find("\"height\""), 8, "\"y\"");
  auto refused = ParseModelDescriptionText(twice, "a.xml");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("'y' is declared twice"), std::string::npos)
      << refused.status();
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
}  // namespace cosimo::fmi
