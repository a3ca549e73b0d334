//===- KtdpAttrs.td - ktdp attributes and enums ------------*- tablegen -*-===//
//
// Part of chipless. Memory spaces in both spellings found in KTIR files, and the
// enum that selects what `ktdp.runtime_arg_extract` reads.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPATTRS_TD
#define KTIR_DIALECT_KTDP_KTDPATTRS_TD

include "ktir/Dialect/Ktdp/KtdpDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Ktdp_MemorySpaceKind : I32EnumAttr<"MemorySpaceKind",
    "memory space of #ktdp.memory_space", [
      I32EnumAttrCase<"Global", 0, "global">,
      I32EnumAttrCase<"CtLocal", 1, "ct_local">
    ]> {
  let cppNamespace = "::mlir::ktdp";
  let genSpecializedAttr = 0;
}

def Ktdp_SpyreMemorySpaceKind : I32EnumAttr<"SpyreMemorySpaceKind",
    "memory space of #ktdp.spyre_memory_space", [
      I32EnumAttrCase<"unspecified", 0>,
      I32EnumAttrCase<"LX", 1>,
      I32EnumAttrCase<"HBM", 2>,
      I32EnumAttrCase<"L0", 3>
    ]> {
  let cppNamespace = "::mlir::ktdp";
  let genSpecializedAttr = 0;
}

def Ktdp_RuntimeArgExtractKind : I32EnumAttr<"RuntimeArgExtractKind",
    "what ktdp.runtime_arg_extract reads", [
      I32EnumAttrCase<"value", 0>,
      I32EnumAttrCase<"granularity", 1>,
      I32EnumAttrCase<"upperbound", 2>
    ]> {
  let cppNamespace = "::mlir::ktdp";
}

//===----------------------------------------------------------------------===//
// Memory-space interface: one view of both spellings
//===----------------------------------------------------------------------===//

def Ktdp_MemorySpaceAttrInterface : AttrInterface<"MemorySpaceAttrInterface"> {
  let cppNamespace = "::mlir::ktdp";
  let description = [{
    Implemented by `#ktdp.memory_space` and `#ktdp.spyre_memory_space`, so that
    passes ask one question whatever spelling a file uses: is this off-chip
    memory every tile sees (`global`, `HBM`), or a tile's scratchpad
    (`ct_local`, `LX`, `L0`), and which tile owns it if the attribute says so.
  }];
  let methods = [
    InterfaceMethod<"True for off-chip device memory visible to every tile.",
                    "bool", "isGlobal">,
    InterfaceMethod<"The compute tile whose scratchpad this is, if named.",
                    "std::optional<int64_t>", "getOwnerTileId">,
  ];
}

class Ktdp_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Ktdp_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Ktdp_MemorySpaceAttr : Ktdp_Attr<"MemorySpace", "memory_space",
    [DeclareAttrInterfaceMethods<Ktdp_MemorySpaceAttrInterface>]> {
  let summary = "Where a memory view lives: global memory or a tile's scratchpad";
  let description = [{
    `global` is off-chip device memory that every tile reads and writes.
    `ct_local` is a compute tile's local scratchpad; `ct_id = N` names the tile
    that owns it (without it, the executing tile's own scratchpad).

    Syntax:
    ```
    #ktdp.memory_space<global>
    #ktdp.memory_space<ct_local>
    #ktdp.memory_space<ct_local, ct_id = 3>
    ```
  }];
  let parameters = (ins "::mlir::ktdp::MemorySpaceKind":$kind,
                        "std::optional<int64_t>":$ctId);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Ktdp_SpyreMemorySpaceAttr : Ktdp_Attr<"SpyreMemorySpace", "spyre_memory_space",
    [DeclareAttrInterfaceMethods<Ktdp_MemorySpaceAttrInterface>]> {
  let summary = "Older, Spyre-specific memory-space spelling";
  let description = [{
    The spelling of earlier KTIR files: `HBM` is off-chip memory (the same as
    `#ktdp.memory_space<global>`), `LX` a core's scratchpad (`ct_local`), `L0` a
    core-private buffer, `unspecified` not yet decided. `core = N` names the
    owning core and is only valid with `LX` and `L0`.

    Syntax:
    ```
    #ktdp.spyre_memory_space<HBM>
    #ktdp.spyre_memory_space<LX, core = 7>
    ```
  }];
  let parameters = (ins "::mlir::ktdp::SpyreMemorySpaceKind":$kind,
                        "std::optional<int64_t>":$core);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // KTIR_DIALECT_KTDP_KTDPATTRS_TD
