"""Eager ops on the emulated devices against the CPU: each lowered op runs as a program on
the simulator (counted launches, nothing on the CPU), compiled once per signature; numerics
within the stated tolerances (TPU f32 matmuls take three bf16 passes, Spyre computes in
f16); every other op runs on the CPU, counted, or is an error in strict mode."""
import math
import os
import pathlib
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import chipless.torch
from chipless.torch import scalar_rows
from torch_checks import close

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"

UNARY = {
    "neg": torch.neg, "relu": torch.relu, "tanh": torch.tanh, "exp": torch.exp,
    "sigmoid": torch.sigmoid, "silu": F.silu, "abs": torch.abs, "reciprocal": torch.reciprocal,
    "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "log": torch.log, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b.abs() + 1), "maximum": torch.maximum, "minimum": torch.minimum,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=-0.25),
    "scalar": lambda a, b: a * 0.5 + 3, "row_broadcast": lambda a, b: a + b[0],
    "addcmul": lambda a, b: torch.addcmul(a, b, b, value=0.1),
    "addcdiv": lambda a, b: torch.addcdiv(a, b, b.abs() + 1, value=-2.0),
}
REDUCE = {
    "softmax": lambda x: torch.softmax(x, -1), "sum": lambda x: x.sum(-1),
    "mean_keepdim": lambda x: x.mean(-1, keepdim=True), "amax": lambda x: x.amax(-1),
}


