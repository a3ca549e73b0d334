#include "support/error.h"
#include "support/trace.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
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

/// The non-metadata events of a parsed trace, in file order.
std::vector<json> eventsOf(const json& trace) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") != "M") out.push_back(e);
  return out;
}

/// The metadata events of a parsed trace, in file order.
std::vector<json> metadataOf(const json& trace) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == "M") out.push_back(e);
  return out;
}

/// A fresh directory for files written by one test, removed afterwards.
class TraceFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("chipless_trace_test_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

/// Feeds the same mixed set of events to `t`.
void feedSample(TraceWriter& t) {
  t.processName(1, "core 1");
  t.processName(0, "core 0");
  t.processSortIndex(1, 1);
  t.processSortIndex(0, 0);
  t.threadName(0, 2, "store");
  t.threadName(0, 1, "load0");
  t.complete(0, 1, "load A", 10.5, 2.25, {{"bytes", 4096}, {"addr", 65536}});
  t.complete(1, 1, "load B", 3, 1);
  t.instant(0, 2, "barrier", 7.125);
  t.counter(0, "ring bandwidth", 5, "GB/s", 12.5);
  t.complete(0, 1, "compute", 10.5, 0.001, {{"ops", 1e6}, {"util", 0.75}});
}

TEST(TraceTest, EmptyTraceIsValidJson) {
  TraceWriter t;
  json j = json::parse(t.toString());
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  EXPECT_EQ(j["otherData"]["truncated"], false);
  EXPECT_TRUE(j["traceEvents"].is_array());
  EXPECT_TRUE(j["traceEvents"].empty());
  EXPECT_EQ(t.size(), 0u);
  EXPECT_FALSE(t.capped());
  EXPECT_EQ(t.dropped(), 0u);
  EXPECT_EQ(t.maxEvents(), 2'000'000u);
}

TEST(TraceTest, CompleteEventFields) {
  TraceWriter t;
  t.complete(3, 7, "matmul", 1.5, 0.25, {{"bytes", 128}, {"util", 0.5}});
  json j = json::parse(t.toString());
  auto events = eventsOf(j);
  ASSERT_EQ(events.size(), 1u);
  const json& e = events[0];
  EXPECT_EQ(e["name"], "matmul");
  EXPECT_EQ(e["ph"], "X");
  EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 0.25);
  EXPECT_EQ(e["pid"], 3);
  EXPECT_EQ(e["tid"], 7);
  EXPECT_EQ(e["args"], (json{{"bytes", 128}, {"util", 0.5}}));
  EXPECT_TRUE(e["args"]["bytes"].is_number_integer());
}

// The kernels of a multi-kernel job each start their clock at 0; their events follow on.
TEST(TraceTest, ContinueAfterLatestShiftsLaterEvents) {
  TraceWriter t;
  t.complete(0, 1, "first", 1.0, 2.0);
  t.instant(1, 1, "mark", 0.5);
  t.continueAfterLatest();
  t.complete(0, 1, "second", 0.0, 1.0);
  t.counter(0, "dram", 0.25, "bytes", 4);
  json j = json::parse(t.toString());
  std::map<std::string, double> ts;
  for (const json& e : eventsOf(j)) ts[e["name"].get<std::string>()] = e["ts"].get<double>();
  EXPECT_DOUBLE_EQ(ts["first"], 1.0);
  EXPECT_DOUBLE_EQ(ts["mark"], 0.5);
  EXPECT_DOUBLE_EQ(ts["second"], 3.0); // after "first" ends at 3.0
  EXPECT_DOUBLE_EQ(ts["dram"], 3.25);
}

TEST(TraceTest, EventsWithoutArgsHaveNoArgsField) {
  TraceWriter t;
  t.complete(0, 0, "a", 1, 1);
  t.instant(0, 0, "b", 2);
  for (const json& e : eventsOf(json::parse(t.toString()))) EXPECT_FALSE(e.contains("args"));
}

TEST(TraceTest, InstantEventIsThreadScoped) {
  TraceWriter t;
  t.instant(2, 4, "fence", 9, {{"pc", 12}});
  auto events = eventsOf(json::parse(t.toString()));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["ph"], "i");
  EXPECT_EQ(events[0]["s"], "t");
  EXPECT_EQ(events[0]["pid"], 2);
  EXPECT_EQ(events[0]["tid"], 4);
  EXPECT_EQ(events[0]["args"]["pc"], 12);
  EXPECT_FALSE(events[0].contains("dur"));
}

