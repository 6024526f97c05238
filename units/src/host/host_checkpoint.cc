#include "units/src/host/host_checkpoint.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "units/src/checkpoint/state_bytes.h"

namespace cosimo::units::host {
namespace {

constexpr char kHostTag[] = "cosimo.UnitHost.1";

// Prefixes the unit's name unless the unit's own message names it already.
absl::Status Named(const std::string& name, const char* what, const absl::Status& s) {
  if (absl::StartsWith(s.message(), "unit '")) return s;
  return absl::Status(s.code(), absl::StrCat("unit '", name, "': ", what, ": ", s.message()));
}

}  // namespace

absl::StatusOr<std::string> WriteCheckpoint(HostedUnit& host) {
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> saved = host.unit().Save();
  if (!saved.ok()) return Named(host.name(), "cannot be checkpointed", saved.status());
  absl::StatusOr<std::string> unit_bytes = host.unit().Serialize(**saved);
  if (!unit_bytes.ok()) return Named(host.name(), "cannot be checkpointed", unit_bytes.status());
  const HostedUnit::Kept kept = host.kept();
  StateWriter out;
  out.Tag(kHostTag);
  out.Doubles(kept.recorded);
  out.Strings(kept.recorded_strings);
  out.U64(kept.real_integrations);
  out.U64(kept.estimates);
  out.U64(static_cast<uint64_t>(kept.report_mode));
  out.Bool(kept.tentative_seen);
  out.Bool(kept.degraded_logged);
  out.Bytes(*unit_bytes);
  return out.Take();
}

absl::Status ReadCheckpoint(std::string_view bytes, HostedUnit& host) {
  StateReader in(bytes);
  in.ExpectTag(kHostTag);
  HostedUnit::Kept kept;
  kept.recorded = in.Doubles();
  kept.recorded_strings = in.Strings();
  kept.real_integrations = in.U64();
  kept.estimates = in.U64();
  const uint64_t report_mode = in.U64();
  kept.tentative_seen = in.Bool();
  kept.degraded_logged = in.Bool();
  const std::string unit_bytes = in.Bytes();
  if (absl::Status s = in.Finish(absl::StrCat("unit '", host.name(), "': checkpoint")); !s.ok()) {
    return s;
  }
  if (report_mode > static_cast<uint64_t>(UnitMode::kEstimateDegraded)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", host.name(), "': checkpoint names unit mode ", report_mode));
  }
  kept.report_mode = static_cast<UnitMode>(report_mode);
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> snapshot = host.unit().Deserialize(unit_bytes);
  if (!snapshot.ok()) return Named(host.name(), "cannot load the checkpoint", snapshot.status());
  if (absl::Status s = host.unit().Restore(**snapshot); !s.ok()) {
    return Named(host.name(), "restore from the checkpoint", s);
  }
  host.Restore(std::move(kept));
  host.snapshot.reset();
  return absl::OkStatus();
}

}  // namespace cosimo::units::host
