#pragma once
/// A bounded, blocking FIFO of sticks between two engines of a corelet (load unit →
/// compute, compute → store unit).
///
/// Engines stream many sticks per instruction, so the FIFO records when sticks were pushed
/// and popped as linear runs of times instead of one event per stick. A producer may be at
/// most `depth` sticks ahead of its consumer: stick g can only be pushed once stick
/// g - depth was popped. The producer learns those pop times from the consumer (the
/// engines exchange them through this object), so back-pressure and stalls come out of
/// the model, not out of a formula.
#include "sim/common/timeline.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace chipless::sim::spyre {

class StreamFifo {
public:
  StreamFifo(std::string name, int depth, Cycles latency, int stickBytes, bool storeBytes);

  const std::string& name() const { return name_; }
  int depth() const { return depth_; }
  Cycles latency() const { return latency_; }

  /// Sticks pushed and popped since the FIFO was created (global stick indices).
  uint64_t pushed() const { return pushed_; }
  uint64_t popped() const { return popped_; }
  /// Sticks waiting to be popped.
  uint64_t available() const { return pushed_ - popped_; }

  /// Appends `count` sticks pushed at times evenly spread over [first, last]. `data`
  /// holds count sticks (ignored without stored bytes); when it is the space reserve(count)
  /// returned, the bytes are already in place and nothing is copied.
  void push(uint64_t count, Cycles first, Cycles last, const uint8_t* data);
  /// Removes `count` sticks popped at times spread over [first, last], copying their
  /// bytes to `out` (if not null).
  void pop(uint64_t count, Cycles first, Cycles last, uint8_t* out);

  /// Space for the bytes of the next `count` sticks, for a producer to write them in place
  /// and then push(count, ..., this pointer): no copy. Valid until the next push. Null
  /// without stored bytes.
  uint8_t* reserve(uint64_t count);
  /// The bytes of the sticks not yet popped, oldest first and contiguous, for a consumer
  /// to read in place (then pop without copying). Valid until the next reserve or push.
  /// Null without stored bytes.
  const uint8_t* front() const;

  /// When stick `index` (not yet popped) can be popped: its push time plus the latency.
  Cycles readyTime(uint64_t index) const;
  /// When stick `index` (already popped) was popped.
  Cycles popTime(uint64_t index) const;

  /// Notified whenever sticks are pushed or popped.
  sc_core::sc_event& changed() { return changed_; }

  /// Drops all contents (between launches; a well-formed program leaves FIFOs empty).
  void clear();

private:
  struct Run {
    uint64_t first; ///< global index of the first stick
    uint64_t count;
    Cycles t0, t1; ///< times of the first and the last stick
    Cycles at(uint64_t index) const {
      if (count <= 1) return t0;
      return t0 + (t1 - t0) * static_cast<double>(index - first) / static_cast<double>(count - 1);
    }
  };
  static Cycles lookup(const std::deque<Run>& runs, uint64_t index);

  std::string name_;
  int depth_;
  Cycles latency_;
  int stickBytes_;
  bool storeBytes_;
  uint64_t pushed_ = 0, popped_ = 0;
  std::deque<Run> pushRuns_; ///< push times of sticks not yet popped
  std::deque<Run> popRuns_;  ///< pop times of recently popped sticks
  /// Storage (uninitialised: growing it writes only the sticks in flight); their payloads
  /// are [head_, tail_).
  std::unique_ptr<uint8_t[]> bytes_;
  size_t capacity_ = 0;
  size_t head_ = 0, tail_ = 0;
  sc_core::sc_event changed_;
};

} // namespace chipless::sim::spyre
