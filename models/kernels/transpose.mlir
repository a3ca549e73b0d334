// Tile transposes through linalg.transpose, in two element types and shapes that are not
// whole sticks:
//   Y  = X^T + 1   X: [768, 40] f32 (tile t: rows [24t, 24t + 24) -> Y [40, 768] columns)
//   HT = H^T       H: [256, 100] f16 (tile t: rows [8t, 8t + 8)  -> HT [100, 256] columns)
// Grid [32]. Each tile transposes its 24 x 40 and 8 x 100 tiles in the scratchpad: short
// enough (24 and 8 rows, at most a stick's lanes) for the Dataflow Scheduler to transpose
// them on the SFU, a lane broadcast and a select per row (docs/ktir.md).
//
//   spyre-compile models/kernels/transpose.mlir -o out/transpose
//   spyre-sim run out/transpose/job.plan --input X=x.npy --input H=h.npy \
//     --output Y=y.npy --output HT=ht.npy

#x_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 767 >= 0, d1 >= 0, -d1 + 39 >= 0)>
#y_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 39 >= 0, d1 >= 0, -d1 + 767 >= 0)>
#h_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 99 >= 0)>
#ht_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 99 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#x_tile  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 23 >= 0, d1 >= 0, -d1 + 39 >= 0)>
#y_tile  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 39 >= 0, d1 >= 0, -d1 + 23 >= 0)>
#h_tile  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 99 >= 0)>
#ht_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 99 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#identity = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @transpose(%X_ptr: index, %H_ptr: index, %Y_ptr: index, %HT_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c24 = arith.constant 24 : index
    %pid = ktdp.get_compute_tile_id : index
    %x0 = arith.muli %pid, %c24 : index
    %h0 = arith.muli %pid, %c8 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [768, 40], strides: [40, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<768x40xf32>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [40, 768], strides: [768, 1] {
      coordinate_set = #y_set, memory_space = #ktdp.memory_space<global>
    } : memref<40x768xf32>
    %H = ktdp.construct_memory_view %H_ptr, sizes: [256, 100], strides: [100, 1] {
      coordinate_set = #h_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x100xf16>
    %HT = ktdp.construct_memory_view %HT_ptr, sizes: [100, 256], strides: [256, 1] {
      coordinate_set = #ht_set, memory_space = #ktdp.memory_space<global>
    } : memref<100x256xf16>

    %x_acc = ktdp.construct_access_tile %X[%x0, %c0] {
      access_tile_set = #x_tile, access_tile_order = #identity
    } : memref<768x40xf32> -> !ktdp.access_tile<24x40xindex>
    %x = ktdp.load %x_acc : !ktdp.access_tile<24x40xindex> -> tensor<24x40xf32>
    %xt_empty = tensor.empty() : tensor<40x24xf32>
    %xt = linalg.transpose ins(%x : tensor<24x40xf32>) outs(%xt_empty : tensor<40x24xf32>)
            permutation = [1, 0]
    %one = arith.constant 1.0 : f32
    %y = linalg.generic {indexing_maps = [#identity, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%xt : tensor<40x24xf32>) outs(%xt_empty : tensor<40x24xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.addf %v, %one : f32
      linalg.yield %s : f32
    } -> tensor<40x24xf32>
    %y_acc = ktdp.construct_access_tile %Y[%c0, %x0] {
      access_tile_set = #y_tile, access_tile_order = #identity
    } : memref<40x768xf32> -> !ktdp.access_tile<40x24xindex>
    ktdp.store %y, %y_acc : tensor<40x24xf32>, !ktdp.access_tile<40x24xindex>

    %h_acc = ktdp.construct_access_tile %H[%h0, %c0] {
      access_tile_set = #h_tile, access_tile_order = #identity
    } : memref<256x100xf16> -> !ktdp.access_tile<8x100xindex>
    %h = ktdp.load %h_acc : !ktdp.access_tile<8x100xindex> -> tensor<8x100xf16>
    %ht_empty = tensor.empty() : tensor<100x8xf16>
    %ht = linalg.transpose ins(%h : tensor<8x100xf16>) outs(%ht_empty : tensor<100x8xf16>)
            permutation = [1, 0]
    %ht_acc = ktdp.construct_access_tile %HT[%c0, %h0] {
      access_tile_set = #ht_tile, access_tile_order = #identity
    } : memref<100x256xf16> -> !ktdp.access_tile<100x8xindex>
    ktdp.store %ht, %ht_acc : tensor<100x8xf16>, !ktdp.access_tile<100x8xindex>
    return
  }
}
