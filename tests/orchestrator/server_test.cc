// OrchestratorServer::Start that fails after it made its temporary folder (no --data-dir) leaves
// no folder behind (a failed TLS start left an empty one in TMPDIR).
#include "cosimo/orchestrator/server.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace cosimo::orchestrator {
namespace {

TEST(OrchestratorServerTest, AFailedStartLeavesNoTemporaryFolder) {
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() / ("cosimo_server_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  ServerOptions options;
  options.listen = "999.0.0.1:0";  // no such address: the port cannot be opened
  absl::StatusOr<std::unique_ptr<OrchestratorServer>> server = OrchestratorServer::Start(options);
  if (old != nullptr) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  EXPECT_FALSE(server.ok());
  for (const auto& entry : std::filesystem::directory_iterator(tmp)) {
    ADD_FAILURE() << "left behind: " << entry.path();
  }
  std::filesystem::remove_all(tmp);
}

}  // namespace
}  // namespace cosimo::orchestrator
