"""`chipless study` on Dask distributed clusters: a LocalCluster of two worker processes,
and a scheduler and two workers started as separate processes on the loopback address. Both
give the same table, byte for byte, as a run on local processes."""
import os
import socket
import subprocess
import sys
import time

import pytest

from conftest import PYTHON_DIR, chipless

distributed = pytest.importorskip("distributed")

STUDY = """
study: dask-check
chip: spyre
workloads:
  layernorm: {ROOT}/models/graphs/layernorm.mlir
  softmax: {ROOT}/models/graphs/softmax.mlir
sweep:
  zip:
    - chip.cores: [8, 16, 32]
    - dram.bandwidth_gb_s: [100, 200, 400]
metrics:
  cycles: chip.cycles
  dram_bytes: chip.dram.bytes
"""


def _local_table(study_file, tmp_path):
    out = tmp_path / "local"
    chipless("study", study_file(STUDY), "-o", out, "-q", "-j", "2")
    return (out / "results.csv").read_bytes()


def test_a_local_dask_cluster_gives_the_local_table(study_file, tmp_path, monkeypatch):
    from chipless.study import command, executors, runner, spec
    local = _local_table(study_file, tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(PYTHON_DIR))
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        executor = executors.DaskExecutor(client=client)
        assert "2 workers" in executor.describe()
        study = spec.load_study(study_file(STUDY))
        outcome = runner.run_study(study, tmp_path / "dask", executor, quiet=True)
        command.write_outputs(outcome, tmp_path / "dask", draw=False)
        ran_on = client.run(os.getpid)
        assert len(ran_on) == 2
    finally:
        client.close()
        cluster.close()
    assert outcome.counts["ran"] == 6 and outcome.counts["compiled"] == 6
    assert (tmp_path / "dask" / "results.csv").read_bytes() == local


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_scheduler_and_workers_as_separate_processes(study_file, tmp_path):
    local = _local_table(study_file, tmp_path)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    logs = tmp_path / "logs"
    logs.mkdir()
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                               "--host", "127.0.0.1", "--port", str(port),
                               "--dashboard-address", ":0"],
                              env=env, stdout=subprocess.DEVNULL,
                              stderr=open(logs / "scheduler.log", "w"))]
    try:
        for i in range(2):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers",
                 "1", "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
                 "--name", f"w{i}"],
                env=env, stdout=subprocess.DEVNULL, stderr=open(logs / f"worker{i}.log", "w")))
        client = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                client = distributed.Client(address, timeout="2s")
                if len(client.scheduler_info()["workers"]) == 2:
                    break
                client.close()
                client = None
            except OSError:
                pass
            time.sleep(0.5)
        assert client is not None, (logs / "scheduler.log").read_text()
        client.close()
        out = tmp_path / "cluster"
        r = chipless("study", study_file(STUDY), "-o", out, "--cluster", address)
        assert "Dask cluster" in r.stderr and "2 workers" in r.stderr
        assert (out / "results.csv").read_bytes() == local
        # the same through DASK_SCHEDULER_ADDRESS, all from the cache
        r = chipless("study", study_file(STUDY), "-o", out, env={"DASK_SCHEDULER_ADDRESS":
                                                                 address})
        assert "ran 0 points (6 cached)" in r.stdout
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_an_unreachable_cluster_is_a_clear_error(study_file, tmp_path):
    r = chipless("study", study_file(STUDY), "-o", tmp_path / "out", "--cluster",
                 f"tcp://127.0.0.1:{_free_port()}", check=False)
    assert r.returncode == 1
    assert "cannot reach the Dask scheduler" in r.stderr
