//===- Schedule.h - the static schedule of one core ------------*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler. A core's schedule is a tree that
// mirrors the kernel's control flow after SPMD specialisation: loops (scf.for, and scf.if
// as a loop of 0 or 1 iterations) hold steps, and a step is the work of one engine for
// one KTIR op (a DMA descriptor, a stream of the load unit, SFU instructions, ...),
// together with the scratchpad and global-memory bytes it reads and writes.
//
// The later stages work on this tree: the allocator gives every scratchpad buffer an
// address from the lifetimes of the steps that touch it (Allocate.cpp); the
// synchroniser derives token handshakes from the conflicts between steps of different
// engines (Sync.cpp); the writer projects the tree onto every engine and emits one
// dfir.program per engine (EmitDfir.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_SCHEDULE_H
#define DATAFLOW_LIB_SCHEDULER_SCHEDULE_H

#include "Expr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "support/spyrecode/isa.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace chipless::sched {

/// The engines of one core, numbered: dma_in 0, dma_out 1, ring 2, then load, compute and
/// store of corelet 0 (3, 4, 5), of corelet 1 (6, 7, 8), ...
struct Engines {
  int corelets = 2;
  int count() const { return 3 + 3 * corelets; }
  static int dmaIn() { return 0; }
  static int dmaOut() { return 1; }
  static int ring() { return 2; }
  static int load(int corelet) { return 3 + 3 * corelet; }
  static int compute(int corelet) { return 4 + 3 * corelet; }
  static int store(int corelet) { return 5 + 3 * corelet; }
  static spyrecode::Unit unitOf(int engine);
  /// The corelet of a corelet engine, -1 for the per-core ones.
  static int coreletOf(int engine) { return engine < 3 ? -1 : (engine - 3) / 3; }
  static std::string name(int engine);
};

/// A scratchpad buffer: its size, and after allocation its address. A double-buffered
/// buffer has two copies, `phases` apart; which one a step uses depends on its loop's
/// iteration.
struct Buffer {
  std::string name;       ///< for dumps: the KTIR value it holds
  int64_t bytes = 0;      ///< one copy
  int64_t addr = -1;      ///< assigned by the allocator
  int64_t fixedAddr = -1; ///< >= 0: must live here (an exchange, the tile's own scratchpad)
  /// Lives through the whole kernel: a block of the tile's own scratchpad that the kernel
  /// before left there or the kernel after reads (`ct_local` without `ct_id`).
  bool resident = false;
  int phases = 1;     ///< 2 when double-buffered
  int phaseLoop = -1; ///< the loop whose iteration selects the copy
  Expr phase;         ///< that iteration's number ((i - lb) / step): copy = phase mod 2
  // Lifetime in schedule positions, filled by the allocator.
  int first = -1, last = -1;
  std::optional<mlir::Location> loc; ///< the op that created it, for messages
  /// Not empty: other cores write into it (ring exchanges); every core places the buffers
  /// of one exchange (this key) at the same address.
  std::string exchange;
};

/// Bytes a step reads or writes.
struct Access {
  enum class Space : uint8_t { Scratch, Global };
  Space space = Space::Scratch;
  bool write = false;
  int buffer = -1; ///< Scratch: the buffer; lo/hi are offsets into it
  std::string arg; ///< Global: the tensor argument; lo/hi are byte offsets into it
  Expr lo, hi;     ///< [lo, hi)
};

class ProgramWriter;

/// The work of one engine for one op.
struct Step {
  int engine = 0;
  std::vector<Access> accesses;
  /// Emits the step's dfir ops; `done` is the token its transfer signals on completion
  /// (DMA and ring steps, when the synchroniser asks for one), else -1.
  std::function<void(ProgramWriter&, int done)> emit;
  bool async = false; ///< completes after it issues (DMA): a `done` token tells when
  int group = -1;     ///< the steps of one op: their accesses never conflict with each other
  std::string text;   ///< one line for dumps
  mlir::Location loc;
  explicit Step(mlir::Location l) : loc(l) {}
};

/// A node of the tree: a step, or a loop over a body of nodes.
struct Node {
  enum class Kind { Step, Loop } kind = Kind::Step;
  std::unique_ptr<Step> step;
  // Loop: for var = lb; var < ub; var += stride.
  int loop = -1; ///< loop id (the Var of Expr), -1 for the root
  Expr lb, ub, stride;
  std::vector<std::unique_ptr<Node>> body;
  std::string text;         ///< for dumps
  bool conditional = false; ///< an scf.if: a loop of 0 or 1 iterations
  // Filled by number(): DFS positions; a loop spans [pos, end].
  Node* parent = nullptr;
  int pos = 0, end = 0, depth = 0;
  bool isLoop() const { return kind == Kind::Loop; }
};

/// The token operations the synchroniser attaches to a node for one engine.
struct SyncOps {
  std::vector<int> before;     ///< twait before the node
  std::vector<int> sendBefore; ///< tsend before the node (credits of loop-carried channels)
  std::vector<int> after;      ///< tsend after the node (after its completion)
  std::vector<int> waitAfter;  ///< twait after the node (draining a loop's channel)
  std::vector<int> bodyEnd;    ///< twait at the end of a loop body (draining an iteration)
  bool selfWait = false;       ///< async step: wait for its own done token before `after`
  bool empty() const {
    return before.empty() && sendBefore.empty() && after.empty() && waitAfter.empty() &&
           bodyEnd.empty() && !selfWait;
  }
};

/// One core's schedule and what the later stages add to it.
struct CoreSchedule {
  int core = 0;
  Node root; ///< a loop node with loop == -1: one pass
  std::vector<Buffer> buffers;
  std::map<int, Range> loopRanges; ///< ranges of loop variables with constant bounds
  /// Device memory of the job (dfir.buffer) the schedule uses: name -> bytes for all cores.
  std::map<std::string, int64_t> deviceBuffers;
  /// Synchronisation: per node, per engine.
  std::map<const Node*, std::map<int, SyncOps>> sync;
  std::map<int, int> selfToken; ///< engine -> token of its own completions
  int tokensUsed = 0;

  CoreSchedule() { root.kind = Node::Kind::Loop; }
  /// Numbers the nodes (positions, parents, depths).
  void number();
  /// Text of the tree for dumps.
  std::string dump() const;
};

/// Emits dfir ops into one engine's program: materialises expressions as index values
/// (symbols, loop variables in scope, arith), gives steps their buffer addresses.
class ProgramWriter {
public:
  ProgramWriter(mlir::OpBuilder& builder, const CoreSchedule& schedule, int engine);
  mlir::OpBuilder& b;
  mlir::Location loc;
  const CoreSchedule& schedule;
  const int engine;

  /// The index value of `e` at the current insertion point.
  mlir::Value get(const Expr& e);
  mlir::Value c(int64_t v) { return get(Expr(v)); }
  /// The address of byte `offset` of buffer `buffer` (the current copy when
  /// double-buffered).
  Expr addr(int buffer, const Expr& offset = Expr(0)) const;
  mlir::StringAttr str(llvm::StringRef s) { return b.getStringAttr(s); }

  /// Loop variables in scope.
  std::map<int, mlir::Value> vars;

private:
  mlir::Value atom(const Atom& a);
  mlir::Value constant(int64_t v);
  /// Index constants already made, per block (visible in nested blocks too).
  std::map<std::pair<mlir::Block*, int64_t>, mlir::Value> constants_;
};

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_SCHEDULE_H
