#include "orchestrator/src/tokens_file.h"

#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cosimo::orchestrator {
namespace {

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<ClientToken>> ParseTokens(const std::string& text,
                                                     const std::string& path) {
  std::vector<ClientToken> clients;
  std::set<std::string> names, tokens;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    const std::string where = absl::StrCat("--tokens-file ", path, ":", number);
    std::vector<std::string> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (words.empty() || words[0][0] == '#') continue;
    if (words.size() < 2 || words.size() > 3 || (words.size() == 3 && words[2] != "admin")) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected 'NAME TOKEN' or 'NAME TOKEN admin' (", words.size(),
                       " words; a token holds no spaces)"));
    }
    ClientToken client{words[0], words[1], words.size() == 3};
    if (!ValidName(client.name)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": the name '",
                                                     client.name.substr(0, 64),
                                                     "' is not 1 to 64 of A-Z a-z 0-9 _ . @ -"));
    }
    if (client.token.size() < kMinTokenChars) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": the token of '", client.name,
                                                     "' has ", client.token.size(),
                                                     " characters; at least ", kMinTokenChars));
    }
    if (!names.insert(client.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the name '", client.name, "' is given twice"));
    }
    if (!tokens.insert(client.token).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": the token of '", client.name, "' is another client's too: give each its own"));
    }
    clients.push_back(std::move(client));
  }
  if (clients.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tokens-file ", path, " names no client (lines 'NAME TOKEN [admin]')"));
  }
  return clients;
}

absl::StatusOr<std::vector<ClientToken>> ReadTokensFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::InvalidArgumentError(absl::StrCat("--tokens-file: cannot read '", path, "'"));
  std::stringstream s;
  s << in.rdbuf();
  return ParseTokens(s.str(), path);
}

}  // namespace cosimo::orchestrator
