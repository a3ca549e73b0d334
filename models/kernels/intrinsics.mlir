// spyreop intrinsics that the SFU runs as several instructions, on 32 tiles of 8 rows:
//   Y = spyreop.softplus X beta 2 threshold 3 (on tensors): log(1 + exp(2 x)) / 2, or x
//       where 2 x > 3 — mul, exp, add, log, mul, compare and select on the SFU;
//   S = spyreop.layernormscale M squares M2 (in a linalg.generic body): rsqrt(M2 - M M),
//       the scale of layer norm from the mean and the mean of squares.
// X, M, M2, Y, S: [256, 128] f16. Grid [32]: tile t takes rows [8t, 8t + 8).
//
//   spyre-compile models/kernels/intrinsics.mlir -o out/intrinsics
//   spyre-sim run out/intrinsics/job.plan --input X=x.npy --input M=m.npy --input M2=m2.npy \
//     --output Y=y.npy --output S=s.npy

#all_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#rows_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id2      = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @intrinsics(%X_ptr: index, %M_ptr: index, %M2_ptr: index, %Y_ptr: index,
                        %S_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c8 : index
    %X = ktdp.construct_memory_view %X_ptr, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x128xf16>
    %M = ktdp.construct_memory_view %M_ptr, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x128xf16>
    %M2 = ktdp.construct_memory_view %M2_ptr, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x128xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x128xf16>
    %S = ktdp.construct_memory_view %S_ptr, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x128xf16>

    %x_acc = ktdp.construct_access_tile %X[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #id2
    } : memref<256x128xf16> -> !ktdp.access_tile<8x128xindex>
    %x = ktdp.load %x_acc : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf16>
    %y = spyreop.softplus %x beta 2.000000e+00 threshold 3.000000e+00 : tensor<8x128xf16>
    %y_acc = ktdp.construct_access_tile %Y[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #id2
    } : memref<256x128xf16> -> !ktdp.access_tile<8x128xindex>
    ktdp.store %y, %y_acc : tensor<8x128xf16>, !ktdp.access_tile<8x128xindex>

    %m_acc = ktdp.construct_access_tile %M[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #id2
    } : memref<256x128xf16> -> !ktdp.access_tile<8x128xindex>
    %m = ktdp.load %m_acc : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf16>
    %m2_acc = ktdp.construct_access_tile %M2[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #id2
    } : memref<256x128xf16> -> !ktdp.access_tile<8x128xindex>
    %m2 = ktdp.load %m2_acc : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf16>
    %init = tensor.empty() : tensor<8x128xf16>
    %s = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                         iterator_types = ["parallel", "parallel"]}
        ins(%m, %m2 : tensor<8x128xf16>, tensor<8x128xf16>) outs(%init : tensor<8x128xf16>) {
      ^bb0(%a: f16, %b: f16, %out: f16):
        %r = spyreop.layernormscale %a squares %b : f16
        linalg.yield %r : f16
    } -> tensor<8x128xf16>
    %s_acc = ktdp.construct_access_tile %S[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #id2
    } : memref<256x128xf16> -> !ktdp.access_tile<8x128xindex>
    ktdp.store %s, %s_acc : tensor<8x128xf16>, !ktdp.access_tile<8x128xindex>
    return
  }
}
