// The worker protocol's command semantics for one unit: each OrchestratorMessage the orchestrator
// sends (LoadUnit, Initialize, Evaluate, Step, Commit, Save, Restore, Reject, Terminate) is run on
// a UnitHost and answered with one WorkerMessage. Free of gRPC: the stream, the heartbeat and the
// fetching of artifacts are the caller's (worker_client.cc), so tests and the fuzzer drive the
// handler directly.
//
// Call order: Handle for every command of the stream, in order; DropUnit when the stream ends.
// Thread safety: none; one handler per stream.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo::worker {

// Fetches every file `load`'s unit names by digest (unless load->artifact_path() is set): its
// path in the unit becomes the local copy's, and artifact_path too for the one file of an FMU or
// table unit. Errors name the unit.
[[nodiscard]] absl::Status FetchUnitArtifacts(
    v1::LoadUnit* load,
    const std::function<absl::StatusOr<std::string>(const std::string& digest)>& fetch);

class CommandHandler {
 public:
  // Returns a local path holding the artifact with this digest (fetched and verified as needed).
  using ArtifactFetcher = std::function<absl::StatusOr<std::string>(const std::string& digest)>;

  explicit CommandHandler(ArtifactFetcher fetch);
  ~CommandHandler();  // terminates a unit still loaded
  CommandHandler(const CommandHandler&) = delete;
  CommandHandler& operator=(const CommandHandler&) = delete;

  // Runs `command` and writes its answer to `reply`, with the command's seq. On the step path
  // (Step and Commit while a unit is loaded) the reply's StepDone is rewritten field by field
  // rather than cleared, so that its buffers are reused; pass the same reply every time.
  void Handle(const v1::OrchestratorMessage& command, v1::WorkerMessage* reply);

  // Terminates and drops the loaded unit, if any (the stream ended); returns its name or "".
  std::string DropUnit();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosimo::worker
