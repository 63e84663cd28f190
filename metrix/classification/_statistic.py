"""Sufficient statistics of the label metrics.

Every label metric reads one of these, computed once per call:

* ``confusion_counts``: the C x C confusion matrix from one
  ``bincount(C * y_true + y_pred)``;
* ``label_counts``: per-class (tp, predicted, true) counts, read off the
  confusion matrix when C*C is small, else from three length-C bincounts, so
  100,000 classes never allocate C^2 cells;
* ``multilabel_counts``: the same counts for indicator matrices, as column
  (or row) sums of products.

``normalize_confusion`` is the one normalisation of a confusion matrix (the
one-shot ``confusion_matrix`` and the streaming ``ConfusionMatrix``).

Kernels take encoded codes in ``[0, size)``; ``xp`` and ``ops`` keyword-only.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from .._core import namespace as _ns
from .._core.arith import safe_divide

#: the dense C x C path is used up to this many cells
DENSE_CELLS_LIMIT = 1 << 22
#: confusion_matrix refuses to allocate more cells than this
MAX_CONFUSION_CELLS = 1 << 27


class LabelCounts(NamedTuple):
    """Per-class counts (or summed weights): true positives, predicted, true."""

    tp: object
    pred: object
    true: object


def use_dense(size: int, n_samples: int) -> bool:
    """Whether a size x size matrix costs no more than a pass over the samples."""
    cells = size * size
    return cells <= DENSE_CELLS_LIMIT and cells <= max(1 << 16, n_samples)


def confusion_counts(y_true, y_pred, *, size, weights=None, xp, ops):
    """``cm[i, j]`` = (weighted) number of samples with true code i and predicted j."""
    flat = ops.pair_bincount(y_true, y_pred, size=size, weights=weights)
    return xp.reshape(flat, (size, size))


def normalize_confusion(cm, normalize: Literal["true", "pred", "all"], *, dtype, xp):
    """``cm`` over its row sums ("true"), column sums ("pred") or total ("all").

    Computed in ``dtype``; a row, column or matrix that sums to 0 gives 0.  The
    matrix is on the last two axes (a stack of them, ``(L, 2, 2)``, is normalised
    matrix by matrix).
    """
    cmf = xp.astype(cm, dtype)
    if normalize == "true":
        den = xp.sum(cmf, axis=-1, keepdims=True)
    elif normalize == "pred":
        den = xp.sum(cmf, axis=-2, keepdims=True)
    else:
        den = xp.sum(cmf, axis=(-2, -1), keepdims=True)
    return safe_divide(cmf, den, zero_value=0.0, xp=xp)


def counts_from_confusion(cm, *, xp) -> LabelCounts:
    size = cm.shape[0]
    diag = xp.reshape(cm, (-1,))[:: size + 1]
    return LabelCounts(diag, xp.sum(cm, axis=0), xp.sum(cm, axis=1))


def label_counts(y_true, y_pred, *, size, weights=None, xp, ops) -> LabelCounts:
    """Per-class counts over the code space, by the cheaper of the two paths."""
    n = y_true.shape[0]
    if use_dense(size, n):
        cm = confusion_counts(y_true, y_pred, size=size, weights=weights, xp=xp, ops=ops)
        return counts_from_confusion(cm, xp=xp)
    true = ops.bincount(y_true, length=size, weights=weights)
    pred = ops.bincount(y_pred, length=size, weights=weights)
    hit = xp.where(y_true == y_pred, y_true, xp.full_like(y_true, size))
    tp = ops.bincount(hit, length=size + 1, weights=weights)[:size]
    return LabelCounts(tp, pred, true)


def multilabel_counts(y_true, y_pred, *, weights=None, axis=0, dtype, xp) -> LabelCounts:
    """Counts of an indicator problem: sums over samples (axis=0) or labels (axis=1)."""
    yt = xp.astype(y_true != 0, dtype)
    yp = xp.astype(y_pred != 0, dtype)
    if weights is not None and axis == 0:
        w = xp.reshape(weights, (-1, 1))
        return LabelCounts(xp.sum(yt * yp * w, axis=0), xp.sum(yp * w, axis=0),
                           xp.sum(yt * w, axis=0))
    return LabelCounts(xp.sum(yt * yp, axis=axis), xp.sum(yp, axis=axis),
                       xp.sum(yt, axis=axis))


def select_counts(counts: LabelCounts, select, *, xp, device) -> LabelCounts:
    """The counts of the code positions ``select`` (host ints; None keeps all)."""
    if select is None:
        return counts
    idx = _ns.asarray(select, xp=xp, device=device, dtype=_ns.count_dtype(xp, device))
    return LabelCounts(*(xp.take(c, idx) for c in counts))


def select_matrix(cm, select, *, xp, device):
    """Rows and columns ``select`` of a square matrix (None keeps all)."""
    if select is None:
        return cm
    idx = _ns.asarray(select, xp=xp, device=device, dtype=_ns.count_dtype(xp, device))
    return xp.take(xp.take(cm, idx, axis=0), idx, axis=1)
