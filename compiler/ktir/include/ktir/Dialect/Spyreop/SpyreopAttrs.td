//===- SpyreopAttrs.td - spyreop enums ---------------------*- tablegen -*-===//
//
// Part of chipless. The operator and direction of spyreop.slice_reduction.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPATTRS_TD
#define KTIR_DIALECT_SPYREOP_SPYREOPATTRS_TD

include "ktir/Dialect/Spyreop/SpyreopDialect.td"
include "mlir/IR/EnumAttr.td"

def Spyreop_ReductionKind : I32EnumAttr<"ReductionKind", "reduction operator", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Sub", 1, "sub">,
    I32EnumAttrCase<"Max", 2, "max">,
    I32EnumAttrCase<"Min", 3, "min">,
    I32EnumAttrCase<"Mul", 4, "mul">,
    I32EnumAttrCase<"AbsMax", 5, "abs_max">
  ]> {
  let cppNamespace = "::mlir::spyreop";
  let genSpecializedAttr = 0;
}

def Spyreop_ReductionKindAttr
    : EnumAttr<Spyreop_Dialect, Spyreop_ReductionKind, "reduction_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Spyreop_ReductionScope : I32EnumAttr<"ReductionScope", "reduction scope", [
    I32EnumAttrCase<"InSlice", 0, "in_slice">,
    I32EnumAttrCase<"AcrossSlice", 1, "across_slice">
  ]> {
  let cppNamespace = "::mlir::spyreop";
  let genSpecializedAttr = 0;
}

def Spyreop_ReductionScopeAttr
    : EnumAttr<Spyreop_Dialect, Spyreop_ReductionScope, "reduction_scope"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // KTIR_DIALECT_SPYREOP_SPYREOPATTRS_TD
