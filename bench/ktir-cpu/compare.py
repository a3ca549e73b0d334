#!/usr/bin/python3
"""chipless against ktir-cpu, side by side, on ktir-cpu's own example kernels (issue 9, section 3).

    /usr/bin/python3 bench/ktir-cpu/compare.py KTIR_CPU_CHECKOUT [--build BUILD_DIR]
        [--only NAME] [--repeat N] [--workdir DIR] [--peer-timeout S]

KTIR_CPU_CHECKOUT is a working copy of torch-spyre/ktir-cpu (the Python package ktir_cpu/ and
its examples/). When the path does not exist the script prints one line saying it skips and
exits 0. None of the peer's code is part of this repository; it is imported from the checkout.

For every example kernel of the checkout (examples/**/*.mlir and *.ktir; the kernels of issue 9
first), the script
  1. parses it with ktir-cpu (KTIRInterpreter.load) to learn the function, its arguments and
     the shape and dtype of every tensor argument (tensor_input_output_sizes);
  2. makes one set of random inputs (normal * 0.5 in fp16/fp32, small integers for integer
     tensors, seeded by kernel name) and the scalar values the kernel's own comments give
     (`%K: index, // 2048`), or those of the table SCALARS below;
  3. times ktir-cpu's execute_function on them (best of --repeat);
  4. times chipless through the tools, as subprocesses: `spyre-compile K -o DIR --timing`, then
     `spyre-sim run DIR/job.plan --input ... --output ... --scalar ...` (functional) and the same
     run with --timing-only (best of --repeat each). A kernel that only compiles with its integer
     arguments bounded gets a second compile with `--bound NAME=V` for each integer scalar (the
     program stays symbolic, planned for values up to V), and failing that one with
     `--const NAME=V`; the status column says which.
  5. compares chipless's outputs with ktir-cpu's (max abs error; fp16 tolerance 1e-2 relative
     to the output's magnitude) and prints one table row per kernel.

Speed-up is peer seconds / (compile + functional run); the in-process speed-up is peer seconds /
the host seconds of a warm launch (the third `--launches 3` launch of one prepared program:
the simulation alone, without process start, compile or file I/O). The functional/timing-only
column is the ratio of the two spyre-sim runs' wall times. A kernel chipless cannot compile or run shows
chipless's error in the status column; a kernel the peer cannot run shows the peer's error.
Only numpy is needed besides the peer.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The kernels issue 9 names, measured first (paths relative to the checkout's examples/).
PRIORITY = [
    "latency/softmax_small.mlir",
    "triton-ktir/softmax_fwd_ktir.mlir",
    "triton-ktir/matmul_fwd_ktir.mlir",
    "latency/matmul_small.mlir",
    "latency/rope_fwd_4x2.mlir",
    "triton-ktir/layernorm_fwd_ktir.mlir",
    "latency/rmsnorm_4core_4x1.mlir",
    "triton-ktir/vector_add_ktir.mlir",
    "triton-ktir/paged_attention.mlir",
    "sdsc/sdpa_pv_ksplit.mlir",
]

# Scalar values for arguments the kernels' comments do not give (kernel stem -> name -> value).
# They are the values ktir-cpu's own tests and examples/entries.py pass.
SCALARS = {
    "vector_add_ktir": {"BLOCK_SIZE": 128},
    "layernorm_fwd_ktir": {"N": 8192, "BLOCK_SIZE": 1024, "eps": 1e-5},
    "rmsnorm_4core_4x1": {"eps": 1e-5},
    "rmsnorm_4core_2x2": {"eps": 1e-5},
}

# How chipless names a tensor argument: the SSA name without these suffixes (docs/ktir.md).
POINTER_SUFFIXES = ("_start_address", "_address", "_addr", "_ptr", "_base")

NP = {"f16": np.float16, "f32": np.float32, "i32": np.int32, "i64": np.int64, "index": np.int32,
      "bf16": np.float32}


def chipless_name(ssa):
    for suf in POINTER_SUFFIXES:
        if ssa.endswith(suf) and len(ssa) > len(suf):
            return ssa[: -len(suf)]
    return ssa


def short_error(text, limit=150):
    """The first line of a tool's output that says what went wrong, shortened."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    pick = None
    for l in lines:
        if "error" in l.lower():
            pick = l
            break
    if pick is None:
        pick = lines[-1] if lines else "(no output)"
    pick = re.sub(r"\s+", " ", pick)
    return pick if len(pick) <= limit else pick[: limit - 3] + "..."


def comment_scalars(text):
    """Scalar values from the kernel's own argument comments: `%K: index, // 2048`."""
    out = {}
    for m in re.finditer(r"%(\w+)\s*:\s*(index|i32|i64|f16|f32)\s*,?\s*//\s*([-+0-9.eE]+)", text):
        v = m.group(3)
        try:
            out[m.group(1)] = int(v)
        except ValueError:
            try:
                out[m.group(1)] = float(v)
            except ValueError:
                pass
    return out


