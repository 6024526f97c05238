#include "units/src/fmi/fmu_instance.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/units/unit_log.h"
#include "spdlog/spdlog.h"

namespace cosimo::units::fmu {
namespace {

constexpr size_t kMaxCallLog = 4000;

const char* StatusName(fmi::FmiVersion version, int status) {
  static const char* const kFmi1[] = {"fmiOK",    "fmiWarning", "fmiDiscard",
                                      "fmiError", "fmiFatal",   "fmiPending"};
  static const char* const kFmi2[] = {"fmi2OK",    "fmi2Warning", "fmi2Discard",
                                      "fmi2Error", "fmi2Fatal",   "fmi2Pending"};
  static const char* const kFmi3[] = {"fmi3OK", "fmi3Warning", "fmi3Discard", "fmi3Error",
                                      "fmi3Fatal"};
  if (version == fmi::FmiVersion::kFmi1) return status >= 0 && status <= 5 ? kFmi1[status] : "?";
  if (version == fmi::FmiVersion::kFmi2) return status >= 0 && status <= 5 ? kFmi2[status] : "?";
  return status >= 0 && status <= 4 ? kFmi3[status] : "?";
}

}  // namespace

ValuePlace PlaceOf(const fmi::ModelDescription& md, int index) {
  const fmi::ScalarVariable& v = md.variables[static_cast<size_t>(index)];
  if (v.array_of < 0) return ValuePlace{v.value_reference, 1, 0};
  return ValuePlace{v.value_reference, md.variables[static_cast<size_t>(v.array_of)].size,
                    v.element};
}

ValueLayout LayoutOf(const std::vector<ValuePlace>& places) {
  ValueLayout layout;
  std::map<uint32_t, size_t> offset_of;  // value reference -> its first slot
  for (const ValuePlace& p : places) {
    auto [it, inserted] = offset_of.emplace(p.vr, layout.n_values);
    if (inserted) {
      layout.vrs.push_back(p.vr);
      layout.counts.push_back(p.count);
      layout.n_values += p.count;
    }
    layout.slots.push_back(it->second + p.element);
  }
  return layout;
}

ValueLayout LayoutOf(const fmi::ModelDescription& md, const std::vector<int>& indices) {
  std::vector<ValuePlace> places;
  places.reserve(indices.size());
  for (int index : indices) places.push_back(PlaceOf(md, index));
  return LayoutOf(places);
}

VariableGroup::VariableGroup(const fmi::ModelDescription& md, const std::vector<int>& indices) {
  for (size_t position = 0; position < indices.size(); ++position) {
    const int index = indices[position];
    const fmi::ScalarVariable& v = md.variables[static_cast<size_t>(index)];
    Add(v.type, Entry{PlaceOf(md, index), static_cast<int>(position), v.negated});
  }
  size_ = indices.size();
  Finish();
}

void VariableGroup::Add(fmi::VarType type, const Entry& e) {
  size_t b = 0;
  while (b < batches_.size() && batches_[b].type != type) ++b;
  if (b == batches_.size()) {
    batches_.push_back(Batch{type, {}, 0, {}, {}, false, {}});
    entries_.emplace_back();
  }
  entries_[b].push_back(e);
}

void VariableGroup::Finish() {
  for (size_t b = 0; b < batches_.size(); ++b) {
    Batch& batch = batches_[b];
    std::vector<ValuePlace> places;
    batch.positions.clear();
    batch.negated.clear();
    bool any_negated = false;
    for (const Entry& e : entries_[b]) {
      places.push_back(e.place);
      batch.positions.push_back(e.position);
      batch.negated.push_back(e.negated);
      any_negated = any_negated || e.negated;
    }
    if (!any_negated) batch.negated.clear();
    ValueLayout layout = LayoutOf(places);
    batch.vrs = std::move(layout.vrs);
    batch.n_values = layout.n_values;
    batch.slots = std::move(layout.slots);
    // An array covered in part: fewer distinct slots than values.
    batch.partial =
        std::set<size_t>(batch.slots.begin(), batch.slots.end()).size() != batch.n_values;
  }
}

VariableGroup VariableGroup::Only(const std::vector<bool>& keep) const {
  VariableGroup only;
  only.size_ = size_;
  for (size_t b = 0; b < batches_.size(); ++b) {
    for (const Entry& e : entries_[b]) {
      const auto position = static_cast<size_t>(e.position);
      if (position < keep.size() && keep[position]) only.Add(batches_[b].type, e);
    }
  }
  only.Finish();
  return only;
}

FmuInstance::FmuInstance(std::string unit_name, fmi::FmiVersion version)
    : unit_name_(std::move(unit_name)), version_(version) {
  logger_ = spdlog::default_logger()->clone(unit_name_);
}

thread_local FmuInstance* FmuInstance::calling_ = nullptr;

FmuInstance::~FmuInstance() {
  if (calling_ == this) calling_ = nullptr;
}

void FmuInstance::Log(int status, const char* category, const char* message) {
  const std::string text = message != nullptr ? message : "";
  const char* cat = category != nullptr ? category : "";
  // In the job's log where there is one (unit_log.h): the worker's own log has it at debug.
  if (AddUnitLogLine("fmi", StatusName(version_, status), cat, text)) {
    logger_->debug("[{}] {} ({})", cat, text, StatusName(version_, status));
  } else {
    LogToTerminal(status, cat, text);
  }
  if (call_log_.size() < kMaxCallLog) {
    if (!call_log_.empty()) call_log_ += "; ";
    call_log_ += text.substr(0, kMaxCallLog - call_log_.size());
  }
}

void FmuInstance::LogToTerminal(int status, const char* cat, const std::string& text) {
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
}

absl::Status FmuInstance::SetClocks(const std::vector<uint32_t>& /*vrs*/, bool /*active*/) {
  return absl::UnimplementedError("unit '" + unit_name_ + "': clocks are FMI 3 only");
}
absl::Status FmuInstance::GetClocks(const std::vector<uint32_t>& /*vrs*/,
                                    std::vector<bool>* /*active*/) {
  return absl::UnimplementedError("unit '" + unit_name_ + "': clocks are FMI 3 only");
}
absl::Status FmuInstance::GetIntervals(const std::vector<uint32_t>& /*vrs*/, bool /*fraction*/,
                                       std::vector<double>* /*intervals*/,
                                       std::vector<int>* /*qualifiers*/) {
  return absl::UnimplementedError("unit '" + unit_name_ + "': clocks are FMI 3 only");
}
absl::Status FmuInstance::GetShifts(const std::vector<uint32_t>& /*vrs*/, bool /*fraction*/,
                                    std::vector<double>* /*shifts*/) {
  return absl::UnimplementedError("unit '" + unit_name_ + "': clocks are FMI 3 only");
}

absl::Status FmuInstance::ActivateModelPartition(uint32_t /*clock_vr*/, double /*t*/) {
  return absl::UnimplementedError("unit '" + unit_name_ + "': Scheduled Execution is FMI 3 only");
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

}  // namespace cosimo::units::fmu
