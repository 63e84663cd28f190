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

import functools
import sys

import numpy as np

_SCORES = (np.dtype(np.float32), np.dtype(np.float64))
#: batches up to this size are binned by NumPy's binary search (one call) and summed
#: by three bincounts; larger ones by :func:`bin_table` (or the arithmetic of
#: :func:`_bin_codes`) and two (fewer passes, more calls)
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
    minus one, clipped to ``[0, n_bins]``: the caller clips; :func:`bin_table`
    gives the bin itself).  Arithmetic, a
    quarter faster than NumPy's binary search: ``floor(conf * n_bins)`` is off
    by at most one from the bin (the edges are within an ulp of ``k / n_bins``),
    and one comparison each way with the edges corrects it.  ``edges`` ends
    with NaN (``n_bins + 2`` values: no confidence, +inf included, is at or
    above it).  NaN is in bin 0 there (in bin
    ``n_bins`` by the binary search and the generic path: its sums, and the
    result, are NaN either way)."""
    v = conf * conf.dtype.type(n_bins)
    np.fmax(v, 0, out=v)  # NaN too
    np.fmin(v, n_bins, out=v)
    k = v.astype(np.intp)
    s = k + 1
    s -= conf < edges[k]
    s += conf >= edges[s]
    return s


def bin_table(edges, folded=False):
    """``(base, threshold)``, each indexed by a confidence's top 16 bits (sign,
    exponent, leading mantissa bits: a cell of float values, one interval), where
    ``searchsorted(edges, conf, "right")`` (``folded``: the bin, that minus one
    clipped to ``[0, n_bins]``) is ``base[cell] + (conf >= threshold[cell])`` for
    every non-NaN ``conf`` of the cell; None where a cell
    holds two edges (more bins than the cells resolve: float32 up to 256 bins,
    float64 up to 32).  ``edges``: the ``n_bins + 1`` increasing edges (float32 or
    float64; the confidences' dtype).  Two gathers and a comparison per
    confidence, instead of a binary search or the arithmetic and two corrections
    of :func:`_bin_codes` (this binning's cost is most of an update's).  A NaN
    confidence lands in some bin (its sums, and the result, are NaN whichever)."""
    edges = np.asarray(edges)
    dt = edges.dtype
    uint = np.uint32 if dt == np.float32 else np.uint64
    shift = uint(8 * dt.itemsize - 16)
    cells = np.arange(1 << 16, dtype=uint) << shift
    first = cells.view(dt)
    last = (cells | ((uint(1) << shift) - uint(1))).view(dt)
    negative = np.arange(1 << 16) >= 1 << 15  # (sign bit set: the last pattern is the lowest)
    lo = np.where(negative, last, first)
    hi = np.where(negative, first, last)
    s_lo = np.searchsorted(edges, lo, side="right")
    s_hi = np.searchsorted(edges, hi, side="right")
    nan = np.isnan(lo) | np.isnan(hi)
    s_lo = np.where(np.isnan(lo) & ~np.isnan(hi), s_hi, s_lo)
    step = np.where(nan, 0, s_hi - s_lo)
    if step.max() > 1 or step.min() < 0:
        return None
    padded = np.append(edges, np.nan).astype(dt)
    threshold = np.where(step == 1, padded[np.minimum(s_lo, edges.shape[0])], np.nan)
    if folded:  # the bin: the code minus one, clipped to [0, n_bins] (no step at a clip)
        n_bins = edges.shape[0] - 1
        b_lo, b_hi = np.clip(s_lo - 1, 0, n_bins), np.clip(s_hi - 1, 0, n_bins)
        threshold = np.where(nan | (b_hi == b_lo), np.nan, threshold)
        s_lo = b_lo
    return s_lo.astype(np.intp), threshold.astype(dt)


#: the index of a float's top 16 bits among its uint16 words
_TOP = {4: 1, 8: 3} if sys.byteorder == "little" else {4: 0, 8: 0}


def _table_codes(conf, table):
    """:func:`_bin_codes` by :func:`bin_table`'s two gathers."""
    base, threshold = table
    size = conf.dtype.itemsize
    cell = conf.view(np.uint16)[_TOP[size]::size // 2].astype(np.intp)
    s = base.take(cell)
    s += conf >= threshold.take(cell)
    return s


def add_calibration(own, y, p, edges, multiclass, tables=(None, None)):
    """Add one batch's weight, confidence and accuracy sums per bin into ``own``
    (``(n_bins + 1, 3)`` float64, in place).  ``edges``: ``(float32 edges,
    float64 edges)`` as arrays, each ending with NaN; ``tables``: their folded
    :func:`bin_table`, or None (then :func:`_bin_codes`)."""
    if multiclass:  # the top probability read at its argmax (NumPy's max along a
        # short row costs several times the argmax)
        top = p.argmax(axis=1)
        rows, c = p.shape
        conf = p.reshape(-1)[top + np.arange(0, rows * c, c)]
        correct = top == y
    else:
        conf = p
        correct = y == 1
    wide = conf.dtype == np.float64
    table = tables[wide]
    size = own.shape[0]
    if conf.shape[0] <= _SEARCH_ROWS:  # few rows: fewest calls (one binary search)
        s = np.searchsorted(edges[wide][:-1], conf, side="right")
        part = np.empty((size + 1, 3))
        part[:, 0] = np.bincount(s, minlength=size + 1)
        part[:, 1] = np.bincount(s, weights=conf, minlength=size + 1)
        part[:, 2] = np.bincount(s, weights=correct, minlength=size + 1)
        part[1] += part[0]  # (code 0, below the first edge: bin 0)
        own += part[1:]
        return
    if table is None or not conf.flags.c_contiguous:
        b = _bin_codes(conf, edges[wide], size - 1)
        b -= 1
        np.clip(b, 0, size - 1, out=b)
    else:
        b = _table_codes(conf, table)
    # the counts and the correct counts per bin: one bincount of (bin, correct) pairs
    codes = b * 2
    codes += correct
    pairs = np.bincount(codes, minlength=2 * size).reshape(size, 2)
    own[:, 0] += pairs[:, 0] + pairs[:, 1]
    own[:, 1] += np.bincount(b, weights=conf, minlength=size)
    own[:, 2] += pairs[:, 1]


@functools.lru_cache(maxsize=16)
def _folded_tables(edges32, edges64):
    """The folded :func:`bin_table` of the float32 and float64 edges, made once per
    set of edges (a few milliseconds: an accumulator is made again whenever its
    state was handed out)."""
    tables = (bin_table(np.asarray(edges32, dtype=np.float32), folded=True),
              bin_table(np.asarray(edges64, dtype=np.float64), folded=True))
    for table in tables:
        for a in table or ():
            a.flags.writeable = False  # (shared by every accumulator of these edges)
    return tables


def calibration_accumulator_numpy(hist, views, edges, multiclass, copy=True):
    """``(own, add)`` over ``own``, a float64 copy of ``hist`` (``hist`` itself with
    ``copy=False``: a view of the caller's own copy): ``add(y, p)`` takes the
    batch through ``views(y, p)`` (its NumPy arrays, or None) and adds it in
    place (False, nothing done, where the kernel does not take it)."""
    own = np.array(hist, dtype=np.float64, copy=True) if copy else hist
    e = (np.asarray(edges[0] + (np.nan,), dtype=np.float32),
         np.asarray(edges[1] + (np.nan,), dtype=np.float64))
    tables = _folded_tables(tuple(edges[0]), tuple(edges[1]))

    def add(y, p):
        arrays = views(y, p)
        if arrays is None or not calibration_fits(own, *arrays, multiclass):
            return False
        add_calibration(own, *arrays, e, multiclass, tables)
        return True

    return own, add
