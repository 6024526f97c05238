#include "units/src/table_unit.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "cosimo/common/csv.h"
#include "cosimo/common/status.h"
#include "units/src/checkpoint/state_bytes.h"
#include "units/src/models/builtin_models.h"
#include "units/src/models/model_parameters.h"

namespace cosimo::units {
namespace {

class TableUnit final : public Unit {
 public:
  TableUnit(std::string name, std::vector<std::string> columns, std::vector<double> times,
            Eigen::MatrixXd values, TableInterpolation interpolation)
      : name_(std::move(name)),
        times_(std::move(times)),
        values_(std::move(values)),
        interpolation_(interpolation) {
    for (const std::string& column : columns) {
      VariableInfo info;
      info.name = column;
      info.causality = Causality::kOutput;
      description_.outputs.push_back(info);
    }
    Capabilities& caps = description_.capabilities;
    caps.can_rollback = true;
    caps.provides_jacobians = true;
    caps.provides_state_derivatives = true;
    caps.output_reactive = false;
    caps.input_reactive = false;
    caps.max_output_derivative_order = 1;
    // Time events: a repeated time stamp is a jump; a held table changes at every sample (an
    // interpolated one only where a discrete input holds it).
    for (size_t r = 0; r < times_.size(); ++r) {
      if (r > 0 && times_[r] == times_[r - 1]) continue;
      description_.sample_times.push_back(times_[r]);
      const bool jump = r + 1 < times_.size() && times_[r + 1] == times_[r];
      if (jump || interpolation_ == TableInterpolation::kHold) {
        description_.event_times.push_back(times_[r]);
      }
    }
  }

  const UnitDescription& description() const override { return description_; }
  double time() const override { return time_; }

  absl::Status SetRecorded(const std::vector<std::string>& names) override {
    std::vector<int> recorded;
    for (const std::string& name : names) {
      int index = -1;
      for (size_t i = 0; i < description_.outputs.size(); ++i) {
        if (description_.outputs[i].name == name) index = static_cast<int>(i);
      }
      if (index < 0) {
        return absl::NotFoundError("unit '" + name_ + "': the table has no column '" + name + "'");
      }
      recorded.push_back(index);
    }
    recorded_ = std::move(recorded);
    return absl::OkStatus();
  }

  // A column feeding a discrete input holds its previous sample whatever the interpolation:
  // such an input takes values at events only, and an interpolated 1.5000000000000004 between
  // the samples 1 and 2 is no value the signal ever had.
  absl::Status HoldOutputs(const std::vector<int>& outputs) override {
    held_.assign(description_.outputs.size(), false);
    for (int o : outputs) held_[static_cast<size_t>(o)] = true;
    return absl::OkStatus();
  }

  absl::Status Initialize(double start_time, double /*stop_time*/) override {
    time_ = start_time;
    return absl::OkStatus();
  }

  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override {
    if (inputs.size() != 0) {
      return absl::InvalidArgumentError("unit '" + name_ + "': a table has no inputs");
    }
    Fill(&reply->outputs, &reply->derivatives, &reply->recorded);
    return absl::OkStatus();
  }

  void Step(const StepRequest& request, StepReply* reply) override {
    reply->status = StepStatus::kOk;
    reply->message.clear();
    reply->estimated = false;
    if (std::abs(request.time - time_) > 1e-9 * std::max(1.0, std::abs(time_)) ||
        !(request.step > 0.0)) {
      reply->status = StepStatus::kFailed;
      reply->message =
          "unit '" + name_ + "': bad step request (from t=" + std::to_string(request.time) +
          ", h=" + std::to_string(request.step) + ") for a unit at t=" + std::to_string(time_);
    } else {
      time_ = request.time + request.step;
    }
    reply->end_time = time_;
    Fill(&reply->outputs, &reply->derivatives, &reply->recorded);
  }

  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override {
    auto snapshot = std::make_unique<Snapshot>();
    snapshot->time = time_;
    return std::unique_ptr<UnitSnapshot>(std::move(snapshot));
  }