def runs_on_device(device, fn, *args, launches=None):
    """fn on the device copies of args; asserts it ran as programs, nothing on the CPU."""
    before = chipless.torch.stats(device)["launches"]
    out = fn(*[a.to(device) for a in args])
    stats = chipless.torch.stats(device)
    assert stats["cpu_ops"] == {} and chipless.torch.fallback_counts() == {}, stats
    assert stats["launches"] > before
    if launches is not None:
        assert stats["launches"] - before == launches
    return out


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_on_the_tpu(name):
    x = torch.randn(37, 300)
    if name in ("sqrt", "rsqrt", "log"):
        x = x.abs() + 0.5
    close(runs_on_device("tpu", UNARY[name], x, launches=1), UNARY[name](x), 1e-5, 1e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_on_the_tpu(name):
    a, b = torch.randn(16, 200), torch.randn(16, 200)
    close(runs_on_device("tpu", BINARY[name], a, b), BINARY[name](a, b), 1e-5, 1e-6)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_last_dimension_reductions_on_the_tpu(name):
    x = torch.randn(3, 40, 300)
    close(runs_on_device("tpu", REDUCE[name], x, launches=1), REDUCE[name](x), 1e-5, 1e-4)


@pytest.mark.parametrize("shape", [(32, 200), (3, 40, 130)])
def test_column_sums_on_the_tpu(shape):
    # a bias's gradient: the TPU compiler transposes on the MXU (bf16x3: about 16 bits)
    x = torch.randn(*shape)
    close(runs_on_device("tpu", lambda t: t.sum(-2), x, launches=1), x.sum(-2), 2e-4, 2e-4)


def test_bf16_rounds_once_like_the_cpu():
    a, b = torch.randn(8, 256).bfloat16(), torch.randn(8, 256).bfloat16()
    got = runs_on_device("tpu", lambda x, y: torch.tanh(x) * y, a, b)
    # the CPU rounds tanh's result to bf16 before the multiply; the TPU keeps fp32 in the
    # fused body and rounds once: within one bf16 ulp of each other
    close(got, torch.tanh(a) * b, 1.6e-2, 1e-5)


@pytest.mark.parametrize("shapes", [((64, 200), (200, 72)), ((5, 128), (128, 300))])
def test_matmuls_on_the_tpu(shapes):
    a, b = torch.randn(*shapes[0]), torch.randn(*shapes[1])
    # f32 on the MXU: bf16x3, about 16 significant bits per product; a sum of 200 products
    # of about 14 in magnitude can cancel to a small result, hence the absolute part
    close(runs_on_device("tpu", torch.mm, a, b, launches=1), a @ b, 2e-4, 5e-4)
    bias = torch.randn(shapes[1][1])
    close(runs_on_device("tpu", lambda x, w, c: torch.addmm(c, x, w), a, b, bias, launches=1),
          torch.addmm(bias, a, b), 2e-4, 5e-4)


@pytest.mark.parametrize("shapes", [((64, 200), (200, 72)), ((5, 128), (128, 300))])
def test_float32_matmuls_on_spyre_take_three_f16_passes(shapes):
    """f32 operands split into f16 high and low parts, three PT passes with f32 results:
    about f32's precision (one f16 pass would be off by ~1e-2 here), one program."""
    a, b = torch.randn(*shapes[0]), torch.randn(*shapes[1])
    want = (a.double() @ b.double()).float()
    got = runs_on_device("spyre", torch.mm, a, b, launches=1)
    close(got, want, 1e-5, 1e-4)
    one_pass = (a.half().double() @ b.half().double()).float()
    assert (one_pass - want).abs().max() > 10 * (got.cpu() - want).abs().max()
    bias = torch.randn(shapes[1][1])
    close(runs_on_device("spyre", lambda x, w, c: torch.addmm(c, x, w), a, b, bias, launches=1),
          torch.addmm(bias.double(), a.double(), b.double()).float(), 1e-5, 1e-4)
    x, y = torch.randn(3, 20, 64), torch.randn(3, 64, 30)
    close(runs_on_device("spyre", torch.bmm, x, y, launches=1),
          torch.bmm(x.double(), y.double()).float(), 1e-5, 1e-4)


def test_a_linear_layer_reads_its_transposed_weight_in_place():
    layer = torch.nn.Linear(96, 48)
    x = torch.randn(10, 96)
    want = layer(x)
    layer.to("tpu")
    got = runs_on_device("tpu", layer, x, launches=1)
    assert chipless.torch.stats("tpu")["relayouts"] == 0
    close(got, want, 2e-4, 2e-4)


def test_batched_matmul_on_the_tpu():
    a, b = torch.randn(3, 20, 64), torch.randn(3, 64, 30)
    close(runs_on_device("tpu", torch.bmm, a, b, launches=1), torch.bmm(a, b), 2e-4, 2e-4)


def test_ops_on_views_copy_the_view_first():
    x = torch.randn(20, 300)
    got = runs_on_device("tpu", lambda t: torch.exp(t[5:15, 10:200]), x)
    assert chipless.torch.stats("tpu")["relayouts"] == 1
    close(got, torch.exp(x[5:15, 10:200]), 1e-5, 1e-6)


def test_in_place_ops_write_into_their_tensor():
    x, y = torch.randn(8, 128), torch.randn(8, 128)
    d, e = x.to("tpu"), y.to("tpu")
    storage = torch.ops.chipless.storage_info(d)[0]
    d.mul_(0.5).add_(e, alpha=2).relu_()
    assert torch.ops.chipless.storage_info(d)[0] == storage
    close(d, (x * 0.5 + 2 * y).relu(), 1e-6, 1e-6)
    view = d[2:4]
    view.add_(1.0)  # a view: computed apart, then copied into place
    close(d, torch.cat([(x * 0.5 + 2 * y).relu()[:2], (x * 0.5 + 2 * y).relu()[2:4] + 1,
                        (x * 0.5 + 2 * y).relu()[4:]]), 1e-6, 1e-6)


def test_a_program_is_compiled_once_per_signature():
    a = torch.randn(12, 140).to("tpu")
    for scale in (0.5, 2.0, -1.0):   # the scalar is an argument, not part of the program
        a * scale
    s = chipless.torch.stats("tpu")
    assert s["launches"] == 3 and s["compiles"] + s["program_hits"] == 3
    assert s["program_hits"] >= 2


COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
           "ge": torch.ge}


