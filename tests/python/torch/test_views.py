"""Views read where they lie. On Spyre a lowered op whose operand is a view of another
tensor's storage (a transpose, a slice, a reshape that cannot stay a view) binds the
storage and makes the view inside its program: no copy through the host, and in
DeferAndFuse mode no flush, so a transformer block's forward is one program. The TPU does
the same, but copies a transpose no matmul reads (eager.reads_view says why). Results match
the CPU."""
import sys
import pathlib

import pytest
import torch

import chipless.torch
from torch_checks import close

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "models" / "torch"))

VIEWS = {
    "merge heads": lambda t: t.view(2, 32, 3, 128).transpose(1, 2).reshape(2, 3, 4096),
    "split heads into a bmm": lambda t: (
        t[..., :128].reshape(2, 32, 2, 64).transpose(1, 2)
        @ t[..., 128:256].reshape(2, 32, 2, 64).permute(0, 2, 3, 1)),
    "a box made contiguous": lambda t: t[:, 3:10, 64:192].contiguous(),
    "a transposed left-hand side": lambda t: t[0].t() @ t[1],
    "slices added": lambda t: t[0, :, :128] + t[1, :, 128:256],
    "one element each": lambda t: t[1, 2, 3:4] + t[0, 0, 5:6],
}


# Not on the TPU: "split heads into a bmm" (torch.matmul makes the permuted right-hand side
# contiguous before its bmm: a transpose no matmul reads, copied) and "one element each"
# (slices 12 and 20 bytes into a row: DMAs start at 32-byte boundaries; copied).
TPU_VIEWS = sorted(set(VIEWS) - {"split heads into a bmm", "one element each"})
# device: (dtype, tolerance); Spyre computes in f16, the TPU's f32 matmuls in bf16x3
DEVICES = {"spyre": (torch.float16, (2e-2, 5e-2)), "tpu": (torch.float32, (1e-3, 1e-3))}


@pytest.mark.parametrize("mode", ["eager", "deferred"])
@pytest.mark.parametrize("device,name", [("spyre", n) for n in sorted(VIEWS)] +
                         [("tpu", n) for n in TPU_VIEWS])
def test_views_are_read_in_the_programs(device, name, mode):
    """Nothing goes through the host: the view is made in the program (on the TPU a
    transposed operand of a matmul too: the MXU reads a transposed right-hand side as it
    lies, a left-hand side is transposed on it)."""
    dtype, (rtol, atol) = DEVICES[device]
    base = torch.randn(2, 32, 3 * 128, dtype=dtype)
    x = base.to(device)
    chipless.torch.reset_stats()
    with torch.no_grad():
        if mode == "deferred":
            with chipless.torch.defer_and_fuse():
                y = VIEWS[name](x)
            assert chipless.torch.stats(device)["launches"] == 1
        else:
            y = VIEWS[name](x)
        got = y.cpu()
    s = chipless.torch.stats(device)
    assert s["relayouts"] == 0 and s["link_bytes_in"] == 0, s
    assert chipless.torch.fallback_counts() == {}
    close(got, VIEWS[name](base.float()), rtol, atol)


@pytest.mark.parametrize("shape,view", [((64, 256), lambda t: t.t()),
                                        ((3, 40, 136), lambda t: t.transpose(1, 2))])
def test_the_tpu_transposes_a_view_no_matmul_reads_on_the_chip_exactly(shape, view):
    """A view moving the innermost dimension, read by an element-wise op: tpu-compile
    transposes it on the MXU, exactly (f32 split into bf16 pieces); nothing goes through the
    host."""
    base = torch.randn(*shape)
    chipless.torch.reset_stats()
    got = (view(base.to("tpu")) * 2 + 1).cpu()
    assert chipless.torch.stats("tpu")["relayouts"] == 0
    assert torch.equal(got, view(base) * 2 + 1)


def test_the_tpu_copies_a_transpose_its_compiler_does_not_make():
    """A rank-4 permutation moving the innermost dimension (NHWC to NCHW) is copied into a
    tensor of its own first, through the host, exactly."""
    base = torch.randn(2, 5, 6, 32)
    chipless.torch.reset_stats()
    got = (base.to("tpu").permute(0, 3, 1, 2) * 2).cpu()
    assert chipless.torch.stats("tpu")["relayouts"] == 1
    assert torch.equal(got, base.permute(0, 3, 1, 2) * 2)


# device: (calls, tolerance): Spyre's first call lays the weights out transposed (kept after),
# so its second is the one that is a single program
BLOCKS = {"spyre": (2, 5e-2), "tpu": (1, 2e-3)}


@pytest.mark.parametrize("device,name", [("spyre", "gpt2"), ("spyre", "bert"),
                                         ("spyre", "llama"), ("tpu", "gpt2"), ("tpu", "bert")])
def test_a_block_forward_is_one_deferred_program(device, name):
    import blocks
    dtype = DEVICES[device][0]
    calls, tol = BLOCKS[device]
    model, inputs = blocks.build(name, seed=0)
    model = model.to(dtype).to(device)
    xs = [x.to(dtype).to(device) for x in inputs]
    with torch.no_grad():
        for _ in range(calls):
            chipless.torch.reset_stats()
            with chipless.torch.defer_and_fuse():
                out = model(*xs)
            got = out.cpu()
    s = chipless.torch.stats(device)
    assert s["launches"] == s["fused_launches"] == 1 and s["relayouts"] == 0, s
    cpu_model, cpu_inputs = blocks.build(name, seed=0)
    close(got, cpu_model.to(dtype).float()(*[x.to(dtype).float() for x in cpu_inputs]), tol, tol)
