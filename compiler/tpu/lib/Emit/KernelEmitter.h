#pragma once
/// One kernel on one TensorCore (internal to compiler/tpu/lib/Emit): the loop over the core's
/// units with its DMAs (KernelEmitter.cpp), the matmul phase of each unit (EmitMatmul.cpp)
/// and its vector phase (EmitVector.cpp). Emit.cpp strings the kernels together.
#include "EmitText.h"
#include "VectorProgram.h"
#include "support/tpu_arch.h"
#include "tpuc/KernelSpec.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace chipless::tpuc::emitter {

/// Writes kernel `k`'s share on TensorCore `core` into `a`.
class KernelEmitter {
public:
  KernelEmitter(const KernelSpec& k, const TpuArch& arch, int core, Asm& a);

  /// Emits the kernel: prologue, the loop over the units, the drain. Throws CompileError when
  /// the kernel needs more scalar or vector registers or semaphores than the chip has.
  void emit();

private:
  struct Geometry {
    Val b;    ///< flat batch index
    Val m0;   ///< first row
    Val rows; ///< rows of the unit
    std::vector<SReg> held;
  };

  // ---- the unit loop and its DMAs (KernelEmitter.cpp) -----------------------------------------

  /// Emits the unit's batch index, first row and row count for unit `u`.
  Geometry geometry(const Val& u);
  /// Emits dst = the byte offset of the unit's first row in `acc` (without symbol and offset).
  /// Returns a constant when it is one.
  Val unitOffset(const Geometry& g, const HbmAccess& acc, const std::string& dst,
                 bool rowsToo = true);
  /// Emits dst = the batch offset of the unit's RHS (always into the register).
  void rhsBatchOffset(const Geometry& g, const std::string& dst);
  /// DMAs of a unit's inputs (LHS rows and vector inputs) into the half at `half`, signalling
  /// semaphore `sem`.
  void issueInputs(const Geometry& g, const Val& half, const Val& sem);
  /// DMAs of a gathered input (VInput::rowIndices): the unit's indices into SMEM, then one
  /// row DMA per row of the unit (rowsPerUnit of them, each signalling `sem`) to `dst`.
  void gathered(const Geometry& g, const VInput& in, const Val& dst, int64_t rowBytes,
                const Val& sem);
  /// One unit: prefetch the next unit's inputs, wait for this one's, the matmul and vector
  /// phases, the output DMAs.
  void unitBody();

  // ---- the matmul phase (EmitMatmul.cpp) ------------------------------------------------------

  /// Resident RHS: (semaphore, panels it counts) for the panels' landing semaphores.
  std::vector<std::pair<int, int64_t>> residentSems() const;
  /// Resident RHS: the landing semaphore of the panel of `group`.
  int residentSem(int64_t group) const;
  /// MXU tiles (of mxu.cols columns) in group `g`.
  int64_t groupTiles(int64_t g) const;
  /// DMA of panel `j` (group, k range) of the unit whose RHS batch offset is `batchOff` into the
  /// VMEM slot at `slot`, signalling `sem`.
  void panelDma(int64_t j, const Val& batchOff, const Val& slotAddr, const Val& sem);
  /// The RHS panels loaded before the first unit (all of them when the RHS stays resident).
  void panelPrologue();
  /// The folds of panel j of this unit; the panel sits at `panelBase` (+ the slot register).
  /// The last fold of each MXU in the panel (resident: in the unit) signals `foldSem`.
  void panelFolds(int64_t j, const Val& panelBase, const Val& foldSem, bool lastInUnitOnly,
                  const Geometry& g);
  int64_t mxusInPanel(int64_t j) const { return groupTiles(j / panelsPerGroup_); }
  /// The unit's folds panel by panel, prefetching streamed panels ahead.
  void matmulPhase(const Geometry& g);

  // ---- the vector phase (EmitVector.cpp) ------------------------------------------------------