#: the element type of each device's float tensors in these tests
FLOAT = {"tpu": torch.float32, "spyre": torch.float16}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
@pytest.mark.parametrize("name", sorted(COMPARE))
def test_comparisons_give_booleans_nan_as_pytorch_compares_it(device, name):
    """A boolean is i8 on the TPU and 0 or 1 in f16 on Spyre (its compilers keep no i8)."""
    a = torch.randn(5, 140).round().to(FLOAT[device])
    b = torch.randn(5, 140).round().to(FLOAT[device])
    a[0, :3] = float("nan")
    for other in (b, b[0], 0.0):  # a tensor, a broadcast row, a number
        got = runs_on_device(device, lambda x: COMPARE[name](x, other if isinstance(
            other, float) else other.to(device)), a, launches=1)
        assert got.dtype == torch.bool and torch.equal(got.cpu(), COMPARE[name](a, other))


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_where_and_masked_fill_select_by_a_boolean_tensor(device):
    """Booleans copied from the host (and back), then read by where and masked_fill."""
    x, y = (torch.randn(2, 8, 130).to(FLOAT[device]) for _ in range(2))
    keep = torch.randn(8, 130) > 0
    assert torch.equal(keep.to(device).cpu(), keep)
    got = runs_on_device(device, lambda c, a, b: torch.where(c, a, b), keep, x, y, launches=1)
    assert torch.equal(got.cpu(), torch.where(keep, x, y))
    causal = torch.ones(8, 8).triu(1).bool()
    scores = torch.randn(2, 8, 8).to(FLOAT[device])
    got = runs_on_device(device, lambda s, m: s.masked_fill(m, float("-inf")), scores, causal,
                         launches=1)
    assert torch.equal(got.cpu(), scores.masked_fill(causal, float("-inf")))
    d = scores.to(device)
    d.masked_fill_(causal.to(device), 0.5)
    assert torch.equal(d.cpu(), scores.masked_fill(causal, 0.5))


MATMULS = {  # (c, a, b) -> an op that multiplies a and b and adds c
    "addmm": lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=-2),
    "addmm_beta0": lambda c, a, b: torch.addmm(c * float("nan"), a, b, beta=0),
    "baddbmm": lambda c, a, b: torch.baddbmm(c[None], torch.stack([a, -a, a]),
                                             torch.stack([b, b, -b]), beta=0.25, alpha=1.5),
    "mv": lambda c, a, b: torch.mv(a, b[:, 0].contiguous()),
    "addmv": lambda c, a, b: torch.addmv(c[:, 0].contiguous(), a, b[:, 0].contiguous(),
                                         beta=2, alpha=0.5),
    "dot": lambda c, a, b: torch.dot(a[0].contiguous(), b[:, 1].contiguous()),
}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
@pytest.mark.parametrize("name", sorted(MATMULS))
def test_scaled_and_vector_matmuls(device, name):
    """addmm and baddbmm with beta and alpha (beta 0 does not read c: its NaN stay out), mv,
    addmv and dot (the vectors as one-row and one-column matrices): on the device."""
    dtype, tol = (torch.float32, 1e-3) if device == "tpu" else (torch.float16, 3e-2)
    c, a, b = (torch.randn(*s).to(dtype) for s in ((20, 70), (20, 96), (96, 70)))
    got = runs_on_device(device, MATMULS[name], c, a, b)
    want = MATMULS[name](c.float(), a.float(), b.float())
    assert got.shape == want.shape
    close(got, want, tol, 10 * tol)


LOGICAL = {"not": lambda a, b: torch.logical_not(a), "and": torch.logical_and,
           "or": torch.logical_or, "xor": torch.logical_xor, "~": lambda a, b: ~a,
           "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
           "and_": lambda a, b: a.clone().logical_and_(b), "|=": lambda a, b: a.clone().__ior__(b)}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
@pytest.mark.parametrize("name", sorted(LOGICAL))
def test_logical_ops_of_booleans(device, name):
    """logical_not/and/or/xor and the bitwise ops of booleans, in place too, with a row
    broadcast: each one program."""
    a, b = torch.randn(6, 130) > 0, torch.randn(130) > 0
    got = runs_on_device(device, LOGICAL[name], a, b)
    assert got.dtype == torch.bool and torch.equal(got.cpu(), LOGICAL[name](a, b))


