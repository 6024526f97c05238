#include "ssp/src/ssp_staging.h"

#include <stdlib.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace cosimo::ssp {
namespace fs = std::filesystem;

Staging::Staging(fs::path destination)
    : destination_(fs::absolute(std::move(destination)).lexically_normal()) {}

Staging::~Staging() {
  std::error_code ec;
  if (!temporary_.empty()) fs::remove_all(temporary_, ec);
  // The parents made for the destination, where they stayed empty (nothing committed).
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) fs::remove(*it, ec);
}

absl::Status Staging::CreateTemporary() {
  // The destination's missing parents, made one by one so that the destructor can remove them.
  std::vector<fs::path> missing;
  for (fs::path p = destination_.parent_path(); !p.empty() && !fs::exists(fs::symlink_status(p));
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.root_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    std::error_code ec;
    if (!fs::create_directory(*it, ec) || ec) {
      return absl::InternalError(
          absl::StrCat("cannot create '", it->string(), "': ", ec ? ec.message() : "it exists"));
    }
    created_.push_back(*it);
  }
  std::string pattern =
      (destination_.parent_path() / ("." + destination_.filename().string() + ".partial-XXXXXX"))
          .string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a temporary folder beside '", destination_.string(), "'"));
  }
  temporary_ = pattern;
  return absl::OkStatus();
}

absl::StatusOr<fs::path> Staging::FileFor(const std::string& name, bool* fresh) {
  if (auto it = files_.find(name); it != files_.end()) {
    *fresh = false;
    return it->second;
  }
  if (temporary_.empty()) {
    if (absl::Status s = CreateTemporary(); !s.ok()) return s;
  }
  const fs::path file = temporary_ / name;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create the folder of '", name, "': ", ec.message()));
  }
  files_[name] = file;
  *fresh = true;
  return file;
}

fs::path Staging::FinalPath(const std::string& name) const { return destination_ / name; }

absl::Status Staging::Commit() {
  if (files_.empty()) return absl::OkStatus();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(destination_))) {
    fs::rename(temporary_, destination_, ec);
    if (ec) {
      return absl::InternalError(absl::StrCat("cannot move the extracted files to '",
                                              destination_.string(), "': ", ec.message()));
    }
    temporary_.clear();
    return absl::OkStatus();
  }
  for (const auto& [name, staged] : files_) {
    const fs::path target = FinalPath(name);
    // The folders the entry's name adds below the destination: none may be a link out of it.
    for (fs::path p = target.parent_path(); p != destination_ && p.has_relative_path();
         p = p.parent_path()) {
      if (fs::is_symlink(p)) {
        return absl::InvalidArgumentError(absl::StrCat("'", p.string(), "' is a symbolic link: '",
                                                       name, "' is not extracted through it"));
      }
    }
    fs::create_directories(target.parent_path(), ec);
    if (!ec) fs::rename(staged, target, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot move '", name, "' to '", target.string(), "': ", ec.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace cosimo::ssp