TEST(TraceTest, CounterEventCarriesItsSeries) {
  TraceWriter t;
  t.counter(5, "link[3] cw", 100, "GB/s", 31.25);
  auto events = eventsOf(json::parse(t.toString()));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["ph"], "C");
  EXPECT_EQ(events[0]["name"], "link[3] cw");
  EXPECT_EQ(events[0]["pid"], 5);
  EXPECT_EQ(events[0]["args"], (json{{"GB/s", 31.25}}));
  EXPECT_DOUBLE_EQ(events[0]["ts"].get<double>(), 100);
}

TEST(TraceTest, MetadataComesFirstAndIsNotCounted) {
  TraceWriter t(1);
  t.complete(0, 0, "first", 0, 1);
  t.processName(1, "core 1");
  t.processName(0, "core zero");
  t.processName(0, "core 0"); // replaces the earlier name
  t.processSortIndex(1, 5);
  t.threadName(1, 3, "load1");
  t.threadName(0, 2, "store");
  EXPECT_EQ(t.size(), 1u);
  EXPECT_FALSE(t.capped());
  json j = json::parse(t.toString());
  const json& all = j["traceEvents"];
  ASSERT_EQ(all.size(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(all[i]["ph"], "M") << i;
  EXPECT_EQ(all[5]["name"], "first");
  auto meta = metadataOf(j);
  EXPECT_EQ(meta[0], (json{{"name", "process_name"},
                           {"cat", "__metadata"},
                           {"ph", "M"},
                           {"ts", 0},
                           {"pid", 0},
                           {"tid", 0},
                           {"args", {{"name", "core 0"}}}}));
  EXPECT_EQ(meta[1]["pid"], 1);
  EXPECT_EQ(meta[1]["args"]["name"], "core 1");
  EXPECT_EQ(meta[2]["name"], "process_sort_index");
  EXPECT_EQ(meta[2]["pid"], 1);
  EXPECT_EQ(meta[2]["args"]["sort_index"], 5);
  EXPECT_EQ(meta[3]["name"], "thread_name");
  EXPECT_EQ(meta[3]["pid"], 0);
  EXPECT_EQ(meta[3]["tid"], 2);
  EXPECT_EQ(meta[3]["args"]["name"], "store");
  EXPECT_EQ(meta[4]["pid"], 1);
  EXPECT_EQ(meta[4]["tid"], 3);
  EXPECT_EQ(meta[4]["args"]["name"], "load1");
}

TEST(TraceTest, EventsAreSortedByTimeThenPidThenTidThenRecordingOrder) {
  TraceWriter t;
  t.complete(1, 0, "e0", 5, 1);
  t.complete(0, 2, "e1", 5, 1);
  t.complete(0, 1, "e2", 5, 1);
  t.complete(0, 1, "e3", 5, 1);
  t.instant(0, 0, "e4", 1);
  t.counter(0, "e5", 5, "v", 1);
  t.complete(9, 9, "e6", 0.5, 100);
  t.complete(0, 0, "e7", 5.0004, 1); // rounds to 5.000 us: same time as the others
  t.complete(0, 0, "e8", 5.0006, 1); // rounds to 5.001 us
  std::vector<std::string> names;
  for (const json& e : eventsOf(json::parse(t.toString()))) names.push_back(e["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"e6", "e4", "e5", "e7", "e2", "e3", "e1", "e0", "e8"}));
}

TEST(TraceTest, TimestampsHaveThreeDecimals) {
  TraceWriter t;
  t.complete(0, 0, "a", 0, 0);
  t.complete(0, 1, "b", 12.3456, 1.0);
  t.complete(0, 2, "c", 1e9, 0.0004);
  t.instant(0, 3, "d", -1.5);
  t.instant(0, 4, "e", -0.0001);
  std::string text = t.toString();
  EXPECT_NE(text.find("\"ts\":0.000,\"dur\":0.000"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":12.346,\"dur\":1.000"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":1000000000.000,\"dur\":0.000"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":-1.500"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":0.000,\"pid\":0,\"tid\":4"), std::string::npos) << text;
}

TEST(TraceTest, ArgumentValuesAsJsonNumbers) {
  TraceWriter t;
  uint64_t bytes = 1ull << 40;
  int negative = -7;
  t.complete(0, 0, "a", 1, 1,
             {{"bytes", bytes},
              {"neg", negative},
              {"third", 1.0 / 3},
              {"nan", std::numeric_limits<double>::quiet_NaN()}});
  t.instant(0, 0, "b", 2,
            {{"inf", std::numeric_limits<double>::infinity()}, {"huge", 1e300}, {"tiny", 1e-300}});
  auto events = eventsOf(json::parse(t.toString()));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["args"]["bytes"].get<uint64_t>(), bytes);
  EXPECT_EQ(events[0]["args"]["neg"], -7);
  EXPECT_EQ(events[0]["args"]["third"].get<double>(), 1.0 / 3) << "shortest exact round trip";
  EXPECT_TRUE(events[0]["args"]["nan"].is_null());
  EXPECT_TRUE(events[1]["args"]["inf"].is_null());
  EXPECT_EQ(events[1]["args"]["huge"].get<double>(), 1e300);
  EXPECT_EQ(events[1]["args"]["tiny"].get<double>(), 1e-300);
}

TEST(TraceTest, ArgsKeepTheirOrderAndAtMostFour) {
  TraceArgs args{{"d", 4}, {"a", 1}};
  args.add("c", 3);
  args.add("b", 2);
  EXPECT_EQ(args.size(), 4u);
  EXPECT_EQ(args[0].key, "d");
  EXPECT_EQ(args[3].value, 2);
  EXPECT_THROW(args.add("e", 5), Error);
  EXPECT_THROW((TraceArgs{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}}), Error);
  TraceWriter t;
  t.complete(0, 0, "x", 0, 1, args);
  std::string text = t.toString();
  EXPECT_NE(text.find("\"args\":{\"d\":4,\"a\":1,\"c\":3,\"b\":2}"), std::string::npos) << text;
}

TEST(TraceTest, ArgKeysNeedNotOutliveTheCall) {
  TraceWriter t;
  {
    std::string key = "temporary key";
    std::string series = "temporary series";
    t.instant(0, 0, "x", 1, {{key, 1}});
    t.counter(0, "c", 2, series, 3);
    key.assign(key.size(), '#');
    series.assign(series.size(), '#');
  }
  auto events = eventsOf(json::parse(t.toString()));
  EXPECT_EQ(events[0]["args"]["temporary key"], 1);
  EXPECT_EQ(events[1]["args"]["temporary series"], 3);
}

TEST(TraceTest, InvalidTimesAreRejected) {
  TraceWriter t;
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(t.complete(0, 0, "a", nan, 1), Error);
  EXPECT_THROW(t.complete(0, 0, "a", inf, 1), Error);
  EXPECT_THROW(t.complete(0, 0, "a", 1, -1), Error);
  EXPECT_THROW(t.complete(0, 0, "a", 1, nan), Error);
  EXPECT_THROW(t.complete(0, 0, "a", 1e300, 1), Error);
  EXPECT_THROW(t.instant(0, 0, "a", -inf), Error);
  EXPECT_THROW(t.counter(0, "a", nan, "v", 1), Error);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.dropped(), 0u);
  try {
    t.complete(0, 0, "named event", 1, -1);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("named event"), std::string::npos) << e.what();
  }
}

