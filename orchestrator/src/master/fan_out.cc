#include "orchestrator/src/master/fan_out.h"

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

}  // namespace cosimo::orchestrator::master
