"""The PyTorch devices against a chipless-device-server: the same program, run once with its
devices in process and once with CHIPLESS_DEVICE_SERVER naming a server started here, gives
bit-identical results on both chips; and a second process cannot take a device the first
one holds."""
import os
import pathlib
import subprocess
import sys
import time

import pytest
from server_process import device_server

ROOT = pathlib.Path(__file__).resolve().parents[3]
PYTHON_DIR = ROOT / "python"

PROGRAM = """
import hashlib, torch, chipless.torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64))
x = torch.randn(32, 64)
t = m.to("tpu")
opt = torch.optim.AdamW(t.parameters(), lr=1e-2)
for _ in range(2):
    opt.zero_grad()
    t(x.to("tpu")).pow(2).mean().backward()
    opt.step()
out = t(x.to("tpu")).cpu()
s = torch.nn.Linear(64, 64).half().to("spyre")
y = s(torch.randn(32, 64).half().to("spyre")).cpu()
digest = lambda a: hashlib.sha256(a.detach().numpy().tobytes()).hexdigest()
print(digest(out), digest(y), chipless.torch.stats("tpu")["launches"] > 0)
"""


def run(program, locks, server=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR), CHIPLESS_LOCK_DIR=str(locks))
    env.pop("CHIPLESS_DEVICE_SERVER", None)
    if server:
        env["CHIPLESS_DEVICE_SERVER"] = server
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=env, timeout=timeout)


@pytest.fixture
def server(tmp_path):
    """A server of one Spyre card and one TPU on a Unix socket in tmp_path."""
    locks = tmp_path / "server-locks"
    locks.mkdir()
    with device_server(tmp_path, "--devices", "spyre:1,tpu:1", locks=locks) as address:
        yield address


def test_models_on_a_server_match_in_process_bit_for_bit(tmp_path, server):
    local_locks = tmp_path / "local"
    local_locks.mkdir()
    local = run(PROGRAM, local_locks)
    assert local.returncode == 0, local.stderr
    remote = run(PROGRAM, local_locks, server)
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout
    assert local.stdout.split()[2] == "True"


def test_a_second_process_is_refused_the_device_naming_the_owner(tmp_path, server):
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, torch, chipless.torch\n"
         "x = torch.ones(4, device='tpu') + 1\nprint(x.cpu().tolist(), flush=True)\n"
         "sys.stdin.readline()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR), CHIPLESS_DEVICE_SERVER=server,
                 CHIPLESS_LOCK_DIR=str(tmp_path)))
    try:
        assert holder.stdout.readline().strip() == "[2.0, 2.0, 2.0, 2.0]"
        second = run("import torch, chipless.torch\ntorch.ones(1, device='tpu').cpu()\n",
                     tmp_path, server)
        assert second.returncode != 0
        assert f"tpu:0 is in use by pid {holder.pid}" in second.stderr, second.stderr
    finally:
        holder.communicate("\n", timeout=120)
    # Once the holder has gone, the device is free again.
    deadline = time.time() + 30
    while True:
        again = run("import torch, chipless.torch\nprint(torch.ones(1, device='tpu').cpu())\n",
                    tmp_path, server)
        if again.returncode == 0 or time.time() > deadline:
            break
        time.sleep(0.2)
    assert again.returncode == 0, again.stderr
