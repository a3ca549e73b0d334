"""nll_loss and nll_loss2d (cross_entropy's second half, over rows, images and sequences)
and mse_loss on the emulated devices, forward and backward, against the CPU: one program
each, nothing on the CPU; class indices past what a bf16 or f16 holds exactly still pick
their own class; a target out of range is PyTorch's IndexError; a classifier's training
step is one DeferAndFuse program."""
import pytest
import torch
import torch.nn.functional as F

import chipless.torch
from torch_checks import classifier_step_is_one_program, close

#: (device, dtype, rtol, atol): Spyre computes in f16, the TPU in f32 and bf16
PRECISIONS = [("tpu", torch.float32, 1e-5, 1e-6), ("tpu", torch.bfloat16, 2e-2, 2e-2),
              ("spyre", torch.float16, 5e-3, 5e-3)]


def on_device_and_cpu(device, dtype, loss, x, *args, **kwargs):
    """(device loss, its gradient, the CPU's loss in float32, its gradient) for one upstream
    gradient drawn per output element; asserts nothing ran on the CPU."""
    xd = x.to(dtype).to(device).requires_grad_()
    moved = [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]
    got = loss(xd, *moved, **kwargs)
    xc = x.to(dtype).float().clone().requires_grad_()
    want = loss(xc, *[a.float() if isinstance(a, torch.Tensor) and a.is_floating_point()
                      else a for a in args], **kwargs)
    upstream = torch.randn(want.shape).to(dtype)
    got.backward(upstream.to(device))
    want.backward(upstream.float())
    stats = chipless.torch.stats(device)
    assert stats["cpu_ops"] == {} and chipless.torch.fallback_counts() == {}, stats
    return got, xd.grad, want, xc.grad


@pytest.mark.parametrize("device,dtype,rtol,atol", PRECISIONS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("classes,weighted,ignore_index", [(10, False, -100), (300, True, 3),
                                                           (7, False, 2)])
def test_nll_loss_and_its_gradient_on_the_device(device, dtype, rtol, atol, reduction,
                                                 classes, weighted, ignore_index):
    torch.manual_seed(classes)
    x = torch.randn(33, classes)
    target = torch.randint(0, classes, (33,))
    target[:4] = torch.tensor([0, classes - 1, ignore_index % classes, ignore_index % classes])
    weight = [torch.rand(classes).to(dtype)] if weighted else []
    got, grad, want, want_grad = on_device_and_cpu(
        device, dtype, lambda x, t, *w: F.nll_loss(x, t, *w, reduction=reduction,
                                                   ignore_index=ignore_index),
        x, target, *weight)
    assert got.dtype == dtype and got.shape == want.shape
    scale = 33 if reduction == "sum" else 1  # a sum of 33 rounded products
    close(got, want, rtol, atol * scale)
    close(grad, want_grad, rtol, atol)
    # one program forward, one backward
    assert chipless.torch.stats(device)["launches"] == 2


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_cross_entropy_of_one_sample_of_scores(device):
    """Scores [C] and a 0-d target, as F.cross_entropy takes one sample."""
    x, target = torch.randn(20), torch.tensor(13)
    dtype = torch.float32 if device == "tpu" else torch.float16
    for reduction in ("mean", "none"):
        got, grad, want, want_grad = on_device_and_cpu(
            device, dtype, lambda x, t: F.cross_entropy(x, t, reduction=reduction), x, target)
        close(got, want, 5e-3, 5e-3)
        close(grad, want_grad, 5e-3, 5e-3)


@pytest.mark.parametrize("device,dtype,rtol,atol", PRECISIONS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(2, 5, 3, 7), (2, 5, 11), (3, 4, 2, 3, 2)])
def test_cross_entropy_over_images_and_sequences_on_the_device(device, dtype, rtol, atol,
                                                               reduction, shape):
    """Scores [N, C, d1, ...] (PyTorch's nll_loss2d, which views them as [N, C, H, W]): the
    classes moved last in the program, as a convolution's image is; an ignored class."""
    x = torch.randn(shape)
    target = torch.randint(0, shape[1], (shape[0],) + shape[2:])
    target.view(-1)[:3] = 2
    got, grad, want, want_grad = on_device_and_cpu(
        device, dtype, lambda x, t: F.cross_entropy(x, t, reduction=reduction, ignore_index=2),
        x, target)
    count = target.numel() if reduction == "sum" else 1
    close(got, want, rtol, atol * count)
    close(grad, want_grad, rtol, atol)


