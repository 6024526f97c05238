#include "cosimo/fmi/archive_names.h"

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace cosimo {

bool IsSafeEntryName(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find('\\') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return false;
  }
  if (name.size() >= 2 && name[1] == ':') return false;  // "C:..."
  for (absl::string_view part : absl::StrSplit(name, '/')) {
    if (part == "..") return false;
  }
  return true;
}

}  // namespace cosimo
