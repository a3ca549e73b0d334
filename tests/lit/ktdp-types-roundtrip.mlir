// Round trip of the ktdp types in every accepted spelling.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s

// CHECK-LABEL: func.func @access_tiles
// CHECK-SAME: !ktdp.access_tile<1x64xindex>
// CHECK-SAME: !ktdp.access_tile<?x?xindex>
// CHECK-SAME: !ktdp.access_tile<index>
// CHECK-SAME: !ktdp.access_tile<0x42xindex>
func.func @access_tiles(%a: !ktdp.access_tile<1x64xindex>, %b: !ktdp.access_tile<? x ? x index>,
                        %c: !ktdp.access_tile<index>, %d: !ktdp.access_tile<0x42xindex>) {
  return
}

// Partial types print in parentheses, as upstream prints them; without parentheses and
// without `groups =` they parse too. A group set written inline with `>=` parses (ktir-cpu
// writes it so; MLIR's scan of a dialect type's body alone would take the `>` of `>=` for
// a closing bracket: ktir/ParseGuard.h, prepareSource).
// CHECK-LABEL: func.func @futures
// CHECK-SAME: !ktdp.tile_future<(tensor<1x64xf16>), groups = #[[G:set[0-9]*]]>
// CHECK-SAME: !ktdp.tile_future<(tensor<1x64xf16>), groups = #[[G]]>
// CHECK-SAME: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #[[E:set[0-9]*]]>
// CHECK-SAME: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #[[E]]>
// CHECK-SAME: !ktdp.tile_future<(tensor<8xf16>), groups = #[[G]]>
// CHECK-SAME: !ktdp.tile_future<(tensor<1x64xf16>), groups = #[[T:set[0-9]*]]>
// CHECK-SAME: !ktdp.tile_future<(tensor<4xf16>, tensor<4xi32>), groups = #[[T]]>
// CHECK-SAME: !ktdp.tile_future<(tensor<2xf16>), groups = #[[E]]>
#g = affine_set<(g) : (g == 0)>
#eight = affine_set<(g) : (g >= 0, -g + 7 >= 0)>
func.func @futures(
    %a: !ktdp.tile_future<tensor<1x64xf16>, groups = affine_set<(g) : (g == 0)>>,
    %b: !ktdp.tile_future<(tensor<1x64xf16>), groups = #g>,
    %c: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #eight>,
    %d: !ktdp.tile_future<tensor<128xf32>, tensor<128xi32>, groups = #eight>,
    %e: !ktdp.tile_future<tensor<8xf16>, #g>,
    %f: !ktdp.tile_future<tensor<1x64xf16>, groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>>,
    %h: !ktdp.tile_future<(tensor<4xf16>, tensor<4xi32>), groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>>,
    %i: !ktdp.tile_future<(tensor<2xf16>), affine_set<(g) : (g >= 0, 7 - g >= 0)>>) {
  return
}

// Memory spaces are attributes; they may also stand as a memref's memory space.
// CHECK-LABEL: func.func @spaces
// CHECK-SAME: memref<4xf16, #ktdp.memory_space<global>>
// CHECK-SAME: memref<4xf16, #ktdp.memory_space<ct_local, ct_id = 7>>
// CHECK-SAME: memref<4xf16, #ktdp.spyre_memory_space<LX, core = 2>>
// CHECK-SAME: memref<4xf16, #ktdp.spyre_memory_space<L0>>
// CHECK-SAME: memref<4xf16, #ktdp.spyre_memory_space<unspecified>>
func.func @spaces(%a: memref<4xf16, #ktdp.memory_space<global>>,
                  %b: memref<4xf16, #ktdp.memory_space<ct_local, ct_id = 7>>,
                  %c: memref<4xf16, #ktdp.spyre_memory_space<LX, core = 2>>,
                  %d: memref<4xf16, #ktdp.spyre_memory_space<L0>>,
                  %e: memref<4xf16, #ktdp.spyre_memory_space<unspecified>>) {
  return
}
