// Routing across the ring with inter_tile_consume + producer_dependency_per_consumer:
// every consumer receives exactly one producer's partial, named by the dependency set.
// Three exchanges of different patterns run back to back in a loop over 4 slabs of X:
//   shift:   tile t receives tile (t + 1) mod 32's partial (2 X, rows of that tile);
//   reverse: tile t receives tile (31 - t)'s shifted value plus 1, stores it into Y;
//   fan-out: tile t receives tile 4 floor(t / 4)'s reversed value (4 producers, 8
//            consumers each), stores it into Z.
// Tile u's rows are rows [2u, 2u + 2) of the slab. X, Y, Z: [4, 64, 64] f16. Grid [32].
// Each route is one point-to-point send over the ring; a tile whose source is itself keeps
// its own partial. The exchanges follow each other without a barrier: each has its own
// READY token, so a tile running ahead into the next exchange cannot be mistaken for a
// receiver of the current one.
//
//   spyre-compile models/kernels/ring_route.mlir -o out/ring_route
//   spyre-sim run out/ring_route/job.plan --input X=x.npy --output Y=y.npy --output Z=z.npy

#x_set     = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#rows_set  = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 1 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#identity3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#all_tiles = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#leaders   = affine_set<(i)[g] : (i mod 4 == 0, i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#next      = affine_set<(p)[c] : (p - (c + 1) mod 32 == 0)>
#mirror    = affine_set<(p)[c] : (p + c - 31 == 0)>
#leader_of = affine_set<(p)[c] : (p - (c floordiv 4) * 4 == 0)>
#one       = affine_set<(g) : (g == 0)>

module {
  func.func @ring_route(%X_ptr: index, %Y_ptr: index, %Z_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c2 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [4, 64, 64], strides: [4096, 64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<4x64x64xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [4, 64, 64], strides: [4096, 64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<4x64x64xf16>
    %Z = ktdp.construct_memory_view %Z_ptr, sizes: [4, 64, 64], strides: [4096, 64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<4x64x64xf16>

    scf.for %s = %c0 to %c4 step %c1 {
      %x_acc = ktdp.construct_access_tile %X[%s, %row0, %c0] {
        access_tile_set = #rows_set, access_tile_order = #identity3
      } : memref<4x64x64xf16> -> !ktdp.access_tile<1x2x64xindex>
      %x = ktdp.load %x_acc : !ktdp.access_tile<1x2x64xindex> -> tensor<1x2x64xf16>
      %two = arith.constant 2.0 : f16
      %two_t = tensor.splat %two : tensor<1x2x64xf16>
      %p1 = arith.mulf %x, %two_t : tensor<1x2x64xf16>

      %f1 = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
          : tensor<1x2x64xf16> -> !ktdp.tile_future<tensor<1x2x64xf16>, groups = #one> {
        ^bb0(%gid: index):
          ktdp.yield_partial %p1 : tensor<1x2x64xf16>
      }
      %r1 = ktdp.inter_tile_consume(%f1) consumer_tiles_per_group = #all_tiles,
          producer_dependency_per_consumer = #next
          : !ktdp.tile_future<tensor<1x2x64xf16>, groups = #one> -> tensor<1x2x64xf16>

      %one = arith.constant 1.0 : f16
      %one_t = tensor.splat %one : tensor<1x2x64xf16>
      %p2 = arith.addf %r1, %one_t : tensor<1x2x64xf16>
      %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
          : tensor<1x2x64xf16> -> !ktdp.tile_future<tensor<1x2x64xf16>, groups = #one> {
        ^bb0(%gid: index):
          ktdp.yield_partial %p2 : tensor<1x2x64xf16>
      }
      %r2 = ktdp.inter_tile_consume(%f2) consumer_tiles_per_group = #all_tiles,
          producer_dependency_per_consumer = #mirror
          : !ktdp.tile_future<tensor<1x2x64xf16>, groups = #one> -> tensor<1x2x64xf16>
      %y_acc = ktdp.construct_access_tile %Y[%s, %row0, %c0] {
        access_tile_set = #rows_set, access_tile_order = #identity3
      } : memref<4x64x64xf16> -> !ktdp.access_tile<1x2x64xindex>
      ktdp.store %r2, %y_acc : tensor<1x2x64xf16>, !ktdp.access_tile<1x2x64xindex>

      %f3 = ktdp.inter_tile_produce producer_tiles_per_group = #leaders
          : tensor<1x2x64xf16> -> !ktdp.tile_future<tensor<1x2x64xf16>, groups = #one> {
        ^bb0(%gid: index):
          ktdp.yield_partial %r2 : tensor<1x2x64xf16>
      }
      %r3 = ktdp.inter_tile_consume(%f3) consumer_tiles_per_group = #all_tiles,
          producer_dependency_per_consumer = #leader_of
          : !ktdp.tile_future<tensor<1x2x64xf16>, groups = #one> -> tensor<1x2x64xf16>
      %z_acc = ktdp.construct_access_tile %Z[%s, %row0, %c0] {
        access_tile_set = #rows_set, access_tile_order = #identity3
      } : memref<4x64x64xf16> -> !ktdp.access_tile<1x2x64xindex>
      ktdp.store %r3, %z_acc : tensor<1x2x64xf16>, !ktdp.access_tile<1x2x64xindex>
    }
    return
  }
}
