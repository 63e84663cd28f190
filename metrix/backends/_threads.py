"""Work split over CPU threads for the kernels whose NumPy calls release the GIL.

A fresh thread per part and per call (no pool: nothing to re-create after a
``fork``, nothing left running between calls).  Only large inputs are split:
a thread's start (~50 us) is paid back above about a million elements.

The number of threads is ``METRIX_NUM_THREADS`` where set, else the CPUs this
process may run on, at most :data:`MAX_THREADS`; the torch adapter passes
``torch.get_num_threads()`` as the cap, so ``torch.set_num_threads(1)`` (as in
data-loader workers) keeps metrix on one thread too.
"""

from __future__ import annotations

import os
import threading

#: the default cap: the pair count's ``bincount`` holds the GIL, so threads
#: past a few only queue for it
MAX_THREADS = 4


def available_threads() -> int:
    """``METRIX_NUM_THREADS`` where set (at least 1), else this process's CPUs
    capped at :data:`MAX_THREADS`."""
    env = os.environ.get("METRIX_NUM_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"METRIX_NUM_THREADS must be an integer, got {env!r}") from None
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_THREADS))


def split_points(n, *, min_part, align, threads=None):
    """Boundaries ``[0, ..., n]`` of at most ``threads`` parts of at least
    ``min_part`` elements, each a multiple of ``align`` long except the last."""
    limit = available_threads() if threads is None else max(1, min(threads, available_threads()))
    parts = max(1, min(limit, n // min_part))
    step = -(-n // parts)
    step = -(-step // align) * align
    return list(range(0, n, step)) + [n]


def run_parts(fn, parts):
    """``[fn(*p) for p in parts]`` with the first part on this thread and each
    other on its own thread; an exception raised in any part is raised here."""
    if len(parts) == 1:
        return [fn(*parts[0])]
    results, errors = [None] * len(parts), []

    def work(i):
        try:
            results[i] = fn(*parts[i])
        except BaseException as exc:  # re-raised on the calling thread
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,), daemon=True)
               for i in range(1, len(parts))]
    for w in workers:
        w.start()
    try:
        work(0)
    finally:
        for w in workers:
            w.join()
    if errors:
        raise errors[0]
    return results
