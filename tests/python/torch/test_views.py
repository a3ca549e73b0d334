"""Views read where they lie. On Spyre a lowered op whose operand is a view of another
tensor's storage (a transpose, a slice, a reshape that cannot stay a view) binds the
storage and makes the view inside its program: no copy through the host, and in
DeferAndFuse mode no flush, so a transformer block's forward is one program. The TPU copies
views into tensors of their own first (eager.reads_views says why). Results match the CPU."""
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


@pytest.mark.parametrize("mode", ["eager", "deferred"])
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_spyre_reads_views_in_its_programs(name, mode):
    base = torch.randn(2, 32, 3 * 128, dtype=torch.float16)
    x = base.to("spyre")
    chipless.torch.reset_stats()
    with torch.no_grad():
        if mode == "deferred":
            with chipless.torch.defer_and_fuse():
                y = VIEWS[name](x)
            assert chipless.torch.stats("spyre")["launches"] == 1
        else:
            y = VIEWS[name](x)
        got = y.cpu()
    s = chipless.torch.stats("spyre")
    assert s["relayouts"] == 0 and s["link_bytes_in"] == 0, s  # nothing went through the host
    assert chipless.torch.fallback_counts() == {}
    close(got, VIEWS[name](base.float()), 2e-2, 5e-2)


def test_the_tpu_copies_views_first():
    base = torch.randn(2, 32, 3 * 128)
    chipless.torch.reset_stats()
    got = VIEWS["split heads into a bmm"](base.to("tpu"))
    assert chipless.torch.stats("tpu")["link_bytes_in"] > 0
    close(got, VIEWS["split heads into a bmm"](base), 1e-3, 1e-3)


@pytest.mark.parametrize("name", ["gpt2", "bert", "llama"])
def test_a_block_forward_is_one_deferred_program_on_spyre(name):
    import blocks
    model, inputs = blocks.build(name, seed=0)
    model = model.half().to("spyre")
    xs = [x.half().to("spyre") for x in inputs]
    with torch.no_grad():
        for _ in range(2):  # the first call lays the weights out transposed (kept after)
            chipless.torch.reset_stats()
            with chipless.torch.defer_and_fuse():
                out = model(*xs)
            got = out.cpu()
    s = chipless.torch.stats("spyre")
    assert s["launches"] == s["fused_launches"] == 1 and s["relayouts"] == 0, s
    cpu_model, cpu_inputs = blocks.build(name, seed=0)
    close(got, cpu_model.half().float()(*[x.half().float() for x in cpu_inputs]), 5e-2, 5e-2)
