// Row RMS normalisation with epsilon as a kernel argument, the way ktir-cpu's rmsnorm kernels
// take it (`%eps: f16`, bound at launch with `--scalar eps=1e-5`), and the per-row scalar
// arithmetic in f16 (tensor.extract of the row's sum, mulf, addf %eps, rsqrt, tensor.splat):
//   Y[r, :] = X[r, :] * rsqrt(sum(X[r, :]^2) / 1024 + eps)
// X, Y: [64, 1024] f16. Grid [4]: tile t loops over rows [16t, 16t + 16).
#all  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#row  = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#id   = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @rmsnorm_eps(%X_ptr: index, %Y_ptr: index, %eps: f16) attributes {grid = [4]} {
    %pid = ktdp.get_compute_tile_id : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %first = arith.muli %pid, %c16 : index
    %last = arith.addi %first, %c16 : index
    %X = ktdp.construct_memory_view %X_ptr, sizes: [64, 1024], strides: [1024, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<64x1024xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [64, 1024], strides: [1024, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<64x1024xf16>
    %inv_n = arith.constant 9.765625e-04 : f16
    scf.for %r = %first to %last step %c1 {
      %xt = ktdp.construct_access_tile %X[%r, %c0] {
        access_tile_set = #row, access_tile_order = #id
      } : memref<64x1024xf16> -> !ktdp.access_tile<1x1024xindex>
      %x = ktdp.load %xt : !ktdp.access_tile<1x1024xindex> -> tensor<1x1024xf16>
      %sq = arith.mulf %x, %x : tensor<1x1024xf16>
      %zero = arith.constant 0.0 : f16
      %init = tensor.splat %zero : tensor<1xf16>
      %ssq = linalg.reduce { arith.addf } ins(%sq : tensor<1x1024xf16>)
          outs(%init : tensor<1xf16>) dimensions = [1]
      %s = tensor.extract %ssq[%c0] : tensor<1xf16>
      %ms = arith.mulf %s, %inv_n : f16
      %ms_eps = arith.addf %ms, %eps : f16
      %rstd = math.rsqrt %ms_eps : f16
      %rstd_row = tensor.splat %rstd : tensor<1x1024xf16>
      %y = arith.mulf %x, %rstd_row : tensor<1x1024xf16>
      %yt = ktdp.construct_access_tile %Y[%r, %c0] {
        access_tile_set = #row, access_tile_order = #id
      } : memref<64x1024xf16> -> !ktdp.access_tile<1x1024xindex>
      ktdp.store %y, %yt : tensor<1x1024xf16>, !ktdp.access_tile<1x1024xindex>
    }
    return
  }
}
