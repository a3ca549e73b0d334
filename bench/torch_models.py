#!/usr/bin/python3
"""The PyTorch devices on the model blocks of models/torch: what a forward pass (and the
MLP's training step) costs in host time, how many programs it launches in eager and
DeferAndFuse modes, how often the program cache serves them from the second step on, how
many ops still run on the CPU, the modelled device time, and the host time the Python and
dispatch layers add over the simulator's own time for the same programs. Prints a Markdown
table for docs/performance.md.

    /usr/bin/python3 bench/torch_models.py [--steps 5] [--models mlp,gpt2,...]

Each (model, device, mode) runs `steps` times; the first step compiles, the second may still
differ (a training step's optimizer creates its state in the first; on Spyre the first lays
each Linear weight out transposed, kept after, so a deferred second step is a new program),
the numbers are the mean over the steps from the third on. "cache hits" are the launches of a program already compiled (launches
minus compiles, over launches). "overhead" is (host time - simulator time) / simulator time:
everything that is not simulation (Python, dispatch, binding, host copies, the CPU's part of
the fallbacks).
"""
import argparse
import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "models" / "torch"))
os.environ.setdefault("CHIPLESS_LOCK_DIR", tempfile.mkdtemp(prefix="chipless-bench-"))

import torch  # noqa: E402

import chipless.torch  # noqa: E402
import blocks  # noqa: E402


def step(model, inputs, device, train, opt):
    if not train:
        with torch.no_grad():
            out = model(*inputs)
        return out.cpu()
    loss = (model(*inputs) ** 2).mean(-1).mean(-1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def measure(name, device, defer, steps, train=False):
    model, inputs = blocks.build(name)
    dtype = torch.float16 if device == "spyre" else torch.float32
    model = model.to(dtype).to(device)
    inputs = [x.to(dtype).to(device) for x in inputs]
    # in float16 AdamW's default eps (1e-8) is 0 and its steps divide by zero: 1e-4
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3,
                            eps=1e-4 if dtype == torch.float16 else 1e-8) if train else None
    rows = []
    chipless.torch.set_defer_and_fuse(defer)
    try:
        for i in range(steps):
            chipless.torch.reset_stats()
            start = time.monotonic()
            step(model, inputs, device, train, opt)
            chipless.torch.synchronize()
            seconds = time.monotonic() - start
            s = chipless.torch.stats(device)
            cpu = sum(chipless.torch.fallback_counts().values())
            rows.append((seconds, s, cpu))
    finally:
        chipless.torch.set_defer_and_fuse(False)
    # the first step compiles; the second may still differ: a training step's optimizer
    # creates its state in the first, and on Spyre the first lays each Linear weight out
    # transposed (kept after), so a deferred second step is a program of its own
    later = rows[2:] or rows
    mean = lambda f: sum(f(r) for r in later) / len(later)  # noqa: E731
    launches = mean(lambda r: r[1]["launches"])
    compiles = mean(lambda r: r[1]["compiles"])
    sim = mean(lambda r: r[1]["simulator_seconds"])
    host = mean(lambda r: r[0])
    return {"model": name + (" (train)" if train else ""), "device": device,
            "mode": "defer" if defer else "eager", "first": rows[0][0],
            "second": rows[1][0] if len(rows) > 1 else rows[0][0], "host": host,
            "launches": launches,
            "hit_rate": (launches - compiles) / launches if launches else 0.0,
            "cpu_ops": mean(lambda r: r[2]),
            "device_ms": mean(lambda r: r[1]["device_seconds"]) * 1e3,
            "link_ms": mean(lambda r: r[1]["link_seconds"]) * 1e3,
            "overhead": (host - sim) / sim if sim else float("inf")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--models", default=",".join(blocks.NAMES))
    p.add_argument("--devices", default="tpu,spyre")
    args = p.parse_args()
    print("| model | device | mode | first step (s) | second (s) | later steps (s) | "
          "programs / step | cache hits | ops on CPU | device time (ms) | host link (ms) | "
          "overhead |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    cases = [(m, False) for m in args.models.split(",")] + [("mlp", True)]
    for name, train in cases:
        for device in args.devices.split(","):
            for defer in (False, True):
                r = measure(name, device, defer, args.steps, train)
                print(f"| {r['model']} | {r['device']} | {r['mode']} | {r['first']:.2f} | "
                      f"{r['second']:.3f} | {r['host']:.3f} | {r['launches']:.0f} | {r['hit_rate']:.0%} | "
                      f"{r['cpu_ops']:.0f} | {r['device_ms']:.3f} | {r['link_ms']:.3f} | "
                      f"{r['overhead'] * 100:.0f}% |", flush=True)


if __name__ == "__main__":
    main()
