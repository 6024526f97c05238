// Scenario JSON: parsing and validation never crash, and a scenario that parses prints as JSON
// that parses back to the same scenario.
#include <google/protobuf/util/message_differencer.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cosimo/common/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<cosimo::v1::Scenario> scenario = cosimo::ParseScenarioJson(text);
  if (!scenario.ok()) return 0;
  (void)cosimo::ValidateScenario(*scenario);
  absl::StatusOr<cosimo::v1::Scenario> again =
      cosimo::ParseScenarioJson(cosimo::ScenarioToJson(*scenario));
  if (!again.ok() || !google::protobuf::util::MessageDifferencer::Equals(*scenario, *again)) {
    std::abort();  // the printed scenario must read back as the same scenario
  }
  return 0;
}
