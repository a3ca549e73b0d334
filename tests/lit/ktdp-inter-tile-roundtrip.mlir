// Round trip of inter-tile communication: produce with each of the six delivery ops
// (broadcast, routing, all-reduce, reduce, multi-role reduce, reduce-scatter, gather,
// all-gather, all-to-all, scatter), in the custom and the generic form.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s
// RUN: ktir-opt %s --mlir-print-op-generic | ktir-opt | FileCheck %s

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#pairs = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>
#one = affine_set<(g) : (g == 0)>
#two = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#reverse = affine_set<(p)[c] : (p + c - 3 == 0)>
#pair_deps = affine_set<(p)[c, g] : (p - 2*g >= 0, -p + 2*g + 1 >= 0)>

// CHECK-LABEL: func.func @broadcast
func.func @broadcast(%w: tensor<64x128xf16>) -> tensor<64x128xf16> attributes {grid = [4]} {
  // CHECK: %[[F:.*]] = ktdp.inter_tile_produce producer_tiles_per_group = #{{.*}} -> <(tensor<64x128xf16>), groups = #{{.*}}> {
  // CHECK-NEXT: ^bb0(%{{.*}}: index):
  // CHECK-NEXT: ktdp.yield_partial %{{.*}} : tensor<64x128xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first
      : tensor<64x128xf16> -> !ktdp.tile_future<tensor<64x128xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %w : tensor<64x128xf16>
  }
  // CHECK: ktdp.inter_tile_consume(%[[F]]) consumer_tiles_per_group = #{{.*}} : <(tensor<64x128xf16>), groups = #{{.*}}> -> tensor<64x128xf16>
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all
      : !ktdp.tile_future<tensor<64x128xf16>, groups = #one> -> tensor<64x128xf16>
  return %r : tensor<64x128xf16>
}

// The `: T ->` before the future type may be omitted.
// CHECK-LABEL: func.func @routing
// CHECK: ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = #{{.*}}, producer_dependency_per_consumer = #{{.*}} : <(tensor<8xf16>), groups = #{{.*}}> -> tensor<8xf16>
func.func @routing(%x: tensor<8xf16>) -> tensor<8xf16> attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all
      -> !ktdp.tile_future<tensor<8xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %x : tensor<8xf16>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all,
      producer_dependency_per_consumer = #reverse
      : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return %r : tensor<8xf16>
}

// CHECK-LABEL: func.func @all_reduce
// CHECK: ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = #{{.*}}, identity(%{{.*}} : tensor<1x64xf16>) : <(tensor<1x64xf16>), groups = #{{.*}}> -> tensor<1x64xf16> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x64xf16>, %{{.*}}: tensor<1x64xf16>):
// CHECK: ktdp.yield_reduced %{{.*}} : tensor<1x64xf16>
func.func @all_reduce(%p: tensor<1x64xf16>, %zero: tensor<1x64xf16>) -> tensor<1x64xf16>
    attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all
      : tensor<1x64xf16> -> !ktdp.tile_future<tensor<1x64xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<1x64xf16>
  }
  %r = ktdp.inter_tile_reduce(%f)
      consumer_tiles_per_group = #all,
      identity(%zero : tensor<1x64xf16>)
      : !ktdp.tile_future<tensor<1x64xf16>, groups = #one> -> tensor<1x64xf16>
  {
    ^bb0(%lhs: tensor<1x64xf16>, %rhs: tensor<1x64xf16>):
      %s = arith.addf %lhs, %rhs : tensor<1x64xf16>
      ktdp.yield_reduced %s : tensor<1x64xf16>
  }
  return %r : tensor<1x64xf16>
}

