//===- SpyreopDialect.td - the spyreop dialect -------------*- tablegen -*-===//
//
// Part of chipless. Spyre intrinsics that KTIR uses inside linalg bodies or on
// tensors: special functions of the SFU, layer-norm helpers, stick reductions and
// integer address helpers, plus the DLFloat16 and "fused" pair types.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPDIALECT_TD
#define KTIR_DIALECT_SPYREOP_SPYREOPDIALECT_TD

include "mlir/IR/OpBase.td"

def Spyreop_Dialect : Dialect {
  let name = "spyreop";
  let cppNamespace = "::mlir::spyreop";
  let summary = "Spyre intrinsics and number formats";
  let description = [{
    Elementwise intrinsics that map to one instruction of a Spyre core's
    special-function unit (exp, reciprocal, sqrt, sigmoid, …), the two halves of
    layer normalisation, one-stick reductions and integer helpers. The
    floating-point intrinsics take a scalar (`f16`, `f32`, `!spyreop.df16`) or a
    ranked tensor of one, and apply elementwise.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Spyreop_Op<string mnemonic, list<Trait> traits = []>
    : Op<Spyreop_Dialect, mnemonic, traits>;

#endif // KTIR_DIALECT_SPYREOP_SPYREOPDIALECT_TD
