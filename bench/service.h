// The service as a user starts it, for the figures measured through it (load, fig8): a real
// cosimo-orchestrator process (in memory, on a free loopback port) and cosimo-worker processes
// attached to it, in a temporary folder (the port file, the workers' artifact cache) removed at
// the end. The processes are killed when the object goes.
//
// Thread safety: one thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "figures.h"

namespace cosimo::bench {

class ServiceProcesses {
 public:
  // Starts the orchestrator and `workers` workers with `worker_flags` (e.g. {"--slots", "2"}),
  // and waits until they have all attached.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<ServiceProcesses>> Start(
      const Options& options, int workers, const std::vector<std::string>& worker_flags = {});
  ~ServiceProcesses();

  const std::string& address() const { return address_; }
  pid_t orchestrator_pid() const;

 private:
  ServiceProcesses() = default;
  std::string dir_;
  std::string address_;
  std::unique_ptr<ChildProcess> orchestrator_;
  std::vector<std::unique_ptr<ChildProcess>> workers_;
};

}  // namespace cosimo::bench
