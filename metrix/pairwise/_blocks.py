"""Distances of a block of rows of ``X`` against all rows of ``Y``, as scikit-learn
computes them: the row-block machinery of the pairwise functions, of
``pairwise_distances_argmin_min`` and of the silhouette.

A :class:`Distances` object is made once per call (row norms, normalised or
centred copies of ``X`` and ``Y``); ``block(start, stop)`` then returns the
``(stop - start, M)`` distances of rows ``start:stop`` of ``X`` to every row of
``Y`` (``Y=None``: of ``X`` itself), and ``nearest(start, stop)`` the index and
distance of each such row's nearest row of ``Y`` without the block being kept.
The callers read the distance matrix one block at a time, so an ``N x M``
matrix exists only where the caller returns it.

* ``"euclidean"`` / ``"l2"``: ``sqrt(max(||x||^2 - 2 x.y + ||y||^2, 0))``,
  scikit-learn's ``euclidean_distances`` expansion, summed in its order
  (``-2`` folded into the matmul's right operand: the same bits).  float32
  data are either upcast to the widest float one block at a time
  (``upcast=True``: scikit-learn's ``_euclidean_distances_upcast``) or
  centred first (distances do not move; the expansion then cancels far less).
* ``"sqeuclidean"``: the same expansion, unsquared (centred unless upcast).
* ``"cosine"``: ``clip(1 - x.y / (||x|| ||y||), 0, 2)``, rows of norm below
  ``10 eps`` left unscaled (scikit-learn's ``normalize``).
* ``"manhattan"`` / ``"cityblock"`` / ``"l1"``, ``"chebyshev"``, ``"minkowski"``
  (``p``, weights ``w``) and ``"additive_chi2"``: from the ``(B, M, D)``
  differences, ``B`` kept small; so are SciPy's / ``DistanceMetric``'s
  ``"seuclidean"`` (``V``), ``"mahalanobis"`` (``VI``), ``"hamming"``,
  ``"canberra"``, ``"braycurtis"`` and ``"haversine"`` (:data:`FORMULAS`, one
  definition each, shared by ``pairwise_distances`` and ``DistanceMetric``).
* ``DistanceMetric``'s boolean metrics (``"jaccard"``, ``"dice"``, ...,
  :data:`BOOLEAN_METRICS`) and SciPy's (:data:`SCIPY_BOOLEAN_METRICS`, with
  ``"yule"``): from the counts of coordinates non-zero in both rows (one
  matrix product of the ``x != 0`` indicators) and in each row; exact
  integers in the float of the block, so each distance is SciPy's one
  division of the same integers, bit for bit.  SciPy's weights ``w``: the
  weighted counts ``sum_k w_k x_k y_k`` (and of ``x`` only, ``y`` only,
  neither), one product of the weighted indicators each (within a few ulps
  of SciPy's sums; 0 / 0 as SciPy's ``cdist``: NaN for ``"dice"``,
  ``"rogerstanimoto"``, ``"russellrao"`` and ``"sokalsneath"``, 0 for
  ``"jaccard"`` and ``"yule"``).
* ``"correlation"``: SciPy's, ``1 - clip(x'.y' / (||x'|| ||y'||), -1, 1)`` of
  the rows centred on their own means (NaN for a constant row), the rows
  scaled to unit norm once; weighted (``w``): SciPy's weighted means and
  products, the centred rows scaled by ``sqrt(w / sum w)``.
* ``"precomputed"``: the rows of ``X`` itself.
"""

from __future__ import annotations

import math

from .._core.namespace import device_of, max_float_dtype
from ..backends import ops

__all__ = ["EXPANSION_METRICS", "BROADCAST_METRICS", "SUPPORTED_METRICS", "Distances",
           "row_slices", "check_metric_kwds", "FORMULA_METRICS", "BOOLEAN_METRICS",
           "FORMULAS", "haversine_rdist_to_dist", "SCIPY_BOOLEAN_METRICS",
           "nan_first_argmin_min", "heap_argmin_min"]

