// Who made a call to the orchestrator (TokenCheck names the holder of each token). Jobs record
// their submitter as their owner; only the owner or an admin may cancel or delete a job.
#pragma once

#include <string>

namespace cosimo::orchestrator {

// Without tokens nobody is named and everybody is an admin (a trusted network, the embedded
// `cosimo run`).
struct Caller {
  std::string name;  // empty: no tokens configured
  bool admin = true;
};

// The name the shared --token-file's holder goes by (an admin).
inline constexpr char kDefaultClient[] = "default";

}  // namespace cosimo::orchestrator
