#include "cosimo/common/status.h"

#include <string>

namespace cosimo {
absl::Status Annotate(const absl::Status& status, std::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(), std::string(context) + ": " + std::string(status.message()));
}

}  // namespace cosimo
