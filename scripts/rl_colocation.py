#!/usr/bin/python3
"""RL colocation on one emulated TPU: a PyTorch trainer and a rollout engine as two processes,
each on a share of one tpu-v4 of a chipless-device-server started with --share (one
TensorCore and half of the HBM each).

    /usr/bin/python3 scripts/rl_colocation.py [--server unix:PATH] [--trainer-steps N]
                                               [--rollout-steps N] [--json]

Each role runs alone on its share first, then both run at once. The script prints, per role,
its launches, its simulated cycles alone and together, how many of its launches ran in one
simulation with the other's, its largest difference from the CPU, and the host seconds; with
--json, one JSON object instead. Without --server it starts a server of its own
($CHIPLESS_BIN or build/bin) on a socket in a temporary directory. Each role is ordinary
PyTorch code on the "tpu" device: the share comes from CHIPLESS_DEVICE_SHARE.
"""
import argparse
import contextlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARE = "cores=1,memory=16G,window-ms=200"

# Each role waits at a barrier of files (one per role in BARRIER) after its device is open, so
# that the two loops overlap; then it runs its steps, compares with the CPU and prints JSON.
COMMON = """
import copy, json, pathlib, sys, time, torch, chipless.torch
role, steps, barrier = sys.argv[1], int(sys.argv[2]), sys.argv[3]
torch.manual_seed({"trainer": 0, "rollout": 1}[role])
def wait_for_partner():
    if barrier == "-":
        return
    pathlib.Path(barrier, role).touch()
    deadline = time.time() + 300
    while len(list(pathlib.Path(barrier).iterdir())) < 2:
        assert time.time() < deadline, "the other role never came"
        time.sleep(0.01)
def report(error, started):
    print(json.dumps({"error": error, "host_seconds": time.time() - started,
                      "share": chipless.torch.devices.get("tpu").device.share,
                      **chipless.torch.stats("tpu")}))
"""

ROLES = {
    # SGD on an MLP, the same steps on the CPU beside it.
    "trainer": COMMON + """
model = torch.nn.Sequential(torch.nn.Linear(128, 512), torch.nn.ReLU(), torch.nn.Linear(512, 128))
reference = copy.deepcopy(model)
x, target = torch.randn(256, 128), torch.randn(256, 128)
model = model.to("tpu")
opt = torch.optim.SGD(model.parameters(), lr=0.05)
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.05)
xd, td = x.to("tpu"), target.to("tpu")
chipless.torch.reset_stats()
wait_for_partner()
started = time.time()
for _ in range(steps):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(xd), td).backward()
    opt.step()
    ref_opt.zero_grad()
    torch.nn.functional.mse_loss(reference(x), target).backward()
    ref_opt.step()
report(max((p.cpu() - q).abs().max().item()
           for p, q in zip(model.parameters(), reference.parameters())), started)
""",
    # A policy's action probabilities for batches of observations.
    "rollout": COMMON + """
policy = torch.nn.Sequential(torch.nn.Linear(128, 512), torch.nn.Tanh(), torch.nn.Linear(512, 64))
observations = [torch.randn(512, 128) for _ in range(4)]
device_policy = copy.deepcopy(policy).to("tpu")
error = 0.0
chipless.torch.reset_stats()
wait_for_partner()
started = time.time()
with torch.no_grad():
    for step in range(steps):
        obs = observations[step % len(observations)]
        actions = device_policy(obs.to("tpu")).softmax(dim=-1).cpu()
        error = max(error, (actions - policy(obs).softmax(dim=-1)).abs().max().item())
report(error, started)
""",
}


def start_role(role, steps, barrier, server, locks):
    """The role's process: ordinary PyTorch code with the server and the share in its
    environment (TPU_LAUNCH_BLOCKING: each op's launch in program order, so a role's cycles
    alone are the same on every run)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), CHIPLESS_DEVICE_SERVER=server,
               CHIPLESS_DEVICE_SHARE=SHARE, CHIPLESS_TPU_ARCH="v4", TPU_LAUNCH_BLOCKING="1",
               CHIPLESS_LOCK_DIR=str(locks))
    return subprocess.Popen([sys.executable, "-c", ROLES[role], role, str(steps), str(barrier)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def finish(role, proc):
    out, err = proc.communicate(timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"rl_colocation: the {role} failed:\n{err}")
    return json.loads(out.strip().splitlines()[-1])


@contextlib.contextmanager
def own_server(directory):
    """A server of one tpu-v4 with --share, on a socket in `directory`."""
    binary = pathlib.Path(os.environ.get("CHIPLESS_BIN", ROOT / "build" / "bin"))
    sock = pathlib.Path(directory) / "s.sock"
    proc = subprocess.Popen([str(binary / "chipless-device-server"), "--devices", "tpu-v4:1",
                             "--share", "--listen", f"unix:{sock}"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, CHIPLESS_LOCK_DIR=str(directory)))
    try:
        while "serving" not in (line := proc.stdout.readline()):
            if not line:
                raise SystemExit("rl_colocation: the device server did not start")
        yield f"unix:{sock}"
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def run_pair(server, steps, directory):
    """Each role alone, then both together: {"alone": {role: stats}, "together": {...}}."""
    alone = {role: finish(role, start_role(role, n, "-", server, directory))
             for role, n in steps.items()}
    barrier = pathlib.Path(directory) / "barrier"
    barrier.mkdir()
    procs = {role: start_role(role, n, barrier, server, directory) for role, n in steps.items()}
    together = {role: finish(role, p) for role, p in procs.items()}
    return {"alone": alone, "together": together}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", help="a server started with --share (unix:PATH or tcp:H:P); "
                                     "default: start one")
    ap.add_argument("--trainer-steps", type=int, default=4)
    ap.add_argument("--rollout-steps", type=int, default=8)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    steps = {"trainer": args.trainer_steps, "rollout": args.rollout_steps}
    with tempfile.TemporaryDirectory(prefix="chipless-rl-") as directory:
        started = time.time()
        if args.server:
            result = run_pair(args.server, steps, directory)
        else:
            with own_server(directory) as server:
                result = run_pair(server, steps, directory)
        result["host_seconds"] = time.time() - started
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'role':8} {'launches':>8} {'cycles alone':>13} {'together':>13} {'ratio':>6} "
          f"{'shared':>7} {'max |error|':>11} {'host s alone':>12} {'together':>9}")
    for role in steps:
        a, t = result["alone"][role], result["together"][role]
        print(f"{role:8} {t['launches']:8d} {a['cycles']:13.0f} {t['cycles']:13.0f} "
              f"{t['cycles'] / a['cycles']:6.3f} {t['shared_launches']:7d} "
              f"{max(a['error'], t['error']):11.2e} {a['host_seconds']:12.2f} "
              f"{t['host_seconds']:9.2f}")


if __name__ == "__main__":
    main()
