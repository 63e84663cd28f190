"""The calibration histogram on host arrays: NumPy's kernels, in place.

:meth:`GenericOps.calibration_accumulator` for eager CPU NumPy and torch (on
zero-copy views): at training-loop batch sizes each library call costs more
than its arithmetic, so one batch is a few passes of bin arithmetic and
three ``bincount`` calls added into the caller's own ``(n_bins + 1, 3)`` float64
histogram.  The same bins and sums as the generic path
(:func:`metrix.classification.calibration.calibration_histogram`): bin ``k``
is ``searchsorted(edges, conf, "right") - 1`` clipped to ``[0, n_bins]``, the
edges given by the metric in the confidences' dtype.
"""

from __future__ import annotations

import numpy as np

_SCORES = (np.dtype(np.float32), np.dtype(np.float64))
#: batches up to this size are binned by NumPy's binary search (one call); larger
#: ones by the arithmetic of :func:`_bin_codes` (a quarter faster per element)
_SEARCH_ROWS = 2048


def calibration_fits(hist, y, p, multiclass) -> bool:
    """Whether the kernel takes the batch: float32 / float64 probabilities (1-D,
    or ``(n, C)`` for ``multiclass``), integer or bool labels of the same length,
    a float64 histogram."""
    if not (hist.dtype == np.float64 and p.dtype in _SCORES and y.ndim == 1
            and y.dtype.kind in "biu"):
        return False
    if multiclass:
        return p.ndim == 2 and p.shape[0] == y.shape[0] and p.shape[1] > 0
    return p.ndim == 1 and p.shape[0] == y.shape[0]


def _bin_codes(conf, edges, n_bins):
    """``searchsorted(edges, conf, "right")`` (``0..n_bins + 1``; the bin is that
    minus one, clipped to ``[0, n_bins]``: counted by this code and folded, as a
    clip of the batch costs more than the fold of its counts).  Arithmetic, a
    quarter faster than NumPy's binary search: ``floor(conf * n_bins)`` is off
    by at most one from the bin (the edges are within an ulp of ``k / n_bins``),
    and one comparison each way with the edges corrects it.  ``edges`` ends
    with NaN (``n_bins + 2`` values: no confidence, +inf included, is at or
    above it).  NaN is in bin 0 there (in bin
    ``n_bins`` by the binary search and the generic path: its sums, and the
    result, are NaN either way)."""
    if conf.shape[0] <= _SEARCH_ROWS:  # one call: fewer than the arithmetic's nine
        return np.searchsorted(edges[:-1], conf, side="right")
    v = conf * conf.dtype.type(n_bins)
    np.fmax(v, 0, out=v)  # NaN too
    np.fmin(v, n_bins, out=v)
    k = v.astype(np.intp)
    s = k + 1
    s -= conf < edges[k]
    s += conf >= edges[s]
    return s


def add_calibration(own, y, p, edges, multiclass):
    """Add one batch's weight, confidence and accuracy sums per bin into ``own``
    (``(n_bins + 1, 3)`` float64, in place).  ``edges``: ``(float32 edges,
    float64 edges)`` as arrays, each ending with NaN."""
    if multiclass:  # the top probability read at its argmax (NumPy's max along a
        # short row costs several times the argmax)
        top = p.argmax(axis=1)
        rows, c = p.shape
        conf = p.reshape(-1)[top + np.arange(0, rows * c, c)]
        correct = top == y
    else:
        conf = p
        correct = y == 1
    s = _bin_codes(conf, edges[conf.dtype == np.float64], own.shape[0] - 1)
    size = own.shape[0] + 1
    part = np.empty((size, 3))
    part[:, 0] = np.bincount(s, minlength=size)
    part[:, 1] = np.bincount(s, weights=conf, minlength=size)
    part[:, 2] = np.bincount(s, weights=correct, minlength=size)
    part[1] += part[0]
    own += part[1:]


def calibration_accumulator_numpy(hist, views, edges, multiclass, copy=True):
    """``(own, add)`` over ``own``, a float64 copy of ``hist`` (``hist`` itself with
    ``copy=False``: a view of the caller's own copy): ``add(y, p)`` takes the
    batch through ``views(y, p)`` (its NumPy arrays, or None) and adds it in
    place (False, nothing done, where the kernel does not take it)."""
    own = np.array(hist, dtype=np.float64, copy=True) if copy else hist
    e = (np.asarray(edges[0] + (np.nan,), dtype=np.float32),
         np.asarray(edges[1] + (np.nan,), dtype=np.float64))

    def add(y, p):
        arrays = views(y, p)
        if arrays is None or not calibration_fits(own, *arrays, multiclass):
            return False
        add_calibration(own, *arrays, e, multiclass)
        return True

    return own, add
