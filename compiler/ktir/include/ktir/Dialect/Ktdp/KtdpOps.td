//===- KtdpOps.td - ktdp operations ------------------------*- tablegen -*-===//
//
// Part of chipless. Every op of the public ktdp dialect, with the same names,
// attribute names and textual syntax as the public KTIR files, plus the four
// collective delivery ops the public dialect designs but does not implement yet
// (reduce_scatter, gather, all_to_all, scatter).
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPOPS_TD
#define KTIR_DIALECT_KTDP_KTDPOPS_TD

include "ktir/Dialect/Ktdp/KtdpDialect.td"
include "ktir/Dialect/Ktdp/KtdpAttrs.td"
include "ktir/Dialect/Ktdp/KtdpTypes.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Ktdp_MemorySpace : Attr<
    CPred<"::llvm::isa<::mlir::ktdp::MemorySpaceAttrInterface>($_self)">,
    "ktdp memory space (#ktdp.memory_space or #ktdp.spyre_memory_space)"> {
  let storageType = "::mlir::Attribute";
  let returnType = "::mlir::Attribute";
  let convertFromStorage = "$_self";
}

/// The inter-tile fabric: inter_tile_produce writes it and every delivery op reads and
/// writes it, so that passes neither merge, reorder across nor drop an exchange.
def Ktdp_InterTileResource : Resource<"::mlir::ktdp::InterTileResource">;

/// Checks chipless makes beyond the dialect's own verifiers. The verifiers accept and
/// reject what upstream KTIR's do; these catch mistakes upstream lets through (a tile shape
/// that does not match its set, partitions that do not cover the view, tile sets over the
/// grid) and are run by the `--ktdp-strict` pass, which spyre-compile always runs.
def Ktdp_StrictLegalityOpInterface : OpInterface<"StrictLegalityOpInterface"> {
  let description = [{
    An op with legality rules beyond its verifier, checked by the ktdp-strict pass
    after the op (and the whole module) has verified.
  }];
  let cppNamespace = "::mlir::ktdp";
  let methods = [
    InterfaceMethod<"Emits a located error at the op and fails when a strict rule is broken.",
                    "::mlir::LogicalResult", "verifyStrict">
  ];
}

def Ktdp_ViewType : AnyTypeOf<[AnyMemRef, AnyRankedTensor],
                              "memory view (ranked memref or tensor)">;

//===----------------------------------------------------------------------===//
// Tiles and memory views
//===----------------------------------------------------------------------===//

def Ktdp_GetComputeTileIdOp : Ktdp_Op<"get_compute_tile_id", [Pure, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>]> {
  let summary = "This tile's coordinates in the grid";
  let description = [{
    Returns one `index` per grid dimension asked for (one to three), the
    coordinates of the compute tile executing the op in the function's
    `grid`. A function without `grid` runs on one tile, whose id is 0. With a
    `grid` attribute the op returns at most as many values as the grid has
    dimensions.

    Example:
    ```mlir
    %id = ktdp.get_compute_tile_id : index
    %x, %y = ktdp.get_compute_tile_id : index, index
    ```
  }];
  let results = (outs Variadic<Index>:$ids);
  let assemblyFormat = "attr-dict `:` type($ids)";
  let hasVerifier = 1;
}

