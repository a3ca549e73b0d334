"""The element-wise ops of chipless/torch/pointwise.py on both devices against the CPU, with
NaN, the infinities and signed zeros among the inputs: tests of values (booleans), sign,
nan_to_num, the shrinks, threshold, log_sigmoid, rsub, xlogy, heaviside, lerp; gradients
where autograd reaches a backward op; nothing on the CPU."""
import math

import pytest
import torch
import torch.nn.functional as F

import chipless.torch

#: name -> (function of one tensor, whether its gradient is checked)
OPS = {
    "isnan": (torch.isnan, False), "isinf": (torch.isinf, False),
    "isfinite": (torch.isfinite, False), "isposinf": (torch.isposinf, False),
    "isneginf": (torch.isneginf, False), "sign": (torch.sign, False),
    "sgn": (torch.sgn, False), "nan_to_num": (torch.nan_to_num, False),
    "nan_to_num_values": (lambda x: torch.nan_to_num(x, 1.5, 100.0, -100.0), False),
    "threshold": (lambda x: F.threshold(x, 0.5, -7.0), True),
    "relu": (torch.relu, True),  # threshold_backward at 0: grad at NaN, as the CPU
    "hardshrink": (F.hardshrink, True), "softshrink": (lambda x: F.softshrink(x, 0.25), True),
    "logsigmoid": (F.logsigmoid, True), "deg2rad": (torch.deg2rad, True),
    "rad2deg": (torch.rad2deg, False), "exp2": (lambda x: torch.exp2(x.clamp(-8, 8)), False),
    "rsub": (lambda x: torch.rsub(x, 2.0, alpha=3), True),
    "rsub_tensor": (lambda x: torch.rsub(x, x * 0.5 + 1), False),
    "xlogy": (lambda x: torch.xlogy(x, x.abs() + 0.5), False),
    "xlogy_of_zero": (lambda x: torch.xlogy(x * 0, x), False),
    "heaviside": (lambda x: torch.heaviside(x, torch.full_like(x[0], 0.5)), False),
    "lerp": (lambda x: torch.lerp(x, x * 2 + 1, 0.25), True),
    "lerp_high_weight": (lambda x: torch.lerp(x, x * 2 + 1, 0.75), False),
}
DEVICES = [("tpu", torch.float32, 1e-5), ("spyre", torch.float16, 2e-2)]


def _input(dtype):
    x = (torch.randn(8, 70) * 2).to(dtype)
    x[0, :6] = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5])
    x[1, :3] = 0.0
    return x


@pytest.mark.parametrize("device,dtype,tol", DEVICES, ids=[d[0] for d in DEVICES])
@pytest.mark.parametrize("name", sorted(OPS))
def test_pointwise_op_on_the_device(device, dtype, tol, name):
    fn, gradient = OPS[name]
    x = _input(dtype)
    xd = x.to(device).requires_grad_(gradient)
    y = fn(xd)
    # the CPU's float32 reference, but nan_to_num's largest value is the dtype's own
    want = fn(x).float() if name == "nan_to_num" else fn(x.float())
    if want.dtype == torch.bool:
        assert y.dtype == torch.bool and torch.equal(y.cpu(), want)
    else:
        torch.testing.assert_close(y.detach().cpu().double(), want.double(), rtol=tol, atol=tol,
                                   equal_nan=True)
    if gradient:
        grad = torch.randn(8, 70).to(dtype)
        y.backward(grad.to(device))
        xc = x.float().requires_grad_()
        fn(xc).backward(grad.float())
        torch.testing.assert_close(xd.grad.cpu().double(), xc.grad.double(), rtol=tol,
                                   atol=tol, equal_nan=True)
    assert chipless.torch.fallback_counts() == {}


@pytest.mark.parametrize("device,dtype,tol", DEVICES, ids=[d[0] for d in DEVICES])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 70)])
def test_pointwise_ops_of_other_ranks(device, dtype, tol, shape):
    """A number (rank 0, one element in the graph), a vector and a rank-3 tensor."""
    x = (torch.randn(shape) * 2).to(dtype)
    for name in ("logsigmoid", "sign", "isinf", "rsub", "lerp"):
        fn = OPS[name][0]
        got, want = fn(x.to(device)).cpu(), fn(x.float())
        assert got.shape == want.shape, name
        torch.testing.assert_close(got.double(), want.double(), rtol=tol, atol=tol)
    assert chipless.torch.fallback_counts() == {}
