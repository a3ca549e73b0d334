"""chipless.compile and chipless.assemble: spyre-compile, tpu-compile, spyre-as and tpu-as
in this process (the same libraries as the tools), with a cache of program directories.

Without `output`, the program goes to the compile cache ($CHIPLESS_CACHE_DIR, else
$XDG_CACHE_HOME/chipless, else ~/.cache/chipless), keyed by the source's bytes, the chip,
the resolved architecture, every option and the native module's own bytes; a second compile
of the same thing is a cache hit and compiles nothing (`compile_cache_info()` counts both).
"""
import hashlib
import json
import os
import pathlib
import shutil
import tempfile

from chipless import native, tools
from chipless.errors import ChiplessError

_counts = {"hits": 0, "misses": 0}


def compile_cache_info():
    """{"hits", "misses", "directory"}: compiles served from the cache and compiles run,
    in this process."""
    return dict(_counts, directory=str(cache_dir()))


def cache_dir():
    """Where cached programs are kept."""
    root = os.environ.get("CHIPLESS_CACHE_DIR")
    if root:
        return pathlib.Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (pathlib.Path(xdg) if xdg else pathlib.Path.home() / ".cache") / "chipless"


def _option_list(values, option):
    """{"n": 4} or ["n=4"] as the tool's NAME=VALUE strings."""
    if values is None:
        return []
    if isinstance(values, dict):
        return [f"{k}={v}" for k, v in values.items()]
    if isinstance(values, str):
        raise ChiplessError(f"{option}: expected a dict or a list of NAME=VALUE, got a string")
    return [str(v) for v in values]


def compile(source=None, output=None, *, text=None, name="<string>", chip=None, arch=None,
            sets=(), consts=None, bounds=None, grid=None, entry=None, dump_dir=None,
            divisions=None, dump_candidates=False, keep_in_scratchpad=True):
    """Compiles a KTIR kernel or tensor graph, the file `source` or the MLIR `text` (its
    errors then name `name`), for `chip` ("spyre" or "tpu"; by default the chip of `arch`,
    else "spyre") into the program directory `output` (default: the compile cache), as
    spyre-compile / tpu-compile do: `arch` (spyre, v4, v5e, v5p, v6e or a file), `sets`
    ("key.path=value"), and for Spyre KTIR kernels `consts` ({name: value}), `bounds`
    ({name: "MIN..MAX/G"}), `grid` and `entry`; for Spyre tensor graphs `divisions`
    ({kernel: candidate}) and `keep_in_scratchpad` (False: every intermediate through
    device memory, spyre-compile --keep-in-scratchpad=false). `dump_dir` gets every stage. Returns the program directory;
    raises ChiplessError with the compiler's located errors."""
    if (source is None) == (text is None):
        raise ChiplessError("compile: give either a source file or text=")
    mod = native.load()
    chip = chip or (mod.chip_of_arch(str(arch)) if arch else "spyre")
    request = dict(
        arch=str(arch or ""), sets=[str(s) for s in sets], dump_dir=str(dump_dir or ""),
        entry=entry or "", constants=_option_list(consts, "consts"),
        bounds=_option_list(bounds, "bounds"), grid=[int(g) for g in (grid or ())],
        divisions=_option_list(divisions, "divisions"), dump_candidates=bool(dump_candidates),
        keep_in_scratchpad=bool(keep_in_scratchpad))
    return _build(mod.compile, chip, _source(source, text, name), request, output)


def assemble(source=None, output=None, *, text=None, name="<string>", chip=None, arch=None,
             sets=()):
    """Assembles hand-written SpyreCode or TPU assembly, the file `source` or `text`, for
    `chip` (by default the chip of `arch`, else "spyre") into the program directory
    `output` (default: the compile cache), as spyre-as / tpu-as do. Returns the program
    directory; raises ChiplessError naming the file and line."""
    if (source is None) == (text is None):
        raise ChiplessError("assemble: give either a source file or text=")
    mod = native.load()
    chip = chip or (mod.chip_of_arch(str(arch)) if arch else "spyre")
    request = dict(arch=str(arch or ""), sets=[str(s) for s in sets])
    return _build(mod.assemble, chip, _source(source, text, name), request, output)


def disassemble(program):
    """The assembly text of a program directory (or its job.plan), as spyre-as / tpu-as
    --disassemble print it."""
    from chipless.device import _plan_path
    return native.load().disassemble(str(_plan_path(program)))


def _source(source, text, name):
    return dict(text=text, name=name) if text is not None else dict(path=os.fspath(source))


def _build(build, chip, source_args, request, output):
    """Runs `build` (the native compile or assemble) into `output`, or through the cache."""
    if output is not None or request.get("dump_dir"):
        target = pathlib.Path(output) if output is not None else None
        if target is None:
            target = pathlib.Path(tempfile.mkdtemp(prefix="chipless-program-"))
        build(chip, output=str(target), **source_args, **request)
        _counts["misses"] += 1
        return target
    return _cached_build(build, chip, source_args, request)


def _cache_key(build, chip, source_args, request):
    if "path" in source_args:
        try:
            with open(source_args["path"], "rb") as f:
                body = f.read()
        except OSError as e:
            raise ChiplessError(f"{source_args['path']}: cannot read: {e.strerror}") from None
        label = source_args["path"]
    else:
        body, label = source_args["text"].encode(), source_args["name"]
    mod = native.load()
    fingerprint = json.loads(mod.arch_json(request["arch"], request["sets"], chip))["fingerprint"]
    h = hashlib.sha256()
    h.update(json.dumps([build.__name__, chip, label, fingerprint, request],
                        sort_keys=True).encode())
    h.update(hashlib.sha256(body).digest())
    h.update(tools.file_digest(mod.__file__).encode())
    return h.hexdigest()[:40]


def _cached_build(build, chip, source_args, request):
    key = _cache_key(build, chip, source_args, request)
    root = cache_dir() / "programs"
    final = root / key
    if (final / "job.plan").exists():
        _counts["hits"] += 1
        return final
    try:
        root.mkdir(parents=True, exist_ok=True)
        staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{key}.", dir=root))
    except OSError as e:
        raise ChiplessError(f"{root}: cannot create the compile cache: {e.strerror}") from None
    try:
        build(chip, output=str(staging / "program"), **source_args, **request)
        _counts["misses"] += 1
        try:
            os.rename(staging / "program", final)
        except OSError:
            if not (final / "job.plan").exists():  # not another process's identical compile
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final
