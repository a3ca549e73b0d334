#include "support/error.h"
#include "support/stats.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace chipless {
namespace {

using nlohmann::json;

/// Reads a whole file as text.
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fresh directory for files written by one test, removed afterwards.
class StatsFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("chipless_stats_test_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

/// Expects `fn` to throw chipless::Error whose message contains `needle`.
template <typename Fn>
void expectError(Fn fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected chipless::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' lacks '" << needle << "'";
  }
}

TEST(StatsTest, SetGetHas) {
  Stats s;
  EXPECT_FALSE(s.has("chip.cycles"));
  EXPECT_EQ(s.size(), 0u);
  s.set("chip.cycles", 1234, "cycles", "simulated cycles");
  EXPECT_TRUE(s.has("chip.cycles"));
  EXPECT_EQ(s.get("chip.cycles"), 1234);
  EXPECT_EQ(s.unit("chip.cycles"), "cycles");
  s.set("chip.cycles", 99, "cycles");
  EXPECT_EQ(s.get("chip.cycles"), 99);
  EXPECT_EQ(s.size(), 1u);
}

TEST(StatsTest, AddStartsAtZeroAndAccumulates) {
  Stats s;
  s.add("chip.core[3].load0.busy_cycles", 5, "cycles");
  s.add("chip.core[3].load0.busy_cycles", 7, "cycles");
  s.add("chip.core[3].load0.busy_cycles", -2, "cycles");
  EXPECT_EQ(s.get("chip.core[3].load0.busy_cycles"), 10);
  s.add("chip.util", 0.25, "ratio");
  s.add("chip.util", 0.5, "ratio");
  EXPECT_DOUBLE_EQ(s.get("chip.util"), 0.75);
}

TEST(StatsTest, GetUnknownThrowsNamingThePath) {
  Stats s;
  s.set("chip.core[1].x", 1, "count");
  expectError([&] { s.get("chip.nothing"); }, "chip.nothing");
  expectError([&] { s.get("chip.core[0].x"); }, "chip.core[0].x");
  expectError([&] { s.get("chip.core[7].x"); }, "chip.core[7].x");
  expectError([&] { s.unit("chip.nothing"); }, "chip.nothing");
}

TEST(StatsTest, GroupsAreNotStatistics) {
  Stats s;
  s.set("chip.core[1].x", 1, "count");
  EXPECT_FALSE(s.has("chip"));
  EXPECT_FALSE(s.has("chip.core"));
  EXPECT_FALSE(s.has("chip.core[1]"));
  EXPECT_FALSE(s.has("chip.core[0]"));
  EXPECT_FALSE(s.has("chip.core[1].x.y"));
  EXPECT_FALSE(s.has("chip[0]"));
  expectError([&] { s.get("chip.core"); }, "chip.core");
}

TEST(StatsTest, UnitIsRequiredAndMustMatch) {
  Stats s;
  expectError([&] { s.set("chip.cycles", 1, ""); }, "chip.cycles");
  EXPECT_FALSE(s.has("chip.cycles"));
  s.set("chip.cycles", 1, "cycles");
  expectError([&] { s.set("chip.cycles", 2, "bytes"); }, "chip.cycles");
  expectError([&] { s.add("chip.cycles", 2, "bytes"); }, "'cycles'");
  EXPECT_EQ(s.get("chip.cycles"), 1);
}

TEST(StatsTest, NonFiniteValuesAreRejected) {
  Stats s;
  double inf = std::numeric_limits<double>::infinity();
  double nan = std::numeric_limits<double>::quiet_NaN();
  expectError([&] { s.set("a.b", nan, "ratio"); }, "a.b");
  expectError([&] { s.set("a.b", inf, "ratio"); }, "a.b");
  expectError([&] { s.add("a.b", -inf, "ratio"); }, "a.b");
  EXPECT_FALSE(s.has("a.b"));
  s.set("a.big", std::numeric_limits<double>::max(), "bytes");
  expectError([&] { s.add("a.big", std::numeric_limits<double>::max(), "bytes"); }, "a.big");
  EXPECT_EQ(s.get("a.big"), std::numeric_limits<double>::max());
}

TEST(StatsTest, DescriptionIsKeptAndReplacedOnlyByNonEmpty) {
  Stats s;
  s.add("chip.cycles", 1, "cycles", "simulated cycles");
  s.add("chip.cycles", 1, "cycles");
  EXPECT_EQ(s.toJson()["chip"]["cycles"]["description"], "simulated cycles");
  s.set("chip.cycles", 1, "cycles", "cycles of the chip clock");
  EXPECT_EQ(s.toJson()["chip"]["cycles"]["description"], "cycles of the chip clock");
}

TEST(StatsTest, MalformedPathsAreRejected) {
  Stats s;
  for (const std::string bad : {"",
                                ".",
                                "a.",
                                ".a",
                                "a..b",
                                "a b",
                                "a/b",
                                "a[",
                                "a[]",
                                "a[x]",
                                "a[-1]",
                                "a[+1]",
                                "a[01]",
                                "a[1]b",
                                "a[1][2]",
                                "[1]",
                                "a.[1]",
                                "a[1",
                                "a]",
                                "a[1.5]",
                                "a[99999999]",
                                "a[1048577]",
                                "a[18446744073709551616]",
                                "chip.core[3]..x",
                                "chip\n"}) {
    SCOPED_TRACE(bad);
    expectError([&] { s.set(bad, 1, "count"); }, "'" + bad + "'");
    expectError([&] { s.add(bad, 1, "count"); }, "'" + bad + "'");
    expectError([&] { s.has(bad); }, "malformed");
    expectError([&] { s.get(bad); }, "malformed");
  }
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.toJson(), json::object());
}

