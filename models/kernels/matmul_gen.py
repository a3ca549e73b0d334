#!/usr/bin/env python3
"""Writes the KTIR matmul kernels models/kernels/matmul_<M>.mlir (and other shapes).

C[M, N] = A[M, K] x B[K, N]: fp16 operands (row-major), fp32 accumulation and result.
The work division is the kernel's own, as a front end would decide it: a GI x GJ grid of
compute tiles, tile (i, j) owning the (M/GI) x (N/GJ) block of C; each tile streams K in
slices of TK (a slice of A and of B per step) and accumulates through scf.for iter_args.

    python3 models/kernels/matmul_gen.py 2048 2048 2048 > models/kernels/matmul_2048.mlir
"""
import argparse


def kernel(m, n, k, gi, gj, tk, name):
    bm, bn = m // gi, n // gj
    assert m % gi == 0 and n % gj == 0 and k % tk == 0, "shapes must divide evenly"
    return f"""// C = A x B, A {m} x {k}, B {k} x {n}: fp16 operands (row-major), fp32 accumulation
// and result. Written by models/kernels/matmul_gen.py ({m} {n} {k} --grid {gi} {gj} --tk {tk}).
// Work division (decided here, as a front end would): the {gi * gj} compute tiles form a
// {gi} x {gj} grid; tile (i, j) owns the {bm} x {bn} block of C at rows {bm}i, columns {bn}j. It
// streams K in slices of {tk}: each step loads a {tk} x {bn} slice of B and a {bm} x {tk} slice
// of A (B first: every product needs all of it, but only some rows of A) and accumulates
// their product (linalg.matmul on tiles, carried by iter_args).

#a_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + {m - 1} >= 0, d1 >= 0, -d1 + {k - 1} >= 0)>
#b_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + {k - 1} >= 0, d1 >= 0, -d1 + {n - 1} >= 0)>
#c_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + {m - 1} >= 0, d1 >= 0, -d1 + {n - 1} >= 0)>
#a_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + {bm - 1} >= 0, d1 >= 0, -d1 + {tk - 1} >= 0)>
#b_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + {tk - 1} >= 0, d1 >= 0, -d1 + {bn - 1} >= 0)>
#c_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + {bm - 1} >= 0, d1 >= 0, -d1 + {bn - 1} >= 0)>
#order  = affine_map<(d0, d1) -> (d0, d1)>

module {{
  func.func @{name}(%a_ptr: index, %b_ptr: index, %c_ptr: index)
      attributes {{grid = [{gi}, {gj}]}} {{
    %c0 = arith.constant 0 : index
    %c_bm = arith.constant {bm} : index
    %c_bn = arith.constant {bn} : index
    %c_tk = arith.constant {tk} : index
    %c_k = arith.constant {k} : index
    %zero = arith.constant 0.0 : f32

    %ti, %tj = ktdp.get_compute_tile_id : index, index
    %m0 = arith.muli %ti, %c_bm : index
    %n0 = arith.muli %tj, %c_bn : index

    %A = ktdp.construct_memory_view %a_ptr, sizes: [{m}, {k}], strides: [{k}, 1] {{
      coordinate_set = #a_set, memory_space = #ktdp.memory_space<global>
    }} : memref<{m}x{k}xf16>
    %B = ktdp.construct_memory_view %b_ptr, sizes: [{k}, {n}], strides: [{n}, 1] {{
      coordinate_set = #b_set, memory_space = #ktdp.memory_space<global>
    }} : memref<{k}x{n}xf16>
    %C = ktdp.construct_memory_view %c_ptr, sizes: [{m}, {n}], strides: [{n}, 1] {{
      coordinate_set = #c_set, memory_space = #ktdp.memory_space<global>
    }} : memref<{m}x{n}xf32>

    %empty = tensor.empty() : tensor<{bm}x{bn}xf32>
    %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<{bm}x{bn}xf32>) -> tensor<{bm}x{bn}xf32>
    %acc = scf.for %k = %c0 to %c_k step %c_tk iter_args(%part = %init) -> (tensor<{bm}x{bn}xf32>) {{
      %a_at = ktdp.construct_access_tile %A[%m0, %k] {{
        access_tile_set = #a_tile, access_tile_order = #order
      }} : memref<{m}x{k}xf16> -> !ktdp.access_tile<{bm}x{tk}xindex>
      %b_at = ktdp.construct_access_tile %B[%k, %n0] {{
        access_tile_set = #b_tile, access_tile_order = #order
      }} : memref<{k}x{n}xf16> -> !ktdp.access_tile<{tk}x{bn}xindex>
      %b = ktdp.load %b_at : !ktdp.access_tile<{tk}x{bn}xindex> -> tensor<{tk}x{bn}xf16>
      %a = ktdp.load %a_at : !ktdp.access_tile<{bm}x{tk}xindex> -> tensor<{bm}x{tk}xf16>
      %p = linalg.matmul ins(%a, %b : tensor<{bm}x{tk}xf16>, tensor<{tk}x{bn}xf16>)
                         outs(%part : tensor<{bm}x{bn}xf32>) -> tensor<{bm}x{bn}xf32>
      scf.yield %p : tensor<{bm}x{bn}xf32>
    }}
    %c_at = ktdp.construct_access_tile %C[%m0, %n0] {{
      access_tile_set = #c_tile, access_tile_order = #order
    }} : memref<{m}x{n}xf32> -> !ktdp.access_tile<{bm}x{bn}xindex>
    ktdp.store %acc, %c_at : tensor<{bm}x{bn}xf32>, !ktdp.access_tile<{bm}x{bn}xindex>
    return
  }}
}}
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("m", type=int)
    p.add_argument("n", type=int)
    p.add_argument("k", type=int)
    p.add_argument("--grid", type=int, nargs=2, default=[4, 8], metavar=("GI", "GJ"))
    p.add_argument("--tk", type=int, default=256, help="K slice per step")
    p.add_argument("--name", default=None)
    a = p.parse_args()
    name = a.name or f"matmul_{a.m}x{a.n}x{a.k}"
    print(kernel(a.m, a.n, a.k, a.grid[0], a.grid[1], a.tk, name), end="")


if __name__ == "__main__":
    main()
