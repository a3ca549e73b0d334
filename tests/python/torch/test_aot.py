"""Ahead-of-time capture (chipless.torch.aot, in place of 1.13's missing torch.compile): the
model's ATen graph captured with make_fx or aot_module, compiled before the first real call,
each call one deferred region — fewer programs than eager, the same numbers."""
import copy
import pathlib
import sys

import torch

import chipless.torch
from torch_checks import close

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "models" / "torch"))
import blocks  # noqa: E402


def test_a_captured_mlp_is_one_program_compiled_ahead():
    model, (x,) = blocks.build("mlp")
    want = model(x)
    model.to("tpu")
    x_tpu = x.to("tpu")
    chipless.torch.reset_stats()
    fast = chipless.torch.aot(model, x_tpu)
    assert "torch.ops.aten.addmm.default" in fast.graphs[0].code
    # traced on the meta device: the only launch of the capture is its ahead-of-time run
    assert chipless.torch.stats("tpu")["launches"] == 1
    chipless.torch.reset_stats()
    with torch.no_grad():
        got = fast(x.to("tpu"))
    s = chipless.torch.stats("tpu")
    assert s["launches"] == 1 and s["compiles"] == 0  # compiled when captured
    close(got, want.detach(), 1e-4, 1e-5)


def test_a_captured_gpt2_block_forward_and_backward_match_the_cpu():
    model, inputs = blocks.build("gpt2")
    cpu = copy.deepcopy(model)
    model.to("tpu")
    fast = chipless.torch.aot(model, *[x.to("tpu") for x in inputs], backward=True)
    assert len(fast.graphs) == 2  # forward and backward
    chipless.torch.reset_stats()
    fast(*[x.to("tpu") for x in inputs]).sum().backward()
    aot_launches = chipless.torch.stats("tpu")["launches"]
    cpu(*inputs).sum().backward()
    for p, q in zip(model.parameters(), cpu.parameters()):
        close(p.grad, q.grad, 1e-3, 1e-3 * q.grad.abs().max().item())
    # the same step in eager mode takes more programs
    model.zero_grad()
    chipless.torch.reset_stats()
    model(*[x.to("tpu") for x in inputs]).sum().backward()
    assert aot_launches < chipless.torch.stats("tpu")["launches"]
