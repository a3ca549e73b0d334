#!/usr/bin/env python3
"""Runs chipless's libFuzzer harnesses (tests/fuzz/harness, built in the SAN=1 tree).

For each harness named (all when none is): every checked-in crash input of
tests/fuzz/crashes/HARNESS is run once (the regression test of each find), then the harness
fuzzes, starting from its seeds: the checked-in corpus tests/fuzz/corpus/HARNESS and the
bundled inputs of its reader (models/, the lit tests, the public KTIR samples when present,
each '// -----' chunk a seed of its own), with the dictionary tests/fuzz/dict/HARNESS.dict.
It stops after --runs inputs or --seconds of fuzzing. A crash, a leak, a hang (--timeout per
input) or a run out of memory fails the harness; libFuzzer's reproducer is kept in
WORK/HARNESS/ (named on stderr) and its report printed. libFuzzer's own output of each run
is in WORK/HARNESS/fuzz.log (or the build's fuzz/HARNESS/fuzz.log), to follow a long run.
With --workers W, W processes fuzz the harness at once over one corpus (each takes up the
others' new inputs as libFuzzer reloads it), --runs shared between them; worker i > 0 logs
to fuzz.i.log. The inputs reported are the sum over the workers.

  run_fuzzers.py --build-dir build-san --source-dir . [--seconds S | --runs N]
                 [--work DIR] [--examples-dir DIR] [--jobs N] [--workers W] [HARNESS ...]

Without --work the new inputs the harness finds go to a temporary folder; `make fuzz` keeps
them in build-san/fuzz/HARNESS/corpus so that later runs start where this one stopped.
Exit status 0 when every harness passed. Prints one line per harness: inputs run, seconds,
coverage (edges) and features at the end.
"""

import argparse
import concurrent.futures
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SPLIT = re.compile(r"^// -----\s*$", re.M)

# The bundled inputs each harness starts from, as globs relative to the source tree ("@"
# stands for the public KTIR samples folder, --examples-dir).
SEEDS = {
    "fuzz_ktir": ["models/kernels/*.mlir", "tests/lit/*.mlir", "tests/lit/scheduler/*.mlir",
                  "tests/lit/upstream/*.mlir", "tests/lit/upstream/invalid/*.mlir", "@/*.mlir"],
    "fuzz_graph": ["models/graphs/*.mlir"],
    "fuzz_dfir": ["models/dataflow/*.mlir", "tests/lit/dataflow/*.mlir",
                  "tests/lit/dataflow/Inputs/*.mlir"],
    "fuzz_npy": [],
    "fuzz_arch": ["models/hw/*.yaml"],
    "fuzz_spyre_plan": [],
    "fuzz_tpu_plan": [],
    "fuzz_spyre_binary": [],
    "fuzz_tpu_binary": [],
    "fuzz_spyre_asm": ["models/kernels/*.s"],
    "fuzz_tpu_asm": ["models/tpu-kernels/*.s"],
    "fuzz_spyre_launch": [],
    "fuzz_tpu_launch": [],
}

# Longest input each harness is given (libFuzzer's -max_len): room to grow past the largest
# seed without spending the run on huge inputs.
MAX_LEN = {"fuzz_spyre_launch": 65536, "fuzz_tpu_launch": 65536, "fuzz_spyre_binary": 65536,
           "fuzz_tpu_binary": 65536, "fuzz_graph": 16384, "fuzz_ktir": 16384,
           "fuzz_dfir": 16384}


def seed_files(harness, source_dir, examples_dir):
    """The bundled seeds of `harness` as (name, bytes): each '// -----' chunk of an MLIR
    file is a seed of its own."""
    seeds = []
    for pattern in SEEDS[harness]:
        if pattern.startswith("@"):
            if not examples_dir or not os.path.isdir(examples_dir):
                continue
            pattern = os.path.join(examples_dir, pattern[2:])
        else:
            pattern = os.path.join(source_dir, pattern)
        for path in sorted(glob.glob(pattern)):
            with open(path, "rb") as f:
                data = f.read()
            chunks = [data]
            if path.endswith(".mlir"):
                chunks = [c.encode() for c in SPLIT.split(data.decode("utf-8", "replace"))]
            for i, chunk in enumerate(chunks):
                if chunk.strip():
                    seeds.append(("%s.%d" % (os.path.basename(path), i), chunk))
    return seeds


def written_finds(output):
    """The inputs libFuzzer wrote as finds (crash-, leak-, timeout-, oom-), not the slow units
    it also writes (slow-unit-: an input slower than -report_slow_units, not a failure)."""
    return [p for p in re.findall(r"Test unit written to (\S+)", output)
            if not os.path.basename(p).startswith("slow-unit-")]


def final_stats(output):
    """(inputs run, edges covered, features) from libFuzzer's -print_final_stats output."""
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", output)
    cov = re.findall(r"\bcov: (\d+) ft: (\d+)", output)
    return (int(runs[-1]) if runs else 0,
            int(cov[-1][0]) if cov else 0, int(cov[-1][1]) if cov else 0)


def wait_all(procs):
    """The exit status of each process; once one fails, the others are interrupted (libFuzzer
    then prints its statistics and stops) so that a find ends the run at once."""
    while True:
        codes = [p.poll() for p in procs]
        if all(c is not None for c in codes):
            return codes
        if any(c not in (None, 0) for c in codes):
            for p, c in zip(procs, codes):
                if c is None:
                    p.send_signal(signal.SIGINT)
            return [p.wait() if c is None else c for p, c in zip(procs, codes)]
        time.sleep(0.5)


