#!/usr/bin/python3
"""Random inputs for a compiled program: one .npy file per input of its job.plan.

    /usr/bin/python3 scripts/random_inputs.py DIR/job.plan [--scalar NAME=VALUE ...] -o OUTDIR
                     [--seed N] [--chips N]

Works for SpyreCode and TPU programs alike. For every argument of the plan whose role is
input or inout, writes OUTDIR/<ARG>.npy with the argument's shape (a shape entry that names
a scalar takes the --scalar value; with --chips N, a split argument stacks N blocks along
dimension 0, as tpu-sim --chips N expects) and prints the file, its shape and dtype, then
the --input (and --scalar) flags to paste into `spyre-sim run` / `tpu-sim run`.

Values: standard normal * 0.5 for float arguments (float16 for f16, float32 for f32 and for
bf16, which the runtimes round to bf16), uniform integers in [0, 8) for i32 and i8. Each
argument has its own generator, seeded with crc32("<seed>/<ARG>"), so a file depends only
on the seed, the argument's name, shape and dtype. scripts/snapshot.py uses the same
generators (seeded with crc32("<workload>/<ARG>")).

Exit status: 0 when every file was written, 1 with an error naming the plan and the
argument or scalar otherwise. Only numpy is needed.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from chipless.plan_inputs import (NP_DTYPES, ROLES, PlanError, check_scalar,  # noqa: E402,F401
                                  host_shape, normal, random_values, read_plan, rng_for,
                                  scalar_values, small_ints)


def parse_scalar(text):
    name, eq, value = text.partition("=")
    try:
        if not name or not eq:
            raise ValueError
        return name, int(value, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("expected NAME=INTEGER, got %r" % text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("plan", help="DIR/job.plan of a SpyreCode or TPU program")
    ap.add_argument("-o", "--out-dir", required=True, help="directory for the <ARG>.npy files")
    ap.add_argument("--scalar", type=parse_scalar, action="append", default=[],
                    metavar="NAME=VALUE", help="value of a scalar of the plan (repeatable)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the values (default 0)")
    ap.add_argument("--chips", type=int, default=1,
                    help="chips of the run (tpu-sim --chips): split arguments get N blocks")
    args = ap.parse_args()
    given = {}
    for name, v in args.scalar:
        given[name] = v
    try:
        plan = read_plan(args.plan)
        scalars = scalar_values(plan, args.plan, given)
        os.makedirs(args.out_dir, exist_ok=True)
        flags = []
        for a in plan["arguments"]:
            if a["role"] == "output":
                continue
            shape = host_shape(a, scalars, args.chips)
            x = random_values(rng_for("%d/%s" % (args.seed, a["name"])), shape, a["dtype"])
            path = os.path.join(args.out_dir, a["name"] + ".npy")
            np.save(path, x)
            note = " (bf16 %s: float32 values, rounded by the runtime)" % a["role"] \
                if a["dtype"] == "bf16" else ""
            print("%s: [%s] %s%s" % (path, ", ".join(str(d) for d in shape), x.dtype, note))
            flags.append("--input %s=%s" % (a["name"], path))
    except PlanError as e:
        sys.exit("random_inputs.py: error: %s" % e)
    except OSError as e:
        sys.exit("random_inputs.py: error: %s: %s" % (e.filename or args.out_dir, e.strerror))
    flags += ["--scalar %s=%d" % kv for kv in scalars.items()]
    print("flags: " + " ".join(flags))
    return 0


if __name__ == "__main__":
    sys.exit(main())
