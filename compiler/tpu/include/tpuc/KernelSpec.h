#pragma once
/// The kernel specification: everything the TPU program emitter needs to generate one fused
/// kernel, in plain C++ (no MLIR). The MLIR passes of compiler/tpu build it from a `tpu.kernel`
/// op and its attributes (lib/Transforms/ModelBuilder.h); the emitter (Emit.h) turns it into TPU
/// assembly.
///
/// A kernel computes a tensor of shape [batch..., M, N] (its *space*) one *unit* at a time: a
/// unit is a block of at most `rowsPerUnit` consecutive rows of one batch index. Per unit it
/// optionally runs a matmul on the MXUs (into an fp32 accumulator in VMEM), then a vector
/// program on the VPU over the unit's rows (element-wise ops, reductions over N, loads of
/// other tensors), and writes its outputs back to HBM. Units are shared out over the
/// TensorCores; inputs are double-buffered.
#include "support/dtype.h"
#include "support/tpuprog/isa.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chipless::tpuc {

/// A compile error at a place in the graph: `where` is the op's location ("g.mlir:12:7") or
/// empty. The MLIR side reports it as a diagnostic at the op.
class CompileError : public std::runtime_error {
public:
  CompileError(std::string where, const std::string& message)
      : std::runtime_error(message), where(std::move(where)) {}
  std::string where;
};

/// How a kernel reads or writes one tensor in HBM. Element (b..., m, n) of the kernel's space
/// is at byte `symbol + offset + sum_i b_i * batchStrides[i] + m * rowStride + n * esize`:
/// rows are contiguous runs of N elements.
struct HbmAccess {
  std::string symbol;                ///< plan name: a tensor argument or the scratch buffer
  int64_t offset = 0;                ///< bytes from the symbol's address
  DType dtype = DType::F32;          ///< element type in HBM
  std::vector<int64_t> batchStrides; ///< bytes per step of each batch dimension (0: broadcast)
  int64_t rowStride = 0;             ///< bytes between rows (0: every row is the same row)
  int64_t runBytes =
      0; ///< bytes a DMA moves per row: the row's bytes, rounded up to the DMA alignment
};

/// What a value of the vector program is.
enum class VKind : uint8_t {
  Load,   ///< a tile of input `input` (a full tensor, or a row vector repeated down the rows);
          ///< a column value when the input is a column vector
  Acc,    ///< the matmul's accumulator (f32, or i32 for int8 operands)
  Const,  ///< a constant in every element
  Unary,  ///< `op` (vneg, vexp, vcvt, ...) of a
  Binary, ///< `op` (vadd, vmax, vcmp.lt, ...) of a, b
  Select, ///< c ? a : b
  Reduce, ///< the reduction of a over N with `op` (vadd, vmax, vmin): a column value
  Index,  ///< the element's index along N (`value` 0) or M (`value` 1), as f32 or i32
};

/// One value of the vector program. Values are in topological order; operands refer to earlier
/// values by index. A *full* value has one element per element of the kernel's space; a
/// *column* value one per row (a reduction over N, or element-wise ops on such values).
struct VOp {
  VKind kind = VKind::Const;
  tpuprog::Opcode op = tpuprog::Opcode::Nop; ///< Unary, Binary, Reduce: the VPU operation
  bool column = false;                       ///< one value per row
  bool isInt = false;                        ///< i32 lanes (else f32)
  int a = -1, b = -1, c = -1;                ///< operands (Select: c ? a : b)
  int input = -1;                            ///< Load: index into KernelSpec::inputs
  double value = 0;                          ///< Const: the value; Reduce: the initial value
  bool hasInit = false;                      ///< Reduce: combine `value` into the result
  std::string where;                         ///< source location, for messages
};

/// A tensor the vector program loads, one tile of rows per unit.
struct VInput {
  HbmAccess access;
  bool rowVector = false; ///< rowStride 0: one row, broadcast down the rows
  /// One element per row: a per-row vector broadcast along N, loaded as a column value.
  /// Packed (rowStride the element size: a vector [batch..., M]) a unit moves its rows'
  /// elements as dma.alignment_bytes chunks (runBytes); otherwise (a column [batch..., M, 1] in
  /// its padded layout) one chunk per row, the element first.
  bool columnVector = false;
  /// Rows gathered by index (tensor.gather): row r of a unit reads the row of `access` (its
  /// offset the table's start, its rowStride the table's) that element m0 + r of these i32
  /// indices names; their rowStride is the bytes between consecutive indices. An index
  /// outside [0, tableRows) is clamped into it, as XLA's gather clamps.
  std::optional<HbmAccess> rowIndices;
  int64_t tableRows = 0;
  bool packed() const {
    return columnVector && access.rowStride == static_cast<int64_t>(dtypeSize(access.dtype));
  }
};

