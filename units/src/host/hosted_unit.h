// What the parts of a UnitHost (cosimo/units/unit_host.h) share: the unit, its name, the
// counters of its report, the recorded values estimates answer with, and the snapshot of the
// Save / Restore commands and of rollback's t[N]. Private to the worker. Not thread safe (one
// command at a time, as the host).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cosimo/common/unit_api.h"
#include "cosimo/units/unit.h"

namespace cosimo::units::host {

class HostedUnit {
 public:
  // `keep_recorded`: keep each real step's recorded values for the estimates that follow.
  HostedUnit(std::unique_ptr<Unit> unit, std::string name, bool keep_recorded, UnitMode mode)
      : unit_(std::move(unit)),
        name_(std::move(name)),
        keep_recorded_(keep_recorded),
        report_mode_(mode) {}

  Unit& unit() { return *unit_; }
  const Unit& unit() const { return *unit_; }
  const std::string& name() const { return name_; }

  // One real integration of the unit: counted, its recorded values kept when asked.
  void RealStep(const StepRequest& request, StepReply* reply);
  // The recorded values of an evaluation (Initialize, Evaluate), kept for estimates.
  void KeepRecorded(const OutputsReply& reply);
  const std::vector<double>& last_recorded() const { return last_recorded_; }
  const std::vector<std::string>& last_recorded_strings() const { return last_recorded_strings_; }

  // A failed reply with `message`, nothing estimated, no sensitivities.
  static void Fail(StepReply* reply, std::string message);
  // Most replies have none: no call into Eigen's resize then (once per unit and step).
  static void ClearSensitivities(StepReply* reply);

  // The counters of the report (Terminate) and of checkpoints.
  uint64_t real_integrations() const { return real_integrations_; }
  uint64_t estimates() const { return estimates_; }
  void CountEstimate() { ++estimates_; }
  UnitMode report_mode() const { return report_mode_; }
  void set_report_mode(UnitMode mode) { report_mode_ = mode; }
  bool tentative_seen() const { return tentative_seen_; }
  void set_tentative_seen() { tentative_seen_ = true; }
  bool degraded_logged() const { return degraded_logged_; }
  void set_degraded_logged() { degraded_logged_ = true; }

  // What a checkpoint carries of the host (host_checkpoint.h) back in place.
  struct Kept {
    std::vector<double> recorded;
    std::vector<std::string> recorded_strings;
    uint64_t real_integrations = 0;
    uint64_t estimates = 0;
    UnitMode report_mode = UnitMode::kDirect;
    bool tentative_seen = false;
    bool degraded_logged = false;
  };
  Kept kept() const;
  void Restore(Kept kept);

  // The snapshot (Save / Restore commands, rollback at t[N]): taken at `snapshot_time`, and
  // whether the unit has moved past it since (`dirty`).
  std::unique_ptr<UnitSnapshot> snapshot;
  double snapshot_time = std::numeric_limits<double>::quiet_NaN();
  bool dirty = false;
  // Forgets the snapshot's time (the state is the unit's own: accepted, or a final step's).
  void ClearTentativeSnapshot() {
    dirty = false;
    snapshot_time = std::numeric_limits<double>::quiet_NaN();
  }

 private:
  std::unique_ptr<Unit> unit_;
  std::string name_;
  bool keep_recorded_;
  UnitMode report_mode_;
  uint64_t real_integrations_ = 0;
  uint64_t estimates_ = 0;
  bool tentative_seen_ = false;
  bool degraded_logged_ = false;
  std::vector<double> last_recorded_;
  std::vector<std::string> last_recorded_strings_;
};

}  // namespace cosimo::units::host
