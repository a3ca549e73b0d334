"""How a lowered op runs, by mode: queued on its device's stream (eager, the default),
run in the caller's thread (TPU_LAUNCH_BLOCKING=1 or set_blocking; and while a deferred graph
runs), or recorded (DeferAndFuse); and the sync point every mode shares, flush_all, which the
backend calls before device memory is touched from outside a program.
"""
import torch

from chipless.torch import deferred, stream
from chipless.torch.eager import _mode, map_tensors, run_or_cpu


def execute(dev, op):
    """Queues `op` on the device's stream (eager), runs it now (blocking eager, or while a
    deferred graph runs) or records it (DeferAndFuse). An op on a tensor with no elements is
    computed on the host: there is nothing for a program to do (and nothing to compile).
    The copies derived from the outputs' storages are dropped now, in issue order (an op
    issued later must not read a copy of what this op overwrites)."""
    torch.ops.chipless.mark_written(op.outputs)
    if any(t.numel() == 0 for t in (*op.operands, *op.outputs)):
        op.on_cpu()
    elif _mode["defer"] and not _mode["flushing"]:
        deferred.record(dev, op)
    elif stream.BLOCKING or _mode["flushing"] or _mode["blocking"]:
        run_or_cpu(dev, op)
    else:
        # the tensors as they are now: the caller may reshape them in place (squeeze_)
        # before the queued op runs
        op.operands = [t.detach() for t in op.operands]
        op.outputs = [t.detach() for t in op.outputs]
        op.args = map_tensors(op.args, lambda t: t.detach())
        op.kwargs = {k: map_tensors(v, lambda t: t.detach()) for k, v in op.kwargs.items()}
        stream.submit(dev.slot, lambda queued: run_or_cpu(dev, queued), op)


def flush_all(slot=-1, address=0):
    """Waits for the eager streams, then runs deferred ops: those of every device, or only
    when the storage at `address` of device `slot` is read or written by one (the backend
    calls this before a copy touches device memory, and with slot -1 before the CPU
    fallback runs an op). A copy into or out of a storage no queued op uses does not wait."""
    if slot < 0 or stream.touches(slot, address):
        stream.wait_all()
    if _mode["flushing"] or not deferred.pending(slot, address):
        return
    _mode["flushing"] = True
    try:
        deferred.flush()
    finally:
        _mode["flushing"] = False


def set_defer(flag):
    """Turns DeferAndFuse on or off (what is queued or recorded runs first)."""
    flush_all()
    _mode["defer"] = bool(flag)


def wait():
    """Waits for every device's queued eager ops (raising an error one raised)."""
    stream.wait_all()


def set_blocking(flag):
    """Eager ops in the caller's thread (True) or on the devices' streams (False)."""
    flush_all()
    _mode["blocking"] = bool(flag)


def deferring():
    return _mode["defer"]
