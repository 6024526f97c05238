// The hybrid unit (NeuralFMU): the networks' derivatives and the chain-rule Jacobian against
// central finite differences, the untrained hybrid equal to the wrapped unit (built-in model and
// Model Exchange FMU), rollback by snapshots, weights files and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "cosimo/common/scenario.h"
#include "cosimo/units/unit_factory.h"
#include "units/src/hybrid/dense_net.h"
#include "units/src/hybrid/hybrid_unit.h"
#include "units/src/models/builtin_models.h"

namespace cosimo::units {
namespace {

using ::testing::HasSubstr;

v1::DenseNetwork Net(std::initializer_list<std::pair<int, v1::DenseLayer::Activation>> layers) {
  v1::DenseNetwork net;
  for (const auto& [size, activation] : layers) {
    v1::DenseLayer* layer = net.add_layers();
    layer->set_size(size);
    layer->set_activation(activation);
  }
  return net;
}

// Deterministic pseudo-random values in [-scale, scale].
Eigen::VectorXd Pseudo(Eigen::Index n, double scale, int salt) {
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = scale * std::sin(1.7 * static_cast<double>(i) + salt);
  return v;
}

v1::Unit ParseUnit(const std::string& json) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(
      R"({"stop_time": 1, "algorithm": {"step_size": 0.1}, "units": [)" + json + "]}");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  return scenario.ok() ? scenario->units(0) : v1::Unit();
}

// A mass-spring-damper with a force input wrapped between two small networks.
constexpr char kMsdHybrid[] = R"({"name": "h", "hybrid": {
    "builtin": {"model": "mass_spring_damper", "parameters": {"c": 4, "c_f": 0.3}},
    "top": {"layers": [{"size": 5, "activation": "TANH"}]},
    "bottom": {"layers": [{"size": 4, "activation": "TANH"}, {"size": 3, "activation": "RELU"}]},
    "seed": 7},
  "solver": {"method": "RK4", "step": 0.01}})";

TEST(DenseNetTest, UntrainedIsTheIdentityExactly) {
  for (auto activation : {v1::DenseLayer::TANH, v1::DenseLayer::RELU, v1::DenseLayer::IDENTITY}) {
    DenseNet net(3, Net({{6, activation}, {4, activation}}), 42);
    EXPECT_EQ(net.num_parameters(), 6 * 3 + 6 + 4 * 6 + 4 + 3 * 4 + 3);
    const Eigen::VectorXd z = Pseudo(3, 2.0, 1);
    Eigen::VectorXd y(3);
    net.Forward(z, y);
    EXPECT_EQ(y, z);
  }
}

TEST(DenseNetTest, JacobiansMatchFiniteDifferences) {
  for (auto activation : {v1::DenseLayer::TANH, v1::DenseLayer::RELU, v1::DenseLayer::IDENTITY}) {
    DenseNet net(3, Net({{6, activation}, {4, v1::DenseLayer::TANH}}), 3);
    net.SetParameters(Pseudo(net.num_parameters(), 0.8, 2));
    const Eigen::VectorXd z = Pseudo(3, 1.5, 5);
    Eigen::VectorXd y(3), yp(3), ym(3);
    net.Forward(z, y);
    Eigen::MatrixXd dz, dp;
    net.Jacobians(&dz, &dp);
    const double e = 1e-6;
    for (int j = 0; j < 3; ++j) {
      Eigen::VectorXd zp = z, zm = z;
      zp[j] += e;
      zm[j] -= e;
      net.Forward(zp, yp);
      net.Forward(zm, ym);
      EXPECT_LT(((yp - ym) / (2 * e) - dz.col(j)).norm(), 1e-8) << "input " << j;
    }
    const Eigen::VectorXd p = net.Parameters();
    for (int k = 0; k < net.num_parameters(); ++k) {
      Eigen::VectorXd pp = p, pm = p;
      pp[k] += e;
      pm[k] -= e;
      net.SetParameters(pp);
      net.Forward(z, yp);
      net.SetParameters(pm);
      net.Forward(z, ym);
      EXPECT_LT(((yp - ym) / (2 * e) - dp.col(k)).norm(), 1e-8) << "parameter " << k;
    }
    net.SetParameters(p);
  }
}

TEST(DenseNetTest, SameSeedSameWeightsOtherSeedOthers) {
  const v1::DenseNetwork spec = Net({{8, v1::DenseLayer::TANH}});
  EXPECT_EQ(DenseNet(2, spec, 1).Parameters(), DenseNet(2, spec, 1).Parameters());
  EXPECT_NE(DenseNet(2, spec, 1).Parameters(), DenseNet(2, spec, 2).Parameters());
}

