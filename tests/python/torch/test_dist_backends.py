"""`tpu_dist` and `spyre_dist` collectives and DistributedDataParallel across processes on one
device server: each rank a process with a TPU (or Spyre card) of its own, the collectives run
on the server's emulated ICI (or a card's ring). Results are checked against numpy, replicas
must stay bit-identical, and training must match one process on the CPU with the whole
batch."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch
from server_process import device_server

ROOT = pathlib.Path(__file__).resolve().parents[3]
PYTHON_DIR = ROOT / "python"

WORKER = r"""
import sys, numpy as np, torch, torch.distributed as dist, chipless.torch
rank, size, rdv, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
backend, kind = sys.argv[5], sys.argv[6]
dist.init_process_group(backend, init_method="file://" + rdv, rank=rank, world_size=size)
dev = f"{kind}:{rank}"
x = torch.arange(6, dtype=torch.float32).reshape(2, 3).to(dev) * (rank + 1)
dist.all_reduce(x)
gathered = [torch.zeros(2, 3, device=dev) for _ in range(size)]
dist.all_gather(gathered, torch.full((2, 3), float(rank), device=dev))
b = torch.full((5,), float(rank), device=dev)
dist.broadcast(b, src=size - 1)
rs = torch.zeros(3, device=dev)
dist.reduce_scatter(rs, [torch.full((3,), float(rank * 10 + i), device=dev)
                         for i in range(size)])
avg = torch.full((4,), float(rank), device=dev)
dist.all_reduce(avg, op=dist.ReduceOp.AVG)
half = torch.full((70,), 0.5 * (rank + 1), dtype=torch.float16)  # spyre_dist sums it in f16
dist.all_reduce(half)
# A ring: each rank passes a tensor to the next (even ranks send first, odd ones receive).
mine, got = torch.full((3,), 100.0 + rank, device=dev), torch.zeros(3, device=dev)
if rank % 2 == 0:
    dist.send(mine, (rank + 1) % size, tag=5)
    dist.recv(got, (rank - 1) % size, tag=5)
else:
    dist.recv(got, (rank - 1) % size, tag=5)
    dist.send(mine, (rank + 1) % size, tag=5)
# Rank 0 takes one message from each other rank, in whatever order they come.
sources = []
if rank == 0:
    for _ in range(size - 1):
        box = torch.zeros(2, device=dev)
        sources.append(dist.recv(box))
        assert box.cpu().tolist() == [float(sources[-1])] * 2, box
else:
    dist.send(torch.full((2,), float(rank), device=dev), 0)
dist.barrier()
try:
    dist.all_reduce(torch.ones(2, device=dev), op=dist.ReduceOp.MAX)
    refused = ""
except Exception as e:
    refused = str(e)
dist.barrier()

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))
ddp = torch.nn.parallel.DistributedDataParallel(model.to(dev))
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
gen = torch.Generator().manual_seed(1)
data = torch.randn(3, size * 8, 16, generator=gen)
target = torch.randn(3, size * 8, 4, generator=gen)
for step in range(3):
    rows = slice(rank * 8, (rank + 1) * 8)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(ddp(data[step, rows].to(dev)), target[step, rows].to(dev))
    loss.backward()
    opt.step()
params = {f"p{i}": p.detach().cpu().numpy() for i, p in enumerate(model.parameters())}
np.savez(out, allreduce=x.cpu().numpy(), gather=np.stack([t.cpu().numpy() for t in gathered]),
         bcast=b.cpu().numpy(), rs=rs.cpu().numpy(), avg=avg.cpu().numpy(), refused=refused,
         half=half.numpy(), sources=np.array(sources, np.int64),
         ring=got.cpu().numpy(),
         seconds=chipless.torch.distributed.stats()[sys.argv[7]], **params)
dist.destroy_process_group()
"""


# backend: the device kind its ranks use, the stats() key of its network time
BACKENDS = {"tpu_dist": ("tpu", "ici_seconds"), "spyre_dist": ("spyre", "ring_seconds")}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request):
    return request.param


@pytest.fixture
def server(tmp_path, backend):
    """A server of four devices of the backend's kind on a Unix socket in tmp_path."""
    with device_server(tmp_path, "--devices", BACKENDS[backend][0] + ":4") as address:
        yield address


def cpu_reference(size):
    """The same training in one process on the CPU, on the whole batch."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    gen = torch.Generator().manual_seed(1)
    data = torch.randn(3, size * 8, 16, generator=gen)
    target = torch.randn(3, size * 8, 4, generator=gen)
    for step in range(3):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(data[step]), target[step]).backward()
        opt.step()
    return [p.detach().numpy() for p in model.parameters()]


@pytest.mark.parametrize("size", [2, 4])
def test_collectives_and_ddp_across_processes(tmp_path, backend, server, size):
    kind, seconds = BACKENDS[backend]
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR), CHIPLESS_DEVICE_SERVER=server)
    ranks = [subprocess.Popen([sys.executable, "-c", WORKER, str(r), str(size),
                               str(tmp_path / "rdv"), str(tmp_path / f"rank{r}.npz"),
                               backend, kind, seconds],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for r in range(size)]
    for r, p in enumerate(ranks):
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, f"rank {r}:\n{err}"
    results = [np.load(tmp_path / f"rank{r}.npz") for r in range(size)]
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    for r, res in enumerate(results):
        np.testing.assert_array_equal(res["allreduce"], base * sum(q + 1 for q in range(size)))
        np.testing.assert_array_equal(res["gather"],
                                      np.stack([np.full((2, 3), q, np.float32)
                                                for q in range(size)]))
        np.testing.assert_array_equal(res["bcast"], np.full(5, size - 1, np.float32))
        np.testing.assert_array_equal(res["rs"], np.full(3, 10 * sum(range(size)) + size * r,
                                                         np.float32))
        np.testing.assert_allclose(res["avg"], np.full(4, sum(range(size)) / size))
        assert sorted(res["sources"]) == (list(range(1, size)) if r == 0 else [])
        assert res["half"].dtype == np.float16
        np.testing.assert_array_equal(res["half"], np.full(70, 0.5 * sum(range(1, size + 1))))
        np.testing.assert_array_equal(res["ring"], np.full(3, 100.0 + (r - 1) % size))
        assert "MAX is not supported" in str(res["refused"])
        assert float(res["seconds"]) > 0
    reference = cpu_reference(size)
    for i, want in enumerate(reference):
        for r in range(1, size):  # the replicas stay identical, bit for bit
            np.testing.assert_array_equal(results[r][f"p{i}"], results[0][f"p{i}"])
        np.testing.assert_allclose(results[0][f"p{i}"], want, rtol=1e-4, atol=1e-5)
