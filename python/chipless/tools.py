"""Where chipless's command-line tools are and how to call them.

The tools are found in $CHIPLESS_BIN when it is set, else in build/bin of the source tree
this package belongs to (python/chipless -> ../../build/bin), else on $PATH.
"""
import functools
import hashlib
import json
import os
import pathlib
import shutil
import subprocess

from chipless.errors import ChiplessError

SOURCE_ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Bundled architecture names of each chip, as the tools' --arch takes them.
SPYRE_ARCHS = ("spyre",)
TPU_ARCHS = ("v4", "v5e", "v5p", "v6e")


def bin_dir():
    """The folder the tools are taken from (see the module's documentation)."""
    env = os.environ.get("CHIPLESS_BIN")
    if env:
        return pathlib.Path(env)
    built = SOURCE_ROOT / "build" / "bin"
    if (built / "spyre-sim").exists():
        return built
    found = shutil.which("spyre-sim")
    return pathlib.Path(found).parent if found else built


def tool(name, directory=None):
    """The path of tool `name` in `directory` (default: bin_dir()); ChiplessError when it is
    not built."""
    directory = pathlib.Path(directory) if directory else bin_dir()
    path = directory / name
    if not path.exists():
        raise ChiplessError(f"{name}: not found in {directory} (build chipless with `make`, "
                            "or set CHIPLESS_BIN to the folder that holds the tools)")
    return path


def tool_environment():
    """The environment every tool runs in: SystemC's banner off."""
    return dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def run_tool(args, timeout=None):
    """Runs a tool; returns (exit status, stdout, stderr). Never raises for a failed run."""
    try:
        r = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                           env=tool_environment(), timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"{pathlib.Path(str(args[0])).name}: error: took longer than {timeout} s"


def first_error(stderr, stdout=""):
    """The tool's error message: its `error:` lines and what follows them, else its last
    line of output; used as a failing point's or case's error text."""
    text = stderr.strip() or stdout.strip()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "error:" in line:
            return "\n".join(lines[i:i + 12]).strip()
    return "\n".join(lines[-12:]) if lines else "failed without a message"


@functools.lru_cache(maxsize=None)
def file_digest(path):
    """sha256 of a file's bytes (tools, workloads): what caches are keyed by."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def describe_arch(arch, sets=()):
    """The resolved description `chipless-arch show ARCH --set ... --json` prints: the chip,
    every parameter's value, type, unit and role (asked once per process; do not modify
    it). ChiplessError with the tool's located message for an unknown name, a bad file or a
    bad --set."""
    args = [tool("chipless-arch"), "show", str(arch), "--json"]
    for s in sets:
        args += ["--set", s]
    status, out, err = run_tool(args)
    if status != 0:
        raise ChiplessError(first_error(err, out))
    return json.loads(out)


#: The compiler or assembler of each (chip, workload kind): "mlir" (KTIR kernel or tensor
#: graph) or "asm" (hand-written assembly).
COMPILERS = {("spyre", "mlir"): "spyre-compile", ("spyre", "asm"): "spyre-as",
             ("tpu", "mlir"): "tpu-compile", ("tpu", "asm"): "tpu-as"}
#: The simulator of each chip.
SIMULATORS = {"spyre": "spyre-sim", "tpu": "tpu-sim"}


def chip_of(arch):
    """"tpu" or "spyre": which tools a description's programs need, as chipless-arch tells
    it (a bundled name or any description file)."""
    return describe_arch(str(arch))["chip"]


def compile_command(bin_dir, chip, arch, kind, source, output, sets=(), flags=()):
    """The command that compiles (or assembles) `source` for `arch`, a description of
    `chip`, into `output`."""
    args = [pathlib.Path(bin_dir) / COMPILERS[(chip, kind)], source, "-o", output,
            "--arch", arch]
    for s in sets:
        args += ["--set", s]
    return args + list(flags)