  /// Register slots: the vector registers in groups of U.
  class Slots {
  public:
    Slots(int count) : free_(static_cast<size_t>(count), true) {}
    int take() {
      for (size_t i = 0; i < free_.size(); ++i)
        if (free_[i]) {
          free_[i] = false;
          ++inUse_;
          peak_ = std::max(peak_, inUse_);
          return static_cast<int>(i);
        }
      overflow_ = true;
      return 0;
    }
    void give(int s) {
      // take() returns 0 without a slot when none is free (overflow); nothing to give back.
      if (static_cast<size_t>(s) >= free_.size()) return;
      if (!free_[static_cast<size_t>(s)]) {
        free_[static_cast<size_t>(s)] = true;
        --inUse_;
      }
    }
    bool overflow() const { return overflow_; }

  private:
    std::vector<bool> free_;
    int inUse_ = 0, peak_ = 0;
    bool overflow_ = false;
  };

  /// Scalar registers of the vector phase: each buffer's address in the current block of rows
  /// and in the current tile (row vectors: only the tile's).
  struct BlockContext {
    std::map<int, std::string> tilePtr;
    std::map<int, std::string> blockPtr;
  };

  /// Whether the vector program fits the vector registers in blocks of U registers (emits the
  /// code of one block into a scratch text and checks the register slots).
  bool feasible(int U, bool hoist);
  /// Plans the vector program's passes and picks the largest register block that fits.
  void chooseRegisterBlock();
  /// The VMEM buffers of the vector phase (kAccBuffer, inputs, outputs with a buffer).
  std::vector<int> allBuffers() const;
  int64_t bufferOffset(int b) const;
  int64_t bufferRowBytes(int b) const;
  bool bufferIsRowVector(int b) const;
  /// Bytes of one element of a buffer's rows.
  int64_t bufferElement(int b) const { return bufferRowBytes(b) / np_; }
  std::string bufferType(int b) const;
  /// Buffers the tile body of pass p reads or writes.
  std::vector<int> passBuffers(const VPass& p) const;
  std::string vr(int slot, int U) const { return "v" + num(slot * U); }
  /// Emits (into out_) one block: every pass over the tiles. Pointers: ctx.tilePtr holds the
  /// register of each buffer's tile address (advanced by the caller's loop code emitted here).
  /// Returns false when the registers do not suffice.
  bool block(int U, bool hoist, BlockContext& ctx);
  /// Emits `o` into register range `dst` with operands from `operand(index)`.
  template <typename F>
  void emitValueOp(Asm& a, const VOp& o, const std::string& dst, F&& operand, const std::string& n);
  /// One tile of pass `pass`: every tile value, the outputs' stores and the reductions'
  /// accumulation (masked: lanes past N take the identity).
  void tile(int U, const VPass& pass, const std::map<int, int>& constSlot,
            const std::map<int, int>& accSlot, const std::map<int, int>& colSlot, Slots& pool,
            BlockContext& ctx, bool masked);
  /// Loads column value `dst` (U registers) of the block from column-vector input `input`
  /// (ctx.blockPtr: the block's first element); two temporaries from `pool`.
  void columnLoad(int U, int input, const std::string& dst, Slots& pool, BlockContext& ctx);
  /// The vector program over the unit's rows, in blocks of U_ register rows.
  void vectorPhase(const Geometry& g);

  const KernelSpec& k_;
  const TpuArch& arch_;
  int core_;
  Asm& a_;
  Asm* out_ = &a_;
  RegPool regs_;
  const MemoryPlan& p_;
  int64_t S_, L_, np_, ct_, upb_, first_, end_;
  int nIn_, nOut_;
  bool rhsBatched_ = false;
  int64_t panelsPerGroup_ = 0, panels_ = 0;
  std::string su_, spar_, shalf_, sBcur_, sBnext_, sslot_, sn_;
  VProgram prog_;
  bool hasIndex_ = false;                     ///< the vector program uses element indices
  std::string idxRow_ = "s0", idxCol_ = "s0"; ///< their row and column bases (scalar registers)
  int U_ = 1;
  bool hoist_ = true;
};

} // namespace chipless::tpuc::emitter