def test_spyre_booleans_by_the_type_of_the_operands():
    """Spyre's SFU computes one element type per op: bf16 compares and selects into the f16
    of a boolean on the device; an f32 comparison selects its 1 or 0 in f32 and narrows it
    to the f16 boolean (sfu.cvt), and an f16 boolean choosing between f32 values is widened
    first. Nothing on the CPU."""
    a, b = torch.randn(4, 64).bfloat16(), torch.randn(4, 64).bfloat16()
    got = runs_on_device("spyre", lambda x, y: torch.where(x > y, x, y), a, b, launches=2)
    assert torch.equal(got.cpu(), torch.where(a > b, a, b))
    a, b = torch.randn(4, 70), torch.randn(4, 70)
    got = runs_on_device("spyre", lambda x, y: torch.where(x > y, x, y), a, b, launches=2)
    assert torch.equal(got.cpu(), torch.where(a > b, a, b))
    got = runs_on_device("spyre", lambda x: x > 0, a)
    assert got.dtype == torch.bool and torch.equal(got.cpu(), a > 0)


CASTS = [(torch.float32, torch.float16), (torch.float16, torch.float32),
         (torch.bfloat16, torch.float16), (torch.float32, torch.bfloat16)]


@pytest.mark.parametrize("device", ["tpu", "spyre"])
@pytest.mark.parametrize("a,b", CASTS, ids=[f"{a}-{b}".replace("torch.", "") for a, b in CASTS])
def test_an_operand_of_another_float_type_is_converted_on_the_device(device, a, b):
    """x + y of two float types: an operand not of the promoted type is converted by a
    program of its own (extf/truncf; between f16 and bf16 by way of f32), not through the
    host, then added. The result is the CPU's bit for bit."""
    if device == "tpu" and torch.float16 in (a, b):
        pytest.skip("the TPU has no f16 arithmetic: its f16 is cast through the host")
    x, y = torch.randn(4, 70).to(a), torch.randn(4, 70).to(b)
    dx, dy = x.to(device), y.to(device)
    promoted = torch.promote_types(a, b)
    before = chipless.torch.stats(device)
    got = dx + dy
    after = chipless.torch.stats(device)
    casts = (a != promoted) + (b != promoted)
    assert after["launches"] - before["launches"] == 1 + casts
    assert after["link_bytes_in"] == before["link_bytes_in"]
    assert after["link_bytes_out"] == before["link_bytes_out"]
    assert chipless.torch.fallback_counts() == {}
    assert got.dtype == torch.promote_types(a, b) and torch.equal(got.cpu(), x + y)


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_explicit_casts_run_on_the_device(device):
    """.bfloat16(), .float(), .to(dtype) of a device tensor: a conversion program each,
    nothing over the host link, the CPU's values bit for bit; a non-contiguous view and a
    copy to the host or to the other device still go as before."""
    x = torch.randn(6, 70)
    d = x.to(device)
    before = chipless.torch.stats(device)
    b = d.bfloat16()
    f = b.to(torch.float32)
    after = chipless.torch.stats(device)
    assert (b.dtype, f.dtype, b.device, f.device) == (torch.bfloat16, torch.float32, d.device,
                                                      d.device)
    assert after["launches"] - before["launches"] == 2
    assert after["link_bytes_in"] == before["link_bytes_in"]
    assert after["link_bytes_out"] == before["link_bytes_out"]
    assert torch.equal(f.cpu(), x.bfloat16().float())
    assert torch.equal(d.t().bfloat16().cpu(), x.t().bfloat16())
    other = "spyre" if device == "tpu" else "tpu"
    assert torch.equal(d.to(other).cpu(), x) and d.to("cpu").dtype == torch.float32
    assert chipless.torch.fallback_counts() == {}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_casts_of_permuted_views_run_on_the_device(device):
    """.bfloat16() / .float() of a transposed or permuted device tensor: converted in its
    memory order on the device and given back its strides (preserve_format), nothing over
    the host link; with memory_format=torch.contiguous_format, made contiguous first (on
    the device where the chip re-lays that view out: not the TPU's [2, 0, 1])."""
    x = torch.randn(5, 64, 96)
    d = x.to(device)
    for view, ref, relaid in ((d.transpose(1, 2), x.transpose(1, 2), True),
                              (d.permute(2, 0, 1), x.permute(2, 0, 1), device == "spyre")):
        before = chipless.torch.stats(device)
        b = view.bfloat16()
        f = b.float()
        after = chipless.torch.stats(device)
        assert after["launches"] - before["launches"] == 2
        assert after["link_bytes_in"] == before["link_bytes_in"]
        assert after["link_bytes_out"] == before["link_bytes_out"]
        c = view.to(torch.bfloat16, memory_format=torch.contiguous_format)
        if relaid:
            assert chipless.torch.stats(device)["link_bytes_in"] == before["link_bytes_in"]
        assert b.stride() == ref.bfloat16().stride() and b.dtype == torch.bfloat16
        assert c.is_contiguous()
        assert torch.equal(f.cpu(), ref.bfloat16().float())
        assert torch.equal(c.cpu(), ref.bfloat16())
    assert chipless.torch.fallback_counts() == {}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_a_copy_between_tensors_of_one_device_runs_on_the_device(device):
    """dst.copy_(src) into a whole device tensor: a copy program writes dst in place, src
    read as it lies (a transposed view), broadcast and converted between float types, nothing
    over the host link; a copy into a view still goes through the host."""
    x = torch.randn(64, 96)
    d = x.to(device)
    dst = torch.empty(64, 96, device=device)
    storage = dst.data_ptr()
    cases = ((dst, d, x),
             (torch.empty(96, 64, device=device), d.t(), x.t()),
             (torch.empty(3, 64, 96, device=device), d, x.expand(3, 64, 96)),
             (torch.empty(64, 96, device=device, dtype=torch.bfloat16), d,
              x.to(torch.bfloat16)))
    if device == "spyre":  # the TPU has no float16 arithmetic: that copy is the host's
        cases += ((torch.empty(64, 96, device=device, dtype=torch.float16), d, x.half()),)
    for out, src, ref in cases:
        before = chipless.torch.stats(device)
        assert out.copy_(src) is out
        after = chipless.torch.stats(device)
        assert after["launches"] - before["launches"] == 1
        assert (after["link_bytes_in"], after["link_bytes_out"]) == \
            (before["link_bytes_in"], before["link_bytes_out"])
        assert torch.equal(out.cpu(), ref)
    assert dst.data_ptr() == storage
    # into a view of a tensor: through the host, as before
    whole = torch.zeros(64, 96, device=device)
    before = chipless.torch.stats(device)
    whole[:, 8:16].copy_(d[:, :8])
    assert chipless.torch.stats(device)["link_bytes_in"] > before["link_bytes_in"]
    expected = torch.zeros(64, 96)
    expected[:, 8:16] = x[:, :8]
    assert torch.equal(whole.cpu(), expected)
    # from its own storage (which a program would overwrite while reading): the host's
    square = torch.randn(64, 64)
    s = square.to(device)
    s.copy_(s.t())
    assert torch.equal(s.cpu(), square.t())
    assert chipless.torch.fallback_counts() == {}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_a_causal_mask_made_by_comparison_matches_the_cpu(device):
    dtype = FLOAT[device]
    scores = torch.randn(4, 64, 64).to(dtype)
    position = torch.arange(64, dtype=dtype)
    later = position[None, :] > position[:, None]

    def masked_softmax(s, p):
        return torch.softmax(s.masked_fill(p[None, :] > p[:, None], float("-inf")), -1)
    got = runs_on_device(device, masked_softmax, scores, position)
    want = torch.softmax(scores.float().masked_fill(later, float("-inf")), -1)
    close(got, want, 1e-2 if device == "spyre" else 1e-5, 1e-3 if device == "spyre" else 1e-6)


