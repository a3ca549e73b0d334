// TraceWriter's binary form: a launch recorded in the device server's worker process comes
// back to the client's writer event for event (support/trace.h: resumePoint, encode,
// appendEncoded).
#include "support/trace.h"
#include "support/wire.h"

#include <algorithm>
#include <cstdlib>

namespace chipless {

namespace {
/// Highest event time accepted from an encoded trace (as TraceWriter's own limit, in ns).
constexpr int64_t kMaxNs = 1'000'000'000'000'000'000;
} // namespace

TraceWriter::ResumePoint TraceWriter::resumePoint() const {
  return {offsetNs_, endNs_, maxEvents_ - std::min(maxEvents_, events_.size())};
}

void TraceWriter::resumeFrom(const ResumePoint& point) {
  offsetNs_ = point.offsetNs;
  endNs_ = point.endNs;
}

std::string TraceWriter::encode() const {
  WireWriter w;
  w.put<int64_t>(offsetNs_);
  w.put<int64_t>(endNs_);
  w.put<uint64_t>(dropped_);
  w.put<uint32_t>(static_cast<uint32_t>(processNames_.size()));
  for (const auto& [pid, name] : processNames_) {
    w.put<int32_t>(pid);
    w.putString(name);
  }
  w.put<uint32_t>(static_cast<uint32_t>(processSortIndex_.size()));
  for (const auto& [pid, index] : processSortIndex_) {
    w.put<int32_t>(pid);
    w.put<int32_t>(index);
  }
  w.put<uint32_t>(static_cast<uint32_t>(threadNames_.size()));
  for (const auto& [key, name] : threadNames_) {
    w.put<int32_t>(key.first);
    w.put<int32_t>(key.second);
    w.putString(name);
  }
  w.put<uint32_t>(static_cast<uint32_t>(strings_.size()));
  for (const std::string& s : strings_) w.putString(s);
  w.put<uint64_t>(events_.size());
  for (const Event& e : events_) {
    w.put<int64_t>(e.tsNs);
    w.put<int64_t>(e.durNs);
    w.put<int32_t>(e.pid);
    w.put<int32_t>(e.tid);
    w.put<uint32_t>(e.name);
    w.put<uint8_t>(static_cast<uint8_t>(e.phase));
    w.put<uint8_t>(e.argCount);
    for (uint32_t i = 0; i < e.argCount; ++i) {
      w.put<uint32_t>(args_[e.argBegin + i].key);
      w.put<double>(args_[e.argBegin + i].value);
    }
  }
  return w.take();
}

void TraceWriter::appendEncoded(std::string_view encoded, const std::string& what) {
  // Decode everything first: a malformed trace appends nothing.
  WireReader r(encoded, what);
  int64_t offset = r.get<int64_t>("offset");
  int64_t end = r.get<int64_t>("end");
  uint64_t dropped = r.get<uint64_t>("dropped");
  std::map<int, std::string> processNames;
  for (uint32_t n = r.getCount("process names", 12); n > 0; --n) {
    int pid = r.get<int32_t>("pid");
    processNames[pid] = r.getString("process name");
  }
  std::map<int, int> sortIndex;
  for (uint32_t n = r.getCount("sort indices", 8); n > 0; --n) {
    int pid = r.get<int32_t>("pid");
    sortIndex[pid] = r.get<int32_t>("sort index");
  }
  std::map<std::pair<int, int>, std::string> threadNames;
  for (uint32_t n = r.getCount("thread names", 16); n > 0; --n) {
    int pid = r.get<int32_t>("pid");
    int tid = r.get<int32_t>("tid");
    threadNames[{pid, tid}] = r.getString("thread name");
  }
  std::vector<std::string> strings(r.getCount("strings", 8));
  for (auto& s : strings) s = r.getString("string");
  struct Decoded {
    Event event;
    std::vector<std::pair<uint32_t, double>> args;
  };
  uint64_t count = r.get<uint64_t>("events");
  if (count > r.remaining() / 30) r.fail("events", "count exceeds the message");
  std::vector<Decoded> events(count);
  for (Decoded& d : events) {
    Event& e = d.event;
    e.tsNs = r.get<int64_t>("event time");
    e.durNs = r.get<int64_t>("event duration");
    if (std::abs(e.tsNs) > kMaxNs || e.durNs < 0 || e.durNs > kMaxNs)
      r.fail("event time", "out of range");
    e.pid = r.get<int32_t>("event pid");
    e.tid = r.get<int32_t>("event tid");
    e.name = r.get<uint32_t>("event name");
    e.phase = static_cast<char>(r.get<uint8_t>("event phase"));
    e.argCount = r.get<uint8_t>("event arguments");
    if (e.name >= strings.size()) r.fail("event name", "no such string");
    if (e.phase != 'X' && e.phase != 'i' && e.phase != 'C') r.fail("event phase", "unknown");
    if (e.argCount > TraceArgs::kMax) r.fail("event arguments", "too many");
    for (uint8_t i = 0; i < e.argCount; ++i) {
      uint32_t key = r.get<uint32_t>("argument key");
      if (key >= strings.size()) r.fail("argument key", "no such string");
      d.args.emplace_back(key, r.get<double>("argument value"));
    }
  }
  r.expectEnd();

  for (auto& [pid, name] : processNames) processNames_[pid] = std::move(name);
  for (auto& [pid, index] : sortIndex) processSortIndex_[pid] = index;
  for (auto& [key, name] : threadNames) threadNames_[key] = std::move(name);
  for (Decoded& d : events) {
    if (events_.size() >= maxEvents_) {
      ++dropped_;
      continue;
    }
    Event e = d.event;
    e.name = intern(strings[e.name]);
    e.argBegin = static_cast<uint32_t>(args_.size());
    for (const auto& [key, value] : d.args) args_.push_back({intern(strings[key]), value});
    events_.push_back(e);
  }
  dropped_ += dropped;
  offsetNs_ = offset;
  endNs_ = std::max(endNs_, end);
}

} // namespace chipless