EXPANSION_METRICS = frozenset({"euclidean", "l2", "sqeuclidean", "cosine"})
#: the metrics of :data:`FORMULAS` (their parameters: ``Distances(params=...)``)
FORMULA_METRICS = frozenset({"seuclidean", "mahalanobis", "hamming", "canberra", "braycurtis",
                             "haversine"})
BROADCAST_METRICS = frozenset({"manhattan", "cityblock", "l1", "chebyshev",
                               "minkowski"}) | FORMULA_METRICS
#: ``DistanceMetric``'s metrics of the ``x != 0`` indicators (``B x M`` products)
BOOLEAN_METRICS = frozenset({"jaccard", "matching", "dice", "kulsinski", "rogerstanimoto",
                             "russellrao", "sokalmichener", "sokalsneath"})
#: SciPy's boolean metrics of ``pairwise_distances`` (scikit-learn's
#: ``PAIRWISE_BOOLEAN_FUNCTIONS`` with SciPy 1.17: its data converted to bool)
SCIPY_BOOLEAN_METRICS = frozenset({"dice", "jaccard", "rogerstanimoto", "russellrao",
                                   "sokalsneath", "yule"})
#: the metrics that take no parameter arrays (the silhouette's)
SUPPORTED_METRICS = EXPANSION_METRICS | (BROADCAST_METRICS - FORMULA_METRICS) | {"precomputed"}
_EUCLIDEAN = frozenset({"euclidean", "l2", "sqeuclidean"})

#: the keyword arguments each metric takes (scikit-learn passes ``**kwds`` on)
_METRIC_KWDS = {"minkowski": {"p"}}
#: the scikit-learn function named in the error for an unknown keyword argument
_FUNCTION_NAMES = {"euclidean": "euclidean_distances", "l2": "euclidean_distances",
                   "cosine": "cosine_distances", "manhattan": "manhattan_distances",
                   "cityblock": "manhattan_distances", "l1": "manhattan_distances"}


def check_metric_kwds(metric, kwds):
    """Raise scikit-learn's ``TypeError`` for a keyword the distance does not take."""
    if metric == "precomputed":
        return
    allowed = _METRIC_KWDS.get(metric, set())
    for key in kwds:
        if key not in allowed:
            name = _FUNCTION_NAMES.get(metric, "cdist")
            raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")


def row_slices(n: int, rows: int):
    """``(start, stop)`` of consecutive blocks of ``rows`` rows covering ``0..n``."""
    rows = max(1, int(rows))
    return [(start, min(n, start + rows)) for start in range(0, n, rows)]


