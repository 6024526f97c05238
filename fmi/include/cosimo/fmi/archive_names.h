// Names of entries in zip archives (FMUs, SSPs) that are safe to extract.
#pragma once

#include <string>

namespace cosimo {

// True when `name` (a zip entry name, '/'-separated) stays inside the extraction folder: not
// empty, not absolute, no drive letter, no backslash or NUL, no ".." component.
bool IsSafeEntryName(const std::string& name);

}  // namespace cosimo
