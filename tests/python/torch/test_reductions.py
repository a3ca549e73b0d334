"""amin, aminmax, logsumexp, nansum and vector norms on both devices against the CPU, over
the last, other and all dimensions; logsumexp with rows of -inf and +inf, nansum with NaN."""
import math

import pytest
import torch

import chipless.torch

CASES = {
    "amin": lambda x: x.amin(-1), "amin_leading": lambda x: x.amin((0, 1), keepdim=True),
    "amin_all": lambda x: x.amin(),
    "aminmax": lambda x: torch.aminmax(x, dim=1)[0] + torch.aminmax(x, dim=1)[1],
    "aminmax_all": lambda x: torch.aminmax(x)[0] * 2 + torch.aminmax(x)[1],
    "logsumexp": lambda x: torch.logsumexp(x, -1),
    "logsumexp_first": lambda x: torch.logsumexp(x, 0),
    # its maximum broadcast back along the middle dimension (Spyre: Form::Spread)
    "logsumexp_middle": lambda x: torch.logsumexp(x, 1),
    "nansum": lambda x: torch.nansum(x, -1), "nansum_all": lambda x: torch.nansum(x),
    "norm2": lambda x: torch.linalg.vector_norm(x, dim=-1),
    "norm1": lambda x: torch.linalg.vector_norm(x, 1, dim=(0, 2)),
    "norm_inf": lambda x: torch.linalg.vector_norm(x, math.inf),
    "tensor_norm": lambda x: x.norm(dim=-1), "tensor_norm_all": lambda x: x.norm(),
}
DEVICES = [("tpu", torch.float32, 1e-4), ("spyre", torch.float16, 2e-2)]


@pytest.mark.parametrize("device,dtype,tol", DEVICES, ids=[d[0] for d in DEVICES])
@pytest.mark.parametrize("name", sorted(CASES))
def test_reduction_on_the_device(device, dtype, tol, name):
    x = torch.randn(3, 5, 40).to(dtype)
    x[0, 0, :3] = math.nan if name.startswith("nansum") else x[0, 0, :3]
    if name.startswith("logsumexp"):
        x[1, 1, :] = -math.inf  # a row of -inf: -inf, not NaN
        x[2, 2, 0] = math.inf   # a row holding +inf: +inf
    got, want = CASES[name](x.to(device)), CASES[name](x.float())
    assert got.shape == want.shape
    torch.testing.assert_close(got.cpu().double(), want.double(), rtol=tol, atol=tol,
                               equal_nan=True)
    assert chipless.torch.fallback_counts() == {}


@pytest.mark.parametrize("device,dtype,tol", DEVICES, ids=[d[0] for d in DEVICES])
def test_two_norms_do_not_overflow(device, dtype, tol):
    """Squares of f16 values above 256 overflow: the norm is scaled by the largest magnitude
    first (gradient-norm clipping reads it); a zero vector's norm is 0, one with inf is inf."""
    x = torch.full((4, 64), 300.0).to(dtype)
    x[1] = 0.0
    x[2, 5] = math.inf
    got = torch.linalg.vector_norm(x.to(device), dim=-1).cpu().double()
    want = torch.linalg.vector_norm(x.double(), dim=-1)
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)
    assert chipless.torch.fallback_counts() == {}
