#pragma once
/// Base of the three corelet engines (load unit, compute unit, store unit): they move
/// streams of sticks through the corelet's FIFOs.
#include "sim/spyre/engine.h"
#include "sim/spyre/stream_fifo.h"

#include <functional>
#include <initializer_list>
#include <vector>

namespace chipless::sim::spyre {

/// Address of stick `item` of a box with counts n and strides s (dimension 0 innermost).
inline int64_t boxAddress(int64_t base, int64_t item, const int64_t n[3], const int64_t s[3]) {
  int64_t i0 = item % n[0], rest = item / n[0];
  return base + i0 * s[0] + (rest % n[1]) * s[1] + (rest / n[1]) * s[2];
}

/// Copies sticks [first, first + count) of the box at `base` (counts n, strides s) from the
/// scratchpad `pad` to `stream`, back to back: a whole run of contiguous sticks (s[0] equal to
/// the stick) at a time.
void gatherBox(const uint8_t* pad, int64_t base, const int64_t n[3], const int64_t s[3],
               int64_t first, int64_t count, int64_t stick, uint8_t* stream);
/// The reverse: sticks back to back in `stream` to the box's addresses in `pad`, in order (a
/// stick written twice keeps the later one).
void scatterBox(uint8_t* pad, int64_t base, const int64_t n[3], const int64_t s[3], int64_t first,
                int64_t count, int64_t stick, const uint8_t* stream);

class CoreletEngine : public Engine {
public:
  using Engine::Engine;

protected:
  /// One FIFO taking part in a stream, and how many sticks each item moves through it.
  struct Port {
    StreamFifo* fifo;
    int64_t sticksPerItem;
  };
  /// Up to four ports of one side of a stream (the SFU reads at most three FIFOs).
  class Ports {
  public:
    Ports() = default;
    Ports(std::initializer_list<Port> list) {
      for (const Port& p : list) add(p);
    }
    void add(const Port& p) { items_[size_++] = p; }
    size_t size() const { return size_; }
    const Port& operator[](size_t i) const { return items_[i]; }
    const Port* begin() const { return items_; }
    const Port* end() const { return items_ + size_; }

  private:
    Port items_[4] = {};
    size_t size_ = 0;
  };
  /// Functional part of a piece of a stream: items [first, first+count); in[i] / out[j]
  /// hold count*sticksPerItem sticks of the i-th input / j-th output port.
  using Work = std::function<void(int64_t first, int64_t count, const uint8_t* const* in,
                                  uint8_t* const* out)>;

  /// Streams `items` items through this engine: one item every `interval` cycles, each
  /// taking `latency` cycles from input to output. Inputs are popped as data arrives;
  /// outputs are pushed and the engine is held back when a consumer is `depth` sticks
  /// behind. Work runs only in functional mode. Returns the time the first item started.
  Cycles stream(int64_t items, Cycles interval, Cycles latency, const Ports& ins, const Ports& outs,
                const Work& work);

  /// Input FIFO `port` (an in<N> port value) of this corelet, or a fault.
  StreamFifo& inputFifo(int64_t port);
  /// Output FIFO `port` (an out<N> port value) of this corelet, or a fault.
  StreamFifo& outputFifo(int64_t port);
  /// Checks that every stick address addr + i0*s0 + i1*s1 + i2*s2 (i_k < n_k) lies in the
  /// scratchpad and is stick-aligned; faults naming the operand otherwise.
  void checkStickBox(const char* what, int64_t addr, const int64_t n[3], const int64_t s[3]);
  /// The sticks of a box of counts `n` (an error when their product passes 64 bits).
  int64_t boxItems(const int64_t n[3]);
  /// Scratchpad bytes of this engine's core.
  uint8_t* scratchpad();
  int64_t stickBytes() const;
  bool functional() const;
};

} // namespace chipless::sim::spyre
