"""Eager ops run asynchronously on each device's stream: the caller goes on, anything that
needs the data waits, an op's error surfaces at the next sync point; TPU_LAUNCH_BLOCKING=1
(or set_launch_blocking) runs each op in the caller's thread and raises at the op itself.
Both give the same numbers."""
import os
import pathlib
import subprocess
import sys
import threading

import pytest
import torch

import chipless.torch
from chipless.torch import stream

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"


def refused_in_strict_mode(x):
    """An op the TPU compiler refuses (a [M, 1] boolean mask read from memory: per-row
    vectors from memory are bf16 or f32 only), which strict mode does not let run on the
    CPU."""
    mask = x.sum(-1, keepdim=True) > 0
    chipless.torch.set_strict(True)
    return x.masked_fill(mask, 0.0)


def test_an_error_surfaces_at_the_next_sync_point():
    x = torch.randn(8, 128).to("tpu")
    y = refused_in_strict_mode(x)  # queued: no error yet
    with pytest.raises(RuntimeError, match="masked_fill does not run on tpu:0.*strict mode"):
        y.cpu()
    chipless.torch.set_strict(False)
    assert torch.equal((x + 1).cpu(), x.cpu() + 1)  # the stream goes on after the error


def test_a_host_copy_waits_only_for_queued_ops_that_use_its_storage():
    """An op held in the queue: a number uploaded into a fresh tensor goes ahead of it (an
    optimizer's step size does not stall the stream), a read of the op's operand waits."""
    x = torch.randn(8, 128).to("tpu")
    (x + 1).cpu()  # the device's stream exists
    slot = chipless.torch.ops._device_of(x).slot
    queue = stream._streams[slot]
    release, held = threading.Event(), threading.Event()

    class Held:  # an op using x that runs only when released
        operands, outputs = [x], []
    blocker = Held()
    original = queue._run
    queue._run = lambda op: (held.set(), release.wait()) if op is blocker else original(op)
    try:
        stream.submit(slot, None, blocker)
        held.wait()
        done = {}
        upload = threading.Thread(target=lambda: done.setdefault(
            "fresh", torch.full([4, 128], 2.0).to("tpu")))
        upload.start()
        upload.join(timeout=60)
        assert "fresh" in done, "an upload into a fresh tensor waited for the held op"
        read = threading.Thread(target=lambda: done.setdefault("x", x.cpu()))
        read.start()
        read.join(timeout=0.5)
        assert "x" not in done, "a read of the held op's operand did not wait for it"
    finally:
        release.set()
        queue._run = original
    read.join()
    assert torch.equal(done["fresh"].cpu(), torch.full([4, 128], 2.0))
    assert done["x"].shape == (8, 128)


def test_launch_blocking_raises_at_the_op():
    x = torch.randn(8, 128).to("tpu")
    chipless.torch.set_launch_blocking(True)
    try:
        with pytest.raises(RuntimeError, match="masked_fill does not run on tpu:0.*strict mode"):
            refused_in_strict_mode(x)
    finally:
        chipless.torch.set_strict(False)
        chipless.torch.set_launch_blocking(False)


def test_asynchronous_and_blocking_give_the_same_numbers():
    x = torch.randn(64, 256)
    w = torch.randn(256, 128)
    results = []
    for blocking in (False, True):
        chipless.torch.set_launch_blocking(blocking)
        try:
            results.append(torch.tanh(x.to("tpu") @ w.to("tpu") * 0.5).cpu())
        finally:
            chipless.torch.set_launch_blocking(False)
    assert torch.equal(results[0], results[1])


def test_the_environment_makes_it_blocking(tmp_path):
    program = ("import chipless_autoload, torch, chipless.torch\n"
               "x = torch.randn(8, 128, device='tpu')\n"
               "mask = x.sum(-1, keepdim=True) > 0\n"
               "chipless.torch.set_strict(True)\n"
               "try:\n    x.masked_fill(mask, 0.0)\n    print('queued')\n"
               "except RuntimeError:\n    print('raised at the op')\n")
    for env in ({}, {"TPU_LAUNCH_BLOCKING": "1"}, {"SPYRE_LAUNCH_BLOCKING": "1"}):
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR),
                                       CHIPLESS_LOCK_DIR=str(tmp_path), **env))
        # without the switch the error is queued: at exit the stream is waited for
        assert done.stdout.strip() == ("queued" if not env else "raised at the op"), done
