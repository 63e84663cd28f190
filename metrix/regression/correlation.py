"""Correlation coefficients: Pearson's r and Spearman's rho (average ranks for ties).

Statistic, per output: the (weighted) centred second moments ``c_tt = sum w
(t - mean_t)^2``, ``c_pp`` and ``c_tp``, and whether either input is constant
(its minimum equals its maximum over the rows of non-zero weight).  The
one-shot functions centre in two passes (the weighted means first);
``metrix.stream.PearsonCorrCoef`` gets the same moments from its merged raw
sums, ``metrix.stream.SpearmanCorrCoef`` from the ranks of its exact buffer.

Formula (:func:`pearson_from_moments`, on every face):
``r = c_tp / sqrt(c_tt c_pp)`` clipped to [-1, 1]; NaN where an input is
constant (SciPy's ``pearsonr`` / ``spearmanr`` rule, which also warns;
TorchMetrics returns NaN there too, after a warning).  Spearman's rho is
Pearson's r of the average ranks (:func:`average_ranks`: tied values share
the mean of their ranks, as ``scipy.stats.rankdata``).

Results: 0-d for 1-D inputs, ``(n_outputs,)`` (one coefficient per column)
for 2-D inputs, in the namespace and on the device of the inputs (a Python
float for NumPy 1-D input).
"""

from __future__ import annotations

import math
from typing import Any

from .._core import namespace as _ns
from .._core.edge import metric_edge
from ._input import check_reg_targets

__all__ = ["pearson_corrcoef", "spearman_corrcoef"]


def pearson_from_moments(c_tt, c_pp, c_tp, constant, xp):
    """Pearson's r per output from the centred moments: ``c_tp / sqrt(c_tt c_pp)``
    clipped to [-1, 1]; NaN where ``constant`` (a boolean per output) or a
    variance is zero.  Every face's formula (no masked write, no host read)."""
    den = xp.sqrt(c_tt * c_pp)
    undefined = constant | (den == 0)
    r = c_tp / xp.where(undefined, xp.ones_like(den), den)
    r = xp.clip(r, -1.0, 1.0)
    return xp.where(undefined, xp.full_like(r, math.nan), r)


def centred_moments(t, p, w, xp):
    """``(c_tt, c_pp, c_tp, constant)`` of the columns of ``t`` and ``p`` (``(n, k)``,
    accumulation dtype) with row weights ``w`` (``(n,)`` or None): two passes
    (the weighted means, then the centred products); ``constant`` where a column
    of either input has one value over the rows of non-zero weight."""
    if w is None:
        mt, mp = xp.mean(t, axis=0), xp.mean(p, axis=0)
        wc = None
    else:
        wc = xp.reshape(w, (-1, 1))
        sw = xp.sum(w)
        mt, mp = xp.sum(wc * t, axis=0) / sw, xp.sum(wc * p, axis=0) / sw
    dt, dp = t - mt, p - mp
    if wc is not None:
        dt_w = wc * dt
        c_tt, c_tp = xp.sum(dt_w * dt, axis=0), xp.sum(dt_w * dp, axis=0)
        c_pp = xp.sum(wc * dp * dp, axis=0)
    else:
        c_tt, c_pp, c_tp = (xp.sum(dt * dt, axis=0), xp.sum(dp * dp, axis=0),
                            xp.sum(dt * dp, axis=0))
    return c_tt, c_pp, c_tp, _constant(t, wc, xp) | _constant(p, wc, xp)


def _constant(x, wc, xp):
    """Whether each column of ``x`` has one value over the rows of non-zero weight."""
    if wc is None:
        return xp.max(x, axis=0) == xp.min(x, axis=0)
    kept = wc != 0
    hi = xp.max(xp.where(kept, x, xp.full_like(x, -math.inf)), axis=0)
    lo = xp.min(xp.where(kept, x, xp.full_like(x, math.inf)), axis=0)
    return hi == lo


def average_ranks(x, xp, count=None):
    """1-based ranks of each column of ``x`` (``(n, k)``), ties sharing the mean of
    their ranks (``scipy.stats.rankdata(method="average")``), in ``x``'s float dtype.

    ``count`` (a 0-d integer array, optional): only values ranked among the
    ``count`` smallest of a column count as rows (an exact buffer whose free
    rows hold ``+inf``): a ``+inf`` value then ranks last among them.  One sort
    and two ``searchsorted`` per column (``k``, the declared outputs, is small).
    """
    n, k = x.shape
    # the columns one after the other (a copy for k > 1): each column contiguous
    flat = xp.reshape(x if k == 1 else xp.permute_dims(x, (1, 0)), (-1,))
    cols = []
    for j in range(k):
        col = flat[j * n:(j + 1) * n]
        ordered = xp.sort(col)
        lo = xp.searchsorted(ordered, col, side="left")
        hi = xp.searchsorted(ordered, col, side="right")
        if count is not None:
            hi = xp.minimum(hi, xp.astype(count, hi.dtype))
        cols.append(xp.astype(lo + hi + 1, x.dtype) / 2.0)
    return xp.stack(cols, axis=1)


