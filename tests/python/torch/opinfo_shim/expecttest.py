"""A stand-in for the `expecttest` package, which Debian does not ship and which importing
PyTorch 1.13's OpInfo database (torch.testing._internal.common_methods_invocations) needs.
scripts/opinfo_report.py puts this folder on sys.path only when the real package is missing;
nothing here is used by the OpInfo samples themselves."""
import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    def assertExpectedInline(self, actual, expect, skip=0):  # noqa: N802 (expecttest's name)
        pass
