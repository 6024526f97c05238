// Crafted SSP archives (issue 41): component sources that name a file outside the extraction
// folder (an absolute path, a climb with ".."), refused before anything is written, by the
// library and by `cosimo import`, `run` and `submit`; systems nested 10,000 deep; members
// larger than the limits, declared so or lying about it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cosimo/ssp/ssp_import.h"
#include "tests/integration/process.h"

namespace cosimo {
namespace {

namespace fs = std::filesystem;
using testing::BinDir;
using ::testing::HasSubstr;
using testing::Process;
using testing::ReadFile;
using testing::WriteFile;

constexpr const char* kPrecious = "a user's file: it must keep this content\n";

// A system of the given components.
std::string System(const std::string& components) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="attack"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="root">
    <ssd:Elements>
)" + components +
         R"(
    </ssd:Elements>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
)";
}

// A system of one good component (extracted first) and one whose source is `source`.
std::string TwoComponents(const std::string& source) {
  return System(R"(      <ssd:Component name="good" source="resources/msd.fmu"/>
      <ssd:Component name="evil" source=")" +
                source + R"("/>)");
}

// Sets the uncompressed size that the zip archive at `path` declares for entry `name`, in its
// local header and its central directory entry (a lie when it is smaller than the contents).
void DeclareSize(const std::string& path, const std::string& name, uint32_t size) {
  std::string zip = ReadFile(path);
  auto put = [&](size_t at) {
    for (int i = 0; i < 4; ++i) zip[at + i] = static_cast<char>((size >> (8 * i)) & 0xff);
  };
  auto u16 = [&](size_t at) {
    return static_cast<size_t>(static_cast<unsigned char>(zip[at])) |
           static_cast<size_t>(static_cast<unsigned char>(zip[at + 1])) << 8;
  };
  int patched = 0;
  for (size_t at = 0; (at = zip.find("PK", at)) != std::string::npos; ++at) {
    if (zip.compare(at, 4, "PK\x03\x04") == 0 && zip.compare(at + 30, name.size(), name) == 0 &&
        u16(at + 26) == name.size()) {
      put(at + 22);
      ++patched;
    } else if (zip.compare(at, 4, "PK\x01\x02") == 0 &&
               zip.compare(at + 46, name.size(), name) == 0 && u16(at + 28) == name.size()) {
      put(at + 24);
      ++patched;
    }
  }
  ASSERT_EQ(patched, 2) << name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << zip;
}

class SspAttackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir("cosimo-ssp-attack");
    victim_ = dir_ + "/victim.txt";
    WriteFile(victim_, kPrecious);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An .ssp of `ssd`, resources/msd.fmu (a test FMU) and resources/zeros.fmu (`zeros` zero
  // bytes, deflated to a few hundred).
  std::string Pack(const std::string& ssd, size_t zeros = 0) {
    const std::string system = dir_ + "/system";
    fs::remove_all(system);
    fs::create_directories(system + "/resources");
    fs::copy_file(std::string(COSIMO_BINARY_DIR) + "/fmus/fmi2_msd.fmu",
                  system + "/resources/msd.fmu");
    std::ofstream(system + "/resources/zeros.fmu", std::ios::binary) << std::string(zeros, '\0');
    WriteFile(system + "/SystemStructure.ssd", ssd);
    const std::string ssp = dir_ + "/attack.ssp";
    fs::remove(ssp);
    const std::string command = "cd " + system + " && zip -q -r " + ssp +
                                " SystemStructure.ssd resources > " + dir_ + "/zip.log 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << ReadFile(dir_ + "/zip.log");
    return ssp;
  }

  // The files and folders in dir_ now, but for the test's own.
  std::vector<std::string> Made() const {
    std::vector<std::string> made;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name != "victim.txt" && name != "system" && name != "attack.ssp" && name != "zip.log" &&
          name.find(".log") == std::string::npos) {
        made.push_back(name);
      }
    }
    return made;
  }

  std::string dir_;
  std::string victim_;
};

