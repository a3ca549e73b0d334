//===- LowerOwnScratchpad.cpp - blocks kept in a tile's own scratchpad ----===//
//
// Part of chipless. See Lowering.h. A memory view in `#ktdp.memory_space<ct_local>` without
// `ct_id` is the executing tile's own scratchpad, at a constant address (counted in elements
// of the view's type, as pointers are). Whatever a kernel stores there stays for the kernels
// after it: the simulator keeps a core's scratchpad from one launch to the next, and tile t
// runs on core t. A job can so keep an intermediate between two kernels whose tiles hold
// the same blocks of it, instead of writing it to device memory and reading it back.
//
// The view becomes a buffer at its address that lives through the whole kernel, so that
// nothing else is placed over it. A load from it is that buffer, read in place (no step); a
// store into it is a copy through the corelets' load, SFU and store units.
//
//===----------------------------------------------------------------------===//

#include "AffineToExpr.h"
#include "Lowering.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"

using namespace mlir;

namespace chipless::sched {

FailureOr<std::optional<TVal>> Lowering::ownScratchpadBlock(Operation* op, Value tileValue,
                                                            ArrayRef<int64_t> shape, Type elem,
                                                            bool load) {
  auto tile = tileValue.getDefiningOp<ktdp::ConstructAccessTileOp>();
  if (!tile) return std::optional<TVal>();
  auto mv = tile.getView().getDefiningOp<ktdp::ConstructMemoryViewOp>();
  if (!mv) return std::optional<TVal>();
  auto space = dyn_cast_or_null<ktdp::MemorySpaceAttrInterface>(mv.getMemorySpace());
  if (!space || space.isGlobal() || space.getOwnerTileId()) return std::optional<TVal>();

  // The view: a constant address, constant sizes and strides.
  auto base = index(mv.getBase());
  if (failed(base)) return failure();
  if (!base->isConst())
    return mv.emitOpError("views the tile's own scratchpad at an address that is not a "
                          "constant"),
           failure();
  ArrayRef<int64_t> sizes = mv.getStaticSizes(), strides = mv.getStaticStrides();
  if (llvm::any_of(sizes, ShapedType::isDynamic) || llvm::any_of(strides, ShapedType::isDynamic))
    return mv.emitOpError("views the tile's own scratchpad with sizes or strides known only "
                          "at launch; they must be constants"),
           failure();
  const int64_t es = esize(elem);
  const int64_t addr = base->constant() * es;
  int64_t extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) extent += (sizes[d] - 1) * strides[d];
  const int64_t bytes = (extent * es + stick() - 1) / stick() * stick();
  const int64_t budget = arch_.planningScratchpadBytes() / stick() * stick();
  if (addr < 0 || addr % stick() != 0 || addr + bytes > budget)
    return mv.emitOpError("views bytes [")
               << addr << ", " << addr + bytes
               << ") of the tile's own scratchpad; they must start on a stick (" << stick()
               << " bytes) and end within the planning budget of " << budget
               << " bytes (scratchpad.bytes - reserved_bytes, less planning_margin)",
           failure();
  if (sizes.empty() || strides.back() != 1)
    return mv.emitOpError("views the tile's own scratchpad in a layout whose last dimension "
                          "is not contiguous; the corelets read it in rows of whole sticks"),
           failure();
  for (size_t d = 0; d + 1 < strides.size(); ++d)
    if ((strides[d] * es) % stick() != 0)
      return mv.emitOpError("views the tile's own scratchpad with a stride of ")
                 << strides[d] << " elements in dimension " << d
                 << ", which is not whole sticks; each row must start on a stick",
             failure();
  // The corelets write whole sticks: a row's last stick must not reach into the next row.
  const int64_t rowSticks = sticksOf(sizes.back(), elem);
  if (sizes.size() > 1 && sizes[sizes.size() - 2] > 1 &&
      strides[strides.size() - 2] * es < rowSticks * stick())
    return mv.emitOpError("views the tile's own scratchpad in rows of ")
               << sizes.back() << " elements (" << rowSticks << " sticks) only "
               << strides[strides.size() - 2] << " elements apart; rows must not overlap",
           failure();

  // The tile: a constant box at a constant position, in the view's own order.
  if (!tile.getAccessTileOrder().isIdentity())
    return tile.emitOpError("reorders the dimensions of the tile's own scratchpad; not "
                            "supported (it is read in place)"),
           failure();
  ktdp::SetBounds box = ktdp::getSetBounds(tile.getAccessTileSet().getValue());
  if (!box.isBox || !tile.getSymbolOperands().empty())
    return tile.emitOpError("has an access_tile_set that is not a constant box; only "
                            "rectangular tiles are supported"),
           failure();
  SmallVector<Expr> operands;
  for (Value i : tile.getIndices()) {
    auto e = index(i);
    if (failed(e)) return failure();
    operands.push_back(*e);
  }
  AffineMap baseMap = tile.getEffectiveBaseMap();
  ArrayRef<Expr> all(operands);
  const size_t rank = sizes.size();
  if (shape.size() != rank || baseMap.getNumResults() != rank)
    return op->emitOpError("moves a tensor of another rank than the tile's own scratchpad "
                           "view it goes through"),
           failure();
  int64_t offset = 0;
  std::vector<int64_t> byteStrides(rank);
  for (size_t d = 0; d < rank; ++d) {
    bool ok = true;
    Expr start = applyAffine(baseMap.getResult(static_cast<unsigned>(d)),
                             all.take_front(baseMap.getNumDims()),
                             all.drop_front(baseMap.getNumDims()), ok) +
                 Expr(*box.lower[d]);
    if (!ok || !start.isConst())
      return tile.emitOpError("reaches the tile's own scratchpad at a position that is not a "
                              "constant (in dimension ")
                 << d << "); it is read in place, so the position must be known when compiling",
             failure();
    const int64_t extent = *box.upper[d] - *box.lower[d] + 1;
    if (extent != shape[d])
      return op->emitOpError("moves a tensor whose shape does not match its access tile"),
             failure();
    if (start.constant() < 0 || start.constant() + extent > sizes[d])
      return tile.emitOpError("reaches past the tile's own scratchpad view in dimension ") << d,
             failure();
    offset += start.constant() * strides[d] * es;
    byteStrides[d] = strides[d] * es;
  }
  if (offset % stick() != 0)
    return tile.emitOpError("starts inside a stick of the tile's own scratchpad; a block "
                            "read in place must start on a stick"),
           failure();
  // Rows that end inside a stick: the lanes past them hold whatever the producer left,
  // which a reduction or a matmul over the row would read.
  if (load && shape.back() % lanes(elem) != 0)
    return op->emitOpError("loads rows of ")
               << shape.back() << " elements from the tile's own scratchpad, which end inside a "
               << "stick of " << lanes(elem) << "; keep whole sticks there",
           failure();

  auto [it, inserted] = ownBuffers_.try_emplace(addr, -1);
  if (inserted) {
    it->second = newBuffer(bytes, "own scratchpad @" + std::to_string(addr));
    Buffer& b = out_.buffers[static_cast<size_t>(it->second)];
    b.fixedAddr = addr;
    b.resident = true;
    b.loc = mv.getLoc();
  } else {
    Buffer& b = out_.buffers[static_cast<size_t>(it->second)];
    b.bytes = std::max(b.bytes, bytes);
  }
  TVal t;
  t.kind = TVal::Kind::Buffer;
  t.shape.assign(shape.begin(), shape.end());
  t.elem = elem;
  t.buffer = it->second;
  t.offset = offset;
  t.strides = byteStrides;
  return std::optional<TVal>(t);
}

} // namespace chipless::sched
