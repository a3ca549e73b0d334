#!/usr/bin/python3
"""Differential test of the emitter's scalar code (register allocation, loop and branch
lowering, parallel copies) on random DataflowIR programs.

Each program is a dma_out program on core 0 that computes values with random scalar code
-- arith ops, selects, scf.for loops with carried values (whose bodies read values from
outside the loop, branch and run inner loops), scf.if with results -- and makes each value
observable by storing stick (value mod 64) of the input, whose stick k holds k, to the
next row of the output. A Python model of the arith/scf semantics (64-bit wrap-around, C
division) gives the expected rows. Programs that need more than 16 live registers must be
rejected with the emitter's register error; every other one must emit, run on spyre-sim and
give the expected output.

    random_scalar_programs.py --seeds FIRST COUNT --keep K --work DIR

`dfir-opt` and `spyre-sim` are taken from PATH. Exit status 0 when every program passes.
"""
import argparse
import os
import random
import subprocess
import sys

import numpy as np

ROWS = 12  # values observed per program
PREDICATES = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
              "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b,
              "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b}


def wrap(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def cdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


BINARY = {"addi": lambda a, b: wrap(a + b), "subi": lambda a, b: wrap(a - b),
          "muli": lambda a, b: wrap(a * b), "andi": lambda a, b: a & b,
          "ori": lambda a, b: a | b, "xori": lambda a, b: a ^ b,
          "minsi": min, "maxsi": max}


class Program:
    """Writes the program text and computes, alongside, the value of every SSA value."""

    def __init__(self, rng, keep):
        self.rng = rng
        self.keep = keep
        self.lines = []
        self.indent = "    "
        self.count = 0
        self.expected = []

    def name(self):
        self.count += 1
        return f"%v{self.count}"

    def emit(self, text):
        self.lines.append(self.indent + text)

    def const(self, k):
        n = self.name()
        self.emit(f"{n} = arith.constant {k} : index")
        return n, k

    def op(self, mnemonic, a, b):
        n = self.name()
        self.emit(f"{n} = arith.{mnemonic} {a[0]}, {b[0]} : index")
        return n

    def random_value(self, vals):
        """One random scalar op over `vals`; returns (name, value)."""
        r = self.rng
        a, b = r.choice(vals), r.choice(vals)
        kind = r.choice(list(BINARY) + ["divsi", "remsi", "shli", "shrsi", "select", "addc"])
        if kind == "addc":
            c = self.const(r.randint(-300, 300))
            return self.op("addi", a, c), wrap(a[1] + c[1])
        if kind in ("divsi", "remsi"):  # divisor (b & 15) + 1: never zero
            low = (self.op("andi", b, self.const(15)), b[1] & 15)
            d = (self.op("addi", low, self.const(1)), low[1] + 1)
            q = cdiv(a[1], d[1])
            return self.op(kind, a, d), q if kind == "divsi" else a[1] - q * d[1]
        if kind in ("shli", "shrsi"):
            k = self.const(r.randint(0, 6))
            return self.op(kind, a, k), wrap(a[1] << k[1]) if kind == "shli" else a[1] >> k[1]
        if kind == "select":
            c = r.choice(vals)
            pred = r.choice(list(PREDICATES))
            cond = self.name()
            self.emit(f"{cond} = arith.cmpi {pred}, {a[0]}, {c[0]} : index")
            n = self.name()
            self.emit(f"{n} = arith.select {cond}, {b[0]}, {c[0]} : index")
            return n, b[1] if PREDICATES[pred](a[1], c[1]) else c[1]
        return self.op(kind, a, b), BINARY[kind](a[1], b[1])

    def store(self, v):
        """Stores stick (v mod 64) of X to the next row of Y."""
        c64, c128 = self.const(64), self.const(128)
        m = self.op("remsi", v, c64)
        p = self.op("addi", (m, 0), c64)
        q = self.op("remsi", (p, 0), c64)
        sp = self.op("muli", (q, 0), c128)
        mem = self.op("addi", ("%y", 0), self.const(len(self.expected) * 128))
        self.emit(f"dfir.dma_store sp = {sp}, mem = {mem}, bytes = {c128[0]}")
        self.expected.append(v[1] % 64)

    def branch(self, vals):
        r = self.rng
        a, b = r.choice(vals), r.choice(vals)
        pred = r.choice(list(PREDICATES))
        cond = self.name()
        self.emit(f"{cond} = arith.cmpi {pred}, {a[0]}, {b[0]} : index")
        result = self.name()
        self.emit(f"{result} = scf.if {cond} -> (index) {{")
        outer = self.indent
        self.indent += "  "
        then = self.random_value(vals)
        self.emit(f"scf.yield {then[0]} : index")
        self.indent = outer
        self.emit("} else {")
        self.indent += "  "
        other = self.random_value(vals)
        self.emit(f"scf.yield {other[0]} : index")
        self.indent = outer
        self.emit("}")
        return result, then[1] if PREDICATES[pred](a[1], b[1]) else other[1]

    def loop(self, vals):
        """An scf.for with 1-3 carried values; bounds constant or computed, small."""
        r = self.rng
        lb = self.const(r.randint(0, 3))
        if r.random() < 0.5:
            a = r.choice(vals)
            ub = (self.op("andi", a, self.const(7)), a[1] & 7)
        else:
            ub = self.const(r.randint(0, 6))
        if r.random() < 0.3:
            s = r.choice(vals)
            low = (self.op("andi", s, self.const(1)), s[1] & 1)
            step = (self.op("addi", low, self.const(1)), low[1] + 1)
        else:
            step = self.const(r.randint(1, 3))
        inits = r.sample(vals, min(len(vals), r.randint(1, 3)))
        outer = r.sample(vals, min(len(vals), 2))
        iv = self.name()
        args = [self.name() for _ in inits]
        result = self.name()
        types = ", ".join(["index"] * len(inits))
        carried = ", ".join(f"{a} = {i[0]}" for a, i in zip(args, inits))
        self.emit(f"{result}:{len(inits)} = scf.for {iv} = {lb[0]} to {ub[0]} step {step[0]} "
                  f"iter_args({carried}) -> ({types}) {{")
        saved = self.indent
        self.indent += "  "
        body = Body(r.randint(0, 1 << 30), len(inits), [v for _, v in outer])
        outs = body.write(self, args, iv, [n for n, _ in outer])
        self.emit(f"scf.yield {', '.join(outs)} : {types}")
        self.indent = saved
        self.emit("}")
        cur = [v for _, v in inits]
        i = lb[1]
        while i < ub[1]:
            cur = body.run(cur, i)
            i += step[1]
        which = r.randrange(len(inits))
        return f"{result}#{which}", cur[which]

    def generate(self, n):
        vals = [("%n", n), self.const(self.rng.randint(-20, 20)), self.const(self.rng.randint(1, 9))]
        for _ in range(40):
            roll = self.rng.random()
            if roll < 0.12:
                vals.append(self.loop(vals))
            elif roll < 0.22:
                vals.append(self.branch(vals))
            elif roll < 0.35 and len(self.expected) < ROWS:
                self.store(self.rng.choice(vals))
            else:
                vals.append(self.random_value(vals))
            if len(vals) > self.keep + 1:  # the values still used later: the pressure
                vals = self.rng.sample(vals, self.keep)
        while len(self.expected) < ROWS:
            self.store(self.rng.choice(vals))


class Body:
    """A loop body over the carried values, the induction variable and values from outside
    the loop, written once and evaluated per iteration: straight-line ops, an scf.if, an
    inner loop whose carried value adds a value from outside it."""

    def __init__(self, seed, carried, outer_values):
        self.rng = random.Random(seed)
        self.carried = carried
        self.outer = outer_values
        self.steps = []

    def write(self, p, args, iv, outer_names):
        names = list(args) + [iv] + list(outer_names)
        for _ in range(self.rng.randint(1, 6)):
            a, b = self.rng.randrange(len(names)), self.rng.randrange(len(names))
            kind = self.rng.choice(["addi", "subi", "muli", "xori", "minsi", "maxsi", "addc",
                                    "if", "inner"])
            n = p.name()
            if kind == "addc":
                c = self.rng.randint(-50, 50)
                cn = p.const(c)[0]
                p.emit(f"{n} = arith.addi {names[a]}, {cn} : index")
                self.steps.append(("addc", a, c))
            elif kind == "if":  # a < b ? b - a : a
                cond, t = p.name(), p.name()
                p.emit(f"{cond} = arith.cmpi slt, {names[a]}, {names[b]} : index")
                p.emit(f"{n} = scf.if {cond} -> (index) {{")
                p.emit(f"  {t} = arith.subi {names[b]}, {names[a]} : index")
                p.emit(f"  scf.yield {t} : index")
                p.emit("} else {")
                p.emit(f"  scf.yield {names[a]} : index")
                p.emit("}")
                self.steps.append(("if", a, b))
            elif kind == "inner":  # a + k*b + k(k-1)/2
                k = self.rng.randint(0, 4)
                kn, c0, c1 = p.const(k)[0], p.const(0)[0], p.const(1)[0]
                j, acc, t, u = p.name(), p.name(), p.name(), p.name()
                p.emit(f"{n} = scf.for {j} = {c0} to {kn} step {c1} iter_args({acc} = "
                       f"{names[a]}) -> (index) {{")
                p.emit(f"  {t} = arith.addi {acc}, {names[b]} : index")
                p.emit(f"  {u} = arith.addi {t}, {j} : index")
                p.emit(f"  scf.yield {u} : index")
                p.emit("}")
                self.steps.append(("inner", a, (b, k)))
            else:
                p.emit(f"{n} = arith.{kind} {names[a]}, {names[b]} : index")
                self.steps.append((kind, a, b))
            names.append(n)
        self.outs = [self.rng.randrange(len(names)) for _ in range(self.carried)]
        return [names[o] for o in self.outs]

    def run(self, cur, i):
        vals = list(cur) + [i] + list(self.outer)
        for kind, a, b in self.steps:
            x = vals[a]
            if kind == "addc":
                vals.append(wrap(x + b))
            elif kind == "if":
                vals.append(wrap(vals[b] - x) if x < vals[b] else x)
            elif kind == "inner":
                other, k = b
                vals.append(wrap(x + k * vals[other] + k * (k - 1) // 2))
            else:
                vals.append(BINARY[kind](x, vals[b]))
        return [vals[o] for o in self.outs]


JOB = """dfir.job @random_scalar_code {{
  dfir.scalar_arg "N"
  dfir.tensor_arg "X" role = input, dtype = f16, shape = [64, 64]
  dfir.tensor_arg "Y" role = output, dtype = f16, shape = [{rows}, 64]
  dfir.program unit = "dma_in", cores = [0, 0], corelet = -1 {{
    %c0 = arith.constant 0 : index
    %bytes = arith.constant 8192 : index
    %x = dfir.symbol "X"
    dfir.dma_load sp = %c0, mem = %x, bytes = %bytes, done = %c0
  }}
  dfir.program unit = "dma_out", cores = [0, 0], corelet = -1 {{
    %y = dfir.symbol "Y"
    %n = dfir.symbol "N"
    %t0 = arith.constant 0 : index
    dfir.token_wait token = %t0
{body}
  }}
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs=2, default=[0, 20], metavar=("FIRST", "COUNT"))
    parser.add_argument("--keep", type=int, default=5, help="values kept usable (pressure)")
    parser.add_argument("--work", required=True, help="scratch directory")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    x = np.zeros((64, 64), np.float16)
    for k in range(64):
        x[k, :] = k
    xpath = os.path.join(args.work, "x.npy")
    np.save(xpath, x)
    passed = rejected = 0
    for seed in range(args.seeds[0], args.seeds[0] + args.seeds[1]):
        rng = random.Random(seed)
        n = rng.randint(-1000, 1000)
        program = Program(rng, args.keep)
        program.generate(n)
        path = os.path.join(args.work, f"{seed}.mlir")
        with open(path, "w") as f:
            f.write(JOB.format(rows=ROWS, body="\n".join(program.lines)))
        out = os.path.join(args.work, str(seed))
        emitted = subprocess.run(["dfir-opt", path, f"--emit-spyrecode={out}", "-o", "/dev/null"],
                                 capture_output=True, text=True)
        if emitted.returncode != 0:
            if "scalar registers here" in emitted.stderr:
                rejected += 1
                continue
            print(f"seed {seed}: dfir-opt failed:\n{emitted.stderr}")
            return 1
        ypath = os.path.join(out, "y.npy")
        ran = subprocess.run(["spyre-sim", "run", os.path.join(out, "job.plan"), "--input",
                              f"X={xpath}", "--output", f"Y={ypath}", "--scalar", f"N={n}"],
                             capture_output=True, text=True)
        if ran.returncode != 0:
            print(f"seed {seed}: spyre-sim failed:\n{ran.stderr}")
            return 1
        y = np.load(ypath)
        got = [int(y[r, 0]) for r in range(ROWS)]
        if got != program.expected:
            print(f"seed {seed} ({path}): got rows {got}, expected {program.expected}")
            return 1
        passed += 1
    print(f"random scalar programs: {passed} passed, {rejected} rejected for register pressure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
