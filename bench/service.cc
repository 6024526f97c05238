#include "service.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "cosimo/client/client.h"

namespace cosimo::bench {

absl::StatusOr<std::unique_ptr<ServiceProcesses>> ServiceProcesses::Start(
    const Options& options, int workers, const std::vector<std::string>& worker_flags) {
  std::unique_ptr<ServiceProcesses> service(new ServiceProcesses());
  std::string dir = (std::filesystem::temp_directory_path() / "cosimo-bench-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return absl::InternalError("cannot create a folder");
  service->dir_ = dir;
  service->orchestrator_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{options.orchestrator_binary, "--listen", "127.0.0.1:0",
                               "--port-file", dir + "/port", "--log-level", "warn"},
      options.log_path);
  int port = 0;
  for (int i = 0; i < 1000 && port == 0; ++i) {
    std::ifstream in(dir + "/port");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find('\n') != std::string::npos) port = std::stoi(text);
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (port == 0) return absl::UnavailableError("the orchestrator did not start (see --log)");
  service->address_ = "127.0.0.1:" + std::to_string(port);
  for (int i = 0; i < workers; ++i) {
    std::vector<std::string> argv = {options.worker_binary,
                                     "--orchestrator",
                                     service->address_,
                                     "--cache-dir",
                                     dir + "/cache",
                                     "--log-level",
                                     "warn"};
    argv.insert(argv.end(), worker_flags.begin(), worker_flags.end());
    service->workers_.push_back(std::make_unique<ChildProcess>(argv, options.log_path));
  }
  client::Client client(service->address_);
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<std::vector<v1::WorkerStatus>> attached = client.Workers();
    if (attached.ok() && attached->size() == static_cast<size_t>(workers)) return service;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return absl::UnavailableError("the workers did not attach (see --log)");
}

ServiceProcesses::~ServiceProcesses() {
  workers_.clear();
  orchestrator_.reset();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

pid_t ServiceProcesses::orchestrator_pid() const { return orchestrator_->pid(); }

}  // namespace cosimo::bench
