// The Model Exchange unit's view of its FMU as a model of the worker's solvers
// (units/src/models/model.h), and the helpers of its event handling. Private to fmu_me_unit.cc.
// Not thread safe (one unit's thread).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/units/unit.h"
#include "units/src/fmi/fmu_instance.h"
#include "units/src/models/model.h"

namespace cosimo::units::fmu {

// The Model Exchange unit's snapshot (fmu_me_unit.cc).
struct MeSnapshot : public UnitSnapshot {
  ~MeSnapshot() override {
    if (instance != nullptr) instance->FreeState(&fmu_state);
  }
  std::shared_ptr<FmuInstance> instance;
  const void* owner = nullptr;
  void* fmu_state = nullptr;
  double time = 0.0;
  Eigen::VectorXd x;
  std::vector<double> z;
  std::optional<double> next_event;
  bool ended = false;
  std::vector<double> clocks;     // FmuClocks::Save
  Eigen::VectorXd held_discrete;  // not serialised: a deserialised snapshot sets them again
  std::shared_ptr<const void> history;
};

// u(s + d) as a polynomial in s, from u(s) (Taylor shift of the coefficients).
InputPolynomials Shift(const InputPolynomials& p, double d);

// The FMU seen as x' = F(x, u, t), y = G(x, u, t) by the solvers. FMI errors inside the
// const methods are kept (first one wins) and make the results NaN, so the solver stops; the
// unit reads them with TakeError().
class MeModel : public Model {
 public:
  MeModel(FmuInstance* instance, const VariableGroup* inputs, const VariableGroup* outputs,
          const UnitDescription& description, bool feedthrough)
      : instance_(instance),
        inputs_group_(inputs),
        outputs_group_(outputs),
        inputs_(description.inputs),
        outputs_(description.outputs),
        feedthrough_(feedthrough) {
    for (const VariableInfo& v : description.others) {
      if (v.causality == Causality::kState) states_.push_back(v);
    }
  }
  void set_states(std::vector<VariableInfo> states) { states_ = std::move(states); }

  const std::vector<VariableInfo>& inputs() const override { return inputs_; }
  const std::vector<VariableInfo>& outputs() const override { return outputs_; }
  const std::vector<VariableInfo>& states() const override { return states_; }
  Eigen::VectorXd InitialState() const override { return x0_; }
  void set_initial_state(const Eigen::VectorXd& x0) { x0_ = x0; }
  bool direct_feedthrough() const override { return feedthrough_; }

  void Derivatives(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                   Eigen::Ref<Eigen::VectorXd> dxdt) const override;
  void Outputs(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
               Eigen::Ref<Eigen::VectorXd> y) const override;

  // Sets time, continuous states and inputs of the FMU.
  absl::Status SetPoint(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u) const;

  absl::Status TakeError() {
    absl::Status s = error_;
    error_ = absl::OkStatus();
    return s;
  }

  // Non-finite derivatives (issue 46): Derivatives notes the first non-finite one it reads, which
  // TakeNonFinite returns (and forgets) as an error naming the unit, der(<state>) and the time.
  // A solver may try a point and recover (an adaptive one shrinks its step), so the unit asks
  // only when the integration failed or left a non-finite state. Off: nothing is noted.
  void set_check_finite(bool check) { check_finite_ = check; }
  void set_unit_name(std::string name) { unit_name_ = std::move(name); }
  absl::Status TakeNonFinite();

 private:
  bool Keep(const absl::Status& s) const {
    if (!s.ok() && error_.ok()) error_ = s;
    return s.ok();
  }

  FmuInstance* instance_;
  const VariableGroup* inputs_group_;
  const VariableGroup* outputs_group_;
  std::vector<VariableInfo> inputs_, outputs_, states_;
  Eigen::VectorXd x0_;
  bool feedthrough_;
  mutable absl::Status error_;
  bool check_finite_ = true;
  std::string unit_name_;
  mutable absl::Status non_finite_;  // the first non-finite derivative read
};

// A, B, C, D by central differences in every state and input of `f` (dx/dt and y, p outputs,
// at x and u) around (x_at, u_at).
using StateOutputFunction = std::function<absl::Status(
    const Eigen::VectorXd& x, const Eigen::VectorXd& u, Eigen::VectorXd* dx, Eigen::VectorXd* y)>;
absl::Status CentralDifferences(const StateOutputFunction& f, const Eigen::VectorXd& x_at,
                                const Eigen::VectorXd& u_at, Eigen::Index p, Linearization* lin);

}  // namespace cosimo::units::fmu
