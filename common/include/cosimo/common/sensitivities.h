// Forward sensitivities across a coupled scenario (docs/calibration.md#the-jacobian): the
// scenario whose run gives, beside the variables of `base`, their derivatives with respect to
// parameters of its built-in units and Model Exchange FMU units, for a calibration's Jacobian.
//
// Each built-in or Model Exchange FMU unit integrates its state sensitivities S = dx/dP with its
// states (Unit.sensitivities, proto/cosimo/v1/scenario.proto), and its output sensitivities dy/dP =
// dG/dx S + dG/du du/dP + dG/dP become signals of their own, "d(<output>)/d(P)", connected as their
// outputs are (with the connection's factor; an offset does not depend on P) to the inputs
// "d(<input>)/d(P)". So every master algorithm carries them across the coupling as it carries the
// values: extrapolated over a macro step under Jacobi and Gauss-Seidel, iterated to convergence
// with them under fixed point and Newton, rolled back with them. The result is the derivative of
// the co-simulation as it runs, not of the continuous coupled system. Stateless and thread safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo {

// "d(<variable>)/d(<parameter>)".
std::string SensitivityName(std::string_view variable, std::string_view parameter);

// `base` with the sensitivities of every built-in and FMU unit with respect to `parameters` (each
// "<unit>.<parameter>" of a built-in or FMU unit), the connections of their sensitivities, and the
// sensitivities of `recorded` (variables "<unit>.<variable>" the base records) recorded too, when
// the base records a list. Table units are sources that no parameter moves: their outputs'
// sensitivities are zero, left unconnected. FailedPrecondition, naming the unit, the parameter or
// the connection, when the scenario cannot give them: an FMU run as Co-Simulation (no solver), a
// hybrid unit, a parameter that is not a unit's (a field of the scenario), a mapped connection.
// What only an FMU's model description tells (an FMU with events, a parameter that is not its
// Real parameter) the scenario check and the unit refuse (units/src/fmi/fmu_sensitivity_unit.h).
[[nodiscard]] absl::StatusOr<v1::Scenario> SensitivityScenario(
    const v1::Scenario& base, const std::vector<std::string>& parameters,
    const std::vector<std::string>& recorded);

}  // namespace cosimo
