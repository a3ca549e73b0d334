#pragma once
/// One TensorCore: a scalar unit that issues the program's VLIW bundles, vector registers and
/// the VPU, mxu.count MXUs, dma.engines DMA engines, semaphores, and its VMEM and SMEM
/// holding real bytes.
///
/// Timing is event driven: the scalar unit keeps its own time and issues one bundle every
/// scalar.cycles_per_bundle. Operations are whole: a fold, a vector op over n registers, a
/// DMA, a collective. Each unit computes when an operation can start (unit free, operands
/// ready, VMEM hazards) and how long it takes, and moves on; the SystemC kernel only advances
/// when a DMA or ICI transfer must reserve HBM channels or ICI links in time order, or a
/// unit waits for another core or chip. Vector operations are scoreboarded (issue never
/// waits for them); MXU folds, DMAs and collectives report completion on semaphores.
/// Conflicting VMEM accesses of the asynchronous units that the program did not order with
/// a semaphore are reported as races.
#include "sim/common/partition.h"
#include "sim/common/scalar_control.h"
#include "sim/common/token_bank.h"
#include "sim/tpu/unit.h"
#include "sim/tpu/vmem_access.h"
#include "sim/tpu/vmem_inflight.h"
#include "support/stats.h"
#include "support/tpuprog/program.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace chipless::sim::tpu {

class TensorCore : public Unit {
public:
  SC_HAS_PROCESS(TensorCore);
  TensorCore(sc_core::sc_module_name name, System& system, int chip, int core);

  int chip() const { return chip_; }
  int core() const { return core_; }
  /// Gives the core its program for the next launch (nullptr: nothing to do), the values of
  /// its symbols and the partition it runs in (its core number and HBM addresses are the
  /// partition's).
  void arm(const tpuprog::Program* program, Cycles start, const Partition& partition,
           const std::vector<int64_t>* symbols);
  /// When the core's program and everything it started had finished (after a launch).
  Cycles finishedAt() const { return std::max(local_, lastAsyncDone_); }
  /// The bundle being issued (or where the core stopped).
  size_t pc() const { return pc_; }
  /// "chip 0 core 1 pc 7" (the label is "chip 0 core 1").
  std::string where() const override;
  TokenBank& semaphores() { return sems_; }
  /// VMEM bytes (nullptr in timing-only mode).
  uint8_t* vmem() { return vmem_.get(); }
  /// A collective issued by this core finished at `t` (called by the chip's ICI engine).
  void collectiveDone(Cycles t);
  /// Adds this core's statistics under `prefix` ("chip[0].core[1].").
  void addStats(Stats& stats, const std::string& prefix, Cycles cycles) const;

  /// Counters of the current launch.
  struct Counters {
    uint64_t bundles = 0, ops = 0;
    Cycles issueStall = 0;           ///< issue held by sem.wait, fence or a scalar load
    Cycles vldBusy = 0, vstBusy = 0; ///< cycles the load / store slots moved registers
    Cycles valuBusy = 0;             ///< cycles the vector ALU issued
    uint64_t vregOps = 0;            ///< register-operations of the vector ALU
    double vmemBytesLoaded = 0, vmemBytesStored = 0;
    double dmaBytesIn = 0, dmaBytesOut = 0, iciBytesSent = 0;
    uint64_t dmas = 0, collectives = 0;
  };
  const Counters& counters() const { return counters_; }
  /// Per-MXU counters.
  struct MxuCounters {
    uint64_t folds = 0;
    double flops = 0;
    Cycles busy = 0; ///< union of [first weight in, last result out) of its folds
    Cycles firstStart = -1, lastDone = 0;
  };
  const std::vector<MxuCounters>& mxuCounters() const { return mxuCounters_; }
  /// DMA engine busy cycles (issue occupancy), per engine.
  const std::vector<Cycles>& dmaBusy() const { return dmaBusy_; }

private:
  void runProgram() override;
  /// Executes one operation; returns the next pc when it is a taken control operation.
  bool execute(const tpuprog::Op& op, size_t& nextPc);

  // scalar unit
  bool scalarOp(const tpuprog::Op& op, size_t& nextPc);
  int64_t arg(const tpuprog::Op& op, size_t index);
  void semWait(int64_t sem, int64_t count);
  void fence();

