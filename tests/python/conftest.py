"""Shared set-up of the pytest suites: the chipless package on sys.path, the tools' folder,
the `chipless` command as a user runs it, and study files written around the bundled
workloads."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
sys.path.insert(0, str(PYTHON_DIR))
os.environ.setdefault("CHIPLESS_BIN", str(ROOT / "build" / "bin"))
os.environ["SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"] = "1"


def write_study(tmp_path, text, name="s.yaml"):
    """Writes a study file in tmp_path whose workload paths may use {ROOT}."""
    path = tmp_path / name
    path.write_text(text.replace("{ROOT}", str(ROOT)))
    return path


def chipless(*args, check=True, env=None):
    """Runs the `chipless` command as a user would (python3 -m chipless.cli)."""
    r = subprocess.run([sys.executable, "-m", "chipless.cli", *map(str, args)],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR), **(env or {})))
    if check and r.returncode != 0:
        raise AssertionError(f"chipless {' '.join(map(str, args))}: {r.returncode}\n"
                             f"{r.stdout}{r.stderr}")
    return r


@pytest.fixture
def study_file(tmp_path):
    return lambda text, name="s.yaml": write_study(tmp_path, text, name)