/// A kernel result: value `value` (a full value) written to HBM.
struct VOutput {
  int value = -1;
  HbmAccess access;
};

/// The matmul a kernel starts with: [batch..., M, K] x [batch..., K, N] on the MXUs, weights
/// (the RHS) stationary in the arrays, LHS rows streamed through them.
struct MatmulSpec {
  /// The LHS, rows of K elements, read in parts side by side along K (one part, or the parts
  /// of a concatenation along K read in place, as a convolution's taps are): part i fills the
  /// columns after the runBytes of the parts before it, so every part but the last moves
  /// exactly its elements.
  std::vector<HbmAccess> lhs;
  HbmAccess rhs; ///< rows of N elements (K rows), or with transposeRhs rows of K elements (N rows)
  bool transposeRhs = false; ///< folds with transposed weights (mxu.matmul.nt)
  int64_t k = 0;
  DType dtype = DType::BF16; ///< operand type: bf16, f32 or i8
  // Tiling onto the MXUs (tpu-tile-mxu).
  int64_t kChunk = 0; ///< rows of the array: the depth of one fold
  int64_t nTile = 0;  ///< columns of the array: the width of one fold
  int64_t kChunks = 0, nTiles = 0;
  int64_t mxus = 0;   ///< MXUs used: one column tile each per group
  int64_t groups = 0; ///< ceil(nTiles / mxus)

  /// Bytes the LHS parts' DMAs move per row.
  int64_t lhsRunBytes() const {
    int64_t b = 0;
    for (const HbmAccess& a : lhs) b += a.runBytes;
    return b;
  }
};

/// Where a kernel's data lives in VMEM and how big a unit is (tpu-alloc-vmem). VMEM holds two
/// *halves* (one per parity of the unit index, so unit u+1's inputs land while unit u runs)
/// followed by the RHS panels. Offsets are bytes within a half (panels: within VMEM).
struct MemoryPlan {
  int64_t rowsPerUnit = 0; ///< rows of one unit (M is cut into blocks of this many)
  int64_t bufferRows = 0;  ///< rows each per-unit buffer holds (rowsPerUnit rounded up)
  int64_t halfBytes = 0;   ///< bytes of one half; half 1 starts at halfBytes
  int64_t lhsOffset = -1, lhsRowBytes = 0;
  int64_t accOffset = -1, accRowBytes = 0;
  std::vector<int64_t> inputOffsets, inputRowBytes;
  std::vector<int64_t> outputOffsets, outputRowBytes; ///< offset -1: written from the accumulator
  bool rhsResident = false;  ///< the whole RHS stays in VMEM across units (loaded once)
  int64_t panelChunks = 0;   ///< k chunks per RHS panel (one group of column tiles)
  int64_t panelSlots = 0;    ///< panels in VMEM at once
  int64_t panelOffset = 0;   ///< VMEM address of slot 0
  int64_t panelBytes = 0;    ///< bytes of one slot
  int64_t panelRowBytes = 0; ///< bytes of one panel row
  int64_t totalBytes = 0;    ///< VMEM used
};

/// One fused kernel.
struct KernelSpec {
  std::string name;  ///< for comments and reports ("k2_matmul")
  std::string where; ///< location of its first op
  std::vector<int64_t> batch;
  int64_t m = 1, n = 1;
  std::optional<MatmulSpec> matmul;
  std::vector<VInput> inputs;
  std::vector<VOp> ops;
  std::vector<VOutput> outputs;
  MemoryPlan memory;
  /// [first, end) unit of each TensorCore (tpu-split-cores).
  std::vector<std::pair<int64_t, int64_t>> cores;

  int64_t batchCount() const {
    int64_t b = 1;
    for (int64_t d : batch) b *= d;
    return b;
  }
  int64_t unitsPerBatch() const {
    return memory.rowsPerUnit > 0 ? (m + memory.rowsPerUnit - 1) / memory.rowsPerUnit : 0;
  }
  int64_t units() const { return batchCount() * unitsPerBatch(); }
};

/// A whole TPU program: its tensor arguments, the scratch buffer for intermediates, and the
/// kernels in the order they run.
struct ProgramSpec {
  struct Arg {
    std::string name;
    bool output = false;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
  };
  std::string name;
  std::vector<Arg> args;
  int64_t scratchBytes = 0;
  std::vector<KernelSpec> kernels;
};

} // namespace chipless::tpuc
