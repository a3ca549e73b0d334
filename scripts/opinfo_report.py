#!/usr/bin/env python3
"""Validates the emulated PyTorch devices ("tpu", "spyre") the way PyTorch validates a
backend: every OpInfo of PyTorch's own database (torch.testing._internal.
common_methods_invocations.op_db, ~620 ops) is run on its sample inputs on the CPU and on
each device, the results are compared, and docs/ops.md is written from that.

Usage (PyTorch 1.13 is Debian's, on /usr/bin/python3):

    PYTHONPATH=$PWD/python CHIPLESS_BIN=$PWD/build/bin \\
        /usr/bin/python3 scripts/opinfo_report.py [--devices tpu,spyre] [--samples 4] \\
        [--ops add,mul,nn.functional.relu] [--limit N] [--max-numel 65536] [--timeout 60] \\
        [--snapshot head|tree] [--in-process] [--output docs/ops.md]

docs/ops.md is made with `--snapshot head` (the committed python/chipless, whatever is
being edited meanwhile). Each op runs in a worker process, restarted when a simulator,
compiler or CPU kernel crashes it: that op is then an error naming the sample, and runs
again without it.

Per (op, device):

- dtype: float32 on the TPU; on Spyre (whose native type is f16) float16 when the op
  supports float16 (its CPU or CUDA dtypes in the OpInfo), else float32. Ops without either
  are skipped.
- samples: the first `--samples` of `op.sample_inputs("cpu", dtype)` whose tensors each have
  at most `--max-numel` elements (the simulators are slow on big tensors); float16 samples
  the CPU cannot make are made in float32 and rounded. A random op (one its OpInfo seeds)
  whose values differ is compared by shapes and dtypes.
- the CPU reference: the op on the sample (float16 tensors computed in float32 and the
  float32 results rounded to float16: PyTorch 1.13's CPU lacks most float16 kernels), after
  torch.manual_seed(0); the device run: every tensor of the sample (and a device argument
  naming the CPU) moved to the device (except the few PyTorch wants on the CPU, CPU_ARGS),
  after the same seed (so a random op that runs through the CPU fallback draws the same
  numbers), with chipless.torch.reset_stats() before and fallback_counts() after (what ran
  on the CPU).
- tolerances (|device - cpu| <= atol + rtol * |cpu|, NaNs where the CPU has them): TPU
  float32 rtol 1e-4, atol 1e-5, and rtol 2e-3, atol 1e-3 for matmul-like ops (the MXU's
  bf16x3 passes); Spyre float16 rtol 1e-2, atol 1e-2; Spyre float32 as the TPU's. Integer
  and bool results must be equal; shapes and dtypes must be those of the CPU; a tensor
  result must be on the device. Ops whose result is uninitialised memory (empty, ...) are
  compared by shape and dtype only.
- class: "on device" (every sample matches and nothing ran on the CPU, confirmed by running
  it again with chipless.torch.set_strict(True), whose error also says why a lowering
  refused a call), "partly on device" (matches, some samples needed the CPU), "CPU
  fallback" (matches, every sample needed the CPU), "mismatch" (wrong numbers: the worst
  sample), "error" (an exception: its first line; a crash of the process naming the
  sample), "skipped" (no sample of that dtype, sample construction or the CPU reference
  failed, or every sample too big).

The core is importable (tests/python/torch/test_opinfo.py): run_op(op, kind, ...) -> dict
in this process, run_isolated(names, kinds, ...) -> [dict] in a worker process, load_op_db(),
select_ops(op_db, names, limit), write_markdown(results, path, meta).
"""
import argparse
import datetime
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "tests" / "python" / "torch" / "opinfo_shim"

KINDS = ("tpu", "spyre")
CLASSES = ("on device", "partly on device", "CPU fallback", "mismatch", "error", "skipped")
#: Ops with one of these words in their name ("nn.functional.conv2d", "addmm.decomposed",
#: "linalg.solve"; split at "." and "_"; "conv..." as a prefix) compare with the matmul
#: tolerance on the TPU: the MXU multiplies float32 as bf16x3 passes, about 16 significant
#: bits.
MATMUL_LIKE = ("mm", "matmul", "rmatmul", "linear", "bmm", "addmm", "einsum", "tensordot",
               "conv", "dot", "vdot", "mv", "addmv", "addr", "inner", "outer", "ger",
               "bilinear", "baddbmm", "addbmm", "cdist", "pdist", "linalg", "matrix", "pinv",
               "pinverse", "lstsq", "solve", "inv", "inverse", "det",
               "logdet", "slogdet", "cholesky", "lu", "qr", "svd", "pca", "eig", "eigh",
               "eigvals", "eigvalsh", "geqrf", "ormqr", "householder", "attention", "kron",
               "cov", "corrcoef", "tensorinv", "tensorsolve")
TOLERANCES = {("tpu", "float32"): (1e-4, 1e-5), ("tpu", "float32", "matmul"): (2e-3, 1e-3),
              ("spyre", "float16"): (1e-2, 1e-2), ("spyre", "float32"): (1e-4, 1e-5),
              ("spyre", "float32", "matmul"): (2e-3, 1e-3)}
#: The CPU's error for a float16 operand it has no kernel for.
HALF_MISSING = re.compile(r"not implemented for '?Half'?|not implemented for half",
                          re.I)
#: The strict mode error of a lowering that refused a call: the op and the reason.
STRICT_REFUSAL = re.compile(r"chipless: (\S+) does not run on \S+ \((.*)\), and strict mode",
                            re.S)
#: Ops whose result is memory nobody wrote (PyTorch's OpInfos mark them "not comparable").
UNCOMPARABLE = ("empty", "empty_like", "new_empty", "new_empty_strided")


def _torch():
    import torch
    return torch


# ---- the OpInfo database --------------------------------------------------------------------

