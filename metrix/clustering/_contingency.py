"""The contingency table of two clusterings: input checks and the statistic.

Every supervised clustering score reads one :class:`Table`: the cell counts
``n_ij``, each cell's row and column marginals ``a_i`` and ``b_j``, and the
marginals themselves.  Two layouts, both of fixed shape (no host read):

* **runs** (any labels, any number of clusters): one lexicographic sort of the
  ``(labels_true, labels_pred)`` pairs; each run of equal pairs is a non-empty
  cell, counted by one ``bincount`` of the run ids, and binary searches in the
  sorted labels give its marginals.  Every array has ``N`` entries, masked to
  the run starts: no ``C_true x C_pred`` allocation, so 100,000 x 100,000
  clusters cost O(N) memory.  It traces under ``jax.jit``.
* **dense** (labels known to be codes in a small range): one ``bincount`` of
  ``C_pred * code_true + code_pred``, the ``C_true x C_pred`` matrix.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

from .._core import namespace as _ns
from .._core.stacklevel import find_stack_level
from .._core.validation import (
    assert_all_finite,
    check_consistent_length,
    dtype_kind,
    target_info,
)
from ..backends import ops

#: the most cells the dense layout allocates (beside ``4 N``)
DENSE_CELLS = 1 << 16


class Table(NamedTuple):
    """One contingency table; arrays broadcast against each other (cells)."""

    n: object      # cell counts n_ij (count dtype); entries off ``n_on`` are ignored
    n_on: object   # bool: the entry is a non-empty cell
    a_n: object    # the row marginal a_i of each cell
    b_n: object    # the column marginal b_j of each cell
    a: object      # row marginals a_i; entries off ``a_on`` are ignored
    a_on: object
    b: object      # column marginals b_j
    b_on: object
    total: object  # 0-d count: N


# -- input ---------------------------------------------------------------------

def _check_array_like(x, name, func):
    if x is None or isinstance(x, (int, float, bool, str, bytes)) or getattr(x, "ndim", 1) == 0:
        raise ValueError(f"The '{name}' parameter of {func} must be an array-like. "
                         f"Got {x!r} instead.")


def check_clusterings(labels_true, labels_pred, *, func, validate=True):
    """scikit-learn's ``check_clusterings``: ``(labels_true, labels_pred, xp, device)``.

    Shapes are always checked; with ``validate=True`` also NaN / infinity (host
    reads) and the warning for continuous (non-integral float) labels.
    """
    _check_array_like(labels_true, "labels_true", func)
    _check_array_like(labels_pred, "labels_pred", func)
    xp, device = _ns.get_namespace_and_device(labels_true, labels_pred)
    labels_true = _ns.asarray(labels_true, xp=xp, device=device)
    labels_pred = _ns.asarray(labels_pred, xp=xp, device=device)
    for y in (labels_true, labels_pred):
        if y.ndim > 2:
            raise ValueError(f"Found array with dim {y.ndim}. None expected <= 2.")
    if validate:
        for y in (labels_true, labels_pred):
            assert_all_finite(y, xp=xp)
        kinds = [_target_kind(y, xp) for y in (labels_true, labels_pred)]
        if "continuous" in kinds:
            kinds = [k if k == "continuous" else target_info(y, xp=xp, input_name="").y_type
                     for k, y in zip(kinds, (labels_true, labels_pred))]
            warnings.warn(
                "Clustering metrics expects discrete values but received"
                f" {kinds[0]} values for label, and {kinds[1]} values for target",
                UserWarning, stacklevel=find_stack_level())
    for name, y in (("labels_true", labels_true), ("labels_pred", labels_pred)):
        if y.ndim != 1:
            raise ValueError(f"{name} must be 1D: shape is {tuple(y.shape)!r}")
    check_consistent_length(labels_true, labels_pred)
    return labels_true, labels_pred, xp, device


def _target_kind(y, xp) -> str:
    """"continuous" for 1-D (or one-column) float labels with a non-integral
    value, as ``type_of_target`` says (a host read), else "discrete"."""
    one_d = y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)
    if not one_d or y.shape[0] == 0 or dtype_kind(y, xp) != "f":
        return "discrete"
    return "discrete" if bool(xp.all(y == xp.round(y))) else "continuous"


def as_codes(y, xp):
    """String / object labels (NumPy only) as integer codes; others as they are."""
    if dtype_kind(y, xp) == "O":
        return ops(xp).unique_inverse(y)[1]
    return y


# -- the statistic ---------------------------------------------------------------

def _flag_changes(s, xp):
    """``s[k] != s[k - 1]`` with True at 0 (the run starts of a sorted ``s``)."""
    first = xp.ones((1,), dtype=xp.bool, device=_ns.device_of(s))
    return xp.concat([first, s[1:] != s[:-1]])


def _counts_in(s, v, xp):
    """For each entry of ``v``, the number of entries of a sorted ``s`` equal to it."""
    return xp.searchsorted(s, v, side="right") - xp.searchsorted(s, v, side="left")


def runs_table(t, p, *, xp, device) -> Table:
    """The :class:`Table` of two non-empty 1-D label arrays in the runs layout."""
    adapter = ops(xp)
    cdt = _ns.count_dtype(xp, device)
    n = t.shape[0]
    o1 = xp.argsort(p, stable=True)
    order = xp.take(o1, xp.argsort(xp.take(t, o1), stable=True))
    ts, ps = xp.take(t, order), xp.take(p, order)
    row_start = _flag_changes(ts, xp)
    cell_start = row_start | _flag_changes(ps, xp)
    cell_id = xp.cumulative_sum(xp.astype(cell_start, cdt)) - 1
    cells = xp.take(adapter.bincount(cell_id, length=n), cell_id)
    p_sorted = xp.sort(p)
    a = _counts_in(ts, ts, xp)
    return Table(
        n=xp.astype(cells, cdt), n_on=cell_start, a_n=xp.astype(a, cdt),
        b_n=xp.astype(_counts_in(p_sorted, ps, xp), cdt), a=xp.astype(a, cdt), a_on=row_start,
        b=xp.astype(_counts_in(p_sorted, p_sorted, xp), cdt), b_on=_flag_changes(p_sorted, xp),
        total=xp.asarray(n, dtype=cdt, device=device))


def dense_counts(ct, cp, n_rows, n_cols, *, xp):
    """The ``n_rows x n_cols`` counts of codes ``ct`` in ``[0, n_rows)`` and ``cp``
    in ``[0, n_cols)``: one ``bincount``."""
    cdt = _ns.count_dtype(xp, _ns.device_of(ct))
    codes = xp.astype(ct, cdt) * n_cols + xp.astype(cp, cdt)
    flat = ops(xp).bincount(codes, length=n_rows * n_cols)
    return xp.reshape(xp.astype(flat, cdt), (n_rows, n_cols))


def matrix_table(m, *, xp, all_rows=False) -> Table:
    """The :class:`Table` of a 2-D count matrix ``m``.  ``all_rows``: count every
    row and column as a class (scikit-learn's ``contingency=`` input), else
    only the non-empty ones."""
    a = xp.sum(m, axis=1)
    b = xp.sum(m, axis=0)
    on = xp.ones(a.shape, dtype=xp.bool, device=_ns.device_of(m)) if all_rows else a != 0
    on_b = xp.ones(b.shape, dtype=xp.bool, device=_ns.device_of(m)) if all_rows else b != 0
    return Table(n=m, n_on=m != 0, a_n=a[:, None], b_n=b[None, :], a=a, a_on=on, b=b,
                 b_on=on_b, total=xp.sum(a))


def label_table(t, p, *, xp, device, validate) -> Table:
    """The :class:`Table` of two checked, non-empty 1-D label arrays.

    With ``validate=True`` integer (or string) labels whose code ranges are
    small take the dense layout: the ranges are read on the host.  Otherwise
    (and always with ``validate=False``: no host read) the runs layout.
    """
    t, p = as_codes(t, xp), as_codes(p, xp)
    if validate and dtype_kind(t, xp) in "iub" and dtype_kind(p, xp) in "iub":
        adapter = ops(xp)
        cdt = _ns.count_dtype(xp, device)
        t, p = xp.astype(t, cdt), xp.astype(p, cdt)
        (lo_t, hi_t), (lo_p, hi_p) = adapter.minmax(t), adapter.minmax(p)
        lo_t, hi_t, lo_p, hi_p = (int(v) for v in (lo_t, hi_t, lo_p, hi_p))
        rows, cols = hi_t - lo_t + 1, hi_p - lo_p + 1
        if rows * cols <= max(DENSE_CELLS, 4 * t.shape[0]):
            return matrix_table(dense_counts(t - lo_t, p - lo_p, rows, cols, xp=xp), xp=xp)
    return runs_table(t, p, xp=xp, device=device)
