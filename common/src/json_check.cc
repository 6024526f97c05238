#include "cosimo/common/json_check.h"

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_cat.h"

namespace cosimo {
namespace {

// "line L, column C" of byte `offset` (both counted from 1).
std::string Position(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return absl::StrCat("line ", line, ", column ", offset - line_start + 1);
}

// The offset of the first bracket nested deeper than `max_depth` outside strings, or npos. Linear
// and without recursion, so it is safe on any input.
size_t TooDeep(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// Accepts every value; records the first error with its offset. No document is built.
class Checker final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e) override {
    offset = position > 0 ? position - 1 : 0;
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0) {
      const size_t close = what.find("] ");
      if (close != std::string::npos) what = what.substr(close + 2);
    }
    // Syntax errors already say "parse error at line L, column C"; others (a number overflow)
    // do not.
    message = what.find("line ") == std::string::npos
                  ? absl::StrCat(what, " (near '", last_token.substr(0, 40), "')")
                  : what;
    failed = true;
    return false;
  }

  bool failed = false;
  size_t offset = 0;
  std::string message;
};

}  // namespace

absl::Status CheckJson(std::string_view json, absl::string_view what, const JsonLimits& limits) {
  if (json.size() > limits.max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is ", json.size(), " bytes of JSON, more than the limit of ", limits.max_bytes));
  }
  if (const size_t at = TooDeep(json, limits.max_depth); at != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(what, " nests objects and lists deeper than ",
                                                   limits.max_depth, " levels at ",
                                                   Position(json, at)));
  }
  Checker checker;
  try {
    (void)nlohmann::json::sax_parse(json.begin(), json.end(), &checker);
  } catch (const std::exception& e) {  // not expected with a SAX handler; never let it escape
    return absl::InvalidArgumentError(absl::StrCat(what, " is not valid JSON: ", e.what()));
  }
  if (checker.failed) {
    const bool positioned = checker.message.find("line ") != std::string::npos;
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is not valid JSON: ", checker.message,
                     positioned ? "" : absl::StrCat(" at ", Position(json, checker.offset))));
  }
  return absl::OkStatus();
}

}  // namespace cosimo
