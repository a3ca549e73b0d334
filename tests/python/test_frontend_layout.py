"""Where the Spyre front end's tensors lie (docs/frontend.md, "Layout"): the stick layout of
every device tensor, views that cost nothing, the re-layout (restickify) kernels inserted
where a kernel cannot read a tensor as it lies, padded stick columns, and results that are
arguments, views or the same tensor twice."""
import json

import numpy as np
import pytest

from frontend_util import BIN, MAP2, close, compile_graph, f16, run, simulate
from test_frontend_blocks import ROOT


MATMUL_1024 = """
func.func @mm(%x: tensor<64x1024xf16> {graph.name = "x"}, %w: tensor<1024x512xf16> {graph.name = "w"})
    -> (tensor<64x512xf16> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x512xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<64x512xf16>) -> tensor<64x512xf16>
  %y = linalg.matmul ins(%x, %w : tensor<64x1024xf16>, tensor<1024x512xf16>) outs(%z : tensor<64x512xf16>) -> tensor<64x512xf16>
  return %y : tensor<64x512xf16>
}
"""


def kernels(dump):
    return sorted(p.name for p in dump.glob("k*.mlir"))


def test_heads_of_one_stick_permute_without_a_kernel(tmp_path):
    """GPT-2's heads (d = 64, one stick): [S, H D] viewed as [H, S, D] is a view; only K^T,
    whose stick dimension changes, is restickified."""
    out, dump = compile_graph(tmp_path, ROOT / "models" / "graphs" / "gpt2_block.mlir", "gpt2")
    names = kernels(dump)
    assert [n for n in names if "relayout" in n or "restickify" in n] == ["k5_restickify.mlir"], names
    assert len(names) == 11, names
    # The plan declares every tensor in the stick layout.
    plan = json.loads((out / "job.plan").read_text())
    assert {a["layout"] for a in plan["arguments"]} == {"stick"}


def test_heads_of_two_sticks_are_relaid_out(tmp_path):
    """LLaMA's heads (d = 128, two sticks 128 rows apart): the permuted view's rows do not
    fold, so a re-layout packs them before the attention's matmuls."""
    _, dump = compile_graph(tmp_path, ROOT / "models" / "graphs" / "llama_block.mlir", "llama")
    names = kernels(dump)
    assert sum("relayout" in n for n in names) == 3, names
    assert sum("restickify" in n for n in names) == 1, names


def test_weights_are_padded_to_spread_over_the_channels(tmp_path):
    """A 1024 x 512 weight: each stick column is 32 blocks of 4 KB (every column would start
    in the same one of the 8 DRAM channels), so the front end pads it to 1056 rows (33
    blocks: one channel further per column); x and y (64 rows, 2 blocks) are not padded.
    The host still passes a 1024 x 512 array and gets the product."""
    out, dump = compile_graph(tmp_path, MATMUL_1024, "mm")
    args = {a["name"]: a for a in json.loads((out / "job.plan").read_text())["arguments"]}
    assert [args[n].get("padded_rows") for n in ("w", "x", "y")] == [1056, None, None], args
    assert "strides: [64, 67584, 1]" in (dump / "k1_matmul.mlir").read_text()
    rng = np.random.default_rng(21)
    x, w = f16(rng, 64, 1024, scale=0.25), f16(rng, 1024, 512, scale=0.25)
    y = simulate(tmp_path, out, {"x": x, "w": w}, ["y"])["y"]
    close(y, x.astype(np.float32) @ w.astype(np.float32), rtol=2e-2, atol=2e-2)


