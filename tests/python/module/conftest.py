"""Set-up of the `import chipless` suite: device locks and the compile cache in the test's
own folders, so the tests neither meet other suites' devices nor a user's cache."""
import pytest


@pytest.fixture(autouse=True)
def private_locks_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CHIPLESS_LOCK_DIR", str(tmp_path))
    monkeypatch.setenv("CHIPLESS_CACHE_DIR", str(tmp_path / "cache"))