def load_op_db():
    """PyTorch's OpInfo list; the expecttest stand-in goes on sys.path if the real one is
    missing (Debian does not ship it)."""
    try:
        import expecttest  # noqa: F401  (only whether it is there)
    except ImportError:
        if str(SHIM) not in sys.path:
            sys.path.append(str(SHIM))
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def op_name(op):
    """The OpInfo's name with its variant: "addmm", "addmm.decomposed", "max.reduction_with_dim"."""
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def select_ops(op_db, names=None, limit=None):
    """The OpInfos named (by name, or name.variant) in `names` (all when None), at most
    `limit`. An unknown name is an error."""
    if names:
        wanted = list(names)
        found = [op for op in op_db if op_name(op) in wanted or op.name in wanted]
        known = {op_name(op) for op in op_db} | {op.name for op in op_db}
        unknown = [n for n in wanted if n not in known]
        if unknown:
            raise SystemExit(f"opinfo_report: no OpInfo named {', '.join(unknown)}")
        ops = found
    else:
        ops = list(op_db)
    return ops[:limit] if limit else ops


def dtype_for(op, kind):
    """The dtype `op` is run in on `kind` (None: the op has no float dtype to run)."""
    torch = _torch()
    cpu = set(op.supported_dtypes("cpu"))
    if kind == "spyre" and torch.float16 in cpu | set(op.supported_dtypes("cuda")):
        return torch.float16
    return torch.float32 if torch.float32 in cpu else None


def tolerance(name, kind, dtype):
    """(rtol, atol) for op `name` on `kind` in `dtype`."""
    dt = str(dtype).replace("torch.", "")
    words = [w for w in re.split(r"[._]", name) if w]
    matmul = any(w in MATMUL_LIKE or w.startswith("conv") for w in words)
    if matmul and (kind, dt, "matmul") in TOLERANCES:
        return TOLERANCES[(kind, dt, "matmul")]
    return TOLERANCES[(kind, dt)]


# ---- pytrees of samples -----------------------------------------------------------------------

def tree_map(v, f):
    """`v` with f applied to each tensor in it (also inside lists, tuples and dicts)."""
    torch = _torch()
    if isinstance(v, torch.Tensor):
        return f(v)
    if isinstance(v, tuple) and hasattr(v, "_fields"):  # a named tuple
        return type(v)(*(tree_map(x, f) for x in v))
    if isinstance(v, (list, tuple)):
        return type(v)(tree_map(x, f) for x in v)
    if isinstance(v, dict):
        return {k: tree_map(x, f) for k, x in v.items()}
    return v


def tensors_of(v):
    out = []
    tree_map(v, lambda t: out.append(t) or t)
    return out


def sample_parts(sample):
    return sample.input, tuple(sample.args), dict(sample.kwargs)


def clone_parts(parts):
    return tree_map(parts, lambda t: t.clone())


def upcast(parts):
    torch = _torch()
    return tree_map(parts, lambda t: t.float() if t.dtype == torch.float16 else t.clone())


#: Arguments PyTorch wants on the CPU whatever the device (op name -> positions in args).
CPU_ARGS = {"tensor_split": (0,)}


def to_device(parts, device, name=""):
    """The sample's input, args and kwargs with every tensor moved to `device` (except the
    arguments PyTorch wants on the CPU, CPU_ARGS), and a device argument naming the CPU
    (`device=`, or `x.to("cpu")`) made the device."""
    torch = _torch()

    def move(v):
        return tree_map(v, lambda t: t.to(device))

    def device_arg(v):
        is_cpu = (isinstance(v, str) and v.split(":")[0] == "cpu") or \
            (isinstance(v, torch.device) and v.type == "cpu")
        return torch.device(device) if is_cpu else v
    inp, args, kwargs = parts
    keep = CPU_ARGS.get(name.split(".")[0], ())
    inp = move(inp)
    args = tuple(a if i in keep else device_arg(move(a)) for i, a in enumerate(args))
    kwargs = {k: move(v) for k, v in kwargs.items()}
    if "device" in kwargs:
        kwargs["device"] = device_arg(kwargs["device"])
    return inp, args, kwargs


def round_half(v):
    """float32 results of a float32 reference as float16 (what a float16 run returns)."""
    torch = _torch()
    return tree_map(v, lambda t: t.half() if t.dtype == torch.float32 else t)


def biggest(parts):
    return max((t.numel() for t in tensors_of(parts)), default=0)


# ---- comparison -----------------------------------------------------------------------------

class Mismatch(Exception):
    """A device result that differs from the CPU's; `score` orders them (worst first)."""

    def __init__(self, message, score=float("inf")):
        super().__init__(message)
        self.score = score


