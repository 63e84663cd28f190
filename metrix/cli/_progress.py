"""A minimal progress bar on stderr: drawn only when stderr is a terminal."""

from __future__ import annotations

import sys
import time


class Progress:
    """``Progress(total, label)``; ``update(done)``; ``close()``.

    Quiet (draws nothing) when ``enabled`` is False, which is the default
    when stderr is not a terminal (pipes, CI logs, tests).
    """

    def __init__(self, total, label, *, stream=None, enabled=None, min_interval=0.1):
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total, self.label, self.enabled = total, label, enabled
        self.min_interval = min_interval
        self._last = 0.0
        self._t0 = time.perf_counter()
        self._drawn = False

    def update(self, done, total=None):
        if total is not None:
            self.total = total
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < self.min_interval and (not self.total or done < self.total):
            return
        self._last = now
        if self.total:
            frac = min(max(done / self.total, 0.0), 1.0)
            bar = "#" * int(30 * frac)
            text = f"\r{self.label:<24} [{bar:<30}] {100 * frac:5.1f}% {now - self._t0:6.1f}s"
        else:
            text = f"\r{self.label:<24} {done:,} {now - self._t0:6.1f}s"
        self.stream.write(text)
        self.stream.flush()
        self._drawn = True

    def close(self):
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