def run_harness(harness, args):
    binary = os.path.join(args.build_dir, "bin", harness)
    if not os.access(binary, os.X_OK):
        print("%s: not built (cmake --build %s --target fuzzers)" % (harness, args.build_dir),
              file=sys.stderr)
        return False
    fuzz_dir = os.path.join(args.source_dir, "tests", "fuzz")
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1",
               ASAN_OPTIONS="detect_leaks=1:leak_check_at_exit=0:allocator_may_return_null=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")

    # 1. Every crash found so far, once: each is a regression test.
    crashes = sorted(glob.glob(os.path.join(fuzz_dir, "crashes", harness, "*")))
    if crashes:
        r = subprocess.run([binary, "-timeout=%d" % args.timeout] + crashes, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace")
        if r.returncode != 0:
            print(r.stdout[-20000:], file=sys.stderr)
            print("%s: a checked-in crash input fails again" % harness, file=sys.stderr)
            return False

    # 2. Fuzzing from the seeds.
    work = args.work and os.path.join(args.work, harness)
    tmp = tempfile.mkdtemp(prefix="chipless-%s-" % harness)
    try:
        corpus = os.path.join(work, "corpus") if work else os.path.join(tmp, "corpus")
        artifacts = work or os.path.join(args.build_dir, "fuzz", harness)
        seeds = os.path.join(tmp, "seeds")
        for d in (corpus, artifacts, seeds):
            os.makedirs(d, exist_ok=True)
        for name, data in seed_files(harness, args.source_dir, args.examples_dir):
            digest = hashlib.sha1(data).hexdigest()[:12]
            with open(os.path.join(seeds, "%s-%s" % (name, digest)), "wb") as f:
                f.write(data)
        cmd = [binary, "-timeout=%d" % args.timeout, "-rss_limit_mb=%d" % args.rss_limit_mb,
               "-print_final_stats=1", "-use_value_profile=1",
               # Inputs differ 1000-fold in cost (a one-op graph against a BERT layer):
               # libFuzzer then mutates the slow ones less often, for more inputs per hour.
               "-entropic_scale_per_exec_time=1",
               "-max_len=%d" % MAX_LEN.get(harness, 8192),
               "-artifact_prefix=%s/" % artifacts]
        dictionary = os.path.join(fuzz_dir, "dict", harness + ".dict")
        if os.path.exists(dictionary):
            cmd.append("-dict=" + dictionary)
        workers = max(1, args.workers)
        dirs = [corpus, seeds]
        checked_in = os.path.join(fuzz_dir, "corpus", harness)
        if os.path.isdir(checked_in):
            dirs.append(checked_in)
        start = time.monotonic()
        # libFuzzer's own lines (inputs so far, coverage, executions per second) go to a log
        # beside the corpus, so a long run can be followed with `tail -f`.
        logs, procs = [], []
        for i in range(workers):
            share = args.runs // workers + (1 if i < args.runs % workers else 0)
            limit = "-runs=%d" % share if args.runs else "-max_total_time=%d" % args.seconds
            logs.append(os.path.join(artifacts, "fuzz.log" if i == 0 else "fuzz.%d.log" % i))
            with open(logs[-1], "w") as log:
                procs.append(subprocess.Popen(cmd + [limit] + dirs, env=env, stdout=log,
                                              stderr=subprocess.STDOUT))
        returncodes = wait_all(procs)
        seconds = time.monotonic() - start
        outputs = []
        for path in logs:
            with open(path, errors="replace") as log:
                outputs.append(log.read())
        stats = [final_stats(o) for o in outputs]
        runs = sum(r for r, _, _ in stats)
        cov = max(c for _, c, _ in stats)
        ft = max(f for _, _, f in stats)
        failed = [o for o, code in zip(outputs, returncodes) if code != 0]
        failed.sort(key=lambda o: not written_finds(o))  # the find first
        if failed:
            print(failed[0][-20000:], file=sys.stderr)
            found = written_finds(failed[0])
            print("%s: FAILED after %d inputs in %.0f s%s" %
                  (harness, runs, seconds, (": reproducer " + found[-1]) if found else ""),
                  file=sys.stderr)
            return False
        print("%-18s %9d inputs in %7.1f s  cov %6d  ft %7d  corpus %d%s" %
              (harness, runs, seconds, cov, ft, len(os.listdir(corpus)),
               "  (%d workers)" % workers if workers > 1 else ""))
        return True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--examples-dir", default="")
    p.add_argument("--work", default="", help="keep each harness's corpus and finds here")
    p.add_argument("--seconds", type=int, default=10, help="fuzzing time per harness")
    p.add_argument("--runs", type=int, default=0, help="inputs per harness (instead of time)")
    p.add_argument("--timeout", type=int, default=60, help="seconds one input may take")
    p.add_argument("--rss-limit-mb", type=int, default=6144)
    p.add_argument("--jobs", type=int, default=1, help="harnesses run at once")
    p.add_argument("--workers", type=int, default=1,
                   help="processes fuzzing each harness at once over one corpus")
    p.add_argument("harnesses", nargs="*", help="default: all")
    args = p.parse_args()
    unknown = [h for h in args.harnesses if h not in SEEDS]
    if unknown:
        p.error("unknown harness %s (known: %s)" % (", ".join(unknown), ", ".join(SEEDS)))
    names = args.harnesses or list(SEEDS)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        passed = list(pool.map(lambda h: run_harness(h, args), names))
    failed = [h for h, ok in zip(names, passed) if not ok]
    if failed:
        print("failed: " + " ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