def _fmt(x):
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def compare(got, want, rtol, atol, half=False, where="result", values=True, on_device=True):
    """Raises Mismatch when the device's `got` is not the CPU's `want` within tolerance (a
    tensor of `got` must be on the device unless `on_device` is False); returns the worst
    |got - want| / (atol + rtol |want|) of the float elements."""
    torch = _torch()
    if isinstance(want, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            raise Mismatch(f"{where}: got {type(got).__name__}, the CPU gives a tensor")
        if on_device and got.device.type != "privateuseone":
            raise Mismatch(f"{where}: the result is on {got.device}, not on the device")
        if tuple(got.shape) != tuple(want.shape):
            raise Mismatch(f"{where}: shape {tuple(got.shape)}, the CPU's {tuple(want.shape)}")
        expected = want.dtype
        if got.dtype != expected and not (half and {got.dtype, expected} <= {torch.float16,
                                                                            torch.float32}):
            raise Mismatch(f"{where}: dtype {got.dtype}, the CPU's {expected}")
        if not values:
            return 0.0
        g = got.detach().cpu()
        w = want.detach()
        if w.is_complex() or g.is_complex():
            g, w = torch.view_as_real(g.resolve_conj()), torch.view_as_real(w.resolve_conj())
        if not (w.is_floating_point() or g.is_floating_point()):
            if not torch.equal(g.to(torch.int64), w.to(torch.int64)):
                diff = (g.to(torch.int64) != w.to(torch.int64)).nonzero()
                i = tuple(diff[0].tolist())
                raise Mismatch(f"{where}: {len(diff)} of {w.numel()} elements differ, "
                               f"e.g. at {list(i)}: {g[i].item()} vs the CPU's {w[i].item()}")
            return 0.0
        g, w = g.to(torch.float64), w.to(torch.float64)
        if w.numel() == 0:
            return 0.0
        nan_g, nan_w = torch.isnan(g), torch.isnan(w)
        if not torch.equal(nan_g, nan_w):
            i = tuple((nan_g != nan_w).nonzero()[0].tolist())
            raise Mismatch(f"{where}: NaN where the CPU has none or the reverse, at {list(i)}: "
                           f"{g[i].item():.6g} vs the CPU's {w[i].item():.6g}")
        g, w = g.masked_fill(nan_g, 0), w.masked_fill(nan_w, 0)
        inf = torch.isinf(w) | torch.isinf(g)
        if not torch.equal(g[inf], w[inf]):
            i = tuple((inf & (g != w)).nonzero()[0].tolist())
            raise Mismatch(f"{where}: at {list(i)} {g[i].item():.6g} vs the CPU's "
                           f"{w[i].item():.6g}")
        g, w = g.masked_fill(inf, 0), w.masked_fill(inf, 0)
        ratio = (g - w).abs() / (atol + rtol * w.abs())
        worst = ratio.max().item()
        if worst > 1:
            i = tuple(int(x) for x in torch.nonzero(ratio == ratio.max())[0].tolist())
            diff = (g - w).abs().max().item()
            raise Mismatch(f"{where}: max |diff| {diff:.3g} (x{worst:.3g} the tolerance), "
                           f"at {list(i)}: {g[i].item():.6g} vs the CPU's {w[i].item():.6g}",
                           worst)
        return worst
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            raise Mismatch(f"{where}: got {type(got).__name__} of "
                           f"{len(got) if hasattr(got, '__len__') else '?'}, the CPU gives "
                           f"{type(want).__name__} of {len(want)}")
        return max((compare(g, w, rtol, atol, half, f"{where}[{k}]", values, on_device)
                    for k, (g, w) in enumerate(zip(got, want))), default=0.0)
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if want != want and got != got:
            return 0.0
        if want in (float("inf"), float("-inf")) or abs(got - want) > atol + rtol * abs(want):
            if got != want:
                raise Mismatch(f"{where}: {_fmt(got)} vs the CPU's {_fmt(want)}")
        return 0.0
    if isinstance(got, torch.Tensor) and isinstance(want, (int, float, bool)):
        raise Mismatch(f"{where}: got a tensor, the CPU gives {type(want).__name__} {want}")
    if got != want:
        raise Mismatch(f"{where}: {_fmt(got)!s:.40} vs the CPU's {_fmt(want)!s:.40}")
    return 0.0


# ---- running --------------------------------------------------------------------------------

class SampleTimeout(Exception):
    pass


class _deadline:
    """Raises SampleTimeout in the main thread after `seconds` (checked when Python code runs
    again: a long simulator call is not interrupted, the next Python step is)."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.active = seconds and seconds > 0 and \
            __import__("threading").current_thread() is __import__("threading").main_thread()

    def _fire(self, *_):
        raise SampleTimeout(f"timed out after {self.seconds} s")

    def __enter__(self):
        if self.active:
            self._old = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)


def first_line(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}".strip()


def describe(parts):
    """A sample in a few words: its tensors' shapes and its other arguments."""
    torch = _torch()

    def one(v):
        if isinstance(v, torch.Tensor):
            return "[" + ",".join(str(d) for d in v.shape) + "]"
        if isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in v):
            return "(" + ", ".join(one(x) for x in v) + ")"
        return repr(v)
    inp, args, kwargs = parts
    text = ", ".join([one(inp)] + [one(a) for a in args] +
                     [f"{k}={one(v)}" for k, v in kwargs.items()])
    return text if len(text) <= 120 else text[:119] + "…"


def is_random(op):
    """Whether `op` draws random numbers (its OpInfo wraps it in wrapper_set_seed): the
    float16 device run (the CPU fallback drawing in float16) and the float32 reference draw
    differently, so only shapes and dtypes are compared when the values differ."""
    code = getattr(op.op, "__code__", None)
    return code is not None and "wrapper_set_seed" in code.co_names


def _call(op, parts, seed=0):
    torch = _torch()
    inp, args, kwargs = parts
    torch.manual_seed(seed)
    return op(inp, *args, **kwargs)


def _reference(op, parts, half, seed=0):
    if half:
        return round_half(_call(op, upcast(parts), seed))
    return _call(op, clone_parts(parts), seed)


def _refusal(reason):
    """The compiler's reason for refusing a program, in one line."""
    line = str(reason).strip().splitlines()[0] if str(reason).strip() else ""
    return re.sub(r"^<[^>]*>:\d+:\d+: (error: )?", "", line)


def _drain():
    """Waits for every op queued on the devices' streams; an error one of them raises
    (belonging to what ran before) is dropped."""
    import chipless.torch as ct
    for _ in range(3):
        try:
            ct.synchronize()
            return
        except Exception:  # noqa: BLE001
            continue


def _counts():
    """fallback_counts(), or {} when a queued op's error is raised there instead."""
    import chipless.torch as ct
    try:
        return ct.fallback_counts()
    except Exception:  # noqa: BLE001
        return {}


