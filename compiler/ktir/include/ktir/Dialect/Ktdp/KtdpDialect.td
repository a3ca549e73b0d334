//===- KtdpDialect.td - the ktdp dialect -------------------*- tablegen -*-===//
//
// Part of chipless. The `ktdp` (Kernel Tile Data Parallel) dialect of KTIR: memory
// views, access tiles, loads and stores, bounded runtime arguments and inter-tile
// communication. Op, type and attribute names and their textual syntax follow the
// public KTIR files, so kernels written for IBM's public tools parse unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPDIALECT_TD
#define KTIR_DIALECT_KTDP_KTDPDIALECT_TD

include "mlir/IR/OpBase.td"

def Ktdp_Dialect : Dialect {
  let name = "ktdp";
  let cppNamespace = "::mlir::ktdp";
  let summary = "Kernel Tile Data Parallel: tiles, memory views and inter-tile exchange";
  let description = [{
    `ktdp` describes a kernel that runs SPMD on every compute tile (core) of a
    grid given by the function attribute `grid = [N]`, `[X, Y]` or `[X, Y, Z]`
    (no grid means one tile). A tile reads and writes memory in three steps:

    1. `ktdp.construct_memory_view` (or `construct_distributed_memory_view`)
       says how a tensor lies in memory; it allocates nothing.
    2. `ktdp.construct_access_tile` / `construct_indirect_access_tile` name the
       coordinates to touch, relative to a base point; no memory is accessed.
    3. `ktdp.load` / `ktdp.store` move the data between memory and tensors.

    Tiles exchange values through `ktdp.inter_tile_produce`, which returns a
    `!ktdp.tile_future`, and exactly one delivery op (`inter_tile_consume`,
    `inter_tile_reduce`, `inter_tile_reduce_scatter`, `inter_tile_gather`,
    `inter_tile_all_to_all`, `inter_tile_scatter`) that consumes it.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Ktdp_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ktdp_Dialect, mnemonic, traits>;

#endif // KTIR_DIALECT_KTDP_KTDPDIALECT_TD
