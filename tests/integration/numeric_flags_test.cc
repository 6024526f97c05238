// Every number option of the three programs is range-checked (issue 41 item 8: `cosimo sweep
// --max-sweep-variants -5` was taken as 2^64 - 5 and removed the cap). The test reads the --help
// of each program and of each `cosimo` verb, finds every option of a number type (INT, UINT,
// FLOAT), and gives it a negative number, NaN and an infinity: each must exit 2 (bad usage)
// naming the option. A new number option is walked without editing this test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;

std::string Help(const std::string& dir, std::vector<std::string> argv) {
  argv.push_back("--help");
  Process p(argv, dir + "/help.log");
  EXPECT_EQ(p.Wait(std::chrono::seconds(30)), 0) << p.log();
  return p.log();
}

// The long names of the options whose type is a number, from a --help text.
std::vector<std::string> NumberOptions(const std::string& help) {
  static const std::regex option(R"(^\s+(?:-\w,)?(--[\w-]+)(?:,--[\w-]+)? (INT|UINT|FLOAT)\b)");
  std::vector<std::string> out;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option)) out.push_back(m[1]);
  }
  return out;
}

// The verbs listed under "Subcommands:" in a --help text.
std::vector<std::string> Verbs(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream lines(help);
  bool in = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in = true;
    } else if (in && line.size() > 2 && line[2] != ' ') {
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return out;
}

TEST(NumericFlagsTest, EveryNumberOptionRefusesNegativeNanAndInfinityNamingItself) {
  const std::string dir = TempDir("cosimo-flags");
  // The command lines to walk: the programs (with what keeps them from serving if a value were
  // taken) and every verb of cosimo.
  const std::string bin = BinDir();
  std::vector<std::vector<std::string>> commands;
  commands.push_back({bin + "/cosimo-orchestrator", "--listen", "127.0.0.1:0"});
  commands.push_back({bin + "/cosimo-worker", "--orchestrator", "127.0.0.1:1", "--once"});
  const std::string cosimo = bin + "/cosimo";
  for (const std::string& verb : Verbs(Help(dir, {cosimo}))) commands.push_back({cosimo, verb});
  ASSERT_GE(commands.size(), 10u);
  int walked = 0;
  for (const std::vector<std::string>& command : commands) {
    const std::vector<std::string> options = NumberOptions(Help(dir, command));
    for (const std::string& option : options) {
      for (const char* value : {"-1", "nan", "inf"}) {
        std::vector<std::string> argv = command;
        std::string arg = option;
        arg += '=';
        arg += value;
        argv.push_back(arg);
        SCOPED_TRACE(arg);
        Process p(argv, dir + "/flag.log");
        EXPECT_EQ(p.Wait(std::chrono::seconds(30)), 2) << p.log();
        EXPECT_THAT(p.log(), HasSubstr(option));
        ++walked;
      }
    }
  }
  // The options known when this test was written, at least (the walk finds them all).
  EXPECT_GE(walked, 3 * 35);
}

}  // namespace
}  // namespace cosimo::testing
