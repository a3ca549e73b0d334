"""Constant device tensors ops read (a repeat's index, the digits of the class indices, a
filter's reversed rows, matrices of ones and zeros), made on the host and copied to the
device once per device and key, then kept for the process. They are read-only operands, as
the numbers of chipless.torch.scalar_rows are, so a kept one stays valid.
"""
_kept = {}  # (device name, key) -> the device tensor


def constant(dev, key, make):
    """make() (a CPU tensor) copied to `dev` the first time (dev, key) is asked for."""
    found = _kept.get((dev.name, key))
    if found is None:
        found = _kept[(dev.name, key)] = make().to(dev.torch_device)
    return found
