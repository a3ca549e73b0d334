// ktdp.construct_indirect_access_tile: one subscript per view dimension; one index view
// per ind(...), subscripted with its rank and holding integers; intermediate variables =
// variables_space_set dimensions = tile rank = view rank; the order is a permutation.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @subscripts(%x: memref<64x64xf16>, %i: memref<64x64xi32>) {
  // expected-error @+1 {{has 1 subscripts but the view has rank 2}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %x[ind(%i[%m, %k])] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64x64xi32> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @view_types(%x: memref<64x64xf16>, %i: memref<64x64xi32>) {
  // expected-error @+1 {{expected 3 view types (the view, then one per ind(...)), got 2}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %x[ind(%i[%m, %k]), ind(%i[%m, %k])] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64x64xi32> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @index_view_rank(%x: memref<64x64xf16>, %i: memref<64x64xi32>) {
  // expected-error @+1 {{ind(...) subscript #0 has 1 subscripts but its index view has rank 2}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %x[ind(%i[%m]), (%k)] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64x64xi32> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @index_view_type(%x: memref<64x64xf16>, %i: memref<64xf16>) {
  // expected-error @+1 {{index view of subscript #0 must hold integers, got 'f16'}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %x[ind(%i[%m]), (%k)] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64xf16> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @direct_subscript(%x: memref<64x64xf16>, %i: memref<64xi32>) {
  // expected-error @+1 {{direct subscript #1 must be one expression, got 2}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %x[ind(%i[%m]), (%k, %m)] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64xi32> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @variables(%x: memref<64x64xf16>, %i: memref<64xi32>) {
  // expected-error @+1 {{has 1 intermediate variables but variables_space_set has 2 dimensions}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m) %x[ind(%i[%m]), (%m)] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64xi32> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @duplicate_variable(%x: memref<64x64xf16>, %i: memref<64xi32>) {
  // expected-error @+1 {{intermediate variable %m is declared twice}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %m) %x[ind(%i[%m]), (%m)] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64xi32> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>

func.func @order(%x: memref<64x64xf16>, %i: memref<64xi32>) {
  // expected-error @+1 {{variables_space_order affine_map<(d0, d1) -> (d0)> must map the 2 intermediate variables to as many results}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %x[ind(%i[%m]), (%k)] {variables_space_set = #sq, variables_space_order = affine_map<(d0, d1) -> (d0)>} : memref<64x64xf16>, memref<64xi32> -> !ktdp.access_tile<64x64xindex>
  return
}

// -----

#cube = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 3 >= 0)>

func.func @tile_rank(%x: memref<64x64xf16>, %i: memref<64xi32>) {
  // expected-error @+1 {{result access tile has rank 3 but the view has rank 2}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%a, %b, %c) %x[ind(%i[%a]), (%b + %c)] {variables_space_set = #cube, variables_space_order = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : memref<64x64xf16>, memref<64xi32> -> !ktdp.access_tile<4x4x4xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @shape(%x: memref<64x64xf16>, %i: memref<64xi32>) {
  // expected-error @+1 {{result access tile dimension 0 is 32 but variables_space_set, in variables_space_order, spans 64}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %x[ind(%i[%m]), (%k)] {variables_space_set = #sq, variables_space_order = #id} : memref<64x64xf16>, memref<64xi32> -> !ktdp.access_tile<32x64xindex>
  return
}

// -----

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @body_holds_ops(%x: memref<64x64xf16>, %i: memref<64xi32>) {
  // expected-error @+1 {{body may only declare the intermediate variables and end with ktdp.region_terminator}}
  %t = "ktdp.construct_indirect_access_tile"(%x, %i) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, per_dim_subscript_kinds = [true, false], per_dim_subscript_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], variables_space_order = #id, variables_space_set = #sq}> ({
  ^bb0(%m: index, %k: index):
    %c = arith.constant 0 : index
    "ktdp.region_terminator"() : () -> ()
  }) : (memref<64x64xf16>, memref<64xi32>) -> !ktdp.access_tile<64x64xindex>
  return
}
