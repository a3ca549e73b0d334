"""Numbers an op reads as device operands, kept on the device for the next op that reads
the same number: a row of n equal values, uploaded over the host link once rather than at
every call (an optimizer's betas, eps and weight decay repeat at every step of every
parameter). torch_xla keeps a cache of device data for scalars for the same reason.

Rows are read-only operands: no op writes them, so a kept row stays valid. The cache is
bounded; the least recently used row goes first, so numbers that change at every call (a
learning rate with bias correction) do not push out the ones that repeat.
"""
import collections
import threading

import torch

#: Rows kept per process (each at most a few kilobytes of device memory).
CAPACITY = 256

_rows = collections.OrderedDict()
_lock = threading.Lock()


def row(value, n, dtype, dev):
    """A device tensor of n copies of the number `value` in `dtype` on `dev`: kept from an
    earlier call with the same number, else uploaded and kept."""
    # repr tells 0.0 from -0.0 and keeps every digit; the type tells 1 from 1.0 and True
    key = (dev.name, dtype, n, type(value).__name__, repr(value))
    with _lock:
        kept = _rows.get(key)
        if kept is not None:
            _rows.move_to_end(key)
            return kept
    kept = torch.full([n], value, dtype=dtype).to(dev.torch_device)
    with _lock:
        _rows[key] = kept
        while len(_rows) > CAPACITY:
            _rows.popitem(last=False)
    return kept


def clear():
    """Forgets every kept row (their device memory goes with the last reference)."""
    with _lock:
        _rows.clear()