def run_sample(op, kind, parts, dtype, rtol, atol, strict_check=True, timeout=60):
    """One sample on `kind` against the CPU: a dict with "status" ("ok", "mismatch",
    "error", "skipped"), "cpu_ops" ({aten op: count} run on the CPU), "launches", "reason",
    "note", "score"."""
    torch = _torch()
    import chipless.torch as ct
    half = dtype == torch.float16
    device = f"{kind}:0"
    name = op_name(op)
    out = {"status": "ok", "cpu_ops": {}, "launches": 0, "reason": "", "note": "",
           "score": 0.0}
    try:
        with _deadline(timeout):
            want = _reference(op, parts, half)
    except Exception as e:  # noqa: BLE001 — not the device's fault
        return dict(out, status="skipped", reason=f"CPU reference failed: {first_line(e)}")
    _drain()
    ct.set_strict(False)
    got = None
    try:
        with _deadline(timeout):
            moved = to_device(clone_parts(parts), device, name)
            ct.reset_stats()
            got = _call(op, moved)
            ct.synchronize()
            out["cpu_ops"] = ct.fallback_counts()
            stats = ct.stats(device)
            out["launches"] = stats["launches"]
            out["refused"] = {k: _refusal(v) for k, v in stats["refused"].items()}
            out["score"] = compare(got, want, rtol, atol, half,
                                   values=name.split(".")[0] not in UNCOMPARABLE)
    except Mismatch as e:
        out.update(status="mismatch", reason=str(e), score=e.score, cpu_ops=_counts())
        if not is_random(op):
            try:  # a random op: another seed gives other numbers on the CPU too
                compare(_reference(op, parts, half, seed=1), want, rtol, atol, half,
                        on_device=False)
                return out
            except Mismatch:
                pass
            except Exception:  # noqa: BLE001
                return out
        try:  # then only shapes and dtypes are compared
            compare(got, want, rtol, atol, half, values=False)
        except Mismatch as e2:
            out["reason"] = f"{e2} (a random op)"
            return out
        out.update(status="ok", reason="", score=0.0,
                   note="random: values differ from the CPU's draws, shapes and dtypes "
                        "compared")
    except Exception as e:  # noqa: BLE001 — one bad op never stops the run
        return dict(out, status="error", reason=first_line(e), cpu_ops=_counts())
    finally:
        _drain()
        ct.set_strict(False)
    if strict_check:
        # the same sample in strict mode: a CPU fallback the counts missed is an error there;
        # when it ran on the CPU, the error says why (a lowering's reason for refusing)
        try:
            with _deadline(timeout):
                ct.set_strict(True)
                _call(op, to_device(clone_parts(parts), device, name))
                ct.synchronize()
        except Exception as e:  # noqa: BLE001
            m = STRICT_REFUSAL.search(str(e))
            if m and m.group(2) != "no lowering" and "computed on the CPU" not in m.group(2):
                out.setdefault("refused", {})[m.group(1)] = _refusal(m.group(2))
            if not out["cpu_ops"]:
                out["cpu_ops"] = {"(strict mode) " + first_line(e)[:80]: 1}
        finally:
            # ops queued on a device's stream in strict mode still run (and raise) there:
            # wait for them before strict mode ends, so nothing leaks into the next sample
            _drain()
            ct.set_strict(False)
    return out


def choose_samples(op, dtype, samples=4, max_numel=2 ** 16, timeout=60, max_scanned=64):
    """([sample parts], how many were too big, an error constructing them or None): the first
    `samples` samples of `op` in `dtype` whose tensors each have at most `max_numel`
    elements, made after torch.manual_seed(0) (the same samples in every run)."""
    torch = _torch()
    chosen, too_big, scanned = [], 0, 0
    torch.manual_seed(0)
    try:
        with _deadline(timeout):
            for sample in op.sample_inputs("cpu", dtype, requires_grad=False):
                scanned += 1
                parts = sample_parts(sample)
                if biggest(parts) > max_numel:
                    too_big += 1
                elif len(chosen) < samples:
                    chosen.append(parts)
                if len(chosen) >= samples or scanned >= max_scanned:
                    break
    except Exception as e:  # noqa: BLE001
        return chosen, too_big, first_line(e)
    return chosen, too_big, None


def run_op(op, kind, samples=4, max_numel=2 ** 16, timeout=60, strict_check=True,
           exclude=(), on_sample=None):
    """Runs OpInfo `op` on device kind `kind` ("tpu" or "spyre") against the CPU, in this
    process; a dict: op, device, dtype, class (one of CLASSES), reason (for mismatch,
    error, skipped), note, samples (how many ran), cpu_ops ({aten op: count} that ran on the
    CPU), launches, seconds. Samples whose index is in `exclude` are left out;
    `on_sample(index, description)` is called before each sample runs."""
    torch = _torch()
    start = time.time()
    name = op_name(op)
    dtype = dtype_for(op, kind)
    result = {"op": name, "device": kind,
              "dtype": str(dtype).replace("torch.", "") if dtype else "—",
              "class": "skipped", "reason": "", "note": "", "samples": 0, "cpu_ops": {},
              "launches": 0, "seconds": 0.0}
    if dtype is None:
        result["reason"] = "no float32 or float16 samples"
        return result
    rtol, atol = tolerance(name, kind, dtype)
    result["tolerance"] = [rtol, atol]
    chosen, too_big, failed = choose_samples(op, dtype, samples, max_numel, timeout)
    if not chosen and failed and dtype == torch.float16:
        # 1.13's CPU cannot make this op's float16 samples (they run a CPU op in float16):
        # its float32 samples, rounded to float16
        chosen, too_big, _ = choose_samples(op, torch.float32, samples, max_numel, timeout)
        chosen = [tree_map(p, lambda t: t.half() if t.dtype == torch.float32 else t)
                  for p in chosen]
        if chosen:
            result["note"] = "float16 samples rounded from float32 ones (the CPU could not " \
                             f"make them: {failed})"
    if not chosen:
        result["reason"] = (f"sample construction failed: {failed}" if failed else
                            f"every sample has more than {max_numel} elements" if too_big
                            else f"no {result['dtype']} samples")
        result["seconds"] = time.time() - start
        return result
    made_from = result["note"]
    runs = []
    for index, parts in enumerate(chosen):
        if index in exclude:
            continue
        if on_sample:
            on_sample(index, describe(parts))
        runs.append(run_sample(op, kind, parts, dtype, rtol, atol, strict_check, timeout))
    classify(result, runs)
    if made_from:
        result["note"] = "; ".join(n for n in (made_from, result["note"]) if n)
    result["seconds"] = time.time() - start
    return result


