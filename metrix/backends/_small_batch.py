"""NumPy kernels of one training-loop batch, in one call each.

On a batch of a few hundred rows a metric's cost is its Python, not its
arithmetic: these kernels compute a declared confusion matrix and a mean
error (of the formula its caller passes) with the fewest NumPy calls that
still check what must be checked.  The NumPy adapter runs them in its lanes
(``Ops.inner_counts``, ``Ops.mean_error``) and the host entries
(:mod:`metrix.backends.host_views`) run them on zero-copy views of torch CPU
tensors.  Each returns None where its inputs are not the ones it takes; the
caller then computes the value its usual way, with the same result.
"""

from __future__ import annotations

import numpy as np

from ._pair_count import codes_in_range

__all__ = ["host_confusion_counts", "mean_error"]

#: the batches whose declared confusion matrix ravels its codes with
#: ``np.ravel_multi_index`` (one C loop that also checks the range: cheaper
#: than two range checks and two arithmetic passes on a small batch)
RAVEL_ROWS = 512
_ravel = np.ravel_multi_index
_bincount = np.bincount
_F64 = np.dtype(np.float64)
_asarray = np.asarray
_subtract = np.subtract


def host_confusion_counts(a, b, n):
    """The ``n x n`` int64 counts of the pairs ``(a, b)`` of integer (or bool)
    labels (a declared confusion matrix), or None where a label is outside
    ``0..n-1`` (the general count leaves those pairs out) or a dtype is not
    an integer one.

    Up to :data:`RAVEL_ROWS` rows: one ``np.ravel_multi_index`` (it raises on
    a label out of range) and one bincount of the ``n * n`` cells.  Larger
    batches: two unsigned maxima (a negative label wraps to a huge value)
    bound both labels by ``n``, so the codes ``a * (n + 1) + b`` neither wrap
    nor alias; the label ``n`` lands in a row or column cut off.
    """
    rows = a.shape[0]
    if rows <= RAVEL_ROWS:
        try:
            cells = _ravel((a, b), (n, n))
        except (ValueError, TypeError):  # a label outside 0..n-1, float labels
            return None
        return _bincount(cells, None, n * n).reshape(n, n)
    if a.dtype.kind not in "biu" or b.dtype.kind not in "biu":
        return None
    cells = codes_in_range(a, b, n, n + 1)
    if cells is None:
        return None
    counts = _bincount(cells, minlength=n * (n + 1))
    return counts[:n * (n + 1)].reshape(n, n + 1)[:, :n]


def mean_error(formula, kind, a, b, w=None):
    r"""``formula(kind, s, total, np)`` (the mean errors' formula) of the
    statistic of two 1-D arrays of one float32 / float64 dtype, as a 0-d
    array of the difference's dtype: :math:`s = \sum_i w_i e_i` of
    ``e = |a - b|`` ("absolute") or ``(a - b)^2`` (the other kinds),
    :math:`\mathrm{total} = \sum_i w_i` (``n`` without weights).  The
    difference in the inputs' dtype (as scikit-learn subtracts; in float64
    with float64 weights), its terms summed in float64 (one dot product).
    None for other dtypes.  The arithmetic of the mean errors' lane, to the
    bit.  The formula is the caller's, passed in: the result leaves in its
    dtype here, where handing the sums back costs the caller a conversion
    call (on a training-loop batch each Python call is a few percent)."""
    dt = a.dtype
    if (b.dtype is not dt and b.dtype != dt) or dt.kind != "f" or dt.itemsize < 4:
        return None
    if w is not None:
        if w.dtype.kind != "f":
            return None
        if w.dtype.itemsize > dt.itemsize:  # float64 weights: all in float64
            dt = w.dtype
            a = a.astype(_F64)
            b = b.astype(_F64)
        if w.dtype != _F64:
            w = w.astype(_F64)
    d = _subtract(a, b)  # the ufunc itself: ``-`` first asks both operands for overrides
    if dt.itemsize == 4:
        d = d.astype(_F64)
    if w is not None:
        s, total = (np.abs(d) if kind == "absolute" else d * d).dot(w), np.add.reduce(w)
    elif kind == "absolute":
        s, total = np.add.reduce(np.abs(d)), d.shape[0]
    else:
        s, total = d.dot(d), d.shape[0]
    return _asarray(formula(kind, s, total, np), dt)
