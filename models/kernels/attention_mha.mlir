// Multi-head scaled-dot-product attention with an additive mask, on a 2-D grid:
//   O[h] = softmax(Q[h] K[h]^T / sqrt(64) + mask) V[h]   for heads h = 0..3
//
// Q, O: [4, 256, 64] f16 (heads x query positions x head dimension); KT: [4, 64, 256] f16,
// each head's keys stored transposed; V: [4, 256, 64] f16; mask: [256, 256] f16, shared by
// the heads (0 or -inf; causal: -inf above the diagonal). Grid [4, 8]: tile (h, b), core
// 8h + b, computes head h for queries [32b, 32b + 32), reading head h's keys and values.
//
//   spyre-compile models/kernels/attention_mha.mlir -o out/attention_mha
//   spyre-sim run out/attention_mha/job.plan --input Q=q.npy --input KT=kt.npy \
//     --input V=v.npy --input mask=m.npy --output O=o.npy

#qkv_set   = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 255 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#kt_set    = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 255 >= 0)>
#mask_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#q_tile    = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 31 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#kt_tile   = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 255 >= 0)>
#v_tile    = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 255 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#m_tile    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#id3       = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#row       = affine_map<(d0, d1) -> (d0)>
#head_first = affine_set<(i)[g] : (i - 8*g == 0)>
#head_tiles = affine_set<(i)[g] : (i - 8*g >= 0, -i + 8*g + 7 >= 0)>
#heads      = affine_set<(g) : (g >= 0, -g + 3 >= 0)>

