"""Whole models on the emulated devices: an MLP trained with AdamW on the TPU matches the
same training on the CPU step by step, and an f16 MLP runs forward on Spyre."""
import torch
import torch.nn.functional as F

import chipless.torch
from torch_checks import close


def mlp(d_in, hidden, d_out):
    return torch.nn.Sequential(torch.nn.Linear(d_in, hidden), torch.nn.GELU(),
                               torch.nn.Linear(hidden, d_out))


def test_an_adamw_training_step_on_the_tpu_matches_the_cpu():
    torch.manual_seed(0)
    cpu = mlp(64, 256, 10)
    tpu = mlp(64, 256, 10)
    tpu.load_state_dict(cpu.state_dict())
    tpu.to("tpu")
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (cpu, tpu)]
    x, target = torch.randn(32, 64), torch.randint(0, 10, (32,))
    for step in range(3):
        losses = []
        for model, opt, device in ((cpu, optimizers[0], "cpu"), (tpu, optimizers[1], "tpu")):
            loss = F.cross_entropy(model(x.to(device)), target.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) < 1e-4, (step, losses)
    for (name, a), b in zip(tpu.named_parameters(), cpu.parameters()):
        close(a, b.detach(), 1e-3, 1e-4)
    stats = chipless.torch.stats("tpu")
    assert stats["launches"] > 30 and stats["device_seconds"] > 0


def test_an_f16_mlp_forward_on_spyre():
    torch.manual_seed(1)
    model = mlp(128, 512, 64)
    x = torch.randn(16, 128)
    want = model(x)
    model.half().to("spyre")
    got = model(x.half().to("spyre"))
    assert got.is_spyre and got.dtype == torch.float16
    close(got, want, 2e-2, 2e-2)
