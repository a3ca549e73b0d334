// SwiGLU feed-forward block with its residual, the hidden dimension sharded over 32 tiles:
//   Y = X + (silu(X Wg) * (X Wu)) Wd
//
// X, Y: [64, 512] f16 (tokens x model width); Wg, Wu: [512, 2048] f16; Wd: [2048, 512] f16.
// Grid [32]: tile t owns hidden units [64t, 64t + 64): it multiplies X by its 64 columns
// of Wg and Wu on the PT array, applies SwiGLU on the SFU, and multiplies the result by its
// 64 rows of Wd, giving a partial [64, 512] of the output. A reduce-scatter across the
// ring sums the 32 partials and hands tile t rows [2t, 2t + 2) of the sum, to which it adds
// the same rows of X (the residual) before storing them. Every weight byte is read once.
//
//   spyre-compile models/kernels/swiglu_ffn.mlir -o out/swiglu_ffn
//   spyre-sim run out/swiglu_ffn/job.plan --input X=x.npy --input Wg=wg.npy --input Wu=wu.npy \
//     --input Wd=wd.npy --output Y=y.npy

#x_set      = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#w_set      = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 2047 >= 0)>
#wd_set     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2047 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#col_shard  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row_shard  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#slice_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#identity   = affine_map<(d0, d1) -> (d0, d1)>
#all_tiles  = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>

module {
  func.func @swiglu_ffn(%X_ptr: index, %Wg_ptr: index, %Wu_ptr: index, %Wd_ptr: index,
                        %Y_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %pid = ktdp.get_compute_tile_id : index
    %h0 = arith.muli %pid, %c64 : index
    %row0 = arith.muli %pid, %c2 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [64, 512], strides: [512, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x512xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [64, 512], strides: [512, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x512xf16>
    %WG = ktdp.construct_memory_view %Wg_ptr, sizes: [512, 2048], strides: [2048, 1] {
      coordinate_set = #w_set, memory_space = #ktdp.memory_space<global>
    } : memref<512x2048xf16>
    %WU = ktdp.construct_memory_view %Wu_ptr, sizes: [512, 2048], strides: [2048, 1] {
      coordinate_set = #w_set, memory_space = #ktdp.memory_space<global>
    } : memref<512x2048xf16>
    %WD = ktdp.construct_memory_view %Wd_ptr, sizes: [2048, 512], strides: [512, 1] {
      coordinate_set = #wd_set, memory_space = #ktdp.memory_space<global>
    } : memref<2048x512xf16>

    %x_acc = ktdp.construct_access_tile %X[%c0, %c0] {
      access_tile_set = #x_set, access_tile_order = #identity
    } : memref<64x512xf16> -> !ktdp.access_tile<64x512xindex>
    %wg_acc = ktdp.construct_access_tile %WG[%c0, %h0] {
      access_tile_set = #col_shard, access_tile_order = #identity
    } : memref<512x2048xf16> -> !ktdp.access_tile<512x64xindex>
    %wu_acc = ktdp.construct_access_tile %WU[%c0, %h0] {
      access_tile_set = #col_shard, access_tile_order = #identity
    } : memref<512x2048xf16> -> !ktdp.access_tile<512x64xindex>
    %wd_acc = ktdp.construct_access_tile %WD[%h0, %c0] {
      access_tile_set = #row_shard, access_tile_order = #identity
    } : memref<2048x512xf16> -> !ktdp.access_tile<64x512xindex>
    %x = ktdp.load %x_acc : !ktdp.access_tile<64x512xindex> -> tensor<64x512xf16>
    %wg = ktdp.load %wg_acc : !ktdp.access_tile<512x64xindex> -> tensor<512x64xf16>
    %wu = ktdp.load %wu_acc : !ktdp.access_tile<512x64xindex> -> tensor<512x64xf16>
    %wd = ktdp.load %wd_acc : !ktdp.access_tile<64x512xindex> -> tensor<64x512xf16>

    // Gate and up projections of this tile's hidden units.
    %zero = arith.constant 0.0 : f16
    %h_empty = tensor.empty() : tensor<64x64xf16>
    %h_init = linalg.fill ins(%zero : f16) outs(%h_empty : tensor<64x64xf16>) -> tensor<64x64xf16>
    %gate = linalg.matmul ins(%x, %wg : tensor<64x512xf16>, tensor<512x64xf16>)
                          outs(%h_init : tensor<64x64xf16>) -> tensor<64x64xf16>
    %up = linalg.matmul ins(%x, %wu : tensor<64x512xf16>, tensor<512x64xf16>)
                        outs(%h_init : tensor<64x64xf16>) -> tensor<64x64xf16>

    // SwiGLU: silu(gate) * up.
    %act = spyreop.silu %gate : tensor<64x64xf16>
    %h = arith.mulf %act, %up : tensor<64x64xf16>

    // This tile's partial of the down projection.
    %o_empty = tensor.empty() : tensor<64x512xf16>
    %o_init = linalg.fill ins(%zero : f16) outs(%o_empty : tensor<64x512xf16>) -> tensor<64x512xf16>
    %partial = linalg.matmul ins(%h, %wd : tensor<64x64xf16>, tensor<64x512xf16>)
                             outs(%o_init : tensor<64x512xf16>) -> tensor<64x512xf16>

    // Sum the partials over the ring; tile t keeps rows [2t, 2t + 2).
    %fut = ktdp.inter_tile_produce
        producer_tiles_per_group = #all_tiles
        : tensor<64x512xf16> -> !ktdp.tile_future<tensor<64x512xf16>, groups = affine_set<(g) : (g == 0)>>
    {
      ^bb0(%gid: index):
        ktdp.yield_partial %partial : tensor<64x512xf16>
    }
    %ffn_rows = ktdp.inter_tile_reduce_scatter(%fut)
        consumer_tiles_per_group = #all_tiles,
        scatter_dimensions = [0],
        identity(%o_init : tensor<64x512xf16>)
        : !ktdp.tile_future<tensor<64x512xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<2x512xf16>
    {
      ^bb0(%lhs: tensor<64x512xf16>, %rhs: tensor<64x512xf16>):
        %s = arith.addf %lhs, %rhs : tensor<64x512xf16>
        ktdp.yield_reduced %s : tensor<64x512xf16>
    }

    // Residual: this tile's rows of X.
    %xr_acc = ktdp.construct_access_tile %X[%row0, %c0] {
      access_tile_set = #slice_set, access_tile_order = #identity
    } : memref<64x512xf16> -> !ktdp.access_tile<2x512xindex>
    %x_rows = ktdp.load %xr_acc : !ktdp.access_tile<2x512xindex> -> tensor<2x512xf16>
    %y = arith.addf %x_rows, %ffn_rows : tensor<2x512xf16>
    %y_acc = ktdp.construct_access_tile %Y[%row0, %c0] {
      access_tile_set = #slice_set, access_tile_order = #identity
    } : memref<64x512xf16> -> !ktdp.access_tile<2x512xindex>
    ktdp.store %y, %y_acc : tensor<2x512xf16>, !ktdp.access_tile<2x512xindex>
    return
  }
}
