// Copied from torch-spyre/ktir-mlir-frontend test/Ktdp/tile-future-type.mlir at 497fe79c3c351eedd8d971f5126ec365656402bd (Apache-2.0, Copyright 2026 The KTIR Authors): tile_future function arguments with one and with two partial types.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s



// CHECK: #[[$ATTR_0:.+]] = affine_set<(d0) : (d0 == 0)>

// CHECK-LABEL:   func.func @future_single(
// CHECK-SAME:  %[[VAL_0:.*]]: !ktdp.tile_future<(tensor<1x64xf16>), groups = #[[$ATTR_0]]>) -> !ktdp.tile_future<(tensor<1x64xf16>), groups = #[[$ATTR_0]]> {
// CHECK-NEXT:     return %[[VAL_0]] : !ktdp.tile_future<(tensor<1x64xf16>), groups = #[[$ATTR_0]]>
// CHECK-NEXT:   }

// CHECK-LABEL:   func.func @future_multi(
// CHECK-SAME:  %[[VAL_0:.*]]: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #[[$ATTR_0]]>) -> !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #[[$ATTR_0]]> {
// CHECK-NEXT:     return %[[VAL_0]] : !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #[[$ATTR_0]]>
// CHECK-NEXT:   }


#g0 = affine_set<(g) : (g == 0)>
#any = affine_set<(g) : (g == 0)>

func.func @future_single(%arg0: !ktdp.tile_future<(tensor<1x64xf16>), groups = #g0>)
    -> !ktdp.tile_future<(tensor<1x64xf16>), groups = #g0> {
  return %arg0 : !ktdp.tile_future<(tensor<1x64xf16>), groups = #g0>
}

func.func @future_multi(%arg0: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #any>)
    -> !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #any> {
  return %arg0 : !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #any>
}