  // vector unit
  void vectorLoadStore(const tpuprog::Op& op, bool load);
  void vectorAlu(const tpuprog::Op& op);
  int64_t vregIndex(const tpuprog::Op& op, size_t operand, int64_t n);
  uint32_t* vreg(int64_t v) { return &vregs_[static_cast<size_t>(v) * laneCount_]; }

  // MXU, DMA, ICI
  void mxuMatmul(const tpuprog::Op& op);
  void dma(const tpuprog::Op& op, bool in);
  void iciSend(const tpuprog::Op& op);
  void collective(const tpuprog::Op& op);

  /// Unit ids of VMEM accesses: the vector slots, and the asynchronous units
  /// (kMxuUnit + mxu, kDmaUnit + engine).
  static constexpr int kVectorUnit = -1, kMxuUnit = 100, kDmaUnit = 200;
  /// An address as faults print it (0x…).
  static std::string hex(int64_t v);
  /// Earliest start >= `start` at which an access of `blocks` can begin: it waits for
  /// conflicting vector-slot accesses (they are interlocked) and faults on conflicting
  /// accesses of other asynchronous units (a race the program must order with a semaphore).
  /// Accesses of the same asynchronous unit are ordered by that unit.
  Cycles vmemReady(const StridedBlock* blocks, size_t count, Cycles start, bool write, int unit,
                   const char* what);
  void noteAccess(const StridedBlock& block, Cycles start, Cycles end, bool write, int unit,
                  const char* what);
  /// Checks that HBM bytes [lo, hi) of a transfer lie in the partition's window; faults naming
  /// `what` otherwise.
  void checkWindow(const char* what, __int128 lo, __int128 hi) const;
  /// The device address of the partition's HBM address `address`.
  uint64_t deviceAddress(int64_t address) const {
    return partition_.memoryBase + static_cast<uint64_t>(address);
  }
  /// Checks the block lies in VMEM; faults naming `what` otherwise.
  void checkVmem(const char* what, const StridedBlock& block);
  /// Stops the launch with an error naming this core, the slot, pc and operation.
  [[noreturn]] void fault(const std::string& message) const;
  /// "chip 0 core 1 scalar pc 7 (trap)": where a fault happens, as fault() prefixes it.
  std::string faultLocation() const;
  void traceSpan(int track, const std::string& name, Cycles start, Cycles end);
  void async(Cycles done) {
    if (done > lastAsyncDone_) lastAsyncDone_ = done;
  }

  int chip_, core_;
  const tpuprog::Program* program_ = nullptr;
  const std::vector<int64_t>* symbols_ = nullptr; ///< the values of the program's symbols
  Partition partition_;
  size_t pc_ = 0;
  const tpuprog::Op* current_ = nullptr;
  Counters counters_;

  // memories
  struct FreeDeleter {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, FreeDeleter> vmem_;
  std::vector<uint8_t> smem_;
  VmemInflight inflight_; ///< VMEM accesses of operations in flight

  // scalar unit
  int64_t regs_[tpuprog::kNumRegs] = {};
  Cycles regReady_[tpuprog::kMaxGeneralRegs] = {};
  ScalarControl control_; ///< jumps, branches and the loop stack
  TokenBank sems_;

  // vector unit
  int laneCount_;
  std::vector<uint32_t> vregs_;
  std::vector<Cycles> vready_, vread_;
  Cycles vldFree_ = 0, vstFree_ = 0, valuFree_ = 0;

  // MXUs
  struct MxuState {
    Cycles weightFree = 0; ///< the weight path may start loading the next fold
    Cycles streamFree = 0; ///< the array may take the next fold's first activation row
    Cycles done = 0;       ///< the last fold's last result is out
    Cycles busyEnd = 0;    ///< end of the busy interval being accumulated
  };
  std::vector<MxuState> mxus_;
  std::vector<MxuCounters> mxuCounters_;

  // DMA engines
  std::vector<Cycles> dmaFree_, dmaBusy_;
  std::vector<double> perChannel_;
  std::vector<Cycles> starts_;

  // completion of asynchronous work, for fence
  Cycles lastAsyncDone_ = 0;
  int collectivesOutstanding_ = 0;
  sc_core::sc_event collectiveEvent_;
};

} // namespace chipless::sim::tpu
