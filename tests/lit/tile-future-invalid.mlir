// !ktdp.tile_future carries ranked-tensor partials and a one-dimensional group set;
// ktdp.inter_tile_produce takes the group index and yields exactly the partial types.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

// expected-error @+1 {{tile_future groups must be a set over one dimension (g) without symbols, got 2 dimension(s) and 0 symbol(s)}}
func.func private @groups_rank(!ktdp.tile_future<tensor<4xf16>, groups = affine_set<(g, h) : (g == 0, h == 0)>>)

// -----

// expected-error @+1 {{tile_future partial types must be ranked tensors, got 'f16'}}
func.func private @scalar_partial(!ktdp.tile_future<f16, groups = affine_set<(g) : (g == 0)>>)

// -----

#first = affine_set<(i)[g] : (i == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @yield_types(%x: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{yield_partial yields 1 value(s) of types {tensor<8xf16>} but the tile future carries {tensor<4xf16>}}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #first : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16>
  return
}

// -----

#first = affine_set<(i)[g] : (i == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @group_argument(%x: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{body must take exactly one 'index' argument (the group index)}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
    ktdp.yield_partial %x : tensor<8xf16>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #first : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return
}

// -----

#first = affine_set<(i)[g] : (i == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @declared_types(%x: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{partial types do not match the tile_future type '!ktdp.tile_future<(tensor<8xf16>), groups = affine_set<(d0) : (d0 == 0)>>'}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<4xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  return
}

// -----

#first = affine_set<(i)[g] : (i == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @result_count(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{has 2 results but the tile future carries 1 partial role(s)}}
  %a, %b = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #first : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>, tensor<8xf16>
  return
}

// -----

#first = affine_set<(i)[g] : (i == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @result_type(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{result #0 has type 'tensor<4xf16>' but the partial type is 'tensor<8xf16>' (a result has the partial's type, or is a reshape of it)}}
  %a = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #first : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<4xf16>
  return
}
