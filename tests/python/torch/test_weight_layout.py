"""A Linear layer's weight on Spyre is re-laid out transposed once and reused (the card reads a
transposed right-hand side one element per DMA run), until the weight is written: by an op
on the device, a copy from the host, a write through `.data`, in eager (queued), blocking and
DeferAndFuse modes. Each case checks the result against the CPU, and the launches show
whether the weight was laid out again. The TPU reads the transposed weight in place."""
import pytest
import torch

import chipless.torch
from torch_checks import close


def _layer(device, seed=0):
    torch.manual_seed(seed)
    cpu = torch.nn.Linear(128, 192).half()
    x = torch.randn(16, 128, dtype=torch.float16)
    moved = torch.nn.Linear(128, 192).half()
    moved.load_state_dict(cpu.state_dict())
    return cpu, moved.to(device), x


def _want(cpu, x):
    """The CPU's result, in float32 from the float16 values (1.13's CPU has no f16 matmul)."""
    return torch.nn.functional.linear(x.float(), cpu.weight.float(), cpu.bias.float())


def _launches(device, fn):
    before = chipless.torch.stats(device)["launches"]
    out = fn()
    chipless.torch.synchronize()
    return out, chipless.torch.stats(device)["launches"] - before


@torch.no_grad()
def test_weight_laid_out_once_then_reused():
    cpu, lin, x = _layer("spyre")
    xd = x.to("spyre")
    first, n1 = _launches("spyre", lambda: lin(xd))
    second, n2 = _launches("spyre", lambda: lin(xd))
    assert (n1, n2) == (2, 1)  # the transpose and the matmul, then the matmul alone
    close(first, _want(cpu, x), rtol=2e-2, atol=2e-2)
    assert torch.equal(first.cpu(), second.cpu())
    assert chipless.torch.stats("spyre")["cpu_ops"] == {}


@torch.no_grad()
def test_tpu_reads_the_transposed_weight_in_place():
    cpu, lin, x = _layer("tpu")
    lin.float()
    xd = x.float().to("tpu")
    _, n1 = _launches("tpu", lambda: lin(xd))
    out, n2 = _launches("tpu", lambda: lin(xd))
    assert (n1, n2) == (1, 1)
    close(out, _want(cpu, x), rtol=2e-2, atol=2e-2)


WRITES = {
    "op on the device": lambda w, new: w.mul_(0).add_(new.to(w.device)),
    "copy from the host": lambda w, new: w.copy_(new),
    "copy through .data": lambda w, new: w.data.copy_(new),
    "op through .data": lambda w, new: w.data.zero_().add_(new.to(w.device)),
}


@pytest.mark.parametrize("mode", ["queued", "blocking", "deferred"])
@pytest.mark.parametrize("write", sorted(WRITES))
@torch.no_grad()
def test_a_written_weight_is_laid_out_again(write, mode):
    cpu, lin, x = _layer("spyre", seed=1)
    xd = x.to("spyre")
    new = torch.randn(cpu.weight.shape, dtype=torch.float16)
    chipless.torch.set_launch_blocking(mode == "blocking")
    chipless.torch.set_defer_and_fuse(mode == "deferred")
    try:
        before = lin(xd)
        WRITES[write](lin.weight, new)   # issued right after, nothing waited for
        after = lin(xd)
        close(before, _want(cpu, x), rtol=2e-2, atol=2e-2)
        cpu.weight.copy_(new)
        close(after, _want(cpu, x), rtol=2e-2, atol=2e-2)
    finally:
        chipless.torch.set_defer_and_fuse(False)
        chipless.torch.set_launch_blocking(False)


@torch.no_grad()
def test_the_copy_goes_with_its_weight():
    """A weight freed and a new one at the same device address: the new one's values."""
    cpu, lin, x = _layer("spyre", seed=2)
    xd = x.to("spyre")
    lin(xd)
    for seed in (3, 4):
        torch.manual_seed(seed)
        w = torch.randn(192, 128, dtype=torch.float16)
        lin.weight = torch.nn.Parameter(w.to("spyre"))  # the old weight is freed
        cpu.weight.copy_(w)
        close(lin(xd), _want(cpu, x), rtol=2e-2, atol=2e-2)


def test_training_steps_update_the_laid_out_weight():
    """SGD steps on the device: each step's forward sees the weight the last step wrote."""
    torch.manual_seed(5)
    cpu = torch.nn.Linear(64, 64)
    lin = torch.nn.Linear(64, 64)
    lin.load_state_dict(cpu.state_dict())
    lin.half().to("spyre")
    x = torch.randn(8, 64)
    losses = []
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    cpu_opt = torch.optim.SGD(cpu.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        loss = lin(x.half().to("spyre")).float().square().mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        cpu_opt.zero_grad()
        cpu_loss = cpu(x).square().mean()
        cpu_loss.backward()
        cpu_opt.step()
        assert abs(losses[-1] - cpu_loss.item()) < 2e-2 * max(1.0, abs(cpu_loss.item()))
    assert losses[2] < losses[0]
