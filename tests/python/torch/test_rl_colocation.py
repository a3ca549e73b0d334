"""RL colocation on one emulated TPU (chipless-device-server --share): a trainer process and a
rollout process (scripts/rl_colocation.py), each on its own TensorCore and half of the HBM of
one tpu-v4 served here, run unchanged PyTorch code on the "tpu" device. Both get what the CPU
computes; their launches run in one simulation, and the contention for HBM shows in their
cycles next to what each takes on its share alone."""
import json
import pathlib
import subprocess
import sys

import pytest
from server_process import device_server

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture
def server(tmp_path):
    """One tpu-v4 (two TensorCores) served with --share on a Unix socket in tmp_path."""
    locks = tmp_path / "server-locks"
    locks.mkdir()
    with device_server(tmp_path, "--devices", "tpu-v4:1", "--share", locks=locks) as address:
        yield address


def test_a_trainer_and_a_rollout_engine_share_one_tpu(server):
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "rl_colocation.py"), "--server",
                          server, "--trainer-steps", "4", "--rollout-steps", "8", "--json"],
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    alone, together = result["alone"], result["together"]
    for role in ("trainer", "rollout"):
        a, t = alone[role], together[role]
        # Correct: each matches the CPU, alone and next to the other.
        assert a["error"] < 2e-2 and t["error"] < 2e-2, (role, a["error"], t["error"])
        # Each on one TensorCore and 16 GiB of the chip's HBM.
        assert t["share"]["cores"] == 1 and t["share"]["memory_bytes"] == 16 << 30
        assert a["shared_launches"] == 0
        # The same programs, launched as often; some ran in one simulation with the other's.
        assert t["launches"] == a["launches"] > 0, role
        assert t["shared_launches"] > 0, (role, t)
        # Interference: sharing HBM never makes a launch faster.
        assert t["cycles"] >= a["cycles"], (role, a["cycles"], t["cycles"])
    # The two on different TensorCores, and together slower than alone.
    assert together["trainer"]["share"]["first_core"] != together["rollout"]["share"]["first_core"]
    assert sum(t["cycles"] for t in together.values()) > sum(a["cycles"] for a in alone.values())