CONVOLUTIONS = [  # (batch, channels, height, width, filters, kernel, stride, padding, dilation)
    (1, 8, 16, 16, 16, 3, 1, 1, 1), (2, 3, 15, 13, 8, 3, 2, 0, 1),
    (1, 64, 14, 14, 64, 3, 1, 1, 1), (1, 3, 32, 32, 64, 7, 2, 3, 1),
    (1, 16, 12, 12, 8, 3, 1, 2, 2)]


@pytest.mark.parametrize("n,c,h,w,f,k,s,p,d", CONVOLUTIONS)
def test_convolutions_on_spyre_unfold_into_a_matmul(n, c, h, w, f, k, s, p, d):
    x = torch.randn(n, c, h, w).half()
    weight = (torch.randn(f, c, k, k) * 0.2).half()
    bias = torch.randn(f).half() if p else None
    # the filters laid out as the unfold's matmul reads them (kept with the weight), then the
    # convolution; again with the same weight, the convolution alone
    rest = [bias.to("spyre")] if bias is not None else []
    wd = weight.to("spyre")
    conv = lambda a: F.conv2d(a, wd, *rest, stride=s, padding=p, dilation=d)  # noqa: E731
    got = runs_on_device("spyre", conv, x, launches=2)
    again = runs_on_device("spyre", conv, x, launches=1)
    assert torch.equal(got.cpu(), again.cpu())
    want = F.conv2d(x.float(), weight.float(), None if bias is None else bias.float(),
                    stride=s, padding=p, dilation=d)
    close(got, want, 1e-2, 2e-3 * want.abs().max().item())


