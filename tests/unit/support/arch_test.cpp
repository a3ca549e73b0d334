/// Tests of the architecture description: the generic schema reader (ArchDescription) with
/// every error class it reports, `--set` overrides, the resolved-file round trip, and the
/// shipped models/hw/spyre.yaml read as SpyreArch.
#include "support/arch_schema.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/spyre_arch.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

namespace chipless {
namespace {

namespace fs = std::filesystem;

/// The shipped Spyre description in the source tree.
std::string spyreFile() {
  return std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/spyre.yaml";
}

/// A small schema exercising every type, choices and a nested section.
const std::vector<ParamDecl>& smallSchema() {
  static const std::vector<ParamDecl> s = {
      {"a.i", ParamType::Int, 1, 10, {}, "things", "an int"},
      {"a.f", ParamType::Float, 0, 1, {}, "fraction", "a float"},
      {"b.flag", ParamType::Bool, 0, 0, {}, "", "a bool"},
      {"b.mode", ParamType::String, 0, 0, {"x", "y"}, "", "a choice"},
      {"b.name", ParamType::String, 0, 0, {}, "", "free text"},
      {"c.d.deep", ParamType::Int, 0, 100, {}, "cycles", "a nested int"},
  };
  return s;
}

/// A valid file for smallSchema(); tests replace lines in it to make it invalid.
const char* kSmallYaml = "a:\n"
                         "  i: 3\n"
                         "  f: 0.5\n"
                         "b:\n"
                         "  flag: true\n"
                         "  mode: x\n"
                         "  name: hello\n"
                         "c:\n"
                         "  d:\n"
                         "    deep: 42\n";

/// Gives each test a private temporary directory and helpers to write files into it.
class ArchTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("chipless_arch_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Writes `text` to `name` in the test directory and returns its path.
  std::string write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  /// Loads `text` as a small-schema file and returns the error message ("" if none).
  std::string errorOf(const std::string& text, const std::vector<std::string>& overrides = {}) {
    std::string path = write("arch.yaml", text);
    try {
      ArchDescription::load(path, smallSchema(), overrides);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  /// kSmallYaml with `from` replaced by `to` (which must occur).
  static std::string edited(const std::string& from, const std::string& to) {
    std::string s = kSmallYaml;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  }

  fs::path dir_;
};

/// Asserts that `message` contains every one of `parts`.
void expectContains(const std::string& message, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(message.empty()) << "expected an error";
  for (const auto& p : parts) EXPECT_NE(message.find(p), std::string::npos) << message;
}

// ---- the generic reader ------------------------------------------------------------------

TEST_F(ArchTest, ArchLoadsAllTypes) {
  auto d = ArchDescription::load(write("arch.yaml", kSmallYaml), smallSchema(), {});
  EXPECT_EQ(d.getInt("a.i"), 3);
  EXPECT_DOUBLE_EQ(d.getFloat("a.f"), 0.5);
  EXPECT_DOUBLE_EQ(d.getFloat("a.i"), 3.0); // Int accepted as Float
  EXPECT_TRUE(d.getBool("b.flag"));
  EXPECT_EQ(d.getString("b.mode"), "x");
  EXPECT_EQ(d.getString("b.name"), "hello");
  EXPECT_EQ(d.getInt("c.d.deep"), 42);
  EXPECT_EQ(d.sourceFile(), (dir_ / "arch.yaml").string());
  EXPECT_TRUE(d.overrides().empty());
}

TEST_F(ArchTest, ArchGetterMisuseThrows) {
  auto d = ArchDescription::load(write("arch.yaml", kSmallYaml), smallSchema(), {});
  EXPECT_THROW(d.getInt("a.nope"), Error);
  EXPECT_THROW(d.getInt("a.f"), Error);
  EXPECT_THROW(d.getBool("a.i"), Error);
  EXPECT_THROW(d.getString("b.flag"), Error);
  EXPECT_THROW(d.getFloat("b.mode"), Error);
  EXPECT_THROW(d.getInt("a"), Error);
}

TEST_F(ArchTest, ArchFloatAcceptsIntegerText) {
  auto d = ArchDescription::load(write("arch.yaml", edited("f: 0.5", "f: 1")), smallSchema(), {});
  EXPECT_DOUBLE_EQ(d.getFloat("a.f"), 1.0);
}

TEST_F(ArchTest, ArchUnreadableFile) {
  std::string path = (dir_ / "absent.yaml").string();
  try {
    ArchDescription::load(path, smallSchema(), {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    expectContains(e.what(), {path});
  }
}

TEST_F(ArchTest, ArchSyntaxErrorNamesLine) {
  std::string msg = errorOf(edited("  f: 0.5\n", "  f: [0.5\n"));
  expectContains(msg, {"arch.yaml:", "YAML syntax error"});
  // The parser reports where it gave up: a line number is always present.
  EXPECT_NE(msg.find("arch.yaml:"), std::string::npos);
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(msg[msg.find("arch.yaml:") + 10]))) << msg;
}

TEST_F(ArchTest, ArchEmptyFile) {
  expectContains(errorOf("# nothing here\n"), {"arch.yaml", "empty", "a, b, c"});
}

TEST_F(ArchTest, ArchTopLevelNotAMapping) {
  expectContains(errorOf("- a\n- b\n"), {"arch.yaml:1:", "expected a mapping", "a list"});
}

TEST_F(ArchTest, ArchUnknownKeySuggestsClosest) {
  expectContains(errorOf(edited("  i: 3", "  ii: 3")),
                 {"arch.yaml:2:", "unknown key 'a.ii'", "did you mean 'a.i'?"});
}

TEST_F(ArchTest, ArchUnknownKeyListsValidKeys) {
  expectContains(
      errorOf(edited("  name: hello\n", "  name: hello\n  something_else: 1\n")),
      {"arch.yaml:8:", "unknown key 'b.something_else'", "valid keys in 'b': flag, mode, name"});
}

TEST_F(ArchTest, ArchUnknownSectionListsSections) {
  expectContains(errorOf(std::string(kSmallYaml) + "zzzzzzzz:\n  q: 1\n"),
                 {"arch.yaml:11:", "unknown key 'zzzzzzzz'", "valid sections: a, b, c"});
}

TEST_F(ArchTest, ArchKeyInWrongSectionSuggestsRightOne) {
  expectContains(errorOf(edited("  f: 0.5\n", "  f: 0.5\n  flag: true\n")),
                 {"arch.yaml:4:", "unknown key 'a.flag'", "did you mean 'b.flag'?"});
}

TEST_F(ArchTest, ArchDuplicateKey) {
  expectContains(errorOf(edited("  f: 0.5\n", "  f: 0.5\n  i: 4\n")),
                 {"arch.yaml:4:", "duplicate key 'a.i'", "first at line 2"});
}

TEST_F(ArchTest, ArchWrongTypeInt) {
  expectContains(errorOf(edited("i: 3", "i: 3.5")),
                 {"arch.yaml:2:", "a.i: expected an integer, got '3.5'"});
}

TEST_F(ArchTest, ArchWrongTypeQuotedNumber) {
  expectContains(errorOf(edited("i: 3", "i: \"3\"")),
                 {"arch.yaml:2:", "a.i: expected an integer, got the string \"3\""});
}

TEST_F(ArchTest, ArchWrongTypeFloat) {
  expectContains(errorOf(edited("f: 0.5", "f: half")),
                 {"arch.yaml:3:", "a.f: expected a number, got 'half'"});
  expectContains(errorOf(edited("f: 0.5", "f: .nan")), {"arch.yaml:3:", "a.f:"});
}

TEST_F(ArchTest, ArchWrongTypeBool) {
  expectContains(errorOf(edited("flag: true", "flag: 1")),
                 {"arch.yaml:5:", "b.flag: expected true or false, got '1'"});
}

TEST_F(ArchTest, ArchOutOfRange) {
  expectContains(errorOf(edited("i: 3", "i: 11")),
                 {"arch.yaml:2:", "a.i: 11 is out of range: must be between 1 and 10"});
  expectContains(errorOf(edited("f: 0.5", "f: 1.5")),
                 {"arch.yaml:3:", "a.f: 1.5 is out of range: must be between 0 and 1"});
  expectContains(errorOf(edited("deep: 42", "deep: -1")), {"arch.yaml:10:", "c.d.deep:"});
  expectContains(errorOf(edited("i: 3", "i: 99999999999999999999999")),
                 {"arch.yaml:2:", "a.i:", "too large"});
}

TEST_F(ArchTest, ArchNotOneOfChoices) {
  expectContains(errorOf(edited("mode: x", "mode: z")),
                 {"arch.yaml:6:", "b.mode: 'z' is not one of: x, y"});
}

TEST_F(ArchTest, ArchMissingKey) {
  expectContains(errorOf(edited("  f: 0.5\n", "")),
                 {"arch.yaml:1:", "missing key 'a.f'", "no defaults"});
}

TEST_F(ArchTest, ArchMissingSectionListsAllItsKeys) {
  expectContains(errorOf(edited("c:\n  d:\n    deep: 42\n", "")),
                 {"arch.yaml", "missing key 'c.d.deep'"});
  expectContains(errorOf(edited("b:\n  flag: true\n  mode: x\n  name: hello\n", "")),
                 {"arch.yaml", "missing keys 'b.flag', 'b.mode', 'b.name'"});
}

TEST_F(ArchTest, ArchMappingWhereValueExpected) {
  expectContains(errorOf(edited("  i: 3\n", "  i:\n    x: 1\n")),
                 {"arch.yaml:3:", "a.i: expected an integer, got a section"});
  expectContains(errorOf(edited("i: 3", "i: [1, 2]")),
                 {"arch.yaml:2:", "a.i: expected an integer, got a list"});
  expectContains(errorOf(edited("i: 3", "i:")),
                 {"arch.yaml:2:", "a.i: expected an integer, got nothing"});
}

TEST_F(ArchTest, ArchValueWhereMappingExpected) {
  expectContains(errorOf(edited("a:\n  i: 3\n  f: 0.5\n", "a: 3\n")),
                 {"arch.yaml:1:", "a: expected a section with keys i, f, got the value '3'"});
  expectContains(errorOf(edited("  d:\n    deep: 42\n", "  d: 42\n")),
                 {"arch.yaml:9:", "c.d: expected a section with keys deep"});
}

TEST_F(ArchTest, ArchBadSchemaIsRejected) {
  std::string path = write("arch.yaml", kSmallYaml);
  std::vector<ParamDecl> dup = smallSchema();
  dup.push_back(dup[0]);
  EXPECT_THROW(ArchDescription::load(path, dup, {}), Error);
  std::vector<ParamDecl> clash = smallSchema();
  clash.push_back({"a.i.x", ParamType::Int, 0, 1, {}, "", "leaf under a leaf"});
  EXPECT_THROW(ArchDescription::load(path, clash, {}), Error);
  std::vector<ParamDecl> range = smallSchema();
  range.push_back({"a.r", ParamType::Int, 5, 1, {}, "", "min > max"});
  EXPECT_THROW(ArchDescription::load(path, range, {}), Error);
}

TEST_F(ArchTest, ArchLocateNamesLineOrOverride) {
  auto d = ArchDescription::load(write("arch.yaml", kSmallYaml), smallSchema(), {"a.f=0.25"});
  EXPECT_EQ(d.locate("a.i", "boom"), (dir_ / "arch.yaml").string() + ":2: boom");
  EXPECT_EQ(d.locate("a.f", "boom"), (dir_ / "arch.yaml").string() + ": --set a.f=0.25: boom");
  EXPECT_THROW(d.locate("a.nope", "boom"), Error);
}

// ---- overrides -----------------------------------------------------------------------------

TEST_F(ArchTest, ArchOverridesApply) {
  std::vector<std::string> sets = {"a.i=7",      "b.flag=false", "b.mode=y",
                                   "c.d.deep=0", "a.f=0.125",    "a.i=9"};
  auto d = ArchDescription::load(write("arch.yaml", kSmallYaml), smallSchema(), sets);
  EXPECT_EQ(d.getInt("a.i"), 9); // the later --set wins
  EXPECT_DOUBLE_EQ(d.getFloat("a.f"), 0.125);
  EXPECT_FALSE(d.getBool("b.flag"));
  EXPECT_EQ(d.getString("b.mode"), "y");
  EXPECT_EQ(d.getString("b.name"), "hello"); // untouched
  EXPECT_EQ(d.getInt("c.d.deep"), 0);
  EXPECT_EQ(d.overrides(), sets);
}

TEST_F(ArchTest, ArchOverrideUnknownKey) {
  expectContains(errorOf(kSmallYaml, {"a.ii=3"}),
                 {"--set a.ii=3", "unknown key 'a.ii'", "did you mean 'a.i'?"});
  expectContains(errorOf(kSmallYaml, {"q.r=3"}), {"--set q.r=3", "unknown key 'q'"});
  expectContains(errorOf(kSmallYaml, {"a=3"}), {"--set a=3", "'a' is a section", "i, f"});
  expectContains(errorOf(kSmallYaml, {"a.i.x=3"}), {"--set a.i.x=3", "'a.i' is a value"});
}

TEST_F(ArchTest, ArchOverrideBadValue) {
  expectContains(errorOf(kSmallYaml, {"a.i=abc"}),
                 {"--set a.i=abc", "a.i: expected an integer, got 'abc'"});
  expectContains(errorOf(kSmallYaml, {"a.i=11"}),
                 {"--set a.i=11", "a.i: 11 is out of range: must be between 1 and 10"});
  expectContains(errorOf(kSmallYaml, {"b.mode=q"}), {"--set b.mode=q", "not one of: x, y"});
  expectContains(errorOf(kSmallYaml, {"b.flag=yes"}), {"--set b.flag=yes", "true or false"});
  expectContains(errorOf(kSmallYaml, {"a.i="}), {"--set a.i=", "expected an integer"});
}

TEST_F(ArchTest, ArchOverrideMalformed) {
  expectContains(errorOf(kSmallYaml, {"a.i"}), {"--set a.i", "expected key.path=value"});
  expectContains(errorOf(kSmallYaml, {"=3"}), {"--set =3", "expected key.path=value"});
}

TEST_F(ArchTest, ArchOverrideDoesNotExcuseMissingKey) {
  expectContains(errorOf(edited("  f: 0.5\n", ""), {"a.f=0.5"}), {"missing key 'a.f'"});
}

// ---- resolved file -------------------------------------------------------------------------

/// Expects two descriptions over the same schema to hold identical values.
void expectSameValues(const ArchDescription& x, const ArchDescription& y) {
  for (const ParamDecl& p : x.schema()) {
    switch (p.type) {
    case ParamType::Int:
      EXPECT_EQ(x.getInt(p.path), y.getInt(p.path)) << p.path;
      break;
    case ParamType::Float:
      EXPECT_EQ(x.getFloat(p.path), y.getFloat(p.path)) << p.path;
      break;
    case ParamType::Bool:
      EXPECT_EQ(x.getBool(p.path), y.getBool(p.path)) << p.path;
      break;
    case ParamType::String:
      EXPECT_EQ(x.getString(p.path), y.getString(p.path)) << p.path;
      break;
    }
  }
}

TEST_F(ArchTest, ArchResolvedRoundTrip) {
  std::vector<std::string> sets = {"a.f=0.30000000000000004", "b.name=say \"hi\": #1 \\ ok",
                                   "b.flag=false"};
  auto d = ArchDescription::load(write("arch.yaml", kSmallYaml), smallSchema(), sets);
  std::string resolved = (dir_ / "resolved.yaml").string();
  d.writeResolved(resolved);
  auto back = ArchDescription::load(resolved, smallSchema(), {});
  expectSameValues(d, back);
  EXPECT_EQ(back.getString("b.name"), "say \"hi\": #1 \\ ok");
  EXPECT_EQ(back.getFloat("a.f"), 0.30000000000000004);

  std::string text = readFile(resolved);
  expectContains(text, {"Resolved from: " + (dir_ / "arch.yaml").string(),
                        "--set a.f=0.30000000000000004", "--set b.flag=false", "[things]", "an int",
                        "a nested int [cycles]"});
  EXPECT_LT(text.find("\na:\n"), text.find("\nb:\n"));
  EXPECT_LT(text.find("\nb:\n"), text.find("\nc:\n"));
}

TEST_F(ArchTest, ArchResolvedHeaderWithoutOverrides) {
  auto d = ArchDescription::load(write("arch.yaml", kSmallYaml), smallSchema(), {});
  expectContains(d.toYaml(), {"Overrides: none"});
}

// ---- Spyre -----------------------------------------------------------------------------------

TEST(SpyreArch, LoadsShippedFile) {
  SpyreArch a = SpyreArch::load(spyreFile());
  EXPECT_EQ(a.chip.cores, 32);
  EXPECT_EQ(a.chip.corelets_per_core, 2);
  EXPECT_EQ(a.chip.stick_bytes, 128);
  EXPECT_DOUBLE_EQ(a.chip.clock_ghz, 1.0);
  EXPECT_EQ(a.pt.rows, 8);
  EXPECT_EQ(a.pt.macs_per_pe_int4, 32);
  EXPECT_EQ(a.scratchpad.bytes, 2097152);
  EXPECT_EQ(a.numerics.fp16_format, "ieee");
  EXPECT_EQ(a.memory.segment_bytes, int64_t{16} << 30);
  EXPECT_EQ(a.memory.program_segment, 7);
  EXPECT_EQ(a.dram.core_span_bytes, int64_t{256} << 20);
  EXPECT_EQ(a.description.sourceFile(), spyreFile());
}

TEST(SpyreArch, DerivedValues) {
  SpyreArch a = SpyreArch::load(spyreFile());
  EXPECT_EQ(a.peakFp16FlopsPerCycle(), 32768);
  EXPECT_DOUBLE_EQ(a.dramBytesPerCycle(), 204.8);
  EXPECT_DOUBLE_EQ(a.dramLatencyCycles(), 100.0);
  // (2 MiB - 64 KiB) * 0.8 = 1625292.8 bytes, rounded down to a stick: 12697 sticks.
  EXPECT_EQ(a.planningScratchpadBytes(), 12697 * 128);
  EXPECT_EQ(a.elementsPerStick(2), 64);
  EXPECT_EQ(a.elementsPerStick(1), 128);
  EXPECT_EQ(a.elementsPerStick(4), 32);
  EXPECT_THROW(a.elementsPerStick(3), Error);
  EXPECT_THROW(a.elementsPerStick(0), Error);
}

TEST(SpyreArch, OverridesChangeDerivedValues) {
  SpyreArch a = SpyreArch::load(spyreFile(), {"chip.cores=16", "dram.bandwidth_gb_s=400",
                                              "chip.clock_ghz=0.5", "scratchpad.bytes=1048576"});
  EXPECT_EQ(a.peakFp16FlopsPerCycle(), 16384);
  EXPECT_DOUBLE_EQ(a.dramBytesPerCycle(), 800.0);
  EXPECT_DOUBLE_EQ(a.dramLatencyCycles(), 50.0);
  EXPECT_EQ(a.planningScratchpadBytes(), (1048576 - 65536) * 8 / 10 / 128 * 128);
  EXPECT_EQ(a.description.overrides().size(), 4u);
}

/// The error from loading the shipped file with `overrides`, or "".
std::string spyreError(const std::vector<std::string>& overrides) {
  try {
    SpyreArch::load(spyreFile(), overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SpyreArch, CrossFieldChecks) {
  expectContains(spyreError({"chip.stick_bytes=96"}),
                 {"spyre.yaml", "--set chip.stick_bytes=96", "chip.stick_bytes", "power of two"});
  expectContains(spyreError({"chip.stick_bytes=8"}), {"must be between 16 and 4096"});
  expectContains(spyreError({"scratchpad.bytes=2097100"}),
                 {"scratchpad.bytes", "whole number of sticks", "chip.stick_bytes"});
  expectContains(spyreError({"scratchpad.reserved_bytes=2097152"}),
                 {"scratchpad.reserved_bytes", "less than scratchpad.bytes"});
  expectContains(spyreError({"scratchpad.bytes=1024", "scratchpad.reserved_bytes=1000"}),
                 {"scratchpad.planning_margin", "less than one stick"});
  expectContains(spyreError({"memory.program_segment=8"}),
                 {"memory.program_segment", "less than memory.segments"});
  expectContains(spyreError({"memory.alignment_bytes=96"}),
                 {"memory.alignment_bytes", "power of two"});
  expectContains(spyreError({"memory.alignment_bytes=1073741824", "memory.segment_bytes=4096"}),
                 {"memory.segment_bytes", "multiple of memory.alignment_bytes"});
  expectContains(spyreError({"dram.interleave_bytes=64"}),
                 {"dram.interleave_bytes", "at least one stick"});
  expectContains(spyreError({"dram.capacity_gib=0"}), {"dram.capacity_gib", "between"});
  expectContains(spyreError({"dram.capacity_gib=1", "dram.core_span_bytes=2147483648"}),
                 {"dram.core_span_bytes", "dram.capacity_gib"});
  expectContains(spyreError({"numerics.fp16_format=bf16"}), {"not one of: ieee, dlfloat16"});
  EXPECT_EQ(spyreError({"numerics.fp16_format=dlfloat16"}), "");
}

TEST_F(ArchTest, SpyreCrossFieldErrorNamesFileLine) {
  std::string text = readFile(spyreFile());
  const std::string from = "  bytes: 2097152\n";
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  int line = static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
  text.replace(at, from.size(), "  bytes: 2097100\n");
  std::string path = write("spyre.yaml", text);
  try {
    SpyreArch::load(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    expectContains(e.what(), {path + ":" + std::to_string(line) + ":", "scratchpad.bytes"});
  }
}

TEST_F(ArchTest, SpyreResolvedRoundTrip) {
  SpyreArch a = SpyreArch::load(spyreFile(), {"chip.cores=16", "dram.bandwidth_gb_s=333.3",
                                              "numerics.fp16_format=dlfloat16"});
  std::string resolved = (dir_ / "spyre.resolved.yaml").string();
  a.description.writeResolved(resolved);
  SpyreArch b = SpyreArch::load(resolved);
  expectSameValues(a.description, b.description);
  EXPECT_EQ(b.chip.cores, 16);
  EXPECT_EQ(b.dram.bandwidth_gb_s, 333.3);
  EXPECT_EQ(b.numerics.fp16_format, "dlfloat16");
  EXPECT_EQ(b.planningScratchpadBytes(), a.planningScratchpadBytes());
}

/// Collects the dotted paths of every scalar under `node`.
void leafPaths(const YAML::Node& node, const std::string& prefix, std::set<std::string>& out) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string path = prefix.empty() ? it->first.Scalar() : prefix + "." + it->first.Scalar();
    if (it->second.IsMap())
      leafPaths(it->second, path, out);
    else
      out.insert(path);
  }
}

TEST(SpyreArch, SchemaMatchesShippedFile) {
  std::set<std::string> inFile;
  leafPaths(YAML::LoadFile(spyreFile()), "", inFile);
  std::set<std::string> declared;
  for (const ParamDecl& p : SpyreArch::schema()) {
    EXPECT_TRUE(declared.insert(p.path).second) << "declared twice: " << p.path;
    EXPECT_FALSE(p.description.empty()) << p.path;
    EXPECT_TRUE(inFile.count(p.path)) << "declared but not in spyre.yaml: " << p.path;
  }
  for (const std::string& k : inFile)
    EXPECT_TRUE(declared.count(k)) << "in spyre.yaml but not declared: " << k;
}

TEST(SpyreArch, DefaultFile) {
  const char* old = std::getenv("CHIPLESS_ARCH_DIR");
  std::string saved = old ? old : "";
  setenv("CHIPLESS_ARCH_DIR", "/some/dir", 1);
  EXPECT_EQ(SpyreArch::defaultFile(), "/some/dir/spyre.yaml");
  unsetenv("CHIPLESS_ARCH_DIR");
  std::string path = SpyreArch::defaultFile();
  EXPECT_TRUE(fs::exists(path)) << path;
  EXPECT_NO_THROW(SpyreArch::load(path));
  if (old) setenv("CHIPLESS_ARCH_DIR", saved.c_str(), 1);
}

} // namespace
} // namespace chipless