@pytest.mark.parametrize("device,dtype,classes", [("tpu", torch.bfloat16, 300),
                                                  ("spyre", torch.float16, 2100),
                                                  ("tpu", torch.float32, 70000)])
def test_class_indices_a_float_does_not_hold_exactly_pick_their_own_class(device, dtype,
                                                                          classes):
    """bf16 holds the integers up to 256 exactly and f16 up to 2048; beyond, 257 and 256
    (2049 and 2048) round to one number. The compare goes digit by digit (base 256), so
    each row picks exactly its own score; 70000 classes need three digits."""
    n = 6
    x = torch.arange(n * classes, dtype=torch.float32).reshape(n, classes) % 251
    target = torch.tensor([classes - 1, classes - 2, 256, 257, 255, 0])
    got = F.nll_loss(x.to(dtype).to(device), target.to(device), reduction="none")
    want = -x.to(dtype)[torch.arange(n), target]
    assert torch.equal(got.cpu(), want), (got.cpu(), want)


@pytest.mark.parametrize("device", ["tpu", "spyre"])
def test_a_target_out_of_range_is_an_index_error_as_on_the_cpu(device):
    x = torch.randn(4, 10).to(device)
    with pytest.raises(IndexError, match="Target 10 is out of bounds"):
        F.nll_loss(x, torch.tensor([1, 2, 10, 3]).to(device))
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.nll_loss(x, torch.tensor([1, -1, 0, 3]).to(device))
    # an ignored row's target is not a class: any value goes
    loss = F.nll_loss(x, torch.tensor([1, -7, 0, 3]).to(device), ignore_index=-7)
    assert torch.isfinite(loss.cpu())


def test_every_row_ignored_is_nan_as_on_the_cpu():
    x, target = torch.randn(3, 5), torch.tensor([2, 2, 2])
    got = F.nll_loss(x.to("tpu"), target.to("tpu"), ignore_index=2)
    assert torch.isnan(F.nll_loss(x, target, ignore_index=2)) and torch.isnan(got.cpu())


@pytest.mark.parametrize("device,dtype,rtol,atol", PRECISIONS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(33, 70), (5,), (), (2, 3, 130)])
def test_mse_loss_and_its_gradient_on_the_device(device, dtype, rtol, atol, reduction, shape):
    torch.manual_seed(len(shape))
    x, y = torch.randn(shape), torch.randn(shape).to(dtype)
    got, grad, want, want_grad = on_device_and_cpu(
        device, dtype, lambda x, y: F.mse_loss(x, y, reduction=reduction), x, y)
    count = max(x.numel(), 1) if reduction == "sum" else 1
    close(got, want, rtol * 2, atol * count)
    close(grad, want_grad, rtol * 2, atol * 4)
    assert chipless.torch.stats(device)["launches"] == 2


def test_a_classifier_training_step_is_one_program_and_matches_eager():
    """cross_entropy's log_softmax and nll_loss, batch norm in training form, their
    gradients, BatchNorm's batch counter and AdamW: one program per step in DeferAndFuse
    mode on the TPU (the targets are read once, when they arrive, for their range), bit for
    bit the eager steps, and both close to the CPU's."""
    # no bias before the batch norm: its gradient is 0 but for rounding, which Adam's
    # normalised step would turn into +-lr either way
    classifier_step_is_one_program(
        lambda: torch.nn.Sequential(torch.nn.Linear(64, 128, bias=False),
                                    torch.nn.BatchNorm1d(128), torch.nn.ReLU(),
                                    torch.nn.Linear(128, 300)),
        lambda parameters: torch.optim.AdamW(parameters, lr=1e-2),
        lambda: (torch.randn(32, 64), torch.randint(0, 300, (32,))))
