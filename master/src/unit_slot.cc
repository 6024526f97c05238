#include "master/src/unit_slot.h"

namespace cosimo::master {

std::vector<UnitSlot> MakeSlots(const MasterConfig& config) {
  std::vector<UnitSlot> slots(config.units.size());
  for (size_t u = 0; u < slots.size(); ++u) {
    const UnitConfig& c = config.units[u];
    UnitSlot& s = slots[u];
    static_cast<UnitConfig&>(s) = c;
    s.history.Reset(s.num_outputs);
    s.outputs = Eigen::VectorXd::Zero(s.num_outputs);
    s.derivatives = Eigen::VectorXd::Zero(s.num_outputs);
    s.sources = config.coupling.inputs[u];
    s.value_unknown.assign(s.num_inputs, -1);
    s.derivative_unknown.assign(s.num_inputs, -1);
    s.command.step.inputs.coefficients =
        Eigen::MatrixXd::Zero(s.num_inputs, s.approx.num_coefficients());
    s.command.inputs = Eigen::VectorXd::Zero(s.num_inputs);
  }
  return slots;
}

}  // namespace cosimo::master
