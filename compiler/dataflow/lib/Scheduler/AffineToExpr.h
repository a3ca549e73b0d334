//===- AffineToExpr.h - affine expressions as schedule Exprs ----*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler: evaluates an MLIR affine expression
// over schedule Exprs (base maps, subscript maps, loop bounds), the one place that maps
// affine operators onto Expr's.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_AFFINETOEXPR_H
#define DATAFLOW_LIB_SCHEDULER_AFFINETOEXPR_H

#include "Expr.h"
#include "mlir/IR/AffineExpr.h"

#include "llvm/ADT/ArrayRef.h"

namespace chipless::sched {

/// `e` with dimension k replaced by dims[k] and symbol k by syms[k]; clears `ok` on an
/// expression kind it does not know.
inline Expr applyAffine(mlir::AffineExpr e, llvm::ArrayRef<Expr> dims, llvm::ArrayRef<Expr> syms,
                        bool& ok) {
  using mlir::AffineExprKind;
  switch (e.getKind()) {
  case AffineExprKind::Constant:
    return Expr(mlir::cast<mlir::AffineConstantExpr>(e).getValue());
  case AffineExprKind::DimId:
    return dims[mlir::cast<mlir::AffineDimExpr>(e).getPosition()];
  case AffineExprKind::SymbolId:
    return syms[mlir::cast<mlir::AffineSymbolExpr>(e).getPosition()];
  default:
    break;
  }
  auto bin = mlir::cast<mlir::AffineBinaryOpExpr>(e);
  Expr l = applyAffine(bin.getLHS(), dims, syms, ok), r = applyAffine(bin.getRHS(), dims, syms, ok);
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv:
    return floorDiv(l, r);
  case AffineExprKind::CeilDiv:
    return ceilDiv(l, r);
  case AffineExprKind::Mod:
    return mod(l, r);
  default:
    ok = false;
    return Expr(0);
  }
}

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_AFFINETOEXPR_H
