"""`import torch` alone brings the devices (the set-up's chipless.pth imports
chipless_autoload, which loads chipless.torch right after torch), and the switch that
turns it off."""
import os
import pathlib
import subprocess
import sys

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"
PROGRAM = ("import chipless_autoload\nimport torch\n"
           "x = torch.ones(2, device='tpu') * 3\nprint(x.is_tpu, x.cpu().tolist())\n")


def run(env, locks):
    """The program in a process of its own, with its own device locks (a device has one
    owner, and this test process may hold tpu:0)."""
    return subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR),
                                   CHIPLESS_LOCK_DIR=str(locks), **env))


def test_importing_torch_is_enough(tmp_path):
    done = run({}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True [3.0, 3.0]"


def test_the_autoload_can_be_turned_off(tmp_path):
    for switch in ("CHIPLESS_TORCH_AUTOLOAD", "TORCH_DEVICE_BACKEND_AUTOLOAD"):
        done = run({switch: "0"}, tmp_path)
        assert done.returncode != 0
        assert "tpu" in done.stderr and "Traceback" in done.stderr