def make_inputs(name, sizes):
    """One array per tensor argument of the peer: normal * 0.5 floats, small integers."""
    arrays = {}
    for arg, info in sizes.items():
        dtype = info.get("dtype", "f16")
        shape = tuple(info.get("shape", ()))
        rng = np.random.default_rng(zlib.crc32(("%s/%s" % (name, arg)).encode()))
        npt = NP.get(dtype, np.float16)
        if np.issubdtype(npt, np.integer):
            arrays[arg] = rng.integers(0, 8, size=shape).astype(npt)
        else:
            arrays[arg] = (rng.standard_normal(shape, dtype=np.float32) * 0.5).astype(npt)
    return arrays


class Peer:
    """ktir-cpu, imported from the checkout."""

    def __init__(self, checkout):
        sys.path.insert(0, checkout)
        import ktir_cpu  # noqa: F401  (the checkout's package)
        from ktir_cpu import KTIRInterpreter
        self.Interp = KTIRInterpreter
        self.version = "%s (%s)" % (getattr(ktir_cpu, "__version__", "?"), os.path.dirname(ktir_cpu.__file__))

    def describe(self, path):
        interp = self.Interp()
        interp.load(path)
        funcs = list(interp.module.functions.values())
        if not funcs:
            raise RuntimeError("ktir-cpu found no func.func in the file")
        f = funcs[0]
        args = [(n.lstrip("%"), t) for n, t in f.arguments]
        sizes = interp.tensor_input_output_sizes(f.name)
        return interp, f.name, args, sizes

    @staticmethod
    def run(interp, func, kwargs):
        fresh = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        t0 = time.perf_counter()
        out = interp.execute_function(func, **fresh)
        return time.perf_counter() - t0, out


def run_tool(cmd, timeout):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, 124, "timed out after %d s" % timeout
    except OSError as e:
        return time.perf_counter() - t0, 127, "cannot run %s: %s" % (cmd[0], e)
    return time.perf_counter() - t0, p.returncode, p.stdout


def host_seconds(text):
    m = re.search(r"host seconds\s+([0-9.]+)", text)
    return float(m.group(1)) if m else None


def stage_times(text):
    """spyre-compile --timing: '  stage   0.018 s' lines."""
    return {m.group(1).strip(): float(m.group(2))
            for m in re.finditer(r"^\s+([a-zA-Z+ ]+?)\s+([0-9.]+) s$", text, re.M)}


