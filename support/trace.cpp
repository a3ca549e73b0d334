#include "support/trace.h"

#include "support/atomic_file.h"
#include "support/error.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace chipless {
namespace {

/// Largest |time| in microseconds accepted (about 31 years), so nanoseconds fit an int64.
constexpr double kMaxTimeUs = 1e15;

/// Most events a writer may keep: argument indices are 32-bit.
constexpr size_t kMaxCap = 1'000'000'000;

/// Text accumulated before write() hands it to the file.
constexpr size_t kChunkBytes = 1 << 20;

/// Name of the instant event that marks where a capped trace stops.
constexpr const char* kCappedName = "trace capped: later events dropped";

/// Appends `text` as a JSON string literal: quotes, backslashes and control characters are
/// escaped, and bytes that are not valid UTF-8 become U+FFFD so the file always parses.
void appendQuoted(std::string& out, std::string_view text) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c < 0x80) {
      switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
      }
      ++i;
      continue;
    }
    // Multi-byte UTF-8: check the lead byte, then the allowed range of the second byte
    // (which excludes overlong forms and surrogates), then the remaining continuations.
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    bool valid = len > 0 && i + len <= n && s[i + 1] >= lo && s[i + 1] <= hi;
    for (size_t k = 2; valid && k < len; ++k) valid = s[i + k] >= 0x80 && s[i + k] <= 0xBF;
    if (valid) {
      out.append(text.data() + i, len);
      i += len;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  out += '"';
}

/// Appends the decimal form of `v`.
void appendInt(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

/// Appends `ns` nanoseconds as microseconds with exactly three decimals ("12.345").
void appendTime(std::string& out, int64_t ns) {
  if (ns < 0) out += '-';
  uint64_t abs = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  appendInt(out, static_cast<int64_t>(abs / 1000));
  uint64_t frac = abs % 1000;
  out += '.';
  out += static_cast<char>('0' + frac / 100);
  out += static_cast<char>('0' + frac / 10 % 10);
  out += static_cast<char>('0' + frac % 10);
}

/// Appends `v` as a JSON number: an integer when whole, else the shortest form that reads
/// back exactly; null when not finite (JSON has no NaN or infinity).
void appendNumber(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
  } else if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) {
    appendInt(out, static_cast<int64_t>(v));
  } else {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
  }
}

/// Converts microseconds to whole nanoseconds, rejecting times outside the trace's range.
int64_t toNs(double us, std::string_view event, const char* what) {
  if (!std::isfinite(us) || std::fabs(us) > kMaxTimeUs)
    throw Error("trace: event '" + std::string(event) + "' has an invalid " + what);
  return std::llround(us * 1000.0);
}

/// Sort key of one event: time, process, thread, then recording order.
struct SortKey {
  int64_t tsNs;
  int32_t pid;
  int32_t tid;
  uint32_t index;
  bool operator<(const SortKey& o) const {
    if (tsNs != o.tsNs) return tsNs < o.tsNs;
    if (pid != o.pid) return pid < o.pid;
    if (tid != o.tid) return tid < o.tid;
    return index < o.index;
  }
};

/// Appends one metadata event named `kind` whose single argument `key` is raw JSON `value`.
void appendMetadata(std::string& out, const char* kind, int pid, int tid, const char* key,
                    const std::string& value) {
  out += "{\"name\":\"";
  out += kind;
  out += "\",\"cat\":\"__metadata\",\"ph\":\"M\",\"ts\":0,\"pid\":";
  appendInt(out, pid);
  out += ",\"tid\":";
  appendInt(out, tid);
  out += ",\"args\":{\"";
  out += key;
  out += "\":";
  out += value;
  out += "}}";
}

} // namespace

TraceArgs::TraceArgs(std::initializer_list<TraceArg> args) {
  for (const TraceArg& arg : args) add(arg.key, arg.value);
}

void TraceArgs::add(std::string_view key, double value) {
  if (count_ == kMax)
    throw Error("trace: an event takes at most " + std::to_string(kMax) + " arguments");
  items_[count_++] = TraceArg(key, value);
}

TraceWriter::TraceWriter(size_t maxEvents) : maxEvents_(maxEvents) {
  if (maxEvents > kMaxCap)
    throw Error("trace: event limit " + std::to_string(maxEvents) + " is above " +
                std::to_string(kMaxCap));
}

uint32_t TraceWriter::intern(std::string_view text) {
  auto found = ids_.find(text);
  if (found != ids_.end()) return found->second;
  auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(text);
  ids_.emplace(std::string_view(strings_.back()), id);
  return id;
}

void TraceWriter::record(char phase, int pid, int tid, std::string_view name, int64_t tsNs,
                         int64_t durNs, const TraceArgs& args) {
  if (events_.size() >= maxEvents_) {
    ++dropped_;
    return;
  }
  Event event;
  event.tsNs = tsNs + offsetNs_;
  event.durNs = durNs;
  endNs_ = std::max(endNs_, event.tsNs + durNs);
  event.pid = pid;
  event.tid = tid;
  event.name = intern(name);
  event.argBegin = static_cast<uint32_t>(args_.size());
  event.argCount = static_cast<uint8_t>(args.size());
  event.phase = phase;
  for (size_t i = 0; i < args.size(); ++i) args_.push_back({intern(args[i].key), args[i].value});
  events_.push_back(event);
}

void TraceWriter::continueAfterLatest() {
  offsetNs_ = endNs_;
}

void TraceWriter::processName(int pid, const std::string& name) {
  processNames_[pid] = name;
}

