#include "units/src/fmi/fmu_clocks.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace cosimo::units::fmu {
namespace {

using fmi::IntervalVariability;

constexpr int kChanged = 2;      // fmi3IntervalChanged
constexpr int kNotYetKnown = 0;  // fmi3IntervalNotYetKnown
constexpr size_t kSavedPerClock = 6;

bool Periodic(IntervalVariability v) {
  return v == IntervalVariability::kConstant || v == IntervalVariability::kFixed ||
         v == IntervalVariability::kCalculated || v == IntervalVariability::kTunable;
}

}  // namespace

FmuClocks::FmuClocks(const fmi::ModelDescription& md) {
  for (int index : md.Clocks()) {
    const fmi::ScalarVariable& v = md.variables[static_cast<size_t>(index)];
    const bool input = v.causality == fmi::FmiCausality::kInput;
    const bool output = v.causality == fmi::FmiCausality::kOutput;
    const bool triggered = input && v.clock.interval_variability == IntervalVariability::kTriggered;
    if (!output && !triggered && !(input && fmi::IsTimeBased(v.clock.interval_variability))) {
      continue;
    }
    Clock c;
    c.triggered = triggered;
    c.fraction = v.clock.supports_fraction;
    c.index = index;
    c.vr = v.value_reference;
    c.variability = v.clock.interval_variability;
    c.output = output;
    c.priority = v.clock.priority.value_or(0);
    if (c.variability == IntervalVariability::kConstant) {  // from the model description
      c.interval = v.clock.Interval();
      c.shift = v.clock.Shift();
    }
    clocks_.push_back(c);
  }
}

bool FmuClocks::Has(int index) const {
  for (const Clock& c : clocks_) {
    if (c.index == index) return true;
  }
  return false;
}

bool FmuClocks::HasInputClock() const {
  for (const Clock& c : clocks_) {
    if (!c.output) return true;
  }
  return false;
}

void FmuClocks::Trigger(int index, double t) {
  for (Clock& c : clocks_) {
    if (c.index == index && c.triggered) c.next = t;
  }
}

std::vector<int> FmuClocks::Due() const {
  std::vector<int> due;
  for (const Clock& c : clocks_) {
    if (c.due) due.push_back(c.index);
  }
  return due;
}

template <typename Pick>
void FmuClocks::Select(Pick pick, std::vector<uint32_t>* vrs, std::vector<size_t>* at) const {
  vrs->clear();
  at->clear();
  for (size_t k = 0; k < clocks_.size(); ++k) {
    if (!pick(clocks_[k])) continue;
    vrs->push_back(clocks_[k].vr);
    at->push_back(k);
  }
}

absl::Status FmuClocks::Start(FmuInstance* instance, double start_time) {
  for (Clock& c : clocks_) {
    c.next = kNever;
    c.last = -kNever;
    c.count = 0.0;
    c.ticked = c.due = false;
  }
  return AskIntervals(instance, start_time, /*initial=*/true);
}

// Initially: the intervals and shifts of the periodic clocks (constant ones from the model
// description), the shifts of the changing ones. Later: those of the tunable clocks, of the
// changing ones that tick now and of every countdown clock.
absl::Status FmuClocks::AskIntervals(FmuInstance* instance, double t, bool initial) {
  std::vector<uint32_t> vrs;
  std::vector<size_t> at;
  Select(
      [&](const Clock& c) {
        if (c.output || c.triggered || c.variability == IntervalVariability::kConstant) {
          return false;
        }
        if (initial) return c.variability != IntervalVariability::kCountdown;
        return c.variability == IntervalVariability::kTunable ||
               c.variability == IntervalVariability::kCountdown ||
               (c.variability == IntervalVariability::kChanging && c.due);
      },
      &vrs, &at);
  std::vector<double> intervals, shifts(vrs.size(), 0.0);
  std::vector<int> qualifiers;
  if (absl::Status s = Ask(instance, at, &intervals, &qualifiers, initial ? &shifts : nullptr);
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < vrs.size(); ++i) {
    Clock& c = clocks_[at[i]];
    const bool changed = qualifiers[i] == kChanged || (initial && qualifiers[i] != kNotYetKnown);
    if (changed && !(intervals[i] > 0.0 && std::isfinite(intervals[i]))) {
      return absl::InternalError(
          absl::StrCat("unit '", instance->unit_name(),
                       "': ", c.fraction ? "fmi3GetIntervalFraction" : "fmi3GetIntervalDecimal",
                       " gave the clock with value reference ", c.vr, " the interval ",
                       intervals[i], " at t=", t, " (a positive number is expected)"));
    }
    if (initial) {
      if (changed) c.interval = intervals[i];
      c.origin = t + shifts[i];
      c.next = Periodic(c.variability) && !changed ? kNever : c.origin;
      continue;
    }
    if (c.variability == IntervalVariability::kTunable && changed) {
      c.interval = intervals[i];
      c.origin = c.last > -kNever ? c.last : c.origin;
      c.count = c.last > -kNever ? 1.0 : 0.0;
      c.next = c.origin + c.count * c.interval;
    } else if (c.variability == IntervalVariability::kChanging) {
      if (changed) c.interval = intervals[i];
      c.next = c.interval > 0.0 ? t + c.interval : kNever;
    } else if (c.variability == IntervalVariability::kCountdown && changed) {
      c.next = t + intervals[i];
    }
  }
  for (Clock& c : clocks_) {
    if (!initial || c.variability != IntervalVariability::kConstant || c.output) continue;
    c.origin = t + c.shift;
    c.next = c.origin;
  }
  return absl::OkStatus();
}

