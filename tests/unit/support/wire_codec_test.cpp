// Traces and statistics that cross a process boundary (the device server) come back exactly:
// appending a trace recorded elsewhere from this writer's resume point gives the bytes that
// recording here would have, and a decoded Stats dumps like the original. Malformed input is
// an error naming the field, never a read past the end.
#include "support/error.h"
#include "support/stats.h"
#include "support/trace.h"
#include "support/wire.h"

#include <gtest/gtest.h>

namespace chipless {
namespace {

/// Records a small launch's worth of events into `t`.
void record(TraceWriter& t, int seed) {
  t.processName(seed, "core " + std::to_string(seed));
  t.processSortIndex(seed, seed);
  t.threadName(seed, 1, "load0");
  for (int i = 0; i < 5; ++i) {
    t.complete(seed, 1, "dma", 10.0 * i + seed, 2.5, {{"bytes", 128 * i}, {"addr", 4096}});
    t.counter(seed, "ring", 10.0 * i + 1, "GB/s", 1.5 * i);
  }
  t.instant(seed, 1, "done", 60.0 + seed);
}

TEST(WireCodec, ATraceRecordedElsewhereAppendsAsIfRecordedHere) {
  for (size_t cap : {1000u, 14u}) { // the second one drops events at the cap
    TraceWriter here(cap);
    record(here, 1);
    here.continueAfterLatest();
    TraceWriter expected(cap);
    record(expected, 1);
    expected.continueAfterLatest();
    record(expected, 2);
    expected.continueAfterLatest();
    record(expected, 3);

    TraceWriter::ResumePoint point = here.resumePoint();
    TraceWriter elsewhere(point.capacity);
    elsewhere.resumeFrom(point);
    record(elsewhere, 2);
    elsewhere.continueAfterLatest();
    record(elsewhere, 3);
    here.appendEncoded(elsewhere.encode(), "trace");
    EXPECT_EQ(here.toString(), expected.toString()) << "cap " << cap;
    EXPECT_EQ(here.dropped(), expected.dropped());
    // The writer goes on from where the other process left it.
    here.continueAfterLatest();
    expected.continueAfterLatest();
    record(here, 4);
    record(expected, 4);
    EXPECT_EQ(here.toString(), expected.toString());
  }
}

TEST(WireCodec, AMalformedTraceAppendsNothing) {
  TraceWriter source;
  record(source, 1);
  std::string encoded = source.encode();
  TraceWriter target;
  record(target, 7);
  std::string before = target.toString();
  for (size_t cut : {size_t{0}, size_t{5}, encoded.size() / 2, encoded.size() - 1}) {
    EXPECT_THROW(target.appendEncoded(encoded.substr(0, cut), "trace"), Error) << cut;
    EXPECT_EQ(target.toString(), before);
  }
  EXPECT_THROW(target.appendEncoded(encoded + "x", "trace"), Error);
  try {
    target.appendEncoded(encoded.substr(0, 20), "Launch reply trace");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Launch reply trace: field '"), std::string::npos)
        << e.what();
  }
}

TEST(WireCodec, StatsDecodeToTheSameTree) {
  Stats s;
  s.set("chip.core[3].load.busy_cycles", 1234, "cycles", "busy");
  s.set("chip.core[0].load.busy_cycles", 0.25, "cycles");
  s.add("chip.ring.bytes", 4096, "bytes", "moved on the ring");
  s.set("chip.utilization", 0.125, "fraction");
  Stats back = Stats::decode(s.encode(), "stats");
  EXPECT_EQ(back.jsonText(), s.jsonText());
  EXPECT_EQ(back.size(), s.size());
  // Still a working tree: more statistics can be added, with the same rules.
  back.add("chip.ring.bytes", 1, "bytes");
  EXPECT_EQ(back.get("chip.ring.bytes"), 4097);
  EXPECT_THROW(back.add("chip.ring.bytes", 1, "cycles"), Error);
  std::string encoded = s.encode();
  for (size_t cut : {size_t{3}, encoded.size() / 3, encoded.size() - 1})
    EXPECT_THROW(Stats::decode(encoded.substr(0, cut), "stats"), Error) << cut;
}

TEST(WireCodec, ReaderChecksEveryLengthAndCount) {
  WireWriter w;
  w.put<uint32_t>(7);
  w.putString("abc");
  w.putShape({2, 3});
  std::string bytes = w.take();
  WireReader r(bytes, "msg");
  EXPECT_EQ(r.get<uint32_t>("n"), 7u);
  EXPECT_EQ(r.getString("s"), "abc");
  EXPECT_EQ(r.getShape("shape"), (std::vector<int64_t>{2, 3}));
  r.expectEnd();
  WireWriter huge;
  huge.put<uint64_t>(1ull << 60); // a string claiming 2^60 bytes
  std::string h = huge.take();
  WireReader bad(h, "msg");
  try {
    bad.getString("name");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("msg: field 'name': truncated"), std::string::npos)
        << e.what();
  }
  WireWriter negative;
  negative.putShape({4, -1});
  std::string n = negative.take();
  WireReader neg(n, "msg");
  EXPECT_THROW(neg.getShape("shape"), Error);
}

} // namespace
} // namespace chipless
