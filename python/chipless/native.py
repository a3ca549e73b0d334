"""Finds and loads chipless's native modules, `chipless._native` and the PyTorch backend
`chipless._torch` (pybind/), which CMake builds into BUILD/python/chipless next to the tools
in BUILD/bin: the build of `chipless.tools.bin_dir()` ($CHIPLESS_BIN, else this source
tree's build/)."""
import importlib

import chipless
from chipless import tools
from chipless.errors import ChiplessError

_modules = {}


def native_dir():
    """The folder the native module is loaded from."""
    return tools.bin_dir().resolve().parent / "python" / "chipless"


def load(name="_native"):
    """The native module `name` (imported once); ChiplessError saying how to build it when
    absent."""
    if name not in _modules:
        where = str(native_dir())
        if where not in chipless.__path__:
            chipless.__path__.append(where)
        try:
            _modules[name] = importlib.import_module(f"chipless.{name}")
        except ImportError as e:
            raise ChiplessError(
                f"chipless's native module {name} is not built in {where} (build chipless with "
                f"`make`, or set CHIPLESS_BIN to the bin folder of a build): {e}") from e
    return _modules[name]
