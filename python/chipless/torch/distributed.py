"""`tpu_dist` and `spyre_dist`: torch.distributed backends whose collectives run on the
emulated chips' own networks.

    import torch.distributed as dist, chipless.torch
    dist.init_process_group(backend="tpu_dist", init_method="file:///tmp/rdv",
                            rank=rank, world_size=n)
    model = torch.nn.parallel.DistributedDataParallel(model.to(f"tpu:{rank}"))

    dist.init_process_group(backend="spyre_dist", ...)      # the same on spyre:{rank}

Every process of the group uses devices of one chipless-device-server (CHIPLESS_DEVICE_SERVER);
each collective is joined there and run as a program on an emulated network: `tpu_dist` on a
TPU system of one chip per rank, over its ICI links (ici.allreduce, ici.allgather,
ici.reducescatter); `spyre_dist` on a Spyre card whose ring joins one group of cores per rank
(ring.send with op=add: the ring sums as it delivers). Results and modelled times come from
the simulated network (docs/device-server.md, "tpu_dist" and "spyre_dist"). A tensor goes to
the server through the host (its copies take their modelled host-link time) and comes back
to its device the same way; the network time of each collective is counted in stats().

all_reduce (SUM, AVG), all_gather, reduce_scatter (SUM, AVG), broadcast, barrier, and send
and recv (matched in order per pair of ranks and tag; a recv without src takes the first send
to it; a send returns at once, as an eager send does) are supported; work objects are
future-based, as DistributedDataParallel needs.
"""
import os
import uuid

import numpy as np
import torch
import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroup, Work, _create_work_from_future

from chipless import native
from chipless.errors import ChiplessError

_stats = {"collectives": 0, "ici_seconds": 0.0, "ring_seconds": 0.0, "bytes": 0}


def stats():
    """Collectives run by this process, their modelled seconds on the ICI (tpu_dist) and on
    the ring (spyre_dist), and the bytes it sent."""
    return dict(_stats)


def reset_stats():
    _stats.update(collectives=0, ici_seconds=0.0, ring_seconds=0.0, bytes=0)


def _server(backend):
    address = os.environ.get("CHIPLESS_DEVICE_SERVER", "")
    if not address:
        raise ChiplessError(f"{backend}: the ranks of a group meet on a device server: start "
                            "chipless-device-server and set CHIPLESS_DEVICE_SERVER in every "
                            "process (docs/device-server.md)")
    return address


def _done(result):
    fut = torch.futures.Future()
    fut.set_result(result)
    return _create_work_from_future(fut)


class _Received(Work):
    """A finished receive from any source: dist.recv(tensor) asks it for the sender
    (`_source_rank`, which a future-based work object does not have). Only receives use it:
    DistributedDataParallel hangs on a Python work object, so every other call returns a
    future-based one (docs/device-server.md, "tpu_dist")."""

    def __init__(self, source):
        super().__init__()
        self._source = source

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def _source_rank(self):
        return self._source