TEST(HybridModelTest, ChainRuleJacobianMatchesFiniteDifferences) {
  absl::StatusOr<std::unique_ptr<HybridUnit>> unit = HybridUnit::Create(ParseUnit(kMsdHybrid));
  ASSERT_TRUE(unit.ok()) << unit.status();
  HybridModel& model = (*unit)->model();
  model.SetParameters(Pseudo(model.num_parameters(), 0.6, 3));
  const Eigen::VectorXd x = Pseudo(2, 1.0, 7), u = Pseudo(1, 2.0, 9);
  Eigen::MatrixXd A, B, C, D;
  ASSERT_TRUE(model.Jacobians(0.3, x, u, &A, &B, &C, &D));
  const double e = 1e-6;
  Eigen::VectorXd fp(2), fm(2), yp(2), ym(2);
  for (int j = 0; j < 3; ++j) {
    Eigen::VectorXd xp = x, xm = x, up = u, um = u;
    if (j < 2) {
      xp[j] += e;
      xm[j] -= e;
    } else {
      up[0] += e;
      um[0] -= e;
    }
    model.Derivatives(0.3, xp, up, fp);
    model.Derivatives(0.3, xm, um, fm);
    model.Outputs(0.3, xp, up, yp);
    model.Outputs(0.3, xm, um, ym);
    const Eigen::VectorXd df = (fp - fm) / (2 * e), dy = (yp - ym) / (2 * e);
    EXPECT_LT((df - (j < 2 ? Eigen::VectorXd(A.col(j)) : Eigen::VectorXd(B.col(0)))).norm(), 1e-7)
        << "column " << j;
    EXPECT_LT((dy - (j < 2 ? Eigen::VectorXd(C.col(j)) : Eigen::VectorXd(D.col(0)))).norm(), 1e-7)
        << "column " << j;
  }
  // And the nets are not the identity any more: the Jacobian is not the wrapped model's.
  EXPECT_GT(std::abs(A(1, 1) + 0.3), 1e-3);
}

TEST(HybridModelTest, SensitivitiesMatchFiniteDifferencesOfTheRightHandSide) {
  absl::StatusOr<std::unique_ptr<HybridUnit>> unit = HybridUnit::Create(ParseUnit(kMsdHybrid));
  ASSERT_TRUE(unit.ok()) << unit.status();
  HybridModel& model = (*unit)->model();
  const Eigen::VectorXd p = Pseudo(model.num_parameters(), 0.6, 4);
  model.SetParameters(p);
  const int np = model.num_parameters();
  const Eigen::VectorXd x = Pseudo(2, 1.0, 2), u = Pseudo(1, 2.0, 6);
  const Eigen::MatrixXd S = Eigen::MatrixXd::Zero(2, np);  // dS = dF/dp exactly
  Eigen::VectorXd xdot(2);
  Eigen::MatrixXd dS(2, np);
  ASSERT_TRUE(model.Sensitivities(0.0, x, u, S, xdot, dS));
  Eigen::VectorXd f(2), fp(2), fm(2);
  model.Derivatives(0.0, x, u, f);
  EXPECT_LT((f - xdot).norm(), 1e-15);
  const double e = 1e-6;
  for (int k = 0; k < np; ++k) {
    Eigen::VectorXd pp = p, pm = p;
    pp[k] += e;
    pm[k] -= e;
    model.SetParameters(pp);
    model.Derivatives(0.0, x, u, fp);
    model.SetParameters(pm);
    model.Derivatives(0.0, x, u, fm);
    EXPECT_LT(((fp - fm) / (2 * e) - dS.col(k)).norm(), 1e-7) << "parameter " << k;
  }
}

// Steps `a` and `b` side by side with the same input and returns the largest output difference.
double MaxDifference(Unit& a, Unit& b, int steps, double h) {
  double worst = 0.0;
  for (int i = 0; i < steps; ++i) {
    StepRequest request;
    request.time = a.time();
    request.step = h;
    const Eigen::Index m = static_cast<Eigen::Index>(a.description().inputs.size());
    request.inputs.coefficients = Eigen::MatrixXd::Constant(m, 2, 0.5);  // u = 0.5 + 0.5 s
    StepReply ra, rb;
    a.Step(request, &ra);
    b.Step(request, &rb);
    EXPECT_EQ(ra.status, StepStatus::kOk) << ra.message;
    EXPECT_EQ(rb.status, StepStatus::kOk) << rb.message;
    if (ra.outputs.size() != rb.outputs.size()) return INFINITY;
    for (Eigen::Index k = 0; k < ra.outputs.size(); ++k) {
      if (a.description().outputs[static_cast<size_t>(k)].type != ValueType::kReal) continue;
      worst = std::max(worst, std::abs(ra.outputs[k] - rb.outputs[k]));
    }
  }
  return worst;
}

