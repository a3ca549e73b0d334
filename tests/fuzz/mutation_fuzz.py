#!/usr/bin/env python3
"""Deterministic mutation fuzzing of the MLIR compilers (ktir-opt, spyre-compile, tpu-compile).

Every file of the public KTIR samples (../shared/ktir-examples, skipped when absent) and of
models/graphs/*.mlir is mutated with fixed seeds: a line deleted, two lines swapped, a number
changed, a type changed, the file truncated, a line duplicated. Each mutant is fed to the
tools that read such files. Bad input must give exit status 0 or 1, with a message on stderr
when it is 1; a signal, another status, a run beyond --timeout (a hang) or a silent failure
fails the test, which prints each offending mutant.

KTIR mutants of one sample go to ktir-opt and spyre-compile as one file of '// -----' chunks
(--split-input-file: one process per sample instead of one per mutant); a batch that crashes
or hangs is re-run one mutant at a time to name the mutant. Graph mutants go to tpu-compile
one at a time (it has no split mode) and to ktir-opt in a batch.

Usage: mutation_fuzz.py --bin-dir BUILD/bin --source-dir SRC [--examples-dir DIR]
                        [--seed N] [--per-example N] [--per-graph N] [--timeout S] [--jobs N]
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

SPLIT = "// -----"
NUMBERS = ["0", "1", "2", "3", "7", "64", "100", "4097", "65536", "-1", "2147483648"]
TYPES = [("f16", "f32"), ("f32", "f16"), ("f16", "bf16"), ("index", "i32"), ("i32", "index"),
         ("i64", "index"), ("f32", "i32"), ("tensor<", "memref<"), ("memref<", "tensor<")]
# Mutants of these kinds are generated but not run through the named tool, because of a
# known bug outside the code this test guards (none at present).
EXCLUDED = {}


def mutate(lines, rng):
    """One random mutation of `lines` (a list of str); returns (new lines, description)."""
    for _ in range(50):
        kind = rng.choice(["delete", "swap", "number", "type", "truncate", "duplicate"])
        i = rng.randrange(len(lines))
        out = list(lines)
        if kind == "delete":
            del out[i]
            return out, f"delete line {i + 1}"
        if kind == "swap":
            j = rng.randrange(len(lines))
            if i == j or lines[i] == lines[j]:
                continue
            out[i], out[j] = out[j], out[i]
            return out, f"swap lines {i + 1} and {j + 1}"
        if kind == "duplicate":
            out.insert(i, lines[i])
            return out, f"duplicate line {i + 1}"
        if kind == "truncate":
            text = "\n".join(lines)
            cut = rng.randrange(len(text))
            return text[:cut].split("\n"), f"truncate at character {cut}"
        if kind == "number":
            numbers = list(re.finditer(r"(?<![\w%#])\d+(?![\w])", lines[i]))
            if not numbers:
                continue
            m = rng.choice(numbers)
            new = rng.choice(NUMBERS)
            if new == m.group(0):
                continue
            out[i] = lines[i][:m.start()] + new + lines[i][m.end():]
            return out, f"line {i + 1}: number {m.group(0)} -> {new} at column {m.start() + 1}"
        if kind == "type":
            choices = [(a, b) for a, b in TYPES if re.search(r"\b" + re.escape(a), lines[i])]
            if not choices:
                continue
            a, b = rng.choice(choices)
            out[i] = re.sub(r"\b" + re.escape(a), b, lines[i])
            return out, f"line {i + 1}: type {a} -> {b}"
    return list(lines[:-1]), "delete the last line"


def mutants_of(path, count, seed):
    """`count` mutants of the file at `path`, the same for the same seed and file name."""
    lines = open(path).read().split("\n")
    rng = random.Random(seed * 1000003 + zlib.crc32(os.path.basename(path).encode()))
    result = []
    for n in range(count):
        out, what = mutate(lines, rng)
        text = "\n".join(out)
        # A mutant never holds the split marker (it would split one mutant in two).
        text = re.sub(r"-{5,}", "----", text)
        result.append((f"{os.path.basename(path)} mutant {n}: {what}", text))
    return result


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.failures = []
        self.runs = 0
        self.work = tempfile.mkdtemp(prefix="mutation_fuzz.")

    def command(self, tool, path, split):
        bin_ = os.path.join(self.args.bin_dir, tool)
        out = tempfile.mkdtemp(dir=self.work)
        if tool == "ktir-opt":
            cmd = [bin_, path]
            if split:
                cmd += ["-split-input-file", f"-output-split-marker={SPLIT}"]
            return cmd
        if tool == "spyre-compile":
            cmd = [bin_, path, "--arch", os.path.join(self.args.source_dir, "models/hw/spyre.yaml"),
                   "-o", out]
            return cmd + (["--split-input-file"] if split else [])
        return [bin_, path, "--arch", os.path.join(self.args.source_dir, "models/hw/tpu-v5e.yaml"),
                "-o", out]

    def run(self, tool, path, split):
        """Runs one tool; returns (status or 'signal N' or 'timeout', stdout, stderr)."""
        self.runs += 1
        # glibc fills freed memory with a pattern, so that a use after free (the MLIR 19
        # parser bugs ParseGuard.h works around) rather crashes than passes by luck.
        env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.perturb=165")
        try:
            r = subprocess.run(self.command(tool, path, split), capture_output=True, text=True,
                               errors="replace", timeout=self.args.timeout, env=env)
        except subprocess.TimeoutExpired:
            return "timeout", "", ""
        status = r.returncode if r.returncode >= 0 else f"signal {-r.returncode}"
        return status, r.stdout, r.stderr

    def fail(self, tool, what, text, reason, stderr):
        self.failures.append((tool, what, text, reason, stderr))

    def check_one(self, tool, what, text):
        path = os.path.join(self.work, f"{tool}.{zlib.crc32(what.encode()):08x}.mlir")
        with open(path, "w") as f:
            f.write(text)
        status, _, stderr = self.run(tool, path, split=False)
        if status not in (0, 1):
            self.fail(tool, what, text, f"exit {status}", stderr)
        elif status == 1 and not stderr.strip():
            self.fail(tool, what, text, "failed without a message on stderr", stderr)

    def check_batch(self, tool, mutants, rejected=None):
        """All mutants in one --split-input-file run; re-run one by one on a crash or hang.

        For ktir-opt, returns the descriptions of the mutants it rejects (a chunk without
        output), each of which must have a diagnostic naming its chunk. For spyre-compile,
        each mutant in `rejected` (by ktir-opt: the same parser and verifiers) must have one.
        """
        mutants = [(what, text) for what, text in mutants
                   if not any(re.search(p, what) for p in EXCLUDED.get(tool, []))]
        if not mutants:
            return set()
        path = os.path.join(self.work,
                            f"batch.{tool}.{zlib.crc32(mutants[0][0].encode()):08x}.mlir")
        # The line each chunk's diagnostics name ("within split at FILE:LINE"): 1 for the
        # first, the line of the marker before it for the others.
        starts = [1]
        text = mutants[0][1]
        for _, mutant in mutants[1:]:
            starts.append(text.count("\n") + 2)
            text += "\n" + SPLIT + "\n" + mutant
        with open(path, "w") as f:
            f.write(text)
        status, stdout, stderr = self.run(tool, path, split=True)
        if status not in (0, 1):
            before = len(self.failures)
            for what, text in mutants:
                self.check_one(tool, what, text)
            if len(self.failures) == before:  # only the batch fails: report it whole
                self.fail(tool, f"{mutants[0][0]} and the rest of its batch, in one "
                          f"--split-input-file run ({path})", "", f"exit {status}", stderr)
            return set()
        named = {int(m) for m in re.findall(r"within split at [^\n]*?:(\d+) offset", stderr)}
        if tool == "ktir-opt":
            # ktir-opt prints each chunk that passes.
            outputs = stdout.split(SPLIT + "\n")
            rejected = {what for n, (what, _) in enumerate(mutants)
                        if not (n < len(outputs) and outputs[n].strip())}
        if status == 1 and not stderr.strip():
            self.fail(tool, mutants[0][0] + " (and the rest of its batch)", "",
                      "failed without a message on stderr", stderr)
        for n, (what, text) in enumerate(mutants):
            if what in (rejected or set()) and starts[n] not in named:
                self.fail(tool, what, text, "rejected (by ktir-opt) without a message naming it",
                          stderr)
        return rejected or set()

    def check_sample(self, mutants):
        """A KTIR sample's mutants through ktir-opt, then spyre-compile."""
        rejected = self.check_batch("ktir-opt", mutants)
        self.check_batch("spyre-compile", mutants, rejected)

    def report(self):
        for tool, what, text, reason, stderr in self.failures:
            print(f"FAIL {tool}: {what}: {reason}")
            print("--- stderr (last 2000 characters) ---")
            print(stderr[-2000:])
            if text:
                print("--- mutant ---")
                print(text)
            print("--- end ---")
        print(f"{self.runs} tool runs, {len(self.failures)} failures")
        if not self.failures:
            shutil.rmtree(self.work, ignore_errors=True)
            return 0
        print(f"the mutants and the tools' outputs are in {self.work}")
        return 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--examples-dir", default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-example", type=int, default=16)
    p.add_argument("--per-graph", type=int, default=8)
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    examples_dir = args.examples_dir or os.path.join(args.source_dir, "../shared/ktir-examples")
    examples = []
    if os.path.isdir(examples_dir):
        examples = sorted(os.path.join(examples_dir, f) for f in os.listdir(examples_dir)
                          if f.endswith((".mlir", ".ktir")))
    else:
        print(f"{examples_dir} is absent: the KTIR samples are skipped")
    graphs_dir = os.path.join(args.source_dir, "models/graphs")
    graphs = sorted(os.path.join(graphs_dir, f) for f in os.listdir(graphs_dir)
                    if f.endswith(".mlir"))

    fuzzer = Fuzzer(args)
    jobs = []  # (check, tool or None, mutants or one mutant)
    for path in examples:
        mutants = mutants_of(path, args.per_example, args.seed)
        jobs.append((fuzzer.check_sample, None, mutants))
    for path in graphs:
        mutants = mutants_of(path, args.per_graph, args.seed)
        jobs.append((fuzzer.check_batch, "ktir-opt", mutants))
        jobs += [(fuzzer.check_one, "tpu-compile", m) for m in mutants
                 if not any(re.search(p, m[0]) for p in EXCLUDED.get("tpu-compile", []))]
    print(f"{len(examples)} KTIR samples x {args.per_example} mutants, "
          f"{len(graphs)} graphs x {args.per_graph} mutants, seed {args.seed}")
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(check, arg) if tool is None
                   else pool.submit(check, tool, arg) if check == fuzzer.check_batch
                   else pool.submit(check, tool, *arg) for check, tool, arg in jobs]
        for f in futures:
            f.result()
    return fuzzer.report()


if __name__ == "__main__":
    sys.exit(main())
