#!/usr/bin/python3
"""make demo, first part: a PyTorch GPT-2 block moved to the emulated devices with
`.to("tpu")` and `.to("spyre")`, run three times (the first call compiling, the next as every
later call runs, then in DeferAndFuse mode), its output checked against the CPU, the programs
each call took, the modelled device time, and a timeline."""
import contextlib
import copy
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "models" / "torch"))
OUT = ROOT / "out" / "demo"

import torch  # noqa: E402  (the set-up's chipless.pth brings the devices with it)

import blocks  # noqa: E402
import chipless.torch  # noqa: E402


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    model, (x, mask) = blocks.build("gpt2", seq=32)
    model.eval()
    with torch.no_grad():
        want = model(x, mask)
    print("$ model = GPT2Block(d=768, heads=12); x: [1, 32, 768]")
    ok = True
    for device, dtype, tolerance in (("tpu", torch.float32, 1e-4), ("spyre", torch.float16, 1e-2)):
        on_device = copy.deepcopy(model).to(dtype).to(device)
        inputs = (x.to(dtype).to(device), mask.to(dtype).to(device))
        print(f"$ model.to({device!r})({dtype})")
        # the first call compiles its programs (and on Spyre lays the weights out transposed,
        # kept after); the next one is what every later call costs, traced; then the same
        # in DeferAndFuse mode
        trace = OUT / f"gpt2-{device}.trace.json"
        for call in ("first call", "next call", "DeferAndFuse"):
            chipless.torch.reset_stats()
            with torch.no_grad(), chipless.torch.trace(trace) if call == "next call" else \
                    contextlib.nullcontext():
                if call == "DeferAndFuse":
                    with chipless.torch.defer_and_fuse():
                        got = on_device(*inputs)
                else:
                    got = on_device(*inputs)
                got = got.cpu()
            s = chipless.torch.stats(device)
            programs = f"{s['launches']} program" + ("s" if s["launches"] != 1 else "")
            print(f"  {call + ':':14s}{programs:>11s} on {s['device']}, modelled "
                  f"{s['device_seconds'] * 1e3:.3f} ms + host link "
                  f"{s['link_seconds'] * 1e3:.3f} ms")
        error = ((got.float() - want).abs().max() / want.abs().max()).item()
        passed = error < tolerance
        ok &= passed
        print(f"  check against the CPU (float32): {'PASS' if passed else 'FAIL'} (largest "
              f"difference {error:.1e} of the largest output; stated tolerance {tolerance:g})")
        print(f"  timeline of the next call: {os.path.relpath(trace, ROOT)}")
    print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