TEST(HybridUnitTest, UntrainedHybridEqualsTheWrappedBuiltinModel) {
  const v1::Unit hybrid = ParseUnit(kMsdHybrid);
  v1::Unit plain = hybrid;
  *plain.mutable_builtin() = hybrid.hybrid().builtin();
  absl::StatusOr<std::unique_ptr<Unit>> a = CreateUnit(hybrid, "");
  absl::StatusOr<std::unique_ptr<Unit>> b = CreateUnit(plain, "");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE((*a)->Initialize(0.0, 2.0).ok());
  ASSERT_TRUE((*b)->Initialize(0.0, 2.0).ok());
  EXPECT_LE(MaxDifference(**a, **b, 100, 0.02), 1e-12);
  // The Jacobians agree too.
  absl::StatusOr<Linearization> la = (*a)->Linearize(Eigen::VectorXd::Constant(1, 0.3));
  absl::StatusOr<Linearization> lb = (*b)->Linearize(Eigen::VectorXd::Constant(1, 0.3));
  ASSERT_TRUE(la.ok() && lb.ok());
  EXPECT_LE((la->A - lb->A).norm(), 1e-12);
  EXPECT_LE((la->B - lb->B).norm(), 1e-12);
}

TEST(HybridUnitTest, UntrainedHybridEqualsTheWrappedModelExchangeFmu) {
  const std::string fmu = std::string(COSIMO_BINARY_DIR) + "/fmus/fmi2_msd_me.fmu";
  v1::Unit hybrid = ParseUnit(R"({"name": "h", "hybrid": {"fmu": {"path": ")" + fmu + R"("},
      "top": {"layers": [{"size": 4}]}, "bottom": {"layers": [{"size": 4}]}},
      "parameters": {"c": 3.0}, "solver": {"method": "RK4", "step": 0.01}})");
  v1::Unit plain = hybrid;
  *plain.mutable_fmu() = hybrid.hybrid().fmu();
  absl::StatusOr<std::unique_ptr<Unit>> a = CreateUnit(hybrid, "");
  absl::StatusOr<std::unique_ptr<Unit>> b = CreateUnit(plain, fmu);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE((*a)->Initialize(0.0, 2.0).ok());
  ASSERT_TRUE((*b)->Initialize(0.0, 2.0).ok());
  EXPECT_LE(MaxDifference(**a, **b, 50, 0.02), 1e-12);
  EXPECT_TRUE((*a)->Terminate().ok());
  EXPECT_TRUE((*b)->Terminate().ok());
}

TEST(HybridUnitTest, FmuJacobianByDirectionalDerivativesMatchesFiniteDifferences) {
  const std::string fmu = std::string(COSIMO_BINARY_DIR) + "/fmus/fmi2_msd_me.fmu";
  v1::Unit spec = ParseUnit(R"({"name": "h", "hybrid": {"fmu": {"path": ")" + fmu + R"("},
      "top": {"layers": [{"size": 4}]}, "bottom": {"layers": [{"size": 3}]}},
      "solver": {"method": "RK4", "step": 0.01}})");
  absl::StatusOr<std::unique_ptr<HybridUnit>> unit = HybridUnit::Create(spec);
  ASSERT_TRUE(unit.ok()) << unit.status();
  ASSERT_TRUE((*unit)->Initialize(0.0, 1.0).ok());
  HybridModel& model = (*unit)->model();
  model.SetParameters(Pseudo(model.num_parameters(), 0.5, 8));
  const Eigen::VectorXd x = Pseudo(2, 1.0, 3), u = Pseudo(1, 1.0, 4);
  Eigen::MatrixXd A, B, C, D;
  ASSERT_TRUE(model.Jacobians(0.0, x, u, &A, &B, &C, &D));
  ASSERT_TRUE((*unit)->TakeError().ok());
  const double e = 1e-6;
  Eigen::VectorXd fp(2), fm(2);
  for (int j = 0; j < 2; ++j) {
    Eigen::VectorXd xp = x, xm = x;
    xp[j] += e;
    xm[j] -= e;
    model.Derivatives(0.0, xp, u, fp);
    model.Derivatives(0.0, xm, u, fm);
    EXPECT_LT(((fp - fm) / (2 * e) - A.col(j)).norm(), 1e-7) << "column " << j;
  }
  EXPECT_TRUE((*unit)->Terminate().ok());
}

