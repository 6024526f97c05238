// Command-line parsing shared by Cosimo's binaries (cosimo, cosimo-orchestrator, cosimo-worker):
// a usage error prints CLI11's message and exits with code 2, the code the README gives for bad
// usage; --help prints the help and exits with 0. Header-only: include it where CLI11 is linked.
#pragma once

#include <CLI/CLI.hpp>

namespace cosimo {

// Parses `argv` into `app`. Returns -1 when the program goes on, else the code it exits with.
inline int ParseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace cosimo