def classify(result, runs):
    """Fills result's class, reason, note, samples, launches and cpu_ops from its samples'
    runs (run_sample's dicts)."""
    done = [r for r in runs if r["status"] != "skipped"]
    result["samples"] = len(done)
    result["launches"] = sum(r["launches"] for r in runs)
    for r in runs:
        for k, n in r["cpu_ops"].items():
            result["cpu_ops"][k] = result["cpu_ops"].get(k, 0) + n
    refused = {}
    for r in runs:
        refused.update(r.get("refused", {}))
    notes = list(dict.fromkeys(r["note"] for r in runs if r.get("note")))
    mismatches = sorted((r for r in runs if r["status"] == "mismatch"),
                        key=lambda r: -r["score"])
    errors = [r for r in runs if r["status"] == "error"]
    if mismatches:
        result["class"] = "mismatch"
        result["reason"] = mismatches[0]["reason"]
        if errors:
            notes.append(f"also {len(errors)} error(s): {errors[0]['reason']}")
    elif errors:
        result["class"] = "error"
        result["reason"] = errors[0]["reason"]
    elif not done:
        result["reason"] = runs[0]["reason"] if runs else "no sample left to run"
    else:
        on_cpu = sum(1 for r in done if r["cpu_ops"])
        result["class"] = ("on device" if on_cpu == 0 else
                           "CPU fallback" if on_cpu == len(done) else "partly on device")
        if result["class"] == "on device" and result["launches"] == 0:
            notes.append("no program launched (views, copies or metadata only)")
    if refused and result["class"] in ("partly on device", "CPU fallback"):
        notes += [f"refused: {k}: {v}" for k, v in refused.items()]
    skipped = [r for r in runs if r["status"] == "skipped"]
    if skipped and done:
        notes.append(f"{len(skipped)} sample(s) skipped: {skipped[0]['reason']}")
    result["note"] = "; ".join(notes)
    return result


def run(ops, kinds=KINDS, samples=4, max_numel=2 ** 16, timeout=60, strict_check=True,
        progress=None):
    """run_op for every op and device kind in this process; `progress(i, n, result)` after
    each. A crash of the process (a simulator or compiler fault) ends it: run_isolated()
    survives those."""
    results = []
    n = len(ops) * len(kinds)
    for op in ops:
        for kind in kinds:
            r = run_op(op, kind, samples, max_numel, timeout, strict_check)
            results.append(r)
            if progress:
                progress(len(results), n, r)
    return results


# ---- crash isolation: the ops run in a worker process -------------------------------------------

def worker_main(protocol_fd):
    """The worker: reads jobs (JSON lines) on stdin, runs them with run_op and writes
    {"sample": index, "desc": ...} before each sample and {"result": {...}} after each job to
    `protocol_fd` (stdout is sent to stderr, so that nothing else writes there)."""
    import json
    import warnings
    warnings.filterwarnings("ignore")
    import chipless.torch  # noqa: F401
    ops = {op_name(op): op for op in load_op_db()}
    out = os.fdopen(protocol_fd, "w", buffering=1)

    def send(message):
        out.write(json.dumps(message) + "\n")
        out.flush()
    send({"ready": True})
    for line in sys.stdin:
        job = json.loads(line)
        r = run_op(ops[job["op"]], job["kind"], job["samples"], job["max_numel"],
                   job["timeout"], job["strict_check"], set(job["exclude"]),
                   lambda i, d: send({"sample": i, "desc": d}))
        send({"result": r})


def package_root():
    """The folder holding the chipless package this process imports."""
    import chipless
    return str(Path(chipless.__file__).resolve().parent.parent)


