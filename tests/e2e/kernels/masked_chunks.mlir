// Tiles too large for one transfer that reach past the end of a view sized at launch: x
// [n, 1024] f16 with n <= 512 (`--bound n_rows=512`), each of two tiles takes 256 rows
// (512 KB), loaded in chunks of rows. Rows past n hold the tile's padding value (-inf for
// the column maximum that reads them) and are not written by the copy.
//   M[t, c] = max over tile t's rows r < n of x[r, c];   Y = x (row for row, r < n).
// Grid [2].
#rows  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#row   = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#id2   = affine_map<(d0, d1) -> (d0, d1)>

func.func @masked_chunks(%x_ptr: index, %y_ptr: index, %m_ptr: index, %n_rows: i32)
    attributes {grid = [2]} {
  %t = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %n = arith.index_cast %n_rows : i32 to index
  %r = arith.muli %t, %c256 : index
  %X = ktdp.construct_memory_view %x_ptr, sizes: [%n, 1024], strides: [1024, 1] {memory_space = #ktdp.memory_space<global>} : memref<?x1024xf16>
  %Y = ktdp.construct_memory_view %y_ptr, sizes: [%n, 1024], strides: [1024, 1] {memory_space = #ktdp.memory_space<global>} : memref<?x1024xf16>
  %M = ktdp.construct_memory_view %m_ptr, sizes: [2, 1024], strides: [1024, 1] {memory_space = #ktdp.memory_space<global>} : memref<2x1024xf16>
  %xt = ktdp.construct_access_tile %X[%r, %c0] {access_tile_set = #rows, access_tile_order = #id2} : memref<?x1024xf16> -> !ktdp.access_tile<256x1024xindex>
  %yt = ktdp.construct_access_tile %Y[%r, %c0] {access_tile_set = #rows, access_tile_order = #id2} : memref<?x1024xf16> -> !ktdp.access_tile<256x1024xindex>
  %mt = ktdp.construct_access_tile %M[%t, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<2x1024xf16> -> !ktdp.access_tile<1x1024xindex>
  %x = ktdp.load %xt : !ktdp.access_tile<256x1024xindex> -> tensor<256x1024xf16>
  %ninf = arith.constant 0xFC00 : f16
  %init = tensor.splat %ninf : tensor<1024xf16>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<256x1024xf16>) outs(%init : tensor<1024xf16>) dimensions = [0]
  %max2 = tensor.expand_shape %max [[0, 1]] output_shape [1, 1024] : tensor<1024xf16> into tensor<1x1024xf16>
  ktdp.store %max2, %mt : tensor<1x1024xf16>, !ktdp.access_tile<1x1024xindex>
  %copy = ktdp.load %xt : !ktdp.access_tile<256x1024xindex> -> tensor<256x1024xf16>
  ktdp.store %copy, %yt : tensor<256x1024xf16>, !ktdp.access_tile<256x1024xindex>
  return
}
