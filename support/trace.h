#pragma once
/// Timeline traces in the Chrome Trace Event JSON format (Perfetto UI, chrome://tracing).
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace chipless {

class StagedFile;

/// One numeric argument of a trace event, shown in the viewer's details pane.
struct TraceArg {
  /// Builds from any arithmetic value, so `{"bytes", n}` works for integer `n` without a cast.
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  TraceArg(std::string_view k, T v) : key(k), value(static_cast<double>(v)) {}

  std::string_view key; ///< Only needs to live until the TraceWriter call returns.
  double value;         ///< Written as an integer when whole, null when not finite.
};

/// Up to kMax numeric arguments of one event: `TraceArgs{{"bytes", 128}, {"addr", 4096}}`.
/// Fixed-size so recording an event never allocates for its arguments.
class TraceArgs {
public:
  /// Most arguments one event can carry.
  static constexpr size_t kMax = 4;

  /// No arguments.
  TraceArgs() = default;
  /// The given arguments in order; chipless::Error when there are more than kMax.
  TraceArgs(std::initializer_list<TraceArg> args);

  /// Appends one argument; chipless::Error when kMax are already present.
  void add(std::string_view key, double value);
  /// Number of arguments.
  size_t size() const { return count_; }
  /// Argument `i` (< size()).
  const TraceArg& operator[](size_t i) const { return items_[i]; }

private:
  std::array<TraceArg, kMax> items_{{{"", 0}, {"", 0}, {"", 0}, {"", 0}}};
  size_t count_ = 0;
};

/// Collects timeline events in memory and writes them as one Chrome Trace Event JSON file.
/// Layout used by the simulator: one process (pid) per core, one thread (tid) per engine,
/// counters for link and DRAM bandwidth. Built for millions of events: each event is a small
/// struct with interned names and numeric arguments, and write() streams text directly
/// (no JSON object per event). Timestamps are microseconds, kept at nanosecond resolution
/// and printed with exactly three decimals, so equal inputs give byte-identical files.
///
/// The number of stored events is capped; later events are counted and dropped, and the
/// written file says so (see write()). Metadata (names, sort order) is never capped.
class TraceWriter {
public:
  /// A writer that keeps at most `maxEvents` events (metadata excluded).
  explicit TraceWriter(size_t maxEvents = 2'000'000);

  TraceWriter(const TraceWriter&) = delete;            ///< Interned views point into *this.
  TraceWriter& operator=(const TraceWriter&) = delete; ///< Interned views point into *this.
  TraceWriter(TraceWriter&&) = default;                ///< Moving keeps the strings in place.
  TraceWriter& operator=(TraceWriter&&) = default;     ///< Moving keeps the strings in place.

  /// Names process `pid` in the viewer (e.g. "core 3"); a later call replaces the name.
  void processName(int pid, const std::string& name);
  /// Orders process `pid` among processes in the viewer (lower first).
  void processSortIndex(int pid, int index);
  /// Names thread `tid` of process `pid` (e.g. "load0"); a later call replaces the name.
  void threadName(int pid, int tid, const std::string& name);

  /// A span ("X" event) on track (pid, tid) from `tsUs` lasting `durUs` microseconds.
  /// chipless::Error when a time is not finite or the duration is negative.
  void complete(int pid, int tid, const std::string& name, double tsUs, double durUs,
                TraceArgs args = {});
  /// A point event ("i", thread scope) on track (pid, tid) at `tsUs`; same time rules.
  void instant(int pid, int tid, const std::string& name, double tsUs, TraceArgs args = {});
  /// A counter sample ("C"): series `series` of counter `name` in process `pid` becomes
  /// `value` at `tsUs` and stays there until the next sample; same time rules.
  void counter(int pid, const std::string& name, double tsUs, const std::string& series,
               double value);

  /// Shifts every event recorded from now on by the end of the latest event so far, so a
  /// run that follows another (the next kernel of a multi-kernel job, which starts its own
  /// clock at 0) appears after it on the same tracks.
  void continueAfterLatest();

  /// Where recording stands: the offset added to new events, the latest end so far, and how
  /// many more events fit under the cap. A launch recorded in another process (the device
  /// server's worker) starts from this point, so appending its events (appendEncoded) gives
  /// exactly what recording them here would have.
  struct ResumePoint {
    int64_t offsetNs = 0;
    int64_t endNs = 0;
    uint64_t capacity = 0;
  };
  ResumePoint resumePoint() const;
  /// Continues from `point` (a fresh writer of cap point.capacity, in the other process).
  void resumeFrom(const ResumePoint& point);
  /// Everything recorded (metadata, events, drops, offset and end) in a compact binary form.
  std::string encode() const;
  /// Appends what `encoded` (encode() of a writer resumed from this one's resumePoint())
  /// holds: its events as recorded, its metadata, drops, offset and end. chipless::Error,
  /// starting with `what`, when `encoded` is malformed; nothing is appended then.
  void appendEncoded(std::string_view encoded, const std::string& what);
  /// Whether any event was dropped because the cap was reached.
  bool capped() const { return dropped_ > 0; }
  /// Number of events dropped because of the cap.
  size_t dropped() const { return dropped_; }
  /// Number of events stored (metadata excluded); at most the cap.
  size_t size() const { return events_.size(); }
  /// The cap given at construction.
  size_t maxEvents() const { return maxEvents_; }

  /// The whole trace as JSON text:
  /// {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[...]} with metadata events
  /// first (processes, then threads, by id), then events sorted by (time, pid, tid,
  /// recording order). When capped, otherData carries "truncated": true, "dropped_events",
  /// "cap" and a "message", and a global instant "trace capped: later events dropped" marks
  /// the time of the last kept event.
  std::string toString() const;

  /// Writes toString() to `path`, streamed in chunks to a temporary file that is then
  /// renamed over `path`; chipless::Error on failure, leaving an existing `path` untouched.
  void write(const std::string& path) const;
  /// Writes toString() into a staged file (one of a command's OutputSet) in chunks.
  void write(StagedFile& file) const;

private:
  /// One recorded event; names are string-table ids, arguments live in args_.
  struct Event {
    int64_t tsNs;      ///< Start time in nanoseconds.
    int64_t durNs;     ///< Duration in nanoseconds ("X" only).
    int32_t pid;       ///< Process id.
    int32_t tid;       ///< Thread id (0 for counters).
    uint32_t name;     ///< String-table id of the name.
    uint32_t argBegin; ///< Index of the first argument in args_.
    uint8_t argCount;  ///< Number of arguments.
    char phase;        ///< 'X', 'i' or 'C'.
  };
  /// One stored argument.
  struct Arg {
    uint32_t key; ///< String-table id of the key.
    double value; ///< Value.
  };

  /// Appends the whole trace text to `out`; when `drain` is set, hands it `out` whenever
  /// it grows past a chunk (and once at the end), so memory stays bounded while writing.
  void render(std::string& out, const std::function<void(std::string&)>& drain) const;
  /// Returns the id of `text` in the string table, adding it if new.
  uint32_t intern(std::string_view text);
  /// Stores an event unless the cap is reached (then counts it as dropped).
  void record(char phase, int pid, int tid, std::string_view name, int64_t tsNs, int64_t durNs,
              const TraceArgs& args);

  size_t maxEvents_;                ///< Cap on events_.size().
  size_t dropped_ = 0;              ///< Events refused because of the cap.
  int64_t offsetNs_ = 0;            ///< Added to every event's time (continueAfterLatest).
  int64_t endNs_ = 0;               ///< The latest end of an event recorded (after the offset).
  std::vector<Event> events_;       ///< Events in recording order.
  std::vector<Arg> args_;           ///< Arguments of all events.
  std::deque<std::string> strings_; ///< String table; deque keeps addresses.
  std::unordered_map<std::string_view, uint32_t> ids_;     ///< View into strings_ -> id.
  std::map<int, std::string> processNames_;                ///< pid -> name.
  std::map<int, int> processSortIndex_;                    ///< pid -> sort index.
  std::map<std::pair<int, int>, std::string> threadNames_; ///< (pid, tid) -> name.
};

} // namespace chipless
