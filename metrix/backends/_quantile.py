"""Weighted quantiles with scikit-learn's definition, in one sort per output.

:func:`weighted_quantile` reproduces ``sklearn.utils.stats._weighted_percentile``
(NumPy's ``"inverted_cdf"``; with ``average=True`` its
``"averaged_inverted_cdf"``) including its handling of ties, zero weights,
leading zero weights at ``q=0``, trailing zero weights, NaN values (weight 0)
and all-zero weights (NaN).  It is the generic body of the adapter op
``ops(xp).weighted_quantile``; a library adapter may override it.

Every output column is handled at once: one sort along axis 0 of the
``(n, k)`` array (a plain sort without weights, an argsort plus two gathers
with weights), one cumulative sum and a count against the rank for the
``searchsorted`` of each column.  Nothing is read on the host and every shape
is static, so it traces under ``jax.jit`` and ``torch.compile``.
"""

from __future__ import annotations

import functools
import math
import numbers

from .._core import namespace as _ns

__all__ = ["weighted_quantile"]


def weighted_quantile(x, q, *, weights=None, axis=0, average=False,
                      overwrite_input=False, xp=None, adapter):
    """Weighted quantile(s) of ``x`` along ``axis``, as scikit-learn defines them.

    For values sorted increasingly with weights :math:`w_{(i)}` and the
    cumulative weights :math:`C_i = \\sum_{j \\le i} w_{(j)}`, the rank is
    :math:`r = q\\,C_{n}` (``r`` is nudged above 0 when it is 0, so leading
    zero weights are skipped) and the quantile is :math:`x_{(i)}` with
    :math:`C_{i-1} < r \\le C_i` (``"inverted_cdf"``).  With ``average=True``,
    when :math:`r` equals :math:`C_i` (up to machine epsilon), the quantile is
    the mean of :math:`x_{(i)}` and the next value of non-zero weight
    (``"averaged_inverted_cdf"``; with unit weights this is the median at
    ``q=0.5``).

    Parameters
    ----------
    x : array of shape (n,) or (n, k)
        Values.
    q : float or sequence of float
        Probability level(s) in [0, 1].  The rank is formed as scikit-learn
        forms it from its percentile rank ``100 q``: ``(100 q) / 100 * C_n``.
    weights : array of shape (n,) or the shape of ``x``, default=None
        Non-negative weights; None means unit weights (a plain sort, no gather).
    axis : int, default=0
        Axis of the samples (``x`` is at most 2-D).
    average : bool, default=False
        Use the averaged inverted CDF.
    overwrite_input : bool, default=False
        Without weights, ``x`` may be sorted in place (as ``numpy.median``'s
        flag): pass True for a temporary the caller owns.
    xp : namespace, default=None
        The array namespace of ``x`` (inferred when None).

    Returns
    -------
    quantile : array
        0-d for 1-D ``x`` and scalar ``q``; ``(k,)`` for 2-D ``x`` and scalar
        ``q``; a trailing axis of length ``len(q)`` for a sequence ``q``.
        Float dtype of ``x`` (the widest float for integer ``x``); same
        namespace and device.  NaN where every weight is zero.

    References
    ----------
    .. [1] R. J. Hyndman and Y. Fan, "Sample quantiles in statistical packages",
           The American Statistician, 50(4), 1996.
    .. [2] scikit-learn, ``sklearn/utils/stats.py``, ``_weighted_percentile``.
    """
    if xp is None:
        xp, _ = _ns.get_namespace_and_device(x, weights)
    scalar_q = isinstance(q, numbers.Real)
    qs = [q] if scalar_q else list(q)
    for v in qs:
        if not 0 <= v <= 1:
            raise ValueError(f"Quantile levels must be in [0, 1], got {v!r}.")
    if x.ndim not in (1, 2):
        raise ValueError(f"x must be 1-D or 2-D, got {x.ndim}-D.")
    one_d = x.ndim == 1
    if not one_d and axis not in (0, -2):
        x = xp.moveaxis(x, axis, 0)
        if weights is not None and weights.ndim == 2:
            weights = xp.moveaxis(weights, axis, 0)
    device = _ns.device_of(x)
    if not xp.isdtype(x.dtype, "real floating"):
        x = xp.astype(x, _ns.max_float_dtype(xp, device))
    X = xp.reshape(x, (-1, 1)) if one_d else x
    n = int(X.shape[0])
    probs = [(float(v) * 100) / 100 for v in qs]  # scikit-learn's rank rounding
    if weights is None:
        cols = _unit_quantiles(X, probs, average, overwrite_input, xp=xp, adapter=adapter)
    else:
        cols = _weighted_quantiles(X, weights, probs, average, n, xp=xp, device=device,
                                   adapter=adapter)
    out = cols[0] if scalar_q else xp.stack(cols, axis=-1)   # (k,) or (k, p)
    if one_d:
        out = out[0, ...]
    return out


