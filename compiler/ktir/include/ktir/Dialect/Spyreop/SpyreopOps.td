//===- SpyreopOps.td - spyreop intrinsics ------------------*- tablegen -*-===//
//
// Part of chipless. Every intrinsic of the public spyreop dialect with its public
// textual syntax. The floating-point intrinsics are elementwise on scalars and on
// ranked tensors.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPOPS_TD
#define KTIR_DIALECT_SPYREOP_SPYREOPOPS_TD

include "ktir/Dialect/Spyreop/SpyreopDialect.td"
include "ktir/Dialect/Spyreop/SpyreopTypes.td"
include "ktir/Dialect/Spyreop/SpyreopAttrs.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Spyreop_FloatLike : AnyTypeOf<[F16, F32, Spyreop_DF16,
                                   RankedTensorOf<[F16, F32, Spyreop_DF16]>],
    "f16, f32 or !spyreop.df16, or a ranked tensor of them">;

def Spyreop_FusedLike : AnyTypeOf<[Spyreop_DF16Fused, Spyreop_FP16Fused, Spyreop_FP32Fused,
                                   RankedTensorOf<[Spyreop_DF16Fused, Spyreop_FP16Fused,
                                                   Spyreop_FP32Fused]>],
    "!spyreop.df16_fused, fp16_fused or fp32_fused, or a ranked tensor of them">;

//===----------------------------------------------------------------------===//
// Special functions (one operand, same type out)
//===----------------------------------------------------------------------===//

