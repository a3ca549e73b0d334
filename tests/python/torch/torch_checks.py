"""Checks the PyTorch device tests share (a module of its own, not conftest: pytest puts
several suites' conftest modules under one name)."""
import torch

import chipless.torch


def close(got, want, rtol, atol):
    """Asserts a device result `got` matches the CPU's `want`, with the failing element."""
    got = got.cpu().to(torch.float64)
    want = want.to(torch.float64)
    assert got.shape == want.shape, f"shape {tuple(got.shape)} != {tuple(want.shape)}"
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


def classifier_step_is_one_program(make_model, make_optimizer, batch, device="tpu", steps=3):
    """Trains make_model() (seeded) with make_optimizer(parameters) and cross-entropy on
    `steps` batches of batch() on the CPU, eagerly on `device` and in DeferAndFuse mode;
    asserts each deferred step is one program, nothing runs on the CPU, the deferred steps
    are bit for bit the eager ones, and both are close to the CPU's."""
    def train(on, defer):
        torch.manual_seed(0)
        model = make_model().to(on)
        opt = make_optimizer(model.parameters())
        launches, losses = [], []
        chipless.torch.set_defer_and_fuse(defer)
        try:
            for _ in range(steps):
                x, target = batch()
                chipless.torch.reset_stats()
                loss = torch.nn.functional.cross_entropy(model(x.to(on)), target.to(on))
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
                if on != "cpu":
                    stats = chipless.torch.stats(on)
                    assert stats["cpu_ops"] == {} and chipless.torch.fallback_counts() == {}
                    launches.append(stats["launches"])
        finally:
            chipless.torch.set_defer_and_fuse(False)
        return [p.detach().cpu() for p in model.parameters()], losses, launches

    cpu_params, cpu_losses, _ = train("cpu", False)
    eager_params, eager_losses, _ = train(device, False)
    fused_params, fused_losses, launches = train(device, True)
    assert launches == [1] * steps, launches
    assert fused_losses == eager_losses
    assert all(torch.equal(a, b) for a, b in zip(eager_params, fused_params))
    for a, b in zip(fused_losses, cpu_losses):
        assert abs(a - b) < 1e-4, (fused_losses, cpu_losses)
    for a, b in zip(fused_params, cpu_params):
        close(a, b, 1e-3, 1e-4)
