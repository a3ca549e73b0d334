//===- SpyreopTypes.td - spyreop number formats ------------*- tablegen -*-===//
//
// Part of chipless. IBM DLFloat16 and the "fused" pair types.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPTYPES_TD
#define KTIR_DIALECT_SPYREOP_SPYREOPTYPES_TD

include "ktir/Dialect/Spyreop/SpyreopDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Spyreop_Type<string name, string typeMnemonic>
    : TypeDef<Spyreop_Dialect, name,
              [MemRefElementTypeInterface]> {
  let mnemonic = typeMnemonic;
}

def Spyreop_DF16 : Spyreop_Type<"DF16", "df16"> {
  let summary = "IBM DLFloat16: 1 sign, 6 exponent, 9 mantissa bits";
  let description = [{
    The 16-bit format of Spyre's vector units: one sign bit, a 6-bit exponent
    (bias 31) and a 9-bit mantissa; more range than IEEE half, less precision.

    Syntax: `!spyreop.df16`
  }];
}

def Spyreop_DF16Fused : Spyreop_Type<"DF16Fused", "df16_fused"> {
  let summary = "Two df16 values held as one (a mean and a mean of squares)";
  let description = [{
    The result of `spyreop.exx2_fused` on `df16` data: the mean and the mean of
    squares of a stick, carried together. Syntax: `!spyreop.df16_fused`
  }];
}

def Spyreop_FP16Fused : Spyreop_Type<"FP16Fused", "fp16_fused"> {
  let summary = "Two f16 values held as one (a mean and a mean of squares)";
  let description = [{
    The result of `spyreop.exx2_fused` on `f16` data. Syntax: `!spyreop.fp16_fused`
  }];
}

def Spyreop_FP32Fused : Spyreop_Type<"FP32Fused", "fp32_fused"> {
  let summary = "Two f32 values held as one (a mean and a mean of squares)";
  let description = [{
    The result of `spyreop.exx2_fused` on `f32` data. Syntax: `!spyreop.fp32_fused`
  }];
}

#endif // KTIR_DIALECT_SPYREOP_SPYREOPTYPES_TD
