// Paged causal attention with grouped queries (the class of ktir-cpu's paged_attention,
// written for chipless's tests): 8 tokens, 32 query heads over 8 KV heads, head size 128, a
// KV cache of 64 pages of 16 positions looked up in a block table; the causal mask computed
// in a linalg.generic from positions, the loop variable, the tile and a launch value.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @paged_attention(%out_ptr: index, %q_ptr: index, %k_ptr: index, %v_ptr: index,
                           %table_ptr: index, %first_token: index, %first_page: index,
                           %pages: index, %context: index, %scale: f32) attributes {grid = [4, 8]} {
  %tq, %kv = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %tq2 = arith.muli %tq, %c2 : index
  %row0 = arith.addi %first_token, %tq2 : index
  %head0 = arith.muli %kv, %c4 : index
  %qv = ktdp.construct_memory_view %q_ptr, sizes: [8, 32, 128], strides: [4096, 128, 1] {memory_space = #ktdp.memory_space<global>} : memref<8x32x128xf16>
  %ov = ktdp.construct_memory_view %out_ptr, sizes: [8, 32, 128], strides: [4096, 128, 1] {memory_space = #ktdp.memory_space<global>} : memref<8x32x128xf16>
  %kc = ktdp.construct_memory_view %k_ptr, sizes: [64, 16, 8, 128], strides: [16384, 1024, 128, 1] {memory_space = #ktdp.memory_space<global>} : memref<64x16x8x128xf16>
  %vc = ktdp.construct_memory_view %v_ptr, sizes: [64, 16, 8, 128], strides: [16384, 1024, 128, 1] {memory_space = #ktdp.memory_space<global>} : memref<64x16x8x128xf16>
  %bt = ktdp.construct_memory_view %table_ptr, sizes: [1, 16], strides: [16, 1] {memory_space = #ktdp.memory_space<global>} : memref<1x16xi32>
  %qa = ktdp.construct_access_tile %qv[%row0, %head0, %c0] {
      access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 127 >= 0)>,
      access_tile_order = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : memref<8x32x128xf16> -> !ktdp.access_tile<2x4x128xindex>
  %q3 = ktdp.load %qa : !ktdp.access_tile<2x4x128xindex> -> tensor<2x4x128xf16>
  %q2 = tensor.collapse_shape %q3 [[0, 1], [2]] : tensor<2x4x128xf16> into tensor<8x128xf16>
  %q = arith.extf %q2 : tensor<8x128xf16> to tensor<8x128xf32>
  %ninf_bits = arith.constant 0xFF800000 : i32
  %ninf = arith.bitcast %ninf_bits : i32 to f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %m0 = tensor.splat %ninf : tensor<8xf32>
  %l0 = tensor.splat %one : tensor<8xf32>
  %a0 = tensor.splat %zero : tensor<8x128xf32>
  %mf, %lf, %af = scf.for %j = %c0 to %pages step %c1
      iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<8xf32>, tensor<8xf32>, tensor<8x128xf32>) {
    %col = arith.addi %first_page, %j : index
    %kt = ktdp.construct_indirect_access_tile intermediate_variables(%d0, %d1, %d2, %d3)
        %kc[ind(%bt[%c0, %col + %d0]), (%d1), (%kv + %d2), (%d3)] {
      variables_space_set = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0, d2 >= 0, -d2 >= 0, d3 >= 0, -d3 + 127 >= 0)>,
      variables_space_order = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
    } : memref<64x16x8x128xf16>, memref<1x16xi32> -> !ktdp.access_tile<1x16x1x128xindex>
    %vt = ktdp.construct_indirect_access_tile intermediate_variables(%d0, %d1, %d2, %d3)
        %vc[ind(%bt[%c0, %col + %d0]), (%d1), (%kv + %d2), (%d3)] {
      variables_space_set = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0, d2 >= 0, -d2 >= 0, d3 >= 0, -d3 + 127 >= 0)>,
      variables_space_order = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
    } : memref<64x16x8x128xf16>, memref<1x16xi32> -> !ktdp.access_tile<1x16x1x128xindex>
    %k4 = ktdp.load %kt : !ktdp.access_tile<1x16x1x128xindex> -> tensor<1x16x1x128xf16>
    %v4 = ktdp.load %vt : !ktdp.access_tile<1x16x1x128xindex> -> tensor<1x16x1x128xf16>
    %k2 = tensor.collapse_shape %k4 [[0, 1], [2, 3]] : tensor<1x16x1x128xf16> into tensor<16x128xf16>
    %ke = tensor.empty() : tensor<128x16xf16>
    %kT = linalg.transpose ins(%k2 : tensor<16x128xf16>) outs(%ke : tensor<128x16xf16>) permutation = [1, 0]
    %v2 = tensor.collapse_shape %v4 [[0, 1], [2, 3]] : tensor<1x16x1x128xf16> into tensor<16x128xf16>
    %kf = arith.extf %kT : tensor<128x16xf16> to tensor<128x16xf32>
    %vf = arith.extf %v2 : tensor<16x128xf16> to tensor<16x128xf32>
    %s0 = tensor.splat %zero : tensor<8x16xf32>
    %qk = linalg.matmul ins(%q, %kf : tensor<8x128xf32>, tensor<128x16xf32>) outs(%s0 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %sc = tensor.splat %scale : tensor<8x16xf32>
    %s = arith.mulf %sc, %qk : tensor<8x16xf32>
    %se = tensor.empty() : tensor<8x16xf32>
    %sm = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<8x16xf32>) outs(%se : tensor<8x16xf32>) {
      ^bb0(%x: f32, %o: f32):
        %r = linalg.index 0 : index
        %c = linalg.index 1 : index
        %tok = arith.divui %r, %c4 : index
        %pos = arith.addi %tq2, %tok : index
        %abs = arith.addi %context, %pos : index
        %base = arith.muli %j, %c16 : index
        %kpos = arith.addi %base, %c : index
        %seen = arith.cmpi ule, %kpos, %abs : index
        %y = arith.select %seen, %x, %ninf : f32
        linalg.yield %y : f32
    } -> tensor<8x16xf32>
    %mx0 = tensor.splat %ninf : tensor<8xf32>
    %mx = linalg.reduce ins(%sm : tensor<8x16xf32>) outs(%mx0 : tensor<8xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %z = arith.maximumf %a, %b : f32
        linalg.yield %z : f32
      }
    %mne = tensor.empty() : tensor<8xf32>
    %mn = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
        ins(%m, %mx : tensor<8xf32>, tensor<8xf32>) outs(%mne : tensor<8xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %z = arith.maximumf %a, %b : f32
        linalg.yield %z : f32
    } -> tensor<8xf32>
    %pe = tensor.empty() : tensor<8x16xf32>
    %p = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%sm, %mn : tensor<8x16xf32>, tensor<8xf32>) outs(%pe : tensor<8x16xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %d = arith.subf %a, %b : f32
        %z = math.exp %d : f32
        linalg.yield %z : f32
    } -> tensor<8x16xf32>
    %z8 = tensor.splat %zero : tensor<8xf32>
    %ls = linalg.reduce ins(%p : tensor<8x16xf32>) outs(%z8 : tensor<8xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %z = arith.addf %a, %b : f32
        linalg.yield %z : f32
      }
    %ae = tensor.empty() : tensor<8xf32>
    %alpha = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
        ins(%m, %mn : tensor<8xf32>, tensor<8xf32>) outs(%ae : tensor<8xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %d = arith.subf %a, %b : f32
        %z = math.exp %d : f32
        linalg.yield %z : f32
    } -> tensor<8xf32>
    %sce = tensor.empty() : tensor<8x128xf32>
    %scaled = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %alpha : tensor<8x128xf32>, tensor<8xf32>) outs(%sce : tensor<8x128xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %z = arith.mulf %a, %b : f32
        linalg.yield %z : f32
    } -> tensor<8x128xf32>
    %an = linalg.matmul ins(%p, %vf : tensor<8x16xf32>, tensor<16x128xf32>) outs(%scaled : tensor<8x128xf32>) -> tensor<8x128xf32>
    %lne = tensor.empty() : tensor<8xf32>
    %ln = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
        ins(%l, %alpha, %ls : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%lne : tensor<8xf32>) {
      ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
        %t = arith.mulf %a, %b : f32
        %z = arith.addf %t, %c : f32
        linalg.yield %z : f32
    } -> tensor<8xf32>
    scf.yield %mn, %ln, %an : tensor<8xf32>, tensor<8xf32>, tensor<8x128xf32>
  }
  %oe = tensor.empty() : tensor<8x128xf32>
  %of = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%af, %lf : tensor<8x128xf32>, tensor<8xf32>) outs(%oe : tensor<8x128xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %z = arith.divf %a, %b : f32
      linalg.yield %z : f32
  } -> tensor<8x128xf32>
  %oh = arith.truncf %of : tensor<8x128xf32> to tensor<8x128xf16>
  %o3 = tensor.expand_shape %oh [[0, 1], [2]] output_shape [2, 4, 128] : tensor<8x128xf16> into tensor<2x4x128xf16>
  %oa = ktdp.construct_access_tile %ov[%row0, %head0, %c0] {
      access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 127 >= 0)>,
      access_tile_order = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : memref<8x32x128xf16> -> !ktdp.access_tile<2x4x128xindex>
  ktdp.store %o3, %oa : tensor<2x4x128xf16>, !ktdp.access_tile<2x4x128xindex>
  return
}