def test_results_that_are_arguments_views_or_returned_twice(tmp_path):
    """Every result is a tensor of its own in the stick layout: an argument returned, a
    tensor returned twice and a transposed view are copied into their results."""
    graph = MAP2 + """
func.func @r(%x: tensor<40x96xf16> {graph.name = "x"})
    -> (tensor<40x96xf16> {graph.name = "same"}, tensor<40x96xf16> {graph.name = "y1"},
        tensor<40x96xf16> {graph.name = "y2"}, tensor<96x40xf16> {graph.name = "yt"}) {
  %e = tensor.empty() : tensor<40x96xf16>
  %y = linalg.add ins(%x, %x : tensor<40x96xf16>, tensor<40x96xf16>) outs(%e : tensor<40x96xf16>) -> tensor<40x96xf16>
  %et = tensor.empty() : tensor<96x40xf16>
  %t = linalg.transpose ins(%y : tensor<40x96xf16>) outs(%et : tensor<96x40xf16>) permutation = [1, 0]
  return %x, %y, %y, %t : tensor<40x96xf16>, tensor<40x96xf16>, tensor<40x96xf16>, tensor<96x40xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "r")
    assert kernels(dump) == ["k1_rows.mlir", "k2_relayout.mlir", "k3_relayout.mlir",
                             "k4_restickify.mlir"], kernels(dump)
    x = f16(np.random.default_rng(5), 40, 96)
    got = simulate(tmp_path, out, {"x": x}, ["same", "y1", "y2", "yt"])
    xf = x.astype(np.float32)
    close(got["same"], xf, rtol=0, atol=0)
    for n in ("y1", "y2"):
        close(got[n], 2 * xf, rtol=1e-3, atol=1e-3)
    close(got["yt"], 2 * xf.T, rtol=1e-3, atol=1e-3)


def test_reshapes_across_padded_sticks(tmp_path):
    """[10, 200] -> [2000] merges rows whose last sticks are padded: the tensor is packed
    row-major first; [2000] -> [40, 50] then is a view of the packed copy, read by a
    softmax along rows of 50; and a row-wise mean [4, 100] (one value per row) comes back
    in the stick layout."""
    graph = """
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @p(%x: tensor<10x200xf16> {graph.name = "x"}, %z: tensor<4x100x96xf16> {graph.name = "z"})
    -> (tensor<40x50xf16> {graph.name = "s"}, tensor<4x100xf16> {graph.name = "m"}) {
  %f = tensor.collapse_shape %x [[0, 1]] : tensor<10x200xf16> into tensor<2000xf16>
  %v = tensor.expand_shape %f [[0, 1]] output_shape [40, 50] : tensor<2000xf16> into tensor<40x50xf16>
  %es = tensor.empty() : tensor<40x50xf16>
  %s = linalg.softmax dimension(1) ins(%v : tensor<40x50xf16>) outs(%es : tensor<40x50xf16>) -> tensor<40x50xf16>
  %zero = arith.constant 0.0 : f16
  %em = tensor.empty() : tensor<4x100xf16>
  %zm = linalg.fill ins(%zero : f16) outs(%em : tensor<4x100xf16>) -> tensor<4x100xf16>
  %sum = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%z : tensor<4x100x96xf16>) outs(%zm : tensor<4x100xf16>) {
    ^bb0(%a: f16, %acc: f16):
      %r = arith.addf %a, %acc : f16
      linalg.yield %r : f16
  } -> tensor<4x100xf16>
  return %s, %sum : tensor<40x50xf16>, tensor<4x100xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "p")
    names = kernels(dump)
    assert sum("relayout" in n for n in names) == 2, names  # the packing and the result
    rng = np.random.default_rng(8)
    x, z = f16(rng, 10, 200, scale=2), f16(rng, 4, 100, 96)
    got = simulate(tmp_path, out, {"x": x, "z": z}, ["s", "m"])
    v = x.astype(np.float32).reshape(40, 50)
    e = np.exp(v - v.max(1, keepdims=True))
    close(got["s"], e / e.sum(1, keepdims=True), rtol=2e-2, atol=1e-3)
    close(got["m"], z.astype(np.float32).sum(2), rtol=2e-2, atol=2e-2)


