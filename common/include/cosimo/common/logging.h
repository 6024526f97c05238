// Logging set-up shared by Cosimo's three programs (cosimo, cosimo-orchestrator, cosimo-worker):
// one spdlog logger writing to standard error (standard output carries results and job ids), at
// the level --log-level names, as text lines or, with --log-format json, one JSON object per
// line: {"time":"2026-12-03T09:57:00.123Z","level":"info","logger":"cosimo-worker","pid":42,
// "thread":43,"message":"..."} (time in UTC; the message escaped, bytes that are not UTF-8
// replaced by U+FFFD). Call SetUpLogging once, from main, before other threads log.
#pragma once

#include <spdlog/formatter.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace cosimo {

struct LogOptions {
  std::string level = "info";   // trace, debug, info, warn, error, critical, off
  std::string format = "text";  // text or json
  int fd = -1;                  // where standard error is, when not descriptor 2 (-1: there)
};

// The values the options accept, for the command lines' checks and help.
std::vector<std::string> LogLevels();
std::vector<std::string> LogFormats();

// Replaces the default logger with one named `program` on standard error, formatted and filtered
// as `options` say. An unknown level or format is an InvalidArgument error naming the option.
[[nodiscard]] absl::Status SetUpLogging(std::string_view program, const LogOptions& options);

// The JSON line formatter on its own (tests, and loggers made elsewhere).
std::unique_ptr<spdlog::formatter> MakeJsonLogFormatter();

}  // namespace cosimo
