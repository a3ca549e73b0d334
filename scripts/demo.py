#!/usr/bin/python3
"""make demo: assemble a bundled kernel, run it on the emulated 32-core Spyre with generated
inputs, check the result against an fp32 reference, print the summary, write a timeline."""
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
OUT = os.path.join(ROOT, "out", "demo")


def run(*cmd):
    """Runs cmd from the repository root, with its paths as a user there would type them
    (also after NAME=), and prints it so."""
    cmd = [c.replace(ROOT + os.sep, "") for c in cmd]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)


def main():
    os.makedirs(OUT, exist_ok=True)
    m, k, n = 512, 512, 512
    job = os.path.join(OUT, "matmul")
    run(os.path.join(BUILD, "bin", "spyre-as"), os.path.join(ROOT, "models", "kernels", "matmul.s"), "-o", job)

    rng = np.random.default_rng(2026)
    a = (rng.standard_normal((m, k)) * 0.5).astype(np.float16)
    b = (rng.standard_normal((k, n)) * 0.5).astype(np.float16)
    np.save(os.path.join(OUT, "A.npy"), a)
    np.save(os.path.join(OUT, "B.npy"), b)

    trace = os.path.join(OUT, "matmul.trace.json")
    run(os.path.join(BUILD, "bin", "spyre-sim"), "run", os.path.join(job, "job.plan"),
        "--input", "A=" + os.path.join(OUT, "A.npy"), "--input", "B=" + os.path.join(OUT, "B.npy"),
        "--output", "C=" + os.path.join(OUT, "C.npy"),
        "--stats", os.path.join(OUT, "matmul.stats.json"), "--trace", trace)

    c = np.load(os.path.join(OUT, "C.npy")).astype(np.float32)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    # fp32 accumulation, one rounding to fp16: within one fp16 ulp of the reference.
    tol = np.maximum(np.abs(ref) * 2.0 ** -10, 2.0 ** -14)
    worst = float(np.max(np.abs(c - ref) / tol))
    ok = worst <= 1.0
    print()
    print("check: C = A @ B (%dx%dx%d fp16, fp32 accumulate) against numpy fp32: %s "
          "(worst error %.2f of one fp16 ulp)" % (m, k, n, "PASS" if ok else "FAIL", worst))
    print("timeline: %s -- open https://ui.perfetto.dev and drop the file in, or chrome://tracing"
          % os.path.relpath(trace, ROOT))
    print("more kernels: models/kernels/*.s (add, softmax, allreduce); docs/spyre-sim.md explains the output")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
