// Dimension lists of reduce_scatter, gather, all_to_all and scatter: non-empty, ascending,
// valid axes. Split extents divide by the consumer count C (R9), concatenation multiplies
// by a single producer count P (R7, R12), the other axes stay, and all_to_all pairs every
// producer with every consumer.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @not_ascending(%x: tensor<128x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<128x64xf16> -> !ktdp.tile_future<tensor<128x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<128x64xf16>
  }
  // expected-error @+1 {{scatter_dimensions must be strictly ascending, got {1, 0}}}
  %s = ktdp.inter_tile_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [1, 0] : !ktdp.tile_future<tensor<128x64xf16>, groups = #one> -> tensor<32x64xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @out_of_range(%x: tensor<128x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<128x64xf16> -> !ktdp.tile_future<tensor<128x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<128x64xf16>
  }
  // expected-error @+1 {{scatter_dimensions {2} names a dimension outside the partial type 'tensor<128x64xf16>'}}
  %s = ktdp.inter_tile_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [2] : !ktdp.tile_future<tensor<128x64xf16>, groups = #one> -> tensor<32x64xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @empty(%x: tensor<128x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<128x64xf16> -> !ktdp.tile_future<tensor<128x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<128x64xf16>
  }
  // expected-error @+1 {{scatter_dimensions must name at least one dimension}}
  %s = ktdp.inter_tile_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [] : !ktdp.tile_future<tensor<128x64xf16>, groups = #one> -> tensor<128x64xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @not_divisible(%x: tensor<6x64xf16>, %zero: tensor<6x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<6x64xf16> -> !ktdp.tile_future<tensor<6x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<6x64xf16>
  }
  // expected-error @+1 {{partial #0 spans 6 elements over its split dimensions {0}, not divisible by the 4 consumers of group 0}}
  %r = ktdp.inter_tile_reduce_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [0], identity(%zero : tensor<6x64xf16>) : !ktdp.tile_future<tensor<6x64xf16>, groups = #one> -> tensor<1x64xf16> {
  ^bb0(%l: tensor<6x64xf16>, %r2: tensor<6x64xf16>):
    %s = arith.addf %l, %r2 : tensor<6x64xf16>
    ktdp.yield_reduced %s : tensor<6x64xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @split_extent(%x: tensor<128x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<128x64xf16> -> !ktdp.tile_future<tensor<128x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<128x64xf16>
  }
  // expected-error @+1 {{result #0 spans 64 elements over {0} but the partial's 128 split over the 4 consumers of group 0 gives 32}}
  %s = ktdp.inter_tile_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [0] : !ktdp.tile_future<tensor<128x64xf16>, groups = #one> -> tensor<64x64xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @concat_extent(%x: tensor<32x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<32x64xf16> -> !ktdp.tile_future<tensor<32x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<32x64xf16>
  }
  // expected-error @+1 {{result #0 spans 64 elements over {0} but assembling 4 producers of group 0 gives 128}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all, gather_dimensions = [0] : !ktdp.tile_future<tensor<32x64xf16>, groups = #one> -> tensor<64x64xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @other_axis(%x: tensor<32x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<32x64xf16> -> !ktdp.tile_future<tensor<32x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<32x64xf16>
  }
  // expected-error @+1 {{result #0 changes dimension 1 (64 -> 32), which no dimension list names}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all, gather_dimensions = [0] : !ktdp.tile_future<tensor<32x64xf16>, groups = #one> -> tensor<128x32xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @element_type(%x: tensor<32x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<32x64xf16> -> !ktdp.tile_future<tensor<32x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<32x64xf16>
  }
  // expected-error @+1 {{result #0 has type 'tensor<128x64xf32>' but must keep the rank and element type of 'tensor<32x64xf16>'}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all, gather_dimensions = [0] : !ktdp.tile_future<tensor<32x64xf16>, groups = #one> -> tensor<128x64xf32>
  return
}

// -----

// Group 0 is tile {0}, group 1 tiles {1, 2, 3}: no single result type.
#uneven = affine_set<(i)[g] : (i - g >= 0, -i + 3*g >= 0)>
#two = affine_set<(g) : (g >= 0, -g + 1 >= 0)>

func.func @uneven_groups(%x: tensor<8x4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #uneven : tensor<8x4xf16> -> !ktdp.tile_future<tensor<8x4xf16>, groups = #two> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8x4xf16>
  }
  // expected-error @+1 {{groups assemble from different numbers of producers (1 and 3 in group 1)}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #uneven, gather_dimensions = [0] : !ktdp.tile_future<tensor<8x4xf16>, groups = #two> -> tensor<8x4xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @all_to_all_consumers(%x: tensor<16x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<16x64xf16> -> !ktdp.tile_future<tensor<16x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<16x64xf16>
  }
  // expected-error @+1 {{consumers {0} of group 0 must equal its producers {0, 1, 2, 3} in an all-to-all}}
  %a = ktdp.inter_tile_all_to_all(%f) consumer_tiles_per_group = #first, split_dimensions = [1], concat_dimensions = [0] : !ktdp.tile_future<tensor<16x64xf16>, groups = #one> -> tensor<64x16xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @all_to_all_elements(%x: tensor<16x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<16x64xf16> -> !ktdp.tile_future<tensor<16x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<16x64xf16>
  }
  // expected-error @+1 {{result #0 has 2048 elements but exchanging 1024-element partials among 4 producers and 4 consumers of group 0 gives 1024}}
  %a = ktdp.inter_tile_all_to_all(%f) consumer_tiles_per_group = #all, split_dimensions = [1], concat_dimensions = [0] : !ktdp.tile_future<tensor<16x64xf16>, groups = #one> -> tensor<64x32xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @wrong_clause(%x: tensor<32x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<32x64xf16> -> !ktdp.tile_future<tensor<32x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<32x64xf16>
  }
  // expected-error @+1 {{unexpected 'scatter_dimensions'; expected 'gather_dimensions', 'producer_dependency_per_consumer'}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all, scatter_dimensions = [0] : !ktdp.tile_future<tensor<32x64xf16>, groups = #one> -> tensor<128x64xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @missing_dimensions(%x: tensor<32x64xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<32x64xf16> -> !ktdp.tile_future<tensor<32x64xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<32x64xf16>
  }
  // expected-error @+1 {{requires attribute 'gather_dimensions'}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all : !ktdp.tile_future<tensor<32x64xf16>, groups = #one> -> tensor<128x64xf16>
  return
}

// -----

// Consumer c assembles producers {c, c + 1} (the last consumer only {3}).
#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @dependency_sizes(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{consumers of group 0 assemble from different numbers of producers (2 and 1 for consumer 3)}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #all, gather_dimensions = [0], producer_dependency_per_consumer = affine_set<(p)[c] : (p - c >= 0, -p + c + 1 >= 0)> : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<16xf16>
  return
}

// -----

// Consumers 0..2 assemble {0, 1}, {1, 2}, {2, 3}: producer 1 would sit in two assemblies.
#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#three = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 2 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @overlapping_dependencies(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{consumers 0 and 1 of group 0 share producer 1 in different dependency sets; assembled sets must be disjoint}}
  %g = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = #three, gather_dimensions = [0], producer_dependency_per_consumer = affine_set<(p)[c] : (p - c >= 0, -p + c + 1 >= 0)> : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<16xf16>
  return
}