class _NetworkProcessGroup(ProcessGroup):
    """One rank's process group; collectives run on the device server's emulated network.
    A subclass names its backend, its network and how each dtype is summed there."""

    BACKEND = ""
    NETWORK = ""       # "ici" or "ring": what the server runs the collectives on
    NETWORK_NAME = ""  # for messages
    SUM_AS = {}        # torch dtype -> the numpy type it is summed in

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        key = f"{self.BACKEND}/group"
        if rank == 0:
            store.set(key, uuid.uuid4().hex)
        name = store.get(key).decode()
        self._group = native.load().CollectiveGroup(_server(self.BACKEND), name, rank, size,
                                                    self.NETWORK)

    def getBackendName(self):  # noqa: N802 (torch's name)
        return self.BACKEND

    def _run(self, kind, root, block, tag=0):
        """The collective's result for this rank, and the other rank of a send or receive."""
        result, seconds, source = self._group.run(kind, root, np.ascontiguousarray(block), tag)
        _stats["collectives"] += 1
        _stats[f"{self.NETWORK}_seconds"] += seconds
        _stats["bytes"] += block.nbytes
        return result, source

    # -- sums ---------------------------------------------------------------------------
    def _summed(self, kind, tensor, op, what):
        if op not in (dist.ReduceOp.SUM, dist.ReduceOp.AVG):
            name = next((n for n in ("PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")
                         if hasattr(dist.ReduceOp, n) and op == getattr(dist.ReduceOp, n)), str(op))
            raise ChiplessError(f"{self.BACKEND} {what}: {name} is not supported (the "
                                f"{self.NETWORK_NAME} sums: use SUM or AVG)")
        wire = self.SUM_AS.get(tensor.dtype)
        if wire is None:
            raise ChiplessError(f"{self.BACKEND} {what}: tensors of {tensor.dtype} cannot be "
                                f"summed on the {self.NETWORK_NAME}")
        host = tensor.detach().cpu()
        if wire is np.int32:
            values = host.to(torch.int64).numpy()
            if values.size and (values.max() > 2**31 - 1 or values.min() < -2**31):
                raise ChiplessError(f"{self.BACKEND} {what}: {tensor.dtype} values beyond 32 "
                                    f"bits cannot be summed on the {self.NETWORK_NAME}")
        else:
            values = host.to(torch.float16 if wire is np.float16 else torch.float32).numpy()
        out, _ = self._run(kind, 0, values.astype(wire))
        result = torch.from_numpy(np.array(out))
        if op == dist.ReduceOp.AVG:
            result = result / self.size() if result.is_floating_point() else \
                torch.div(result, self.size(), rounding_mode="floor")
        return result.to(tensor.dtype)

    def allreduce(self, tensors, opts=None):
        op = opts.reduceOp if opts is not None else dist.ReduceOp.SUM
        for t in tensors:
            t.copy_(self._summed("all_reduce", t, op, "all_reduce").reshape(t.shape))
        return _done(tensors)

    def reduce_scatter(self, output_tensors, input_tensors, opts=None):
        op = opts.reduceOp if opts is not None else dist.ReduceOp.SUM
        for out, ins in zip(output_tensors, input_tensors):
            stacked = torch.stack([i.detach().cpu() for i in ins])
            out.copy_(self._summed("reduce_scatter", stacked, op, "reduce_scatter")
                      .reshape(out.shape))
        return _done(output_tensors)

    # -- moves --------------------------------------------------------------------------
    def _moved(self, kind, root, tensor, tag=0):
        return self._moved_from(kind, root, tensor, tag)[0]

    def _moved_from(self, kind, root, tensor, tag=0):
        host = tensor.detach().cpu().contiguous()
        raw = host.view(torch.uint8).numpy().view(np.int8) if host.numel() else np.zeros(0, np.int8)
        out, source = self._run(kind, root, raw, tag)
        return torch.from_numpy(np.array(out)), source

    def allgather(self, output_tensors, input_tensors, opts=None):
        for outs, t in zip(output_tensors, input_tensors):
            gathered = self._moved("all_gather", 0, t)  # [size, bytes of t]
            for rank, out in enumerate(outs):
                out.copy_(gathered[rank].view(t.dtype).reshape(t.shape))
        return _done(output_tensors)

    def broadcast(self, tensors, opts=None):
        root = opts.rootRank if opts is not None else 0
        for t in tensors:
            t.copy_(self._moved("broadcast", root, t).view(t.dtype).reshape(t.shape))
        return _done(tensors)

    def send(self, tensors, dstRank, tag=0):  # noqa: N803 (torch's names)
        for t in tensors:
            self._moved("send", dstRank, t, tag)
        return _done(tensors)

    def recv(self, tensors, srcRank, tag=0):  # noqa: N803
        for t in tensors:
            t.copy_(self._moved("recv", srcRank, t, tag).view(t.dtype).reshape(t.shape))
        return _done(tensors)

    def recv_anysource(self, tensors, tag=0):
        source = -1
        for t in tensors:
            data, source = self._moved_from("recv", -1, t, tag)
            t.copy_(data.view(t.dtype).reshape(t.shape))
        return _Received(source)

    def barrier(self, opts=None):
        self._run("barrier", 0, np.zeros(0, np.int32))
        return _done([])


# Integers are summed in i32 when they fit; the other widths of float in f32, rounded back.
_INTS = {t: np.int32 for t in (torch.int32, torch.int64, torch.int16, torch.int8, torch.uint8)}


class TpuDistProcessGroup(_NetworkProcessGroup):
    """`tpu_dist`: the ICI sums f32 and i32."""
    BACKEND, NETWORK, NETWORK_NAME = "tpu_dist", "ici", "ICI"
    SUM_AS = {torch.float32: np.float32, torch.float16: np.float32,
              torch.bfloat16: np.float32, **_INTS}


class SpyreDistProcessGroup(_NetworkProcessGroup):
    """`spyre_dist`: the ring sums f16 (the card's own format, rounded at every hop as the
    hardware does), f32 and i32."""
    BACKEND, NETWORK, NETWORK_NAME = "spyre_dist", "ring", "ring"
    SUM_AS = {torch.float32: np.float32, torch.float16: np.float16,
              torch.bfloat16: np.float32, **_INTS}


for _group in (TpuDistProcessGroup, SpyreDistProcessGroup):
    if not hasattr(dist.Backend, _group.BACKEND.upper()):
        dist.Backend.register_backend(_group.BACKEND,
                                      lambda store, rank, size, timeout, g=_group:
                                      g(store, rank, size, timeout))
