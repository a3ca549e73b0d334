"""Checks the PyTorch device tests share (a module of its own, not conftest: pytest puts
several suites' conftest modules under one name)."""
import torch


def close(got, want, rtol, atol):
    """Asserts a device result `got` matches the CPU's `want`, with the failing element."""
    got = got.cpu().to(torch.float64)
    want = want.to(torch.float64)
    assert got.shape == want.shape, f"shape {tuple(got.shape)} != {tuple(want.shape)}"
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)
