"""The asynchronous eager stream of each emulated device: in eager mode an op is queued and
the caller goes on while a worker thread compiles and launches the device's ops in order
(a launch releases the GIL, so Python's dispatch of the next ops overlaps the simulation).
Anything that needs the data waits for the queue first (the backend's hook before a host
copy or a CPU fallback; stats(); synchronize()); a host copy waits only when a queued op reads
or writes its storage (a number uploaded into a fresh tensor, an optimizer's step size, does
not stall the queue). An error of a queued op is raised at the next sync point, as on a real
asynchronous device. TPU_LAUNCH_BLOCKING=1 (TorchTPU's
debug eager), SPYRE_LAUNCH_BLOCKING=1 or CHIPLESS_LAUNCH_BLOCKING=1 run every op in the
caller's thread instead.
"""
import atexit
import collections
import os
import threading

import torch

BLOCKING = any(os.environ.get(v) == "1" for v in
               ("TPU_LAUNCH_BLOCKING", "SPYRE_LAUNCH_BLOCKING", "CHIPLESS_LAUNCH_BLOCKING"))

_streams = {}          # slot -> Stream
_workers = set()       # the streams' threads (a hook called there must not wait on itself)


class Stream:
    """The queue of one device's ops and the thread that runs them in order."""

    def __init__(self, run):
        self._run = run                  # run(op): compile and launch (or the CPU)
        self._queue = collections.deque()
        self._cv = threading.Condition()
        self._busy = False
        self._error = None
        self._touched = collections.Counter()  # storage address -> queued ops using it
        thread = threading.Thread(target=self._work, daemon=True, name="chipless-stream")
        _workers.add(thread)
        thread.start()

    def submit(self, op):
        addresses = _addresses(op)
        with self._cv:
            self._queue.append((op, addresses))
            self._touched.update(addresses)
            self._cv.notify_all()

    def touches(self, address):
        """Whether a queued (or running) op reads or writes the storage at `address`."""
        with self._cv:
            return self._touched[address] > 0

    def _work(self):
        while True:
            with self._cv:
                while not self._queue:
                    self._cv.wait()
                op, addresses = self._queue.popleft()
                self._busy = True
            try:
                if self._error is None:  # after an error the rest is dropped
                    with torch.no_grad():
                        self._run(op)
            except BaseException as e:  # raised at the next sync point
                self._error = e
            finally:
                del op
                with self._cv:
                    self._busy = False
                    self._touched.subtract(addresses)
                    self._cv.notify_all()

    def wait(self):
        """Returns when every queued op has run; raises the first error one raised."""
        with self._cv:
            while self._queue or self._busy:
                self._cv.wait()
            error, self._error = self._error, None
        if error is not None:
            raise error


def submit(slot, run, op):
    stream = _streams.get(slot)
    if stream is None:
        stream = _streams[slot] = Stream(run)
    stream.submit(op)


def _addresses(op):
    """The device storages an op reads or writes."""
    return [a for a in (torch.ops.chipless.storage_info(t)[0]
                        for t in (*op.operands, *op.outputs)) if a >= 0]


def touches(slot, address):
    """Whether a queued op of device `slot` reads or writes the storage at `address`."""
    stream = _streams.get(slot)
    return stream is not None and stream.touches(address)


def wait_all():
    """Waits for every device's queue (not from a stream's own thread)."""
    if threading.current_thread() in _workers:
        return
    for stream in list(_streams.values()):
        stream.wait()


atexit.register(lambda: [s.wait() for s in list(_streams.values())])