// The attack of issue 41 item 1: the source names the user's file, absolutely or by climbing
// out of the resources folder (dir_/deep/out/../../victim.txt is dir_/victim.txt).
TEST_F(SspAttackTest, SourceOutsideTheFolderIsRefusedBeforeAnythingIsWritten) {
  for (const std::string& source : {victim_, std::string("../../victim.txt")}) {
    SCOPED_TRACE(source);
    ssp::SspImportOptions options;
    options.resources_dir = dir_ + "/deep/out";
    absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Pack(TwoComponents(source)), options);
    ASSERT_FALSE(imported.ok());
    EXPECT_THAT(std::string(imported.status().message()),
                HasSubstr("component 'evil', source '" + source + "': '" + source +
                          "' is not a relative path inside the archive"));
    EXPECT_EQ(ReadFile(victim_), kPrecious);
    EXPECT_THAT(Made(), ::testing::IsEmpty());  // not deep/, not out/, no temporary folder
  }

  // The same system without the bad component is extracted whole, nothing left beside it.
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/deep/out";
  std::string good = TwoComponents("");
  good.erase(good.find(R"(      <ssd:Component name="evil")"),
             std::string(R"(      <ssd:Component name="evil" source=""/>)").size() + 1);
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Pack(good), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.units(0).fmu().path(), dir_ + "/deep/out/resources/msd.fmu");
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/deep/out/resources/msd.fmu"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/deep"), fs::directory_iterator()), 1);
}

// A link in the destination (left there by someone else) is not followed out of it.
TEST_F(SspAttackTest, LinkInTheDestinationIsNotFollowed) {
  fs::create_directories(dir_ + "/out");
  fs::create_directories(dir_ + "/elsewhere");
  fs::create_directory_symlink(dir_ + "/elsewhere", dir_ + "/out/resources");
  std::string good = TwoComponents("resources/msd.fmu");
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Pack(good), options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()), HasSubstr("is a symbolic link"));
  EXPECT_TRUE(fs::is_empty(dir_ + "/elsewhere"));
}

// The verbs that import an SSP: `import`, `run` and `submit` (the Python package's submit runs
// `cosimo import`) exit 2 naming the entry, and the user's file keeps its content.
TEST_F(SspAttackTest, EveryVerbRefusesTheArchiveAndLeavesTheFileAlone) {
  for (const std::string& source : {victim_, std::string("../../victim.txt")}) {
    const std::string ssp = Pack(TwoComponents(source));
    const std::vector<std::vector<std::string>> verbs = {
        {"import", ssp, "--out", dir_ + "/deep/scenario.json"},
        {"run", ssp, "--out", dir_ + "/deep/results.csv"},
        {"submit", ssp, "--orchestrator", "127.0.0.1:1"},
    };
    for (const std::vector<std::string>& verb : verbs) {
      SCOPED_TRACE(verb[0] + " " + source);
      std::vector<std::string> argv = {BinDir() + "/cosimo"};
      argv.insert(argv.end(), verb.begin(), verb.end());
      Process p(argv, dir_ + "/" + verb[0] + ".log");
      EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 2) << p.log();
      EXPECT_THAT(p.log(), HasSubstr("component 'evil', source '" + source + "'"));
      EXPECT_THAT(p.log(), HasSubstr("is not a relative path inside the archive"));
      EXPECT_EQ(ReadFile(victim_), kPrecious);
      EXPECT_THAT(Made(), ::testing::IsEmpty());
    }
  }
}

// Issue 41 item 4: 10,000 nested systems crashed the import (stack overflow); they are refused
// naming the first system too deep, by the library and by `cosimo import`.
TEST_F(SspAttackTest, TenThousandNestedSystemsAreRefusedNamingTheDepth) {
  std::string ssd = R"(<ssd:SystemStructureDescription version="1.0" name="deep"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="root"><ssd:Elements>)";
  std::string path;
  for (int i = 1; i <= 10000; ++i) {
    ssd += "<ssd:System name=\"s\"><ssd:Elements>";
    if (i <= ssp::kMaxSystemDepth + 1) path += path.empty() ? "s" : ".s";
  }
  ssd += R"(<ssd:Component name="c" source="resources/msd.fmu"/>)";
  for (int i = 1; i <= 10000; ++i) ssd += "</ssd:Elements></ssd:System>";
  ssd += R"(</ssd:Elements></ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
)";
  const std::string ssp = Pack(ssd);
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(ssp, options);
  ASSERT_FALSE(imported.ok());
  const std::string expected = "system '" + path + "' is nested 101 levels deep; the limit is 100";
  EXPECT_THAT(std::string(imported.status().message()), HasSubstr(expected));
  Process import({BinDir() + "/cosimo", "import", ssp, "--out", dir_ + "/deep.json"},
                 dir_ + "/import.log");
  EXPECT_EQ(import.Wait(std::chrono::seconds(60)), 2) << import.log();
  EXPECT_THAT(import.log(), HasSubstr(expected));

  // An annotation nested 200,000 deep, searched for the step (no recursion either).
  std::string annotated = TwoComponents("resources/msd.fmu");
  annotated.erase(
      annotated.find(R"(      <ssd:Component name="evil")"),
      std::string(R"(      <ssd:Component name="evil" source="resources/msd.fmu"/>)").size() + 1);
  std::string annotation = R"(<ssd:DefaultExperiment startTime="0" stopTime="1"><ssd:Annotations>
    <ssd:Annotation type="com.opensimulationplatform">)";
  for (int i = 0; i < 200000; ++i) annotation += "<a>";
  for (int i = 0; i < 200000; ++i) annotation += "</a>";
  annotation += "</ssd:Annotation></ssd:Annotations></ssd:DefaultExperiment>";
  const std::string experiment = R"(<ssd:DefaultExperiment startTime="0" stopTime="1"/>)";
  annotated.replace(annotated.find(experiment), experiment.size(), annotation);
  imported = ssp::ImportSsp(Pack(annotated), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_DOUBLE_EQ(imported->scenario.algorithm().step_size(), 0.001);
}

