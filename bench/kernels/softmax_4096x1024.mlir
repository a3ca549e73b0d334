// Row softmax of issue 9's comparison shape: Y[r, :] = exp(X[r, :] - max(X[r, :])) /
// sum(exp(X[r, :] - max(X[r, :]))), X and Y [4096, 1024] f16 (8 MiB each). Grid [32]: tile t
// owns rows [128t, 128t + 128): it loads its 128 x 1024 block (256 KB), reduces every row
// twice along the stick dimension (max, then sum of the exponentials) and stores the
// normalised block. models/kernels/softmax_rows.mlir at 16 times the rows.
//
//   spyre-compile bench/kernels/softmax_4096x1024.mlir -o out/softmax_4096
//   spyre-sim run out/softmax_4096/job.plan --input X=x.npy --output Y=y.npy

#block_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#all_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4095 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#row       = affine_map<(d0, d1) -> (d0)>

module {
  func.func @softmax_rows(%X_ptr: index, %Y_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %rows_per_tile = arith.constant 128 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %rows_per_tile : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [4096, 1024], strides: [1024, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<4096x1024xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [4096, 1024], strides: [1024, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<4096x1024xf16>

    %x_tile = ktdp.construct_access_tile %X[%row0, %c0] {
      access_tile_set = #block_set, access_tile_order = #identity
    } : memref<4096x1024xf16> -> !ktdp.access_tile<128x1024xindex>
    %x = ktdp.load %x_tile : !ktdp.access_tile<128x1024xindex> -> tensor<128x1024xf16>

    // Row maxima: one value per row.
    %neg_inf = arith.constant 0xFC00 : f16
    %max_init = tensor.splat %neg_inf : tensor<128xf16>
    %row_max = linalg.reduce { arith.maxnumf }
        ins(%x : tensor<128x1024xf16>) outs(%max_init : tensor<128xf16>) dimensions = [1]

    // exp(x - max), the row maximum broadcast along the row.
    %e_init = tensor.empty() : tensor<128x1024xf16>
    %e = linalg.generic {indexing_maps = [#identity, #row, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %row_max : tensor<128x1024xf16>, tensor<128xf16>) outs(%e_init : tensor<128x1024xf16>) {
    ^bb0(%xv: f16, %m: f16, %o: f16):
      %d = arith.subf %xv, %m : f16
      %ex = math.exp %d : f16
      linalg.yield %ex : f16
    } -> tensor<128x1024xf16>

    %zero = arith.constant 0.0 : f16
    %sum_init = tensor.splat %zero : tensor<128xf16>
    %row_sum = linalg.reduce { arith.addf }
        ins(%e : tensor<128x1024xf16>) outs(%sum_init : tensor<128xf16>) dimensions = [1]

    // e * (1 / sum): one reciprocal per row, then a product per element.
    %inv = spyreop.reciprocal %row_sum : tensor<128xf16>
    %inv_b = linalg.broadcast ins(%inv : tensor<128xf16>) outs(%e_init : tensor<128x1024xf16>)
        dimensions = [1]
    %y = arith.mulf %e, %inv_b : tensor<128x1024xf16>

    %y_tile = ktdp.construct_access_tile %Y[%row0, %c0] {
      access_tile_set = #block_set, access_tile_order = #identity
    } : memref<4096x1024xf16> -> !ktdp.access_tile<128x1024xindex>
    ktdp.store %y, %y_tile : tensor<128x1024xf16>, !ktdp.access_tile<128x1024xindex>
    return
  }
}
