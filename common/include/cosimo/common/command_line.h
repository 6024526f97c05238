// Command-line parsing shared by Cosimo's binaries (cosimo, cosimo-orchestrator, cosimo-worker):
// a usage error prints CLI11's message and exits with code 2, the code the README gives for bad
// usage; --help prints the help and --version the version (cosimo/common/version.h), and both
// exit with 0; --log-level and --log-format are the same on all three (cosimo/common/logging.h);
// every number option is range-checked with Within.
// Header-only: include it where CLI11 is linked.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <exception>
#include <filesystem>
#include <sstream>
#include <string>

#include "cosimo/common/logging.h"
#include "cosimo/common/version.h"

namespace cosimo {

// Parses `argv` into `app`. Returns -1 when the program goes on, else the code it exits with.
inline int ParseCommandLine(CLI::App& app, int argc, char** argv) {
  const std::string program = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "";
  app.set_version_flag("--version", program + " " + std::string(kVersion));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

// A number option's range check: the text must be a finite number in [lo, hi]. CLI11's Range and
// NonNegativeNumber let NaN through, and an unsigned option takes "-5" as 2^64 - 5 (issue 41:
// `--max-sweep-variants -5` removed the cap), so the text itself is read as a double here.
inline CLI::Validator Within(double lo, double hi) {
  std::ostringstream range;
  range << "[" << lo << " - " << hi << "]";
  return CLI::Validator(
      [lo, hi, range = range.str()](std::string& text) -> std::string {
        size_t used = 0;
        double value = 0.0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        if (used != text.size() || !std::isfinite(value) || value < lo || value > hi) {
          return "Value " + text + " not in range " + range;
        }
        return std::string();
      },
      "NUMBER in " + range.str());
}

// Adds --log-level and --log-format to `app`, checked against the values logging accepts.
inline void AddLogOptions(CLI::App& app, LogOptions& options) {
  app.add_option("--log-level", options.level, "trace, debug, info, warn, error, critical, off")
      ->capture_default_str()
      ->check(CLI::IsMember(LogLevels()));
  app.add_option("--log-format", options.format,
                 "text, or json: one JSON object per line (time, level, logger, message)")
      ->capture_default_str()
      ->check(CLI::IsMember(LogFormats()));
}

}  // namespace cosimo
