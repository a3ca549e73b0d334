#!/usr/bin/python3
"""The README's commands run as written, in order, on a fresh clone after `make demo`.

    /usr/bin/python3 tests/readme/run_readme.py SOURCE_DIR BUILD_DIR [--keep]

Extracts every ```sh block of SOURCE_DIR/README.md in order and runs each command line
(a line ending in a backslash is joined with the next) with /bin/sh from a scratch
directory that mirrors a fresh clone after `make demo`: symlinks to the source tree's
models/, scripts/, docs/, tests/, scenarios/ and python/, a `build` symlink to BUILD_DIR,
and out/demo written by the demo's two scripts (scripts/demo_torch.py, scripts/demo.py;
the first not for a SAN=1 build, which has no Python modules) before the first command. Skipped: `make demo`
and `make test` (the demo has been run; the tests are what runs this), blank lines and
comment lines; every skipped line is listed. A command that still holds a `...`
placeholder fails, as does one that exits non-zero or takes more than COMMAND_TIMEOUT_S.

On a failure, prints the block, its README line, the command and its output, and exits 1
(the scratch directory is kept). Exit status 0 when every command succeeded.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

COMMAND_TIMEOUT_S = 120
SKIP = {"make demo": "the demo is run first (scripts/demo_torch.py, scripts/demo.py build)",
        "make test": "the tests are what runs this script"}


def sh_blocks(readme):
    """[(README line of the ```sh fence, [(README line, command)])] for every ```sh block;
    blank and comment lines are returned as commands too, and sorted out by classify()."""
    blocks, block, pending = [], None, None
    with open(readme) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if block is None:
                if re.match(r"^\s*```sh\s*$", line):
                    block = (number, [])
                continue
            if re.match(r"^\s*```\s*$", line):
                if pending:
                    block[1].append(pending)  # a trailing backslash at the end of a block
                blocks.append(block)
                block, pending = None, None
                continue
            if pending:
                pending = (pending[0], pending[1] + "\n" + line)
            else:
                pending = (number, line)
            if not line.endswith("\\"):
                block[1].append(pending)
                pending = None
    if block is not None:
        sys.exit("run_readme: %s:%d: ```sh block is not closed" % (readme, block[0]))
    return blocks


def classify(command):
    """None when the command is to be run, else why it is skipped."""
    words = shlex.split(command, comments=True)
    if not words:
        return "a comment, not a command"
    head = " ".join(words[:2])
    return SKIP.get(head)


def run(command, cwd):
    """Runs command with /bin/sh in cwd; returns (exit status, output, seconds)."""
    t0 = time.time()
    try:
        p = subprocess.run(["/bin/sh", "-c", command], cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT_S)
        return p.returncode, p.stdout.decode("utf-8", "replace"), time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return "timed out after %d s" % COMMAND_TIMEOUT_S, out, time.time() - t0


def fail(scratch, where, what, command, output):
    print("\nFAILED: %s: %s" % (where, what))
    print("command:\n    " + command.replace("\n", "\n    "))
    print("output:\n" + (output.rstrip() or "(none)"))
    print("\nscratch directory kept: %s" % scratch)
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source_dir")
    ap.add_argument("build_dir")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()
    source = os.path.abspath(args.source_dir)
    build = os.path.abspath(args.build_dir)
    readme = os.path.join(source, "README.md")
    blocks = sh_blocks(readme)
    if not blocks:
        sys.exit("run_readme: %s has no ```sh block" % readme)

    # A fresh clone after `make demo`: the sources the commands read, the build, out/demo.
    scratch = tempfile.mkdtemp(prefix="chipless-readme-")
    for d in ("models", "scripts", "docs", "tests", "scenarios", "python"):
        os.symlink(os.path.join(source, d), os.path.join(scratch, d))
    os.symlink(build, os.path.join(scratch, "build"))
    t0 = time.time()
    demos = ["CHIPLESS_BIN=build/bin /usr/bin/python3 scripts/demo_torch.py",
             "/usr/bin/python3 scripts/demo.py build"]
    if not glob.glob(os.path.join(build, "python", "chipless", "_torch*.so")):
        # a SAN=1 build has no Python modules (pybind/ is not built there)
        print("run_readme: %s has no chipless._torch (a SAN=1 build): the PyTorch demo is "
              "not run" % build)
        demos = demos[1:]
    for demo in demos:
        status, output, _ = run(demo, scratch)
        if status != 0:
            return fail(scratch, "the demo", "exit status %s" % status, demo, output)

    ran, skipped = 0, []
    for fence, commands in blocks:
        for number, command in commands:
            where = "README.md line %d (in the ```sh block of line %d)" % (number, fence)
            try:
                why = classify(command)
            except ValueError as e:  # unbalanced quotes
                return fail(scratch, where, "not a shell command: %s" % e, command, "")
            if why:
                if command.strip():
                    skipped.append("line %d: %s  [%s]" % (number, command.strip(), why))
                continue
            if any("..." in w for w in shlex.split(command, comments=True)):
                return fail(scratch, where, "a `...` placeholder, not a command", command, "")
            status, output, secs = run(command, scratch)
            ran += 1
            print("%5.1f s  line %d: %s" % (secs, number, command.split("\n")[0].rstrip(" \\")),
                  flush=True)
            if status != 0:
                return fail(scratch, where, "exit status %s" % status, command, output)
    print("\nskipped (%d):" % len(skipped))
    for s in skipped:
        print("  " + s)
    print("run_readme: %d commands of %d ```sh blocks ran as written in %.1f s (with the demo)"
          % (ran, len(blocks), time.time() - t0))
    if args.keep:
        print("scratch directory kept: %s" % scratch)
    else:
        shutil.rmtree(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
