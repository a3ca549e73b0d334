#!/usr/bin/python3
"""Bounded dynamic lengths against one compile per length: a GPT-2 block called with
sequence lengths that change from call to call, compiled ahead of time either once per
distinct length (`chipless.torch.compile` without `dynamic`: each length is a capture and
programs of its own) or with `dynamic=` and length buckets (one capture and program set per
bucket, calls padded and masked). Prints a Markdown table for docs/performance.md: programs
compiled, host time of the whole sequence of calls, host time per call once every bucket or
length is compiled, and the modelled device time per call (padding costs device time).

    /usr/bin/python3 bench/torch_dynamic.py [--device tpu] [--calls 24] [--max 128]
"""
import argparse
import os
import pathlib
import random
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "models" / "torch"))
os.environ.setdefault("CHIPLESS_LOCK_DIR", tempfile.mkdtemp(prefix="chipless-bench-"))

import torch  # noqa: E402

import chipless.torch  # noqa: E402
import blocks  # noqa: E402
from chipless.torch import dynamic  # noqa: E402

SPEC = {0: 1, 1: (0, 1)}  # the GPT-2 block's input and causal mask carry the length


def run(device, lengths, max_length, bucketed):
    """(programs compiled, total host seconds, steady host seconds per call, device seconds
    per call) of calling the block at `lengths` in order."""
    model, inputs = blocks.build("gpt2", seq=lengths[0])
    model.eval()
    dtype = torch.float16 if device == "spyre" else torch.float32
    model.to(dtype)
    chipless.torch.reset_stats()
    compiled = {}
    times, device_seconds = [], 0.0
    start = time.monotonic()
    with torch.no_grad():
        for n in lengths:
            _, exact = blocks.build("gpt2", seq=n)
            exact = tuple(x.to(dtype) for x in exact)
            t0 = time.monotonic()
            if bucketed:
                if "all" not in compiled:
                    compiled["all"] = chipless.torch.compile(
                        model, exact, device=device, dynamic=SPEC, max_length=max_length)
                fast = compiled["all"]
            else:
                if n not in compiled:
                    compiled[n] = chipless.torch.compile(model, exact, device=device)
                fast = compiled[n]
            before = chipless.torch.stats(device)["device_seconds"]
            fast(*[x.to(device) for x in exact]).cpu()
            device_seconds += chipless.torch.stats(device)["device_seconds"] - before
            times.append(time.monotonic() - t0)
    total = time.monotonic() - start
    programs = chipless.torch.stats(device)["compiles"]
    # steady state: the last quarter of the calls, when every length or bucket has been seen
    tail = times[-max(1, len(times) // 4):]
    return programs, total, sum(tail) / len(tail), device_seconds / len(lengths)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="tpu")
    parser.add_argument("--calls", type=int, default=24)
    parser.add_argument("--max", type=int, default=128)
    args = parser.parse_args(argv)
    rng = random.Random(0)
    distinct = rng.sample(range(2, args.max + 1), args.calls // 2)
    # every length twice, the second time after the others: the steady state repeats lengths
    lengths = distinct + rng.sample(distinct, len(distinct))
    print(f"GPT-2 block (d=768, 12 heads) on {args.device}, {len(lengths)} calls of "
          f"{len(distinct)} distinct lengths in 2..{args.max}\n")
    print("| compiled | programs compiled | host s, all calls | host s per call, last quarter "
          "| modelled device ms per call |")
    print("|---|---|---|---|---|")
    for bucketed in (False, True):
        programs, total, steady, dev = run(args.device, lengths, args.max, bucketed)
        buckets = ", ".join(str(b) for b in dynamic.make_buckets(args.max, None))
        label = f"`dynamic=`, buckets {buckets}" if bucketed else "once per length"
        print(f"| {label} | {programs} | {total:.1f} | {steady:.3f} | {dev * 1e3:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
