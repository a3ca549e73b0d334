"""Clamping and the activations of chipless/torch/activations.py on both devices against
the CPU: forward and gradient, with NaN and the infinities among the inputs (each op
compares as the CPU's kernel does), one program each and nothing on the CPU."""
import math

import pytest
import torch
import torch.nn.functional as F

import chipless.torch

#: name -> a function of one tensor; each reaches the ATen op of its name (relu6, celu and
#: selu are PyTorch compositions of hardtanh and elu)
ACTIVATIONS = {
    "hardtanh": F.hardtanh, "relu6": lambda x: F.relu6(x * 4),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2), "elu": F.elu,
    "celu": lambda x: F.celu(x, 0.5), "selu": F.selu,
    "hardsigmoid": lambda x: F.hardsigmoid(x * 4), "hardswish": lambda x: F.hardswish(x * 4),
    "softplus": lambda x: F.softplus(x * 10, beta=2, threshold=5), "mish": F.mish,
    "erf": torch.erf,
    # clamp's gradient is ATen's: where(logical_and_(x >= min, x <= max), grad, 0); bounds
    # that f16 holds exactly (a float16 clamp compares with its bounds in float16)
    "clamp": lambda x: x.clamp(-0.5, 0.75), "clamp_min": lambda x: x.clamp(min=0.125),
    "clamp_max": lambda x: torch.clamp_max(x, 0.25), "clamp_inverted": lambda x: x.clamp(1, -1),
}
#: without a gradient (abs's is sgn, on the CPU)
LOGARITHMS = {
    "log2": lambda x: torch.log2(x.abs() + 0.1), "log10": lambda x: torch.log10(x.abs() + 0.1),
}
def close(got, want, rtol, atol):
    """got (a device result) matches the CPU's want, NaN where it has NaN."""
    torch.testing.assert_close(got.cpu().to(torch.float64), want.to(torch.float64), rtol=rtol,
                               atol=atol, equal_nan=True)


DEVICES = [("tpu", torch.float32, 1e-5), ("spyre", torch.float16, 2e-2)]


def _input(dtype):
    x = (torch.randn(8, 70) * 2).to(dtype)
    x[0, :5] = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0])
    return x


@pytest.mark.parametrize("device,dtype,tol", DEVICES, ids=[d[0] for d in DEVICES])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_and_its_gradient_on_the_device(device, dtype, tol, name):
    fn = ACTIVATIONS[name]
    x = _input(dtype)
    grad = torch.randn(8, 70).to(dtype)
    xd = x.to(device).requires_grad_()
    y = fn(xd)
    y.backward(grad.to(device))
    xc = x.float().requires_grad_()
    want = fn(xc)
    want.backward(grad.float())
    close(y.detach(), want.detach(), tol, tol)
    close(xd.grad, xc.grad, tol, tol)
    assert chipless.torch.fallback_counts() == {}
    assert chipless.torch.stats(device)["launches"] >= 2


@pytest.mark.parametrize("device,dtype,tol", DEVICES, ids=[d[0] for d in DEVICES])
@pytest.mark.parametrize("name", sorted(LOGARITHMS))
def test_logarithms_on_the_device(device, dtype, tol, name):
    fn = LOGARITHMS[name]
    x = _input(dtype)
    close(fn(x.to(device)), fn(x.float()), tol, tol)
    assert chipless.torch.fallback_counts() == {}


@pytest.mark.parametrize("device,dtype,tol", DEVICES, ids=[d[0] for d in DEVICES])
def test_in_place_forms_and_programs_per_bound(device, dtype, tol):
    """clamp_, hardtanh_ and leaky_relu_ write into their input; the op's numbers are in
    its program, so two slopes are two programs, and the same slope again is a cache hit."""
    x = _input(dtype)
    for fn in (lambda t: t.clamp_(-0.25, 0.5), lambda t: F.hardtanh(t, -0.5, 2, inplace=True),
               lambda t: F.leaky_relu(t, 0.3, inplace=True)):
        d = x.to(device)
        assert fn(d) is d
        close(d, fn(x.float().clone()), tol, tol)
    chipless.torch.reset_stats()
    for slope in (0.1, 0.2, 0.1):
        close(F.leaky_relu(x.to(device), slope), F.leaky_relu(x.float(), slope), tol, tol)
    s = chipless.torch.stats(device)
    assert s["launches"] == 3 and s["compiles"] <= 2, s
    assert chipless.torch.fallback_counts() == {}
