// The FMI 1.0 model description (cosimo/fmi/model_description.h, model_description_fmi1.cc):
// the test FMUs fmi1_msd_cs and fmi1_msd_me as written by tests/fmus/fmi1_msd.xml.in, and what
// is refused, each error naming the file and what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cosimo/fmi/fmu_archive.h"
#include "cosimo/fmi/model_description.h"

namespace cosimo::fmi {
namespace {

using ::testing::HasSubstr;

ModelDescription Read(const std::string& fmu) {
  auto unpacked = UnpackFmu(std::string(COSIMO_BINARY_DIR) + "/fmus/" + fmu + ".fmu");
  EXPECT_TRUE(unpacked.ok()) << unpacked.status();
  auto md = ParseModelDescriptionFile((*unpacked)->dir() + "/modelDescription.xml");
  EXPECT_TRUE(md.ok()) << md.status();
  return md.ok() ? *md : ModelDescription{};
}

const ScalarVariable& Var(const ModelDescription& md, const std::string& name) {
  const int index = md.Find(name);
  EXPECT_GE(index, 0) << name;
  return md.variables.at(static_cast<size_t>(index < 0 ? 0 : index));
}

TEST(Fmi1ModelDescriptionTest, ImplementationMakesCoSimulation) {
  const ModelDescription md = Read("fmi1_msd_cs");
  EXPECT_EQ(md.version, FmiVersion::kFmi1);
  EXPECT_EQ(md.fmi_version, "1.0");
  EXPECT_EQ(md.guid, "{cosimo-test-msd-fmi1}");
  ASSERT_TRUE(md.co_simulation.offered);
  EXPECT_FALSE(md.model_exchange.offered);
  EXPECT_EQ(md.co_simulation.model_identifier, "fmi1_msd_cs");
  EXPECT_TRUE(md.co_simulation.can_handle_variable_communication_step_size);
  EXPECT_FALSE(md.co_simulation.can_get_and_set_fmu_state);  // FMI 1.0 has no FMU state
  EXPECT_EQ(md.default_tolerance, 1e-6);
  EXPECT_EQ(md.number_of_continuous_states, 2);
}

TEST(Fmi1ModelDescriptionTest, NoImplementationMakesModelExchangeWithStatesFromDerNames) {
  const ModelDescription md = Read("fmi1_msd_me");
  ASSERT_TRUE(md.model_exchange.offered);
  EXPECT_FALSE(md.co_simulation.offered);
  EXPECT_EQ(md.model_exchange.model_identifier, "fmi1_msd_me");
  ASSERT_EQ(md.derivatives.size(), 2u);
  EXPECT_EQ(md.variables[md.derivatives[0].index].name, "der(x)");
  EXPECT_EQ(md.variables[md.derivatives[0].index].derivative_of, md.Find("x"));
  EXPECT_EQ(md.variables[md.derivatives[1].index].derivative_of, md.Find("v"));
}

TEST(Fmi1ModelDescriptionTest, CausalityVariabilityAliasesTypesAndDependencies) {
  const ModelDescription md = Read("fmi1_msd_me");
  EXPECT_EQ(Var(md, "x").causality, FmiCausality::kOutput);
  EXPECT_EQ(Var(md, "x").unit, "m");  // from <Type name="Length"><RealType unit="m"/>
  EXPECT_EQ(Var(md, "x").start, "1");
  EXPECT_EQ(Var(md, "F").causality, FmiCausality::kInput);
  EXPECT_EQ(Var(md, "m").causality, FmiCausality::kParameter);  // variability="parameter"
  EXPECT_EQ(Var(md, "m").variability, Variability::kFixed);
  EXPECT_EQ(Var(md, "m").initial, Initial::kExact);
  EXPECT_EQ(Var(md, "energy").causality, FmiCausality::kLocal);  // internal by default
  EXPECT_EQ(Var(md, "steps").type, VarType::kInt32);
  EXPECT_EQ(Var(md, "steps").variability, Variability::kDiscrete);
  EXPECT_EQ(Var(md, "damping").type, VarType::kBoolean);
  EXPECT_EQ(Var(md, "position").value_reference, Var(md, "x").value_reference);
  EXPECT_FALSE(Var(md, "position").negated);
  EXPECT_TRUE(Var(md, "neg_x").negated);
  EXPECT_TRUE(Var(md, "undamped").negated);
  EXPECT_EQ(Var(md, "neg_x").unit, "m");
  // <DirectDependency/> on every output: none depends on the input F.
  ASSERT_EQ(md.outputs.size(), 4u);  // x, v, steps, position
  for (const Unknown& output : md.outputs) {
    EXPECT_TRUE(output.dependencies_given);
    EXPECT_TRUE(output.dependencies.empty());
  }
}

std::string Fmi1(const std::string& root_attributes, const std::string& body) {
  return "<fmiModelDescription fmiVersion=\"1.0\" modelName=\"m\" guid=\"g\" " + root_attributes +
         ">" + body + "</fmiModelDescription>";
}

TEST(Fmi1ModelDescriptionTest, EnumerationsAndDirectDependenciesByName) {
  auto md = ParseModelDescriptionText(
      Fmi1("modelIdentifier=\"m\"",
           "<TypeDefinitions><Type name=\"Mode\"><EnumerationType><Item name=\"off\"/>"
           "<Item name=\"on\"/></EnumerationType></Type></TypeDefinitions><ModelVariables>"
           "<ScalarVariable name=\"u\" valueReference=\"0\" causality=\"input\"><Real/>"
           "</ScalarVariable><ScalarVariable name=\"w\" valueReference=\"1\" "
           "causality=\"input\"><Real/></ScalarVariable>"
           "<ScalarVariable name=\"y\" valueReference=\"2\" causality=\"output\"><Real/>"
           "<DirectDependency><Name>w</Name></DirectDependency></ScalarVariable>"
           "<ScalarVariable name=\"z\" valueReference=\"3\" causality=\"output\"><Real/>"
           "</ScalarVariable><ScalarVariable name=\"mode\" valueReference=\"0\" "
           "variability=\"discrete\"><Enumeration declaredType=\"Mode\" start=\"2\"/>"
           "</ScalarVariable></ModelVariables>"),
      "e.xml");
  ASSERT_TRUE(md.ok()) << md.status();
  ASSERT_EQ(md->outputs.size(), 2u);
  EXPECT_TRUE(md->outputs[0].dependencies_given);
  EXPECT_THAT(md->outputs[0].dependencies, ::testing::ElementsAre(md->Find("w")));
  EXPECT_FALSE(md->outputs[1].dependencies_given);  // absent: every input
  EXPECT_EQ(md->variables[md->Find("mode")].enumeration, "Mode");
  EXPECT_EQ(md->variables[md->Find("mode")].type, VarType::kInt32);
  const std::vector<std::pair<std::string, int64_t>> items = {{"off", 1}, {"on", 2}};
  EXPECT_EQ(md->enumerations.at("Mode"), items);
}

TEST(Fmi1ModelDescriptionTest, Errors) {
  const std::string real_x =
      "<ModelVariables><ScalarVariable name=\"x\" valueReference=\"0\"><Real/></ScalarVariable>"
      "<ScalarVariable name=\"der(x)\" valueReference=\"1\"><Real/></ScalarVariable>"
      "</ModelVariables>";
  struct Case {
    std::string xml;
    std::string expected;
  };
  const Case cases[] = {
      {Fmi1("", real_x), "f.xml: the modelIdentifier attribute is missing"},
      {Fmi1("modelIdentifier=\"../m\"", real_x), "modelIdentifier '../m' is not a plain file"},
      {Fmi1("modelIdentifier=\"m\" numberOfContinuousStates=\"3\"", real_x),
       "numberOfContinuousStates is 3 but 1 Real variables are named der(<state>)"},
      {Fmi1("modelIdentifier=\"m\"", "<Implementation><CoSimulation_Other/></Implementation>"),
       "<Implementation> has neither <CoSimulation_StandAlone> nor <CoSimulation_Tool>"},
      {Fmi1("modelIdentifier=\"m\"",
            "<ModelVariables><ScalarVariable name=\"a\" valueReference=\"0\" alias=\"maybe\">"
            "<Real/></ScalarVariable></ModelVariables>"),
       "variable 'a': unknown alias 'maybe'"},
      {Fmi1("modelIdentifier=\"m\"",
            "<ModelVariables><ScalarVariable name=\"a\" valueReference=\"0\" "
            "causality=\"local\"><Real/></ScalarVariable></ModelVariables>"),
       "variable 'a': unknown causality 'local'"},
      {Fmi1("modelIdentifier=\"m\"",
            "<ModelVariables><ScalarVariable name=\"y\" valueReference=\"0\" causality=\"output\">"
            "<Real/><DirectDependency><Name>q</Name></DirectDependency></ScalarVariable>"
            "</ModelVariables>"),
       "the <DirectDependency> of output 'y' names 'q', which is no input"},
  };
  for (const Case& c : cases) {
    auto md = ParseModelDescriptionText(c.xml, "f.xml");
    ASSERT_FALSE(md.ok()) << c.xml;
    EXPECT_THAT(md.status().message(), HasSubstr(c.expected));
  }
  // Co-Simulation steps its states itself: der() names that do not add up are no error there.
  auto cs = ParseModelDescriptionText(
      Fmi1("modelIdentifier=\"m\" numberOfContinuousStates=\"3\"",
           real_x + "<Implementation><CoSimulation_Tool><Capabilities/></CoSimulation_Tool>"
                    "</Implementation>"),
      "f.xml");
  ASSERT_TRUE(cs.ok()) << cs.status();
  EXPECT_TRUE(cs->derivatives.empty());
  EXPECT_TRUE(cs->co_simulation.offered);
}

}  // namespace
}  // namespace cosimo::fmi
