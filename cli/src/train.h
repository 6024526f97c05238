// `cosimo train`: fits a hybrid unit's networks to measured data, in this process (like the
// embedded `cosimo run`, no service needed), and writes the weights file (docs/hybrid.md).
// Progress (epoch, loss, time) goes to stderr. Not thread safe; one call at a time.
#pragma once

#include <atomic>
#include <string>

namespace cosimo::client {

struct TrainCommand {
  std::string scenario_path;
  std::string data_path;
  std::string unit;
  std::string out;  // empty: "<unit>.weights.json"
  int epochs = 100;
  double learning_rate = 1e-3;
  const std::atomic<bool>* cancel = nullptr;  // set: stop after the current epoch
};

// The exit code: 0 trained and written, 1 the simulation or the file failed, 2 bad input (the
// scenario, the data, the unit, the weights), 130 interrupted.
int RunTrain(const TrainCommand& command);

}  // namespace cosimo::client
