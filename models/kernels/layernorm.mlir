// Layer normalisation over the last dimension:
//   Y[r, :] = (X[r, :] - mean) * rsqrt(var + eps) * gamma + beta,
//   mean = sum(X[r, :]) / 1024, var = sum((X[r, :] - mean)^2) / 1024, eps = 1e-5.
//
// X, Y: [256, 1024] f16; gamma, beta: [1024] f16. Grid [32]: tile t owns rows
// [8t, 8t + 8); tile 0 reads gamma and beta and broadcasts them to the others
// (ktdp.inter_tile_consume). The statistics are reduction results (one value per row,
// held one per stick); linalg.generic broadcasts them along the rows and gamma and beta
// down the columns through its indexing maps.
//
//   spyre-compile models/kernels/layernorm.mlir -o out/layernorm
//   spyre-sim run out/layernorm/job.plan --input X=x.npy --input gamma=g.npy \
//     --input beta=b.npy --output Y=y.npy

#block_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#all_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#vec_set   = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#id1       = affine_map<(d0) -> (d0)>
#row       = affine_map<(d0, d1) -> (d0)>
#col       = affine_map<(d0, d1) -> (d1)>
#tile0     = affine_set<(i)[g] : (i - 32*g == 0)>
#all_tiles = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#one_group = affine_set<(g) : (g == 0)>

module {
  func.func @layernorm(%X_ptr: index, %gamma_ptr: index, %beta_ptr: index, %Y_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c8 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [256, 1024], strides: [1024, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x1024xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [256, 1024], strides: [1024, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x1024xf16>
    %G = ktdp.construct_memory_view %gamma_ptr, sizes: [1024], strides: [1] {
      coordinate_set = #vec_set, memory_space = #ktdp.memory_space<global>
    } : memref<1024xf16>
    %B = ktdp.construct_memory_view %beta_ptr, sizes: [1024], strides: [1] {
      coordinate_set = #vec_set, memory_space = #ktdp.memory_space<global>
    } : memref<1024xf16>

    %x_tile = ktdp.construct_access_tile %X[%row0, %c0] {
      access_tile_set = #block_set, access_tile_order = #identity
    } : memref<256x1024xf16> -> !ktdp.access_tile<8x1024xindex>
    %x = ktdp.load %x_tile : !ktdp.access_tile<8x1024xindex> -> tensor<8x1024xf16>
    // Tile 0 reads gamma and beta and broadcasts them over the ring: 32 tiles reading the
    // same 4 KB would all queue on the one DRAM channel that holds it.
    %g_tile = ktdp.construct_access_tile %G[%c0] {
      access_tile_set = #vec_set, access_tile_order = #id1
    } : memref<1024xf16> -> !ktdp.access_tile<1024xindex>
    %b_tile = ktdp.construct_access_tile %B[%c0] {
      access_tile_set = #vec_set, access_tile_order = #id1
    } : memref<1024xf16> -> !ktdp.access_tile<1024xindex>
    %g_fut = ktdp.inter_tile_produce producer_tiles_per_group = #tile0
        : tensor<1024xf16> -> !ktdp.tile_future<tensor<1024xf16>, groups = #one_group> {
      ^bb0(%gid: index):
        %g0 = ktdp.load %g_tile : !ktdp.access_tile<1024xindex> -> tensor<1024xf16>
        ktdp.yield_partial %g0 : tensor<1024xf16>
    }
    %gamma = ktdp.inter_tile_consume(%g_fut) consumer_tiles_per_group = #all_tiles
        : !ktdp.tile_future<tensor<1024xf16>, groups = #one_group> -> tensor<1024xf16>
    %b_fut = ktdp.inter_tile_produce producer_tiles_per_group = #tile0
        : tensor<1024xf16> -> !ktdp.tile_future<tensor<1024xf16>, groups = #one_group> {
      ^bb0(%gid: index):
        %b0 = ktdp.load %b_tile : !ktdp.access_tile<1024xindex> -> tensor<1024xf16>
        ktdp.yield_partial %b0 : tensor<1024xf16>
    }
    %beta = ktdp.inter_tile_consume(%b_fut) consumer_tiles_per_group = #all_tiles
        : !ktdp.tile_future<tensor<1024xf16>, groups = #one_group> -> tensor<1024xf16>

    // mean = sum / 1024
    %zero = arith.constant 0.0 : f16
    %zeros = tensor.splat %zero : tensor<8xf16>
    %sum = linalg.reduce { arith.addf }
        ins(%x : tensor<8x1024xf16>) outs(%zeros : tensor<8xf16>) dimensions = [1]
    %inv_n = arith.constant dense<9.765625e-04> : tensor<8xf16>
    %mean = arith.mulf %sum, %inv_n : tensor<8xf16>

    // xc = x - mean (mean broadcast along each row)
    %full = tensor.empty() : tensor<8x1024xf16>
    %xc = linalg.generic {indexing_maps = [#identity, #row, #identity],
                          iterator_types = ["parallel", "parallel"]}
        ins(%x, %mean : tensor<8x1024xf16>, tensor<8xf16>) outs(%full : tensor<8x1024xf16>) {
    ^bb0(%xv: f16, %m: f16, %o: f16):
      %d = arith.subf %xv, %m : f16
      linalg.yield %d : f16
    } -> tensor<8x1024xf16>

    // rstd = rsqrt(sum(xc^2) / 1024 + eps)
    %sq = arith.mulf %xc, %xc : tensor<8x1024xf16>
    %ssq = linalg.reduce { arith.addf }
        ins(%sq : tensor<8x1024xf16>) outs(%zeros : tensor<8xf16>) dimensions = [1]
    %eps = arith.constant dense<1.0e-05> : tensor<8xf16>
    %var = arith.mulf %ssq, %inv_n : tensor<8xf16>
    %var_eps = arith.addf %var, %eps : tensor<8xf16>
    %rstd = math.rsqrt %var_eps : tensor<8xf16>

    // y = xc * rstd * gamma + beta
    %y = linalg.generic {indexing_maps = [#identity, #row, #col, #col, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%xc, %rstd, %gamma, %beta : tensor<8x1024xf16>, tensor<8xf16>, tensor<1024xf16>, tensor<1024xf16>)
        outs(%full : tensor<8x1024xf16>) {
    ^bb0(%v: f16, %r: f16, %g: f16, %b: f16, %o: f16):
      %n = arith.mulf %v, %r : f16
      %s = arith.mulf %n, %g : f16
      %t = arith.addf %s, %b : f16
      linalg.yield %t : f16
    } -> tensor<8x1024xf16>

    %y_tile = ktdp.construct_access_tile %Y[%row0, %c0] {
      access_tile_set = #block_set, access_tile_order = #identity
    } : memref<256x1024xf16> -> !ktdp.access_tile<8x1024xindex>
    ktdp.store %y, %y_tile : tensor<8x1024xf16>, !ktdp.access_tile<8x1024xindex>
    return
  }
}