def _unit_index(n: int, p: float):
    """(i, j, above) of scikit-learn's rule for unit weights: C_i = i + 1, exact."""
    a = p * float(n)
    if a == 0:
        a = math.nextafter(0.0, 1.0)
    i = min(max(math.ceil(a) - 1, 0), n) if a > 1 else 0  # #{k in 1..n : k < a}
    i = min(i, n - 1)
    above = (float(i + 1) - a) > 2.220446049250313e-16  # float64 eps, as the reference
    return i, min(i + 1, n - 1), above


def _unit_quantiles(X, probs, average, overwrite, *, xp, adapter):
    """Unweighted: the order statistics at positions fixed by n and q (one sort)."""
    n = int(X.shape[0])
    idx = [_unit_index(n, p) for p in probs]
    ranks = sorted({r for i, j, above in idx for r in ((i,) if above or not average
                                                         else (i, j))})
    values = dict(zip(ranks, adapter.order_statistics(X, ranks, overwrite=overwrite)))
    return [values[i] if (above or not average) else (values[i] + values[j]) / 2
            for i, j, above in idx]


def _gather_rows(a, idx, xp):
    """``a[idx[c], c]`` for every column c (idx of shape (k,))."""
    return xp.take_along_axis(a, xp.reshape(idx, (1, -1)), axis=0)[0, :]


def _weighted_quantiles(X, weights, probs, average, n, *, xp, device, adapter):
    """One argsort per column and one gather of the weights; values are read only
    at the selected positions (as scikit-learn does).  One column: 1-D arrays
    throughout (flat takes, a real ``searchsorted``)."""
    acc = _ns.max_float_dtype(xp, device)
    k = int(X.shape[1])
    W = xp.reshape(weights, (-1, 1)) if weights.ndim == 1 else weights
    W = xp.astype(W, acc, copy=False)
    all_zero = xp.all(W == 0)
    if W.shape[1] != k:
        W = xp.broadcast_to(W, (n, k))
    if k == 1:
        X, W = X[:, 0], W[:, 0]
    # NaN sort last and their weight does not count (scikit-learn >= 1.7)
    zero = xp.zeros((), dtype=acc, device=device)
    W_eff = xp.where(xp.isnan(X), zero, W)
    order = xp.argsort(X, axis=0, stable=False)
    if k == 1:
        ws, gather = adapter.take(W_eff, order), adapter.take
    else:
        ws = xp.take_along_axis(W_eff, order, axis=0)
        gather = functools.partial(_gather_rows, xp=xp)
    cdf = xp.cumulative_sum(ws, axis=0)
    total = cdf[-1:] if k == 1 else cdf[-1, :]
    eps = xp.finfo(acc).eps

    def value_at(pos):  # x at sorted position pos[c] of each column
        return gather(X, gather(order, pos))

    cols = []
    for p in probs:
        a = p * total
        a = xp.where(a == 0, xp.nextafter(a, xp.ones_like(a)), a)
        i = xp.clip(_search(cdf, a, "left", xp=xp), max=n - 1)
        lo = value_at(i)
        if average:
            cdf_i = gather(cdf, i)
            above = (cdf_i - a) > eps
            plus = xp.clip(i + 1, max=n - 1)
            w_plus = gather(W, gather(order, plus))  # the original weight
            nxt = _search(cdf, cdf_i, "right", xp=xp)  # first index with C > C_i
            nxt = xp.where(nxt > n - 1, i, nxt)         # trailing zero weights
            j = xp.where(w_plus == 0, nxt, plus)
            val = xp.where(above, lo, (lo + value_at(j)) / 2)
        else:
            val = lo
        nan = xp.asarray(float("nan"), dtype=val.dtype, device=_ns.device_of(val))
        cols.append(xp.where(all_zero, nan, val))
    return cols


def _search(cdf, v, side, *, xp):
    """Per-column ``searchsorted(cdf[:, c], v[c], side)`` for non-decreasing cdf
    (a 1-D ``cdf``: one column)."""
    if cdf.ndim == 1:
        return xp.searchsorted(cdf, v, side=side)
    hit = (cdf < v[None, :]) if side == "left" else (cdf <= v[None, :])
    return xp.sum(xp.astype(hit, _ns.count_dtype(xp, _ns.device_of(cdf))), axis=0)
