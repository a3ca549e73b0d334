// ktdp.get_compute_tile_id returns one to three index values, at most one per grid dimension.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

func.func @too_many() {
  // expected-error @+1 {{returns one to three tile coordinates, got 4}}
  %a:4 = ktdp.get_compute_tile_id : index, index, index, index
  return
}

// -----

func.func @beyond_grid() attributes {grid = [4]} {
  // expected-error @+1 {{asks for 2 tile coordinates but the grid [4] has 1 dimension(s)}}
  %a:2 = ktdp.get_compute_tile_id : index, index
  return
}

// -----

func.func @not_index() {
  // expected-error @+1 {{result #0 must be variadic of index, but got 'i32'}}
  %a = ktdp.get_compute_tile_id : i32
  return
}
