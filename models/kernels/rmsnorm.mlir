// RMS normalisation over the last dimension (LLaMA-style):
//   Y[r, :] = X[r, :] * rsqrt(sum(X[r, :]^2) / 2048 + eps) * weight, eps = 1e-5.
//
// X, Y: [128, 2048] f16; weight: [2048] f16. Grid [32]: tile t owns rows [4t, 4t + 4);
// tile 0 reads the weight and broadcasts it to the others (ktdp.inter_tile_consume).
//
//   spyre-compile models/kernels/rmsnorm.mlir -o out/rmsnorm
//   spyre-sim run out/rmsnorm/job.plan --input X=x.npy --input weight=w.npy --output Y=y.npy

#block_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 2047 >= 0)>
#all_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 2047 >= 0)>
#vec_set   = affine_set<(d0) : (d0 >= 0, -d0 + 2047 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#id1       = affine_map<(d0) -> (d0)>
#row       = affine_map<(d0, d1) -> (d0)>
#col       = affine_map<(d0, d1) -> (d1)>
#tile0     = affine_set<(i)[g] : (i - 32*g == 0)>
#all_tiles = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#one_group = affine_set<(g) : (g == 0)>

module {
  func.func @rmsnorm(%X_ptr: index, %weight_ptr: index, %Y_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c4 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [128, 2048], strides: [2048, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<128x2048xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [128, 2048], strides: [2048, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<128x2048xf16>
    %W = ktdp.construct_memory_view %weight_ptr, sizes: [2048], strides: [1] {
      coordinate_set = #vec_set, memory_space = #ktdp.memory_space<global>
    } : memref<2048xf16>

    %x_tile = ktdp.construct_access_tile %X[%row0, %c0] {
      access_tile_set = #block_set, access_tile_order = #identity
    } : memref<128x2048xf16> -> !ktdp.access_tile<4x2048xindex>
    %x = ktdp.load %x_tile : !ktdp.access_tile<4x2048xindex> -> tensor<4x2048xf16>
    // Tile 0 reads the weight and broadcasts it over the ring: 32 tiles reading the same
    // 4 KB would all queue on the one DRAM channel that holds it.
    %w_tile = ktdp.construct_access_tile %W[%c0] {
      access_tile_set = #vec_set, access_tile_order = #id1
    } : memref<2048xf16> -> !ktdp.access_tile<2048xindex>
    %w_fut = ktdp.inter_tile_produce producer_tiles_per_group = #tile0
        : tensor<2048xf16> -> !ktdp.tile_future<tensor<2048xf16>, groups = #one_group> {
      ^bb0(%gid: index):
        %w0 = ktdp.load %w_tile : !ktdp.access_tile<2048xindex> -> tensor<2048xf16>
        ktdp.yield_partial %w0 : tensor<2048xf16>
    }
    %w = ktdp.inter_tile_consume(%w_fut) consumer_tiles_per_group = #all_tiles
        : !ktdp.tile_future<tensor<2048xf16>, groups = #one_group> -> tensor<2048xf16>

    // rstd = rsqrt(mean(x^2) + eps), one value per row
    %sq = arith.mulf %x, %x : tensor<4x2048xf16>
    %zero = arith.constant 0.0 : f16
    %zeros = tensor.splat %zero : tensor<4xf16>
    %ssq = linalg.reduce { arith.addf }
        ins(%sq : tensor<4x2048xf16>) outs(%zeros : tensor<4xf16>) dimensions = [1]
    %inv_n = arith.constant dense<4.8828125e-04> : tensor<4xf16>
    %eps = arith.constant dense<1.0e-05> : tensor<4xf16>
    %ms = arith.mulf %ssq, %inv_n : tensor<4xf16>
    %ms_eps = arith.addf %ms, %eps : tensor<4xf16>
    %rstd = spyreop.rsqrt %ms_eps : tensor<4xf16>

    // y = x * rstd * w
    %full = tensor.empty() : tensor<4x2048xf16>
    %y = linalg.generic {indexing_maps = [#identity, #row, #col, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %rstd, %w : tensor<4x2048xf16>, tensor<4xf16>, tensor<2048xf16>)
        outs(%full : tensor<4x2048xf16>) {
    ^bb0(%v: f16, %r: f16, %g: f16, %o: f16):
      %n = arith.mulf %v, %r : f16
      %s = arith.mulf %n, %g : f16
      linalg.yield %s : f16
    } -> tensor<4x2048xf16>

    %y_tile = ktdp.construct_access_tile %Y[%row0, %c0] {
      access_tile_set = #block_set, access_tile_order = #identity
    } : memref<128x2048xf16> -> !ktdp.access_tile<4x2048xindex>
    ktdp.store %y, %y_tile : tensor<4x2048xf16>, !ktdp.access_tile<4x2048xindex>
    return
  }
}
