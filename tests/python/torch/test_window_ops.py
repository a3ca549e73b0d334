"""Pooling, batch normalisation (inference and training forms), concatenation, row gathers
(embedding lookups) and reductions over any dimensions on the emulated devices against the
CPU: on Spyre through its front end's window, concat and gather kernels; on the TPU
concatenation (each part written into its slice), repeat_interleave (a broadcast view),
pooling (maxima or sums over strided slices), batch normalisation, convolutions (matmuls
over the taps' strided slices) and row gathers (a DMA per row); grouped convolutions there on
the CPU, counted, or an error in strict mode. Also PyTorch's semantics where they are
subtle: max pooling under autograd, and the running statistics a batch norm in training
form updates."""
import pytest
import torch
import torch.nn.functional as F

import chipless.torch
from torch_checks import close

H = torch.float16


def on_device(device, fn, *args, launches=1):
    """fn on `device` copies of args, checked to run as `launches` programs, nothing on the
    CPU; the CPU's result of fn on the float32 values."""
    before = chipless.torch.stats(device)["launches"]
    with torch.no_grad():
        got = fn(*[a.to(device) for a in args])
    chipless.torch.synchronize()
    stats = chipless.torch.stats(device)
    assert stats["cpu_ops"] == {} and chipless.torch.fallback_counts() == {}, stats
    assert stats["launches"] - before == launches
    want = fn(*[a.float() if a.is_floating_point() else a for a in args])
    return got, want


def on_spyre(fn, *args, launches=1):
    return on_device("spyre", fn, *args, launches=launches)


@pytest.mark.parametrize("kind,k,s,p", [("max", 2, 2, 0), ("max", 3, 2, 1), ("max", 3, 1, 1),
                                        ("avg", 2, 2, 0), ("avg", 3, 1, 1), ("avg", 3, 2, 1)])
def test_pooling(kind, k, s, p):
    x = torch.randn(2, 24, 13, 11, dtype=H)
    pool = F.max_pool2d if kind == "max" else F.avg_pool2d
    got, want = on_spyre(lambda t: pool(t, k, s, p), x)
    close(got, want, rtol=0 if kind == "max" else 1e-2, atol=0 if kind == "max" else 2e-3)


@pytest.mark.parametrize("kind,k,s,p", [("max", 2, 2, 0), ("max", 3, 2, 1), ("max", 3, 1, 1),
                                        ("avg", 2, 2, 0), ("avg", 3, 1, 1), ("avg", 3, 2, 1)])
def test_tpu_pooling(kind, k, s, p):
    """tpu-compile pads with concatenations and pools with a chain of maxima (sums) over the
    window's strided slices of the NHWC image: one program, the maxima exact."""
    x = torch.randn(2, 24, 13, 16)
    pool = F.max_pool2d if kind == "max" else F.avg_pool2d
    got, want = on_device("tpu", lambda t: pool(t, k, s, p), x)
    close(got, want, rtol=0 if kind == "max" else 1e-6, atol=0 if kind == "max" else 1e-6)


def test_tpu_adaptive_average_pooling_and_a_negative_max():
    x = torch.randn(2, 16, 8, 24)
    got, want = on_device("tpu", lambda t: F.adaptive_avg_pool2d(t, (2, 8)), x)
    close(got, want, rtol=1e-6, atol=1e-6)
    x = -torch.rand(1, 64, 16, 16) - 1  # (outputs in rows of 8 f32: whole DMA runs)
    got, want = on_device("tpu", lambda t: F.max_pool2d(t, 3, 2, 1), x)
    close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("shape", [(2, 4, 6, 6), (1, 16, 7, 7), (1, 8, 14, 14)])
def test_tpu_pooling_of_images_whose_rows_are_not_whole_dma_runs(shape):
    """Rows of 6, 7 or 14 f32 are not whole 32-byte DMA runs: NCHW to NHWC does not merge H
    and W (it swaps the last two dimensions of [N, H, C, W]), so these pool on the chip."""
    x = torch.randn(*shape)
    got, want = on_device("tpu", lambda t: F.max_pool2d(t, 2), x)
    close(got, want, rtol=0, atol=0)


