// y = x * a + float(n) * 2^-20 over n f32 elements, where the length n, the block size and
// a are plain kernel arguments (as ktir-cpu's kernels take them: `%n: index`,
// `step %BLOCK`, `%a: f32`): compiled once with `--bound n=1048576/1024`, the program's
// sizes, loop bounds, steps and addresses are computed at launch, and one program runs any
// multiple of 1024 up to 2^20. Grid [32]: tile t takes blocks t, t + 32, t + 64, ...
#vec   = affine_set<(d0)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0)>
#block = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>
#id1   = affine_map<(d0) -> (d0)>

module {
  func.func @axpb(%x_ptr: index, %y_ptr: index, %n: index, %BLOCK: index, %a: f32)
      attributes {grid = [32]} {
    %pid = ktdp.get_compute_tile_id : index
    %c32 = arith.constant 32 : index
    %start = arith.muli %pid, %BLOCK : index
    %stride = arith.muli %BLOCK, %c32 : index
    %X = ktdp.construct_memory_view %x_ptr, sizes: [%n], strides: [1] {
      coordinate_set = #vec, memory_space = #ktdp.memory_space<global>
    } : memref<?xf32>
    %Y = ktdp.construct_memory_view %y_ptr, sizes: [%n], strides: [1] {
      coordinate_set = #vec, memory_space = #ktdp.memory_space<global>
    } : memref<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %n_f = arith.sitofp %n_i32 : i32 to f32
    %scale = arith.constant 9.5367431640625e-07 : f32
    %shift = arith.mulf %n_f, %scale : f32
    scf.for %off = %start to %n step %stride {
      %xt = ktdp.construct_access_tile %X[%off] {
        access_tile_set = #block, access_tile_order = #id1
      } : memref<?xf32> -> !ktdp.access_tile<1024xindex>
      %x = ktdp.load %xt : !ktdp.access_tile<1024xindex> -> tensor<1024xf32>
      %as = tensor.splat %a : tensor<1024xf32>
      %xa = arith.mulf %x, %as : tensor<1024xf32>
      %bs = tensor.splat %shift : tensor<1024xf32>
      %y = arith.addf %xa, %bs : tensor<1024xf32>
      %yt = ktdp.construct_access_tile %Y[%off] {
        access_tile_set = #block, access_tile_order = #id1
      } : memref<?xf32> -> !ktdp.access_tile<1024xindex>
      ktdp.store %y, %yt : tensor<1024xf32>, !ktdp.access_tile<1024xindex>
    }
    return
  }
}