def test_rank_four_permutation_and_middle_slice(tmp_path):
    """A permutation of rank 4 that keeps the last dimension is a view; a slice of a
    middle dimension of it is read where it lies."""
    graph = """
func.func @p4(%x: tensor<2x3x8x64xf16> {graph.name = "x"}) -> (tensor<3x2x4x64xf16> {graph.name = "y"}) {
  %et = tensor.empty() : tensor<3x2x8x64xf16>
  %t = linalg.transpose ins(%x : tensor<2x3x8x64xf16>) outs(%et : tensor<3x2x8x64xf16>) permutation = [1, 0, 2, 3]
  %s = tensor.extract_slice %t[0, 0, 2, 0] [3, 2, 4, 64] [1, 1, 1, 1] : tensor<3x2x8x64xf16> to tensor<3x2x4x64xf16>
  %e = tensor.empty() : tensor<3x2x4x64xf16>
  %y = linalg.add ins(%s, %s : tensor<3x2x4x64xf16>, tensor<3x2x4x64xf16>) outs(%e : tensor<3x2x4x64xf16>) -> tensor<3x2x4x64xf16>
  return %y : tensor<3x2x4x64xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "p4")
    assert kernels(dump) == ["k1_relayout.mlir", "k2_rows.mlir"], kernels(dump)
    x = f16(np.random.default_rng(9), 2, 3, 8, 64)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    close(y, 2 * x.astype(np.float32).transpose(1, 0, 2, 3)[:, :, 2:6, :], rtol=1e-3, atol=1e-3)


def test_rank_four_restickify_in_runs_of_channels(tmp_path):
    """NHWC -> NCHW of 64 channels (a convolution's output as PyTorch holds it): the stick
    dimension changes, and 64 x 14 rows of 14 would need 64 tiles one channel each; runs of
    channels per tile fit the 32 cores."""
    graph = """
func.func @nchw(%x: tensor<1x14x14x64xf16> {graph.name = "x"}) -> (tensor<1x64x14x14xf16> {graph.name = "y"}) {
  %e = tensor.empty() : tensor<1x64x14x14xf16>
  %y = linalg.transpose ins(%x : tensor<1x14x14x64xf16>) outs(%e : tensor<1x64x14x14xf16>) permutation = [0, 3, 1, 2]
  return %y : tensor<1x64x14x14xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "nchw")
    assert kernels(dump) == ["k1_restickify.mlir"], kernels(dump)
    x = f16(np.random.default_rng(4), 1, 14, 14, 64)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    assert np.array_equal(y, x.astype(np.float32).transpose(0, 3, 1, 2))


@pytest.mark.parametrize("shape,perm,chosen", [
    # [KH, KW, C, F] -> [F, C, KH, KW] (a filters' gradient as PyTorch holds it): 4096
    # matrices of 3 rows, 64 tiles in runs of C; runs of 2 F x 64 C fill the 32 cores
    ((3, 3, 64, 64), (3, 2, 0, 1), "32 x 1 x 1 tiles of 128 x 3 x 3"),
    # ResNet's stem: 64 x 3 matrices of 7 rows of 7
    ((7, 7, 3, 64), (3, 2, 0, 1), "32 x 1 x 1 tiles of 6 x 7 x 7"),
    # softmax along the first of [2, 3, 5, 40], swapped with the last: 120 matrices of 5
    ((2, 3, 5, 40), (3, 1, 2, 0), "20 x 1 x 1 tiles of 6 x 5 x 2"),
])
def test_runs_of_matrices_span_several_batch_dimensions(tmp_path, shape, perm, chosen):
    """A re-layout whose matrices are too many for runs along the dimension before them:
    a tile takes a box of the batch dimensions, the inner ones whole."""
    n = "x".join(map(str, shape))
    out_shape = [shape[p] for p in perm]
    m = "x".join(map(str, out_shape))
    graph = f"""
func.func @t(%x: tensor<{n}xf16> {{graph.name = "x"}}) -> (tensor<{m}xf16> {{graph.name = "y"}}) {{
  %e = tensor.empty() : tensor<{m}xf16>
  %y = linalg.transpose ins(%x : tensor<{n}xf16>) outs(%e : tensor<{m}xf16>) permutation = [{", ".join(map(str, perm))}]
  return %y : tensor<{m}xf16>
}}
"""
    out, dump = compile_graph(tmp_path, graph, "t")
    assert len(kernels(dump)) == 1, kernels(dump)
    choice = [line for line in (dump / "divisions.txt").read_text().splitlines() if "* [" in line]
    assert len(choice) == 1 and chosen in choice[0], choice
    x = f16(np.random.default_rng(5), *shape)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    assert np.array_equal(y, x.astype(np.float32).transpose(perm))


def test_padded_rows_in_a_hand_written_plan(tmp_path):
    """A plan whose argument says padded_rows fewer than the tensor's rows is refused at
    launch, naming the tensor."""
    out, _ = compile_graph(tmp_path, MATMUL_1024, "mm")
    plan = json.loads((out / "job.plan").read_text())
    for a in plan["arguments"]:
        if a["name"] == "w":
            a["padded_rows"] = 1000
    (out / "job.plan").write_text(json.dumps(plan, indent=2))
    r = run(BIN / "spyre-sim", "run", out / "job.plan", "--timing-only", ok=False)
    assert r.returncode != 0 and "tensor 'w': padded_rows 1000 is less than its 1024 rows" in r.stderr, r.stderr


def test_concat_and_embedding_gather(tmp_path):
    """tensor.concat along the stick dimension (one part starting inside a stick: the result
    packed, then laid out in sticks) and along the rows; tensor.gather of table rows by i32
    ids (an embedding lookup through an indirect access tile), its result returned as a
    reshape that lies exactly as the result."""
    graph = """
func.func @emb(%table: tensor<1000x200xf16> {graph.name = "table"}, %ids: tensor<96x1xi32> {graph.name = "ids"},
               %a: tensor<96x100xf16> {graph.name = "a"})
    -> (tensor<96x200xf16> {graph.name = "rows"}, tensor<96x300xf16> {graph.name = "cat"},
        tensor<192x100xf16> {graph.name = "cat0"}) {
  %g = tensor.gather %table[%ids] gather_dims([0]) : (tensor<1000x200xf16>, tensor<96x1xi32>) -> tensor<96x1x200xf16>
  %r = tensor.collapse_shape %g [[0, 1], [2]] : tensor<96x1x200xf16> into tensor<96x200xf16>
  %c = tensor.concat dim(1) %a, %r : (tensor<96x100xf16>, tensor<96x200xf16>) -> tensor<96x300xf16>
  %c0 = tensor.concat dim(0) %a, %a : (tensor<96x100xf16>, tensor<96x100xf16>) -> tensor<192x100xf16>
  return %r, %c, %c0 : tensor<96x200xf16>, tensor<96x300xf16>, tensor<192x100xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "emb")
    assert kernels(dump) == ["k1_gather.mlir", "k2_concat.mlir", "k3_concat.mlir",
                             "k4_concat.mlir", "k5_concat.mlir", "k6_relayout.mlir"], kernels(dump)
    assert "construct_indirect_access_tile" in (dump / "k1_gather.mlir").read_text()
    rng = np.random.default_rng(12)
    table, a = f16(rng, 1000, 200), f16(rng, 96, 100)
    ids = rng.integers(0, 1000, (96, 1)).astype(np.int32)
    got = simulate(tmp_path, out, {"table": table, "ids": ids, "a": a}, ["rows", "cat", "cat0"])
    rows = table.astype(np.float32)[ids[:, 0]]
    close(got["rows"], rows, rtol=0, atol=0)
    close(got["cat"], np.concatenate([a.astype(np.float32), rows], 1), rtol=0, atol=0)
    close(got["cat0"], np.concatenate([a, a], 0).astype(np.float32), rtol=0, atol=0)


def test_integer_tensors_are_only_indices(tmp_path):
    """i32 tensors are an embedding's indices: arithmetic on them is refused at the op (the
    named op's implicit body has no location of its own), and so is a softmax of them."""
    src = tmp_path / "i.mlir"
    src.write_text("""
func.func @i(%x: tensor<4x64xi32>) -> tensor<4x64xi32> {
  %e = tensor.empty() : tensor<4x64xi32>
  %y = linalg.add ins(%x, %x : tensor<4x64xi32>, tensor<4x64xi32>) outs(%e : tensor<4x64xi32>) -> tensor<4x64xi32>
  return %y : tensor<4x64xi32>
}
""")
    r = run(BIN / "spyre-compile", src, "-o", tmp_path / "o", ok=False)
    assert r.returncode == 1 and "i.mlir:4:8: error: 'arith.addi' is not supported in a linalg body by spyre-compile" in r.stderr, r.stderr
    src.write_text("""
func.func @j(%x: tensor<4x64xi32>) -> tensor<4x64xi32> {
  %e = tensor.empty() : tensor<4x64xi32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x64xi32>) outs(%e : tensor<4x64xi32>) -> tensor<4x64xi32>
  return %y : tensor<4x64xi32>
}
""")
    r = run(BIN / "spyre-compile", src, "-o", tmp_path / "o", ok=False)
    assert r.returncode == 1 and "i.mlir:4:8: error: the Spyre front end takes i32 tensors as the indices of a tensor.gather only" in r.stderr, r.stderr


def test_a_transposed_weight_read_in_place_where_that_is_cheaper(tmp_path):
    """x @ W^T with 4 rows and W^T 64 x 130: the matmul reads W^T in place, a DMA run per
    element (11,115 cycles), rather than restickifying it first (the restickify alone takes
    10,030 cycles at best, on the SFU or through DMA runs, before the matmul runs). Wider
    weights are restickified on the SFU (test_frontend_transpose.py); GPT-2's K^T, read by two
    tiles per head, too."""
    graph = """
func.func @lin(%x: tensor<4x64xf16> {graph.name = "x"}, %w: tensor<130x64xf16> {graph.name = "w"})
    -> (tensor<4x130xf16> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f16
  %et = tensor.empty() : tensor<64x130xf16>
  %wt = linalg.transpose ins(%w : tensor<130x64xf16>) outs(%et : tensor<64x130xf16>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x130xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<4x130xf16>) -> tensor<4x130xf16>
  %y = linalg.matmul ins(%x, %wt : tensor<4x64xf16>, tensor<64x130xf16>) outs(%z : tensor<4x130xf16>) -> tensor<4x130xf16>
  return %y : tensor<4x130xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "lin")
    assert kernels(dump) == ["k1_matmul.mlir"], kernels(dump)
    rng = np.random.default_rng(30)
    x, w = f16(rng, 4, 64, scale=0.5), f16(rng, 130, 64, scale=0.5)
    y = simulate(tmp_path, out, {"x": x, "w": w}, ["y"])["y"]
    close(y, x.astype(np.float32) @ w.astype(np.float32).T, rtol=2e-2, atol=2e-2)


def test_one_restickify_serves_a_reader_and_a_result(tmp_path):
    """x^T read by an add and returned: restickified once, the copy both the add's operand and
    the result."""
    graph = """
func.func @t(%x: tensor<70x130xf16> {graph.name = "x"}) -> (tensor<130x70xf16> {graph.name = "t"}, tensor<130x70xf16> {graph.name = "u"}) {
  %e = tensor.empty() : tensor<130x70xf16>
  %t = linalg.transpose ins(%x : tensor<70x130xf16>) outs(%e : tensor<130x70xf16>) permutation = [1, 0]
  %u = linalg.add ins(%t, %t : tensor<130x70xf16>, tensor<130x70xf16>) outs(%e : tensor<130x70xf16>) -> tensor<130x70xf16>
  return %t, %u : tensor<130x70xf16>, tensor<130x70xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "tr")
    assert kernels(dump) == ["k1_restickify.mlir", "k2_rows.mlir"], kernels(dump)
    x = f16(np.random.default_rng(40), 70, 130)
    got = simulate(tmp_path, out, {"x": x}, ["t", "u"])
    close(got["t"], x.astype(np.float32).T, rtol=0, atol=0)
    close(got["u"], 2 * x.astype(np.float32).T, rtol=1e-3, atol=1e-3)


def test_the_dump_holds_only_this_compile(tmp_path):
    """--dump-dir: the kernels and candidates an earlier compile wrote there and this one has
    not are removed with the new dump; other files stay."""
    dump = tmp_path / "dump"
    (dump / "k9_old").mkdir(parents=True)
    (dump / "k9_old" / "05-spyrecode.s").write_text("x")
    (dump / "k9_old.mlir").write_text("x")
    (dump / "candidates" / "k9_old").mkdir(parents=True)
    (dump / "notes.txt").write_text("mine")
    src = tmp_path / "mm.mlir"
    src.write_text(MATMUL_1024)
    run(BIN / "spyre-compile", src, "-o", tmp_path / "out", "--dump-dir", dump)
    assert sorted(p.name for p in dump.iterdir()) == ["divisions.txt", "k1_matmul", "k1_matmul.mlir",
                                                      "notes.txt"]
