// The worker's command handling: any sequence of orchestrator commands (protobuf text format,
// one message per block, blocks separated by a line "--") run through a CommandHandler never
// crashes, whatever the order, the sizes of the input vectors or the times and steps. Artifacts
// are never fetched (the fetcher refuses), so units are built-in models.
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "cosimo/worker/command_handler.h"

namespace {

class QuietErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
};
QuietErrors quiet;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cosimo::worker::CommandHandler handler(
      [](const std::string& digest) -> absl::StatusOr<std::string> {
        return absl::NotFoundError("fuzz: no artifact " + digest);
      });
  cosimo::v1::WorkerMessage reply;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&quiet);  // a block that does not parse is skipped, not logged
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find("\n--\n", start);
    if (end == std::string_view::npos) end = text.size();
    cosimo::v1::OrchestratorMessage command;
    if (parser.ParseFromString(std::string(text.substr(start, end - start)), &command)) {
      handler.Handle(command, &reply);
      if (reply.seq() != command.seq()) __builtin_trap();  // every reply answers its command
    }
    start = end + 4;
  }
  return 0;
}