TEST(TraceTest, CapDropsLaterEventsAndSaysSo) {
  TraceWriter t(3);
  t.processName(0, "core 0");
  t.complete(0, 1, "a", 5, 1);
  t.complete(2, 3, "b", 9, 1); // the latest kept event
  t.instant(0, 1, "c", 1);
  EXPECT_FALSE(t.capped());
  t.complete(0, 1, "dropped1", 20, 1);
  t.counter(0, "dropped2", 30, "v", 1);
  t.instant(0, 1, "dropped3", 0);
  t.threadName(0, 1, "load0"); // metadata is never capped
  EXPECT_TRUE(t.capped());
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.dropped(), 3u);

  json j = json::parse(t.toString());
  const json& other = j["otherData"];
  EXPECT_EQ(other["truncated"], true);
  EXPECT_EQ(other["dropped_events"], 3);
  EXPECT_EQ(other["cap"], 3);
  EXPECT_EQ(other["message"], "trace capped at 3 events; raise the limit with --trace-limit");
  EXPECT_EQ(metadataOf(j).size(), 2u);

  auto events = eventsOf(j);
  ASSERT_EQ(events.size(), 4u);
  std::vector<std::string> names;
  for (const json& e : events) names.push_back(e["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"c", "a", "b", "trace capped: later events dropped"}));
  const json& note = events.back();
  EXPECT_EQ(note["ph"], "i");
  EXPECT_DOUBLE_EQ(note["ts"].get<double>(), 9);
  EXPECT_EQ(note["pid"], 2);
  EXPECT_EQ(note["tid"], 3);
  EXPECT_EQ(note["args"]["dropped_events"], 3);
}

TEST(TraceTest, ReachingTheCapExactlyIsNotTruncation) {
  TraceWriter t(2);
  t.instant(0, 0, "a", 1);
  t.instant(0, 0, "b", 2);
  EXPECT_FALSE(t.capped());
  json j = json::parse(t.toString());
  EXPECT_EQ(j["otherData"]["truncated"], false);
  EXPECT_FALSE(j["otherData"].contains("dropped_events"));
  EXPECT_EQ(eventsOf(j).size(), 2u);
}

TEST(TraceTest, ZeroCapKeepsNothing) {
  TraceWriter t(0);
  t.complete(0, 0, "a", 4, 1);
  EXPECT_TRUE(t.capped());
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.dropped(), 1u);
  json j = json::parse(t.toString());
  auto events = eventsOf(j);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["name"], "trace capped: later events dropped");
  EXPECT_EQ(j["otherData"]["cap"], 0);
}

