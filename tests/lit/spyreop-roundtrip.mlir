// Round trip of every spyreop intrinsic on scalars (f16, f32, df16) and tensors, and of
// the spyreop types, in the custom and the generic form.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s
// RUN: ktir-opt %s --mlir-print-op-generic | ktir-opt | FileCheck %s

// CHECK-LABEL: func.func @special_functions
func.func @special_functions(%h: f16, %f: f32, %d: !spyreop.df16, %t: tensor<4x64xf16>) {
  // CHECK: spyreop.exp %{{.*}} : f16
  %0 = spyreop.exp %h : f16
  // CHECK: spyreop.exp %{{.*}} : tensor<4x64xf16>
  %1 = spyreop.exp %t : tensor<4x64xf16>
  // CHECK: spyreop.reciprocal %{{.*}} : f32
  %2 = spyreop.reciprocal %f : f32
  // CHECK: spyreop.sqrt %{{.*}} : !spyreop.df16
  %3 = spyreop.sqrt %d : !spyreop.df16
  // CHECK: spyreop.rsqrt %{{.*}} : tensor<4x64xf16>
  %4 = spyreop.rsqrt %t : tensor<4x64xf16>
  // CHECK: spyreop.sigmoid %{{.*}} : f16
  %5 = spyreop.sigmoid %h : f16
  // CHECK: spyreop.silu %{{.*}} : tensor<4x64xf16>
  %6 = spyreop.silu %t : tensor<4x64xf16>
  // CHECK: spyreop.gelu %{{.*}} : !spyreop.df16
  %7 = spyreop.gelu %d : !spyreop.df16
  // CHECK: spyreop.softplus %{{.*}} beta 1.000000e+00 threshold 2.000000e+01 : f16
  %8 = spyreop.softplus %h beta 1.0 threshold 20.0 : f16
  // CHECK: spyreop.realdiv %{{.*}}, %{{.*}} : tensor<4x64xf16>
  %9 = spyreop.realdiv %t, %t : tensor<4x64xf16>
  return
}

// CHECK-LABEL: func.func @layernorm
func.func @layernorm(%x: f16, %w: f16, %b: f16, %t: tensor<64xf32>, %d: !spyreop.df16) {
  // CHECK: %[[M:.*]], %[[M2:.*]] = spyreop.exx2 %{{.*}} : f16
  %m, %m2 = spyreop.exx2 %x : f16
  // CHECK: spyreop.layernormscale %[[M]] squares %[[M2]] : f16
  %s = spyreop.layernormscale %m squares %m2 : f16
  // CHECK: spyreop.layernormnorm %{{.*}} squares %{{.*}} scale %{{.*}} weight %{{.*}} bias %{{.*}} : f16
  %y = spyreop.layernormnorm %x squares %m scale %s weight %w bias %b : f16
  // CHECK: spyreop.exx2_fused %{{.*}} : f16 -> !spyreop.fp16_fused
  %f = spyreop.exx2_fused %x : f16 -> !spyreop.fp16_fused
  // CHECK: spyreop.layernormscale_fused %{{.*}} : !spyreop.fp16_fused -> f16
  %fs = spyreop.layernormscale_fused %f : !spyreop.fp16_fused -> f16
  // CHECK: spyreop.exx2_fused %{{.*}} : tensor<64xf32> -> tensor<64x!spyreop.fp32_fused>
  %tf = spyreop.exx2_fused %t : tensor<64xf32> -> tensor<64x!spyreop.fp32_fused>
  // CHECK: spyreop.exx2_fused %{{.*}} : !spyreop.df16 -> !spyreop.df16_fused
  %df = spyreop.exx2_fused %d : !spyreop.df16 -> !spyreop.df16_fused
  // CHECK: spyreop.layernormscale_fused %{{.*}} : !spyreop.df16_fused -> !spyreop.df16
  %ds = spyreop.layernormscale_fused %df : !spyreop.df16_fused -> !spyreop.df16
  return
}

// CHECK-LABEL: func.func @stick_reductions
func.func @stick_reductions(%t: tensor<64xf16>) -> tensor<64xf16> {
  // CHECK: spyreop.slice_reduction %{{.*}} {reduction_kind = #spyreop.reduction_kind<add>, reduction_scope = #spyreop.reduction_scope<in_slice>} : tensor<64xf16> -> tensor<64xf16>
  %a = spyreop.slice_reduction %t {reduction_kind = #spyreop.reduction_kind<add>,
                                   reduction_scope = #spyreop.reduction_scope<in_slice>}
      : tensor<64xf16> -> tensor<64xf16>
  // CHECK: reduction_kind = #spyreop.reduction_kind<abs_max>, reduction_scope = #spyreop.reduction_scope<across_slice>
  %b = spyreop.slice_reduction %a {reduction_kind = #spyreop.reduction_kind<abs_max>,
                                   reduction_scope = #spyreop.reduction_scope<across_slice>}
      : tensor<64xf16> -> tensor<64xf16>
  return %b : tensor<64xf16>
}

// CHECK-LABEL: func.func @integer_helpers
func.func @integer_helpers(%a: i32, %b: i32, %c: i64, %d: i64) -> (i32, i64, i32, i32) {
  // CHECK: spyreop.addi32toi32 %{{.*}}, %{{.*}}
  %0 = spyreop.addi32toi32 %a, %b
  // CHECK: spyreop.addi64toi64 %{{.*}}, %{{.*}}
  %1 = spyreop.addi64toi64 %c, %d
  // CHECK: spyreop.muli32toi32 %{{.*}}, %{{.*}}
  %2 = spyreop.muli32toi32 %a, %b
  // CHECK: spyreop.idx32toaddr %{{.*}} base %{{.*}} stride %{{.*}}
  %3 = spyreop.idx32toaddr %a base %b stride %0
  return %0, %1, %2, %3 : i32, i64, i32, i32
}

// Intrinsics inside a linalg.generic body, as KTIR uses them.
// CHECK-LABEL: func.func @in_linalg
// CHECK: linalg.generic
// CHECK: spyreop.silu %{{.*}} : f16
func.func @in_linalg(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %init = tensor.empty() : tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
    ^bb0(%in: f16, %out: f16):
      %s = spyreop.silu %in : f16
      linalg.yield %s : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// CHECK-LABEL: func.func @types
// CHECK-SAME: memref<64x!spyreop.df16>
// CHECK-SAME: !spyreop.df16_fused
// CHECK-SAME: !spyreop.fp16_fused
// CHECK-SAME: !spyreop.fp32_fused
func.func @types(%a: memref<64x!spyreop.df16>, %b: !spyreop.df16_fused, %c: !spyreop.fp16_fused,
                 %d: !spyreop.fp32_fused) {
  return
}
