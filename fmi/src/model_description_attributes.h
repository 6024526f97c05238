// The attribute readers of the model description (model_description.cc): causality,
// variability, initial (with the standards' defaults), integer lists, the interface kinds'
// capability flags. Private to cosimo_fmi; plain functions.
#pragma once

#include <pugixml.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/fmi/model_description.h"

namespace cosimo::fmi {

absl::StatusOr<FmiCausality> ParseCausality(const std::string& text);
// The default for an empty text: continuous for floats, discrete otherwise.
absl::StatusOr<Variability> ParseVariability(const std::string& text, VarType type);
// The default for an empty text from the causality and variability (FMI 2.0 table in 2.2.7,
// FMI 3.0 table in 2.4.7.5).
absl::StatusOr<Initial> ParseInitial(const std::string& text, const ScalarVariable& v);
// "1 4 7" -> integers.
absl::StatusOr<std::vector<int64_t>> ParseList(const char* text);
// Letters, digits, '_', '-' and '.', not starting with '.': no folder separator, no "..".
bool IsPlainFileName(const std::string& name);
// A <CoSimulation>, <ModelExchange> or <ScheduledExecution> element's flags (absent: not offered).
void ReadKind(const pugi::xml_node& node, FmiVersion version, KindInfo* kind);

}  // namespace cosimo::fmi
