"""Loads chipless's PyTorch devices when a program imports torch, as TorchTPU's autoload does:
`import torch` is enough for `.to("tpu")` and `device="spyre"` to work.

The set-up's chipless.pth imports this module at interpreter start-up; it imports nothing
itself, only watches for `import torch` and, once torch is loaded, imports chipless.torch.
Set CHIPLESS_TORCH_AUTOLOAD=0 (or PyTorch's TORCH_DEVICE_BACKEND_AUTOLOAD=0) to turn it off.
If chipless.torch cannot load (no build of chipless), torch loads as usual and the reason is
kept in torch._chipless_autoload_error; `import chipless.torch` then raises it.
"""
import importlib.abc
import importlib.util
import os
import sys


def _enabled():
    return (os.environ.get("CHIPLESS_TORCH_AUTOLOAD", "1") != "0"
            and os.environ.get("TORCH_DEVICE_BACKEND_AUTOLOAD", "1") != "0")


class _TorchImportHook(importlib.abc.MetaPathFinder):
    """Finds torch the usual way and runs chipless.torch's import right after torch's."""

    def find_spec(self, name, path, target=None):
        if name != "torch" or not _enabled():
            return None
        sys.meta_path.remove(self)  # once, and not for the find_spec below
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load_torch = spec.loader.exec_module

        def exec_module(module):
            load_torch(module)
            try:
                import chipless.torch  # noqa: F401
            except Exception as e:  # torch must load even where chipless cannot
                module._chipless_autoload_error = e
        spec.loader.exec_module = exec_module
        return spec


if "torch" not in sys.modules and _enabled():
    sys.meta_path.insert(0, _TorchImportHook())