// Issue 41 item 5: members are refused past the limits (set small here), named with the limit,
// whether the archive declares their size or lies about it; nothing is left behind.
TEST_F(SspAttackTest, MembersOverTheSizeLimitsAreRefusedNamingTheLimit) {
  const std::string good = System(R"(<ssd:Component name="good" source="resources/msd.fmu"/>)");
  const size_t fmu_size = fs::file_size(std::string(COSIMO_BINARY_DIR) + "/fmus/fmi2_msd.fmu");
  ssp::SspImportOptions options;
  options.resources_dir = dir_ + "/out";
  options.limits.max_file_bytes = 1000;
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(Pack(good), options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()),
              HasSubstr("'resources/msd.fmu' unpacks to " + std::to_string(fmu_size) +
                        " bytes or more, over the limit for one extracted file of 1000 bytes "
                        "(--ssp-max-file-mb)"));
  EXPECT_THAT(Made(), ::testing::IsEmpty());

  options.limits = ssp::SspLimits();
  options.limits.max_total_bytes = fmu_size + 10;  // two FMUs: the second one passes it
  imported = ssp::ImportSsp(Pack(System(R"(<ssd:Component name="a" source="resources/msd.fmu"/>
                     <ssd:Component name="b" source="resources/zeros.fmu"/>)"),
                                 100),
                            options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()),
              HasSubstr("'resources/zeros.fmu' unpacks to 100 bytes or more, over the limit for "
                        "the files extracted together (" +
                        std::to_string(fmu_size) + " before it) of " +
                        std::to_string(fmu_size + 10) + " bytes (--ssp-max-total-mb)"));

  options.limits = ssp::SspLimits();
  options.limits.max_document_bytes = 100;
  imported = ssp::ImportSsp(Pack(good), options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()),
              HasSubstr("'SystemStructure.ssd' unpacks to " + std::to_string(good.size()) +
                        " bytes or more, over the limit for an XML document of 100 bytes "
                        "(--ssp-max-document-mb)"));

  // A 1 MiB member that declares 100 bytes: stopped by the bytes inflated.
  options.limits = ssp::SspLimits();
  options.limits.max_file_bytes = 10000;
  const std::string lying =
      Pack(System(R"(<ssd:Component name="z" source="resources/zeros.fmu"/>)"), 1 << 20);
  DeclareSize(lying, "resources/zeros.fmu", 100);
  imported = ssp::ImportSsp(lying, options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(std::string(imported.status().message()),
              HasSubstr("'resources/zeros.fmu' unpacks to 65536 bytes or more, over the limit "
                        "for one extracted file of 10000 bytes"));
  EXPECT_THAT(Made(), ::testing::IsEmpty());

  // `cosimo import` with the flag: 2 MiB over a limit of 1 MiB.
  const std::string big =
      Pack(System(R"(<ssd:Component name="z" source="resources/zeros.fmu"/>)"), 2 << 20);
  Process import(
      {BinDir() + "/cosimo", "import", big, "--out", dir_ + "/big.json", "--ssp-max-file-mb", "1"},
      dir_ + "/import.log");
  EXPECT_EQ(import.Wait(std::chrono::seconds(60)), 2) << import.log();
  EXPECT_THAT(import.log(), HasSubstr("'resources/zeros.fmu' unpacks to 2097152 bytes or more, "
                                      "over the limit for one extracted file of 1048576 bytes "
                                      "(--ssp-max-file-mb)"));
  EXPECT_THAT(Made(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace cosimo
