// The FMU archive reader: any bytes as an .fmu either unpack to regular files inside the
// extraction folder (never outside it, never more than the limits) or are refused; nothing is
// left behind.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cosimo/fmi/fmu_archive.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path =
      (fs::temp_directory_path() / ("cosimo-fuzz-" + std::to_string(getpid()) + ".fmu")).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  cosimo::fmi::UnpackLimits limits;
  limits.max_total_bytes = 16 << 20;
  limits.max_entries = 1000;
  std::string dir;
  {
    absl::StatusOr<std::unique_ptr<cosimo::fmi::UnpackedFmu>> fmu =
        cosimo::fmi::UnpackFmu(path, limits);
    if (fmu.ok()) {
      dir = (*fmu)->dir();
      uint64_t total = 0;
      for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
        const fs::path rel = fs::relative(fs::weakly_canonical(e.path()), fs::canonical(dir));
        if (rel.empty() || *rel.begin() == "..") std::abort();  // escaped the folder
        if (e.is_symlink() || !(e.is_regular_file() || e.is_directory())) std::abort();
        if (e.is_regular_file()) total += e.file_size();
      }
      if (total > limits.max_total_bytes) std::abort();
    }
  }
  if (!dir.empty() && fs::exists(dir)) std::abort();  // the folder goes with the UnpackedFmu
  return 0;
}
