// StateWriter and StateReader: the byte format of a unit's checkpoint (issue 18). A unit writes
// the values of its snapshot in a fixed order and reads them back in the same order; doubles are
// written as their 8 bytes (little-endian, as this worker's machine holds them), so a state read
// back is the state written bit for bit. Every record starts with a tag naming what wrote it, so
// bytes of another kind of unit (or of another version of the same one) are refused, not
// misread.
//
// Plain values, not thread safe. A reader that runs out of bytes or meets the wrong tag stays
// failed; Finish() says why, naming what was being read.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace cosimo::units {

class StateWriter {
 public:
  void Tag(std::string_view tag) { Bytes(tag); }
  void U64(uint64_t value);
  void Double(double value);
  void Bool(bool value) { U64(value ? 1 : 0); }
  void Bytes(std::string_view bytes);
  void Vector(const Eigen::VectorXd& values);
  void Matrix(const Eigen::MatrixXd& values);
  void Doubles(const std::vector<double>& values);
  void Strings(const std::vector<std::string>& values);

  std::string Take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view bytes) : bytes_(bytes) {}

  // Reads a tag and fails the reader unless it is `tag`.
  void ExpectTag(std::string_view tag);
  uint64_t U64();
  double Double();
  bool Bool() { return U64() != 0; }
  std::string Bytes();
  Eigen::VectorXd Vector();
  Eigen::MatrixXd Matrix();
  std::vector<double> Doubles();
  std::vector<std::string> Strings();
  // The rest of the bytes, unread (a nested record another reader takes).
  std::string_view Rest();

  bool ok() const { return error_.empty(); }
  // OK when every read succeeded and (with `all`) every byte was read; else an error beginning
  // with `what` (e.g. "unit 'plant': checkpoint").
  [[nodiscard]] absl::Status Finish(std::string_view what, bool all = true) const;

 private:
  bool Take(size_t n, const char** out);

  std::string_view bytes_;
  size_t position_ = 0;
  std::string error_;
};

}  // namespace cosimo::units
