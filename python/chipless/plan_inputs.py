"""Inputs for a compiled program, from its job.plan: the arguments it takes (name, role,
shape, dtype), its scalars and their constraints, and seeded random values for each input.
Shared by scripts/random_inputs.py, scripts/snapshot.py and `chipless conformance`; works for
SpyreCode and TPU programs alike.

Values: standard normal * 0.5 for float arguments (float16 for f16, float32 for f32 and for
bf16, which the runtimes round to bf16), uniform integers in [0, 8) for i32 and i8. Each
argument has its own generator, seeded with crc32 of a key (the callers use
"<seed>/<ARG>"), so values depend only on the key, the shape and the dtype.
"""
import json
import zlib

import numpy as np

# numpy type of each plan dtype; bf16 inputs are given as float32 (the runtimes round them).
NP_DTYPES = {"f16": np.float16, "f32": np.float32, "bf16": np.float32,
             "i32": np.int32, "i8": np.int8}
ROLES = ("input", "output", "inout")


class PlanError(Exception):
    """A plan this script cannot make inputs for, or a missing or bad scalar value."""


def rng_for(key):
    """The generator of one argument: numpy default_rng seeded with crc32(key)."""
    return np.random.default_rng(zlib.crc32(key.encode()))


def normal(rng, shape, dtype, scale=0.5):
    """Standard normal * scale, drawn in float32, as the numpy type of `dtype`."""
    x = rng.standard_normal(shape, dtype=np.float32)
    x *= np.float32(scale)
    return x.astype(NP_DTYPES[dtype])


def small_ints(rng, shape, dtype, bound=8):
    """Uniform integers in [0, bound) as the numpy type of `dtype`."""
    return rng.integers(0, bound, size=shape).astype(NP_DTYPES[dtype])


def random_values(rng, shape, dtype):
    """The default values of an input: small integers for i32/i8, else normal * 0.5."""
    return small_ints(rng, shape, dtype) if dtype in ("i32", "i8") else normal(rng, shape, dtype)


def read_plan(path):
    """Reads a job.plan and checks the parts this script uses ("arguments", "scalars")."""
    try:
        with open(path) as f:
            plan = json.load(f)
    except OSError as e:
        raise PlanError("%s: cannot read: %s" % (path, e.strerror))
    except ValueError as e:
        raise PlanError("%s: malformed JSON: %s" % (path, e))
    if not isinstance(plan, dict) or not isinstance(plan.get("arguments"), list):
        raise PlanError("%s: not a job.plan: no \"arguments\" list" % path)
    if not isinstance(plan.get("scalars", []), list):
        raise PlanError("%s: \"scalars\" is not a list" % path)
    scalars = set()
    for i, s in enumerate(plan.get("scalars", [])):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str):
            raise PlanError("%s: scalars[%d] has no name" % (path, i))
        scalars.add(s["name"])
    for i, a in enumerate(plan["arguments"]):
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise PlanError("%s: arguments[%d] has no name" % (path, i))
        where = "%s: argument %s" % (path, a["name"])
        if a.get("role") not in ROLES:
            raise PlanError("%s: role %r is not one of %s"
                            % (where, a.get("role"), ", ".join(ROLES)))
        if a["role"] != "output" and a.get("dtype") not in NP_DTYPES:
            raise PlanError("%s: dtype %r has no numpy type here (%s)"
                            % (where, a.get("dtype"), ", ".join(NP_DTYPES)))
        shape = a.get("shape")
        if not isinstance(shape, list):
            raise PlanError("%s: no \"shape\" list" % where)
        for d in shape:
            if not (isinstance(d, int) and d >= 0) and d not in scalars:
                raise PlanError("%s: shape entry %r is neither a size nor a scalar of the plan"
                                % (where, d))
    return plan


def check_scalar(s, v):
    """The plan's constraints on scalar `s` (multiple_of, min, max) for value v: an error
    message, or None when v meets them."""
    if "multiple_of" in s and s["multiple_of"] and v % s["multiple_of"]:
        return "scalar %s=%d is not a multiple of %d" % (s["name"], v, s["multiple_of"])
    if ("min" in s and v < s["min"]) or ("max" in s and v > s["max"]):
        return "scalar %s=%d is outside [%s, %s]" % (s["name"], v, s.get("min"), s.get("max"))
    return None


def host_shape(arg, scalars, chips=1):
    """The host shape of an argument: scalar names replaced by their values; a split
    argument stacks the chips' blocks along dimension 0."""
    shape = [d if isinstance(d, int) else scalars[d] for d in arg["shape"]]
    if arg.get("placement") == "split" and shape:
        shape[0] *= chips
    return tuple(shape)


def scalar_values(plan, path, given):
    """The values of the plan's scalars from `given` (name -> int), checked against the
    plan's constraints; a scalar that sets an input's shape must be given."""
    declared = {s["name"]: s for s in plan.get("scalars", [])}
    for name in given:
        if name not in declared:
            raise PlanError("%s: --scalar %s: the plan has no scalar %s (its scalars: %s)"
                            % (path, name, name, ", ".join(declared) or "none"))
    for name, v in given.items():
        msg = check_scalar(declared[name], v)
        if msg:
            raise PlanError("%s: %s" % (path, msg))
    for a in plan["arguments"]:
        if a["role"] == "output":
            continue
        for d in a["shape"]:
            if isinstance(d, str) and d not in given:
                raise PlanError("%s: argument %s has shape [%s]: give the value of scalar %s "
                                "with --scalar %s=VALUE"
                                % (path, a["name"], ", ".join(str(x) for x in a["shape"]), d, d))
    return dict(given)
