"""PyTorch on the emulated chips: the `spyre` and `tpu` devices.

    import torch, chipless.torch
    model = MyModel().to("tpu")          # or "spyre", "tpu:1"
    y = model(torch.randn(8, 64, device="tpu"))
    print(y.cpu(), chipless.torch.stats("tpu"))

Tensors live in the emulated device's memory (docs/runtime.md, "Device tensors"); copies to
and from the host take the modelled host-link time. Each ATen op with a lowering
(chipless/torch/ops.py) is compiled once per shape and dtype by the chip's own compiler and
run on the simulator; every other op runs on the CPU, counted (fallback_counts()), or is an
error under set_strict(True). See docs/pytorch.md.
"""
import torch  # noqa: F401  (the backend registers itself with torch)

from chipless import native
from chipless.errors import ChiplessError

native.load("_torch")  # the PrivateUse1 backend: allocator, guard, copies, CPU fallback

# after the backend; importing ops registers the lowerings
from chipless.torch import (devices, distributed, eager, execution, ops,  # noqa: E402,F401
                            activations, batch_norm_grad, conv_grad, losses, matmuls,
                            pointwise, reductions, shim, window_ops)

shim.install()
native.load("_torch").set_flush_hook(execution.flush_all)

configure = devices.configure


def aot(model, *example_inputs, backward=False):
    """`model` captured at the ATen level with `example_inputs` and compiled before this
    returns; with `backward`, its backward too (chipless/torch/capture.py)."""
    from chipless.torch import capture
    return capture.Captured(model, example_inputs, backward)


def compile(model, example_inputs, device="tpu", *, backward=False, dynamic=None,
            max_length=None, buckets=None):
    """`model` moved to `device` and captured ahead of time with `example_inputs` (a tuple),
    compiled before this returns: the stand-in for PyTorch 2's torch.compile.

    `dynamic` declares bounded dynamic lengths: {input index: dimension or dimensions}, the
    dimensions sharing one length that may change from call to call, from 1 to `max_length`
    (or the last of `buckets`). A call runs the program of the smallest bucket holding its
    length (buckets: powers of two from 16, and max_length), padded and masked so that the
    results are those of the exact length (chipless/torch/dynamic.py); `.counters` says how
    many buckets were compiled and how many calls each served. Forward only."""
    from chipless.torch import capture
    from chipless.torch import dynamic as padder
    target = shim.translate(device) if isinstance(device, str) else device
    emulated = devices.of(target)
    if emulated is None:
        raise ChiplessError(f"chipless.torch.compile: {device!r} is not an emulated device")
    model.to(target)
    inputs = tuple(x.to(target) if isinstance(x, torch.Tensor) else x for x in example_inputs)
    if dynamic is None:
        return capture.Captured(model, inputs, backward)
    if backward:
        raise padder.DynamicError("dynamic: lengths that change from call to call are "
                                  "compiled for the forward pass only (backward=False)")
    places = padder.parse_spec(dynamic, inputs)
    sizes = padder.make_buckets(max_length, buckets)
    return capture.Bucketed(model, inputs, places, sizes, emulated)


def device(name="tpu"):
    """The torch.device of an emulated device: "tpu", "tpu:1", "spyre:0"."""
    return shim.translate(name) if isinstance(name, str) else name


def kernel(source=None, *, text=None, device="tpu", **options):
    """A KTIR kernel or tensor graph of your own (a file, or `text=`), compiled for `device`
    and called on its tensors (chipless/torch/kernels.py)."""
    from chipless.torch import kernels
    return kernels.Kernel(source, text=text, device=device, **options)


def set_strict(flag=True):
    """Strict: an op that would run on the CPU instead of the device is an error."""
    native.load("_torch").set_strict(bool(flag))


