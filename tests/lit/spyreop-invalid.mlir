// spyreop intrinsics: floating-point operands (f16, f32, df16 or tensors of them); fused
// types pair with their unfused format; softplus needs a non-zero beta.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics

func.func @integer_operand(%i: i32) {
  // expected-error @+1 {{op operand #0 must be f16, f32 or !spyreop.df16, or a ranked tensor of them, but got 'i32'}}
  %0 = spyreop.exp %i : i32
  return
}

// -----

func.func @softplus_beta(%x: f16) {
  // expected-error @+1 {{beta must be non-zero}}
  %0 = spyreop.softplus %x beta 0.0 threshold 20.0 : f16
  return
}

// -----

func.func @fused_pairing(%x: f16) {
  // expected-error @+1 {{the fused form of 'f16' is '!spyreop.fp16_fused', not '!spyreop.fp32_fused'}}
  %0 = spyreop.exx2_fused %x : f16 -> !spyreop.fp32_fused
  return
}

// -----

func.func @fused_shape(%x: tensor<4xf16>) {
  // expected-error @+1 {{if an operand is non-scalar, then there must be at least one non-scalar result}}
  %0 = spyreop.exx2_fused %x : tensor<4xf16> -> !spyreop.fp16_fused
  return
}

// -----

func.func @unfused_pairing(%f: !spyreop.df16_fused) {
  // expected-error @+1 {{the fused form of 'f16' is '!spyreop.fp16_fused', not '!spyreop.df16_fused'}}
  %0 = spyreop.layernormscale_fused %f : !spyreop.df16_fused -> f16
  return
}

// -----

func.func @mixed_types(%a: f16, %b: f32) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "spyreop.realdiv"(%a, %b) : (f16, f32) -> f16
  return
}

// -----

func.func @reduction_kind(%x: tensor<64xf16>) {
  // expected-error @+2 {{expected ::mlir::spyreop::ReductionKind to be one of: add, sub, max, min, mul, abs_max}}
  // expected-error @+1 {{failed to parse Spyreop_ReductionKindAttr parameter 'value'}}
  %0 = spyreop.slice_reduction %x {reduction_kind = #spyreop.reduction_kind<avg>, reduction_scope = #spyreop.reduction_scope<in_slice>} : tensor<64xf16> -> tensor<64xf16>
  return
}
