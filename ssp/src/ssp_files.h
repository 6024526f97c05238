// The files of an SSP and the XML helpers the import reads them with (private to
// ssp_import.cc): an archive's entries or the files beside a lone .ssd, SSP `source` URIs, and
// elements matched by local name whatever namespace prefix a tool chose.
//
// Thread safety: an SspSource is used by one thread at a time; the functions need none.
#pragma once

#include <zip.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "cosimo/fmi/archive_names.h"
#include "cosimo/fmi/zip_archive.h"
#include "cosimo/ssp/ssp_import.h"
#include "ssp/src/ssp_staging.h"

namespace cosimo::ssp {
namespace fs = std::filesystem;

// The files of an SSP: entries of its archive, or files beside an .ssd.
class SspSource {
 public:
  static absl::StatusOr<SspSource> Open(const std::string& path, const SspLimits& limits) {
    SspSource source;
    source.path_ = path;
    source.limits_ = limits;
    if (fs::path(path).extension() == ".ssd") {
      source.dir_ = fs::absolute(path).parent_path();
      return source;
    }
    int error = 0;
    source.archive_.reset(zip_open(path.c_str(), ZIP_RDONLY, &error));
    if (source.archive_ == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("SSP '", path, "': cannot open as a zip archive: ", ZipErrorText(error)));
    }
    return source;
  }

  bool archived() const { return archive_ != nullptr; }
  // "SystemStructure.ssd" of the archive, or the .ssd itself.
  std::string ssd_name() const {
    return archived() ? "SystemStructure.ssd" : fs::path(path_).filename().string();
  }

  // An XML document of the SSP, within limits.max_document_bytes.
  absl::StatusOr<std::string> Read(const std::string& name) const {
    const Limit limit{limits_.max_document_bytes, "an XML document", "--ssp-max-document-mb"};
    if (!archived()) {
      std::error_code ec;
      const uintmax_t size = fs::file_size(dir_ / name, ec);
      if (!ec && size > limit.bytes) return TooLarge(name, size, limit);
      std::ifstream in(dir_ / name, std::ios::binary);
      if (!in) {
        return absl::NotFoundError(absl::StrCat("cannot read '", (dir_ / name).string(), "'"));
      }
      std::stringstream s;
      s << in.rdbuf();
      return s.str();
    }
    std::string text;
    absl::Status s = Stream(name, {limit}, [&](const char* data, size_t n) {
      text.append(data, n);
      return true;
    });
    if (!s.ok()) return s;
    return text;
  }

  // The path a unit can load `name` from: the file beside the .ssd, or the archive's entry
  // extracted through `staging` (the path it has once committed). The name is checked before
  // anything is written (IsSafeEntryName: no absolute path, no "..").
  absl::StatusOr<std::string> Materialize(const std::string& name, Staging* staging) {
    if (!archived()) {
      const fs::path p = (dir_ / name).lexically_normal();
      if (!fs::is_regular_file(p)) {
        return absl::NotFoundError(absl::StrCat("'", p.string(), "' does not exist"));
      }
      return p.string();
    }
    if (absl::Status s = CheckEntry(name); !s.ok()) return s;
    bool fresh = false;
    absl::StatusOr<fs::path> file = staging->FileFor(name, &fresh);
    if (!file.ok()) return file.status();
    if (fresh) {
      std::ofstream out(*file, std::ios::binary | std::ios::trunc);
      if (!out) return absl::InternalError(absl::StrCat("cannot write '", file->string(), "'"));
      const Limit each{limits_.max_file_bytes, "one extracted file", "--ssp-max-file-mb"};
      const Limit total{limits_.max_total_bytes,
                        absl::StrCat("the files extracted together (", extracted_, " before it)"),
                        "--ssp-max-total-mb", extracted_};
      absl::Status s = Stream(name, {each, total}, [&](const char* data, size_t n) {
        out.write(data, static_cast<std::streamsize>(n));
        extracted_ += n;
        return static_cast<bool>(out);
      });
      if (!s.ok()) return s;
      out.close();
      if (!out) return absl::InternalError(absl::StrCat("cannot write '", file->string(), "'"));
    }
    return staging->FinalPath(name).string();
  }

