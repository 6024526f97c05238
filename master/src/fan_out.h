// The one place where the master waits on its units: every command a master run sends goes
// through SendCommand and every reply through AwaitReply, whether to one unit (Gauss-Seidel,
// initial outputs) or fanned out to many (FanOut: send to every unit, then await all, so a
// round costs one round trip, not one per unit). A deadline per command or a count of round
// trips belongs here. Job thread only.
#pragma once

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "master/src/unit_slot.h"

namespace cosimo::master {

// Sends slot.command to the unit. At most one command per unit is in flight.
inline void SendCommand(UnitSlot& slot) {
  slot.in_flight = true;
  slot.proxy->Send(slot.command);
}
// Waits for the reply to the slot's command into slot.response.
[[nodiscard]] inline absl::Status AwaitReply(UnitSlot& slot) {
  slot.in_flight = false;
  return slot.proxy->Await(&slot.response);
}
// SendCommand, then AwaitReply.
[[nodiscard]] absl::Status CallUnit(UnitSlot& slot);

// One round over `slots`: `prepare(slot)` fills the command of every slot, in order, and says
// whether it takes part; every taking part gets its command, then every proxy is flushed (the units
// of one worker get one message for the round), before any reply is awaited. Then each reply is
// awaited, in the same order, and `check(slot, awaited)` (awaited: the Await's status) gives that
// unit's outcome. Every command sent is awaited, also after a failure, so no reply is left in
// flight; the first failed outcome is returned. A template, so that the callers' lambdas inline
// into the round (this runs once per step and iteration; through absl::FunctionRef it cost about 50
// instructions per unit and round more, fig4 in docs/benchmarks.md).
// The proxies decide when and in which order their messages go out (RemoteUnit's SendOrder
// writes to the workers on the job thread's CPU first); the master knows nothing of CPUs.
template <typename Prepare, typename Check>
[[nodiscard]] absl::Status FanOut(std::vector<UnitSlot>& slots, Prepare&& prepare, Check&& check) {
  // prepare() runs in scenario order (callers may count on it, e.g. RestoreUnits).
  for (UnitSlot& s : slots) s.prepared = prepare(s);
  for (UnitSlot& s : slots) {
    if (s.prepared) SendCommand(s);
  }
  // Units that share a worker had their commands held: one message per worker for the round.
  for (UnitSlot& s : slots) {
    if (s.in_flight) s.proxy->Flush();
  }
  absl::Status first;
  for (UnitSlot& s : slots) {
    if (!s.in_flight) continue;
    absl::Status awaited = AwaitReply(s);
    absl::Status outcome = check(s, std::move(awaited));
    if (first.ok()) first = std::move(outcome);
  }
  return first;
}

}  // namespace cosimo::master
