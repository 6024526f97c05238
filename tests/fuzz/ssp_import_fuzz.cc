// SSP import: any bytes as a SystemStructure.ssd are imported or refused with an error, never a
// crash; a scenario it imports is one that validation can judge.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "cosimo/common/scenario.h"
#include "cosimo/ssp/ssp_import.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("cosimo-fuzz-ssp-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  const std::string path = (dir / "SystemStructure.ssd").string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  cosimo::ssp::SspImportOptions options;
  options.resources_dir = (dir / "resources").string();
  absl::StatusOr<cosimo::ssp::SspImport> imported = cosimo::ssp::ImportSsp(path, options);
  if (imported.ok()) (void)cosimo::ValidateScenario(imported->scenario);
  return 0;
}
