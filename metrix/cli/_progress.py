"""``metrix eval``'s progress bar: tqdm's on a terminal, else a plain line or nothing.

tqdm (the ``metrix[cli]`` extra) draws the bar when stderr is a terminal.
Without tqdm a plain percentage line is redrawn instead; when stderr is not a
terminal (pipes, CI logs, tests) nothing is drawn at all.
"""

from __future__ import annotations

import importlib.util
import sys
import time


class Progress:
    """``Progress(total, label)``; ``update(done)``; ``close()`` (a context manager).

    ``enabled=None`` draws when the stream is a terminal; ``total=None`` counts
    without a bar.
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
        self._bar = None
        if enabled and importlib.util.find_spec("tqdm") is not None:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc=label, file=self.stream, unit="",
                             unit_scale=True, mininterval=min_interval, leave=False)

    def update(self, done, total=None):
        if total is not None:
            self.total = total
            if self._bar is not None:
                self._bar.total = total
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            return
        now = time.perf_counter()
        if now - self._last < self.min_interval and (not self.total or done < self.total):
            return
        self._last = now
        if self.total:
            pct = 100 * min(max(done / self.total, 0.0), 1.0)
            text = f"\r{self.label}: {pct:5.1f}% ({done:,} of {self.total:,}) " \
                   f"{now - self._t0:6.1f}s"
        else:
            text = f"\r{self.label}: {done:,} {now - self._t0:6.1f}s"
        self.stream.write(text)
        self.stream.flush()
        self._drawn = True

    def close(self):
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
