#!/usr/bin/python3
"""Snapshot of every bundled workload, to prove that a refactoring changed nothing.

    /usr/bin/python3 scripts/snapshot.py BUILD_DIR OUT_DIR [--only SUBSTRING] [--jobs 1|2] [--full]

For every workload (models/kernels/*.s and *.mlir, models/dataflow/*.mlir,
models/tpu-kernels/*.s, models/graphs/*.mlir for v4, v5e and v6e (spyre_*.mlir with
spyre-compile, the bf16 blocks with both), and the
public KTIR samples in ../shared/ktir-examples) the script

  1. compiles / assembles it into OUT_DIR/<name>/prog (stage dumps in OUT_DIR/<name>/dump),
  2. writes inputs OUT_DIR/<name>/in-ARG.npy from fixed seeds (crc32 of "<name>/<ARG>") and
     runs it once with spyre-sim / tpu-sim, writing every output (out-ARG.npy), stats.json
     and trace.json,
  3. runs it once more with --timing-only (stats-timing.json); each graph is also compiled
     for v5p (graph-<stem>-v5p) and only run with --timing-only there,

and writes OUT_DIR/MANIFEST.txt (the exact commands, run with OUT_DIR as the working
directory, so the paths in them are relative to it) and OUT_DIR/SKIPPED.txt (what was not
run, and why). Tool output goes to OUT_DIR/<name>/log.txt without the lines that carry host
wall-clock time. Two runs on the same build give byte-identical trees (compare them with
scripts/snapshot-diff.sh A B). Only numpy is needed.

Exit status: 0 when every command that was meant to run succeeded, 1 otherwise.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import numpy as np

import random_inputs  # the input generators, shared with the README's inputs
from random_inputs import NP_DTYPES, host_shape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "models")
EXAMPLES = os.path.normpath(os.path.join(ROOT, "..", "shared", "ktir-examples"))
TPU_GENERATIONS = ("v4", "v5e", "v6e")  # functional + timing runs
TPU_TIMING_ONLY_GENERATIONS = ("v5p",)  # timing run only
COMMAND_TIMEOUT_S = 600


# ------------------------------------------------------------------------------------------
# Per-workload special cases (keyed by the workload's base name: <kind>-<file stem>).
# Values follow the end-to-end tests (tests/e2e/*.cpp) where they exist.
# ------------------------------------------------------------------------------------------

# Launch scalars. Every scalar a job plan declares must be listed here.
SCALARS = {
    "kernel-add": {"N": 4096},                        # add_kernel_test.cpp: [32, 4096]
    "kernel-matmul": {"M": 256, "K": 256, "N": 256},  # matmul_kernel_test.cpp: 256^3
    "kernel-softmax": {"R": 64, "N": 1024},           # softmax_kernel_test.cpp
    "dataflow-add": {"N": 4096},                      # tests/lit/dataflow/emit-run.mlir
    "dataflow-softmax": {"R": 64, "N": 1024},
    "ktir-vadd_dynamic": {"n": 40 * 4096},            # ktir_op_kernels_test.cpp, README
    "tpu-kernel-add": {"R": 100, "N": 300},           # tpu_add_test.cpp (padded shape)
    "tpu-kernel-gemm": {"M": 200, "K": 300, "N": 260, "MB": 200},  # tpu_gemm_test.cpp
    "tpu-kernel-allreduce": {"L": 1000},              # tpu_allreduce_test.cpp
}

# Extra simulator options (both runs).
SIM_OPTIONS = {
    "tpu-kernel-allreduce": ["--chips", "8"],  # host shape [8, L]: one block per chip
}

# spyre-compile flags (bench/ktir_compile_times.sh, tests/e2e/ktir_examples_test.cpp).
COMPILE_FLAGS = {
    "example-add-with-control-flow": ["--grid", "32"],
    "example-ring_reduce_inner_loop": ["--const", "n_iters=5"],
    "example-distributed-view-copy-dynamic": ["--const", "s0_in=32"],
    "example-distributed-view-copy-rowmerge-dynamic": ["--const", "s0_in=32"],
}

# Functional runs done on one generation only (the others get the compile and the timing-only
# run): the 550 GFLOP MLP takes over a minute per functional run; --full runs them all.
ONE_GENERATION = {"graph-mlp_2048x4096": "v5e"}

# The longest workloads (seconds of one functional run on a 2-core machine), started first so
# that two workers finish together; everything else takes about a second.
LONG = {"graph-mlp_2048x4096": 75, "example-paged-tensor-write": 30,
        "example-paged-tensor-copy": 28, "graph-gemm_4096": 20, "ktir-matmul_2048": 5,
        "ktir-add_4096x4096": 4}


# Blocks (bf16 graphs) that spyre-compile takes as well as tpu-compile.
BOTH_CHIPS = {"gpt2_block", "llama_block", "bert_layer"}


def rng_for(name, arg):
    return random_inputs.rng_for("%s/%s" % (name, arg))


def normal(name, arg, shape, dtype, scale=0.5):
    return random_inputs.normal(rng_for(name, arg), shape, dtype, scale)


def causal_mask(name, arg, shape, dtype):
    i = np.arange(shape[-2])[:, None]
    j = np.arange(shape[-1])[None, :]
    m = np.where(j <= i, 0.0, -np.inf)
    return np.broadcast_to(m, shape).astype(NP_DTYPES[dtype])


def indices(bound):
    def make(name, arg, shape, dtype):
        return random_inputs.small_ints(rng_for(name, arg), shape, dtype, bound)
    return make


def scaled(scale):
    def make(name, arg, shape, dtype):
        return normal(name, arg, shape, dtype, scale)
    return make


def rope_table(fn):
    def make(name, arg, shape, dtype):
        s = np.arange(shape[0], dtype=np.float64)[:, None]
        i = np.arange(shape[1], dtype=np.float64)[None, :]
        return fn(s * np.power(10000.0, -i / shape[1])).astype(NP_DTYPES[dtype])
    return make


def negative(name, arg, shape, dtype):
    # reduce_multiop: every value negative (padding lanes holding zeros would win a max).
    x = rng_for(name, arg).standard_normal(shape, dtype=np.float32) * np.float32(0.5)
    return (-np.abs(x) - np.float32(0.5)).astype(NP_DTYPES[dtype])


PAGES = 10000  # pages of the paged samples' page pool


def page_table(name, arg, shape, dtype):
    # Distinct pages out of the 10000 of the pool (ktir_examples_test.cpp).
    n = int(np.prod(shape))
    perm = rng_for(name, arg).permutation(PAGES)[:n]
    return perm.reshape(shape).astype(NP_DTYPES[dtype])


# Inputs whose values matter: name -> {argument: maker(name, arg, shape, dtype)}.
# Every other float input is standard normal * 0.5, every other integer input uniform in [0, 8).
INPUTS = {
    "example-indirect-access-copy": {"IDX1": indices(64)},
    "example-indirect-scatter": {"IDX1": indices(64)},
    "example-reduce_multiop": {"arg0": negative},
    "example-ffn_swiglu": {"w_gate": scaled(0.125), "w_up": scaled(0.125), "w_down": scaled(0.125)},
    "example-ffn_swiglu_4core": {"w_gate": scaled(0.0625), "w_up": scaled(0.0625),
                                 "w_down": scaled(0.0625)},
    "example-paged-tensor-copy": {"Idx": page_table},
    "example-paged-tensor-write": {"Idx": page_table},
    "ktir-embedding_gather": {"ids": indices(4096)},
    "ktir-attention": {"mask": causal_mask},
    "ktir-attention_transpose": {"mask": causal_mask},
    "ktir-attention_mha": {"mask": causal_mask},
    "ktir-rope": {"cos": rope_table(np.cos), "sin": rope_table(np.sin)},
    "ktir-softmax_rows": {"X": scaled(2.0)},
    "ktir-layernorm": {"X": scaled(1.5)},
    "ktir-rmsnorm": {"X": scaled(1.0)},
    "ktir-swiglu_ffn": {"Wg": scaled(0.044), "Wu": scaled(0.044), "Wd": scaled(0.022)},
    "ktir-intrinsics": {"X": scaled(2.0)},  # M2 is derived from M below
    "kernel-softmax": {"X": scaled(2.0)},
    "dataflow-softmax": {"X": scaled(2.0)},
}

# Inputs too large to generate and store in full (the 1.3 GB page pool of paged-tensor-copy):
# written as a sparse .npy file, zeros except the pages the page table names, which hold
# normal values (as the test fills them).
SPARSE_PAGED_INPUTS = {"example-paged-tensor-copy": ("X", "Idx")}


# ------------------------------------------------------------------------------------------
# Workloads
# ------------------------------------------------------------------------------------------

class Workload:
    def __init__(self, name, base, sim, compile_cmds, arch=None):
        self.name = name            # directory under OUT_DIR
        self.base = base            # key of the tables above
        self.sim = sim              # "spyre-sim" or "tpu-sim"
        self.compile_cmds = compile_cmds
        self.arch = arch            # --arch FILE for the simulator (TPU graphs)
        self.functional = True      # False: the timing-only run alone
        self.left_out = None        # why the functional run is left out (for SKIPPED.txt)


def files(directory, *patterns):
    out = []
    if os.path.isdir(directory):
        for f in sorted(os.listdir(directory)):
            if any(f.endswith(p) for p in patterns):
                out.append(os.path.join(directory, f))
    return out


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def workloads(build, full=False):
    b = lambda tool: os.path.join(build, "bin", tool)
    out = []
    for src in files(os.path.join(MODELS, "kernels"), ".s"):
        n = "kernel-" + stem(src)
        out.append(Workload(n, n, "spyre-sim", [[b("spyre-as"), src, "-o", n + "/prog"]]))
    for src in files(os.path.join(MODELS, "kernels"), ".mlir"):
        n = "ktir-" + stem(src)
        out.append(Workload(n, n, "spyre-sim", [[b("spyre-compile"), src, "-o", n + "/prog",
                                                 "--dump-dir", n + "/dump"] +
                                                COMPILE_FLAGS.get(n, [])]))
    for src in files(os.path.join(MODELS, "dataflow"), ".mlir"):
        n = "dataflow-" + stem(src)
        # docs/dataflow-ir.md, tests/lit/dataflow/emit-run.mlir; the printed IR kept too.
        out.append(Workload(n, n, "spyre-sim", [[b("dfir-opt"), src, "--emit-spyrecode=" + n + "/prog",
                                                 "-o", n + "/dfir-opt.mlir"]]))
    for src in files(EXAMPLES, ".mlir", ".ktir"):
        n = "example-" + stem(src)
        out.append(Workload(n, n, "spyre-sim", [[b("spyre-compile"), src, "-o", n + "/prog",
                                                 "--dump-dir", n + "/dump"] +
                                                COMPILE_FLAGS.get(n, [])]))
    for src in files(os.path.join(MODELS, "tpu-kernels"), ".s"):
        n = "tpu-kernel-" + stem(src)
        out.append(Workload(n, n, "tpu-sim", [[b("tpu-as"), src, "-o", n + "/prog"]]))
    for src in files(os.path.join(MODELS, "graphs"), ".mlir"):
        base = "graph-" + stem(src)
        if stem(src).startswith("spyre_") or stem(src) in BOTH_CHIPS:
            # Graphs for the Spyre front end (docs/frontend.md).
            n = base if stem(src).startswith("spyre_") else base + "-spyre"
            out.append(Workload(n, base, "spyre-sim", [[b("spyre-compile"), src, "-o",
                                                        n + "/prog", "--dump-dir",
                                                        n + "/dump"]]))
            if stem(src).startswith("spyre_"):
                continue
        for gen in TPU_GENERATIONS + TPU_TIMING_ONLY_GENERATIONS:
            n = "%s-%s" % (base, gen)
            arch = os.path.join(MODELS, "hw", "tpu-%s.yaml" % gen)
            w = Workload(n, base, "tpu-sim", [[b("tpu-compile"), src, "-o", n + "/prog",
                                               "--dump-dir", n + "/dump", "--arch", arch]], arch)
            w.functional = gen not in TPU_TIMING_ONLY_GENERATIONS
            if w.functional and not full and ONE_GENERATION.get(base, gen) != gen:
                w.functional = False
                w.left_out = ("functional run only on %s (over a minute per run; "
                              "--full runs it here too)" % ONE_GENERATION[base])
            out.append(w)
    return out


# ------------------------------------------------------------------------------------------
# job.plan and inputs
# ------------------------------------------------------------------------------------------

def read_plan(path):
    with open(path) as f:
        return json.load(f)


def chips_of(w):
    opts = SIM_OPTIONS.get(w.base, [])
    return int(opts[opts.index("--chips") + 1]) if "--chips" in opts else 1


def scalar_values(w, plan):
    """Values of the plan's scalars, from SCALARS, checked against the plan's constraints."""
    table = SCALARS.get(w.base, {})
    values = {}
    for s in plan.get("scalars", []):
        name = s["name"]
        if name not in table:
            raise RuntimeError("scalar '%s' has no value in SCALARS[%r] of scripts/snapshot.py"
                               % (name, w.base))
        v = table[name]
        error = random_inputs.check_scalar(s, v)
        if error:
            raise RuntimeError(error)
        values[name] = v
    return values


def default_input(name, arg, shape, dtype):
    return random_inputs.random_values(rng_for(name, arg), shape, dtype)


def write_sparse_pages(path, dtype, shape, table, name, arg):
    """A .npy of `shape`, zeros except the pages (along dimension 0) that `table` names, each
    of which gets normal values; the zeros are left as holes of a sparse file."""
    dt = np.dtype(NP_DTYPES[dtype])
    page_elems = int(np.prod(shape[1:]))
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": np.lib.format.dtype_to_descr(dt), "fortran_order": False, "shape": shape})
        start = f.tell()
        f.truncate(start + int(np.prod(shape)) * dt.itemsize)
        rng = rng_for(name, arg)
        for page in table.reshape(-1):  # in page-table order, one generator for all pages
            f.seek(start + int(page) * page_elems * dt.itemsize)
            f.write((rng.standard_normal(page_elems, dtype=np.float32) * np.float32(0.5))
                    .astype(dt).tobytes())


def make_inputs(w, plan, scalars, wdir):
    """Writes in-ARG.npy for every input and inout; returns [(arg name, relative path)]."""
    chips = chips_of(w)
    special = INPUTS.get(w.base, {})
    made, written = {}, []
    sparse = SPARSE_PAGED_INPUTS.get(w.base)
    for a in plan["arguments"]:
        if a["role"] == "output":
            continue
        name, dtype = a["name"], a["dtype"]
        if dtype not in NP_DTYPES:
            raise RuntimeError("argument %s: no numpy type for dtype %s" % (name, dtype))
        shape = host_shape(a, scalars, chips)
        rel = "%s/in-%s.npy" % (w.name, name)
        written.append((name, rel))
        if sparse and name == sparse[0]:
            continue  # after its page table
        x = special.get(name, default_input)(w.name, name, shape, dtype)
        made[name] = x
        np.save(os.path.join(wdir, "in-%s.npy" % name), x)
    if sparse:
        arg = next(a for a in plan["arguments"] if a["name"] == sparse[0])
        write_sparse_pages(os.path.join(wdir, "in-%s.npy" % sparse[0]), arg["dtype"],
                           host_shape(arg, scalars, chips), made[sparse[1]], w.name, sparse[0])
    if w.base == "ktir-intrinsics":
        # A mean of squares above the squared mean: a positive variance (as the test makes it).
        m, m2 = made["M"].astype(np.float32), made["M2"].astype(np.float32)
        np.save(os.path.join(wdir, "in-M2.npy"), (m * m + 0.25 + np.abs(m2)).astype(made["M2"].dtype))
    return written


# ------------------------------------------------------------------------------------------
# Running
# ------------------------------------------------------------------------------------------

HOST_TIME = re.compile(r"host seconds|cycles/s|wall|elapsed", re.IGNORECASE)


def run_cmd(cmd, out_dir, log):
    """Runs cmd with OUT_DIR as working directory; appends its output (without host-time
    lines) to log; raises on failure with the first error line."""
    log.append("$ " + shlex.join(cmd))
    try:
        p = subprocess.run(cmd, cwd=out_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        log.append("timed out after %d s" % COMMAND_TIMEOUT_S)
        raise RuntimeError("timed out after %d s: %s" % (COMMAND_TIMEOUT_S, shlex.join(cmd)))
    text = p.stdout.decode("utf-8", "replace")
    log.extend(line for line in text.splitlines() if not HOST_TIME.search(line))
    if p.returncode != 0:
        log.append("exit status %d" % p.returncode)
        first = next((l for l in text.splitlines() if "error" in l.lower()), text.strip()[:300])
        raise RuntimeError("exit status %d: %s" % (p.returncode, first.strip()))


def sim_base(w, build):
    cmd = [os.path.join(build, "bin", w.sim), "run", w.name + "/prog/job.plan"]
    if w.arch:
        cmd += ["--arch", w.arch]
    return cmd + SIM_OPTIONS.get(w.base, [])


def process(w, build, out_dir):
    """Compiles and runs one workload; returns (commands, skipped reasons, failed?, seconds)."""
    t0 = time.time()
    wdir = os.path.join(out_dir, w.name)
    shutil.rmtree(wdir, ignore_errors=True)
    os.makedirs(wdir)
    cmds, skipped, log, failed = [], [], [], False

    def step(cmd):
        cmds.append(cmd)
        run_cmd(cmd, out_dir, log)

    try:
        for c in w.compile_cmds:
            step(c)
        plan = read_plan(os.path.join(wdir, "prog", "job.plan"))
        scalars = scalar_values(w, plan)
        scalar_args = [x for k in sorted(scalars) for x in ("--scalar", "%s=%d" % (k, scalars[k]))]
    except Exception as e:  # nothing to run
        skipped.append("not compiled: %s" % e)
        failed = True
        plan = None
    if plan is not None and w.functional:
        try:
            ins = make_inputs(w, plan, scalars, wdir)
            cmd = sim_base(w, build)
            for name, rel in ins:
                cmd += ["--input", "%s=%s" % (name, rel)]
            cmd += scalar_args
            for a in plan["arguments"]:
                if a["role"] in ("output", "inout"):
                    cmd += ["--output", "%s=%s/out-%s.npy" % (a["name"], w.name, a["name"])]
            cmd += ["--stats", w.name + "/stats.json", "--trace", w.name + "/trace.json"]
            step(cmd)
        except Exception as e:
            skipped.append("functional run failed: %s" % e)
            failed = True
    if plan is not None and w.left_out:
        skipped.append("functional run left out: " + w.left_out)
    if plan is not None:
        try:
            step(sim_base(w, build) + ["--timing-only"] + scalar_args +
                 ["--stats", w.name + "/stats-timing.json"])
        except Exception as e:
            skipped.append("timing-only run failed: %s" % e)
            failed = True
    with open(os.path.join(wdir, "log.txt"), "w") as f:
        f.write("\n".join(log) + "\n")
    return cmds, skipped, failed, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--only", default="", metavar="SUBSTRING",
                    help="only the workloads whose name contains SUBSTRING")
    ap.add_argument("--full", action="store_true",
                    help="also the functional runs done on one generation only by default")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2),
                    help="workloads run at the same time (default 2)")
    args = ap.parse_args()
    build = os.path.abspath(args.build_dir)
    out_dir = os.path.abspath(args.out_dir)
    for tool in ("spyre-as", "spyre-compile", "spyre-sim", "dfir-opt", "tpu-as", "tpu-compile",
                 "tpu-sim"):
        if not os.access(os.path.join(build, "bin", tool), os.X_OK):
            sys.exit("snapshot: no %s in %s/bin" % (tool, build))
    every = workloads(build, args.full)
    todo = [w for w in every if args.only in w.name]
    if not todo:
        sys.exit("snapshot: no workload matches %r" % args.only)
    manifest = os.path.join(out_dir, "MANIFEST.txt")
    if os.path.isdir(out_dir) and os.listdir(out_dir) and not os.path.exists(manifest):
        sys.exit("snapshot: %s is not empty and holds no MANIFEST.txt: not a snapshot, "
                 "not touching it" % out_dir)
    if not args.only and os.path.isdir(out_dir):  # a whole new snapshot: nothing stale stays
        for entry in os.listdir(out_dir):
            path = os.path.join(out_dir, entry)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    os.makedirs(out_dir, exist_ok=True)
    # With --only, the lines of the other workloads in MANIFEST.txt / SKIPPED.txt are kept.
    kept = {"MANIFEST.txt": {}, "SKIPPED.txt": {}}
    selected = {w.name for w in todo}
    for fname, lines in kept.items():
        path = os.path.join(out_dir, fname)
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    n = line.split(":", 1)[0]
                    if not line.startswith("#") and n not in selected:
                        lines.setdefault(n, []).append(line.rstrip("\n"))
    if not os.path.isdir(EXAMPLES):
        print("snapshot: warning: no KTIR samples at %s" % EXAMPLES, file=sys.stderr)

    t0 = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        order = sorted(todo, key=lambda w: -LONG.get(w.base, 0))  # stable: longest first
        futures = {pool.submit(process, w, build, out_dir): w for w in order}
        for fut in concurrent.futures.as_completed(futures):
            w = futures[fut]
            results[w.name] = fut.result()
            cmds, skipped, failed, secs = results[w.name]
            print("%-52s %6.1f s%s" % (w.name, secs, "  FAILED" if failed else
                                        ("  (partly skipped)" if skipped else "")), flush=True)

    header = ("# scripts/snapshot.py: the commands run for each workload, in order, with OUT_DIR as "
              "the working directory.\n# Inputs OUT_DIR/<name>/in-ARG.npy are written by the script "
              "(numpy default_rng(crc32('<name>/<ARG>')), special cases in its tables).\n")
    for w in todo:
        kept["MANIFEST.txt"][w.name] = ["%s: %s" % (w.name, " && ".join(shlex.join(c) for c in
                                                                      results[w.name][0]))]
        kept["SKIPPED.txt"][w.name] = ["%s: %s" % (w.name, r) for r in results[w.name][1]]
    rank = {w.name: i for i, w in enumerate(every)}
    for fname, lines in kept.items():
        with open(os.path.join(out_dir, fname), "w") as f:
            if fname == "MANIFEST.txt":
                f.write(header)
            for n in sorted(lines, key=lambda n: (rank.get(n, len(rank)), n)):
                for line in lines[n]:
                    f.write(line + "\n")
    failed = [w.name for w in todo if results[w.name][2]]
    print("snapshot: %d workloads in %.1f s; %d failed%s" %
          (len(todo), time.time() - t0, len(failed), (": " + ", ".join(failed)) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