  absl::Status Restore(const UnitSnapshot& snapshot) override {
    const auto* saved = dynamic_cast<const Snapshot*>(&snapshot);
    if (saved == nullptr) {
      return absl::InvalidArgumentError("unit '" + name_ +
                                        "': the snapshot is not one of this unit");
    }
    time_ = saved->time;
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Serialize(const UnitSnapshot& snapshot) override {
    const auto* saved = dynamic_cast<const Snapshot*>(&snapshot);
    if (saved == nullptr) {
      return absl::InvalidArgumentError("unit '" + name_ +
                                        "': the snapshot is not one of this unit");
    }
    StateWriter out;
    out.Tag("cosimo.TableUnit.1");
    out.Double(saved->time);
    return out.Take();
  }

  absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(std::string_view bytes) override {
    StateReader in(bytes);
    in.ExpectTag("cosimo.TableUnit.1");
    auto snapshot = std::make_unique<Snapshot>();
    snapshot->time = in.Double();
    if (absl::Status s = in.Finish("unit '" + name_ + "': checkpoint of the table"); !s.ok()) {
      return s;
    }
    return std::unique_ptr<UnitSnapshot>(std::move(snapshot));
  }

  absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override {
    if (inputs.size() != 0) {
      return absl::InvalidArgumentError("unit '" + name_ + "': a table has no inputs");
    }
    Linearization lin;
    const Eigen::Index p = values_.cols();
    Eigen::VectorXd derivatives;
    std::vector<double> recorded;
    Fill(&lin.y, &derivatives, &recorded);
    lin.x.resize(0);
    lin.xdot.resize(0);
    lin.A.resize(0, 0);
    lin.B.resize(0, 0);
    lin.C.resize(p, 0);
    lin.D.resize(p, 0);
    return lin;
  }

 private:
  struct Snapshot final : UnitSnapshot {
    double time = 0.0;
  };

  void Fill(Eigen::VectorXd* outputs, Eigen::VectorXd* derivatives, std::vector<double>* recorded) {
    const Eigen::Index p = values_.cols();
    outputs->resize(p);
    derivatives->resize(p);
    const Eigen::Index rows = static_cast<Eigen::Index>(times_.size());
    // A sample reached up to rounding counts as reached.
    const double t = time_ + 1e-12 * std::max(1.0, std::abs(time_));
    const auto it = std::upper_bound(times_.begin(), times_.end(), t);
    const Eigen::Index i = static_cast<Eigen::Index>(it - times_.begin()) - 1;  // last <= t
    if (i < 0) {
      *outputs = values_.row(0).transpose();
      derivatives->setZero();
    } else if (i + 1 >= rows || interpolation_ == TableInterpolation::kHold) {
      *outputs = values_.row(i).transpose();
      derivatives->setZero();
    } else {
      const double span = times_[i + 1] - times_[i];
      const double w = (time_ - times_[i]) / span;
      *outputs = ((1.0 - w) * values_.row(i) + w * values_.row(i + 1)).transpose();
      *derivatives = ((values_.row(i + 1) - values_.row(i)) / span).transpose();
      for (size_t o = 0; o < held_.size(); ++o) {
        if (!held_[o]) continue;
        (*outputs)[static_cast<Eigen::Index>(o)] = values_(i, static_cast<Eigen::Index>(o));
        (*derivatives)[static_cast<Eigen::Index>(o)] = 0.0;
      }
    }
    recorded->resize(recorded_.size());
    for (size_t k = 0; k < recorded_.size(); ++k) (*recorded)[k] = (*outputs)[recorded_[k]];
  }

  std::string name_;
  std::vector<double> times_;
  Eigen::MatrixXd values_;  // rows x outputs
  TableInterpolation interpolation_;
  UnitDescription description_;
  std::vector<int> recorded_;
  std::vector<bool> held_;  // per output: held between samples (HoldOutputs)
  double time_ = 0.0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Unit>> CreateTableUnitFromText(const std::string& unit_name,
                                                              const std::string& source,
                                                              const std::string& csv_text,
                                                              TableInterpolation interpolation) {
  const std::string where = "unit '" + unit_name + "': table '" + source + "'";
  COSIMO_ASSIGN_OR_RETURN(NumericCsv csv, ParseNumericCsv(csv_text, where));
  std::vector<std::string>& header = csv.header;
  std::vector<double>& times = csv.times;
  Eigen::MatrixXd& values = csv.values;
  std::vector<std::string> columns(header.begin() + 1, header.end());
  return std::unique_ptr<Unit>(std::make_unique<TableUnit>(
      unit_name, std::move(columns), std::move(times), std::move(values), interpolation));
}

absl::StatusOr<std::unique_ptr<Unit>> CreateTableUnit(const v1::Unit& spec,
                                                      const std::string& csv_path) {
  ModelParameters parameters(spec, "table");
  TableInterpolation interpolation = spec.table().interpolation() == v1::TableModel::HOLD
                                         ? TableInterpolation::kHold
                                         : TableInterpolation::kLinear;
  if (parameters.Has("interpolation")) {
    COSIMO_ASSIGN_OR_RETURN(const std::string value, Parameters(spec).String("interpolation", ""));
    std::string lower = value;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "linear") {
      interpolation = TableInterpolation::kLinear;
    } else if (lower == "hold") {
      interpolation = TableInterpolation::kHold;
    } else {
      return parameters.Error("parameter 'interpolation' must be \"linear\" or \"hold\" (got \"" +
                              value + "\")");
    }
  }
  parameters.Known("interpolation");
  COSIMO_RETURN_IF_ERROR(parameters.CheckAllKnown());
  std::ifstream file(csv_path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError("unit '" + spec.name() + "': cannot open table '" + csv_path + "'");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return CreateTableUnitFromText(spec.name(), csv_path, text.str(), interpolation);
}

}  // namespace cosimo::units