class Worker:
    """A worker process running jobs one at a time; dies with the op that crashed it."""

    def __init__(self):
        import subprocess
        read, write = os.pipe()
        env = dict(os.environ)
        # a lock folder of its own: a crashed worker's devices never block the next one
        env["CHIPLESS_LOCK_DIR"] = tempfile.mkdtemp(prefix="opinfo-worker-locks-")
        # the chipless package this process uses (the worker must not pick another one)
        env["PYTHONPATH"] = os.pathsep.join([package_root(),
                                             env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", str(write)],
            stdin=subprocess.PIPE, pass_fds=(write,), env=env, text=True)
        os.close(write)
        self.fd = read
        self.buffer = b""
        self.lines = []
        message = self.read(600)
        if not message or not message.get("ready"):
            self.close()
            raise RuntimeError(f"the OpInfo worker did not start ({message})")

    def read(self, seconds):
        """The next message, or None when the worker died or `seconds` passed."""
        import json
        import select
        deadline = time.time() + seconds
        while not self.lines:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:  # the worker ended: reap it, so that death() can say how
                try:
                    self.proc.wait(30)
                except Exception:  # noqa: BLE001
                    pass
                return None
            self.buffer += chunk
            *lines, self.buffer = self.buffer.split(b"\n")
            self.lines += [json.loads(x) for x in lines if x.strip()]
        return self.lines.pop(0)

    def send(self, job):
        import json
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()

    def death(self):
        """How the worker ended: "killed by SIGFPE", "exit 1", or None when it runs."""
        code = self.proc.poll()
        if code is None:
            return None
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with status {code}"

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        os.close(self.fd)


def run_isolated(names, kinds=KINDS, samples=4, max_numel=2 ** 16, timeout=60,
                 strict_check=True, progress=None, op_seconds=None, retries=3):
    """run_op for every OpInfo in `names` and device kind, in a worker process: a crash of
    the process or an op running past `op_seconds` (default: timeout * (samples + 2) + 60)
    is that op's error, naming the sample it happened on; the worker is restarted and the
    op run again without that sample (up to `retries` times), what the other samples gave
    going into the note. `progress(i, n, result)` after each (op, kind)."""
    op_seconds = op_seconds or timeout * (samples + 2) + 60
    results, worker = [], None
    by_name = {op_name(op): op for op in load_op_db()}
    dtypes = {(name, kind): str(dtype_for(by_name[name], kind)).replace("torch.", "")
              for name in names for kind in kinds}
    n = len(names) * len(kinds)
    try:
        for name in names:
            for kind in kinds:
                crashes, exclude = [], []
                while True:
                    if worker is None:
                        worker = Worker()
                    worker.send({"op": name, "kind": kind, "samples": samples,
                                 "max_numel": max_numel, "timeout": timeout,
                                 "strict_check": strict_check, "exclude": exclude})
                    current, r, start = None, None, time.time()
                    while r is None:
                        message = worker.read(op_seconds - (time.time() - start))
                        if message is None:
                            break
                        if "sample" in message:
                            current = message
                        else:
                            r = message["result"]
                    if r is not None:
                        break
                    how = worker.death() or f"ran past {op_seconds:.0f} s and was killed"
                    worker.close()
                    worker = None
                    where = (f"sample {current['sample']} ({current['desc']})" if current
                             else "before its first sample")
                    crashes.append(f"the process {how} in {where}")
                    if current is None or len(crashes) > retries:
                        r = None
                        break
                    exclude.append(current["sample"])
                if r is None or crashes:
                    rest = r
                    r = {"op": name, "device": kind,
                         "dtype": rest["dtype"] if rest else dtypes.get((name, kind), "—"),
                         "class": "error", "reason": crashes[0], "samples": 0,
                         "cpu_ops": {}, "launches": 0, "seconds": 0.0, "note": ""}
                    notes = crashes[1:]
                    if rest is not None:
                        r.update({k: rest[k] for k in ("samples", "cpu_ops", "launches",
                                                       "seconds", "dtype")})
                        notes.append(f"the other samples: {rest['class']}"
                                     + (f" ({rest['reason']})" if rest["reason"] else ""))
                        if rest["note"]:
                            notes.append(rest["note"])
                    r["note"] = "; ".join(notes)
                results.append(r)
                if progress:
                    progress(len(results), n, r)
    finally:
        if worker is not None:
            worker.close()
    return results


# ---- the report -----------------------------------------------------------------------------

def _cell(text, limit=100):
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _cpu_ops_text(cpu_ops, limit=4):
    names = sorted(cpu_ops, key=lambda k: -cpu_ops[k])
    text = ", ".join(n.replace("aten::", "") for n in names[:limit])
    return text + (f", +{len(names) - limit}" if len(names) > limit else "")


def write_markdown(results, path, meta):
    """docs/ops.md from `results` (run()'s); `meta`: torch, command, date, kinds, samples,
    max_numel, seconds, lowered (the PrivateUse1 registrations, grouped)."""
    kinds = meta["kinds"]
    by_op = {}
    for r in results:
        by_op.setdefault(r["op"], {})[r["device"]] = r
    lines = [
        "# PyTorch's OpInfo tests on the emulated devices",
        "",
        "Generated by `scripts/opinfo_report.py`; do not edit by hand. Every OpInfo of PyTorch's",
        "own op database (`torch.testing._internal.common_methods_invocations.op_db`) is run on",
        "its sample inputs on the CPU and on each emulated device, and the results compared",
        "(docs/pytorch.md describes the devices).",
        "",
        f"- PyTorch {meta['torch']}; {len(by_op)} OpInfos; devices: "
        + ", ".join(f"`{k}:0`" for k in kinds) + f"; run on {meta['date']} in "
        f"{meta['seconds'] / 60:.1f} min; chipless: {meta.get('source', '?')}.",
        f"- Command: `{meta['command']}`",
        "- dtypes: float32 on the TPU; float16 on Spyre where the OpInfo supports it (its CPU or",
        "  CUDA dtypes), else float32. The CPU reference of a float16 sample is computed in",
        "  float32 from the same (float16) values and rounded to float16 (PyTorch 1.13's CPU",
        "  lacks most float16 kernels).",
        f"- Samples: the first {meta['samples']} of `op.sample_inputs(\"cpu\", dtype)` whose "
        f"tensors each have at most {meta['max_numel']} elements; every tensor (and a "
        "`device=` argument) moved with `.to(device)`; `torch.manual_seed(0)` before the CPU "
        "and the device run (so a random op computed by the CPU fallback draws the same "
        "numbers; a random op whose values still differ, one its OpInfo seeds itself, is "
        "compared by shapes and dtypes). float16 samples the CPU cannot make are made in "
        "float32 and rounded.",
        "- Tolerances, |device − CPU| ≤ atol + rtol·|CPU|: TPU float32 rtol 1e-4, atol 1e-5; "
        "matmul-like ops (a word of the name in the script's MATMUL_LIKE: "
        + ", ".join(MATMUL_LIKE[:9]) + "*, dot, linalg, …) rtol 2e-3, atol 1e-3 "
        "(the MXU's bf16x3 passes); "
        "Spyre float16 rtol 1e-2, atol 1e-2; Spyre float32 as the TPU. Integers and bools "
        "exactly; NaNs where the CPU has them; shapes, dtypes, and the result on the device. "
        "`empty`-like ops: shape and dtype only.",
        "- Classes: **on device** — every sample matches and nothing ran on the CPU "
        "(`chipless.torch.fallback_counts()` empty, and the sample run again under "
        "`chipless.torch.set_strict(True)` raised nothing); **partly on device** — matches, "
        "some samples needed the CPU; **CPU fallback** — matches, every sample needed the "
        "CPU; **mismatch** — wrong numbers (the worst sample in the note); **error** — an "
        "exception (its first line), or a crash of the process (each op runs in a worker "
        "process, restarted after a crash; the op then runs again without that sample, "
        "which the note reports); **skipped** — no sample of that dtype, sample "
        "construction or the CPU reference failed, or every sample too big.",
        "",
        "## Summary",
        "",
        "| class | " + " | ".join(kinds) + " |",
        "|---|" + "---:|" * len(kinds),
    ]
    for cls in CLASSES:
        counts = [sum(1 for r in results if r["device"] == k and r["class"] == cls)
                  for k in kinds]
        lines.append(f"| {cls} | " + " | ".join(str(c) for c in counts) + " |")
    lines.append("| total | " + " | ".join(
        str(sum(1 for r in results if r["device"] == k)) for k in kinds) + " |")

    lowered = meta.get("lowered")
    if lowered:
        lines += ["", "## What the backend registers", "",
                  "The PrivateUse1 kernels of `chipless.torch` (`python/chipless/torch/ops.py` "
                  "and `pybind/torch/`); every other ATen op goes to the CPU fallback.", ""]
        for title, names in lowered:
            lines.append(f"- {title} ({len(names)}): "
                         + ", ".join(f"`{n.replace('aten::', '')}`" for n in names))
    lines += ["", "## OpInfos that run on the device", ""]
    for k in kinds:
        native = [r["op"] for r in results if r["device"] == k and r["class"] == "on device"]
        computing = [r["op"] for r in results if r["device"] == k and r["class"] == "on device"
                     and r["launches"] > 0]
        partly = [r["op"] for r in results
                  if r["device"] == k and r["class"] == "partly on device"]
        lines.append(f"- `{k}` on device ({len(native)}; those launching a device program "
                     f"in bold): " + ", ".join(
                         f"**{n}**" if n in computing else n for n in native))
        lines.append(f"- `{k}` partly on device ({len(partly)}): " + ", ".join(partly))

    mismatches = [r for r in results if r["class"] == "mismatch"]
    errors = [r for r in results if r["class"] == "error"]
    no_half = [r for r in errors if HALF_MISSING.search(r["reason"])]
    others = [r for r in errors if r not in no_half]
    if mismatches:
        lines += ["", "## Mismatches (wrong numbers)", "",
                  "| op | device | dtype | tolerance (rtol, atol) | the worst sample |",
                  "|---|---|---|---|---|"]
        for r in sorted(mismatches, key=lambda r: (r["op"], r["device"])):
            tol = ", ".join(f"{t:g}" for t in r.get("tolerance", ()))
            lines.append(f"| {r['op']} | {r['device']} | {r['dtype']} | {tol} | "
                         f"{_cell(r['reason'], 240)} |")
    if others:
        lines += ["", "## Errors", "",
                  "| op | device | dtype | the first error | note |", "|---|---|---|---|---|"]
        for r in sorted(others, key=lambda r: (r["op"], r["device"])):
            lines.append(f"| {r['op']} | {r['device']} | {r['dtype']} | "
                         f"{_cell(r['reason'], 200)} | {_cell(r['note'], 160)} |")
    if no_half:
        lines += ["", "## Errors: the CPU fallback has no float16 kernel", "",
                  "These ops reach ATen's CPU fallback with float16 operands, for which "
                  "PyTorch 1.13's CPU has no kernel (`\"..._cpu\" not implemented for "
                  "'Half'`); the fallback computes only the ops of `CPU_IN_FLOAT` "
                  "(python/chipless/torch/ops.py) in float32.", ""]
        for k in kinds:
            names = sorted(r["op"] for r in no_half if r["device"] == k)
            if names:
                lines.append(f"- `{k}` ({len(names)}): " + ", ".join(names))

    lines += ["", "## Every OpInfo", "",
              "A cell names the class and, on Spyre when it is not float16, the dtype. The "
              "note gives the first line of a mismatch, error or skip, what the compiler "
              "refused, and the ATen ops that ran on the CPU; a note without a device name "
              "holds for every device.", "",
              "| op | " + " | ".join(kinds) + " | note |",
              "|---|" + "---|" * len(kinds) + "---|"]
    for name in sorted(by_op):
        row, per_device = [], {}
        for k in kinds:
            r = by_op[name].get(k)
            if r is None:
                row.append("")
                continue
            cell = r["class"]
            if k == "spyre" and r["dtype"] not in ("float16", "—") and r["class"] != "skipped":
                cell += f" ({r['dtype']})"
            row.append(cell)
            texts = [_cell(t) for t in (r["reason"], *r["note"].split("; ")) if t]
            if r["cpu_ops"] and r["class"] in ("partly on device", "CPU fallback"):
                texts.append("CPU: " + _cell(_cpu_ops_text(r["cpu_ops"])))
            per_device[k] = texts
        notes = []
        seen = set()
        for k, texts in per_device.items():
            for t in texts:
                if t in seen:
                    continue
                seen.add(t)
                having = [d for d, ts in per_device.items() if t in ts]
                label = "" if len(having) == len(per_device) and len(per_device) > 1 \
                    else ",".join(having) + ": "
                notes.append(label + t)
        lines.append(f"| {_cell(name)} | " + " | ".join(row) + f" | {'; '.join(notes)} |")
    lines.append("")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ops-", suffix=".md", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(lines))
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _git(*args, text=True):
    import subprocess
    try:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=text,
                              timeout=60).stdout
    except Exception:  # noqa: BLE001
        return "" if text else b""


