// Constructs the Dataflow Scheduler does not compile: an error at the op, with the reason.
// RUN: spyre-compile %s -o %t --split-input-file --verify-diagnostics

func.func @product_reduction(%x_ptr: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant dense<1.0> : tensor<1xf16>
  %v = ktdp.construct_memory_view %x_ptr, sizes: [1, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  // expected-error @+1 {{has a combiner that is not add, max or min}}
  %p = linalg.reduce ins(%d : tensor<1x64xf16>) outs(%one : tensor<1xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %m = arith.mulf %in, %acc : f16
      linalg.yield %m : f16
    }
  %x = tensor.extract %p[%c0] : tensor<1xf16>
  %s = tensor.splat %x : tensor<1x64xf16>
  ktdp.store %s, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  return
}

// -----

func.func @matmul_i32(%a_ptr: index, %b_ptr: index) {
  %c0 = arith.constant 0 : index
  %va = ktdp.construct_memory_view %a_ptr, sizes: [4, 48], strides: [48, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<4x48xi32>
  %vb = ktdp.construct_memory_view %b_ptr, sizes: [48, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<48x64xi32>
  %ta = ktdp.construct_access_tile %va[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 47 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<4x48xi32> -> !ktdp.access_tile<4x48xindex>
  %tb = ktdp.construct_access_tile %vb[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 47 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<48x64xi32> -> !ktdp.access_tile<48x64xindex>
  %a = ktdp.load %ta : !ktdp.access_tile<4x48xindex> -> tensor<4x48xi32>
  %b = ktdp.load %tb : !ktdp.access_tile<48x64xindex> -> tensor<48x64xi32>
  %e = tensor.empty() : tensor<4x64xi32>
  // expected-error @+1 {{multiplies 'i32' by 'i32' matrices; the PT array takes f16 or bf16 (f32 is rounded to f16 first)}}
  %c = linalg.matmul ins(%a, %b : tensor<4x48xi32>, tensor<48x64xi32>) outs(%e : tensor<4x64xi32>) -> tensor<4x64xi32>
  %vc = ktdp.construct_memory_view %a_ptr, sizes: [4, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<4x64xi32>
  %tc = ktdp.construct_access_tile %vc[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<4x64xi32> -> !ktdp.access_tile<4x64xindex>
  ktdp.store %c, %tc : tensor<4x64xi32>, !ktdp.access_tile<4x64xindex>
  return
}

// -----

func.func @widen_to_f64(%x_ptr: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [1, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  // expected-error @+1 {{converts 'f16' to 'f64'; the SFU converts between f16, bf16, f32 and i32}}
  %w = arith.extf %d : tensor<1x64xf16> to tensor<1x64xf64>
  %h = arith.truncf %w : tensor<1x64xf64> to tensor<1x64xf16>
  ktdp.store %h, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  return
}

// -----

// expected-error @+1 {{argument 1 of type 'f64' is not supported: pointer, integer and f16, bf16 or f32 arguments can be bound at launch}}
func.func @float_argument(%x_ptr: index, %eps: f64) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [1, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  %s = tensor.splat %eps : tensor<1x64xf64>
  %h = arith.truncf %s : tensor<1x64xf64> to tensor<1x64xf16>
  %a = arith.addf %d, %h : tensor<1x64xf16>
  ktdp.store %a, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  return
}

// -----

// expected-error @+1 {{runs on a grid of 64 tiles, but the chip has 32 cores (chip.cores)}}
func.func @too_many_tiles(%x_ptr: index) attributes {grid = [64]} {
  return
}

// -----

func.func @too_large(%x_ptr: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [1024, 1024], strides: [1024, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<1024x1024xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 1023 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<1024x1024xf16> -> !ktdp.access_tile<1024x1024xindex>
  // expected-error @+1 {{needs 2097152 bytes of scratchpad for ktdp.load}}
  %d = ktdp.load %t : !ktdp.access_tile<1024x1024xindex> -> tensor<1024x1024xf16>
  %e = math.exp %d : tensor<1024x1024xf16>
  ktdp.store %e, %t : tensor<1024x1024xf16>, !ktdp.access_tile<1024x1024xindex>
  return
}

// -----

func.func @index_carried(%x_ptr: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [4, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<4x64xf16>
  // expected-error @+1 {{carries a non-tensor value ('index') around the loop; only tensors can be loop-carried}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %t = ktdp.construct_access_tile %v[%a, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = math.exp %d : tensor<1x64xf16>
    ktdp.store %e, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
    %next = arith.addi %a, %c1 : index
    scf.yield %next : index
  }
  return
}

// -----

#all2 = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>
func.func @scatter_inner_dimension(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<4x128xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  %p = ktdp.load %t : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all2
      : tensor<4x128xf16> -> !ktdp.tile_future<tensor<4x128xf16>, groups = affine_set<(g) : (g == 0)>> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<4x128xf16>
  }
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x128xf16>
  %id = linalg.fill ins(%zero : f16) outs(%e : tensor<4x128xf16>) -> tensor<4x128xf16>
  // expected-error @+1 {{scatters over dimensions that are not the leading ones}}
  %s = ktdp.inter_tile_reduce_scatter(%f) consumer_tiles_per_group = #all2,
      scatter_dimensions = [1], identity(%id : tensor<4x128xf16>)
      : !ktdp.tile_future<tensor<4x128xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<4x64xf16> {
    ^bb0(%l: tensor<4x128xf16>, %r: tensor<4x128xf16>):
      %a = arith.addf %l, %r : tensor<4x128xf16>
      ktdp.yield_reduced %a : tensor<4x128xf16>
  }
  ktdp.store %p, %t : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

#all2 = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>
func.func @scatter_part_of_a_stick(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [64], strides: [1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<64xf16>
  %t = ktdp.construct_access_tile %v[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>,
    access_tile_order = affine_map<(d0) -> (d0)>
  } : memref<64xf16> -> !ktdp.access_tile<64xindex>
  %p = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all2
      : tensor<64xf16> -> !ktdp.tile_future<tensor<64xf16>, groups = affine_set<(g) : (g == 0)>> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<64xf16>
  }
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64xf16>
  %id = linalg.fill ins(%zero : f16) outs(%e : tensor<64xf16>) -> tensor<64xf16>
  // expected-error @+1 {{gives every consumer a slice of 64 bytes, not a whole number of 128-byte sticks}}
  %s = ktdp.inter_tile_reduce_scatter(%f) consumer_tiles_per_group = #all2,
      scatter_dimensions = [0], identity(%id : tensor<64xf16>)
      : !ktdp.tile_future<tensor<64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<32xf16> {
    ^bb0(%l: tensor<64xf16>, %r: tensor<64xf16>):
      %a = arith.addf %l, %r : tensor<64xf16>
      ktdp.yield_reduced %a : tensor<64xf16>
  }
  ktdp.store %p, %t : tensor<64xf16>, !ktdp.access_tile<64xindex>
  return
}

// -----

#all2 = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>
#one  = affine_set<(i)[g] : (i - 2*g == 0)>
func.func @scatter_to_fewer_consumers(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<4x128xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  %p = ktdp.load %t : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all2
      : tensor<4x128xf16> -> !ktdp.tile_future<tensor<4x128xf16>, groups = affine_set<(g) : (g == 0)>> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<4x128xf16>
  }
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x128xf16>
  %id = linalg.fill ins(%zero : f16) outs(%e : tensor<4x128xf16>) -> tensor<4x128xf16>
  // expected-error @+1 {{scatters to a set of consumers that is not the producers}}
  %s = ktdp.inter_tile_reduce_scatter(%f) consumer_tiles_per_group = #one,
      scatter_dimensions = [0], identity(%id : tensor<4x128xf16>)
      : !ktdp.tile_future<tensor<4x128xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<4x128xf16> {
    ^bb0(%l: tensor<4x128xf16>, %r: tensor<4x128xf16>):
      %a = arith.addf %l, %r : tensor<4x128xf16>
      ktdp.yield_reduced %a : tensor<4x128xf16>
  }
  ktdp.store %p, %t : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

#pairs = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>
#every = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
#two_groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#from_group = affine_set<(p)[c, g] : (p - 2*g - c mod 2 == 0)>
func.func @consume_in_two_groups(%x_ptr: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [1, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %p = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #pairs
      : tensor<1x64xf16> -> !ktdp.tile_future<tensor<1x64xf16>, groups = #two_groups> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<1x64xf16>
  }
  // Every tile is a consumer of both groups: it would receive two partials.
  // expected-error @+1 {{has tile 0 consume in two groups; a tile gets one result per exchange}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #every,
      producer_dependency_per_consumer = #from_group
      : !ktdp.tile_future<tensor<1x64xf16>, groups = #two_groups> -> tensor<1x64xf16>
  ktdp.store %r, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  return
}

// -----

func.func @transpose_rank4(%x_ptr: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [2, 2, 4, 64], strides: [512, 256, 64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<2x2x4x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0, %c0, %c0] {
    access_tile_set = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 1 >= 0, d2 >= 0, -d2 + 3 >= 0, d3 >= 0, -d3 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  } : memref<2x2x4x64xf16> -> !ktdp.access_tile<2x2x4x64xindex>
  %x = ktdp.load %t : !ktdp.access_tile<2x2x4x64xindex> -> tensor<2x2x4x64xf16>
  %e = tensor.empty() : tensor<2x2x64x4xf16>
  // expected-error @+1 {{transposes a rank-4 tensor; the Dataflow Scheduler transposes tiles of rank 2 and 3 (the DMA engines loop over at most three dimensions)}}
  %y = linalg.transpose ins(%x : tensor<2x2x4x64xf16>) outs(%e : tensor<2x2x64x4xf16>) permutation = [0, 1, 3, 2]
  %w = ktdp.construct_memory_view %x_ptr, sizes: [2, 2, 64, 4], strides: [512, 256, 4, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<2x2x64x4xf16>
  %u = ktdp.construct_access_tile %w[%c0, %c0, %c0, %c0] {
    access_tile_set = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 1 >= 0, d2 >= 0, -d2 + 63 >= 0, d3 >= 0, -d3 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  } : memref<2x2x64x4xf16> -> !ktdp.access_tile<2x2x64x4xindex>
  ktdp.store %y, %u : tensor<2x2x64x4xf16>, !ktdp.access_tile<2x2x64x4xindex>
  return
}

// -----

func.func @transpose_reduction_result(%x_ptr: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [8, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<8x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<8x64xf16> -> !ktdp.access_tile<8x64xindex>
  %x = ktdp.load %t : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf16>
  %zero = arith.constant 0.0 : f16
  %zeros = tensor.splat %zero : tensor<8xf16>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<8x64xf16>) outs(%zeros : tensor<8xf16>) dimensions = [1]
  %col = tensor.expand_shape %sum [[0, 1]] output_shape [8, 1] : tensor<8xf16> into tensor<8x1xf16>
  %e = tensor.empty() : tensor<1x8xf16>
  // expected-error @+1 {{transposes a reduction result (one element per stick); broadcast it to a dense tile first}}
  %row = linalg.transpose ins(%col : tensor<8x1xf16>) outs(%e : tensor<1x8xf16>) permutation = [1, 0]
  %r = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<8x64xf16> -> !ktdp.access_tile<1x8xindex>
  ktdp.store %row, %r : tensor<1x8xf16>, !ktdp.access_tile<1x8xindex>
  return
}

// -----

#all4_gather_inner_dimension = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @gather_inner_dimension(%x_ptr: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [2, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<2x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<2x64xf16> -> !ktdp.access_tile<2x64xindex>
  %p = ktdp.load %t : !ktdp.access_tile<2x64xindex> -> tensor<2x64xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all4_gather_inner_dimension
      : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<2x64xf16>
  }
  // expected-error @+1 {{gathers over dimensions that are not the leading ones; the ring moves each piece as one contiguous run of the scratchpad}}
  %r = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all4_gather_inner_dimension, gather_dimensions = [1]
      : !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<2x256xf16>
  return
}

// -----

#all4_gather_not_stacked = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @gather_not_stacked(%x_ptr: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [2, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<2x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<2x64xf16> -> !ktdp.access_tile<2x64xindex>
  %p = ktdp.load %t : !ktdp.access_tile<2x64xindex> -> tensor<2x64xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all4_gather_not_stacked
      : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<2x64xf16>
  }
  // expected-error @+1 {{gathers pieces that are not stacked along dimension 0 (the result must keep every other dimension of the partial)}}
  %r = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all4_gather_not_stacked, gather_dimensions = [0, 1]
      : !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<2x256xf16>
  return
}

// -----

#all4_scatter_inner_dimension = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first_scatter = affine_set<(i)[g] : (i - 4*g == 0)>
func.func @scatter_inner_dimension(%x_ptr: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [2, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<2x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<2x64xf16> -> !ktdp.access_tile<2x64xindex>
  %p = ktdp.load %t : !ktdp.access_tile<2x64xindex> -> tensor<2x64xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first_scatter
      : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<2x64xf16>
  }
  // expected-error @+1 {{scatters over dimensions that are not the leading ones}}
  %r = ktdp.inter_tile_scatter(%f) consumer_tiles_per_group = #all4_scatter_inner_dimension, scatter_dimensions = [1]
      : !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<2x16xf16>
  return
}

// -----

#all4_a2a = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @all_to_all_inner_split(%x_ptr: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [16, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<16x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<16x64xf16> -> !ktdp.access_tile<16x64xindex>
  %p = ktdp.load %t : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all4_a2a
      : tensor<16x64xf16> -> !ktdp.tile_future<tensor<16x64xf16>, groups = affine_set<(g) : (g == 0)>> {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<16x64xf16>
  }
  // expected-error @+1 {{splits over dimensions that are not the leading ones}}
  %r = ktdp.inter_tile_all_to_all(%f) consumer_tiles_per_group = #all4_a2a,
      split_dimensions = [1], concat_dimensions = [0]
      : !ktdp.tile_future<tensor<16x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<64x16xf16>
  return
}

// -----

// layernormnorm's operands are not specified precisely enough to compile it (the mean
// travels in its `squares` operand): refused rather than guessed.
func.func @layernormnorm_not_compiled(%x_ptr: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [1, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %x = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  // expected-error @+1 {{is not an elementwise op the SFU runs}}
  %y = spyreop.layernormnorm %x squares %x scale %x weight %x bias %x : tensor<1x64xf16>
  ktdp.store %y, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  return
}

// -----

// i64 tensors are index tensors: stored as i32 (the runtime narrows the host's data), read
// only; one the kernel writes is refused, as is a type the device does not store.
// expected-error @+1 {{has element type 'i64' and is written: the device stores i64 tensors as i32, so it can only read them (as indices)}}
func.func @writes_i64(%p: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %p, sizes: [64], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<64xi64>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<64xi64> -> !ktdp.access_tile<64xindex>
  %z = arith.constant dense<0> : tensor<64xi64>
  ktdp.store %z, %t : tensor<64xi64>, <64xindex>
  return
}

// -----

// expected-error @+1 {{has element type 'f64', which the device does not store (f16, bf16, f32, i32; i64 read-only)}}
func.func @reads_f64(%p: index, %q: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %p, sizes: [64], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<64xf64>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<64xf64> -> !ktdp.access_tile<64xindex>
  %x = ktdp.load %t : <64xindex> -> tensor<64xf64>
  %w = ktdp.construct_memory_view %q, sizes: [64], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<64xf64>
  %u = ktdp.construct_access_tile %w[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<64xf64> -> !ktdp.access_tile<64xindex>
  ktdp.store %x, %u : tensor<64xf64>, <64xindex>
  return
}
