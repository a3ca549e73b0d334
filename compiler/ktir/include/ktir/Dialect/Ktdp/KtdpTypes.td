//===- KtdpTypes.td - ktdp types ---------------------------*- tablegen -*-===//
//
// Part of chipless. Access tiles, bounded runtime arguments and tile futures.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPTYPES_TD
#define KTIR_DIALECT_KTDP_KTDPTYPES_TD

include "ktir/Dialect/Ktdp/KtdpDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Ktdp_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Ktdp_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Ktdp_AccessTileType : Ktdp_Type<"AccessTile", "access_tile",
    [ShapedTypeInterface]> {
  let summary = "A set of coordinates into a memory view (elements are `index`)";
  let description = [{
    The value of `ktdp.construct_access_tile` and
    `ktdp.construct_indirect_access_tile`: one coordinate per element, laid out in
    the tile's access order. Dimensions are static sizes or `?`; rank 0 is a
    single coordinate. The element type is always `index`.

    Syntax:
    ```
    !ktdp.access_tile<1x64xindex>
    !ktdp.access_tile<?x32xindex>
    !ktdp.access_tile<index>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Always `index`.
    ::mlir::Type getElementType() const;
    /// Access tiles are always ranked.
    bool hasRank() const { return true; }
    /// A tile of the given shape (the element type stays `index`).
    ::mlir::ShapedType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const;
  }];
}

def Ktdp_RuntimeArgType : Ktdp_Type<"RuntimeArg", "runtime_arg"> {
  let summary = "A scalar known only at launch, with optional granularity and bound";
  let description = [{
    A kernel argument whose value is bound at launch (a dynamic length, a
    sequence position). `granularity = G` promises the value is a multiple of
    G; `upperbound = U` promises it is at most U, so buffers can be sized at
    compile time. `ktdp.runtime_arg_extract` reads the value or either bound.

    Syntax:
    ```
    !ktdp.runtime_arg<index>
    !ktdp.runtime_arg<index, granularity = 64, upperbound = 4096>
    !ktdp.runtime_arg<i32, upperbound = 1024>
    ```
  }];
  let parameters = (ins "::mlir::Type":$underlyingType,
                        "std::optional<int64_t>":$granularity,
                        "std::optional<int64_t>":$upperbound);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Ktdp_TileFutureType : Ktdp_Type<"TileFuture", "tile_future"> {
  let summary = "Handle to the partial values tiles contribute to an exchange";
  let description = [{
    Returned by `ktdp.inter_tile_produce` and consumed by exactly one delivery
    op. It carries the partial types `T_p_1 … T_p_N` (ranked tensors, N ≥ 1) and
    the set of group indices `groups`, a one-dimensional integer set `(g)`.

    Syntax (all accepted; one partial prints without parentheses):
    ```
    !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>>
    !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #groups>
    !ktdp.tile_future<tensor<64xf16>, #groups>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::Type">:$partialTypes,
                        "::mlir::IntegerSetAttr":$groups);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of partial-tensor roles N.
    unsigned getNumPartials() const { return getPartialTypes().size(); }
    /// The group-index set `(g) : …`.
    ::mlir::IntegerSet getGroupSet() const { return getGroups().getValue(); }
  }];
}

#endif // KTIR_DIALECT_KTDP_KTDPTYPES_TD