 private:
  // A name inside the archive (IsSafeEntryName) that the archive has.
  absl::Status CheckEntry(const std::string& name) const {
    if (!IsSafeEntryName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", name, "' is not a relative path inside the archive"));
    }
    if (zip_name_locate(archive_.get(), name.c_str(), 0) < 0) {
      return absl::NotFoundError(absl::StrCat("the archive has no entry '", name, "'"));
    }
    return absl::OkStatus();
  }

  // A bound on what a member unpacks to, and how the error names it.
  struct Limit {
    uint64_t bytes;
    std::string what;   // "one extracted file"
    const char* flag;   // "--ssp-max-file-mb"
    uint64_t used = 0;  // what counts against it already
  };
  static absl::Status TooLarge(const std::string& name, uint64_t size, const Limit& limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "' unpacks to ", size, " bytes or more, over the limit for ",
                     limit.what, " of ", limit.bytes, " bytes (", limit.flag, ")"));
  }

  // The entry's bytes to `sink`, refused when its declared size or the bytes inflated pass a
  // limit.
  template <typename Sink>
  absl::Status Stream(const std::string& name, std::initializer_list<Limit> limits,
                      Sink sink) const {
    if (absl::Status s = CheckEntry(name); !s.ok()) return s;
    zip_stat_t stat;
    if (zip_stat(archive_.get(), name.c_str(), 0, &stat) == 0 && (stat.valid & ZIP_STAT_SIZE)) {
      for (const Limit& limit : limits) {
        if (limit.used + stat.size > limit.bytes) return TooLarge(name, stat.size, limit);
      }
    }
    ZipEntry file(zip_fopen(archive_.get(), name.c_str(), 0));
    if (file == nullptr) {
      return absl::NotFoundError(absl::StrCat("the archive has no entry '", name, "'"));
    }
    char buffer[1 << 16];
    uint64_t inflated = 0;
    while (true) {
      const zip_int64_t n = zip_fread(file.get(), buffer, sizeof(buffer));
      if (n < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("corrupt entry '", name, "': ", zip_file_strerror(file.get())));
      }
      if (n == 0) return absl::OkStatus();
      inflated += static_cast<uint64_t>(n);
      for (const Limit& limit : limits) {  // the declared size may lie
        if (limit.used + inflated > limit.bytes) return TooLarge(name, inflated, limit);
      }
      if (!sink(buffer, static_cast<size_t>(n))) {
        return absl::InternalError(absl::StrCat("cannot write the contents of '", name, "'"));
      }
    }
  }

  std::string path_;
  fs::path dir_;
  ZipArchive archive_;
  SspLimits limits_;
  uint64_t extracted_ = 0;  // bytes written by Materialize
};

// An SSP `source` is a URI reference relative to the SSD: percent-decoded and normalised
// ("./resources/my%20model.fmu" is "resources/my model.fmu"). Absolute URIs are refused.
[[nodiscard]] absl::StatusOr<std::string> SourcePath(const std::string& uri);

// SSP documents qualify their elements with namespace prefixes (ssd:, ssv:, ssc:), whatever
// prefix a tool chose: elements are matched by their local name.
const char* LocalName(const pugi::xml_node& node);

// The first child element of `node` with local name `local` (a null node if none), and all of
// them.
pugi::xml_node Child(const pugi::xml_node& node, const char* local);
std::vector<pugi::xml_node> Children(const pugi::xml_node& node, const char* local);

// One parsed XML file, with "file line N" for errors.
struct XmlFile {
  std::string name;
  std::string text;
  pugi::xml_document doc;

  std::string Where(const pugi::xml_node& node) const { return At(node.offset_debug()); }

  // "name line N" for a byte offset into `text` (< 0: its start).
  std::string At(ptrdiff_t offset) const {
    const size_t end = std::min(static_cast<size_t>(std::max<ptrdiff_t>(0, offset)), text.size());
    return absl::StrCat(name, " line ", 1 + std::count(text.begin(), text.begin() + end, '\n'));
  }
};

// Parses `file->text` into `file->doc`; an error names the file and line.
[[nodiscard]] absl::Status ParseXml(XmlFile* file);

// A number attribute; nullopt when absent or not a finite number.
std::optional<double> NumberAttribute(const pugi::xml_node& node, const char* name);

// The first element with local name `local` at or below `node` (depth first).
pugi::xml_node Find(const pugi::xml_node& node, const char* local);

// The ssd:Annotation of `owner` (in its ssd:Annotations) with the given type.
pugi::xml_node Annotation(const pugi::xml_node& owner, const std::string& type);

}  // namespace cosimo::ssp