def test_max_pooling_of_negative_values_never_takes_the_padding():
    x = -torch.rand(1, 64, 8, 8, dtype=H) - 1
    got, want = on_spyre(lambda t: F.max_pool2d(t, 3, 2, 1), x)
    close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("size", [1, (2, 3)])
def test_adaptive_average_pooling_to_whole_divisions(size):
    x = torch.randn(2, 16, 8, 6, dtype=H)
    got, want = on_spyre(lambda t: F.adaptive_avg_pool2d(t, size), x)
    close(got, want, rtol=1e-2, atol=2e-3)


def test_max_pooling_under_autograd_keeps_its_gradient():
    """Where a gradient flows through x, max pooling runs as max_pool2d_with_indices (on the
    CPU: the indices its backward needs); the gradient matches the CPU's."""
    x = torch.randn(1, 4, 6, 6)
    xd = x.to("tpu").requires_grad_()
    F.max_pool2d(xd, 2).sum().backward()
    xc = x.clone().requires_grad_()
    F.max_pool2d(xc, 2).sum().backward()
    close(xd.grad, xc.grad, rtol=0, atol=0)
    assert chipless.torch.fallback_counts().get("aten.max_pool2d_with_indices.default") == 1


@pytest.mark.parametrize("shape", [(2, 24, 9, 7), (1, 24, 9, 7), (3, 24, 10), (1, 24, 10),
                                   (5, 24), (1, 24)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("device", ["spyre", "tpu"])
def test_batch_norm_in_inference_form(shape, affine, device):
    c = shape[1]
    dtype, tol = (H, 2e-2) if device == "spyre" else (torch.float32, 1e-5)
    mean, var = torch.randn(c, dtype=dtype), torch.rand(c, dtype=dtype) + 0.5
    weight, bias = torch.randn(c, dtype=dtype), torch.randn(c, dtype=dtype)
    x = torch.randn(*shape, dtype=dtype) * 2 + 1
    if affine:
        got, want = on_device(device, lambda t, m, v, w, b: F.batch_norm(t, m, v, w, b, False,
                                                                         0.1, 1e-5),
                              x, mean, var, weight, bias)
    else:
        got, want = on_device(device, lambda t, m, v: F.batch_norm(t, m, v, None, None, False,
                                                                   0.1, 1e-5),
                              x, mean, var)
    close(got, want, rtol=tol, atol=tol)


def batch_norms(shape, affine, device):
    """(the CPU's BatchNorm1d or 2d over shape[1] channels, with a weight and bias other than
    1 and 0 when affine; the device's copy of it in the device's dtype; that dtype; the
    tolerance)."""
    dtype, tol = (torch.float32, 1e-4) if device == "tpu" else (H, 3e-2)
    c = shape[1]
    kind = torch.nn.BatchNorm2d if len(shape) == 4 else torch.nn.BatchNorm1d
    cpu = kind(c, affine=affine)
    if affine:
        cpu.weight.data.uniform_(0.5, 1.5)
        cpu.bias.data.uniform_(-0.5, 0.5)
    dev = kind(c, affine=affine).to(dtype)
    dev.load_state_dict(cpu.state_dict())
    return cpu, dev.to(device), dtype, tol


@pytest.mark.parametrize("shape", [(2, 4, 3, 3), (8, 6), (3, 5, 10), (2, 16, 8, 8)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_batch_norm_in_training_form_updates_the_running_statistics(shape, affine, device):
    """On the device: the batch's statistics and y in one program, then the running ones
    moved in the device's own tensors (1.13's schema does not declare that write). The
    module's int64 batch counter is added to on the TPU (i32 arithmetic), on the CPU for
    Spyre (its front end has no integer arithmetic)."""
    torch.manual_seed(0)
    cpu, dev, dtype, tol = batch_norms(shape, affine, device)
    x = (torch.randn(*shape) * 2 + 3).to(dtype)
    got = dev(x.to(device))
    want = cpu(x.float())
    close(got, want, rtol=tol, atol=tol)
    close(dev.running_mean, cpu.running_mean, rtol=tol, atol=tol)
    close(dev.running_var, cpu.running_var, rtol=tol, atol=tol)
    assert int(dev.num_batches_tracked.cpu()) == 1
    assert chipless.torch.fallback_counts() == ({} if device == "tpu" else
                                                {"aten.add_.Tensor": 1})  # the batch counter


@pytest.mark.parametrize("shape", [(2, 4, 3, 3), (8, 6), (3, 5, 10), (2, 16, 8, 8),
                                   (1, 24, 9, 7)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_batch_norm_gradients_on_the_device(shape, affine, training, device):
    """native_batch_norm_backward in one program: the input's gradient, and the weight's and
    bias's (sums per channel), in training form (the batch's statistics) and inference form
    (the running ones), against the CPU's from the same rounded inputs."""
    cpu, dev, dtype, tol = batch_norms(shape, affine, device)
    statistics = (torch.rand(shape[1]) * 2 - 1, torch.rand(shape[1]) * 1.5 + 0.5)
    for module in (cpu, dev):
        module.running_mean.copy_(statistics[0])
        module.running_var.copy_(statistics[1])
        module.train(training)
    x = (torch.randn(*shape) * 2 + 1).to(dtype)
    upstream = torch.randn(*shape).to(dtype)
    xd, xc = x.to(device).requires_grad_(), x.float().requires_grad_()
    dev(xd).backward(upstream.to(device))
    cpu(xc).backward(upstream.float())
    close(xd.grad, xc.grad, rtol=tol, atol=tol)
    if affine:
        count = x.numel() // shape[1]  # the parameters' gradients: sums of this many products
        close(dev.weight.grad, cpu.weight.grad, rtol=tol, atol=tol * count ** 0.5)
        close(dev.bias.grad, cpu.bias.grad, rtol=tol, atol=tol * count ** 0.5)
    assert "aten.native_batch_norm_backward.default" not in chipless.torch.fallback_counts()
    assert chipless.torch.stats(device)["cpu_ops"].keys() <= {"aten.add_.Tensor"}


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_normalising_an_empty_batch_gives_an_empty_result_not_a_crash(device):
    """group_norm of an empty batch reaches batch_norm over [1, 0, -1], on which PyTorch
    1.13's CPU kernel divides by zero (SIGFPE); the devices compute it without that kernel,
    as the CPU computes what it can: empty results, NaN batch statistics."""
    dtype = torch.float32 if device == "tpu" else H
    w, b = torch.ones(2, dtype=dtype), torch.zeros(2, dtype=dtype)
    got = F.group_norm(torch.randn(0, 2, dtype=dtype).to(device), 1, w.to(device), b.to(device))
    assert got.is_tpu if device == "tpu" else got.is_spyre
    assert tuple(got.shape) == (0, 2)
    x = torch.randn(2, 3, 0, dtype=dtype)
    mean, var = torch.zeros(3, dtype=dtype), torch.ones(3, dtype=dtype)
    dmean, dvar = mean.to(device), var.to(device)
    # the CPU's copies in float32 (it has no float16 kernel); each side updates its own
    cmean, cvar = mean.float().clone(), var.float().clone()
    want = torch.native_batch_norm(x.float(), None, None, cmean, cvar, True, 0.1, 1e-5)
    got = torch.native_batch_norm(x.to(device), None, None, dmean, dvar, True, 0.1, 1e-5)
    assert [tuple(t.shape) for t in got] == [tuple(t.shape) for t in want]
    for g, w in [(got[1], want[1]), (got[2], want[2]), (dmean, cmean), (dvar, cvar)]:
        torch.testing.assert_close(g.cpu().float(), w.float(), rtol=1e-3, atol=1e-3,
                                   equal_nan=True)
    for shape in [(0, 3, 2), (1, 0, 2)]:  # the shapes the CPU's own kernel dies on
        got = torch.native_batch_norm(torch.randn(shape, dtype=dtype).to(device), None, None,
                                      None, None, True, 0.1, 1e-5)
        assert [tuple(t.shape) for t in got] == [shape, (shape[1],), (shape[1],)]
    assert chipless.torch.fallback_counts() == {}


class ResidualBlock(torch.nn.Module):
    """ResNet's basic block: two 3x3 convolutions, batch norms and ReLUs with the input added
    back, then a max pooling; its ops between the convolutions are NCHW."""

    def __init__(self, c):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.conv2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1, self.bn2 = torch.nn.BatchNorm2d(c), torch.nn.BatchNorm2d(c)
        for bn in (self.bn1, self.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.5, 0.5)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.max_pool2d(F.relu(self.bn2(self.conv2(y)) + x), 2)


def test_a_deferred_tpu_residual_block_matches_the_cpu_in_one_program():
    # tpu-compile drops the NCHW/NHWC changes of layout between the convolutions (the batch
    # norms and ReLUs run on NHWC): the numbers must stay the CPU's
    torch.manual_seed(0)
    block = ResidualBlock(16).eval()
    x = torch.randn(2, 16, 12, 12)
    with torch.no_grad():
        want = block(x)
        device_block = block.to("tpu")
        chipless.torch.set_defer_and_fuse(True)
        try:
            for _ in range(2):  # the first call also lays out the filters (kept)
                before = chipless.torch.stats("tpu")["launches"]
                got = device_block(x.to("tpu"))
                chipless.torch.synchronize()
        finally:
            chipless.torch.set_defer_and_fuse(False)
    stats = chipless.torch.stats("tpu")
    # one program, compiled as recorded (a refused graph is retried in parts)
    assert stats["launches"] - before == 1 and stats["cpu_ops"] == {}, stats
    assert stats["refused"] == {}, stats["refused"]
    close(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dim,shapes", [(1, [(2, 5, 70), (2, 3, 70)]),
                                        (-1, [(4, 64), (4, 100), (4, 28)]),
                                        (0, [(3, 40), (5, 40)])])
def test_concatenation(dim, shapes):
    parts = [torch.randn(*s, dtype=H) for s in shapes]
    got, want = on_spyre(lambda *ts: torch.cat(ts, dim), *parts)
    close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("dim,shapes", [(1, [(2, 5, 72), (2, 3, 72)]),
                                        (-1, [(4, 64), (4, 96), (4, 28)]),
                                        (0, [(3, 40), (5, 40)]),
                                        (-1, [(2, 3, 16), (2, 3, 16), (2, 3, 16)])])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_tpu_concatenation_writes_each_part_in_place(dim, shapes, dtype):
    """One program: each part copied (or computed) into its slice of the result."""
    parts = [torch.randn(*s).to(dtype) for s in shapes]
    got, want = on_device("tpu", lambda *ts: torch.cat(ts, dim), *parts)
    close(got, want, rtol=0, atol=0)


def test_tpu_concatenation_of_a_computed_half_is_one_program():
    """LLaMA's rotate_half: the negation writes the first half, the view the second."""
    x = torch.randn(3, 8, 128)
    half = x.shape[-1] // 2
    got, want = on_device("tpu", lambda t: torch.cat([-t[..., half:], t[..., :half]], -1), x,
                          launches=2)
    close(got, want, rtol=0, atol=0)


def test_a_tpu_concatenation_the_dma_cannot_place_runs_on_the_cpu():
    """Rows of 3 f32 (12 bytes) would be written as 32-byte DMA runs over the next part: the
    compiler refuses, the op runs on the CPU (counted, with the compiler's reason)."""
    a, b = torch.randn(4, 3), torch.randn(4, 5)
    close(torch.cat([a.to("tpu"), b.to("tpu")], 1), torch.cat([a, b], 1), rtol=0, atol=0)
    assert chipless.torch.fallback_counts() == {"cat": 1}
    reasons = list(chipless.torch.stats("tpu")["refused"].values())
    assert any("would be written as 32-byte DMA runs" in r for r in reasons), reasons


FLOAT = {"spyre": H, "tpu": torch.float32}


@pytest.mark.parametrize("device", ["spyre", "tpu"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_embedding_lookup(dtype, device):
    table = torch.randn(500, 96, dtype=FLOAT[device])
    ids = torch.tensor([[3, 499, 0], [7, 7, 42]], dtype=dtype)
    got, want = on_device(device, lambda t, i: F.embedding(i, t), table, ids)
    close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("device", ["spyre", "tpu"])
def test_index_select_of_heads(device):
    """Slices along a dimension after ones of size 1: a gather of [H, S*D] rows."""
    x = torch.randn(1, 3, 10, 128, dtype=FLOAT[device])
    got, want = on_device(device, lambda t, i: t.index_select(1, i), x,
                          torch.tensor([2, 0, 2, 1]))
    close(got, want, rtol=0, atol=0)


def test_a_tpu_embedding_of_a_vocabulary_in_bf16_and_its_gradient():
    """GPT-2's token embedding at a smaller vocabulary: 700 ids into [5000, 256] bf16, units of
    rows each a DMA per id; the backward (an index_add) on the CPU."""
    table = torch.randn(5000, 256, dtype=torch.bfloat16)
    ids = torch.randint(0, 5000, (7, 100))
    got, want = on_device("tpu", lambda t, i: F.embedding(i, t), table, ids)
    close(got, want, rtol=0, atol=0)
    w = torch.randn(50, 32).to("tpu").requires_grad_()
    i = torch.tensor([1, 4, 4, 49])
    F.embedding(i.to("tpu"), w).sum(-1).sum(-1).backward()
    wc = w.detach().cpu().requires_grad_()
    F.embedding(i, wc).sum(-1).sum(-1).backward()
    close(w.grad, wc.grad, rtol=0, atol=0)


def test_repeat_interleave_of_key_heads_is_one_gather():
    """Grouped-query attention's k.repeat_interleave(4, dim=1): one program, nothing on the
    CPU (PyTorch's composite would build its index there)."""
    k = torch.randn(1, 2, 32, 128, dtype=H)
    got, want = on_spyre(lambda t: t.repeat_interleave(4, dim=1), k)
    close(got, want, rtol=0, atol=0)
    got, want = on_spyre(lambda t: t.repeat_interleave(3), k[0, 0, 0])
    close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("shape,dim", [((1, 2, 32, 128), 1), ((5, 7), 0), ((3, 4, 40), -1)])
def test_tpu_repeat_interleave_is_a_broadcast_read_in_one_program(shape, dim):
    x = torch.randn(*shape)
    got, want = on_device("tpu", lambda t: t.repeat_interleave(3, dim=dim), x)
    close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_repeat_interleave_keeps_its_gradient(device):
    dtype = torch.float32 if device == "tpu" else H
    x = torch.randn(1, 2, 4, 64, dtype=dtype)
    w = torch.randn(1, 6, 4, 64, dtype=dtype)
    xd = x.to(device).requires_grad_()
    (xd.repeat_interleave(3, dim=1) * w.to(device)).sum().backward()
    xc = x.float().requires_grad_()
    (xc.repeat_interleave(3, dim=1) * w.float()).sum().backward()
    close(xd.grad, xc.grad, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("device", ["spyre", "tpu"])
@pytest.mark.parametrize("bad", [500, -1, 100000])
def test_an_index_out_of_range_is_an_error_as_on_the_cpu(bad, device):
    table = torch.randn(500, 96, dtype=FLOAT[device]).to(device)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(torch.tensor([3, bad]).to(device), table)


def test_indices_are_checked_again_once_written():
    """The indices' range is read back once and kept with them until they are written."""
    table = torch.randn(500, 96, dtype=H).to("spyre")
    ids = torch.tensor([3, 7]).to("spyre")
    F.embedding(ids, table)
    before = chipless.torch.stats("spyre")["link_bytes_out"]
    F.embedding(ids, table)
    chipless.torch.synchronize()
    assert chipless.torch.stats("spyre")["link_bytes_out"] == before  # not read again
    ids.copy_(torch.tensor([3, 500]))
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(ids, table)


@pytest.mark.parametrize("op", ["sum", "mean", "amax"])
def test_reduction_over_the_last_two_dimensions(op):
    x = torch.randn(3, 5, 9, 70, dtype=H)
    got, want = on_spyre(lambda t: getattr(torch, op)(t, (-2, -1)), x)
    close(got, want, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("shape,dims", [((6, 9, 70), (1, 2)), ((2, 3, 5, 7), (1, 2, 3)),
                                        ((64, 64, 64), (0, 1, 2)), ((5, 1, 1), (1, 2))])
@pytest.mark.parametrize("op", ["sum", "mean", "amax"])
def test_the_tpu_reduces_several_dimensions_in_one_program(shape, dims, op):
    """tpu-compile chains the reductions (each result a per-row value made a vector for the
    next), whatever the rank."""
    x = torch.randn(*shape)
    before = chipless.torch.stats("tpu")["launches"]
    got = getattr(x.to("tpu"), op)(dims)
    close(got, getattr(x, op)(dims), rtol=1e-4, atol=1e-4)
    assert chipless.torch.stats("tpu")["launches"] - before == 1
    assert chipless.torch.fallback_counts() == {}


#: Reductions over dimensions that are not the last ones, and over all of them (no dimension
#: named: x.sum()), of [3, 5, 70], [2, 3, 4, 70] and a number (rank 0: a copy of it);
#: "tpu_cpu": tpu-compile cannot (a rank-4 tensor whose last dimension stays: reduced as
#: columns only up to rank 3, and moving the last dimension is refused), so the CPU computes
#: it there, counted.
REDUCTIONS = [
    ("sum", (), 3, False), ("mean", (), 3, False), ("amax", (), 4, False),
    ("sum", (0,), 3, False), ("mean", (1,), 3, False), ("amax", (0, 2), 3, False),
    ("sum", (0, 1), 3, False), ("mean", (0,), 3, False), ("amax", (-2,), 3, False),
    ("mean", (0, 2, 3), 4, False), ("amax", (1, 3), 4, False), ("sum", (1,), 4, True),
    ("sum", (0,), 0, False), ("mean", (), 0, False), ("amax", (-1,), 0, False)]


@pytest.mark.parametrize("op,dims,rank,tpu_cpu", REDUCTIONS)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("device", ["spyre", "tpu"])
def test_reductions_over_any_dimensions(op, dims, rank, tpu_cpu, keepdim, device):
    """Where the last dimension stays (rank 2 or 3), each reduced dimension is brought next to
    it by a transpose and reduced as columns are (a mean scaled at the end); otherwise the
    reduced dimensions are moved last by a transpose and reduced there one at a time."""
    torch.manual_seed(0)
    dtype, tol = (H, 2e-2) if device == "spyre" else (torch.float32, 1e-4)
    x = torch.randn({0: (), 3: (3, 5, 70), 4: (2, 3, 4, 70)}[rank], dtype=dtype)
    f = lambda t: getattr(t, op)(dims, keepdim=keepdim) if dims else getattr(t, op)()  # noqa
    got = f(x.to(device))
    assert got.is_spyre if device == "spyre" else got.is_tpu
    close(got, f(x.float()), rtol=tol, atol=4 * tol)
    on_cpu = chipless.torch.fallback_counts()
    assert on_cpu == ({op: 1} if device == "tpu" and tpu_cpu else {}), on_cpu


#: var, std and their _mean forms: (name, function, runs wholly on Spyre). Spyre's front end
#: takes a mean kept along a middle dimension (`std(1)` of [3, 5, 70]: a row per batch,
#: read by each of its rows), but not one kept along the leading and the last dimensions
#: (`var((0, 2))`: a value per middle index, repeated along the leading one), whose
#: deviation is subtracted on the CPU there.
VARIANCES = [
    ("var()", lambda t: t.var(), True), ("std(-1)", lambda t: t.std(-1), True),
    ("var(0) biased", lambda t: torch.var(t, 0, unbiased=False), True),
    ("var_mean(-1)", lambda t: torch.var_mean(t, -1), True),
    ("std_mean()", lambda t: torch.std_mean(t), True),
    ("var of a number", lambda t: t[0, 0, 0].var(), True),  # 0 / 0, NaN as on the CPU
    ("std(1) keepdim", lambda t: t.std(1, keepdim=True), True),
    ("var((0, 2)) correction 2", lambda t: torch.var(t, (0, 2), correction=2), False),
    ("var correction past the count", lambda t: torch.var(t, -1, correction=100), True)]


@pytest.mark.parametrize("name,f,on_spyre", VARIANCES, ids=[v[0] for v in VARIANCES])
@pytest.mark.parametrize("device", ["spyre", "tpu"])
def test_variances_are_device_ops(name, f, on_spyre, device):
    """The mean, then the sum of squared deviations from it, over the count less the
    correction (never below 0, as the CPU divides)."""
    torch.manual_seed(0)
    dtype, tol = (H, 3e-2) if device == "spyre" else (torch.float32, 1e-4)
    x = torch.randn(3, 5, 70, dtype=dtype) * 2 + 3
    got, want = f(x.to(device)), f(x.float())
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.is_spyre if device == "spyre" else g.is_tpu
        torch.testing.assert_close(g.cpu().double(), w.double(), rtol=tol, atol=tol,
                                   equal_nan=True)
    counts = chipless.torch.fallback_counts()
    assert counts == {} if device == "tpu" or on_spyre else set(counts) == {"subf"}, counts


@pytest.mark.parametrize("c,f,k,s,p,d,bias,hw", [
    (16, 24, 3, 2, 1, 1, True, 16), (8, 16, 3, 1, 2, 2, False, 16), (3, 16, 3, 1, 1, 1, True, 16),
    (32, 8, 1, 1, 0, 1, False, 16), (8, 8, 5, 1, 2, 1, True, 16), (3, 16, 7, 2, 3, 1, False, 30),
    (16, 16, 3, 1, 1, 1, False, 7)])
def test_tpu_convolution_is_one_program(c, f, k, s, p, d, bias, hw):
    """tpu-compile makes the convolution a matmul over its taps' strided slices of the NHWC
    image, the bias and both permutations in the same program (an RGB image's three channels
    padded with zeros to 8, whole DMA runs; 7 x 7 images whose rows are not); f32 matmuls in
    three bf16 passes."""
    x, w = torch.randn(2, c, hw, hw), torch.randn(f, c, k, k)
    b = [torch.randn(f)] if bias else []
    args = [w.to("tpu")] + [v.to("tpu") for v in b]

    def conv(t, u, *v):
        return F.conv2d(t, u, *v, stride=s, padding=p, dilation=d)
    # The first call also re-lays the filters out (kept with the weight), the second not.
    for launches in (2, 1):
        before = chipless.torch.stats("tpu")["launches"]
        with torch.no_grad():
            got = conv(x.to("tpu"), *args)
        chipless.torch.synchronize()
        stats = chipless.torch.stats("tpu")
        assert stats["cpu_ops"] == {} and chipless.torch.fallback_counts() == {}, stats
        assert stats["launches"] - before == launches
        close(got, conv(x, w, *b), rtol=1e-4, atol=2e-3)


def test_tpu_bf16_convolution():
    x, w = torch.randn(1, 16, 16, 16, dtype=torch.bfloat16), torch.randn(32, 16, 3, 3,
                                                                          dtype=torch.bfloat16)
    got, want = on_device("tpu", lambda t, u: F.conv2d(t, u, padding=1), x, w, launches=2)
    close(got, want, rtol=1e-2, atol=2e-2)


def test_grouped_convolutions_run_on_the_cpu_of_the_tpu():
    x, w = torch.randn(2, 4, 8, 8), torch.randn(6, 2, 3, 3)
    close(F.conv2d(x.to("tpu"), w.to("tpu"), groups=2), F.conv2d(x, w, groups=2), rtol=1e-5,
          atol=1e-5)
    assert sum(chipless.torch.fallback_counts().values()) == 1
    chipless.torch.set_strict(True)
    with pytest.raises(RuntimeError, match="a transposed or grouped convolution"):
        F.conv2d(x.to("tpu"), w.to("tpu"), groups=2)
