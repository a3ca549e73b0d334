"""A chipless-device-server started by a test, on a Unix socket in the test's directory (a
module of its own, not conftest: pytest puts several suites' conftest modules under one
name)."""
import contextlib
import os
import pathlib
import subprocess

SERVER = pathlib.Path(os.environ["CHIPLESS_BIN"]) / "chipless-device-server"


@contextlib.contextmanager
def device_server(directory, *args, locks=None):
    """Runs the server with `args` ("--devices", "tpu:4", ...) listening at
    DIRECTORY/s.sock until the block ends, its device locks in `locks` (else `directory`);
    yields its address. Asserts that it started and that it stopped cleanly."""
    sock = pathlib.Path(directory) / "s.sock"
    proc = subprocess.Popen([str(SERVER), *args, "--listen", f"unix:{sock}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, CHIPLESS_LOCK_DIR=str(locks or directory)))
    try:
        while "serving" not in (line := proc.stdout.readline()):
            assert line, "the device server did not start"
        yield f"unix:{sock}"
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0