module {
  func.func @attention_mha(%Q_ptr: index, %KT_ptr: index, %V_ptr: index, %mask_ptr: index,
                           %O_ptr: index) attributes {grid = [4, 8]} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %head, %block = ktdp.get_compute_tile_id : index, index
    %q0 = arith.muli %block, %c32 : index

    %Q = ktdp.construct_memory_view %Q_ptr, sizes: [4, 256, 64], strides: [16384, 64, 1] {
      coordinate_set = #qkv_set, memory_space = #ktdp.memory_space<global>
    } : memref<4x256x64xf16>
    %KT = ktdp.construct_memory_view %KT_ptr, sizes: [4, 64, 256], strides: [16384, 256, 1] {
      coordinate_set = #kt_set, memory_space = #ktdp.memory_space<global>
    } : memref<4x64x256xf16>
    %V = ktdp.construct_memory_view %V_ptr, sizes: [4, 256, 64], strides: [16384, 64, 1] {
      coordinate_set = #qkv_set, memory_space = #ktdp.memory_space<global>
    } : memref<4x256x64xf16>
    %MASK = ktdp.construct_memory_view %mask_ptr, sizes: [256, 256], strides: [256, 1] {
      coordinate_set = #mask_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x256xf16>
    %O = ktdp.construct_memory_view %O_ptr, sizes: [4, 256, 64], strides: [16384, 64, 1] {
      coordinate_set = #qkv_set, memory_space = #ktdp.memory_space<global>
    } : memref<4x256x64xf16>

    %q_acc = ktdp.construct_access_tile %Q[%head, %q0, %c0] {
      access_tile_set = #q_tile, access_tile_order = #id3
    } : memref<4x256x64xf16> -> !ktdp.access_tile<1x32x64xindex>
    %m_acc = ktdp.construct_access_tile %MASK[%q0, %c0] {
      access_tile_set = #m_tile, access_tile_order = #identity
    } : memref<256x256xf16> -> !ktdp.access_tile<32x256xindex>
    %q3 = ktdp.load %q_acc : !ktdp.access_tile<1x32x64xindex> -> tensor<1x32x64xf16>
    %mask = ktdp.load %m_acc : !ktdp.access_tile<32x256xindex> -> tensor<32x256xf16>
    %q = tensor.collapse_shape %q3 [[0, 1], [2]] : tensor<1x32x64xf16> into tensor<32x64xf16>

    // The first tile of each head reads the head's keys and values and broadcasts them
    // to the head's other 7 tiles over the ring (group g = head g).
    %kt_fut = ktdp.inter_tile_produce producer_tiles_per_group = #head_first
        : tensor<64x256xf16> -> !ktdp.tile_future<tensor<64x256xf16>, groups = #heads> {
      ^bb0(%h: index):
        %kt_acc = ktdp.construct_access_tile %KT[%h, %c0, %c0] {
          access_tile_set = #kt_tile, access_tile_order = #id3
        } : memref<4x64x256xf16> -> !ktdp.access_tile<1x64x256xindex>
        %kt3 = ktdp.load %kt_acc : !ktdp.access_tile<1x64x256xindex> -> tensor<1x64x256xf16>
        %kt_h = tensor.collapse_shape %kt3 [[0, 1], [2]] : tensor<1x64x256xf16> into tensor<64x256xf16>
        ktdp.yield_partial %kt_h : tensor<64x256xf16>
    }
    %kt = ktdp.inter_tile_consume(%kt_fut) consumer_tiles_per_group = #head_tiles
        : !ktdp.tile_future<tensor<64x256xf16>, groups = #heads> -> tensor<64x256xf16>
    %v_fut = ktdp.inter_tile_produce producer_tiles_per_group = #head_first
        : tensor<256x64xf16> -> !ktdp.tile_future<tensor<256x64xf16>, groups = #heads> {
      ^bb0(%h: index):
        %v_acc = ktdp.construct_access_tile %V[%h, %c0, %c0] {
          access_tile_set = #v_tile, access_tile_order = #id3
        } : memref<4x256x64xf16> -> !ktdp.access_tile<1x256x64xindex>
        %v3 = ktdp.load %v_acc : !ktdp.access_tile<1x256x64xindex> -> tensor<1x256x64xf16>
        %v_h = tensor.collapse_shape %v3 [[0, 1], [2]] : tensor<1x256x64xf16> into tensor<256x64xf16>
        ktdp.yield_partial %v_h : tensor<256x64xf16>
    }
    %v = ktdp.inter_tile_consume(%v_fut) consumer_tiles_per_group = #head_tiles
        : !ktdp.tile_future<tensor<256x64xf16>, groups = #heads> -> tensor<256x64xf16>

    // Scores on the PT array, scaled and masked on the SFU.
    %zero = arith.constant 0.0 : f16
    %s_empty = tensor.empty() : tensor<32x256xf16>
    %s_init = linalg.fill ins(%zero : f16) outs(%s_empty : tensor<32x256xf16>) -> tensor<32x256xf16>
    %scores = linalg.matmul ins(%q, %kt : tensor<32x64xf16>, tensor<64x256xf16>)
                            outs(%s_init : tensor<32x256xf16>) -> tensor<32x256xf16>
    %scale = arith.constant 0.125 : f16
    %logits = linalg.generic {indexing_maps = [#identity, #identity, #identity],
                              iterator_types = ["parallel", "parallel"]}
        ins(%scores, %mask : tensor<32x256xf16>, tensor<32x256xf16>) outs(%s_empty : tensor<32x256xf16>) {
    ^bb0(%sv: f16, %mv: f16, %o: f16):
      %scaled = arith.mulf %sv, %scale : f16
      %masked = arith.addf %scaled, %mv : f16
      linalg.yield %masked : f16
    } -> tensor<32x256xf16>

    // Row softmax.
    %neg_inf = arith.constant 0xFC00 : f16
    %max_init = tensor.splat %neg_inf : tensor<32xf16>
    %row_max = linalg.reduce { arith.maxnumf }
        ins(%logits : tensor<32x256xf16>) outs(%max_init : tensor<32xf16>) dimensions = [1]
    %e = linalg.generic {indexing_maps = [#identity, #row, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%logits, %row_max : tensor<32x256xf16>, tensor<32xf16>) outs(%s_empty : tensor<32x256xf16>) {
    ^bb0(%l: f16, %m: f16, %o: f16):
      %d = arith.subf %l, %m : f16
      %x = math.exp %d : f16
      linalg.yield %x : f16
    } -> tensor<32x256xf16>
    %zeros = tensor.splat %zero : tensor<32xf16>
    %row_sum = linalg.reduce { arith.addf }
        ins(%e : tensor<32x256xf16>) outs(%zeros : tensor<32xf16>) dimensions = [1]
    %inv = spyreop.reciprocal %row_sum : tensor<32xf16>
    %p = linalg.generic {indexing_maps = [#identity, #row, #identity],
                         iterator_types = ["parallel", "parallel"]}
        ins(%e, %inv : tensor<32x256xf16>, tensor<32xf16>) outs(%s_empty : tensor<32x256xf16>) {
    ^bb0(%x: f16, %r: f16, %o: f16):
      %y = arith.mulf %x, %r : f16
      linalg.yield %y : f16
    } -> tensor<32x256xf16>

    // O[h] rows = P V[h] on the PT array.
    %o_empty = tensor.empty() : tensor<32x64xf16>
    %o_init = linalg.fill ins(%zero : f16) outs(%o_empty : tensor<32x64xf16>) -> tensor<32x64xf16>
    %out = linalg.matmul ins(%p, %v : tensor<32x256xf16>, tensor<256x64xf16>)
                         outs(%o_init : tensor<32x64xf16>) -> tensor<32x64xf16>
    %out3 = tensor.expand_shape %out [[0, 1], [2]] output_shape [1, 32, 64]
        : tensor<32x64xf16> into tensor<1x32x64xf16>

    %o_acc = ktdp.construct_access_tile %O[%head, %q0, %c0] {
      access_tile_set = #q_tile, access_tile_order = #id3
    } : memref<4x256x64xf16> -> !ktdp.access_tile<1x32x64xindex>
    ktdp.store %out3, %o_acc : tensor<1x32x64xf16>, !ktdp.access_tile<1x32x64xindex>
    return
  }
}
