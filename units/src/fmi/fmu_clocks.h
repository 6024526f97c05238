// The clocks of an FMI 3 FMU unit (FMI 3.0.1 sections 2.2.8 and 2.2.9): when its time-based
// input clocks tick next, the calls that tell the FMU in Event Mode, and which clocks ticked
// since the last communication point (the clock columns of the record). Private to
// units/src/fmi; used by the Co-Simulation unit (fmu_cs_unit.cc), the Model Exchange unit
// (fmu_me_unit.cc) and the Scheduled Execution unit (fmu_se_unit.cc).
//
// Time-based input clocks tick where the importer says (Cosimo computes their ticks):
//   constant                 t0 + shift + k * interval, from the model description;
//   fixed, calculated        the same with interval and shift asked once in Initialization Mode
//                            (fmi3GetIntervalDecimal, fmi3GetShiftDecimal);
//   tunable                  likewise, and asked again in each Event Mode: a changed interval
//                            counts from the clock's last tick;
//   changing                 first tick at t0 + shift, then the interval asked at each of its
//                            ticks counts from that tick;
//   countdown                asked in every Event Mode: a changed interval schedules a tick that
//                            far from now (no tick until it does).
// Output clocks (triggered) are read with fmi3GetClock in every Event Mode. Triggered input
// clocks tick where the unit says (Trigger: another unit's output clock ticked). Local clocks
// never tick here.
// The intervals and shifts of the clocks that declare supportsFraction are asked as fractions
// (fmi3GetIntervalFraction, fmi3GetShiftFraction: counter / resolution), the others' as
// decimals.
//
// Call order: Start in Initialization Mode; then per Event Mode (the one after initialisation
// included) Activate at its time, fmi3UpdateDiscreteStates, AfterUpdate. Not thread safe.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "cosimo/fmi/model_description.h"
#include "units/src/fmi/fmu_instance.h"

namespace cosimo::units::fmu {

class FmuClocks {
 public:
  explicit FmuClocks(const fmi::ModelDescription& md);

  // Whether the FMU has clocks that Cosimo drives or reads (time-based input, output clocks).
  bool empty() const { return clocks_.empty(); }
  // Whether the model description variable at `index` is such a clock or a triggered input
  // clock (recordable; the triggered ones connectable).
  bool Has(int index) const;
  // Whether an input clock (time-based or triggered) is among them: a partition Scheduled
  // Execution can activate.
  bool HasInputClock() const;
  // The triggered input clock at `index` ticks at t (the next Activate or TakeDue at t).
  void Trigger(int index, double t);
  // The model description indices of the clocks that tick in the current Event Mode (after
  // Activate or TakeDue).
  std::vector<int> Due() const;
  // In Initialization Mode: the intervals and shifts known there, the first ticks.
  absl::Status Start(FmuInstance* instance, double start_time);
  // The earliest tick to come, +infinity when none is scheduled.
  double NextTick() const;
  // In Event Mode at t: fmi3GetClock of the output clocks, fmi3SetClock of the time-based input
  // clocks that tick at t (within `tolerance`). Marks those that tick.
  absl::Status Activate(FmuInstance* instance, double t, double tolerance);
  // The time-based input clocks that tick at t (within `tolerance`), marked and advanced as
  // Activate does but not set, in the order their Scheduled Execution partitions run: by
  // priority (FMI 3.0.1 section 2.4.7.5.2: a lower value is a higher priority), then in
  // declaration order.
  std::vector<uint32_t> TakeDue(double t, double tolerance);
  // In Event Mode at t, after fmi3UpdateDiscreteStates: the intervals asked there, the clocks'
  // next ticks.
  absl::Status AfterUpdate(FmuInstance* instance, double t);
  // The clocks' ticks since the last ClearTicked: 1 for the variable at `index` if it ticked.
  double Ticked(int index) const;
  void ClearTicked();

  // What a snapshot keeps (as doubles: per clock its next tick, last tick, periodic origin,
  // tick count and interval).
  std::vector<double> Save() const;
  void Restore(const std::vector<double>& saved);

 private:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  struct Clock {
    int index = -1;
    uint32_t vr = 0;
    fmi::IntervalVariability variability = fmi::IntervalVariability::kNone;
    bool output = false;
    bool triggered = false;  // a triggered input clock
    bool fraction = false;   // supportsFraction: asked with fmi3Get*Fraction
    uint32_t priority = 0;
    double interval = 0.0;
    double shift = 0.0;   // constant: from the model description
    double origin = 0.0;  // periodic: the tick k = 0
    double count = 0.0;   // periodic: ticks since origin
    double next = kNever;
    double last = -kNever;
    bool due = false;     // ticks in the current Event Mode
    bool ticked = false;  // since ClearTicked
  };
  // The vrs of the clocks `pick` selects, and their positions in clocks_.
  template <typename Pick>
  void Select(Pick pick, std::vector<uint32_t>* vrs, std::vector<size_t>* at) const;
  absl::Status AskIntervals(FmuInstance* instance, double t, bool initial);
  // The intervals (and, when `shifts` is not null, shifts) of clocks_[at[i]], as fractions for
  // those that support them, as decimals for the others.
  absl::Status Ask(FmuInstance* instance, const std::vector<size_t>& at,
                   std::vector<double>* intervals, std::vector<int>* qualifiers,
                   std::vector<double>* shifts) const;
  std::vector<Clock> clocks_;
};

}  // namespace cosimo::units::fmu