// Two groups of two tiles; each pair reduces to its first tile, waiting on both.
// The result may be a reshape of the partial.
// CHECK-LABEL: func.func @reduce_to_one
// CHECK: ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = #{{.*}}, producer_dependency_per_consumer = #{{.*}}, identity(%{{.*}} : tensor<1x64xf16>) : <(tensor<1x64xf16>), groups = #{{.*}}> -> tensor<64xf16>
func.func @reduce_to_one(%p: tensor<1x64xf16>, %zero: tensor<1x64xf16>) -> tensor<64xf16>
    attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #pairs
      : tensor<1x64xf16> -> !ktdp.tile_future<tensor<1x64xf16>, groups = #two>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<1x64xf16>
  }
  %r = ktdp.inter_tile_reduce(%f)
      consumer_tiles_per_group = affine_set<(i)[g] : (i - 2*g == 0)>,
      producer_dependency_per_consumer = #pair_deps,
      identity(%zero : tensor<1x64xf16>)
      : !ktdp.tile_future<tensor<1x64xf16>, groups = #two> -> tensor<64xf16>
  {
    ^bb0(%lhs: tensor<1x64xf16>, %rhs: tensor<1x64xf16>):
      %s = arith.maximumf %lhs, %rhs : tensor<1x64xf16>
      ktdp.yield_reduced %s : tensor<1x64xf16>
  }
  return %r : tensor<64xf16>
}

// Two roles (values, indices) fold together: 2N combiner arguments.
// CHECK-LABEL: func.func @argmax
// CHECK: identity(%{{.*}}, %{{.*}} : tensor<128xf32>, tensor<128xi32>) : <(tensor<128xf32>, tensor<128xi32>), groups = #{{.*}}> -> tensor<128xf32>, tensor<128xi32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<128xf32>, %{{.*}}: tensor<128xi32>, %{{.*}}: tensor<128xf32>, %{{.*}}: tensor<128xi32>):
// CHECK: ktdp.yield_reduced %{{.*}}, %{{.*}} : tensor<128xf32>, tensor<128xi32>
func.func @argmax(%v: tensor<128xf32>, %i: tensor<128xi32>, %v0: tensor<128xf32>, %i0: tensor<128xi32>)
    -> (tensor<128xf32>, tensor<128xi32>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all
      : tensor<128xf32>, tensor<128xi32> -> !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %v, %i : tensor<128xf32>, tensor<128xi32>
  }
  %rv, %ri = ktdp.inter_tile_reduce(%f)
      consumer_tiles_per_group = #all,
      identity(%v0 : tensor<128xf32>, %i0 : tensor<128xi32>)
      : !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #one> -> tensor<128xf32>, tensor<128xi32>
  {
    ^bb0(%lv: tensor<128xf32>, %li: tensor<128xi32>, %rv2: tensor<128xf32>, %ri2: tensor<128xi32>):
      %gt = arith.cmpf ogt, %lv, %rv2 : tensor<128xf32>
      %mv = arith.select %gt, %lv, %rv2 : tensor<128xi1>, tensor<128xf32>
      %mi = arith.select %gt, %li, %ri2 : tensor<128xi1>, tensor<128xi32>
      ktdp.yield_reduced %mv, %mi : tensor<128xf32>, tensor<128xi32>
  }
  return %rv, %ri : tensor<128xf32>, tensor<128xi32>
}

// CHECK-LABEL: func.func @reduce_scatter
// CHECK: ktdp.inter_tile_reduce_scatter(%{{.*}}) consumer_tiles_per_group = #{{.*}}, scatter_dimensions = [0], identity(%{{.*}} : tensor<128x64xf16>) : <(tensor<128x64xf16>), groups = #{{.*}}> -> tensor<32x64xf16> {
func.func @reduce_scatter(%p: tensor<128x64xf16>, %zero: tensor<128x64xf16>) -> tensor<32x64xf16>
    attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all
      : tensor<128x64xf16> -> !ktdp.tile_future<tensor<128x64xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<128x64xf16>
  }
  %r = ktdp.inter_tile_reduce_scatter(%f)
      consumer_tiles_per_group = #all,
      scatter_dimensions = [0],
      identity(%zero : tensor<128x64xf16>)
      : !ktdp.tile_future<tensor<128x64xf16>, groups = #one> -> tensor<32x64xf16>
  {
    ^bb0(%lhs: tensor<128x64xf16>, %rhs: tensor<128x64xf16>):
      %s = arith.addf %lhs, %rhs : tensor<128x64xf16>
      ktdp.yield_reduced %s : tensor<128x64xf16>
  }
  return %r : tensor<32x64xf16>
}