def Ktdp_ConstructMemoryViewOp : Ktdp_Op<"construct_memory_view",
    [Pure, AttrSizedOperandSegments, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>]> {
  let summary = "View of a tensor that already lies in memory";
  let description = [{
    Interprets memory at element offset `%base` (counted in elements of the
    result's element type) as a strided tensor with the given `sizes` and
    `strides`; each entry is a constant or an `index` value. Nothing is
    allocated or moved.

    `memory_space` says where the memory is (`#ktdp.memory_space<global>`,
    `<ct_local[, ct_id = N]>`, or the older `#ktdp.spyre_memory_space<…>`).
    The optional `coordinate_set` is the part of a (possibly distributed)
    global tensor the view covers; its symbols bind, left to right, to the
    dynamic `sizes`.

    Rules: the number of sizes, of strides, the memref rank and the
    `coordinate_set` dimensions agree; constant sizes equal the static memref
    dimensions; sizes and strides are not negative.

    Example:
    ```mlir
    %A = ktdp.construct_memory_view %a_ptr, sizes: [96, 64], strides: [64, 1] {
        coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
        memory_space = #ktdp.memory_space<global>
    } : memref<96x64xf16>
    ```
  }];
  let arguments = (ins Index:$base,
                       Variadic<Index>:$sizes,
                       Variadic<Index>:$strides,
                       DenseI64ArrayAttr:$static_sizes,
                       DenseI64ArrayAttr:$static_strides,
                       OptionalAttr<Builtin_IntegerSetAttr>:$coordinate_set,
                       Ktdp_MemorySpace:$memory_space);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $base `,` `sizes` `` `:` custom<DynamicIndexList>($sizes, $static_sizes)
    `,` `strides` `` `:` custom<DynamicIndexList>($strides, $static_strides)
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sizes as constants or values, one per dimension.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedSizes();
    /// Strides as constants or values, one per dimension.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedStrides();
  }];
}

def Ktdp_ConstructDistributedMemoryViewOp
    : Ktdp_Op<"construct_distributed_memory_view", [Pure, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>]> {
  let summary = "One global view over per-partition memory views";
  let description = [{
    Joins memory views, each covering the part of a global tensor named by its
    `coordinate_set` (for example slices held in several tiles' scratchpads
    and in global memory), into one view indexed by global coordinates. The
    global domain is the union of the partitions' coordinate sets. Nothing is
    allocated or moved.

    Rules: at least one partition; every partition has the result's rank and
    element type; where the partitions' coordinate sets are constant boxes,
    their union spans exactly the static extents of the result.

    Example:
    ```mlir
    %A = ktdp.construct_distributed_memory_view
        (%A0, %A1 : memref<96x64xf16>, memref<96x64xf16>) : memref<192x64xf16>
    ```
  }];
  let arguments = (ins Variadic<AnyMemRef>:$partitions);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    `(` $partitions `:` type($partitions) `)` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Ktdp_ConstructAccessTileOp : Ktdp_Op<"construct_access_tile",
    [Pure, AttrSizedOperandSegments, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>]> {
  let summary = "A set of coordinates relative to a base point of a view";
  let description = [{
    Names the coordinates `base + x` of `%view` for every point `x` of
    `access_tile_set` (any polyhedral set: rectangular, strided, triangular),
    enumerated in `access_tile_order` (a permutation; its rightmost result is
    the innermost dimension). The base point is given by one affine subscript
    per view dimension over SSA values, e.g. `%view[%row * 3 + %i, %c0]`;
    `base_map` stores those subscripts when they are not plain values. The
    symbols of `access_tile_set` bind to the `symbols(...)` values. No memory
    is accessed.

    Rules: view rank = number of subscripts = `access_tile_set` dimensions =
    order map inputs and results = result tile rank; the order is a
    permutation; where the set is a constant box its extents, permuted by the
    order, equal the static tile shape.

    Example:
    ```mlir
    %t = ktdp.construct_access_tile %A[%row, %c0] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
    ```
  }];
  let arguments = (ins Ktdp_ViewType:$view,
                       Variadic<Index>:$indices,
                       Variadic<Index>:$symbol_operands,
                       OptionalAttr<AffineMapAttr>:$base_map,
                       Builtin_IntegerSetAttr:$access_tile_set,
                       AffineMapAttr:$access_tile_order);
  let results = (outs Ktdp_AccessTileType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `base_map`, or the identity over the indices when it is absent.
    ::mlir::AffineMap getEffectiveBaseMap();
  }];
}