def chipless(kernel_path, stem, args, scalars, arrays, build, work, repeat, timeout):
    """Compile and run one kernel with chipless. Returns a result dict."""
    compile_bin = os.path.join(build, "bin", "spyre-compile")
    sim_bin = os.path.join(build, "bin", "spyre-sim")
    r = {"compile": None, "run": None, "warm": None, "timing_only": None, "status": "",
         "outputs": {},
         "flags": [], "detail": {}}
    out_dir = os.path.join(work, stem + ".prog")
    shutil.rmtree(out_dir, ignore_errors=True)
    dt, rc, text = run_tool([compile_bin, kernel_path, "-o", out_dir, "--timing"], timeout)
    if rc != 0:
        # A view sized by a plain integer argument needs its bounds (`--bound NAME=MAX`, the
        # program stays symbolic); failing that, the integers are fixed (`--const`).
        first_error = short_error(text)
        int_scalars = {n: v for n, v in scalars.items()
                       if isinstance(v, int) and any(a == n and t.split()[0] in ("index", "i32", "i64")
                                                     for a, t in args if t.split())}
        if not int_scalars:
            r["status"] = "chipless compile: " + first_error
            return r
        errors = []
        for option in ("--bound", "--const"):
            flags = []
            for n, v in int_scalars.items():
                flags += [option, "%s=%d" % (n, v)]
            shutil.rmtree(out_dir, ignore_errors=True)
            dt2, rc2, text2 = run_tool([compile_bin, kernel_path, "-o", out_dir, "--timing"] + flags,
                                       timeout)
            if rc2 == 0:
                r["flags"] = flags
                r["detail"]["error without " + option] = first_error
                dt, rc, text = dt2, rc2, text2
                break
            errors.append("with %s: %s" % (option, short_error(text2, 100)))
        if rc != 0:
            r["status"] = "chipless compile: %s (%s)" % (first_error, "; ".join(errors))
            return r
    best = dt
    for _ in range(repeat - 1):
        d, rc_, t_ = run_tool([compile_bin, kernel_path, "-o", out_dir + ".rep", "--timing"] +
                              r.get("flags", []), timeout)
        shutil.rmtree(out_dir + ".rep", ignore_errors=True)
        if rc_ == 0:
            best = min(best, d)
    r["compile"] = best
    r["detail"]["compile stages"] = stage_times(text)
    try:
        with open(os.path.join(out_dir, "job.plan")) as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        r["status"] = "chipless: cannot read job.plan: %s" % e
        return r
    by_chipless = {chipless_name(a): a for a, _ in args}
    by_chipless.update({a: a for a, _ in args})
    io = []
    outputs = {}
    for a in plan.get("arguments", []):
        peer_arg = by_chipless.get(a["name"])
        if peer_arg is None or peer_arg not in arrays:
            r["status"] = "chipless plan argument %s has no ktir-cpu tensor" % a["name"]
            return r
        if a["role"] in ("input", "inout"):
            path = os.path.join(work, "%s.in.%s.npy" % (stem, a["name"]))
            np.save(path, arrays[peer_arg])
            io += ["--input", "%s=%s" % (a["name"], path)]
        if a["role"] in ("output", "inout"):
            path = os.path.join(work, "%s.out.%s.npy" % (stem, a["name"]))
            io += ["--output", "%s=%s" % (a["name"], path)]
            outputs[peer_arg] = path
    sc = []
    for s in plan.get("scalars", []):
        n = s["name"]
        if n not in scalars:
            r["status"] = "no value for chipless scalar %s" % n
            return r
        v = scalars[n]
        sc += ["--scalar", "%s=%s" % (n, v)]
    plan_path = os.path.join(out_dir, "job.plan")
    times = []
    for _ in range(max(1, repeat)):
        d, rc, text = run_tool([sim_bin, "run", plan_path] + io + sc, timeout)
        if rc != 0:
            r["status"] = "chipless run: " + short_error(text)
            return r
        times.append(d)
        r["detail"]["functional host seconds"] = host_seconds(text)
    r["run"] = min(times)
    # A warm launch: one process prepares the job and launches it three times; the last
    # launch's host seconds is the simulation alone, as a program prepared once and launched
    # many times in process (the Python module) pays it.
    d, rc, text = run_tool([sim_bin, "run", plan_path, "--launches", "3"] + io + sc, timeout)
    if rc == 0:
        r["warm"] = host_seconds(text)
    times = []
    for _ in range(max(1, repeat)):
        d, rc, text = run_tool([sim_bin, "run", plan_path, "--timing-only"] + sc, timeout)
        if rc != 0:
            r["status"] = "chipless timing-only run: " + short_error(text)
            break
        times.append(d)
        r["detail"]["timing-only host seconds"] = host_seconds(text)
        m = re.search(r"simulated cycles\s+(\d+)", text)
        if m:
            r["detail"]["cycles"] = int(m.group(1))
    r["timing_only"] = min(times) if times else None
    for peer_arg, path in outputs.items():
        try:
            r["outputs"][peer_arg] = np.load(path)
        except OSError:
            pass
    return r


def compare_outputs(peer_out, chip_out, arrays):
    """Max abs error over the tensors chipless wrote; relative check at fp16 precision."""
    worst = 0.0
    ok = True
    compared = []
    for name, got in chip_out.items():
        ref = peer_out.get(name)
        if ref is None:
            continue
        ref = np.asarray(ref, dtype=np.float64).reshape(-1)
        got = np.asarray(got, dtype=np.float64).reshape(-1)
        if ref.shape != got.shape:
            return None, False, "shape %s vs %s for %s" % (got.shape, ref.shape, name)
        finite = np.isfinite(ref) & np.isfinite(got)
        err = float(np.max(np.abs(ref[finite] - got[finite]))) if finite.any() else 0.0
        if (np.isfinite(ref) != np.isfinite(got)).any():
            ok = False
        scale = max(1.0, float(np.max(np.abs(ref[finite]))) if finite.any() else 1.0)
        if err > 1e-2 * scale:
            ok = False
        worst = max(worst, err)
        compared.append(name)
    if not compared:
        return None, False, "no output to compare"
    return worst, ok, ""