TEST(HybridUnitTest, RollbackRepeatsAStepBitForBit) {
  absl::StatusOr<std::unique_ptr<HybridUnit>> unit = HybridUnit::Create(ParseUnit(kMsdHybrid));
  ASSERT_TRUE(unit.ok()) << unit.status();
  HybridModel& model = (*unit)->model();
  model.SetParameters(Pseudo(model.num_parameters(), 0.3, 1));
  ASSERT_TRUE((*unit)->Initialize(0.0, 1.0).ok());
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> snapshot = (*unit)->Save();
  ASSERT_TRUE(snapshot.ok());
  StepRequest request;
  request.step = 0.1;
  request.inputs.coefficients = Eigen::MatrixXd::Constant(1, 1, 1.0);
  StepReply first, second;
  (*unit)->Step(request, &first);
  ASSERT_TRUE((*unit)->Restore(**snapshot).ok());
  (*unit)->Step(request, &second);
  EXPECT_EQ(first.outputs, second.outputs);
  EXPECT_TRUE((*unit)->description().capabilities.can_rollback);
  EXPECT_TRUE((*unit)->description().capabilities.provides_jacobians);
}

class WeightsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cosimo_hybrid_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(WeightsFileTest, TrainedWeightsRoundTripThroughTheFile) {
  v1::Unit spec = ParseUnit(kMsdHybrid);
  absl::StatusOr<std::unique_ptr<HybridUnit>> unit = HybridUnit::Create(spec);
  ASSERT_TRUE(unit.ok()) << unit.status();
  const Eigen::VectorXd p = Pseudo((*unit)->model().num_parameters(), 0.7, 5);
  (*unit)->model().SetParameters(p);
  const std::string path = (dir_ / "w.json").string();
  ASSERT_TRUE(WriteWeightsFile(path, WeightsOf((*unit)->model())).ok());
  spec.mutable_hybrid()->mutable_weights()->set_path(path);
  absl::StatusOr<std::unique_ptr<HybridUnit>> loaded = HybridUnit::Create(spec);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->model().Parameters(), p);
}

TEST_F(WeightsFileTest, WrongShapesAreErrorsNamingTheLayer) {
  v1::Unit spec = ParseUnit(kMsdHybrid);
  spec.mutable_hybrid()->mutable_weights()->set_path(
      Write("bad.json", R"({"top": [{"rows": 5, "cols": 3, "weight": [], "bias": []},
                                    {"rows": 2, "cols": 5}], "bottom": []})"));
  absl::StatusOr<std::unique_ptr<HybridUnit>> unit = HybridUnit::Create(spec);
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("hybrid.weights"));
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("top[0] is 5 x 3"));
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("needs 5 x 2"));

  spec.mutable_hybrid()->mutable_weights()->set_path(Write("short.json", R"({"top": []})"));
  unit = HybridUnit::Create(spec);
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("top has 0 layers"));

  spec.mutable_hybrid()->mutable_weights()->set_path(Write("junk.json", "not json"));
  unit = HybridUnit::Create(spec);
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("is not a HybridWeights JSON"));
}

TEST(HybridScenarioTest, ValidationNamesTheField) {
  auto validate = [](const std::string& unit) {
    absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(
        R"({"stop_time": 1, "algorithm": {"step_size": 0.1}, "units": [)" + unit + "]}");
    EXPECT_TRUE(scenario.ok()) << scenario.status();
    return ValidateScenario(*scenario);
  };
  EXPECT_THAT(std::string(validate(R"({"name": "h", "hybrid": {}})").message()),
              HasSubstr("units[0].hybrid: unit 'h' needs the model it wraps"));
  EXPECT_THAT(std::string(validate(R"({"name": "h", "hybrid": {"builtin": {"model": "car"},
                               "bottom": {"layers": [{"size": 0}]}}})")
                              .message()),
              HasSubstr("units[0].hybrid.bottom.layers[0].size must be in 1.."));
  EXPECT_TRUE(validate(kMsdHybrid).ok());
}

}  // namespace
}  // namespace cosimo::units