def Ktdp_ConstructIndirectAccessTileOp : Ktdp_Op<"construct_indirect_access_tile",
    [AttrSizedOperandSegments, MemoryEffects<[MemRead]>, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>,
     SingleBlockImplicitTerminator<"::mlir::ktdp::RegionTerminatorOp">]> {
  let summary = "Gather/scatter coordinates: subscripts read from index views";
  let description = [{
    Enumerates the points of `variables_space_set` over the intermediate
    variables, in `variables_space_order`, and for each point forms one
    coordinate into `%view`: per dimension either a direct affine subscript
    `(%h)`, `(%t mod 64)`, or an indirect one `ind(%IDX[%m, %k floordiv 64])`
    that reads the coordinate from another view. Subscripts may also use SSA
    values from outside (`captured_variables`); the symbols of
    `variables_space_set` bind to `symbols(...)`. The op reads the index
    views but not `%view`.

    In the generic form, `per_dim_subscript_kinds` holds `true` for indirect
    dimensions, `per_dim_subscript_maps` one affine map per dimension over
    (captured variables…, intermediate variables…), and the intermediate
    variables are the arguments of the body block, which holds only
    `ktdp.region_terminator`.

    Rules: one subscript per view dimension; one index view per `ind(...)`,
    subscripted with its rank and holding integers; intermediate variables =
    `variables_space_set` dimensions = order inputs and results = result tile
    rank = view rank; the order is a permutation; constant box extents,
    permuted by the order, equal the static tile shape.

    Example:
    ```mlir
    %t = ktdp.construct_indirect_access_tile
        intermediate_variables(%m, %k)
        %X[ind(%IDX1[%m, %k]), ind(%IDX2[%m, %k])] {
          variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
          variables_space_order = affine_map<(d0, d1) -> (d0, d1)>
        } : memref<64x64xf16>, memref<64x64xi32>, memref<64x64xi32> -> !ktdp.access_tile<64x64xindex>
    ```
  }];
  let arguments = (ins Ktdp_ViewType:$view,
                       Variadic<Ktdp_ViewType>:$indirect_views,
                       Variadic<Index>:$captured_variables,
                       Variadic<Index>:$symbol_operands,
                       BoolArrayAttr:$per_dim_subscript_kinds,
                       AffineMapArrayAttr:$per_dim_subscript_maps,
                       Builtin_IntegerSetAttr:$variables_space_set,
                       AffineMapAttr:$variables_space_order);
  let results = (outs Ktdp_AccessTileType:$result);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The intermediate variables (arguments of the body block).
    ::mlir::Block::BlockArgListType getIntermediateVariables() {
      return getBody().front().getArguments();
    }
    /// Whether dimension `dim` of the view is subscripted through an index view.
    bool isIndirectDim(unsigned dim);
    /// The index view read by indirect dimension `dim`.
    ::mlir::Value getIndirectViewForDim(unsigned dim);
  }];
}

