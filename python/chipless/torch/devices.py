"""The emulated devices behind PyTorch's PrivateUse1 slot.

PyTorch 1.13 has one slot for an out-of-tree backend, "privateuseone", and cannot rename it.
chipless puts every emulated device it opens there — `spyre:0`, `tpu:0`, `tpu:1`, ... each
at its own privateuseone index, given in the order the devices are first used — and keeps
the mapping both ways. A device is opened (an emulated chip elaborated, its lock taken) the
first time it is named, on the architecture configure() gave its kind, else
$CHIPLESS_SPYRE_ARCH / $CHIPLESS_TPU_ARCH, else the bundled default (spyre, v5e).
"""
import os
import threading

import torch

import chipless
from chipless import native
from chipless.errors import ChiplessError

KINDS = ("spyre", "tpu")
_DEFAULT_ARCH = {"spyre": "spyre", "tpu": "v5e"}
_lock = threading.RLock()
_config = {}       # kind -> {"arch", "sets", "timing_only"}
_by_name = {}      # (kind, index) -> EmulatedDevice
_by_slot = {}      # privateuseone index -> EmulatedDevice


class EmulatedDevice:
    """One emulated chip as a PyTorch device: `kind` and `index` as the user names it
    ("tpu", 1), `slot` its privateuseone index, `device` the chipless.Device."""

    def __init__(self, kind, index, slot, device, arch, sets):
        self.kind, self.index, self.slot, self.device = kind, index, slot, device
        self.arch, self.sets = arch, tuple(sets)  # what its programs are compiled for
        self.torch_device = torch.device("privateuseone", slot)

    @property
    def name(self):
        return f"{self.kind}:{self.index}"

    def __repr__(self):
        return f"<chipless.torch device {self.name} (privateuseone:{self.slot}, " \
               f"{self.device.arch_fingerprint})>"


def configure(kind, arch=None, sets=(), timing_only=False):
    """The architecture (a bundled name or a file) and `--set` overrides the devices of
    `kind` open with; for devices not opened yet."""
    _check_kind(kind)
    with _lock:
        _config[kind] = {"arch": arch, "sets": tuple(sets), "timing_only": timing_only}


def _check_kind(kind):
    if kind not in KINDS:
        raise ChiplessError(f"unknown device kind '{kind}' (spyre or tpu)")


def get(kind, index=0):
    """The EmulatedDevice `kind`:`index`, opened and attached on first use."""
    _check_kind(kind)
    index = int(index)
    if index < 0:
        raise ChiplessError(f"device {kind}:{index}: the index is negative")
    with _lock:
        found = _by_name.get((kind, index))
        if found is not None:
            return found
        config = _config.get(kind, {})
        arch = config.get("arch") or os.environ.get(f"CHIPLESS_{kind.upper()}_ARCH") \
            or _DEFAULT_ARCH[kind]
        sets = config.get("sets", ())
        device = chipless.Device(kind, arch=arch, sets=sets, index=index,
                                 timing_only=config.get("timing_only", False))
        if device.share:
            # A share ($CHIPLESS_DEVICE_SHARE) runs programs compiled for its own cores and
            # memory.
            sets = tuple(sets) + tuple(device.share["overrides"])
        slot = len(_by_slot)
        native.load("_torch").attach(slot, device._handle._tensor_memory())
        found = EmulatedDevice(kind, index, slot, device, arch, sets)
        _by_name[(kind, index)] = _by_slot[slot] = found
        return found


def of(where):
    """The EmulatedDevice of a tensor or a torch.device on privateuseone; None for others."""
    device = where.device if isinstance(where, torch.Tensor) else where
    if device.type != "privateuseone":
        return None
    found = _by_slot.get(device.index or 0)
    if found is None:
        raise ChiplessError(f"privateuseone:{device.index} is no emulated device (name "
                            f"devices as \"spyre:N\" or \"tpu:N\")")
    return found


def opened():
    """Every device opened so far, in slot order."""
    with _lock:
        return [_by_slot[s] for s in sorted(_by_slot)]