// CHECK-LABEL: func.func @gather
// CHECK: ktdp.inter_tile_gather(%{{.*}}) consumer_tiles_per_group = #{{.*}}, gather_dimensions = [0] : <(tensor<32x64xf16>), groups = #{{.*}}> -> tensor<128x64xf16>
// CHECK: ktdp.inter_tile_gather(%{{.*}}) consumer_tiles_per_group = #{{.*}}, gather_dimensions = [0, 1] : <(tensor<2x4x64xf16>), groups = #{{.*}}> -> tensor<2x16x64xf16>
func.func @gather(%p: tensor<32x64xf16>, %q: tensor<2x4x64xf16>) -> (tensor<128x64xf16>, tensor<2x16x64xf16>)
    attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all
      : tensor<32x64xf16> -> !ktdp.tile_future<tensor<32x64xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<32x64xf16>
  }
  // Gather to tile 0.
  %g = ktdp.inter_tile_gather(%f)
      consumer_tiles_per_group = #first,
      gather_dimensions = [0]
      : !ktdp.tile_future<tensor<32x64xf16>, groups = #one> -> tensor<128x64xf16>
  // All-gather over a flattened pair of dimensions.
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #all
      : tensor<2x4x64xf16> -> !ktdp.tile_future<tensor<2x4x64xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %q : tensor<2x4x64xf16>
  }
  %ag = ktdp.inter_tile_gather(%f2)
      consumer_tiles_per_group = #all,
      gather_dimensions = [0, 1]
      : !ktdp.tile_future<tensor<2x4x64xf16>, groups = #one> -> tensor<2x16x64xf16>
  return %g, %ag : tensor<128x64xf16>, tensor<2x16x64xf16>
}

// CHECK-LABEL: func.func @all_to_all
// CHECK: ktdp.inter_tile_all_to_all(%{{.*}}) consumer_tiles_per_group = #{{.*}}, split_dimensions = [1], concat_dimensions = [0] : <(tensor<16x64xf16>), groups = #{{.*}}> -> tensor<64x16xf16>
func.func @all_to_all(%p: tensor<16x64xf16>) -> tensor<64x16xf16> attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all
      : tensor<16x64xf16> -> !ktdp.tile_future<tensor<16x64xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<16x64xf16>
  }
  %a = ktdp.inter_tile_all_to_all(%f)
      consumer_tiles_per_group = #all,
      split_dimensions = [1],
      concat_dimensions = [0]
      : !ktdp.tile_future<tensor<16x64xf16>, groups = #one> -> tensor<64x16xf16>
  return %a : tensor<64x16xf16>
}

// CHECK-LABEL: func.func @scatter
// CHECK: ktdp.inter_tile_scatter(%{{.*}}) consumer_tiles_per_group = #{{.*}}, scatter_dimensions = [0] : <(tensor<128x64xf16>), groups = #{{.*}}> -> tensor<32x64xf16>
func.func @scatter(%p: tensor<128x64xf16>) -> tensor<32x64xf16> attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first
      : tensor<128x64xf16> -> !ktdp.tile_future<tensor<128x64xf16>, groups = #one>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %p : tensor<128x64xf16>
  }
  %s = ktdp.inter_tile_scatter(%f)
      consumer_tiles_per_group = #all,
      scatter_dimensions = [0]
      : !ktdp.tile_future<tensor<128x64xf16>, groups = #one> -> tensor<32x64xf16>
  return %s : tensor<32x64xf16>
}
