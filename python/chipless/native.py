"""Finds and loads chipless's native module, `chipless._native` (pybind/), which CMake
builds into BUILD/python/chipless next to the tools in BUILD/bin: the build of
`chipless.tools.bin_dir()` ($CHIPLESS_BIN, else this source tree's build/)."""
import importlib

import chipless
from chipless import tools
from chipless.errors import ChiplessError

_module = None


def native_dir():
    """The folder the native module is loaded from."""
    return tools.bin_dir().resolve().parent / "python" / "chipless"


def load():
    """The native module (imported once); ChiplessError saying how to build it when absent."""
    global _module
    if _module is None:
        where = str(native_dir())
        if where not in chipless.__path__:
            chipless.__path__.append(where)
        try:
            _module = importlib.import_module("chipless._native")
        except ImportError as e:
            raise ChiplessError(
                f"chipless's native module is not built in {where} (build chipless with "
                f"`make`, or set CHIPLESS_BIN to the bin folder of a build): {e}") from e
    return _module
