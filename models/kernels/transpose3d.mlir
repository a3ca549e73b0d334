// Transposes of rank-3 tiles (linalg.transpose with any permutation): tile t loads
// X[t] (4 x 24 x 40 f16: 4 heads of a 24 x 40 block, rows of 80 bytes, not whole sticks)
// and writes
//   Y[t] = X[t] with the last two dimensions swapped, permutation [0, 2, 1] (per-head
//          K^T, the batched transpose of attention);
//   Z[t] = X[t] with the first two swapped, permutation [1, 0, 2], plus 1 (a row shuffle:
//          read back one row per DMA run);
//   W[t] = X[t] permuted [2, 0, 1].
// X: [32, 4, 24, 40]; Y: [32, 4, 40, 24]; Z: [32, 24, 4, 40]; W: [32, 40, 4, 24], f16.
// Grid [32]. Each transpose goes out to device memory and back with dma.loadb.
//
//   spyre-compile models/kernels/transpose3d.mlir -o out/transpose3d
//   spyre-sim run out/transpose3d/job.plan --input X=x.npy --output Y=y.npy --output Z=z.npy --output W=w.npy

#x_set  = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 23 >= 0, d3 >= 0, -d3 + 39 >= 0)>
#y_set  = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 39 >= 0, d3 >= 0, -d3 + 23 >= 0)>
#z_set  = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 23 >= 0, d2 >= 0, -d2 + 3 >= 0, d3 >= 0, -d3 + 39 >= 0)>
#w_set  = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 39 >= 0, d2 >= 0, -d2 + 3 >= 0, d3 >= 0, -d3 + 23 >= 0)>
#x_tile = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 23 >= 0, d3 >= 0, -d3 + 39 >= 0)>
#y_tile = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 39 >= 0, d3 >= 0, -d3 + 23 >= 0)>
#z_tile = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 23 >= 0, d2 >= 0, -d2 + 3 >= 0, d3 >= 0, -d3 + 39 >= 0)>
#w_tile = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 39 >= 0, d2 >= 0, -d2 + 3 >= 0, d3 >= 0, -d3 + 23 >= 0)>
#id4    = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

module {
  func.func @transpose3d(%X_ptr: index, %Y_ptr: index, %Z_ptr: index, %W_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %pid = ktdp.get_compute_tile_id : index
    %X = ktdp.construct_memory_view %X_ptr, sizes: [32, 4, 24, 40], strides: [3840, 960, 40, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x4x24x40xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [32, 4, 40, 24], strides: [3840, 960, 24, 1] {
      coordinate_set = #y_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x4x40x24xf16>
    %Z = ktdp.construct_memory_view %Z_ptr, sizes: [32, 24, 4, 40], strides: [3840, 160, 40, 1] {
      coordinate_set = #z_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x24x4x40xf16>
    %W = ktdp.construct_memory_view %W_ptr, sizes: [32, 40, 4, 24], strides: [3840, 96, 24, 1] {
      coordinate_set = #w_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x40x4x24xf16>

    %x_acc = ktdp.construct_access_tile %X[%pid, %c0, %c0, %c0] {
      access_tile_set = #x_tile, access_tile_order = #id4
    } : memref<32x4x24x40xf16> -> !ktdp.access_tile<1x4x24x40xindex>
    %x4 = ktdp.load %x_acc : !ktdp.access_tile<1x4x24x40xindex> -> tensor<1x4x24x40xf16>
    %x = tensor.collapse_shape %x4 [[0, 1], [2], [3]] : tensor<1x4x24x40xf16> into tensor<4x24x40xf16>

    %ye = tensor.empty() : tensor<4x40x24xf16>
    %y = linalg.transpose ins(%x : tensor<4x24x40xf16>) outs(%ye : tensor<4x40x24xf16>) permutation = [0, 2, 1]
    %y4 = tensor.expand_shape %y [[0, 1], [2], [3]] output_shape [1, 4, 40, 24] : tensor<4x40x24xf16> into tensor<1x4x40x24xf16>
    %y_acc = ktdp.construct_access_tile %Y[%pid, %c0, %c0, %c0] {
      access_tile_set = #y_tile, access_tile_order = #id4
    } : memref<32x4x40x24xf16> -> !ktdp.access_tile<1x4x40x24xindex>
    ktdp.store %y4, %y_acc : tensor<1x4x40x24xf16>, !ktdp.access_tile<1x4x40x24xindex>

    %ze = tensor.empty() : tensor<24x4x40xf16>
    %zt = linalg.transpose ins(%x : tensor<4x24x40xf16>) outs(%ze : tensor<24x4x40xf16>) permutation = [1, 0, 2]
    %one = arith.constant 1.0 : f16
    %ones = tensor.splat %one : tensor<24x4x40xf16>
    %z = arith.addf %zt, %ones : tensor<24x4x40xf16>
    %z4 = tensor.expand_shape %z [[0, 1], [2], [3]] output_shape [1, 24, 4, 40] : tensor<24x4x40xf16> into tensor<1x24x4x40xf16>
    %z_acc = ktdp.construct_access_tile %Z[%pid, %c0, %c0, %c0] {
      access_tile_set = #z_tile, access_tile_order = #id4
    } : memref<32x24x4x40xf16> -> !ktdp.access_tile<1x24x4x40xindex>
    ktdp.store %z4, %z_acc : tensor<1x24x4x40xf16>, !ktdp.access_tile<1x24x4x40xindex>

    %we = tensor.empty() : tensor<40x4x24xf16>
    %w = linalg.transpose ins(%x : tensor<4x24x40xf16>) outs(%we : tensor<40x4x24xf16>) permutation = [2, 0, 1]
    %w4 = tensor.expand_shape %w [[0, 1], [2], [3]] output_shape [1, 40, 4, 24] : tensor<40x4x24xf16> into tensor<1x40x4x24xf16>
    %w_acc = ktdp.construct_access_tile %W[%pid, %c0, %c0, %c0] {
      access_tile_set = #w_tile, access_tile_order = #id4
    } : memref<32x40x4x24xf16> -> !ktdp.access_tile<1x40x4x24xindex>
    ktdp.store %w4, %w_acc : tensor<1x40x4x24xf16>, !ktdp.access_tile<1x40x4x24xindex>
    return
  }
}