def fmt(v, spec="%.3f"):
    return "-" if v is None else spec % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout", help="path of a ktir-cpu working copy")
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="chipless build directory")
    ap.add_argument("--only", action="append", default=[],
                    help="run only kernels whose path contains NAME (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="best of N timings (default 1)")
    ap.add_argument("--workdir", default=None, help="keep programs and .npy files here")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per tool invocation")
    ap.add_argument("--json", default=None, help="also write the results as JSON here")
    opts = ap.parse_args()

    checkout = os.path.abspath(opts.checkout)
    if not os.path.isdir(checkout):
        print("compare.py: skipped: no ktir-cpu checkout at %s" % checkout)
        return 0
    if not os.path.isdir(os.path.join(checkout, "ktir_cpu")):
        print("compare.py: skipped: %s has no ktir_cpu/ package" % checkout)
        return 0
    for tool in ("spyre-compile", "spyre-sim"):
        if not os.access(os.path.join(opts.build, "bin", tool), os.X_OK):
            print("compare.py: warning: %s/bin/%s is missing; chipless columns will say so"
                  % (opts.build, tool), file=sys.stderr)

    peer = Peer(checkout)
    ex = os.path.join(checkout, "examples")
    found = sorted(glob.glob(os.path.join(ex, "**", "*.mlir"), recursive=True) +
                   glob.glob(os.path.join(ex, "**", "*.ktir"), recursive=True))
    rel = [os.path.relpath(p, ex) for p in found]
    order = [k for k in PRIORITY if k in rel] + [k for k in rel if k not in PRIORITY]
    missing = [k for k in PRIORITY if k not in rel]
    if opts.only:
        order = [k for k in order if any(o in k for o in opts.only)]

    work = opts.workdir or tempfile.mkdtemp(prefix="ktir-compare-")
    os.makedirs(work, exist_ok=True)
    rows = []
    for k in order:
        path = os.path.join(ex, k)
        stem = os.path.splitext(os.path.basename(k))[0]
        row = {"kernel": os.path.splitext(k)[0], "peer": None, "compile": None, "run": None,
               "warm": None, "timing_only": None, "status": "", "max_abs_err": None}
        rows.append(row)
        print("== %s" % row["kernel"], file=sys.stderr, flush=True)
        try:
            interp, func, args, sizes = peer.describe(path)
        except Exception as e:  # noqa: BLE001  (the peer's parse error is a result)
            row["status"] = "ktir-cpu parse: %s" % short_error(str(e) or repr(e))
            continue
        text = open(path).read()
        scalars = comment_scalars(text)
        scalars.update(SCALARS.get(stem, {}))
        arrays = make_inputs(stem, sizes)
        kwargs = {}
        problems = []
        for a, t in args:
            if a in arrays:
                kwargs[a] = arrays[a]
            elif a in scalars:
                kwargs[a] = scalars[a]
            else:
                problems.append(a)
        if problems:
            row["status"] = "no value for argument(s) %s" % ", ".join(problems)
        peer_out = None
        try:
            best = None
            for _ in range(max(1, opts.repeat)):
                dt, peer_out = peer.run(interp, func, kwargs)
                best = dt if best is None else min(best, dt)
            row["peer"] = best
        except Exception as e:  # noqa: BLE001
            row["status"] = "ktir-cpu run: %s" % short_error(str(e) or repr(e))
            peer_out = None
        c = chipless(path, stem, args, scalars, arrays, opts.build, work, max(1, opts.repeat),
                     opts.timeout)
        row.update({"compile": c["compile"], "run": c["run"], "warm": c["warm"],
                    "timing_only": c["timing_only"],
                    "detail": c["detail"]})
        status = c["status"]
        if not status and c["outputs"] and peer_out is not None:
            err, ok, why = compare_outputs(peer_out, c["outputs"], arrays)
            row["max_abs_err"] = err
            status = ("ok" if ok else "MISMATCH") + (" (%s)" % why if why else "")
        elif not status and peer_out is None and c["run"] is not None:
            status = "chipless ran; no peer result to compare"
        if c["flags"]:
            status += " [%s]" % " ".join(c["flags"])
        row["status"] = (row["status"] + "; " if row["status"] else "") + status

    hdr = ("kernel", "peer s", "compile s", "run s", "t-only s", "speed-up", "func/t-only",
           "warm launch s", "in-process speed-up", "max err", "status")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "|".join(["---"] + ["---:"] * 9 + ["---"]) + "|")
    for r in rows:
        total = (r["compile"] or 0) + (r["run"] or 0) if r["compile"] is not None and r["run"] is not None else None
        speed = r["peer"] / total if r["peer"] is not None and total else None
        ratio = r["run"] / r["timing_only"] if r["run"] and r["timing_only"] else None
        warm = r.get("warm")
        in_process = r["peer"] / warm if r["peer"] is not None and warm else None
        r["speedup"] = speed
        r["functional_over_timing_only"] = ratio
        r["in_process_speedup"] = in_process
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["kernel"], fmt(r["peer"]), fmt(r["compile"]), fmt(r["run"]), fmt(r["timing_only"]),
            fmt(speed, "%.1fx"), fmt(ratio, "%.1f"), fmt(warm), fmt(in_process, "%.0fx"),
            fmt(r["max_abs_err"], "%.3g"), r["status"].replace("|", "/")))
    if missing:
        print("\nnot in this checkout: %s" % ", ".join(missing))
    print("\npeer: ktir-cpu %s; chipless: %s; work files: %s" % (peer.version, opts.build, work))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
