//===- Layout.h - where a graph's tensors lie in device memory ---*- C++ -*-===//
//
// Part of chipless. Every tensor kernels exchange lives in the memory of a *root* (a graph
// argument or result, or an intermediate a kernel writes), laid out in the stick layout of
// SPYRE.md (the last dimension padded to whole sticks and split off as the outermost) or,
// where a kernel writes one value per row of a larger tensor, packed row-major. Views of a
// root (reshapes, permutations, slices) are strided views of the same memory: each logical
// dimension is one or more strided factors, so a permutation of heads or a slice of columns
// costs nothing, and a kernel that cannot read a view as it lies gets a re-layout copy
// ("restickify") first.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_LAYOUT_H
#define FRONTEND_LAYOUT_H

#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace chipless::frontend {

/// One strided dimension of device memory: `size` positions `stride` elements apart.
struct Factor {
  int64_t size = 1;
  int64_t stride = 1;
};

/// How one logical dimension lies in memory: factors (outer first) whose positions, in
/// order, hold the dimension's elements. A dimension split into sticks has two factors (the
/// sticks, the values of one) and may cover more positions than it has elements (the
/// padding of its last stick).
struct DimLayout {
  std::vector<Factor> factors;
  int64_t size = 1;
  int64_t covered() const;
  /// Every covered position is one of the dimension's elements.
  bool exact() const { return covered() == size; }
};

/// How a root's memory is laid out.
enum class RootLayout {
  Stick, ///< SPYRE.md's stick layout: last dimension padded to sticks, split off outermost
  Flat   ///< row-major, packed (a vector of values per row; a convolution's unfolded rows)
};

/// Where a tensor of the graph lies in device memory: a strided view of its root.
struct TensorView {
  mlir::Value root;   ///< the tensor whose memory holds it
  int64_t offset = 0; ///< elements from the start of that memory
  std::vector<DimLayout> dims;
  std::vector<int64_t> shape() const;
  /// "[12 x 128 x 64]: (12:8192) (128:64) (64:1) +0", for messages and the dump.
  std::string describe() const;
};

/// The layout of a root of `shape` laid out as a tensor of `layoutShape` (the same elements:
/// an unfold's [N, OH, OW, KH, KW, C] laid out as its matrix [N OH OW, KH KW C]); sticks of
/// `stickElems` values, each stick column `paddedRows` rows long (0: the rows). Empty when
/// `shape` is not a strided view of that layout.
std::optional<TensorView> rootView(mlir::Value root, llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> layoutShape, RootLayout layout,
                                   int64_t stickElems, int64_t paddedRows = 0);

/// Elements a root of `shape` in `layout` takes (padding included).
int64_t rootElements(llvm::ArrayRef<int64_t> shape, RootLayout layout, int64_t stickElems,
                     int64_t paddedRows = 0);

/// The device memory layouts are planned for (numbers of the architecture file).
struct MemoryParams {
  int64_t stickBytes = 128;      ///< chip.stick_bytes
  int64_t interleaveBytes = 0;   ///< dram.interleave_bytes: consecutive blocks, next channel
  int64_t channels = 1;          ///< dram.channels
};

/// The rows each stick column of a stick-layout tensor of `rows` rows and `sticks` columns
/// takes (support/stick_columns.h: the rule the runtime's device tensors follow too).
int64_t paddedRows(int64_t rows, int64_t sticks, const MemoryParams& memory);

/// `v` reshaped to `shape`, dimensions of `v` grouped as `groups` (one group per result
/// dimension when collapsing, per dimension of `v` when expanding). Empty when the result is
/// not a strided view of the same memory (a padded dimension split or merged, or factors
/// that do not divide).
std::optional<TensorView> reshapeView(const TensorView& v, llvm::ArrayRef<int64_t> shape,
                                      llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> groups,
                                      bool expand);
/// `v` with its dimensions permuted: result dimension i is dimension perm[i] of `v`.
TensorView permuteView(const TensorView& v, llvm::ArrayRef<int64_t> perm);
/// `v` with its last two dimensions swapped (each matrix transposed); `v` has rank >= 2.
TensorView swapLastTwo(const TensorView& v);
/// The box of `v` at `offsets` of `sizes`, every `strides` element. Empty when it cuts a
/// dimension of several factors with a stride or inside a stick.
std::optional<TensorView> sliceView(const TensorView& v, llvm::ArrayRef<int64_t> offsets,
                                    llvm::ArrayRef<int64_t> sizes,
                                    llvm::ArrayRef<int64_t> strides);

/// `v` as a kernel reads a matrix: its leading dimensions folded into one factor of rows,
/// its last dimension one factor of stride 1 or split into sticks (an outer factor and an
/// inner one of stride 1). Empty when the rows do not fold or the columns are not
/// contiguous: the tensor needs a re-layout first.
std::optional<TensorView> matrixView(const TensorView& v);
/// `v` as a kernel reads a vector (one value per row or per column): all its dimensions
/// folded into one factor. Empty when they do not fold.
std::optional<TensorView> vectorView(const TensorView& v);

/// Whether a block of `n` consecutive elements (at a multiple of `n`) of dimension `d` is a
/// box of its factors: the whole dimension, or whole inner factors and a run within the next
/// that divides it.
bool blockFits(const DimLayout& d, int64_t n);

} // namespace chipless::frontend

#endif // FRONTEND_LAYOUT_H
