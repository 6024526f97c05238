#include "orchestrator/src/master/fan_out.h"

namespace cosimo::orchestrator::master {

absl::Status CallUnit(UnitSlot& slot) {
  SendCommand(slot);
  return AwaitReply(slot);
}

}  // namespace cosimo::orchestrator::master
