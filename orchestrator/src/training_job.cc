#include "orchestrator/src/training_job.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/unit_api_proto.h"

namespace cosimo::orchestrator {

absl::StatusOr<int> TrainedUnit(const v1::Scenario& scenario, const v1::TrainingRequest& request) {
  std::string names;
  for (int i = 0; i < scenario.units_size(); ++i) {
    const v1::Unit& unit = scenario.units(i);
    if (unit.name() == request.unit()) {
      if (unit.has_hybrid()) return i;
      return absl::InvalidArgumentError(
          absl::StrCat("training.unit: unit '", unit.name(), "' (units[", i,
                       "]) is not a hybrid unit; only a hybrid unit's networks can be trained"));
    }
    names += (names.empty() ? "" : ", ") + unit.name();
  }
  return absl::InvalidArgumentError("training.unit: the scenario has no unit '" + request.unit() +
                                    "' (units: " + names + ")");
}

absl::Status CheckTrainingRequest(const v1::Scenario& scenario, const v1::TrainingRequest& request,
                                  const std::string& data_path) {
  absl::StatusOr<int> index = TrainedUnit(scenario, request);
  if (!index.ok()) return index.status();
  if (request.epochs() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("training.epochs must be >= 0 (got ", request.epochs(), ")"));
  }
  if (!(request.learning_rate() > 0.0) || !std::isfinite(request.learning_rate())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "training.learning_rate must be a positive number (got ", request.learning_rate(), ")"));
  }
  const std::string name = request.data_name().empty() ? "the data" : request.data_name();
  absl::StatusOr<ResultTable> data = ReadCsvFile(data_path);
  if (!data.ok())
    return absl::InvalidArgumentError(name + ": " + std::string(data.status().message()));
  std::string columns;
  for (const std::string& c : data->columns) columns += (columns.empty() ? "" : ", ") + c;
  const std::string& unit = request.unit();
  std::vector<size_t> compared = {0};  // time, then the compared columns
  auto column_of = [&](const std::string& column) {
    for (size_t j = 1; j < data->columns.size(); ++j) {
      if (data->columns[j] == column) return static_cast<int>(j);
    }
    return -1;
  };
  const std::vector<std::string> recorded = RecordedNames(scenario, *index);
  for (const std::string& variable : recorded) {
    const int j = column_of(unit + "." + variable);
    if (j < 0) {
      return absl::InvalidArgumentError(name + ": no column '" + unit + "." + variable +
                                        "' (recorded variable of unit '" + unit +
                                        "'; columns: " + columns + ")");
    }
    compared.push_back(static_cast<size_t>(j));
  }
  if (recorded.empty()) {
    for (size_t j = 1; j < data->columns.size(); ++j) {
      if (data->columns[j].rfind(unit + ".", 0) == 0) compared.push_back(j);
    }
    if (compared.size() == 1) {
      return absl::InvalidArgumentError(name + ": no column '" + unit +
                                        ".<output>' for an output of unit '" + unit +
                                        "' (columns: " + columns + ")");
    }
  }
  const size_t width = data->columns.size();
  for (size_t j : compared) {
    for (size_t row = 0; row < data->rows(); ++row) {
      const double value = data->values[row * width + j];
      if (data->type(j) != ValueType::kReal || !std::isfinite(value)) {
        return absl::InvalidArgumentError(absl::StrCat(
            name, ": row ", row + 1, " of column '", data->columns[j], "' is not a finite number"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::TrainingDone> TrainOnWorker(
    WorkerConnection& worker, const v1::Train& train, const ReplyWaitOptions& wait,
    const std::function<void(const v1::TrainingProgress&)>& on_progress) {
  constexpr uint64_t kSeq = 1;
  v1::OrchestratorMessage command;
  command.set_seq(kSeq);
  *command.mutable_train() = train;
  if (!worker.Write(command)) {
    return absl::UnavailableError(worker.Describe() + " is gone: " + worker.lost_reason());
  }
  v1::WorkerMessage reply;
  while (true) {
    if (absl::Status s = worker.WaitReply(kSeq, &reply, wait); !s.ok()) return s;
    switch (reply.body_case()) {
      case v1::WorkerMessage::kTrainingProgress:
        on_progress(reply.training_progress());
        worker.ResumeReads();  // the next message is read at once, not behind a command
        continue;
      case v1::WorkerMessage::kTrainingDone:
        return std::move(*reply.mutable_training_done());
      case v1::WorkerMessage::kAck:
        if (reply.ack().has_error()) {
          return absl::FailedPreconditionError(
              worker.Describe() + " cannot train (an older cosimo-worker?): " +
              std::string(FromProto(reply.ack().error()).message()));
        }
        break;
      default:
        break;
    }
    return absl::InternalError(worker.Describe() +
                               ": expected TrainingProgress or TrainingDone from the worker");
  }
}

}  // namespace cosimo::orchestrator
