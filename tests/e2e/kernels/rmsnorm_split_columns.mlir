// RMS normalisation with the hidden dimension split over two tiles, as ktir-cpu's 2x2
// rmsnorm kernel divides it: tile (r, c) of grid [2, 2] (tile 2r + c, row-major) owns rows
// [128r, 128r + 128) and columns [2048c, 2048c + 2048); per row, each tile sums the squares
// of its half, the two column partners (tiles 2r and 2r + 1) all-reduce that one-element
// partial (ktdp.inter_tile_reduce), and each
// scales its half by rsqrt(sum / N + eps). N (`%N: index`, used as a float through
// arith.sitofp), eps (`%eps: f16`) and the block size (`%BLOCK: index`, a loop step) are
// plain kernel arguments bound at launch.
//   Y[i, j] = X[i, j] * rsqrt(sum_k X[i, k]^2 / N + eps) * W[j]
// X, Y: [256, 4096] f16; W: [4096] f16.
#all   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 4095 >= 0)>
#vec   = affine_set<(d0) : (d0 >= 0, -d0 + 4095 >= 0)>
#row   = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#wblk  = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>
#id    = affine_map<(d0, d1) -> (d0, d1)>
#id1   = affine_map<(d0) -> (d0)>
#pair  = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>

module {
  func.func @rmsnorm_split(%X_ptr: index, %W_ptr: index, %Y_ptr: index, %N: index, %eps: f16,
                           %BLOCK: index) attributes {grid = [2, 2]} {
    %r, %c = ktdp.get_compute_tile_id : index, index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c2048 = arith.constant 2048 : index
    %row0 = arith.muli %r, %c128 : index
    %row1 = arith.addi %row0, %c128 : index
    %col0 = arith.muli %c, %c2048 : index
    %X = ktdp.construct_memory_view %X_ptr, sizes: [256, 4096], strides: [4096, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<256x4096xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [256, 4096], strides: [4096, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<256x4096xf16>
    %W = ktdp.construct_memory_view %W_ptr, sizes: [4096], strides: [1] {
      coordinate_set = #vec, memory_space = #ktdp.memory_space<global>
    } : memref<4096xf16>
    %n_i32 = arith.index_cast %N : index to i32
    %n_f = arith.sitofp %n_i32 : i32 to f16
    %zero = arith.constant 0.0 : f16
    %zeros = arith.constant dense<0.0> : tensor<1x1024xf16>
    %id0 = arith.constant dense<0.0> : tensor<1xf16>
    scf.for %i = %row0 to %row1 step %c1 {
      %sq = scf.for %k = %c0 to %c2048 step %BLOCK iter_args(%acc = %zeros)
          -> tensor<1x1024xf16> {
        %col = arith.addi %col0, %k : index
        %xt = ktdp.construct_access_tile %X[%i, %col] {
          access_tile_set = #row, access_tile_order = #id
        } : memref<256x4096xf16> -> !ktdp.access_tile<1x1024xindex>
        %x = ktdp.load %xt : !ktdp.access_tile<1x1024xindex> -> tensor<1x1024xf16>
        %x2 = arith.mulf %x, %x : tensor<1x1024xf16>
        %next = arith.addf %acc, %x2 : tensor<1x1024xf16>
        scf.yield %next : tensor<1x1024xf16>
      }
      %init = tensor.splat %zero : tensor<1xf16>
      %part = linalg.reduce { arith.addf } ins(%sq : tensor<1x1024xf16>)
          outs(%init : tensor<1xf16>) dimensions = [1]
      %fut = ktdp.inter_tile_produce producer_tiles_per_group = #pair
          -> <(tensor<1xf16>), groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>> {
        ^bb0(%g: index):
          ktdp.yield_partial %part : tensor<1xf16>
      }
      %sum = ktdp.inter_tile_reduce(%fut) consumer_tiles_per_group = #pair,
          identity(%id0 : tensor<1xf16>)
          : <(tensor<1xf16>), groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>> -> tensor<1xf16> {
        ^bb0(%a: tensor<1xf16>, %b: tensor<1xf16>):
          %s = arith.addf %a, %b : tensor<1xf16>
          ktdp.yield_reduced %s : tensor<1xf16>
      }
      %total = tensor.extract %sum[%c0] : tensor<1xf16>
      %ms = arith.divf %total, %n_f : f16
      %ms_eps = arith.addf %ms, %eps : f16
      %rstd = math.rsqrt %ms_eps : f16
      %rstd_row = tensor.splat %rstd : tensor<1x1024xf16>
      scf.for %k = %c0 to %c2048 step %BLOCK {
        %col = arith.addi %col0, %k : index
        %xt = ktdp.construct_access_tile %X[%i, %col] {
          access_tile_set = #row, access_tile_order = #id
        } : memref<256x4096xf16> -> !ktdp.access_tile<1x1024xindex>
        %wt = ktdp.construct_access_tile %W[%col] {
          access_tile_set = #wblk, access_tile_order = #id1
        } : memref<4096xf16> -> !ktdp.access_tile<1024xindex>
        %x = ktdp.load %xt : !ktdp.access_tile<1x1024xindex> -> tensor<1x1024xf16>
        %w = ktdp.load %wt : !ktdp.access_tile<1024xindex> -> tensor<1024xf16>
        %w2 = tensor.expand_shape %w [[0, 1]] output_shape [1, 1024] : tensor<1024xf16> into tensor<1x1024xf16>
        %xn = arith.mulf %x, %rstd_row : tensor<1x1024xf16>
        %y = arith.mulf %xn, %w2 : tensor<1x1024xf16>
        %yt = ktdp.construct_access_tile %Y[%i, %col] {
          access_tile_set = #row, access_tile_order = #id
        } : memref<256x4096xf16> -> !ktdp.access_tile<1x1024xindex>
        ktdp.store %y, %yt : tensor<1x1024xf16>, !ktdp.access_tile<1x1024xindex>
      }
    }
    return
  }
}
