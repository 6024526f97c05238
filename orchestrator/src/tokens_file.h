// The clients' tokens file (cosimo-orchestrator --tokens-file): one client a line,
//
//   # comments and blank lines are ignored
//   NAME TOKEN [admin]
//
// NAME is 1 to 64 of [A-Za-z0-9_.@-] and names the client in job listings (a job's owner);
// TOKEN is what that client's --token-file holds (no spaces, at least 16 characters); "admin"
// lets the client cancel and delete other clients' jobs. Names and tokens are unique.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo::orchestrator {

struct ClientToken {
  std::string name;
  std::string token;
  bool admin = false;
};

// The shortest token a tokens file may hold: a guessable token protects nothing.
inline constexpr size_t kMinTokenChars = 16;

// The clients of `text`, or an error naming `path`, the line and what is wrong with it (never
// quoting a token).
[[nodiscard]] absl::StatusOr<std::vector<ClientToken>> ParseTokens(const std::string& text,
                                                                   const std::string& path);
// Reads and parses the file; an error names --tokens-file.
[[nodiscard]] absl::StatusOr<std::vector<ClientToken>> ReadTokensFile(const std::string& path);

}  // namespace cosimo::orchestrator
