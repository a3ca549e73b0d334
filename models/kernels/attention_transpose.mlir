// Scaled-dot-product attention of one head with an additive mask, computing K^T in the
// kernel:
//   O = softmax(Q K^T / sqrt(64) + mask) V
//
// As attention.mlir, but the keys come in their natural layout, K: [256, 64] f16 (key
// positions x head dimension), and every tile transposes them with linalg.transpose into
// the [64, 256] layout the PT array streams as its right-hand operand. Q, V, O: [256, 64]
// f16; mask: [256, 256] f16. Grid [32]: tile t owns queries [8t, 8t + 8).
//
//   spyre-compile models/kernels/attention_transpose.mlir -o out/attention_transpose
//   spyre-sim run out/attention_transpose/job.plan --input Q=q.npy --input K=k.npy \
//     --input V=v.npy --input mask=m.npy --output O=o.npy

#q_set     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#mask_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#q_tile    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#s_tile    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#row       = affine_map<(d0, d1) -> (d0)>

module {
  func.func @attention_transpose(%Q_ptr: index, %K_ptr: index, %V_ptr: index, %mask_ptr: index,
                       %O_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %pid = ktdp.get_compute_tile_id : index
    %q0 = arith.muli %pid, %c8 : index

    %Q = ktdp.construct_memory_view %Q_ptr, sizes: [256, 64], strides: [64, 1] {
      coordinate_set = #q_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x64xf16>
    %K = ktdp.construct_memory_view %K_ptr, sizes: [256, 64], strides: [64, 1] {
      coordinate_set = #q_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x64xf16>
    %V = ktdp.construct_memory_view %V_ptr, sizes: [256, 64], strides: [64, 1] {
      coordinate_set = #q_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x64xf16>
    %MASK = ktdp.construct_memory_view %mask_ptr, sizes: [256, 256], strides: [256, 1] {
      coordinate_set = #mask_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x256xf16>
    %O = ktdp.construct_memory_view %O_ptr, sizes: [256, 64], strides: [64, 1] {
      coordinate_set = #q_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x64xf16>

    %q_acc = ktdp.construct_access_tile %Q[%q0, %c0] {
      access_tile_set = #q_tile, access_tile_order = #identity
    } : memref<256x64xf16> -> !ktdp.access_tile<8x64xindex>
    %k_acc = ktdp.construct_access_tile %K[%c0, %c0] {
      access_tile_set = #q_set, access_tile_order = #identity
    } : memref<256x64xf16> -> !ktdp.access_tile<256x64xindex>
    %v_acc = ktdp.construct_access_tile %V[%c0, %c0] {
      access_tile_set = #q_set, access_tile_order = #identity
    } : memref<256x64xf16> -> !ktdp.access_tile<256x64xindex>
    %m_acc = ktdp.construct_access_tile %MASK[%q0, %c0] {
      access_tile_set = #s_tile, access_tile_order = #identity
    } : memref<256x256xf16> -> !ktdp.access_tile<8x256xindex>
    %q = ktdp.load %q_acc : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf16>
    %k = ktdp.load %k_acc : !ktdp.access_tile<256x64xindex> -> tensor<256x64xf16>
    %v = ktdp.load %v_acc : !ktdp.access_tile<256x64xindex> -> tensor<256x64xf16>
    %mask = ktdp.load %m_acc : !ktdp.access_tile<8x256xindex> -> tensor<8x256xf16>

    // K^T in the scratchpad (through a job buffer in device memory).
    %kt_empty = tensor.empty() : tensor<64x256xf16>
    %kt = linalg.transpose ins(%k : tensor<256x64xf16>) outs(%kt_empty : tensor<64x256xf16>)
            permutation = [1, 0]

    // Scores on the PT array, then scaled and masked on the SFU.
    %zero = arith.constant 0.0 : f16
    %s_empty = tensor.empty() : tensor<8x256xf16>
    %s_init = linalg.fill ins(%zero : f16) outs(%s_empty : tensor<8x256xf16>) -> tensor<8x256xf16>
    %scores = linalg.matmul ins(%q, %kt : tensor<8x64xf16>, tensor<64x256xf16>)
                            outs(%s_init : tensor<8x256xf16>) -> tensor<8x256xf16>
    %scale = arith.constant 0.125 : f16
    %logits = linalg.generic {indexing_maps = [#identity, #identity, #identity],
                              iterator_types = ["parallel", "parallel"]}
        ins(%scores, %mask : tensor<8x256xf16>, tensor<8x256xf16>) outs(%s_empty : tensor<8x256xf16>) {
    ^bb0(%sv: f16, %mv: f16, %o: f16):
      %scaled = arith.mulf %sv, %scale : f16
      %masked = arith.addf %scaled, %mv : f16
      linalg.yield %masked : f16
    } -> tensor<8x256xf16>

    // Row softmax.
    %neg_inf = arith.constant 0xFC00 : f16
    %max_init = tensor.splat %neg_inf : tensor<8xf16>
    %row_max = linalg.reduce { arith.maxnumf }
        ins(%logits : tensor<8x256xf16>) outs(%max_init : tensor<8xf16>) dimensions = [1]
    %e = linalg.generic {indexing_maps = [#identity, #row, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%logits, %row_max : tensor<8x256xf16>, tensor<8xf16>) outs(%s_empty : tensor<8x256xf16>) {
    ^bb0(%l: f16, %m: f16, %o: f16):
      %d = arith.subf %l, %m : f16
      %x = math.exp %d : f16
      linalg.yield %x : f16
    } -> tensor<8x256xf16>
    %zeros = tensor.splat %zero : tensor<8xf16>
    %row_sum = linalg.reduce { arith.addf }
        ins(%e : tensor<8x256xf16>) outs(%zeros : tensor<8xf16>) dimensions = [1]
    %inv = spyreop.reciprocal %row_sum : tensor<8xf16>
    %p = linalg.generic {indexing_maps = [#identity, #row, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%e, %inv : tensor<8x256xf16>, tensor<8xf16>) outs(%s_empty : tensor<8x256xf16>) {
    ^bb0(%x: f16, %r: f16, %o: f16):
      %y = arith.mulf %x, %r : f16
      linalg.yield %y : f16
    } -> tensor<8x256xf16>

    // O = P V on the PT array.
    %o_empty = tensor.empty() : tensor<8x64xf16>
    %o_init = linalg.fill ins(%zero : f16) outs(%o_empty : tensor<8x64xf16>) -> tensor<8x64xf16>
    %out = linalg.matmul ins(%p, %v : tensor<8x256xf16>, tensor<256x64xf16>)
                         outs(%o_init : tensor<8x64xf16>) -> tensor<8x64xf16>

    %o_acc = ktdp.construct_access_tile %O[%q0, %c0] {
      access_tile_set = #q_tile, access_tile_order = #identity
    } : memref<256x64xf16> -> !ktdp.access_tile<8x64xindex>
    ktdp.store %out, %o_acc : tensor<8x64xf16>, !ktdp.access_tile<8x64xindex>
    return
  }
}
