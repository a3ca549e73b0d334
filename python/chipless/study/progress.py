"""The study's progress line on stderr: points done, failures, elapsed and estimated time
left. Redrawn in place on a terminal; elsewhere (CI logs) a line every minute and at the end."""
import sys
import time


def _clock(seconds):
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """Counts finished work items of one phase ("compile", "run") and reports them."""

    def __init__(self, phase, total, stream=None, quiet=False, interval=60.0):
        self.phase, self.total, self.done, self.failed = phase, total, 0, 0
        self.stream = stream or sys.stderr
        self.quiet = quiet or total == 0
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = self.last = time.monotonic()
        self.interval = interval

    def line(self):
        elapsed = time.monotonic() - self.start
        left = ""
        if 0 < self.done < self.total:
            left = f", ~{_clock(elapsed / self.done * (self.total - self.done))} left"
        return (f"{self.phase}: {self.done}/{self.total} done, {self.failed} failed, "
                f"{_clock(elapsed)} elapsed{left}")

    def update(self, ok):
        """One item finished (`ok` False when it failed)."""
        self.done += 1
        self.failed += 0 if ok else 1
        if self.quiet:
            return
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r\033[K" + self.line())
            self.stream.flush()
        elif now - self.last >= self.interval:
            self.last = now
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def finish(self):
        """The phase's last line."""
        if self.quiet:
            return
        self.stream.write(("\r\033[K" if self.tty else "") + self.line() + "\n")
        self.stream.flush()