def Ktdp_RegionTerminatorOp : Ktdp_Op<"region_terminator",
    [Pure, Terminator, HasParent<"::mlir::ktdp::ConstructIndirectAccessTileOp">]> {
  let summary = "Ends the body of ktdp.construct_indirect_access_tile";
  let description = [{
    The body of `ktdp.construct_indirect_access_tile` only declares the
    intermediate variables as block arguments; this op ends it. The custom
    syntax of the parent creates it; it appears only in the generic form.

    Example:
    ```mlir
    ^bb0(%m: index, %k: index):
      ktdp.region_terminator
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Ktdp_LoadOp : Ktdp_Op<"load", [MemoryEffects<[MemRead]>, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>]> {
  let summary = "Read the elements named by an access tile into a tensor";
  let description = [{
    Reads the view element at every coordinate of the access tile; the result
    has the tile's shape (element for element, in the tile's order) and the
    view's element type.

    Example:
    ```mlir
    %x = ktdp.load %t : <1x64xindex> -> tensor<1x64xf16>
    ```
  }];
  let arguments = (ins Ktdp_AccessTileType:$access_tile);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $access_tile attr-dict `:` type($access_tile) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ktdp_StoreOp : Ktdp_Op<"store", [MemoryEffects<[MemWrite]>, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>]> {
  let summary = "Write a tensor through an access tile";
  let description = [{
    Writes element `i` of `%value` to the view at coordinate `i` of the access
    tile; shapes match one to one and the element types agree with the view.

    Example:
    ```mlir
    ktdp.store %y, %t : tensor<1x64xf16>, <1x64xindex>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, Ktdp_AccessTileType:$access_tile);
  let assemblyFormat = [{
    $value `,` $access_tile attr-dict `:` type($value) `,` type($access_tile)
  }];
  let hasVerifier = 1;
}

def Ktdp_RuntimeArgExtractOp : Ktdp_Op<"runtime_arg_extract", [Pure]> {
  let summary = "Read the value, granularity or upper bound of a runtime argument";
  let description = [{
    `value` returns the argument itself (of the underlying type);
    `granularity` and `upperbound` return the declared bound as an `index`
    and require the type to declare it.

    Example:
    ```mlir
    %n  = ktdp.runtime_arg_extract value from %N : <index, granularity=64, upperbound=4096> -> index
    %ub = ktdp.runtime_arg_extract upperbound from %N : <index, granularity=64, upperbound=4096> -> index
    ```
  }];
  let arguments = (ins Ktdp_RuntimeArgExtractKind:$kind,
                       Ktdp_RuntimeArgType:$input);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind `from` $input `:` type($input) attr-dict `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Inter-tile communication
//===----------------------------------------------------------------------===//

def Ktdp_YieldPartialOp : Ktdp_Op<"yield_partial",
    [Pure, Terminator, ReturnLike,
     HasParent<"::mlir::ktdp::InterTileProduceOp">]> {
  let summary = "A tile's contribution to an exchange";
  let description = [{
    Ends the body of `ktdp.inter_tile_produce`, naming one value per partial
    role; the types are the future's partial types.

    Example:
    ```mlir
    ktdp.yield_partial %partial : tensor<1x128xf16>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Ktdp_YieldReducedOp : Ktdp_Op<"yield_reduced",
    [Pure, Terminator, ReturnLike,
     ParentOneOf<["::mlir::ktdp::InterTileReduceOp",
                  "::mlir::ktdp::InterTileReduceScatterOp"]>]> {
  let summary = "The combination of two partials";
  let description = [{
    Ends the combiner of `ktdp.inter_tile_reduce` and
    `ktdp.inter_tile_reduce_scatter`, yielding one combined value per role, of
    the partial types.

    Example:
    ```mlir
    ktdp.yield_reduced %sum : tensor<1x128xf16>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Ktdp_InterTileProduceOp : Ktdp_Op<"inter_tile_produce",
    [MemoryEffects<[MemWrite<Ktdp_InterTileResource>]>, SingleBlock, DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>]> {
  let summary = "Each producer tile names its contribution to an exchange";
  let description = [{
    `producer_tiles_per_group` is an integer set `(i)[g]`: tile `i` (flattened
    row-major over the grid) produces for group `g`. The result type carries
    the partial types and the group set `(g)`. The body runs once on every
    producing tile with its group index as block argument and ends with
    `ktdp.yield_partial`. The `: T… ->` before the future type is optional.

    Rules: the future has exactly one user, a delivery op; groups are
    disjoint (no tile produces for two groups); the producer set has one
    dimension and one symbol; the body has one `index` argument and yields
    the partial types.

    Example:
    ```mlir
    %f = ktdp.inter_tile_produce
        producer_tiles_per_group = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
        : tensor<1x128xf16> -> !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>>
    {
      ^bb0(%gid: index):
        ktdp.yield_partial %partial : tensor<1x128xf16>
    }
    ```
  }];
  let arguments = (ins Builtin_IntegerSetAttr:$producer_tiles_per_group);
  let results = (outs Ktdp_TileFutureType:$future);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

/// Delivery ops: one future in, one result per partial role out. They share the
/// textual syntax
///   op(%f) consumer_tiles_per_group = S[, <dims> = [..]]…
///       [, producer_dependency_per_consumer = D][, identity(%id : T…)]
///       : !ktdp.tile_future<…> -> R… [combiner region]
/// and one parser, printer and verifier (KtdpInterTileOps.cpp).
class Ktdp_DeliveryOp<string mnemonic, list<Trait> traits = []>
    : Ktdp_Op<mnemonic, !listconcat(traits, [MemoryEffects<[MemRead<Ktdp_InterTileResource>,
                                                            MemWrite<Ktdp_InterTileResource>]>,
                                              DeclareOpInterfaceMethods<Ktdp_StrictLegalityOpInterface>])> {
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Ktdp_InterTileConsumeOp : Ktdp_DeliveryOp<"inter_tile_consume"> {
  let summary = "Copy delivery: broadcast or point-to-point routing";
  let description = [{
    Every tile of `consumer_tiles_per_group(g)` receives, unchanged, the
    partial of its group's producer. With several producers in a group,
    `producer_dependency_per_consumer` (a set `(p)[c]` or `(p)[c, g]`) must
    pair each consumer with exactly one of them (routing).

    Rules: each consumer has exactly one source; the dependency set names
    producers only and covers every producer; results have the partial types.

    Example:
    ```mlir
    %w = ktdp.inter_tile_consume(%f)
        consumer_tiles_per_group = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
        : !ktdp.tile_future<tensor<64x128xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Ktdp_TileFutureType:$future,
                       Builtin_IntegerSetAttr:$consumer_tiles_per_group,
                       OptionalAttr<Builtin_IntegerSetAttr>:$producer_dependency_per_consumer);
}

def Ktdp_InterTileReduceOp : Ktdp_DeliveryOp<"inter_tile_reduce", [SingleBlock]> {
  let summary = "Reduction delivery: all-reduce or reduce-to-one";
  let description = [{
    Folds the partials of every producer of a group with the combiner,
    starting from `identity`, and gives every consumer of the group the full
    result. Consumers = producers is an all-reduce, one consumer a reduce. With
    `producer_dependency_per_consumer`, producers outside a consumer's set count
    as the identity. The combiner takes `2N` arguments (`%lhs_1..N`,
    `%rhs_1..N`, of the partial types), must be free of memory effects, and
    ends with `ktdp.yield_reduced`.

    Rules: consumers ⊆ producers in every group, and either consumers =
    producers or a single consumer; combiner arity `2N` with the partial types;
    one identity per role of its partial type; each result has its partial
    type or the same element type and element count (a reshape).

    Example:
    ```mlir
    %r = ktdp.inter_tile_reduce(%f)
        consumer_tiles_per_group = #all_tiles,
        identity(%zero : tensor<1x128xf16>)
        : !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<1x128xf16>
    {
      ^bb0(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
        %s = arith.addf %lhs, %rhs : tensor<1x128xf16>
        ktdp.yield_reduced %s : tensor<1x128xf16>
    }
    ```
  }];
  let arguments = (ins Ktdp_TileFutureType:$future,
                       Variadic<AnyRankedTensor>:$identity,
                       Builtin_IntegerSetAttr:$consumer_tiles_per_group,
                       OptionalAttr<Builtin_IntegerSetAttr>:$producer_dependency_per_consumer);
  let regions = (region SizedRegion<1>:$combiner);
}

def Ktdp_InterTileReduceScatterOp
    : Ktdp_DeliveryOp<"inter_tile_reduce_scatter", [SingleBlock]> {
  let summary = "Reduction then split: each consumer gets a slice of the sum";
  let description = [{
    Folds the group's partials as `ktdp.inter_tile_reduce` does, then splits
    the result row-major over the flattened `scatter_dimensions` into `C`
    equal slices, `C` being the number of consumers of the group; the
    consumer with local index `l` (its position among the group's consumers in
    ascending tile id) receives slice `l`.

    Rules: as for `inter_tile_reduce` (consumers ⊆ producers, combiner, identity
    of the partial types), plus: `scatter_dimensions` non-empty, ascending,
    valid axes; the flattened extent over them is divisible by `C`; each result
    is its partial with that extent divided by `C` (other axes unchanged).

    Example:
    ```mlir
    %s = ktdp.inter_tile_reduce_scatter(%f)
        consumer_tiles_per_group = #all_tiles,
        scatter_dimensions = [0],
        identity(%zero : tensor<128x64xf16>)
        : !ktdp.tile_future<tensor<128x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<32x64xf16>
    {
      ^bb0(%lhs: tensor<128x64xf16>, %rhs: tensor<128x64xf16>):
        %s = arith.addf %lhs, %rhs : tensor<128x64xf16>
        ktdp.yield_reduced %s : tensor<128x64xf16>
    }
    ```
  }];
  let arguments = (ins Ktdp_TileFutureType:$future,
                       Variadic<AnyRankedTensor>:$identity,
                       Builtin_IntegerSetAttr:$consumer_tiles_per_group,
                       DenseI64ArrayAttr:$scatter_dimensions,
                       OptionalAttr<Builtin_IntegerSetAttr>:$producer_dependency_per_consumer);
  let regions = (region SizedRegion<1>:$combiner);
}

def Ktdp_InterTileGatherOp : Ktdp_DeliveryOp<"inter_tile_gather"> {
  let summary = "Ordered assembly: gather or all-gather";
  let description = [{
    Concatenates the partials of the group's `P` producers (or of each
    consumer's dependency set) along the flattened `gather_dimensions`, in
    ascending producer local index, and gives the assembled tensor to every
    consumer. One consumer is a gather, all tiles an all-gather.

    Rules: `gather_dimensions` non-empty, ascending, valid axes; every group
    has the same number of producers `P` (and every dependency set the same
    size, the sets of two consumers equal or disjoint); each result is its partial
    with the flattened extent over `gather_dimensions` multiplied by `P`.

    Example:
    ```mlir
    %g = ktdp.inter_tile_gather(%f)
        consumer_tiles_per_group = #all_tiles,
        gather_dimensions = [0]
        : !ktdp.tile_future<tensor<32x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Ktdp_TileFutureType:$future,
                       Builtin_IntegerSetAttr:$consumer_tiles_per_group,
                       DenseI64ArrayAttr:$gather_dimensions,
                       OptionalAttr<Builtin_IntegerSetAttr>:$producer_dependency_per_consumer);
}

def Ktdp_InterTileAllToAllOp : Ktdp_DeliveryOp<"inter_tile_all_to_all"> {
  let summary = "Split and reassemble: every tile sends a slice to every tile";
  let description = [{
    Every producer splits its partial into `C` slices over the flattened
    `split_dimensions`; the consumer with local index `l` receives slice `l`
    of every producer and concatenates them over the flattened
    `concat_dimensions` in ascending producer local index.

    Rules: consumers = producers in every group; both dimension lists
    non-empty, ascending, valid axes; the split extent is divisible by `C`;
    each result keeps the rank and element type of its partial, keeps the
    axes in neither list, and holds `elements(T_p) · P / C` elements.

    Example:
    ```mlir
    %a = ktdp.inter_tile_all_to_all(%f)
        consumer_tiles_per_group = #all_tiles,
        split_dimensions = [1],
        concat_dimensions = [0]
        : !ktdp.tile_future<tensor<16x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<64x16xf16>
    ```
  }];
  let arguments = (ins Ktdp_TileFutureType:$future,
                       Builtin_IntegerSetAttr:$consumer_tiles_per_group,
                       DenseI64ArrayAttr:$split_dimensions,
                       DenseI64ArrayAttr:$concat_dimensions,
                       OptionalAttr<Builtin_IntegerSetAttr>:$producer_dependency_per_consumer);
}

def Ktdp_InterTileScatterOp : Ktdp_DeliveryOp<"inter_tile_scatter"> {
  let summary = "Ordered split: one producer's tensor, a slice per consumer";
  let description = [{
    The single producer of each group splits its partial over the flattened
    `scatter_dimensions` into `C` equal slices, one per consumer in ascending
    consumer local index. Consumers need not be producers.

    Rules: exactly one producer per group; no
    `producer_dependency_per_consumer`; `scatter_dimensions` non-empty,
    ascending, valid axes; the flattened extent is divisible by `C`; each
    result is its partial with that extent divided by `C`.

    Example:
    ```mlir
    %s = ktdp.inter_tile_scatter(%f)
        consumer_tiles_per_group = #all_tiles,
        scatter_dimensions = [0]
        : !ktdp.tile_future<tensor<128x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<32x64xf16>
    ```
  }];
  let arguments = (ins Ktdp_TileFutureType:$future,
                       Builtin_IntegerSetAttr:$consumer_tiles_per_group,
                       DenseI64ArrayAttr:$scatter_dimensions);
}

#endif // KTIR_DIALECT_KTDP_KTDPOPS_TD
