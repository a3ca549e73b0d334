// Scatter across the ring: tile 3 loads all of S (64 x 64 f16), adds 1, and gives every
// tile t rows [2t, 2t + 2) of the result, which tile t stores into W.
// S, W: [64, 64] f16. Grid [32]. ktdp.inter_tile_scatter with scatter_dimensions = [0]
// over the 32 consumers: tile 3 sends 31 slices of 256 bytes over the ring (its own slice
// stays in its scratchpad).
//
//   spyre-compile models/kernels/ring_scatter.mlir -o out/ring_scatter
//   spyre-sim run out/ring_scatter/job.plan --input S=s.npy --output W=w.npy

#s_set     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#rows_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#all_tiles = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#tile3     = affine_set<(i)[g] : (i - 32*g - 3 == 0)>

module {
  func.func @ring_scatter(%S_ptr: index, %W_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c2 : index

    %S = ktdp.construct_memory_view %S_ptr, sizes: [64, 64], strides: [64, 1] {
      coordinate_set = #s_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x64xf16>
    %W = ktdp.construct_memory_view %W_ptr, sizes: [64, 64], strides: [64, 1] {
      coordinate_set = #s_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x64xf16>

    %fut = ktdp.inter_tile_produce producer_tiles_per_group = #tile3
        : tensor<64x64xf16> -> !ktdp.tile_future<tensor<64x64xf16>, groups = affine_set<(g) : (g == 0)>> {
      ^bb0(%gid: index):
        %s_acc = ktdp.construct_access_tile %S[%c0, %c0] {
          access_tile_set = #s_set, access_tile_order = #identity
        } : memref<64x64xf16> -> !ktdp.access_tile<64x64xindex>
        %s = ktdp.load %s_acc : !ktdp.access_tile<64x64xindex> -> tensor<64x64xf16>
        %one = arith.constant 1.0 : f16
        %one_t = tensor.splat %one : tensor<64x64xf16>
        %p = arith.addf %s, %one_t : tensor<64x64xf16>
        ktdp.yield_partial %p : tensor<64x64xf16>
    }
    %mine = ktdp.inter_tile_scatter(%fut)
        consumer_tiles_per_group = #all_tiles,
        scatter_dimensions = [0]
        : !ktdp.tile_future<tensor<64x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<2x64xf16>
    %w_acc = ktdp.construct_access_tile %W[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #identity
    } : memref<64x64xf16> -> !ktdp.access_tile<2x64xindex>
    ktdp.store %mine, %w_acc : tensor<2x64xf16>, !ktdp.access_tile<2x64xindex>
    return
  }
}