TEST(TraceTest, AbsurdCapIsRejected) {
  EXPECT_THROW(TraceWriter{std::numeric_limits<size_t>::max()}, Error);
}

TEST(TraceTest, NamesAreEscaped) {
  const std::string tricky = std::string("say \"hi\" \\ path\\to\tx\ny\r\b\f") + '\x01' + '\x1f' +
                             "\x7f caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
  TraceWriter t;
  t.processName(0, tricky);
  t.threadName(0, 1, "thread \"q\"");
  t.complete(0, 1, tricky, 1, 1, {{"key \"k\"\\", 1}});
  t.counter(0, "c\\", 2, "series\n", 3);
  std::string text = t.toString();
  EXPECT_NE(text.find("\\u0001\\u001f"), std::string::npos);
  EXPECT_NE(text.find("say \\\"hi\\\" \\\\ path\\\\to\\tx\\ny\\r\\b\\f"), std::string::npos);
  json j = json::parse(text);
  EXPECT_EQ(metadataOf(j)[0]["args"]["name"], tricky);
  EXPECT_EQ(metadataOf(j)[1]["args"]["name"], "thread \"q\"");
  auto events = eventsOf(j);
  EXPECT_EQ(events[0]["name"], tricky);
  EXPECT_EQ(events[0]["args"]["key \"k\"\\"], 1);
  EXPECT_EQ(events[1]["name"], "c\\");
  EXPECT_EQ(events[1]["args"]["series\n"], 3);
}

TEST(TraceTest, InvalidUtf8BecomesReplacementCharacter) {
  const std::string replacement = "\xEF\xBF\xBD";
  struct Case {
    std::string in, out;
  };
  for (const Case& c : std::vector<Case>{
           {"a\xff"
            "b",
            "a" + replacement + "b"},
           {"\xC3", replacement},                                     // truncated
           {"\xC0\x80", replacement + replacement},                   // overlong
           {"\xED\xA0\x80", replacement + replacement + replacement}, // surrogate
           {"\xF5\x80\x80\x80", replacement + replacement + replacement + replacement},
           {"ok \xE2\x82\xAC", "ok \xE2\x82\xAC"},
       }) {
    TraceWriter t;
    t.instant(0, 0, c.in, 1);
    json j = json::parse(t.toString());
    EXPECT_EQ(eventsOf(j)[0]["name"], c.out);
  }
}

TEST(TraceTest, SameEventsGiveIdenticalOutput) {
  TraceWriter a, b;
  feedSample(a);
  feedSample(b);
  EXPECT_EQ(a.toString(), b.toString());
  TraceWriter c(2), d(2);
  feedSample(c);
  feedSample(d);
  EXPECT_TRUE(c.capped());
  EXPECT_EQ(c.toString(), d.toString());
}

