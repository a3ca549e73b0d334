// All-to-all across the ring: tile t holds A[t] (64 x 64 f16) and gives rows
// [2l, 2l + 2) of it to tile l; tile t's result stacks, in tile order, the rows [2t, 2t + 2)
// of every A[k], and it stores that into B[t]:  B[t][2k + i] = A[k][2t + i].
// A, B: [32, 64, 64] f16. Grid [32]. ktdp.inter_tile_all_to_all with split_dimensions =
// concat_dimensions = [0]: each core sends 31 slices of 256 bytes, one to every other core.
//
//   spyre-compile models/kernels/ring_all_to_all.mlir -o out/ring_all_to_all
//   spyre-sim run out/ring_all_to_all/job.plan --input A=a.npy --output B=b.npy

#all_set   = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#one_set   = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#identity3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#all_tiles = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>

module {
  func.func @ring_all_to_all(%A_ptr: index, %B_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %pid = ktdp.get_compute_tile_id : index
    %A = ktdp.construct_memory_view %A_ptr, sizes: [32, 64, 64], strides: [4096, 64, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x64x64xf16>
    %B = ktdp.construct_memory_view %B_ptr, sizes: [32, 64, 64], strides: [4096, 64, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x64x64xf16>
    %a_acc = ktdp.construct_access_tile %A[%pid, %c0, %c0] {
      access_tile_set = #one_set, access_tile_order = #identity3
    } : memref<32x64x64xf16> -> !ktdp.access_tile<1x64x64xindex>
    %a3 = ktdp.load %a_acc : !ktdp.access_tile<1x64x64xindex> -> tensor<1x64x64xf16>
    %a = tensor.collapse_shape %a3 [[0, 1], [2]] : tensor<1x64x64xf16> into tensor<64x64xf16>
    %fut = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
        : tensor<64x64xf16> -> !ktdp.tile_future<tensor<64x64xf16>, groups = affine_set<(g) : (g == 0)>> {
      ^bb0(%gid: index):
        ktdp.yield_partial %a : tensor<64x64xf16>
    }
    %b = ktdp.inter_tile_all_to_all(%fut)
        consumer_tiles_per_group = #all_tiles,
        split_dimensions = [0],
        concat_dimensions = [0]
        : !ktdp.tile_future<tensor<64x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<64x64xf16>
    %b3 = tensor.expand_shape %b [[0, 1], [2]] output_shape [1, 64, 64]
        : tensor<64x64xf16> into tensor<1x64x64xf16>
    %b_acc = ktdp.construct_access_tile %B[%pid, %c0, %c0] {
      access_tile_set = #one_set, access_tile_order = #identity3
    } : memref<32x64x64xf16> -> !ktdp.access_tile<1x64x64xindex>
    ktdp.store %b3, %b_acc : tensor<1x64x64xf16>, !ktdp.access_tile<1x64x64xindex>
    return
  }
}
