"""Paged causal attention in KTIR (tests/e2e/kernels/paged_attention.mlir, the class of
ktir-cpu's paged_attention): K and V pages gathered through an i32 block table at a page
that moves with the loop variable and a launch value, f32 matmuls, an online softmax whose
running maximum is loop-carried, and a causal mask computed in a linalg.generic from
element positions, the tile, the loop variable and a launch value. One compile, several
launches of different lengths; each against an fp32 numpy reference.
"""
import numpy as np
import pytest

from frontend_util import BIN, ROOT, run, simulate

KERNEL = ROOT / "tests" / "e2e" / "kernels" / "paged_attention.mlir"
TOKENS, HEADS, KV_HEADS, HEAD, PAGES, PAGE = 8, 32, 8, 128, 64, 16


def inputs(seed):
    rng = np.random.default_rng(seed)
    half = lambda *shape: (rng.standard_normal(shape) * 0.5).astype(np.float16)  # noqa: E731
    return {"q": half(TOKENS, HEADS, HEAD), "k": half(PAGES, PAGE, KV_HEADS, HEAD),
            "v": half(PAGES, PAGE, KV_HEADS, HEAD),
            "table": rng.permutation(PAGES)[:16].astype(np.int32).reshape(1, 16)}


def reference(x, first_page, pages, context, scale):
    """Token t sees the positions up to context + t of the pages the table lists from
    first_page on; query head h reads KV head h // 4."""
    positions = np.arange(pages * PAGE)
    page = x["table"][0, first_page + positions // PAGE]
    keys = x["k"][page, positions % PAGE].astype(np.float32)
    values = x["v"][page, positions % PAGE].astype(np.float32)
    out = np.zeros((TOKENS, HEADS, HEAD), np.float32)
    for t in range(TOKENS):
        for h in range(HEADS):
            g = h // (HEADS // KV_HEADS)
            s = keys[:, g] @ x["q"][t, h].astype(np.float32) * scale
            s[positions > context + t] = -np.inf
            p = np.exp(s - s.max())
            out[t, h] = p @ values[:, g] / p.sum()
    return out


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    out = tmp_path_factory.mktemp("paged") / "out"
    run(BIN / "spyre-compile", KERNEL, "-o", out)
    return out


@pytest.mark.parametrize("first_page,pages,context", [(0, 8, 120), (3, 5, 60), (0, 1, 5),
                                                      (2, 3, 47)])
def test_paged_attention_matches_numpy(tmp_path, program, first_page, pages, context):
    x = inputs(first_page * 100 + pages)
    scale = 1 / np.sqrt(HEAD)
    scalars = {"first_token": 0, "first_page": first_page, "pages": pages, "context": context,
               "scale": scale}
    flags = [a for name, v in scalars.items() for a in ("--scalar", f"{name}={v}")]
    got = simulate(tmp_path, program, x, ["out"], flags=flags)["out"]
    want = reference(x, first_page, pages, context, scale)
    err = np.abs(got - want).max()
    assert err < 2e-3 * max(1.0, np.abs(want).max()) + 1e-3, err