class Distances:
    """Blocks of the distance matrix of ``X`` and ``Y`` (see the module docstring).

    ``X`` (and ``Y``) are 2-D and already of the working float dtype (or, for
    ``"precomputed"``, the distance matrix in that dtype).  ``Y=None``: the
    distances of ``X`` to itself; ``zero_self`` then says whether the
    distance of a row to itself is exactly zero (every metric but
    ``"precomputed"``): :meth:`self_distances` gives the value the block holds
    there, for the caller to subtract or replace.  ``x_sq`` / ``y_sq``: the
    squared row norms for the euclidean metrics, when the caller has them
    (scikit-learn's ``X_norm_squared`` / ``Y_norm_squared``; no centring then).
    ``centre=False``: float64 euclidean expansions summed from the raw rows
    exactly as scikit-learn sums them (no centring of ``"sqeuclidean"``).
    ``params``: the arrays of the metric (``V``, ``VI``, ``w``: in ``X``'s
    namespace, device and dtype) and ``braycurtis_scipy`` (SciPy's
    denominator ``sum |x + y|``, else ``DistanceMetric``'s ``sum |x| + |y|``).
    """

    def __init__(self, X, metric, *, xp, Y=None, p=2, upcast=False, x_sq=None, y_sq=None,
                 centre=True, params=None):
        self.xp = xp
        self.params = {} if params is None else dict(params)
        self.metric = metric
        self.same = Y is None
        self.n = int(X.shape[0])
        self.zero_self = self.same and metric != "precomputed"
        self.dtype = X.dtype
        self.work = None  # the dtype blocks are computed in, where not X's
        self.p = p
        Y = X if Y is None else Y
        self.m = int(Y.shape[0])
        self.sq_x = self.sq_y = None
        if metric in _EUCLIDEAN:
            X, Y = self._euclidean_operands(X, Y, upcast, x_sq, y_sq, centre)
        elif metric == "cosine":
            X = _normalize(X, xp)
            Y = X if self.same else _normalize(Y, xp)
        elif metric == "correlation":  # SciPy's: rows centred on their means, unit norm
            w = self.params.get("w")
            X = _centre_rows(X, xp, w)
            Y = X if self.same else _centre_rows(Y, xp, w)
        self.X, self.Y = X, Y
        self.YT = None
        if metric in EXPANSION_METRICS or metric == "correlation":
            self.YT = xp.permute_dims(Y, (1, 0))
            if metric in _EUCLIDEAN:  # x.(-2 y) is -2 (x.y) bit for bit: one pass saved
                self.YT = -2.0 * self.YT

    def _euclidean_operands(self, X, Y, upcast, x_sq, y_sq, centre):
        xp = self.xp
        wide = max_float_dtype(xp, device_of(X))
        if upcast and X.dtype != wide:
            # scikit-learn's float32 path: X upcast one block at a time, Y once
            self.work = wide
            Y = xp.astype(Y, wide)
            self.sq_x = x_sq
            self.sq_y = xp.sum(Y * Y, axis=1) if y_sq is None else y_sq
            return X, Y
        if centre and x_sq is None and y_sq is None and (
                self.metric == "sqeuclidean" or X.dtype != xp.float64):
            mean = xp.mean(X, axis=0, keepdims=True)
            X = X - mean
            Y = X if self.same else Y - mean
        self.sq_x = xp.sum(X * X, axis=1) if x_sq is None else x_sq
        if y_sq is not None:
            self.sq_y = y_sq
        else:
            self.sq_y = self.sq_x if self.same and x_sq is None else xp.sum(Y * Y, axis=1)
        return X, Y

    def rows_per_block(self, budget_bytes: int, *, temporaries: int = 3) -> int:
        """How many rows a block of about ``budget_bytes`` holds (at least 1).

        The expansion metrics hold about ``temporaries`` ``B x M`` arrays at
        once (of the widest float when upcasting; :meth:`nearest`'s ranking
        about one), the broadcast ones two (chi2: four) ``B x M x D``.
        """
        wide = self.work if self.work is not None else self.dtype
        item = 4 if wide == self.xp.float32 else 8
        per_row = self.m * item * temporaries
        if self.metric in BROADCAST_METRICS or self.metric == "additive_chi2":
            per_row = self.m * int(self.X.shape[1]) * item * (
                4 if self.metric == "additive_chi2" else 2)
        # Python ints from the shapes and the budget: no array is read
        return int(max(1, min(self.n, budget_bytes // max(per_row, 1))))

    def _euclidean_rows(self, start, stop):
        """The block of ``X`` (upcast where asked) and its squared norms."""
        xp = self.xp
        Xb = self.X[start:stop, ...]
        if self.work is not None:
            Xb = xp.astype(Xb, self.work)
            if self.sq_x is None:
                return Xb, xp.sum(Xb * Xb, axis=1)
        return Xb, self.sq_x[start:stop]

    def block(self, start: int, stop: int, *, first: int = 0):
        """Distances of rows ``start:stop`` of ``X`` to the rows ``first:`` of ``Y``,
        ``(B, M - first)``."""
        xp, metric = self.xp, self.metric
        if metric == "precomputed":
            return self.X[start:stop, first:]
        YT = self.YT if first == 0 or self.YT is None else self.YT[:, first:]
        if metric == "cosine":
            return xp.clip(1.0 - self.X[start:stop, ...] @ YT, 0.0, 2.0)
        if metric == "correlation":  # SciPy's clip of the cosine to [-1, 1]
            return 1.0 - xp.clip(self.X[start:stop, ...] @ YT, -1.0, 1.0)
        if metric in _EUCLIDEAN:
            Xb, sq = self._euclidean_rows(start, stop)
            return ops(xp).expansion_distances(
                Xb, YT, sq, self.sq_y[first:], squared=metric == "sqeuclidean",
                dtype=None if self.work is None else self.dtype)
        Xb = self.X[start:stop, ...][:, None, :]
        Y = self.Y[None, first:, :]
        if metric == "additive_chi2":
            total = Xb + Y
            zero = total == 0
            diff = Xb - Y
            ratio = (diff * diff) / xp.where(zero, xp.ones_like(total), total)
            return -xp.sum(xp.where(zero, xp.zeros_like(ratio), ratio), axis=2)
        formula = FORMULAS.get(metric)
        if formula is not None:
            return formula(Xb, Y, xp, **self.params)
        diff = xp.abs(Xb - Y)
        p = self.p
        w = self.params.get("w")
        if metric == "chebyshev" or (metric == "minkowski" and math.isinf(p)):
            if w is not None:  # SciPy's: the coordinates of zero weight left out
                diff = xp.where(w > 0, diff, xp.zeros_like(diff))
            return xp.max(diff, axis=2)
        if metric != "minkowski" or (p == 1 and w is None):
            return xp.sum(diff, axis=2)
        powered = diff ** p if w is None else w * diff ** p
        return xp.sum(powered, axis=2) ** (1.0 / p)

    def nearest(self, start: int, stop: int, *, squared=False):
        """``(index, distance)`` of the nearest row of ``Y`` to each row
        ``start:stop`` of ``X`` (the first on ties), the distance rounded to
        ``X``'s float and returned in the widest float (scikit-learn's dtypes;
        cosine: ``X``'s float).  Euclidean: ranked on ``||y||^2 - 2 x.y`` (scikit-learn's
        ``ArgKmin`` surrogate, the adapter's ``expansion_argmin``: NumPy and
        torch CPU screen it in float32, float64 where the screen cannot
        separate), ``||x||^2`` added to the minimum only.
        ``squared``: squared euclidean distances."""
        xp = self.xp
        a = ops(xp)
        if self.metric in ("euclidean", "l2"):
            Xb, sq = self._euclidean_rows(start, stop)
            idx, low = a.expansion_argmin(Xb, self.YT, self.sq_y)
            d2 = xp.clip(low + sq, 0.0, None)
            vals = d2 if squared else xp.sqrt(d2)
        else:
            idx, vals = a.row_argmin_min(self.block(start, stop))
        if vals.dtype != self.dtype:  # scikit-learn's float32 values: rounded to float32
            vals = xp.astype(vals, self.dtype)
        if self.metric == "cosine":  # not an ``ArgKmin`` metric: the distances' dtype
            return idx, vals
        wide = max_float_dtype(xp, device_of(vals))
        return idx, (vals if vals.dtype == wide else xp.astype(vals, wide))

    def self_distances(self, D, start: int):
        """The entries ``D[i, start + i]`` of a block ``D`` (the rows' own distances)."""
        xp = self.xp
        b, n = D.shape
        idx = xp.arange(b, device=device_of(D)) * (n + 1) + start
        return xp.take(xp.reshape(D, (-1,)), idx)

    def zero_diagonal(self, D, start: int):
        """A fresh block ``D`` of rows ``start:`` with its entries ``D[i, start + i]``
        zero (scikit-learn zeroes the distance of a row to itself)."""
        return ops(self.xp).zero_diagonal(D, start)


def nan_first_argmin_min(D, xp):
    """``(argmin, min)`` of each row of the block ``D`` as NumPy's ``argmin``
    gives them: a row holding NaN its first NaN (and NaN), else its first
    minimum (whatever a library's own ``argmin`` does with NaN)."""
    nan = xp.isnan(D)
    first_nan = xp.argmax(xp.astype(nan, xp.int32), axis=1)
    i, v = ops(xp).row_argmin_min(xp.where(nan, xp.full_like(D, math.inf), D))
    has_nan = xp.any(nan, axis=1)
    return (xp.where(has_nan, xp.astype(first_nan, i.dtype), i),
            xp.where(has_nan, xp.full_like(v, math.nan), v))


def heap_argmin_min(D, xp):
    """``(argmin, min)`` of each row of the block ``D`` as scikit-learn's ``ArgKmin``
    (``k=1``) scans it: a value replaces the one kept unless it is ``>=`` it, so
    the first minimum on ties, and a NaN is kept until the next value replaces
    it: the first minimum of the values after a row's last NaN (the first of
    them where all are infinite; the last NaN itself where it ends the row)."""
    nan = xp.isnan(D)
    m = int(D.shape[1])
    cols = xp.arange(m, device=device_of(D))[None, :]
    none = xp.full_like(cols, -1)
    last = xp.max(xp.where(nan, cols, none), axis=1)
    after = cols > last[:, None]
    inf = xp.full_like(D, math.inf)
    i, v = ops(xp).row_argmin_min(xp.where(after, D, inf))
    found = last >= 0
    i = xp.where(found & (v == math.inf), xp.astype(xp.clip(last + 1, None, m - 1), i.dtype), i)
    return i, xp.where(found & (last == m - 1), xp.full_like(v, math.nan), v)


def _normalize(X, xp):
    """scikit-learn's ``normalize`` (l2 rows; norms below ``10 eps`` count as 1)."""
    norms = xp.sqrt(xp.sum(X * X, axis=1))
    eps = xp.finfo(X.dtype).eps
    norms = xp.where(norms < 10 * eps, xp.ones_like(norms), norms)
    return X / norms[:, None]


def _centre_rows(X, xp, w=None):
    """Rows less their means, scaled to unit norm; a constant row (norm 0) all
    NaN, so its correlations are NaN as SciPy's ``0 / 0``.  Weights ``w``
    (SciPy's ``correlation(u, v, w)``): ``w / sum w`` gives the means
    ``x . w`` and the products ``sum w x y``, so the centred rows are scaled by
    ``sqrt(w / sum w)`` before their norms (all NaN where every weight is 0)."""
    if w is None:
        X = X - xp.mean(X, axis=1, keepdims=True)
    else:
        w = w / xp.sum(w)
        X = (X - (X @ w)[:, None]) * xp.sqrt(w)
    norms = xp.sqrt(xp.sum(X * X, axis=1))
    return X / xp.where(norms == 0, xp.full_like(norms, math.nan), norms)[:, None]


# -- the metrics of ``FORMULAS``: ``(B, 1, D)`` rows against ``(1, M, D)`` rows ----------


def _seuclidean(Xb, Y, xp, *, V):
    """``sqrt(sum((x - y)^2 / V))``."""
    diff = Xb - Y
    return xp.sqrt(xp.sum(diff * diff / V, axis=2))


def _mahalanobis(Xb, Y, xp, *, VI):
    """``sqrt((x - y) VI (x - y)^T)``."""
    diff = Xb - Y
    return xp.sqrt(xp.sum((diff @ VI) * diff, axis=2))


def _weighted(terms, w):
    """``terms`` times SciPy's weights ``w`` (none: as they are)."""
    return terms if w is None else w * terms


def _hamming(Xb, Y, xp, *, w=None):
    """The fraction of coordinates that differ (weighted: ``sum w (x != y) / sum w``)."""
    unequal = _weighted(xp.astype(Xb != Y, Xb.dtype), w)
    return xp.sum(unequal, axis=2) / (Xb.shape[2] if w is None else xp.sum(w))


def _canberra(Xb, Y, xp, *, w=None):
    """``sum(w |x - y| / (|x| + |y|))``, the terms of ``0 / 0`` left out."""
    den = xp.abs(Xb) + xp.abs(Y)
    pos = den > 0
    terms = _weighted(xp.abs(Xb - Y) / xp.where(pos, den, xp.ones_like(den)), w)
    return xp.sum(xp.where(pos, terms, xp.zeros_like(terms)), axis=2)


def _divide(num, den, xp, *, empty):
    """``num / den``, ``empty`` (0 or NaN) where ``den`` is 0 (no warning)."""
    zero = den == 0
    ratio = num / xp.where(zero, xp.ones_like(den), den)
    return xp.where(zero, xp.full_like(ratio, empty), ratio)


def _braycurtis(Xb, Y, xp, *, braycurtis_scipy=False, w=None):
    """``sum w|x - y| / sum w|x + y|`` (SciPy's; NaN for ``0 / 0``, inf for ``d / 0``)
    or ``sum|x - y| / sum(|x| + |y|)`` (``DistanceMetric``'s; 0 for ``0 / 0``)."""
    num = xp.sum(_weighted(xp.abs(Xb - Y), w), axis=2)
    den = xp.sum(_weighted(xp.abs(Xb + Y), w) if braycurtis_scipy
                 else xp.abs(Xb) + xp.abs(Y), axis=2)
    if braycurtis_scipy:  # IEEE: NaN for 0 / 0, inf for x = -y (or weights 0) and num > 0
        return ops(xp).ieee_divide(num, den)
    return _divide(num, den, xp, empty=0.0)


def _haversine(Xb, Y, xp):
    """Great-circle angle of (latitude, longitude) rows in radians:
    ``2 arcsin(sqrt(sin^2(dlat / 2) + cos(lat_x) cos(lat_y) sin^2(dlon / 2)))``."""
    x0, x1 = Xb[:, :, 0], Xb[:, :, 1]
    y0, y1 = Y[:, :, 0], Y[:, :, 1]
    s0 = xp.sin(0.5 * (x0 - y0))
    s1 = xp.sin(0.5 * (x1 - y1))
    return haversine_rdist_to_dist(s0 * s0 + xp.cos(x0) * xp.cos(y0) * s1 * s1, xp)


def haversine_rdist_to_dist(rdist, xp):
    """The haversine distance of its surrogate: ``2 arcsin(sqrt(rdist))``."""
    return 2.0 * xp.asin(xp.sqrt(rdist))


def _row_counts(Xb, Y, xp, w=None, *, ff=False):
    """``(n_tt, n_tf, n_ft, n_ff, n)``: the coordinates non-zero in both rows, in
    the row of ``X`` only, in the row of ``Y`` only, in neither (``ff=True``,
    else None; ``B x M``) and their number (SciPy's counts).

    Unweighted: one product of the ``x != 0`` indicators, the rest from the
    row sums, exact integers in ``Xb``'s float.  Weighted (SciPy's ``w``):
    ``n_tt = sum_k w_k x_k y_k`` and so on, each a product of the weighted
    indicators of one side with the other's (no difference of sums, so no
    cancellation), ``n = sum w``."""
    a = xp.astype(Xb[:, 0, :] != 0, Xb.dtype)
    b = xp.astype(Y[0, ...] != 0, Xb.dtype)
    bT = xp.permute_dims(b, (1, 0))
    wa = _weighted(a, w)
    tt = wa @ bT
    if w is None:
        nx, ny, d = xp.sum(a, axis=1)[:, None], xp.sum(b, axis=1)[None, :], Xb.shape[2]
        return tt, nx - tt, ny - tt, ((d - nx) - ny) + tt if ff else None, d
    w_not_a = w * (1.0 - a)
    not_bT = 1.0 - bT
    return (tt, wa @ not_bT, w_not_a @ bT, w_not_a @ not_bT if ff else None, xp.sum(w))


def _counts(Xb, Y, xp, w=None):
    """``(n_tt, n_neq, n)``: the coordinates non-zero in both rows, in one only, and
    the number of coordinates (weighted: the sums of their weights ``w``)."""
    tt, tf, ft, _, d = _row_counts(Xb, Y, xp, w)
    return tt, tf + ft, d


def _jaccard(Xb, Y, xp, w=None):
    """``n_neq / (n_tt + n_neq)``, 0 for two all-zero rows."""
    tt, neq, _ = _counts(Xb, Y, xp, w)
    return _divide(neq, tt + neq, xp, empty=0.0)


def _matching(Xb, Y, xp):
    """``n_neq / D``."""
    _, neq, d = _counts(Xb, Y, xp)
    return neq / d


def _dice(Xb, Y, xp, w=None):
    """``n_neq / (2 n_tt + n_neq)`` (NaN for two all-zero rows)."""
    tt, neq, _ = _counts(Xb, Y, xp, w)
    return ops(xp).ieee_divide(neq, 2.0 * tt + neq)  # 0 / 0: NaN


def _kulsinski(Xb, Y, xp):
    """``(n_neq - n_tt + D) / (n_neq + D)``."""
    tt, neq, d = _counts(Xb, Y, xp)
    return (neq - tt + d) / (neq + d)


def _rogerstanimoto(Xb, Y, xp, w=None):
    """``2 n_neq / (n + n_neq)`` (also ``"sokalmichener"``; NaN where every weight
    is 0)."""
    _, neq, d = _counts(Xb, Y, xp, w)
    return ops(xp).ieee_divide(2.0 * neq, d + neq)


def _russellrao(Xb, Y, xp, w=None):
    """``(n - n_tt) / n`` (NaN where every weight is 0)."""
    tt, _, d = _counts(Xb, Y, xp, w)
    return ops(xp).ieee_divide(d - tt, d + xp.zeros_like(tt))


def _sokalsneath(Xb, Y, xp, w=None):
    """``n_neq / (n_tt / 2 + n_neq)`` (NaN where it is ``0 / 0``: SciPy's ``cdist``
    and ``pdist``, weighted or not; its one-pair function raises instead)."""
    tt, neq, _ = _counts(Xb, Y, xp, w)
    return ops(xp).ieee_divide(neq, 0.5 * tt + neq)  # 0 / 0: NaN


def _yule(Xb, Y, xp, w=None):
    """``2 n_tf n_ft / (n_tt n_ff + n_tf n_ft)``, 0 where ``n_tf n_ft`` is 0 (SciPy's)."""
    tt, tf, ft, ff, _ = _row_counts(Xb, Y, xp, w, ff=True)
    half = tf * ft
    return _divide(2.0 * half, tt * ff + half, xp, empty=0.0)


#: metric string -> ``formula(Xb, Y, xp, **params)`` (see :class:`Distances`)
FORMULAS = {"seuclidean": _seuclidean, "mahalanobis": _mahalanobis, "hamming": _hamming,
            "canberra": _canberra, "braycurtis": _braycurtis, "haversine": _haversine,
            "jaccard": _jaccard, "matching": _matching, "dice": _dice,
            "kulsinski": _kulsinski, "rogerstanimoto": _rogerstanimoto,
            "russellrao": _russellrao, "sokalmichener": _rogerstanimoto,
            "sokalsneath": _sokalsneath, "yule": _yule}
