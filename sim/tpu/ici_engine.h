#pragma once
/// The ICI engine of one chip: runs the collectives its TensorCores issue (ici.allreduce,
/// ici.allgather, ici.reducescatter) by the ring algorithm, step by step, moving real data
/// to the next chip of the ring over the modelled links and waiting for the previous chip's
/// data. Every chip of the system must issue the same collectives in the same order: the
/// k-th collective of each chip is one collective.
#include "sim/tpu/unit.h"
#include "support/dtype.h"
#include "support/tpuprog/isa.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace chipless::sim::tpu {

class TensorCore;

/// One collective as issued by a TensorCore.
struct CollectiveRequest {
  tpuprog::Opcode kind = tpuprog::Opcode::IciAllReduce;
  DType type = DType::F32; ///< element type of the reduction (all-gather: unused)
  uint64_t src = 0, dst = 0;
  int64_t bytes = 0; ///< all-reduce: the vector; all-gather / reduce-scatter: one chip's block
  int64_t sem = -1;  ///< semaphore of the issuing core signalled on completion
  TensorCore* issuer = nullptr;
  Cycles issued = 0;
  size_t pc = 0;
};

class IciEngine : public Unit {
public:
  SC_HAS_PROCESS(IciEngine);
  IciEngine(sc_core::sc_module_name name, System& system, int chip);

  /// Resets for a launch starting at `start`.
  void arm(Cycles start);
  /// Queues a collective (called by a TensorCore of this chip in its issue order).
  void submit(const CollectiveRequest& request);
  /// A message from chip `from` arrives (called by the sending chip's engine).
  void deliver(int seq, int phase, int step, int from, Cycles arrival, std::vector<uint8_t> data,
               int64_t bytes);

  /// Counters of the current launch.
  uint64_t collectives = 0;
  double bytesSent = 0;
  Cycles busyCycles = 0;

private:
  struct Message {
    Cycles arrival;
    std::vector<uint8_t> data;
    int64_t bytes;
    int from;
  };
  void thread();
  void run(const CollectiveRequest& r);
  /// Sends `bytes` (with `data` unless timing-only) to the next chip of the ring.
  void send(int seq, int phase, int step, const uint8_t* data, int64_t bytes);
  /// Waits for the message of (seq, phase, step) from the previous chip of the ring.
  Message receive(int seq, int phase, int step, int64_t bytes, const char* what);
  [[noreturn]] void fault(const CollectiveRequest& r, const std::string& message) const;

  int chip_;
  std::deque<CollectiveRequest> queue_;
  sc_core::sc_event queued_, delivered_;
  std::map<std::tuple<int, int, int>, Message> mailbox_;
  int seq_ = 0;
  std::vector<Cycles> starts_;
};

} // namespace chipless::sim::tpu