def fallback_counts():
    """{op: count} of the ops that ran on the CPU instead of a device since the last
    reset_stats(): ATen's fallback and the lowerings that refused a call."""
    execution.wait()
    counts = dict(native.load("_torch").fallback_counts())
    for dev in devices.opened():
        for op, n in eager.stats_of(dev).cpu.items():
            counts[op] = counts.get(op, 0) + n
    return counts


def stats(name="tpu"):
    """What a device did since the last reset_stats(): programs launched, their simulated
    cycles and seconds (on a share: how many of them ran together with other shares' launches,
    and their cycles), host-link transfers, compiles and cache hits, views re-laid out, ops
    the compiler refused (with its reason). Waits for the queued ops first (what
    DeferAndFuse has recorded stays recorded)."""
    execution.wait()
    dev = devices.of(device(name))
    s = eager.stats_of(dev)
    link = native.load("_torch").link(dev.slot)
    clock_ghz = chip_clock_ghz(dev)
    return {"device": dev.name, "launches": s.launches, "cycles": s.cycles,
            "shared_launches": s.shared_launches, "shared_cycles": s.shared_cycles,
            "device_seconds": s.cycles / (clock_ghz * 1e9), "link_seconds": link["seconds"],
            "simulator_seconds": s.sim_seconds,
            "link_bytes_in": link["bytes_in"], "link_bytes_out": link["bytes_out"],
            "compiles": s.compiles, "program_hits": s.hits, "relayouts": s.relayouts,
            "deferred_ops": s.deferred_ops, "fused_launches": s.fused_launches,
            "written_back": s.written_back, "kept_inside": s.kept_inside,
            "cpu_ops": dict(s.cpu), "refused": {k[0]: v for k, v in s.refused.items()}}


def chip_clock_ghz(dev):
    import yaml
    return float(yaml.safe_load(dev.device.arch_yaml)["chip"]["clock_ghz"])


def set_defer_and_fuse(flag=True):
    """DeferAndFuse on or off (also TORCH_TPU_DEFER_AND_FUSE=1, TPU_DEFER_AND_FUSE=1 or
    CHIPLESS_DEFER_AND_FUSE=1 in the environment): ops are recorded and run as one program
    when their data is needed. Turning it off runs what is recorded."""
    execution.set_defer(flag)


class defer_and_fuse:
    """`with chipless.torch.defer_and_fuse():` records the block's ops and runs them as one
    program at the block's end (or earlier, when their data is needed)."""

    def __enter__(self):
        self._before = execution.deferring()
        execution.set_defer(True)
        return self

    def __exit__(self, *exc):
        execution.flush_all()
        execution.set_defer(self._before)


class trace:
    """`with chipless.torch.trace("step.trace.json"):` writes the timeline of every program
    the block launches, one after another, for https://ui.perfetto.dev (what ran on which
    engine of the chip, per program)."""

    def __init__(self, path, max_events=2_000_000):
        self.path = path
        self._trace = native.load().Trace(max_events)

    def __enter__(self):
        self._before = eager._mode["trace"]
        eager._mode["trace"] = self._trace
        return self

    def __exit__(self, *exc):
        execution.flush_all()
        eager._mode["trace"] = self._before
        self._trace.write(str(self.path))

    @property
    def events(self):
        return self._trace.events


def set_launch_blocking(flag=True):
    """Eager ops run in the caller's thread, one after another, as TPU_LAUNCH_BLOCKING=1
    makes them (debugging: an error surfaces at the op that raised it), or (False) on each
    device's asynchronous stream, the default."""
    execution.set_blocking(flag)


def synchronize():
    """Waits for every queued op and runs every op recorded in DeferAndFuse mode; raises an
    error a queued op raised."""
    execution.flush_all()


def reset_stats():
    """Starts the counts of stats() and fallback_counts() afresh (after the queued ops)."""
    execution.wait()
    backend = native.load("_torch")
    backend.reset_fallback_counts()
    for dev in devices.opened():
        eager.stats_of(dev).reset()
        backend.reset_link(dev.slot)
