// The web page's files (orchestrator/web/), built into the binary by CMake
// (orchestrator/web/embed.cmake writes web_assets.cc): no file to install, no CDN.
#pragma once

#include <string_view>

namespace cosimo::orchestrator::http {

struct WebAsset {
  std::string_view name;          // file name under orchestrator/web/, e.g. "app.js"
  std::string_view content_type;  // from its extension
  std::string_view body;
};

// Null if there is no such file.
const WebAsset* FindWebAsset(std::string_view name);

}  // namespace cosimo::orchestrator::http
