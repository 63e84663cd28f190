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
#: :func:`_bin_codes`) and two (fewer passes, more calls: faster from about 512 rows)
_SEARCH_ROWS = 512


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


class CalibrationKernel:
    """Adds batches into ``own``, an ``(n_bins + 1, 3)`` float64 histogram, in place:
    per bin the weight, confidence and accuracy sums.  ``edges``: the metric's
    ``(float32 edges, float64 edges)`` (the confidences' dtype picks).  What a
    batch reuses is made once: the edges as arrays (ending with NaN), their folded
    :func:`bin_table` (None: :func:`_bin_codes`), ``own``'s columns, the
    multiclass rows' flat offsets (for the last shape)."""

    __slots__ = ("own", "cols", "edges", "inner", "tables", "offsets", "multiclass")

    def __init__(self, own, edges, multiclass):
        self.own, self.multiclass = own, multiclass
        self.cols = (own[:, 0], own[:, 1], own[:, 2])
        self.edges = (np.asarray(edges[0] + (np.nan,), dtype=np.float32),
                      np.asarray(edges[1] + (np.nan,), dtype=np.float64))
        # the inner edges and the last: a binary search of them gives the bin itself
        self.inner = tuple(e[1:-1] for e in self.edges)
        self.tables = _folded_tables(tuple(edges[0]), tuple(edges[1]))
        self.offsets = {}

    def add(self, y, p) -> bool:
        """Add one batch (NumPy arrays); False, nothing done, where the kernel does
        not take it (:func:`calibration_fits`)."""
        if not calibration_fits(self.own, y, p, self.multiclass):
            return False
        if self.multiclass:
            conf, correct = _top_label(p, y, self.offsets)
        else:
            conf = p
            correct = y == 1
        wide = conf.dtype == np.float64
        count, conf_sum, hits = self.cols
        size = count.shape[0]
        if conf.shape[0] <= _SEARCH_ROWS:  # few rows: fewest calls (one binary search)
            b = self.inner[wide].searchsorted(conf, side="right")
            count += np.bincount(b, minlength=size)
            conf_sum += np.bincount(b, weights=conf, minlength=size)
            hits += np.bincount(b, weights=correct, minlength=size)
            return True
        table = self.tables[wide]
        if table is None or not conf.flags.c_contiguous:
            b = _bin_codes(conf, self.edges[wide], size - 1)
            b -= 1
            np.clip(b, 0, size - 1, out=b)
        else:
            b = _table_codes(conf, table)
        # the counts and the correct counts per bin: one bincount of (bin, correct) pairs
        codes = b + b
        codes += correct
        pairs = np.bincount(codes, minlength=2 * size)
        count += pairs[0::2] + pairs[1::2]
        conf_sum += np.bincount(b, weights=conf, minlength=size)
        hits += pairs[1::2]
        return True


#: from this many rows, a top label over at most ``_COLUMN_CLASSES`` classes is read
#: column-wise (:func:`_top_label`)
_COLUMN_ROWS = 2048
_COLUMN_CLASSES = 32


def _top_label(p, y, offsets=None):
    """``(conf, correct)``: each row's top probability and whether its first argmax is
    its label ``y``.  Few rows or many classes: the argmax and the probability
    read there (NumPy's max along a short row costs several times the argmax).
    Many rows of few classes, where a row's argmax costs more than its values: on
    the ``(C, n)`` transpose, the maximum and the first class that reaches it as
    ``C - max(C - j)`` over those that do, each a pass along the rows (a row
    holding NaN: its maximum NaN, and no class reaches it; its sums are NaN)."""
    rows, c = p.shape
    if rows < _COLUMN_ROWS or c > _COLUMN_CLASSES:
        top = p.argmax(axis=1)
        correct = top == y
        top += _row_offsets(offsets, rows, c)
        return p.reshape(-1).take(top), correct
    cols = np.ascontiguousarray(p.T)
    conf = _max_of(cols, axis=0)
    at_max = np.greater_equal(cols, conf).view(np.uint8)
    np.multiply(at_max, _CLASS_RANKS[-c:], out=at_max)  # C - j where class j is top
    first = _max_of(at_max, axis=0)
    return conf, np.equal(np.subtract(c, first, dtype=np.intp), y)


#: ``C - j`` for class ``j`` of ``C`` (the last ``C`` entries), a column
_CLASS_RANKS = np.arange(_COLUMN_CLASSES, 0, -1, dtype=np.uint8)[:, None]
_max_of = np.maximum.reduce


def _row_offsets(cache, rows, c):
    """``arange(0, rows * c, c)``: each row's first flat index (kept in ``cache``, a
    dict, for the last shape: a training loop's batches share one)."""
    if cache is not None:
        got = cache.get((rows, c))
        if got is not None:
            return got
    offsets = np.arange(0, rows * c, c)
    if cache is not None:
        cache.clear()
        offsets.flags.writeable = False
        cache[(rows, c)] = offsets
    return offsets


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
    kernel = CalibrationKernel(own, edges, multiclass).add

    def add(y, p):
        arrays = views(y, p)
        return arrays is not None and kernel(*arrays)

    return own, add
