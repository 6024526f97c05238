// modelDescription.xml (FMI 2 and 3): the parser never crashes, whatever the XML.
#include <cstdint>
#include <string>

#include "cosimo/fmi/model_description.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<cosimo::fmi::ModelDescription> md =
      cosimo::fmi::ParseModelDescriptionText(xml, "fuzz/modelDescription.xml");
  if (md.ok()) {
    for (const auto& v : md->variables) (void)md->Find(v.name);
  }
  return 0;
}