TEST(TraceTest, MovedWriterKeepsItsStrings) {
  TraceWriter a;
  feedSample(a);
  std::string before = a.toString();
  TraceWriter b(std::move(a));
  EXPECT_EQ(b.toString(), before);
  b.complete(0, 1, "load A", 20, 1); // interned name is found again after the move
  EXPECT_EQ(b.size(), 6u);
}

TEST_F(TraceFileTest, WriteProducesParsableDeterministicFiles) {
  TraceWriter a, b;
  feedSample(a);
  feedSample(b);
  std::string pathA = (dir_ / "a.json").string();
  std::string pathB = (dir_ / "b.json").string();
  a.write(pathA);
  b.write(pathB);
  std::string textA = slurp(pathA);
  EXPECT_EQ(textA, slurp(pathB));
  EXPECT_EQ(textA, a.toString());
  EXPECT_EQ(textA.back(), '\n');
  json j = json::parse(textA);
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  EXPECT_EQ(metadataOf(j).size(), 6u);
  EXPECT_EQ(eventsOf(j).size(), 5u);
}

TEST_F(TraceFileTest, WriteToMissingDirectoryThrows) {
  TraceWriter t;
  t.instant(0, 0, "a", 1);
  std::string path = (dir_ / "missing" / "trace.json").string();
  EXPECT_THROW(t.write(path), Error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(TraceFileTest, FailedRenameLeavesNoTemporaryFile) {
  TraceWriter t;
  t.instant(0, 0, "a", 1);
  std::filesystem::path target = dir_ / "occupied";
  std::filesystem::create_directories(target / "child");
  EXPECT_THROW(t.write(target.string()), Error);
  EXPECT_TRUE(std::filesystem::is_directory(target / "child"));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1u) << "the temporary file must be removed";
}

TEST_F(TraceFileTest, WriteReplacesAnExistingFile) {
  std::string path = (dir_ / "trace.json").string();
  {
    std::ofstream old(path);
    old << "old contents that are longer than nothing";
  }
  TraceWriter t;
  t.instant(0, 0, "new", 1);
  t.write(path);
  EXPECT_EQ(slurp(path), t.toString());
}

/// Counts events while validating JSON syntax, without building a document in memory.
struct CountingSax : nlohmann::json_sax<json> {
  size_t depth = 0;
  size_t objectsAtEventDepth = 0;
  size_t completes = 0;
  std::string lastKey;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t& s) override {
    if (lastKey == "ph" && s == "X") ++completes;
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (++depth == 2) ++objectsAtEventDepth; // the root is depth 1, events depth 2
    return true;
  }
  bool key(string_t& k) override {
    lastKey = k;
    return true;
  }
  bool end_object() override {
    --depth;
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

TEST_F(TraceFileTest, MillionEventsWrite) {
  constexpr size_t kEvents = 1'000'000;
  TraceWriter t;
  for (int core = 0; core < 32; ++core) {
    t.processName(core, "core " + std::to_string(core));
    for (int engine = 0; engine < 4; ++engine)
      t.threadName(core, engine, "engine " + std::to_string(engine));
  }
  const std::string names[] = {"load", "store", "matmul", "vector"};
  for (size_t i = 0; i < kEvents; ++i) {
    int core = static_cast<int>(i % 32);
    int engine = static_cast<int>(i / 32 % 4);
    // Recorded out of time order, so the sort does real work.
    double ts = static_cast<double>((i * 7919) % kEvents) * 0.001;
    t.complete(core, engine, names[engine], ts, 0.5, {{"bytes", i}, {"pc", i % 97}});
  }
  EXPECT_EQ(t.size(), kEvents);
  EXPECT_FALSE(t.capped());
  std::string path = (dir_ / "big.json").string();
  t.write(path);
  std::ifstream in(path, std::ios::binary);
  CountingSax sax;
  ASSERT_TRUE(json::sax_parse(in, &sax));
  EXPECT_EQ(sax.completes, kEvents);
  EXPECT_EQ(sax.objectsAtEventDepth, 1 + 32 + 32 * 4 + kEvents); // otherData + metadata
}

} // namespace
} // namespace chipless
