#include "cosimo/common/logging.h"

#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cosimo {
namespace {

// ISO 8601 in UTC with milliseconds: 2026-12-03T09:57:00.123Z.
std::string UtcTime(std::chrono::system_clock::time_point time) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[40];
  const size_t n = std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buffer + n, sizeof(buffer) - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buffer;
}

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    nlohmann::ordered_json line;
    line["time"] = UtcTime(msg.time);
    const spdlog::string_view_t level = spdlog::level::to_string_view(msg.level);
    line["level"] = std::string(level.data(), level.size());
    line["logger"] = std::string(msg.logger_name.data(), msg.logger_name.size());
    line["pid"] = pid_;
    line["thread"] = msg.thread_id;
    line["message"] = std::string(msg.payload.data(), msg.payload.size());
    // Bytes that are not UTF-8 (an FMU's log, a file name) become U+FFFD instead of throwing.
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    dest.append(text.data(), text.data() + text.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }

 private:
  int pid_ = static_cast<int>(getpid());
};

}  // namespace

std::vector<std::string> LogLevels() {
  return {"trace", "debug", "info", "warn", "error", "critical", "off"};
}

std::vector<std::string> LogFormats() { return {"text", "json"}; }

std::unique_ptr<spdlog::formatter> MakeJsonLogFormatter() {
  return std::make_unique<JsonFormatter>();
}

absl::Status SetUpLogging(std::string_view program, const LogOptions& options) {
  const std::vector<std::string> levels = LogLevels();
  if (std::find(levels.begin(), levels.end(), options.level) == levels.end()) {
    return absl::InvalidArgumentError(absl::StrCat("--log-level: unknown level '", options.level,
                                                   "' (one of ", absl::StrJoin(levels, ", "), ")"));
  }
  if (options.format != "text" && options.format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-format: unknown format '", options.format, "' (text or json)"));
  }
  const std::string name(program);
  spdlog::drop(name);
  std::shared_ptr<spdlog::logger> logger;
  if (options.fd < 0) {
    logger = spdlog::stderr_color_mt(name);
  } else {  // standard error elsewhere (a worker capturing its units' output)
    FILE* file = fdopen(options.fd, "w");
    if (file == nullptr)
      return absl::InternalError("cannot log to descriptor " + std::to_string(options.fd));
    logger = std::make_shared<spdlog::logger>(
        name, std::make_shared<spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>>(
                  file, spdlog::color_mode::automatic));
    spdlog::register_logger(logger);
  }
  if (options.format == "json") {
    logger->set_formatter(MakeJsonLogFormatter());
  } else {
    logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n %P] [%^%l%$] %v");
  }
  logger->set_level(spdlog::level::from_str(options.level));
  spdlog::set_default_logger(logger);
  return absl::OkStatus();
}

}  // namespace cosimo