@pytest.mark.parametrize("device", ["tpu", "spyre"])
@pytest.mark.parametrize("n,c,h,w,f,k,s,p,d", CONVOLUTIONS + [
    (2, 3, 8, 9, 4, 3, 1, 1, 1), (2, 16, 6, 6, 8, 1, 1, 0, 1), (1, 3, 12, 12, 8, 5, 1, 0, 1)])
def test_convolution_gradients_on_the_device(device, n, c, h, w, f, k, s, p, d):
    """convolution_backward as convolutions on the device: the filters' gradient (on the
    TPU a convolution of the image, its channels as its batch, by the output gradient; on
    Spyre the image unfolded by a convolution of ones and zeros, times the output
    gradient), the bias's (sums per channel), and the input's (the output gradient, spread
    to stride 1 when strided, by the flipped filters)."""
    dtype, tol = (torch.float32, 1e-4) if device == "tpu" else (torch.float16, 2e-3)
    x = torch.randn(n, c, h, w).to(dtype)
    weight, bias = (torch.randn(f, c, k, k) * 0.2).to(dtype), torch.randn(f).to(dtype)
    xd, wd, bd = (t.to(device).requires_grad_() for t in (x, weight, bias))
    got = F.conv2d(xd, wd, bd, stride=s, padding=p, dilation=d)
    xc, wc, bc = (t.float().clone().requires_grad_() for t in (x, weight, bias))
    want = F.conv2d(xc, wc, bc, stride=s, padding=p, dilation=d)
    grad = torch.randn_like(want).to(dtype)
    got.backward(grad.to(device))
    want.backward(grad.float())
    for a, b in ((xd, xc), (wd, wc), (bd, bc)):  # each within its largest magnitude's share
        close(a.grad, b.grad, tol, tol * b.grad.abs().max().item())
    # nothing on the CPU: on Spyre the filters' gradient of 64 x 64 x 3 x 3 and of ResNet's
    # 64 x 3 x 7 x 7 stem is re-laid out into [F, C, KH, KW] in runs of F x C matrices
    assert chipless.torch.stats(device)["cpu_ops"] == {}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward(device, approximate):
    dtype, tol = (torch.float32, 1e-5) if device == "tpu" else (torch.float16, 2e-2)
    x, grad = torch.randn(64, 300, dtype=dtype) * 2, torch.randn(64, 300, dtype=dtype)
    got = runs_on_device(device, lambda g, v: torch.ops.aten.gelu_backward(
        g, v, approximate=approximate), grad, x, launches=1)
    want = torch.ops.aten.gelu_backward(grad.float(), x.float(), approximate=approximate)
    close(got, want, tol, tol)


@pytest.mark.parametrize("value", [0.0, -2.5])
def test_spyre_fills_and_zeroes_in_place(value):
    x = torch.randn(64, 256, dtype=torch.float16)
    got = runs_on_device("spyre", lambda t: t.fill_(value) if value else t.zero_(), x,
                         launches=1)
    close(got, torch.full_like(x, value), 0, 0)


