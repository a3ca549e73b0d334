"""chipless: emulated IBM Spyre and Google TPU for PyTorch-stack development.

The pure-Python part of the package: `chipless.study` (architecture what-if studies) and
the `chipless` command (`chipless.cli`). The tools it drives are found by `chipless.tools`.
"""

__version__ = "0.1.0"
