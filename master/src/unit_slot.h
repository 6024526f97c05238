// One unit as a master run drives it: its resolved configuration, its preallocated command and
// reply, and its accepted outputs (the sample history the input approximations read). Private
// to the master; used by the job's thread only.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "cosimo/master/unit_proxy.h"
#include "master/src/master_config.h"

namespace cosimo::master {

// The UnitConfig part is fixed for the run. A unit that rolls back gets its commit on its next
// Step (commit_previous): its state is that of its last tentative step, whose reply the master
// already has, so the commit needs no round trip of its own.
struct UnitSlot : UnitConfig {
  UnitCommand command;
  UnitResponse response;
  bool in_flight = false;  // a command was sent and its reply not yet awaited
  bool prepared = false;   // FanOut: takes part in the round (its prepare() said so)

  SampleHistory history;                      // accepted outputs of this unit
  Eigen::VectorXd outputs;                    // accepted outputs at the newest communication point
  Eigen::VectorXd derivatives;                // their time derivatives (zeros when not offered)
  std::vector<double> recorded;               // accepted extra recorded values
  std::vector<std::string> recorded_strings;  // and the kString ones
  std::vector<uint64_t> integers;             // exact kInteger values (StepReply::integers)
  std::vector<Coupling::Source> sources;      // per input
  std::vector<int> value_unknown;             // per input: index in z, -1 when unconnected
  std::vector<int> derivative_unknown;        // per input: HERMITE derivative unknown, else -1
  int first_unknown = 0;
  int num_unknowns = 0;
  bool stepped = false;         // Gauss-Seidel: already stepped in this macro step
  bool commit_pending = false;  // accepted, not yet told: the next Step carries the commit
};

// The slots of `config`'s units, sized (no unknowns yet).
std::vector<UnitSlot> MakeSlots(const MasterConfig& config);

}  // namespace cosimo::master