#: (shape, dim): along the last dimension, and along others, which are transposed there first
SOFTMAX_CASES = [((4, 100), -1), ((2, 3, 70), -1), ((7,), 0), ((1, 1), 0), ((4, 100), 0),
                 ((2, 3, 70), 1), ((2, 3, 70), 0), ((2, 3, 5, 40), 1), ((2, 3, 5, 40), 0)]


@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES)
@pytest.mark.parametrize("fn", [F.log_softmax, F.softmax], ids=["log_softmax", "softmax"])
@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_softmax_log_softmax_and_their_gradients_on_the_device(shape, dim, fn, device):
    """Per row of the dimension: log_softmax x - max - log(sum(exp(x - max))) and its gradient
    grad - exp(out) * sum(grad); softmax's gradient out * (grad - sum(grad * out)). Another
    dimension than the last is brought there first, and back (on the TPU: next to the last,
    then swapped with it). One program each, nothing on the CPU (log_softmax is
    cross-entropy's first half)."""
    torch.manual_seed(0)
    dtype, tol = (torch.float16, 2e-2) if device == "spyre" else (torch.float32, 1e-5)
    x, g = (torch.randn(*shape) * 3).to(dtype), torch.randn(*shape).to(dtype)
    xd = x.to(device).requires_grad_()
    y = fn(xd, dim)
    y.backward(g.to(device))
    xc = x.float().requires_grad_()
    fn(xc, dim).backward(g.float())
    close(y.detach(), fn(x.float(), dim), tol, tol)
    close(xd.grad, xc.grad, tol, 2 * tol)
    assert chipless.torch.fallback_counts() == {}
    assert chipless.torch.stats(device)["launches"] == 2


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_a_masked_softmax_along_the_first_dimension_keeps_its_infinities(device):
    """A mask's -inf along a dimension that is not the last: Spyre swaps it with the last by
    DMA; the TPU's transposes on the MXU move infinities apart from the product (inf x 0
    would be NaN). Both exact, on the device."""
    dtype = torch.float16 if device == "spyre" else torch.float32
    x = torch.tensor([[-math.inf, 1.0, 2.0], [2.0, -math.inf, 3.0], [0.5, 0.25, -math.inf]])
    x = x.to(dtype)
    for fn in (torch.softmax, torch.log_softmax):
        got = fn(x.to(device), 0).cpu().float()
        torch.testing.assert_close(got, fn(x.float(), 0), rtol=2e-2, atol=2e-2)
    assert chipless.torch.fallback_counts() == {}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_a_number_an_op_reads_is_uploaded_once_and_kept_per_value(device):
    dtype = torch.float16 if device == "spyre" else torch.float32
    x = torch.rand(8, 96, dtype=dtype) + 0.5
    d = x.to(device)
    scalar_rows.clear()
    chipless.torch.reset_stats()
    close((d * 0.375).cpu(), x * 0.375, 0, 0)
    first = chipless.torch.stats(device)["link_bytes_in"]
    assert first > 0  # the row of 0.375s went over the link
    chipless.torch.reset_stats()
    close((d * 0.375).cpu(), x * 0.375, 0, 0)
    assert chipless.torch.stats(device)["link_bytes_in"] == 0  # kept from the first call
    # kept per value: another number (and -0.0 apart from 0.0) is a row of its own
    close((d * 0.25).cpu(), x * 0.25, 0, 0)
    assert chipless.torch.stats(device)["link_bytes_in"] == first
    assert torch.signbit((d * 0.0).cpu()).sum() == 0
    assert torch.signbit((d * -0.0).cpu()).all()


@pytest.mark.parametrize("defer", [False, True])
def test_item_reads_the_value_over_the_link_and_is_not_a_cpu_op(defer):
    x = torch.randn(4, 64)
    chipless.torch.set_defer_and_fuse(defer)
    try:
        value = (x.to("tpu") * 2).mean(-1).mean(-1).item()
    finally:
        chipless.torch.set_defer_and_fuse(False)
    assert value == pytest.approx(float((x * 2).mean()), rel=1e-5, abs=1e-5)
    assert chipless.torch.fallback_counts() == {}
    assert chipless.torch.stats("tpu")["link_bytes_out"] > 0


