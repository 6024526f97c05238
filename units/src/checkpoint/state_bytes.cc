#include "units/src/checkpoint/state_bytes.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace cosimo::units {

void StateWriter::U64(uint64_t value) {
  char raw[sizeof(value)];
  std::memcpy(raw, &value, sizeof(value));
  bytes_.append(raw, sizeof(raw));
}

void StateWriter::Double(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  U64(bits);
}

void StateWriter::Bytes(std::string_view bytes) {
  U64(bytes.size());
  bytes_.append(bytes);
}

void StateWriter::Vector(const Eigen::VectorXd& values) {
  U64(static_cast<uint64_t>(values.size()));
  for (Eigen::Index i = 0; i < values.size(); ++i) Double(values[i]);
}

void StateWriter::Matrix(const Eigen::MatrixXd& values) {
  U64(static_cast<uint64_t>(values.rows()));
  const Eigen::Map<const Eigen::VectorXd> flat(values.data(), values.size());
  Vector(flat);
}

void StateWriter::Doubles(const std::vector<double>& values) {
  U64(values.size());
  for (double v : values) Double(v);
}

void StateWriter::Strings(const std::vector<std::string>& values) {
  U64(values.size());
  for (const std::string& s : values) Bytes(s);
}

bool StateReader::Take(size_t n, const char** out) {
  if (!ok()) return false;
  if (bytes_.size() - position_ < n) {
    error_ = absl::StrCat("the bytes end at ", bytes_.size(), " while ", n,
                          " more were expected at ", position_);
    return false;
  }
  *out = bytes_.data() + position_;
  position_ += n;
  return true;
}

void StateReader::ExpectTag(std::string_view tag) {
  const std::string found = Bytes();
  if (ok() && found != tag) {
    error_ =
        absl::StrCat("the bytes were written by '", found, "', not by '", std::string(tag), "'");
  }
}

uint64_t StateReader::U64() {
  const char* raw = nullptr;
  uint64_t value = 0;
  if (Take(sizeof(value), &raw)) std::memcpy(&value, raw, sizeof(value));
  return value;
}

double StateReader::Double() {
  const uint64_t bits = U64();
  double value = 0.0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

std::string StateReader::Bytes() {
  const uint64_t n = U64();
  const char* raw = nullptr;
  if (!Take(n, &raw)) return {};
  return std::string(raw, n);
}

Eigen::VectorXd StateReader::Vector() {
  const uint64_t n = U64();
  // Each double takes 8 bytes: a count larger than the rest is corrupt, not an allocation.
  if (!ok() || n > (bytes_.size() - position_) / 8) {
    if (ok()) error_ = absl::StrCat("a vector of ", n, " values does not fit the bytes left");
    return {};
  }
  Eigen::VectorXd values(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < values.size(); ++i) values[i] = Double();
  return values;
}

Eigen::MatrixXd StateReader::Matrix() {
  const uint64_t rows = U64();
  const Eigen::VectorXd flat = Vector();
  if (!ok()) return {};
  if (rows == 0 ? flat.size() != 0 : flat.size() % static_cast<Eigen::Index>(rows) != 0) {
    error_ = absl::StrCat("a matrix of ", rows, " rows has ", flat.size(), " values");
    return {};
  }
  const Eigen::Index cols = rows == 0 ? 0 : flat.size() / static_cast<Eigen::Index>(rows);
  return Eigen::Map<const Eigen::MatrixXd>(flat.data(), static_cast<Eigen::Index>(rows), cols);
}

std::vector<double> StateReader::Doubles() {
  const Eigen::VectorXd values = Vector();
  return std::vector<double>(values.data(), values.data() + values.size());
}

std::vector<std::string> StateReader::Strings() {
  const uint64_t n = U64();
  if (!ok() || n > (bytes_.size() - position_) / 8) {
    if (ok()) error_ = absl::StrCat("a list of ", n, " strings does not fit the bytes left");
    return {};
  }
  std::vector<std::string> values(n);
  for (std::string& s : values) s = Bytes();
  return values;
}

std::string_view StateReader::Rest() {
  if (!ok()) return {};
  std::string_view rest = bytes_.substr(position_);
  position_ = bytes_.size();
  return rest;
}

absl::Status StateReader::Finish(std::string_view what, bool all) const {
  if (!ok()) return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": ", error_));
  if (all && position_ != bytes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(what), ": ", bytes_.size() - position_, " bytes left over after the state"));
  }
  return absl::OkStatus();
}

}  // namespace cosimo::units
