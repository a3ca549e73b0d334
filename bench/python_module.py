#!/usr/bin/python3
"""What `import chipless` adds over the simulator and the compiler it drives. Prints a
Markdown table for docs/performance.md.

    /usr/bin/python3 bench/python_module.py [--launches 20] [--build-dir build]

For each workload:
1. compile: chipless.compile in this process (cache off: an output folder) against the
   tool (spyre-compile / tpu-compile) as a process, median of 3;
2. launch: a program prepared once and launched N times from Python, wall-clock per launch,
   against the same launches in the simulator tool (`spyre-sim run --launches N+1` minus
   `--launches 1`, over N: binding, layout, simulation and outputs, without the process
   start) and against the simulation alone (Launch.host_seconds); the module's overhead is
   its time over the tool's;
3. one run: chipless.run (open, prepare, launch, close) against `spyre-sim run` /
   `tpu-sim run` as a process with the same inputs and outputs, median of 3.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

WORKLOADS = [
    # name, source, chip, arch, inputs
    ("vadd_dynamic n=65536", "models/kernels/vadd_dynamic.mlir", "spyre", None,
     lambda r: {"A": r.standard_normal(65536).astype(np.float16),
                "B": r.standard_normal(65536).astype(np.float16)}),
    ("spyre_mlp (graph)", "models/graphs/spyre_mlp.mlir", "spyre", None,
     lambda r: {"x": r.standard_normal((128, 256)).astype(np.float16),
                "W1": (r.standard_normal((256, 512)) / 16).astype(np.float16),
                "b1": r.standard_normal(512).astype(np.float16),
                "W2": (r.standard_normal((512, 256)) / 16).astype(np.float16),
                "b2": r.standard_normal(256).astype(np.float16)}),
    ("softmax 100x300 (v5e)", "models/graphs/softmax.mlir", "tpu", "v5e",
     lambda r: {"X": r.standard_normal((100, 300)).astype(np.float32)}),
]


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_of(n, fn):
    return statistics.median(timed(fn) for _ in range(n))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--launches", type=int, default=20)
    p.add_argument("--build-dir", default=str(ROOT / "build"))
    args = p.parse_args()
    os.environ["CHIPLESS_BIN"] = str(pathlib.Path(args.build_dir).resolve() / "bin")
    os.environ["SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"] = "1"
    sys.path.insert(0, str(ROOT / "python"))
    import chipless
    bin_dir = pathlib.Path(os.environ["CHIPLESS_BIN"])
    work = pathlib.Path(tempfile.mkdtemp(prefix="chipless-pybench-"))
    os.environ["CHIPLESS_LOCK_DIR"] = str(work)
    print("| workload | compile: module / tool | launch: module / tool (overhead) / simulation "
          "| one run: chipless.run / tool |")
    print("|---|---|---|---|")
    for name, source, chip, arch, make_inputs in WORKLOADS:
        src = ROOT / source
        extra = ["--arch", arch] if arch else []
        out = work / name.split()[0]
        t_mod = median_of(3, lambda: chipless.compile(src, out / "mod", chip=chip, arch=arch))
        compiler = bin_dir / ("spyre-compile" if chip == "spyre" else "tpu-compile")
        t_tool = median_of(3, lambda: subprocess.run(
            [compiler, src, "-o", out / "tool", *extra], check=True))
        inputs = make_inputs(np.random.default_rng(0))
        with chipless.Device.for_program(out / "mod") as device:
            program = device.prepare(out / "mod")
            output = next(a.name for a in program.arguments if a.role != "input")
            program(inputs)  # warm
            walls, sims = [], []
            for _ in range(3):
                sim = 0.0
                start = time.perf_counter()
                for _ in range(args.launches):
                    sim += program(inputs).host_seconds
                walls.append((time.perf_counter() - start) / args.launches)
                sims.append(sim / args.launches)
            wall, sim = statistics.median(walls), statistics.median(sims)
        files = []
        for k, v in inputs.items():
            np.save(out / f"{k}.npy", v)
            files += ["--input", f"{k}={out / (k + '.npy')}"]
        simulator = bin_dir / ("spyre-sim" if chip == "spyre" else "tpu-sim")
        def tool_run(launches):
            subprocess.run([simulator, "run", out / "mod" / "job.plan", *files, "--output",
                            f"{output}={out / 'y.npy'}", "--launches", str(launches)],
                           check=True, stdout=subprocess.DEVNULL)
        r_tool = median_of(3, lambda: tool_run(1))
        per_tool = (median_of(3, lambda: tool_run(args.launches + 1)) - r_tool) / args.launches
        r_mod = median_of(3, lambda: chipless.run(out / "mod", inputs))
        print(f"| {name} | {t_mod * 1e3:.0f} ms / {t_tool * 1e3:.0f} ms "
              f"| {wall * 1e3:.2f} ms / {per_tool * 1e3:.2f} ms ({(wall - per_tool) / per_tool:+.1%})"
              f" / {sim * 1e3:.2f} ms "
              f"| {r_mod * 1e3:.0f} ms / {r_tool * 1e3:.0f} ms |")


if __name__ == "__main__":
    main()