absl::Status FmuClocks::Ask(FmuInstance* instance, const std::vector<size_t>& at,
                            std::vector<double>* intervals, std::vector<int>* qualifiers,
                            std::vector<double>* shifts) const {
  intervals->assign(at.size(), 0.0);
  qualifiers->assign(at.size(), kNotYetKnown);
  for (const bool fraction : {false, true}) {
    std::vector<uint32_t> vrs;
    std::vector<size_t> where;  // positions in `at`
    for (size_t i = 0; i < at.size(); ++i) {
      if (clocks_[at[i]].fraction != fraction) continue;
      vrs.push_back(clocks_[at[i]].vr);
      where.push_back(i);
    }
    if (vrs.empty()) continue;
    std::vector<double> iv, sh;
    std::vector<int> q;
    if (absl::Status s = instance->GetIntervals(vrs, fraction, &iv, &q); !s.ok()) return s;
    if (shifts != nullptr) {
      if (absl::Status s = instance->GetShifts(vrs, fraction, &sh); !s.ok()) return s;
    }
    for (size_t k = 0; k < where.size(); ++k) {
      (*intervals)[where[k]] = iv[k];
      (*qualifiers)[where[k]] = q[k];
      if (shifts != nullptr) (*shifts)[where[k]] = sh[k];
    }
  }
  return absl::OkStatus();
}

double FmuClocks::NextTick() const {
  double next = kNever;
  for (const Clock& c : clocks_) next = std::min(next, c.next);
  return next;
}

absl::Status FmuClocks::Activate(FmuInstance* instance, double t, double tolerance) {
  std::vector<uint32_t> vrs;
  std::vector<size_t> at;
  for (Clock& c : clocks_) c.due = false;
  Select([](const Clock& c) { return c.output; }, &vrs, &at);
  if (!vrs.empty()) {
    std::vector<bool> active;
    if (absl::Status s = instance->GetClocks(vrs, &active); !s.ok()) return s;
    for (size_t i = 0; i < vrs.size(); ++i) {
      Clock& c = clocks_[at[i]];
      c.due = active[i];
      c.ticked = c.ticked || c.due;
      if (c.due) c.last = t;
    }
  }
  vrs = TakeDue(t, tolerance);
  if (vrs.empty()) return absl::OkStatus();
  return instance->SetClocks(vrs, true);
}

std::vector<uint32_t> FmuClocks::TakeDue(double t, double tolerance) {
  std::vector<uint32_t> vrs;
  std::vector<size_t> at;
  Select([&](const Clock& c) { return !c.output && c.next <= t + tolerance; }, &vrs, &at);
  std::stable_sort(at.begin(), at.end(),
                   [&](size_t a, size_t b) { return clocks_[a].priority < clocks_[b].priority; });
  vrs.clear();
  for (size_t k : at) {
    Clock& c = clocks_[k];
    vrs.push_back(c.vr);
    c.due = c.ticked = true;
    c.last = t;
    if (Periodic(c.variability)) {
      c.count += 1.0;
      c.next = c.origin + c.count * c.interval;
    } else {
      c.next = kNever;  // changing, countdown: asked in AfterUpdate
    }
  }
  return vrs;
}

absl::Status FmuClocks::AfterUpdate(FmuInstance* instance, double t) {
  return AskIntervals(instance, t, /*initial=*/false);
}

double FmuClocks::Ticked(int index) const {
  for (const Clock& c : clocks_) {
    if (c.index == index) return c.ticked ? 1.0 : 0.0;
  }
  return 0.0;
}

void FmuClocks::ClearTicked() {
  for (Clock& c : clocks_) c.ticked = false;
}

std::vector<double> FmuClocks::Save() const {
  std::vector<double> saved;
  for (const Clock& c : clocks_) {
    saved.insert(saved.end(),
                 {c.interval, c.origin, c.count, c.next, c.last, c.ticked ? 1.0 : 0.0});
  }
  return saved;
}

void FmuClocks::Restore(const std::vector<double>& saved) {
  if (saved.size() != kSavedPerClock * clocks_.size()) return;
  for (size_t k = 0; k < clocks_.size(); ++k) {
    const double* s = &saved[kSavedPerClock * k];
    Clock& c = clocks_[k];
    c.interval = s[0];
    c.origin = s[1];
    c.count = s[2];
    c.next = s[3];
    c.last = s[4];
    c.ticked = s[5] != 0.0;
    c.due = false;
  }
}

}  // namespace cosimo::units::fmu