_snapshot = {}


def snapshot(kind):
    """A folder holding a copy of the chipless package: of the working tree ("tree"), or as
    committed at HEAD ("head", read with git archive)."""
    import io
    import shutil
    import tarfile
    copy = Path(tempfile.mkdtemp(prefix="opinfo-chipless-"))
    if kind == "head":
        commit = _git("rev-parse", "--short", "HEAD").strip()
        data = _git("archive", commit, "python/chipless", text=False)
        if not data:
            raise SystemExit("opinfo_report: git archive of HEAD's python/chipless failed")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(copy)
        _snapshot.update(kind=kind, commit=commit)
        return str(copy / "python")
    shutil.copytree(ROOT / "python" / "chipless", copy / "chipless",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _snapshot.update(kind=kind, commit=_git("rev-parse", "--short", "HEAD").strip())
    return str(copy)


def source_description():
    """Which chipless ran: the commit, and whether python/ had uncommitted changes (or the
    package came from elsewhere)."""
    commit = _git("rev-parse", "--short", "HEAD").strip() or "unknown"
    if _snapshot.get("kind") == "head":
        return f"commit {_snapshot['commit']} (python/chipless as committed)"
    changed = _git("status", "--porcelain", "--", "python", "pybind").strip()
    dirty = " with uncommitted changes to python/ or pybind/" if changed else ""
    if _snapshot.get("kind") == "tree":
        return f"the working tree at commit {_snapshot['commit']}{dirty}, copied at the start"
    used = package_root()
    if Path(used) != (ROOT / "python").resolve():
        return f"the chipless package in `{used}` (the source tree is at commit {commit})"
    return f"commit {commit}{dirty}"


def registrations():
    """The PrivateUse1 kernels chipless.torch registers, grouped: [(title, [aten op])]."""
    torch = _torch()
    import chipless.torch.ops as ops
    regs = sorted(torch._C._dispatch_get_registrations_for_dispatch_key("PrivateUse1"))
    in_float = {f"aten::{n}" for n in ops.CPU_IN_FLOAT}
    conv = {"aten::convolution_overrideable", "aten::convolution_backward_overrideable"}
    infra = {"aten::_copy_from", "aten::_copy_from_and_resize", "aten::_local_scalar_dense",
             "aten::_reshape_alias", "aten::as_strided", "aten::empty.memory_format",
             "aten::empty_strided", "aten::resize_", "aten::unfold", "aten::view"}
    lowered = [r for r in regs if r not in in_float | conv | infra]
    return [("lowered to device programs", lowered),
            ("memory, copies and views", [r for r in regs if r in infra]),
            ("run on the CPU in float32 for float16 operands (1.13's CPU has no float16 "
             "kernel)", [r for r in regs if r in in_float]),
            ("convolutions and their gradients, lowered on both chips (see docs/pytorch.md for "
             "the parts that run on the CPU)",
             [r for r in regs if r in conv])]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", default="tpu,spyre", help="device kinds (tpu,spyre)")
    parser.add_argument("--ops", default="", help="OpInfo names (name or name.variant), "
                        "comma separated; all when left out")
    parser.add_argument("--limit", type=int, default=0, help="at most N OpInfos")
    parser.add_argument("--samples", type=int, default=4, help="samples per op (4)")
    parser.add_argument("--max-numel", type=int, default=2 ** 16,
                        help="skip samples with a tensor of more elements (65536)")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds per sample before it is an error (60)")
    parser.add_argument("--no-strict-check", action="store_true",
                        help="do not re-run on-device samples in strict mode")
    parser.add_argument("--in-process", action="store_true",
                        help="run the ops in this process (a crash ends the run) instead "
                        "of a worker process restarted after a crash")
    parser.add_argument("--snapshot", choices=("tree", "head"),
                        help="run a copy of python/chipless taken at the start: of the "
                        "working tree, or as committed at HEAD (git archive); edits made to "
                        "the source tree during the run then do not reach the workers")
    parser.add_argument("--output", default=str(ROOT / "docs" / "ops.md"))
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    a = parser.parse_args(argv)
    if a.worker is not None:
        worker_main(a.worker)
        return 0
    kinds = [k.strip() for k in a.devices.split(",") if k.strip()]
    if any(k not in KINDS for k in kinds):
        parser.error(f"--devices takes {', '.join(KINDS)}")
    if a.snapshot:
        sys.path.insert(0, snapshot(a.snapshot))
    elif "PYTHONPATH" not in os.environ and str(ROOT / "python") not in sys.path:
        sys.path.insert(0, str(ROOT / "python"))  # else PYTHONPATH says which chipless
    os.environ.setdefault("CHIPLESS_LOCK_DIR", tempfile.mkdtemp(prefix="opinfo-locks-"))
    torch = _torch()
    import chipless.torch  # noqa: F401  (the devices)
    import warnings
    warnings.filterwarnings("ignore")
    op_db = load_op_db()
    ops = select_ops(op_db, [n.strip() for n in a.ops.split(",") if n.strip()] or None,
                     a.limit or None)
    start = time.time()

    def progress(i, n, r):
        extra = r["reason"] or r["note"]
        print(f"[{i}/{n}] {r['op']} on {r['device']} ({r['dtype']}): {r['class']}"
              f" ({r['samples']} samples, {r['seconds']:.1f} s)"
              + (f" — {extra[:160]}" if extra else ""), file=sys.stderr, flush=True)

    if a.in_process:
        results = run(ops, kinds, a.samples, a.max_numel, a.timeout, not a.no_strict_check,
                      progress)
    else:
        results = run_isolated([op_name(op) for op in ops], kinds, a.samples, a.max_numel,
                               a.timeout, not a.no_strict_check, progress)
    seconds = time.time() - start
    command = " ".join(["PYTHONPATH=$PWD/python CHIPLESS_BIN=$PWD/build/bin",
                        "/usr/bin/python3 scripts/opinfo_report.py"]
                       + (argv if argv is not None else sys.argv[1:]))
    meta = {"torch": torch.__version__, "command": command, "kinds": kinds,
            "source": source_description(),
            "date": datetime.date.today().isoformat(), "samples": a.samples,
            "max_numel": a.max_numel, "seconds": seconds, "lowered": registrations()}
    write_markdown(results, a.output, meta)
    for k in kinds:
        counts = {c: sum(1 for r in results if r["device"] == k and r["class"] == c)
                  for c in CLASSES}
        print(f"{k}: " + ", ".join(f"{c} {n}" for c, n in counts.items()), file=sys.stderr)
    print(f"wrote {a.output} in {seconds / 60:.1f} min", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
