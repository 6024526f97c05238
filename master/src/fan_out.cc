#include "master/src/fan_out.h"

namespace cosimo::master {

absl::Status CallUnit(UnitSlot& slot) {
  SendCommand(slot);
  return AwaitReply(slot);
}

}  // namespace cosimo::master
