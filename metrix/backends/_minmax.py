"""One chunked read of a NumPy array's bounds (shared by the NumPy adapter,
the id encoding and the retrieval candidate filter)."""

from __future__ import annotations

import numpy as np

from ._pair_count import CHUNK as _CHUNK


def minmax_numpy(x):
    """``(min(x), max(x))`` in one chunked read of ``x`` instead of two full passes
    (a NaN propagates into both)."""
    n = x.shape[0] if x.ndim else 1
    if x.ndim != 1 or n <= 4 * _CHUNK:
        return x.min(), x.max()
    los, his = [], []
    for s in range(0, n, _CHUNK):
        c = x[s:s + _CHUNK]
        los.append(c.min())
        his.append(c.max())
    return np.min(los), np.max(his)