void TraceWriter::processSortIndex(int pid, int index) {
  processSortIndex_[pid] = index;
}

void TraceWriter::threadName(int pid, int tid, const std::string& name) {
  threadNames_[{pid, tid}] = name;
}

void TraceWriter::complete(int pid, int tid, const std::string& name, double tsUs, double durUs,
                           TraceArgs args) {
  int64_t ts = toNs(tsUs, name, "timestamp");
  int64_t dur = toNs(durUs, name, "duration");
  if (durUs < 0) throw Error("trace: event '" + name + "' has a negative duration");
  record('X', pid, tid, name, ts, dur, args);
}

void TraceWriter::instant(int pid, int tid, const std::string& name, double tsUs, TraceArgs args) {
  record('i', pid, tid, name, toNs(tsUs, name, "timestamp"), 0, args);
}

void TraceWriter::counter(int pid, const std::string& name, double tsUs, const std::string& series,
                          double value) {
  TraceArgs args;
  args.add(series, value);
  record('C', pid, 0, name, toNs(tsUs, name, "timestamp"), 0, args);
}

void TraceWriter::render(std::string& out, const std::function<void(std::string&)>& drain) const {
  // Quote every interned string once; events then refer to them by id.
  std::vector<std::string> quoted(strings_.size());
  for (size_t i = 0; i < strings_.size(); ++i) appendQuoted(quoted[i], strings_[i]);

  std::vector<SortKey> order(events_.size());
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    order[i] = {e.tsNs, e.pid, e.tid, static_cast<uint32_t>(i)};
  }
  std::sort(order.begin(), order.end());

  out += "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
  if (capped()) {
    out += "\"truncated\":true,\"dropped_events\":";
    appendInt(out, static_cast<int64_t>(dropped_));
    out += ",\"cap\":";
    appendInt(out, static_cast<int64_t>(maxEvents_));
    out += ",\"message\":\"trace capped at ";
    appendInt(out, static_cast<int64_t>(maxEvents_));
    out += " events; raise the limit with --trace-limit\"";
  } else {
    out += "\"truncated\":false";
  }
  out += "},\n\"traceEvents\":[";

  // Every entry starts with its separator, so a drained chunk never needs to be revised.
  bool first = true;
  auto separate = [&] {
    out += first ? "\n" : ",\n";
    first = false;
  };
  std::string value;
  for (const auto& [pid, name] : processNames_) {
    value.clear();
    appendQuoted(value, name);
    separate();
    appendMetadata(out, "process_name", pid, 0, "name", value);
  }
  for (const auto& [pid, index] : processSortIndex_) {
    value.clear();
    appendInt(value, index);
    separate();
    appendMetadata(out, "process_sort_index", pid, 0, "sort_index", value);
  }
  for (const auto& [ids, name] : threadNames_) {
    value.clear();
    appendQuoted(value, name);
    separate();
    appendMetadata(out, "thread_name", ids.first, ids.second, "name", value);
  }

  for (const SortKey& key : order) {
    const Event& e = events_[key.index];
    separate();
    out += "{\"name\":";
    out += quoted[e.name];
    switch (e.phase) {
    case 'X':
      out += ",\"ph\":\"X\",\"ts\":";
      break;
    case 'i':
      out += ",\"ph\":\"i\",\"s\":\"t\",\"ts\":";
      break;
    default:
      out += ",\"ph\":\"C\",\"ts\":";
      break;
    }
    appendTime(out, e.tsNs);
    if (e.phase == 'X') {
      out += ",\"dur\":";
      appendTime(out, e.durNs);
    }
    out += ",\"pid\":";
    appendInt(out, e.pid);
    if (e.phase != 'C') {
      out += ",\"tid\":";
      appendInt(out, e.tid);
    }
    if (e.argCount > 0) {
      out += ",\"args\":{";
      for (size_t a = 0; a < e.argCount; ++a) {
        const Arg& arg = args_[e.argBegin + a];
        if (a) out += ',';
        out += quoted[arg.key];
        out += ':';
        appendNumber(out, arg.value);
      }
      out += '}';
    }
    out += '}';
    if (drain && out.size() >= kChunkBytes) drain(out);
  }

  if (capped()) {
    // A global marker at the end of what was kept, so the cut is visible on the timeline.
    const Event* last = order.empty() ? nullptr : &events_[order.back().index];
    separate();
    out += "{\"name\":";
    appendQuoted(out, kCappedName);
    out += ",\"ph\":\"i\",\"s\":\"g\",\"ts\":";
    appendTime(out, last ? last->tsNs : 0);
    out += ",\"pid\":";
    appendInt(out, last ? last->pid : 0);
    out += ",\"tid\":";
    appendInt(out, last ? last->tid : 0);
    out += ",\"args\":{\"dropped_events\":";
    appendInt(out, static_cast<int64_t>(dropped_));
    out += "}}";
  }
  out += "\n]}\n";
  if (drain) drain(out);
}

std::string TraceWriter::toString() const {
  std::string out;
  out.reserve(256 + 100 * events_.size() + 16 * args_.size());
  render(out, nullptr);
  return out;
}

void TraceWriter::write(const std::string& path) const {
  StagedFile file(path);
  write(file);
  file.commit();
}

void TraceWriter::write(StagedFile& file) const {
  // Streamed in chunks: a 2M-event trace would otherwise need ~200 MB of text in memory.
  std::string chunk;
  chunk.reserve(kChunkBytes + 4096);
  render(chunk, [&](std::string& text) {
    file.append(text);
    text.clear();
  });
}

} // namespace chipless
