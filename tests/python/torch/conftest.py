"""Set-up of the PyTorch device suite: the emulated devices are opened once per process
(chipless.torch keeps them), so their locks and the compile cache go to this session's own
folders before the first test opens one."""
import os
import tempfile

_session = tempfile.mkdtemp(prefix="chipless-torch-tests-")
os.environ["CHIPLESS_LOCK_DIR"] = _session
os.environ["CHIPLESS_CACHE_DIR"] = os.path.join(_session, "cache")

import pytest  # noqa: E402
import torch  # noqa: E402

import chipless.torch  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_counts():
    """Each test starts with zero counts, not strict, and the same random inputs at every
    run (Debian's torch seeds each process differently), and leaves it so."""
    torch.manual_seed(0)
    chipless.torch.set_strict(False)
    chipless.torch.reset_stats()
    yield
    chipless.torch.set_strict(False)
