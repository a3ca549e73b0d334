"""Where a study's work runs: a pool of local processes (the default, one per core) or an
existing Dask distributed cluster. Both take plain functions of plain dicts (work.py) and
hand each result back as it finishes; the table does not depend on which ran it or in what
order. With a cluster, the study's output folder must be visible to the workers at the same
path (as it is for workers on this machine)."""
import concurrent.futures
import os

from chipless.errors import ChiplessError


class LocalExecutor:
    """Runs work in `jobs` worker processes of this machine."""

    def __init__(self, jobs=None):
        self.jobs = jobs or os.cpu_count() or 1
        self.pool = concurrent.futures.ProcessPoolExecutor(max_workers=self.jobs)

    def describe(self):
        return f"{self.jobs} local process{'es' if self.jobs != 1 else ''}"

    def run(self, function, tasks):
        """Yields function(task) for every task, in the order they finish."""
        futures = [self.pool.submit(function, t) for t in tasks]
        try:
            for future in concurrent.futures.as_completed(futures):
                yield future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Runs work on the Dask distributed cluster whose scheduler is at `address`
    (tcp://HOST:PORT), or on a `distributed.Client` given directly."""

    def __init__(self, address=None, client=None):
        try:
            import distributed
        except ImportError:
            raise ChiplessError("--cluster needs Dask distributed (Debian: python3-distributed; "
                                "scripts/install-deps.sh installs it)") from None
        self.owned = client is None
        if client is None:
            try:
                client = distributed.Client(address, timeout="20s")
            except (OSError, TimeoutError) as e:
                raise ChiplessError(f"--cluster {address}: cannot reach the Dask scheduler: "
                                    f"{e}") from None
        self.client = client
        self.distributed = distributed

    def describe(self):
        workers = self.client.scheduler_info().get("workers", {})
        return f"the Dask cluster at {self.client.scheduler.address} ({len(workers)} workers)"

    def run(self, function, tasks):
        futures = [self.client.submit(function, t, pure=False) for t in tasks]
        try:
            for future in self.distributed.as_completed(futures):
                yield future.result()
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self):
        if self.owned:
            self.client.close()
