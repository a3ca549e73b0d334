"""The model blocks of models/torch/blocks.py (an MLP, a GPT-2 block, a BERT layer, a
LLaMA-style block, a small CNN) on both emulated devices, eager and DeferAndFuse, against
the CPU in float32: the TPU in float32 (stated tolerance: 1e-4 of the output's largest
value), Spyre in float16 (1e-2). A training step (AdamW) of the MLP and of the GPT-2 block
on the TPU gives the CPU's gradients and, within two learning rates, its parameters."""
import copy
import pathlib
import sys

import pytest
import torch

import chipless.torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "models" / "torch"))
import blocks  # noqa: E402

TOLERANCE = {"tpu": 1e-4, "spyre": 1e-2}


def relative_error(got, want):
    return ((got.cpu().float() - want).abs().max() / want.abs().max()).item()


@pytest.mark.parametrize("defer", [False, True], ids=["eager", "defer"])
@pytest.mark.parametrize("device", ["tpu", "spyre"])
@pytest.mark.parametrize("name", blocks.NAMES)
def test_forward_matches_the_cpu(name, device, defer):
    model, inputs = blocks.build(name)
    model.eval()
    with torch.no_grad():
        want = model(*inputs)
        dtype = torch.float16 if device == "spyre" else torch.float32
        model.to(dtype).to(device)
        chipless.torch.set_defer_and_fuse(defer)
        try:
            got = model(*[x.to(dtype).to(device) for x in inputs])
            chipless.torch.synchronize()
        finally:
            chipless.torch.set_defer_and_fuse(False)
    assert got.device == torch.device(device) and got.dtype == dtype
    assert relative_error(got, want) < TOLERANCE[device]
    stats = chipless.torch.stats(device)
    assert stats["launches"] > 0
    if defer:
        assert stats["fused_launches"] > 0  # parts the compiler refused fused run alone


def squared_error(out, target):
    loss = (out - target) ** 2
    while loss.dim() > 0:
        loss = loss.mean(-1)
    return loss


@pytest.mark.parametrize("name", ["mlp", "gpt2"])
def test_an_adamw_step_on_the_tpu_matches_the_cpu(name):
    cpu, inputs = blocks.build(name)
    tpu = copy.deepcopy(cpu).to("tpu")
    target = torch.randn_like(cpu(*inputs))
    lr = 1e-3
    losses, grads = [], []
    for model, device in ((cpu, "cpu"), (tpu, "tpu")):
        opt = torch.optim.AdamW(model.parameters(), lr=lr)
        loss = squared_error(model(*[x.to(device) for x in inputs]), target.to(device))
        opt.zero_grad()
        loss.backward()
        grads.append([p.grad.cpu() for p in model.parameters()])
        opt.step()
        losses.append(loss.item())
    assert losses[1] == pytest.approx(losses[0], rel=1e-4)
    for g_tpu, g_cpu in zip(grads[1], grads[0]):
        assert relative_error(g_tpu, g_cpu) < 1e-3
    # AdamW moves each parameter by about lr whatever the size of its gradient: where a
    # gradient is near zero, the two devices' tiny differences can move it either way
    for p_tpu, p_cpu in zip(tpu.parameters(), cpu.parameters()):
        assert (p_tpu.detach().cpu() - p_cpu.detach()).abs().max() <= 2 * lr


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_a_torchvision_resnet18_runs_on_each_device(device):
    import zoo
    report = zoo.run("resnet18", device, size=64)
    assert report["same_top1"]
    assert report["relative_error"] < TOLERANCE[device]
    assert report["programs_launched"] > 0 and report["device_seconds"] > 0
    # what runs on the CPU is reported per op: nothing on either chip (the TPU's convolutions
    # are matmuls over their taps, its 4 x 4 and 2 x 2 images change layout without merging
    # their rows)
    assert report["ops_on_cpu"] == {}


def test_the_zoo_script_reports_by_model_name(capsys):
    import zoo
    assert zoo.main(["resnet18", "--device", "tpu", "--size", "32"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("resnet18 on tpu:0 (float32, input [1, 3, 32, 32])")
    assert "same top-1: yes" in out and "modelled device time" in out
    with pytest.raises(SystemExit, match="torchvision has no model 'resnet19'"):
        zoo.main(["resnet19"])