def test_ops_without_a_lowering_run_on_the_cpu_and_are_counted():
    x = torch.randn(6, 130)
    got = torch.cumsum(x.to("tpu"), dim=1)
    assert got.is_tpu
    close(got, torch.cumsum(x, dim=1), 1e-6, 1e-5)
    assert chipless.torch.fallback_counts() == {"aten::cumsum.out": 1}


def test_float16_ops_the_cpu_has_no_float16_kernel_for_run_in_float32_and_round_back():
    # 1.13's CPU has no float16 cumsum or cumprod: the fallback computes them in float32
    x = torch.randn(6, 130).half()
    got = torch.cumsum(x.to("spyre"), dim=1)
    assert got.is_spyre and got.dtype == torch.float16
    assert torch.equal(got.cpu(), torch.cumsum(x.float(), dim=1).half())
    # an op writing its argument (in place) updates the device tensor, still float16
    d = x.to("spyre")
    d.cumprod_(1)
    assert d.dtype == torch.float16 and torch.equal(d.cpu(), x.float().cumprod(1).half())
    # asking for float32 keeps float32
    assert torch.cumsum(x.to("spyre"), 1, dtype=torch.float32).dtype == torch.float32
    # out= tensors the CPU kernel resizes (median's values and indices) are resized on the
    # device too
    values, indices = torch.median(x.to("spyre"), 1)
    want = torch.median(x.float(), 1)
    assert torch.equal(values.cpu(), want.values.half()) and values.dtype == torch.float16
    assert torch.equal(indices.cpu(), want.indices)
    assert chipless.torch.fallback_counts()["aten::cumsum.out"] >= 2


def test_indexing_with_a_device_index_tensor_runs_on_the_cpu():
    x = torch.randn(10, 130)
    idx = torch.tensor([3, 0, 7])
    got = x.to("tpu")[idx.to("tpu")]
    assert got.is_tpu
    assert torch.equal(got.cpu(), x[idx])
    mask = x[:, 0] > 0
    assert torch.equal(x.to("tpu")[mask.to("tpu")].cpu(), x[mask])


def test_strict_mode_makes_a_cpu_fallback_an_error():
    d = torch.randn(4, 128).to("tpu")
    chipless.torch.set_strict(True)
    with pytest.raises(RuntimeError, match="aten::cumsum.*strict mode"):
        torch.cumsum(d, dim=1)
    with pytest.raises(chipless.ChiplessError, match="sum.*strict mode"):
        d.sum(0, dtype=torch.bfloat16)  # a sum into another dtype: not lowered
    close(torch.exp(d), torch.exp(d.cpu()), 1e-5, 1e-6)  # lowered ops still run


def test_unary_and_matmul_ops_on_spyre_in_f16():
    x, w = torch.randn(64, 256).half(), (torch.randn(256, 128) * 0.1).half()
    f16 = dict(rtol=1e-2, atol=1e-2)
    close(runs_on_device("spyre", lambda t: torch.exp(t * 0.25), x), torch.exp(x.float() * 0.25),
          **f16)
    close(runs_on_device("spyre", torch.mm, x, w, launches=1), x.float() @ w.float(), **f16)
    close(runs_on_device("spyre", lambda t: torch.softmax(t, -1), x, launches=1),
          torch.softmax(x.float(), -1), **f16)


def test_launches_are_deterministic(tmp_path):
    # two fresh processes: the same values and the same cycles (cycles depend on where the
    # tensors lie in HBM, so one process's allocations change a second run's)
    program = ("import hashlib, torch, chipless.torch, torch.nn.functional as F\n"
               "torch.manual_seed(0)\n"
               "x = torch.randn(32, 200)\n"
               "out = F.gelu(x.to('tpu') @ torch.ones(200, 64, device='tpu')).cpu()\n"
               "print(hashlib.sha256(out.numpy().tobytes()).hexdigest(),\n"
               "      chipless.torch.stats('tpu')['cycles'])\n")
    runs = [subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           check=True, env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR),
                                                   CHIPLESS_LOCK_DIR=str(tmp_path)))
            for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and float(runs[0].stdout.split()[1]) > 0