#!/usr/bin/env python3
"""Writes the checked-in seed corpora of tests/fuzz/corpus: the inputs of the readers that
have no text form in models/ (job plans, job binaries, whole program directories, .npy
files, architecture overrides), made by chipless's own tools from the bundled kernels and
graphs. Each seed is checked to run cleanly with the simulators first, so fuzzing starts
from programs that reach the deep paths.

  make_seeds.py --source-dir . --bin-dir build/bin

Run it again when a program format changes, and check the result in.
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

# (seed name, chip, how to make the directory, scalars): small programs only, so that one
# launch is quick and the mutations stay near code that matters.
PROGRAMS = [
    ("add", "spyre", ["spyre-as", "models/kernels/add.s"], {"N": 4096}),
    ("softmax", "spyre", ["spyre-as", "models/kernels/softmax.s"], {"R": 64, "N": 256}),
    ("matmul", "spyre", ["spyre-as", "models/kernels/matmul.s"], {"M": 128, "K": 128, "N": 128}),
    ("graph_softmax", "spyre", ["spyre-compile", "models/graphs/softmax.mlir"], {}),
    ("graph_layernorm", "spyre", ["spyre-compile", "models/graphs/layernorm.mlir"], {}),
    ("add", "tpu", ["tpu-as", "models/tpu-kernels/add.s"], {"R": 64, "N": 256}),
    ("gemm", "tpu", ["tpu-as", "models/tpu-kernels/gemm.s"],
     {"M": 128, "K": 256, "N": 256, "MB": 128}),
    ("allreduce", "tpu", ["tpu-as", "models/tpu-kernels/allreduce.s"], {"L": 1024}),
    ("graph_softmax", "tpu", ["tpu-compile", "models/graphs/softmax.mlir"], {}),
    ("graph_layernorm", "tpu", ["tpu-compile", "models/graphs/layernorm.mlir"], {}),
]
MAX_SEED_BYTES = 64 * 1024


def npy(descr, shape, payload, version=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, "(%s)" % "".join("%d, " % d for d in shape) if len(shape) != 1
        else "(%d,)" % shape[0])
    size_field = 2 if version == 1 else 4
    pad = (64 - (10 + (size_field - 2) + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() + payload


def join_directory(files):
    """tests/fuzz/harness/fuzz_util.h's one-input form of a program directory."""
    out = b""
    for name in sorted(files):
        if out:
            out += b"\n"
        out += b"@@file " + name.encode() + b"\n" + files[name]
    return out


def write(corpus, harness, name, data):
    folder = os.path.join(corpus, harness)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source-dir", required=True)
    p.add_argument("--bin-dir", required=True)
    a = p.parse_args()
    src, bins = os.path.abspath(a.source_dir), os.path.abspath(a.bin_dir)
    corpus = os.path.join(src, "tests", "fuzz", "corpus")
    shutil.rmtree(corpus, ignore_errors=True)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")

    with tempfile.TemporaryDirectory() as tmp:
        env["CHIPLESS_LOCK_DIR"] = tmp
        for name, chip, make, scalars in PROGRAMS:
            out = os.path.join(tmp, chip + "_" + name)
            subprocess.run([os.path.join(bins, make[0]), os.path.join(src, make[1]), "-o", out],
                           check=True, env=env, stdout=subprocess.DEVNULL)
            sim = os.path.join(bins, "spyre-sim" if chip == "spyre" else "tpu-sim")
            subprocess.run([sim, "run", os.path.join(out, "job.plan"), "--timing-only"] +
                           ["--scalar=%s=%d" % kv for kv in scalars.items()],
                           check=True, env=env, stdout=subprocess.DEVNULL)
            files = {}
            for f in sorted(os.listdir(out)):
                if f == "arch.yaml":
                    continue  # the harness writes the chip's bundled description
                with open(os.path.join(out, f), "rb") as fh:
                    files[f] = fh.read()
            if scalars:
                files["scalars"] = "".join("%s=%d\n" % kv for kv in scalars.items()).encode()
            whole = join_directory(files)
            if len(whole) > MAX_SEED_BYTES:
                print("%s %s: %d bytes, left out" % (chip, name, len(whole)), file=sys.stderr)
                continue
            write(corpus, "fuzz_%s_launch" % chip, name, whole)
            write(corpus, "fuzz_%s_plan" % chip, name + ".plan", files["job.plan"])
            for f, data in files.items():
                if f.endswith(".bin"):
                    write(corpus, "fuzz_%s_binary" % chip, name + "." + f, data)

    for descr, size in (("<f2", 2), ("<f4", 4), ("<i4", 4), ("|i1", 1)):
        tag = descr.strip("<|")
        write(corpus, "fuzz_npy", tag + "_2x3", npy(descr, [2, 3], bytes(range(6 * size))))
        write(corpus, "fuzz_npy", tag + "_scalar", npy(descr, [], bytes(size)))
        write(corpus, "fuzz_npy", tag + "_v2_4", npy(descr, [4], bytes(4 * size), version=2))
        write(corpus, "fuzz_npy", tag + "_empty", npy(descr, [0, 5], b""))
    for chip in ("spyre", "tpu-v5e"):
        with open(os.path.join(src, "models", "hw", chip + ".yaml"), "rb") as f:
            yaml = f.read()
        sets = (b"chip.cores=8\nscratchpad.bytes=1048576\n" if chip == "spyre"
                else b"chip.clock_ghz=1.5\n")
        write(corpus, "fuzz_arch", chip + "_with_sets", yaml + b"\n@@set\n" + sets)


if __name__ == "__main__":
    main()
