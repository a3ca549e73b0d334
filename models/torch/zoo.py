#!/usr/bin/python3
"""Runs a torchvision classifier on an emulated device and says how it went.

    /usr/bin/python3 models/torch/zoo.py resnet18 --device spyre
    /usr/bin/python3 models/torch/zoo.py mobilenet_v3_small --device tpu --defer-and-fuse

The model is built with weights=None from a fixed seed (nothing is downloaded), run on the
CPU in float32 and on the device (float16 on Spyre, float32 on the TPU), and the report
gives: the largest difference from the CPU relative to the largest output, the ops that ran
on the device and those that ran on the CPU, the programs launched, the host time of the
device run, and the modelled device time (simulated cycles at the chip's clock, plus the
host-link transfers).
"""
import argparse
import sys
import time

import torch
import torchvision

import chipless.torch


def run(name, device, size=64, batch=1, defer=False, seed=0):
    """The report (a dict) of classifier `name` on `device`."""
    builder = getattr(torchvision.models, name, None)
    if builder is None or not callable(builder):
        raise SystemExit(f"zoo: torchvision has no model '{name}' "
                         f"(try: {', '.join(torchvision.models.list_models()[:8])}, ...)"
                         if hasattr(torchvision.models, "list_models") else
                         f"zoo: torchvision has no model '{name}'")
    torch.manual_seed(seed)
    model = builder(weights=None).eval()
    x = torch.randn(batch, 3, size, size)
    with torch.no_grad():
        want = model(x)
        dtype = torch.float16 if device.startswith("spyre") else torch.float32
        model.to(dtype).to(device)
        chipless.torch.reset_stats()
        chipless.torch.set_defer_and_fuse(defer)
        start = time.monotonic()
        try:
            got = model(x.to(dtype).to(device)).cpu().float()
        finally:
            chipless.torch.set_defer_and_fuse(False)
        seconds = time.monotonic() - start
    stats = chipless.torch.stats(device)
    cpu_ops = chipless.torch.fallback_counts()
    return {
        "model": name, "device": stats["device"], "dtype": str(dtype).replace("torch.", ""),
        "input": [batch, 3, size, size],
        "relative_error": ((got - want).abs().max() / want.abs().max()).item(),
        "same_top1": bool((got.argmax(-1) == want.argmax(-1)).all()),
        "programs_launched": stats["launches"], "programs_compiled": stats["compiles"],
        "ops_on_cpu": dict(sorted(cpu_ops.items())), "host_seconds": seconds,
        "device_seconds": stats["device_seconds"], "link_seconds": stats["link_seconds"],
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="a torchvision classifier: resnet18, mobilenet_v3_small, ...")
    p.add_argument("--device", default="tpu", help="tpu, spyre, tpu:1, ... (default tpu)")
    p.add_argument("--size", type=int, default=64, help="input height and width (default 64)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--defer-and-fuse", action="store_true", help="run in DeferAndFuse mode")
    args = p.parse_args(argv)
    r = run(args.model, args.device, args.size, args.batch, args.defer_and_fuse)
    print(f"{r['model']} on {r['device']} ({r['dtype']}, input {r['input']})")
    print(f"  vs CPU float32: largest difference {r['relative_error']:.2e} of the largest "
          f"output; same top-1: {'yes' if r['same_top1'] else 'no'}")
    print(f"  programs: {r['programs_launched']} launched, {r['programs_compiled']} compiled")
    on_cpu = sum(r["ops_on_cpu"].values())
    listed = ", ".join(f"{k} x{v}" for k, v in r["ops_on_cpu"].items())
    print(f"  ops on the CPU: {on_cpu}" + (f" ({listed})" if on_cpu else ""))
    print(f"  host time {r['host_seconds']:.2f} s; modelled device time "
          f"{r['device_seconds'] * 1e3:.3f} ms + host link {r['link_seconds'] * 1e3:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