TEST(StatsTest, WellFormedUnusualPaths) {
  Stats s;
  s.set("a", 1, "count");
  s.set("b[0]", 2, "count");
  s.set("c_d-e.F9[12]", 3, "count");
  s.set("x[10].y[0].z", 4, "count");
  EXPECT_EQ(s.get("a"), 1);
  EXPECT_EQ(s.get("b[0]"), 2);
  EXPECT_EQ(s.get("c_d-e.F9[12]"), 3);
  EXPECT_EQ(s.get("x[10].y[0].z"), 4);
  json j = s.toJson();
  EXPECT_EQ(j["a"]["value"], 1);
  EXPECT_EQ(j["b"][0]["value"], 2);
  EXPECT_EQ(j["c_d-e"]["F9"].size(), 13u);
  EXPECT_EQ(j["x"][10]["y"][0]["z"]["value"], 4);
}

TEST(StatsTest, LargestIndexIsAccepted) {
  Stats s;
  std::string path = "big[" + std::to_string(Stats::kMaxIndex) + "]";
  s.set(path, 1, "count");
  EXPECT_EQ(s.get(path), 1);
  auto flat = s.flatten();
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(flat[0].first, path);
}

TEST(StatsTest, LeafAndGroupConflictsAreErrors) {
  struct Case {
    const char* first;
    const char* second;
    const char* culprit;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"a.b", "a.b.c", "'a.b' is already a statistic"},
           {"a.b.c", "a.b", "'a.b' is already a group"},
           {"a.b", "a.b[0]", "'a.b' is already a statistic"},
           {"a.b[0]", "a.b", "'a.b' is already an array"},
           {"a.b.c", "a.b[0]", "'a.b' is already a group"},
           {"a.b[0].c", "a.b.c", "'a.b' is already an array"},
           {"a.b[0]", "a.b[0].c", "'a.b[0]' is already a statistic"},
           {"a.b[0].c", "a.b[0]", "'a.b[0]' is already a group"},
           {"a.b[2].c.d", "a.b[2].c.d.e.f", "'a.b[2].c.d' is already a statistic"},
           {"a", "a.b", "'a' is already a statistic"},
       }) {
    SCOPED_TRACE(std::string(c.first) + " then " + c.second);
    Stats s;
    s.set(c.first, 1, "count");
    auto before = s.toJson().dump();
    expectError([&] { s.set(c.second, 2, "count"); }, c.culprit);
    expectError([&] { s.add(c.second, 2, "count"); }, c.second);
    EXPECT_EQ(s.toJson().dump(), before) << "a failed registration must not change the tree";
    EXPECT_EQ(s.size(), 1u);
    EXPECT_FALSE(s.has(c.second));
  }
}

