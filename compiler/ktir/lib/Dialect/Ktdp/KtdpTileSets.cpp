//===- KtdpTileSets.cpp - integer sets of tiles and coordinates -----------===//
//
// Part of chipless. See KtdpTileSets.h.
//
//===----------------------------------------------------------------------===//

#include "ktir/Dialect/Ktdp/KtdpTileSets.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::ktdp;

namespace {

int64_t floorDivide(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceilDivide(int64_t a, int64_t b) {
  return -floorDivide(-a, b);
}

/// `sum(dims[i] * d_i) + sum(symbols[j] * s_j) + constant`.
struct LinearForm {
  SmallVector<int64_t> dims, symbols;
  int64_t constant = 0;
};

/// The linear form of `expr`, or nullopt if it uses mod, floordiv or ceildiv or a
/// product of two non-constants.
std::optional<LinearForm> linearize(AffineExpr expr, unsigned numDims, unsigned numSymbols) {
  LinearForm form;
  form.dims.assign(numDims, 0);
  form.symbols.assign(numSymbols, 0);
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    form.constant = c.getValue();
    return form;
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    form.dims[d.getPosition()] = 1;
    return form;
  }
  if (auto s = dyn_cast<AffineSymbolExpr>(expr)) {
    form.symbols[s.getPosition()] = 1;
    return form;
  }
  auto bin = cast<AffineBinaryOpExpr>(expr);
  auto lhs = linearize(bin.getLHS(), numDims, numSymbols);
  auto rhs = linearize(bin.getRHS(), numDims, numSymbols);
  if (!lhs || !rhs) return std::nullopt;
  auto isConstant = [](const LinearForm& f) {
    return llvm::all_of(f.dims, [](int64_t v) { return v == 0; }) &&
           llvm::all_of(f.symbols, [](int64_t v) { return v == 0; });
  };
  auto scale = [](LinearForm f, int64_t k) {
    for (int64_t& v : f.dims) v *= k;
    for (int64_t& v : f.symbols) v *= k;
    f.constant *= k;
    return f;
  };
  switch (bin.getKind()) {
  case AffineExprKind::Add:
    for (unsigned i = 0; i < numDims; ++i) lhs->dims[i] += rhs->dims[i];
    for (unsigned i = 0; i < numSymbols; ++i) lhs->symbols[i] += rhs->symbols[i];
    lhs->constant += rhs->constant;
    return lhs;
  case AffineExprKind::Mul:
    if (isConstant(*rhs)) return scale(*lhs, rhs->constant);
    if (isConstant(*lhs)) return scale(*rhs, lhs->constant);
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<int64_t> mlir::ktdp::evaluateAffineExpr(AffineExpr expr, ArrayRef<int64_t> dims,
                                                      ArrayRef<int64_t> symbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    if (d.getPosition() >= dims.size()) return std::nullopt;
    return dims[d.getPosition()];
  }
  if (auto s = dyn_cast<AffineSymbolExpr>(expr)) {
    if (s.getPosition() >= symbols.size()) return std::nullopt;
    return symbols[s.getPosition()];
  }
  auto bin = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> lhs = evaluateAffineExpr(bin.getLHS(), dims, symbols);
  std::optional<int64_t> rhs = evaluateAffineExpr(bin.getRHS(), dims, symbols);
  if (!lhs || !rhs) return std::nullopt;
  switch (bin.getKind()) {
  case AffineExprKind::Add:
    return *lhs + *rhs;
  case AffineExprKind::Mul:
    return *lhs * *rhs;
  case AffineExprKind::FloorDiv:
    if (*rhs == 0) return std::nullopt;
    return floorDivide(*lhs, *rhs);
  case AffineExprKind::CeilDiv:
    if (*rhs == 0) return std::nullopt;
    return ceilDivide(*lhs, *rhs);
  case AffineExprKind::Mod: {
    if (*rhs == 0) return std::nullopt;
    int64_t m = *lhs % *rhs;
    return (m != 0 && ((m < 0) != (*rhs < 0))) ? m + *rhs : m;
  }
  default:
    return std::nullopt;
  }
}

bool mlir::ktdp::containsPoint(IntegerSet set, ArrayRef<int64_t> dims, ArrayRef<int64_t> symbols) {
  for (unsigned i = 0, e = set.getNumConstraints(); i < e; ++i) {
    std::optional<int64_t> v = evaluateAffineExpr(set.getConstraint(i), dims, symbols);
    if (!v) return false;
    if (set.isEq(i) ? *v != 0 : *v < 0) return false;
  }
  return true;
}

std::optional<int64_t> SetBounds::extent(unsigned dim) const {
  if (dim >= lower.size() || !lower[dim] || !upper[dim]) return std::nullopt;
  return std::max<int64_t>(0, *upper[dim] - *lower[dim] + 1);
}

SetBounds mlir::ktdp::getSetBounds(IntegerSet set) {
  unsigned numDims = set.getNumDims(), numSymbols = set.getNumSymbols();
  SetBounds bounds;
  bounds.lower.assign(numDims, std::nullopt);
  bounds.upper.assign(numDims, std::nullopt);
  bool box = true;
  auto tightenLower = [&](unsigned d, int64_t v) {
    bounds.lower[d] = bounds.lower[d] ? std::max(*bounds.lower[d], v) : v;
  };
  auto tightenUpper = [&](unsigned d, int64_t v) {
    bounds.upper[d] = bounds.upper[d] ? std::min(*bounds.upper[d], v) : v;
  };
  for (unsigned i = 0, e = set.getNumConstraints(); i < e; ++i) {
    std::optional<LinearForm> form = linearize(set.getConstraint(i), numDims, numSymbols);
    if (!form || llvm::any_of(form->symbols, [](int64_t v) { return v != 0; })) {
      box = false;
      continue;
    }
    int nonZero = 0;
    unsigned dim = 0;
    for (unsigned d = 0; d < numDims; ++d)
      if (form->dims[d] != 0) ++nonZero, dim = d;
    if (nonZero != 1) {
      box = box && nonZero == 0;
      continue;
    }
    // a * d + c >= 0   or   a * d + c == 0
    int64_t a = form->dims[dim], c = form->constant;
    if (set.isEq(i)) {
      if (c % a != 0) {
        box = false;
        continue;
      }
      tightenLower(dim, -c / a);
      tightenUpper(dim, -c / a);
    } else if (a > 0) {
      tightenLower(dim, ceilDivide(-c, a));
    } else {
      tightenUpper(dim, floorDivide(c, -a));
    }
  }
  for (unsigned d = 0; d < numDims; ++d) box = box && bounds.lower[d] && bounds.upper[d];
  bounds.isBox = box;
  return bounds;
}

std::optional<SmallVector<int64_t>> mlir::ktdp::getEnclosingGrid(Operation* op) {
  for (Operation* p = op; p; p = p->getParentOp()) {
    Attribute grid = p->getAttr("grid");
    if (!grid) continue;
    SmallVector<int64_t> dims;
    if (auto array = dyn_cast<ArrayAttr>(grid)) {
      for (Attribute a : array) {
        auto i = dyn_cast<IntegerAttr>(a);
        if (!i) return std::nullopt;
        dims.push_back(i.getInt());
      }
      return dims;
    }
    if (auto dense = dyn_cast<DenseI64ArrayAttr>(grid)) return llvm::to_vector(dense.asArrayRef());
    return std::nullopt;
  }
  return std::nullopt;
}

int64_t mlir::ktdp::getEnclosingTileCount(Operation* op) {
  std::optional<SmallVector<int64_t>> grid = getEnclosingGrid(op);
  if (!grid) return 1;
  int64_t count = 1;
  for (int64_t d : *grid) count *= std::max<int64_t>(d, 0);
  return count;
}

SmallVector<int64_t> mlir::ktdp::enumerateTiles(IntegerSet set, ArrayRef<int64_t> symbols,
                                                int64_t numTiles) {
  SmallVector<int64_t> tiles;
  for (int64_t i = 0; i < numTiles; ++i)
    if (containsPoint(set, {i}, symbols)) tiles.push_back(i);
  return tiles;
}

std::optional<SmallVector<int64_t>>
mlir::ktdp::enumerateBoundedTiles(IntegerSet set, ArrayRef<int64_t> symbols, int64_t limit) {
  if (set.getNumDims() != 1 || set.getNumSymbols() != symbols.size()) return std::nullopt;
  SmallVector<AffineExpr> symbolValues;
  for (int64_t s : symbols) symbolValues.push_back(getAffineConstantExpr(s, set.getContext()));
  IntegerSet fixed = set.replaceDimsAndSymbols({getAffineDimExpr(0, set.getContext())},
                                               symbolValues, /*numResultDims=*/1,
                                               /*numResultSyms=*/0);
  SetBounds bounds = getSetBounds(fixed);
  if (!bounds.upper[0] || *bounds.upper[0] >= limit) return std::nullopt;
  return enumerateTiles(set, symbols, std::max<int64_t>(*bounds.upper[0] + 1, 0));
}