class Spyreop_UnaryOp<string mnemonic>
    : Spyreop_Op<mnemonic, [Pure, Elementwise, SameOperandsAndResultType]> {
  let arguments = (ins Spyreop_FloatLike:$operand);
  let results = (outs Spyreop_FloatLike:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Spyreop_ExpOp : Spyreop_UnaryOp<"exp"> {
  let summary = "exp(x)";
  let description = [{
    The exponential, elementwise.

    Example:
    ```mlir
    %y = spyreop.exp %x : f16
    %t = spyreop.exp %v : tensor<64xf16>
    ```
  }];
}

def Spyreop_ReciprocalOp : Spyreop_UnaryOp<"reciprocal"> {
  let summary = "1 / x";
  let description = [{
    The multiplicative inverse, elementwise.

    Example:
    ```mlir
    %y = spyreop.reciprocal %x : f16
    ```
  }];
}

def Spyreop_SqrtOp : Spyreop_UnaryOp<"sqrt"> {
  let summary = "sqrt(x)";
  let description = [{
    The square root, elementwise.

    Example:
    ```mlir
    %y = spyreop.sqrt %x : f32
    ```
  }];
}

def Spyreop_RsqrtOp : Spyreop_UnaryOp<"rsqrt"> {
  let summary = "1 / sqrt(x)";
  let description = [{
    The reciprocal square root, elementwise.

    Example:
    ```mlir
    %y = spyreop.rsqrt %x : tensor<4x64xf16>
    ```
  }];
}

def Spyreop_SigmoidOp : Spyreop_UnaryOp<"sigmoid"> {
  let summary = "1 / (1 + exp(-x))";
  let description = [{
    The logistic function, elementwise.

    Example:
    ```mlir
    %y = spyreop.sigmoid %x : f16
    ```
  }];
}

def Spyreop_SiluOp : Spyreop_UnaryOp<"silu"> {
  let summary = "x * sigmoid(x)";
  let description = [{
    The SiLU (swish) activation, elementwise.

    Example:
    ```mlir
    %y = spyreop.silu %x : tensor<1x128xf16>
    ```
  }];
}

def Spyreop_GeluOp : Spyreop_UnaryOp<"gelu"> {
  let summary = "x * Phi(x)";
  let description = [{
    The GeLU activation (x times the standard normal CDF of x), elementwise.

    Example:
    ```mlir
    %y = spyreop.gelu %x : !spyreop.df16
    ```
  }];
}

def Spyreop_SoftplusOp : Spyreop_Op<"softplus",
    [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "1/beta * log(1 + exp(beta * x)), linear above threshold";
  let description = [{
    Softplus with parameters `beta` (non-zero) and `threshold`: where
    `beta * x > threshold` the result is `x`.

    Example:
    ```mlir
    %y = spyreop.softplus %x beta 1.000000e+00 threshold 2.000000e+01 : f16
    ```
  }];
  let arguments = (ins Spyreop_FloatLike:$operand, F32Attr:$beta, F32Attr:$threshold);
  let results = (outs Spyreop_FloatLike:$result);
  let assemblyFormat = [{
    $operand `beta` $beta `threshold` $threshold attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Spyreop_RealDivOp : Spyreop_Op<"realdiv",
    [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "lhs / rhs";
  let description = [{
    Real division, elementwise.

    Example:
    ```mlir
    %q = spyreop.realdiv %a, %b : f16
    ```
  }];
  let arguments = (ins Spyreop_FloatLike:$lhs, Spyreop_FloatLike:$rhs);
  let results = (outs Spyreop_FloatLike:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Layer normalisation
//===----------------------------------------------------------------------===//

def Spyreop_Exx2Op : Spyreop_Op<"exx2",
    [Pure, Elementwise, AllTypesMatch<["operand", "mean", "mean_of_squares"]>]> {
  let summary = "Mean and mean of squares (E[x], E[x^2])";
  let description = [{
    Accumulates the mean and the mean of squares of its operand, the first
    step of layer normalisation; both results have the operand's type.

    Example:
    ```mlir
    %m, %m2 = spyreop.exx2 %x : f16
    ```
  }];
  let arguments = (ins Spyreop_FloatLike:$operand);
  let results = (outs Spyreop_FloatLike:$mean, Spyreop_FloatLike:$mean_of_squares);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Spyreop_Exx2FusedOp : Spyreop_Op<"exx2_fused", [Pure, Elementwise]> {
  let summary = "Mean and mean of squares, carried as one fused value";
  let description = [{
    As `spyreop.exx2`, with both results packed into one fused value:
    `f16` gives `!spyreop.fp16_fused`, `f32` gives `fp32_fused`, `df16` gives
    `df16_fused` (tensors keep their shape).

    Example:
    ```mlir
    %f = spyreop.exx2_fused %x : f16 -> !spyreop.fp16_fused
    ```
  }];
  let arguments = (ins Spyreop_FloatLike:$operand);
  let results = (outs Spyreop_FusedLike:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Spyreop_LayerNormScaleOp : Spyreop_Op<"layernormscale",
    [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Scale of layer norm: 1 / sqrt(E[x^2] - E[x]^2)";
  let description = [{
    From the mean (`operand`) and the mean of squares (`squares`), the
    factor that normalises the variance.

    Example:
    ```mlir
    %s = spyreop.layernormscale %m squares %m2 : f16
    ```
  }];
  let arguments = (ins Spyreop_FloatLike:$operand, Spyreop_FloatLike:$squares);
  let results = (outs Spyreop_FloatLike:$result);
  let assemblyFormat = "$operand `squares` $squares attr-dict `:` type($result)";
}

def Spyreop_LayerNormScaleFusedOp : Spyreop_Op<"layernormscale_fused",
    [Pure, Elementwise]> {
  let summary = "Scale of layer norm from a fused mean / mean of squares";
  let description = [{
    As `spyreop.layernormscale`, reading both moments from the fused value of
    `spyreop.exx2_fused`; the result is the matching unfused type.

    Example:
    ```mlir
    %s = spyreop.layernormscale_fused %f : !spyreop.fp16_fused -> f16
    ```
  }];
  let arguments = (ins Spyreop_FusedLike:$operand);
  let results = (outs Spyreop_FloatLike:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Spyreop_LayerNormNormOp : Spyreop_Op<"layernormnorm",
    [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Normalising part of layer norm: (x - mean) * scale * weight + bias";
  let description = [{
    Normalises `operand` with the mean (`squares` holds the mean of squares
    as produced by `exx2`), the `scale` of `layernormscale`, and applies the
    affine `weight` and `bias`.

    Example:
    ```mlir
    %y = spyreop.layernormnorm %x squares %m scale %s weight %w bias %b : f16
    ```
  }];
  let arguments = (ins Spyreop_FloatLike:$operand, Spyreop_FloatLike:$squares,
                       Spyreop_FloatLike:$scale, Spyreop_FloatLike:$weight,
                       Spyreop_FloatLike:$bias);
  let results = (outs Spyreop_FloatLike:$result);
  let assemblyFormat = [{
    $operand `squares` $squares `scale` $scale `weight` $weight `bias` $bias
    attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Stick reductions
//===----------------------------------------------------------------------===//

def Spyreop_SliceReductionOp : Spyreop_Op<"slice_reduction",
    [Pure, SameOperandsAndResultType]> {
  let summary = "Reduce within or across the slices of one stick";
  let description = [{
    Works on one stick (a row of the vector unit's width) at a time.
    `reduction_kind` is the operator (`add`, `sub`, `max`, `min`, `mul`,
    `abs_max`). `in_slice` leaves in the first element of every slice the
    reduction of that slice; `across_slice` leaves in the first slice the
    elementwise reduction of all slices.

    Example:
    ```mlir
    %r = spyreop.slice_reduction %x {reduction_kind = #spyreop.reduction_kind<max>,
                                     reduction_scope = #spyreop.reduction_scope<in_slice>}
        : tensor<64xf16> -> tensor<64xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand,
                       Spyreop_ReductionKindAttr:$reduction_kind,
                       Spyreop_ReductionScopeAttr:$reduction_scope);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Integer helpers
//===----------------------------------------------------------------------===//

class Spyreop_IntBinaryOp<string mnemonic, Type type>
    : Spyreop_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Spyreop_AddI32ToI32Op : Spyreop_IntBinaryOp<"addi32toi32", I32> {
  let summary = "i32 + i32 -> i32";
  let description = [{
    Adds two 32-bit integers (wrapping).

    Example:
    ```mlir
    %s = spyreop.addi32toi32 %a, %b
    ```
  }];
}

def Spyreop_AddI64ToI64Op : Spyreop_IntBinaryOp<"addi64toi64", I64> {
  let summary = "i64 + i64 -> i64";
  let description = [{
    Adds two 64-bit integers (wrapping).

    Example:
    ```mlir
    %s = spyreop.addi64toi64 %a, %b
    ```
  }];
}

def Spyreop_MulI32ToI32Op : Spyreop_IntBinaryOp<"muli32toi32", I32> {
  let summary = "i32 * i32 -> i32 (low 32 bits)";
  let description = [{
    Multiplies two 32-bit integers, keeping the low 32 bits.

    Example:
    ```mlir
    %p = spyreop.muli32toi32 %a, %b
    ```
  }];
}

def Spyreop_Idx32ToAddrOp : Spyreop_Op<"idx32toaddr", [Pure]> {
  let summary = "Address b + s * i from a 32-bit index";
  let description = [{
    Computes the address `base + stride * index` (32-bit, wrapping), as the
    address generators do for gathers.

    Example:
    ```mlir
    %addr = spyreop.idx32toaddr %i base %b stride %s
    ```
  }];
  let arguments = (ins I32:$index, I32:$base, I32:$stride);
  let results = (outs I32:$result);
  let assemblyFormat = "$index `base` $base `stride` $stride attr-dict";
}

#endif // KTIR_DIALECT_SPYREOP_SPYREOPOPS_TD