TEST(StatsTest, JsonShapeOfLeaves) {
  Stats s;
  s.set("chip.cycles", 1000, "cycles", "simulated cycles");
  s.set("chip.util", 0.5, "ratio");
  s.set("chip.neg", -3, "count");
  s.set("chip.big", 1e15, "bytes");
  s.set("chip.zero", -0.0, "bytes");
  json j = s.toJson();
  const json& cycles = j["chip"]["cycles"];
  EXPECT_EQ(cycles,
            (json{{"value", 1000}, {"unit", "cycles"}, {"description", "simulated cycles"}}));
  EXPECT_TRUE(cycles["value"].is_number_integer());
  const json& util = j["chip"]["util"];
  EXPECT_TRUE(util["value"].is_number_float());
  EXPECT_EQ(util["value"].get<double>(), 0.5);
  EXPECT_FALSE(util.contains("description")) << "empty descriptions are omitted";
  EXPECT_EQ(util.size(), 2u);
  EXPECT_TRUE(j["chip"]["neg"]["value"].is_number_integer());
  EXPECT_EQ(j["chip"]["neg"]["value"].get<int64_t>(), -3);
  EXPECT_TRUE(j["chip"]["big"]["value"].is_number_integer());
  EXPECT_EQ(j["chip"]["big"]["value"].get<int64_t>(), 1000000000000000);
  EXPECT_EQ(j["chip"]["zero"]["value"].dump(), "0");
}

TEST(StatsTest, HugeIntegralValuesStayDoubles) {
  Stats s;
  s.set("a", 1e30, "bytes");
  s.set("b", -1e19, "bytes");
  json j = s.toJson();
  EXPECT_TRUE(j["a"]["value"].is_number_float());
  EXPECT_EQ(j["a"]["value"].get<double>(), 1e30);
  EXPECT_TRUE(j["b"]["value"].is_number_float());
}

