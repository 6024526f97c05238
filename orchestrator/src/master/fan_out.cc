#include "orchestrator/src/master/fan_out.h"

#include <utility>

namespace cosimo::orchestrator::master {

void SendCommand(UnitSlot& slot) {
  slot.in_flight = true;
  slot.proxy->Send(slot.command);
}

absl::Status AwaitReply(UnitSlot& slot) {
  slot.in_flight = false;
  return slot.proxy->Await(&slot.response);
}

absl::Status CallUnit(UnitSlot& slot) {
  SendCommand(slot);
  return AwaitReply(slot);
}

absl::Status FanOut(std::vector<UnitSlot>& slots, absl::FunctionRef<bool(UnitSlot&)> prepare,
                    absl::FunctionRef<absl::Status(UnitSlot&, absl::Status)> check) {
  for (UnitSlot& s : slots) {
    if (prepare(s)) SendCommand(s);
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

}  // namespace cosimo::orchestrator::master