def _targets(y_true, y_pred, sample_weight, validate, func):
    t = check_reg_targets(y_true, y_pred, sample_weight, None, validate=validate, func=func,
                          multioutput_param=False)
    if t.n_samples < 2:
        raise ValueError(f"{func} needs at least 2 samples, got {t.n_samples} (SciPy's "
                         "pearsonr / spearmanr raise for fewer).")
    return t


def _shaped(r, t, two_d):
    """Per output ``(k,)`` for 2-D input, 0-d for 1-D; in the output dtype."""
    xp = t.xp
    value = r if two_d else r[0]
    return _ns.to_output(xp.astype(value, t.out_dtype), xp)


def _two_d(y) -> bool:
    shape = getattr(y, "shape", None)
    if shape is not None:
        return len(shape) == 2
    return bool(len(y)) and isinstance(y[0], (list, tuple))  # a Python list: no array read


@metric_edge
def pearson_corrcoef(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                     validate: bool = True) -> Any:
    r"""Pearson correlation coefficient of each output (weighted with ``sample_weight``).

    .. math::

        r = \frac{\sum_i w_i (y_i - \bar y)(\hat y_i - \bar{\hat y})}
                 {\sqrt{\sum_i w_i (y_i - \bar y)^2 \sum_i w_i (\hat y_i - \bar{\hat y})^2}}

    with weighted means :math:`\bar y = \sum_i w_i y_i / \sum_i w_i`.  NaN
    where either input is constant (as ``scipy.stats.pearsonr``, without its
    warning).  Symmetric in its two arguments.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (``numpy.cov``'s ``aweights``).
    validate : bool, default=True
        Check the values (NaN / inf, all-zero weights; host reads).  With
        False nothing is read on the host.

    Returns
    -------
    r : float or array
        0-d for 1-D input (a Python float for NumPy), ``(n_outputs,)`` for
        2-D input, in the namespace and on the device of ``y_pred``.

    Raises
    ------
    ValueError
        Fewer than 2 samples, inputs of different lengths or outputs.

    See Also
    --------
    spearman_corrcoef : The correlation of the ranks.
    metrix.stream.PearsonCorrCoef : The streaming form (merged moments).

    References
    ----------
    .. [1] `scipy.stats.pearsonr
       <https://docs.scipy.org/doc/scipy/reference/generated/scipy.stats.pearsonr.html>`_.

    Examples
    --------
    >>> from metrix import pearson_corrcoef
    >>> round(pearson_corrcoef([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]), 6)
    0.8
    """
    two_d = _two_d(y_true)
    t = _targets(y_true, y_pred, sample_weight, validate, "pearson_corrcoef")
    xp = t.xp
    r = pearson_from_moments(*centred_moments(t.y_true, t.y_pred, t.sample_weight, xp), xp)
    return _shaped(r, t, two_d)


@metric_edge
def spearman_corrcoef(y_true: Any, y_pred: Any, *, validate: bool = True) -> Any:
    r"""Spearman rank correlation coefficient of each output.

    .. math::

        \rho = r(\mathrm{rank}(y), \mathrm{rank}(\hat y))

    Pearson's :math:`r` of the ranks, tied values sharing the mean of their
    ranks (as ``scipy.stats.spearmanr``).  NaN where either input is constant.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted values.
    validate : bool, default=True
        Check the values (NaN / inf; host reads).  With False nothing is read
        on the host.

    Returns
    -------
    rho : float or array
        0-d for 1-D input (a Python float for NumPy), ``(n_outputs,)`` for
        2-D input (one coefficient per column pair, not SciPy's matrix), in
        the namespace and on the device of ``y_pred``.

    Raises
    ------
    ValueError
        Fewer than 2 samples, inputs of different lengths or outputs.

    See Also
    --------
    pearson_corrcoef : The correlation of the values.
    metrix.stream.SpearmanCorrCoef : The streaming form (an exact buffer).

    References
    ----------
    .. [1] `scipy.stats.spearmanr
       <https://docs.scipy.org/doc/scipy/reference/generated/scipy.stats.spearmanr.html>`_.

    Examples
    --------
    >>> from metrix import spearman_corrcoef
    >>> round(spearman_corrcoef([1.0, 2.0, 3.0, 4.0], [1.0, 30.0, 20.0, 40.0]), 6)
    0.8
    """
    two_d = _two_d(y_true)
    t = _targets(y_true, y_pred, None, validate, "spearman_corrcoef")
    xp = t.xp
    rt, rp = average_ranks(t.y_true, xp), average_ranks(t.y_pred, xp)
    nan = xp.any(xp.isnan(t.y_true) | xp.isnan(t.y_pred), axis=0)
    r = pearson_from_moments(*centred_moments(rt, rp, None, xp), xp)
    return _shaped(xp.where(nan, xp.full_like(r, math.nan), r), t, two_d)