TEST(StatsTest, IndexedSegmentsBecomeArraysFilledWithEmptyObjects) {
  Stats s;
  s.set("chip.core[3].load0.busy_cycles", 42, "cycles");
  s.set("chip.ring.link[5].cw.bytes", 4096, "bytes");
  s.set("chip.ring.link[1].ccw.bytes", 64, "bytes");
  json j = s.toJson();
  const json& cores = j["chip"]["core"];
  ASSERT_TRUE(cores.is_array());
  ASSERT_EQ(cores.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(cores[i], json::object());
  EXPECT_EQ(cores[3]["load0"]["busy_cycles"]["value"], 42);
  const json& links = j["chip"]["ring"]["link"];
  ASSERT_EQ(links.size(), 6u);
  EXPECT_EQ(links[5]["cw"]["bytes"]["value"], 4096);
  EXPECT_EQ(links[1]["ccw"]["bytes"]["unit"], "bytes");
  EXPECT_EQ(links[0], json::object());
  // Filling an earlier element later keeps the array length.
  s.set("chip.core[0].load0.busy_cycles", 1, "cycles");
  EXPECT_EQ(s.toJson()["chip"]["core"].size(), 4u);
  EXPECT_EQ(s.toJson()["chip"]["core"][0]["load0"]["busy_cycles"]["value"], 1);
}

TEST(StatsTest, FlattenIsInTreeOrderWithNumericIndices) {
  Stats s;
  s.set("chip.core[10].x", 10, "count");
  s.set("chip.core[2].x", 2, "count");
  s.set("chip.core[2].a", 3, "count");
  s.set("chip.cycles", 5, "cycles");
  s.set("chip.b", 6, "count");
  s.set("alpha", 7, "count");
  std::vector<std::pair<std::string, double>> expected = {
      {"alpha", 7},          {"chip.b", 6},           {"chip.core[2].a", 3},
      {"chip.core[2].x", 2}, {"chip.core[10].x", 10}, {"chip.cycles", 5},
  };
  EXPECT_EQ(s.flatten(), expected);
  Stats empty;
  EXPECT_TRUE(empty.flatten().empty());
}

TEST(StatsTest, FlattenRoundTripsThroughSetAndGet) {
  Stats s;
  for (int i = 0; i < 20; ++i) {
    s.add("chip.core[" + std::to_string(i % 7) + "].engine[" + std::to_string(i % 3) + "].ops",
          i + 0.5, "ops");
  }
  auto flat = s.flatten();
  EXPECT_EQ(flat.size(), s.size());
  Stats copy;
  for (const auto& [path, value] : flat) {
    EXPECT_EQ(s.get(path), value);
    copy.set(path, value, s.unit(path));
  }
  EXPECT_EQ(copy.toJson(), s.toJson());
}

TEST(StatsTest, DumpIsIndependentOfRegistrationOrder) {
  Stats a, b;
  a.set("chip.cycles", 10, "cycles", "c");
  a.set("chip.core[1].load0.busy_cycles", 3, "cycles");
  a.set("chip.core[0].store.bytes", 2.5, "bytes");
  a.set("chip.ring.link[2].cw.bytes", 7, "bytes");
  b.set("chip.ring.link[2].cw.bytes", 7, "bytes");
  b.set("chip.core[0].store.bytes", 2.5, "bytes");
  b.set("chip.core[1].load0.busy_cycles", 3, "cycles");
  b.set("chip.cycles", 10, "cycles", "c");
  EXPECT_EQ(a.toJson().dump(2), b.toJson().dump(2));
}

TEST(StatsTest, CopiesAreIndependent) {
  Stats a;
  a.set("x.y", 1, "count");
  Stats b = a;
  b.add("x.y", 1, "count");
  b.set("x.z", 5, "count");
  EXPECT_EQ(a.get("x.y"), 1);
  EXPECT_FALSE(a.has("x.z"));
  EXPECT_EQ(b.get("x.y"), 2);
}

TEST_F(StatsFileTest, WriteJsonIsPrettyWithTrailingNewline) {
  Stats s;
  s.set("chip.cycles", 1000, "cycles", "simulated cycles");
  s.set("chip.core[1].util", 0.125, "ratio");
  std::string path = (dir_ / "stats.json").string();
  s.writeJson(path);
  std::string text = slurp(path);
  EXPECT_EQ(text, s.toJson().dump(2) + "\n");
  EXPECT_EQ(json::parse(text), s.toJson());
  EXPECT_NE(text.find("\n  \"chip\": {\n"), std::string::npos) << text;
  // Writing again yields byte-identical output and replaces the file in place.
  s.writeJson(path);
  EXPECT_EQ(slurp(path), text);
  // No temporary files are left behind.
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(StatsFileTest, WriteJsonSurvivesInvalidUtf8InDescriptions) {
  Stats s;
  s.set("chip.x", 1, "count", "bad \xff byte and \"quotes\"");
  std::string path = (dir_ / "stats.json").string();
  s.writeJson(path);
  json j = json::parse(slurp(path));
  EXPECT_EQ(j["chip"]["x"]["description"], "bad \xEF\xBF\xBD byte and \"quotes\"");
}

TEST_F(StatsFileTest, WriteJsonToMissingDirectoryThrows) {
  Stats s;
  s.set("chip.cycles", 1, "cycles");
  std::string path = (dir_ / "no" / "such" / "dir" / "stats.json").string();
  EXPECT_THROW(s.writeJson(path), Error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

} // namespace
} // namespace chipless
