#include "worker/src/fmi/fmu_instance.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace cosimo::worker::fmi {
namespace {

constexpr size_t kMaxCallLog = 4000;

const char* StatusName(FmiVersion version, int status) {
  static const char* const kFmi2[] = {"fmi2OK",    "fmi2Warning", "fmi2Discard",
                                      "fmi2Error", "fmi2Fatal",   "fmi2Pending"};
  static const char* const kFmi3[] = {"fmi3OK", "fmi3Warning", "fmi3Discard", "fmi3Error",
                                      "fmi3Fatal"};
  if (version == FmiVersion::kFmi2) return status >= 0 && status <= 5 ? kFmi2[status] : "?";
  return status >= 0 && status <= 4 ? kFmi3[status] : "?";
}

}  // namespace

VariableGroup::VariableGroup(const ModelDescription& md, const std::vector<int>& indices) {
  std::map<VarType, size_t> batch_of_type;
  for (size_t position = 0; position < indices.size(); ++position) {
    const ScalarVariable& v = md.variables[indices[position]];
    auto [it, inserted] = batch_of_type.emplace(v.type, batches_.size());
    if (inserted) batches_.push_back(Batch{v.type, {}, {}});
    batches_[it->second].vrs.push_back(v.value_reference);
    batches_[it->second].positions.push_back(static_cast<int>(position));
  }
  size_ = indices.size();
}

VariableGroup VariableGroup::Only(const std::vector<bool>& keep) const {
  VariableGroup only;
  only.size_ = size_;
  for (const Batch& b : batches_) {
    Batch kept{b.type, {}, {}};
    for (size_t i = 0; i < b.vrs.size(); ++i) {
      const auto position = static_cast<size_t>(b.positions[i]);
      if (position >= keep.size() || !keep[position]) continue;
      kept.vrs.push_back(b.vrs[i]);
      kept.positions.push_back(b.positions[i]);
    }
    if (!kept.vrs.empty()) only.batches_.push_back(std::move(kept));
  }
  return only;
}

FmuInstance::FmuInstance(std::string unit_name, FmiVersion version)
    : unit_name_(std::move(unit_name)), version_(version) {
  logger_ = spdlog::default_logger()->clone(unit_name_);
}

FmuInstance::~FmuInstance() = default;

void FmuInstance::Log(int status, const char* category, const char* message) {
  const std::string text = message != nullptr ? message : "";
  const char* cat = category != nullptr ? category : "";
  switch (status) {
    case 0:
      logger_->info("[{}] {}", cat, text);
      break;
    case 1:
      logger_->warn("[{}] {}", cat, text);
      break;
    default:
      logger_->error("[{}] {} ({})", cat, text, StatusName(version_, status));
      break;
  }
  if (call_log_.size() < kMaxCallLog) {
    if (!call_log_.empty()) call_log_ += "; ";
    call_log_ += text.substr(0, kMaxCallLog - call_log_.size());
  }
}

absl::Status FmuInstance::Check(int status, const char* function) {
  if (status == 0) return absl::OkStatus();
  std::string message = absl::StrCat("unit '", unit_name_, "': ", function, " returned ",
                                     StatusName(version_, status), " at t=", time_);
  if (!call_log_.empty()) absl::StrAppend(&message, ": ", call_log_);
  if (status == 1) {  // Warning
    logger_->warn("{}", message);
    return absl::OkStatus();
  }
  if (status >= 3) failed_ = true;
  if (status == 4) fatal_ = true;
  return absl::InternalError(message);
}

}  // namespace cosimo::worker::fmi
