#include "master/src/checkpoint.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "master/src/fan_out.h"

namespace cosimo::master {
namespace {

template <typename Values>
Eigen::VectorXd ToVector(const Values& values, int offset, int size) {
  Eigen::VectorXd out(size);
  for (int i = 0; i < size; ++i) out[i] = values.Get(offset + i);
  return out;
}

void SaveSlot(const UnitSlot& s, v1::UnitCheckpoint* out) {
  out->set_name(s.name);
  out->mutable_outputs()->Add(s.outputs.data(), s.outputs.data() + s.outputs.size());
  out->mutable_derivatives()->Add(s.derivatives.data(),
                                  s.derivatives.data() + s.derivatives.size());
  out->mutable_recorded()->Add(s.recorded.begin(), s.recorded.end());
  for (const std::string& text : s.recorded_strings) out->add_recorded_strings(text);
  for (int back = s.history.size() - 1; back >= 0; --back) {
    out->add_history_times(s.history.time(back));
    for (int o = 0; o < s.num_outputs; ++o) {
      out->add_history_values(s.history.value(back, o));
      out->add_history_derivatives(s.history.derivative(back, o));
    }
  }
}

absl::Status RestoreSlot(const v1::UnitCheckpoint& in, UnitSlot& s) {
  const int p = s.num_outputs;
  const int samples = in.history_times_size();
  if (in.outputs_size() != p || in.derivatives_size() != p || samples > kMaxSamples ||
      in.history_values_size() != samples * p || in.history_derivatives_size() != samples * p) {
    return absl::InvalidArgumentError(absl::StrCat("the checkpoint of unit '", s.name, "' has ",
                                                   in.outputs_size(), " outputs and ", samples,
                                                   " samples; the unit has ", p, " outputs"));
  }
  s.outputs = ToVector(in.outputs(), 0, p);
  s.derivatives = ToVector(in.derivatives(), 0, p);
  s.recorded.assign(in.recorded().begin(), in.recorded().end());
  s.recorded_strings.assign(in.recorded_strings().begin(), in.recorded_strings().end());
  s.history.Reset(p);
  for (int k = 0; k < samples; ++k) {
    s.history.Push(in.history_times(k), ToVector(in.history_values(), k * p, p),
                   ToVector(in.history_derivatives(), k * p, p));
  }
  s.commit_pending = false;
  s.stepped = false;
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckpointUnits(CoupledUnits& units, v1::JobCheckpoint* checkpoint) {
  // A unit with a carried commit still has its tentative step open: commit it now.
  COSIMO_RETURN_IF_ERROR(FanOut(
      units.slots(),
      [](UnitSlot& s) {
        if (!s.commit_pending) return false;
        s.command.kind = UnitCommand::Kind::kCommit;
        s.commit_pending = false;
        return true;
      },
      [](UnitSlot& s, absl::Status awaited) {
        return Annotate(awaited, absl::StrCat("unit '", s.name, "': commit before a checkpoint"));
      }));
  checkpoint->clear_units();
  return FanOut(
      units.slots(),
      [](UnitSlot& s) {
        s.command.kind = UnitCommand::Kind::kCheckpoint;
        return true;
      },
      [&](UnitSlot& s, absl::Status awaited) {
        if (!awaited.ok()) return awaited;
        v1::UnitCheckpoint* unit = checkpoint->add_units();
        SaveSlot(s, unit);
        unit->mutable_state()->swap(s.response.checkpoint);
        return absl::OkStatus();
      });
}

absl::Status RestoreUnits(CoupledUnits& units, const v1::JobCheckpoint& checkpoint) {
  std::vector<UnitSlot>& slots = units.slots();
  if (checkpoint.units_size() != static_cast<int>(slots.size())) {
    return absl::InvalidArgumentError(absl::StrCat("the checkpoint has ", checkpoint.units_size(),
                                                   " units, the scenario ", slots.size()));
  }
  for (size_t u = 0; u < slots.size(); ++u) {
    const v1::UnitCheckpoint& in = checkpoint.units(static_cast<int>(u));
    if (in.name() != slots[u].name) {
      return absl::InvalidArgumentError(absl::StrCat("the checkpoint's unit ", u, " is '",
                                                     in.name(), "', the scenario's '",
                                                     slots[u].name, "'"));
    }
    COSIMO_RETURN_IF_ERROR(RestoreSlot(in, slots[u]));
  }
  int u = 0;
  return FanOut(
      slots,
      [&](UnitSlot& s) {
        s.command.kind = UnitCommand::Kind::kRestoreCheckpoint;
        s.command.state = checkpoint.units(u++).state();
        return true;
      },
      [](UnitSlot& s, absl::Status awaited) {
        s.command.state.clear();
        return Annotate(awaited, absl::StrCat("unit '", s.name, "': restore from the checkpoint"));
      });
}

void CheckpointTable(const ResultTable& table, CheckpointMark from, v1::JobCheckpoint* checkpoint) {
  for (const std::string& c : table.columns) checkpoint->add_columns(c);
  const size_t first_value = static_cast<size_t>(from.rows) * table.columns.size();
  if (first_value > table.values.size() || from.strings > table.strings.size()) from = {};
  checkpoint->set_rows_from(from.rows);
  checkpoint->set_strings_from(from.strings);
  checkpoint->mutable_values()->Add(
      table.values.begin() +
          static_cast<ptrdiff_t>(from.rows) * static_cast<ptrdiff_t>(table.columns.size()),
      table.values.end());
  for (size_t i = from.strings; i < table.strings.size(); ++i) {
    checkpoint->add_strings(table.strings[i]);
  }
}

absl::Status RestoreTable(const v1::JobCheckpoint& checkpoint, ResultTable* table) {
  const bool same_columns =
      checkpoint.columns_size() == static_cast<int>(table->columns.size()) &&
      std::equal(table->columns.begin(), table->columns.end(), checkpoint.columns().begin());
  if (checkpoint.rows_from() != 0 || checkpoint.strings_from() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("the checkpoint holds the results from row ",
                                                   checkpoint.rows_from(), " on only"));
  }
  if (!same_columns || checkpoint.values_size() % checkpoint.columns_size() != 0) {
    return absl::InvalidArgumentError(
        "the checkpoint's results do not have the columns the scenario records");
  }
  table->values.assign(checkpoint.values().begin(), checkpoint.values().end());
  table->strings.assign(checkpoint.strings().begin(), checkpoint.strings().end());
  return absl::OkStatus();
}

}  // namespace cosimo::master
