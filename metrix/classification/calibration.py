"""Calibration of predicted probabilities: reliability curve and calibration error.

* :func:`calibration_curve`: scikit-learn's reliability diagram (the mean
  predicted probability and the fraction of positives per bin, empty bins
  left out), bins ``uniform`` or ``quantile``; its length depends on the data
  (eager only, as scikit-learn).
* :func:`calibration_error`: the expected (``l1``), root-mean-square
  (``l2``) or maximum (``max``) calibration error of TorchMetrics'
  ``binary_calibration_error`` / ``multiclass_calibration_error``.

**The statistic** of the calibration error is one histogram of ``n_bins + 1``
bins, three sums per bin: the weight (a count without ``sample_weight``),
the weighted confidences and the weighted accuracies, shape ``(n_bins + 1, 3)``
(:func:`calibration_histogram`: one ``searchsorted`` and one ``bincount``).
A sum, so it merges by addition: :class:`metrix.stream.CalibrationError`
keeps it as its state, and the one-shot function and the stream class both
end in :func:`calibration_error_from_histogram`.

**Binning**, as TorchMetrics (``torch.bucketize(conf, linspace(0, 1, n_bins
+ 1), right=True) - 1``): bin ``k`` holds the confidences in ``[e_k,
e_{k+1})``, left-closed, and a confidence of exactly 1.0 has a bin of its own
(bin ``n_bins``, TorchMetrics' extra bucket).  The edges ``e_k`` are
``torch.linspace``'s values in the confidences' dtype (:func:`bin_edges`:
its two-sided formula, rounded as it rounds), so a probability on an edge
falls where TorchMetrics puts it on every backend.

Binary input (1-D probabilities of the positive class): the confidence is
the probability itself and the accuracy is whether the sample is positive
(TorchMetrics' binary metric, not a top-label one).  Multiclass input
``(n, C)``: the confidence is the top probability and the accuracy whether
its class (the first maximum) is the true one.
"""

from __future__ import annotations

import functools
import math
import numbers
import struct
from fractions import Fraction
from typing import Any

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.edge import metric_edge
from .._core.typing import Array
from .._core.validation import assert_all_finite
from ..backends import _collectives as _coll
from ..backends import ops as _ops
from ..ranking._input import Inputs, check_pos_label, equals, unique_array

__all__ = ["calibration_curve", "calibration_error"]

NORMS = ("l1", "l2", "max")
_STRATEGIES = ("uniform", "quantile")


# -- parameters -----------------------------------------------------------------

def check_n_bins(n_bins, owner="calibration_error"):
    """``n_bins`` as an int >= 1 (scikit-learn's wording)."""
    if not isinstance(n_bins, numbers.Integral) or isinstance(n_bins, bool) or n_bins < 1:
        raise ValueError(f"The 'n_bins' parameter of {owner} must be an int in the range "
                         f"[1, inf). Got {n_bins!r} instead.")
    return int(n_bins)


def check_norm(norm):
    """``norm`` if it is one of :data:`NORMS`."""
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")
    return norm


# -- the statistic ----------------------------------------------------------------

def _round32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


@functools.lru_cache(maxsize=64)
def bin_edges(n_bins: int, single: bool) -> tuple:
    """The ``n_bins + 1`` edges of ``torch.linspace(0, 1, n_bins + 1)`` as Python
    floats, in float32 (``single``) or float64: ``k * step`` for the lower half,
    ``1 - (n_bins - k) * step`` (one rounding, as torch's fused multiply-add) for
    the upper half, ``step = 1 / n_bins`` rounded to the dtype."""
    rnd = _round32 if single else float
    step = rnd(1.0 / n_bins)
    half = (n_bins + 1) // 2
    # host arithmetic on Python numbers (the bin edges): no array is read
    return tuple(rnd(step * k) if k < half
                 else rnd(float(1 - Fraction(step) * (n_bins - k)))
                 for k in range(n_bins + 1))


_EDGES: dict = {}


def _edges_array(n_bins, conf, xp):
    """:func:`bin_edges` on ``conf``'s device in its dtype (cached per device while
    eager, so a training-loop update copies nothing to the device)."""
    device = _ns.device_of(conf)
    single = xp.finfo(conf.dtype).bits < 64
    key = (id(xp), str(device), single, n_bins)
    found = _EDGES.get(key)
    if found is not None:
        return found[1]
    edges = xp.asarray(bin_edges(n_bins, single), dtype=conf.dtype, device=device)
    if device is not None and not _coll.compiling():  # never cache a traced constant
        _EDGES[key] = (xp, edges)
    return edges


def confidence_bins(conf, n_bins, *, xp):
    """The bin ``0..n_bins`` of each confidence (module docstring): a value below
    0 is in bin 0; above 1 or NaN in bin ``n_bins`` (no host read)."""
    edges = _edges_array(n_bins, conf, xp)
    k = xp.searchsorted(edges, conf, side="right") - 1
    return xp.clip(k, 0, n_bins)


def calibration_histogram(conf, correct, weight, n_bins, *, xp, acc):
    """``(n_bins + 1, 3)`` sums per bin: weight, weighted confidence, weighted
    accuracy (``weight`` None: unit weights), in the float dtype ``acc``."""
    codes = confidence_bins(conf, n_bins, xp=xp)
    c = xp.astype(conf, acc)
    a = xp.astype(correct, acc)
    if weight is None:
        cols = xp.stack([xp.ones_like(c), c, a], axis=1)
    else:
        w = xp.astype(weight, acc)
        cols = xp.stack([w, w * c, w * a], axis=1)
    hist = _ops(xp).bincount(codes, length=n_bins + 1, weights=cols)
    return hist if hist.dtype == acc else xp.astype(hist, acc)


def calibration_error_from_histogram(hist, *, norm, xp):
    r"""The calibration error of per-bin sums ``hist`` (``(..., B, 3)``: weight,
    weighted confidence, weighted accuracy; leading axes are a batch).

    With :math:`b_k` the bin's share of the weight, :math:`c_k` and :math:`a_k`
    its mean confidence and accuracy (0 in an empty bin, as TorchMetrics):
    ``l1`` is :math:`\sum_k b_k |a_k - c_k|`, ``l2`` :math:`\sqrt{\sum_k b_k
    (a_k - c_k)^2}` and ``max`` :math:`\max_k |a_k - c_k|`.  NaN for ``l1`` /
    ``l2`` when the total weight is 0.
    """
    weight, s_conf, s_acc = hist[..., 0], hist[..., 1], hist[..., 2]
    conf = safe_divide(s_conf, weight, zero_value=0.0, xp=xp)
    accuracy = safe_divide(s_acc, weight, zero_value=0.0, xp=xp)
    gap = xp.abs(accuracy - conf)
    if norm == "max":
        return xp.max(gap, axis=-1)
    share = weight / xp.sum(weight, axis=-1, keepdims=True)
    if norm == "l1":
        return xp.sum(gap * share, axis=-1)
    return xp.sqrt(xp.sum(gap * gap * share, axis=-1))


def top_label(proba, y, *, xp):
    """``(confidence, correct)`` of ``(n, C)`` probabilities: the top probability
    and whether its class (the first maximum) is ``y``."""
    conf = xp.max(proba, axis=1)
    pred = xp.argmax(proba, axis=1)
    if xp.isdtype(y.dtype, "real floating"):
        pred = xp.astype(pred, y.dtype)
    elif y.dtype != pred.dtype:
        y = xp.astype(y, pred.dtype)
    return conf, pred == y


def confidence_dtype(p, xp, device):
    """Probabilities as floats of at least 32 bits (float16 / bfloat16 sums and
    edges lose whole bins)."""
    if not xp.isdtype(p.dtype, "real floating"):
        return xp.astype(p, _ns.max_float_dtype(xp, device))
    if xp.finfo(p.dtype).bits < 32:
        return xp.astype(p, xp.float32)
    return p


# -- calibration_error --------------------------------------------------------------

def _check_probabilities(p, xp, name):
    # host reads: validate=True only
    assert_all_finite(p, xp=xp, input_name=name)
    lo, hi = _ops(xp).minmax(xp.reshape(p, (-1,)))
    if not (bool(lo >= 0) and bool(hi <= 1)):
        raise ValueError(f"{name} has values outside [0, 1] (min {float(lo):.6g}, max "
                         f"{float(hi):.6g}): calibration_error takes probabilities; apply "
                         "a sigmoid (binary) or a softmax (multiclass) to logits first.")


def _labels_1d(inp):
    """``y_true`` as a 1-D array (an ``(n, 1)`` column flattened), else scikit-learn's error."""
    y = inp.y
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.reshape(-1) if inp.host_y else inp.xp.reshape(y, (-1,))
    if y.ndim != 1:
        raise ValueError(f"y_true should be a 1d array, got an array of shape "
                         f"{tuple(y.shape)} instead.")
    return y


def _binary_correct(inp, pos_label, validate):
    """Whether each sample is positive (binary input)."""
    inp.y = _labels_1d(inp)
    if validate:
        pos_label = check_pos_label(inp, pos_label)
        labels = unique_array(inp)
        if labels.shape[0] > 2:
            raise ValueError(f"Only binary classification is supported. Provided labels "
                             f"{labels}.")
    elif pos_label is None:
        pos_label = 1
    return equals(inp, pos_label)


def _multiclass_correct(inp, conf_proba, validate):
    """``(confidence, correct)`` of multiclass input (top label)."""
    if inp.host_y:
        raise ValueError("multiclass calibration_error takes y_true as class indices "
                         "0..n_classes-1 (the columns of y_prob), not strings")
    xp, y = inp.xp, _labels_1d(inp)
    if xp.isdtype(y.dtype, "bool"):
        y = xp.astype(y, _ns.count_dtype(xp, inp.device))
    c = conf_proba.shape[1]
    if validate:  # host read
        ok = (y >= 0) & (y < c)
        if xp.isdtype(y.dtype, "real floating"):
            ok = ok & (y == xp.floor(y))
        # host read: validate=True only (the one-shot checks)
        if not bool(xp.all(ok)):
            raise ValueError(f"y_true values must be class indices in 0..{c - 1} (the "
                             "columns of y_prob) for multiclass calibration_error.")
    return top_label(conf_proba, y, xp=xp)


@metric_edge
def calibration_error(
    y_true: Any,
    y_prob: Any,
    *,
    n_bins: int = 15,
    norm: str = "l1",
    sample_weight: Any = None,
    pos_label: int | float | bool | str | None = None,
    validate: bool = True,
) -> Array:
    r"""Calibration error of predicted probabilities (expected, RMS or maximum).

    The confidences are binned in ``n_bins`` equal bins on [0, 1] (plus one
    bin for a confidence of exactly 1.0, as TorchMetrics); with :math:`b_k` the
    share of the weight in bin :math:`k`, :math:`c_k` its mean confidence and
    :math:`a_k` its accuracy:

    .. math:: \mathrm{ECE} = \sum_k b_k |a_k - c_k|, \quad
              \mathrm{RMSCE} = \sqrt{\sum_k b_k (a_k - c_k)^2}, \quad
              \mathrm{MCE} = \max_k |a_k - c_k|

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Binary labels (1-D ``y_prob``; with labels other than {0, 1} / {-1, 1}
        give ``pos_label``), or class indices ``0..C-1`` (2-D ``y_prob``).
    y_prob : array of shape (n_samples,) or (n_samples, n_classes)
        1-D: the probability of the positive class (the confidence is that
        probability and the accuracy whether the sample is positive); 2-D:
        class probabilities (top label: the confidence is the highest
        probability and the accuracy whether its class is the true one).
    n_bins : int, default=15
        Number of equal-width bins on [0, 1].
    norm : {"l1", "l2", "max"}, default="l1"
        ``l1``: expected calibration error; ``l2``: root-mean-square
        calibration error; ``max``: maximum calibration error.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights (each bin's share and means are weighted).
    pos_label : int, float, bool or str, default=None
        The positive class of binary input (1 for {0, 1} and {-1, 1}).
    validate : bool, default=True
        Check finiteness, the [0, 1] range and the labels (reads values; a
        host sync).  With ``validate=False`` nothing is read.

    Returns
    -------
    error : 0-d array
        The calibration error, on the inputs' device, in ``y_prob``'s float
        dtype (a Python float for NumPy input).

    See Also
    --------
    calibration_curve : The reliability curve.
    metrix.stream.CalibrationError : The same error over batches.

    Notes
    -----
    Equal to TorchMetrics' ``binary_calibration_error`` (1-D) and
    ``multiclass_calibration_error`` (2-D) on probabilities, with the same
    binning (bin ``k`` is ``[e_k, e_{k+1})`` with ``torch.linspace``'s edges).
    TorchMetrics applies a sigmoid / softmax to scores outside [0, 1]; here
    they raise ``ValueError`` (``validate=True``).  TorchMetrics has no sample
    weights.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun, K. Q. Weinberger, "On Calibration of
       Modern Neural Networks", ICML 2017.
    .. [2] TorchMetrics, ``torchmetrics.functional.classification.calibration_error``.

    Examples
    --------
    >>> import metrix
    >>> round(metrix.calibration_error([0, 1, 1, 0], [0.25, 0.75, 0.6, 0.1], n_bins=5), 4)
    0.25
    """
    n_bins = check_n_bins(n_bins)
    norm = check_norm(norm)
    inp = Inputs(y_true, y_prob, sample_weight, validate=validate, nonzero_weights=False)
    xp = inp.xp
    p = confidence_dtype(_ns.asarray(y_prob, xp=xp, device=inp.device), xp, inp.device)
    if p.ndim == 2 and p.shape[1] == 1:
        p = xp.reshape(p, (-1,))
    if p.ndim not in (1, 2):
        raise ValueError(f"y_prob must be 1-D or 2-D, got shape {tuple(p.shape)}")
    if validate:
        _check_probabilities(p, xp, "y_prob")
    if p.ndim == 1:
        conf, correct = p, _binary_correct(inp, pos_label, validate)
    else:
        conf, correct = _multiclass_correct(inp, p, validate)
    hist = calibration_histogram(conf, correct, inp.weight, n_bins, xp=xp, acc=inp.acc)
    return inp.out(calibration_error_from_histogram(hist, norm=norm, xp=xp))


# -- calibration_curve ---------------------------------------------------------------

def _uniform_edges(n_bins):
    """``numpy.linspace(0, 1, n_bins + 1)``: ``k * (1 / n_bins)``, the last 1.0."""
    step = 1.0 / n_bins
    return [k * step for k in range(n_bins)] + [1.0]


def _quantile_edges(p, n_bins, xp):
    """``numpy.percentile(p, linspace(0, 1, n_bins + 1) * 100)`` (method "linear"),
    its arithmetic step by step: the same edges to the last bit."""
    n = p.shape[0]
    prev, nxt, gamma = [], [], []
    for q in _uniform_edges(n_bins):
        q = (q * 100) / 100
        v = (n - 1) * q
        lo = math.floor(v)
        if v >= n - 1:
            lo = hi = n - 1
        elif v < 0:
            lo = hi = 0
        else:
            hi = lo + 1
        prev.append(lo)
        nxt.append(hi)
        gamma.append(v - math.floor(v))
    s = xp.sort(p)
    device = _ns.device_of(p)
    cdt = _ns.count_dtype(xp, device)
    a = xp.take(s, xp.asarray(prev, dtype=cdt, device=device))
    b = xp.take(s, xp.asarray(nxt, dtype=cdt, device=device))
    acc = _ns.max_float_dtype(xp, device)
    t = xp.asarray(gamma, dtype=acc, device=device)
    diff = xp.astype(b - a, acc)  # in the input dtype, as NumPy subtracts
    a, b = xp.astype(a, acc), xp.astype(b, acc)
    return xp.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def _check_curve_params(n_bins, strategy):
    n_bins = check_n_bins(n_bins, "calibration_curve")
    if strategy not in _STRATEGIES:
        raise ValueError("The 'strategy' parameter of calibration_curve must be a str among "
                         f"{{'uniform', 'quantile'}}. Got {strategy!r} instead.")
    return n_bins


@metric_edge
def calibration_curve(
    y_true: Any,
    y_prob: Any,
    *,
    pos_label: int | float | bool | str | None = None,
    n_bins: int = 5,
    strategy: str = "uniform",
    validate: bool = True,
) -> tuple[Array, Array]:
    r"""Reliability curve: fraction of positives against mean predicted probability.

    The probabilities are binned (``n_bins`` bins, empty ones left out);
    bin :math:`k` gives :math:`\mathrm{prob\_true}_k = \frac{1}{n_k}\sum_{i \in k} y_i`
    and :math:`\mathrm{prob\_pred}_k = \frac{1}{n_k}\sum_{i \in k} p_i`.

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Binary labels.
    y_prob : array of shape (n_samples,)
        Probabilities of the positive class.
    pos_label : int, float, bool or str, default=None
        The positive class (1 for {0, 1} and {-1, 1}; required otherwise).
    n_bins : int, default=5
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        ``uniform``: equal-width bins on [0, 1]; ``quantile``: edges at the
        quantiles of ``y_prob`` (equally many samples per bin).  A probability
        on an inner edge is in the bin below it, as scikit-learn.
    validate : bool, default=True
        Check the labels, finiteness and the [0, 1] range (reads values).
        The result's length depends on the data: this function always reads
        the bin counts (a host sync).

    Returns
    -------
    prob_true : array of shape (n_nonempty_bins,)
        Fraction of positives in each non-empty bin.
    prob_pred : array of shape (n_nonempty_bins,)
        Mean predicted probability in each non-empty bin.

    See Also
    --------
    calibration_error : One number from the same bins' gaps.

    Notes
    -----
    Equal to ``sklearn.calibration.calibration_curve`` (its binning and
    errors); a NaN probability raises ``ValueError`` with ``validate=True``
    (scikit-learn returns NaN in the last bin).

    References
    ----------
    .. [1] scikit-learn, ``sklearn.calibration.calibration_curve``.

    Examples
    --------
    >>> import metrix
    >>> prob_true, prob_pred = metrix.calibration_curve(
    ...     [0, 0, 0, 1, 1, 1], [0.1, 0.2, 0.4, 0.6, 0.7, 0.9], n_bins=2)
    >>> [float(v) for v in prob_true], [round(float(v), 4) for v in prob_pred]
    ([0.0, 1.0], [0.2333, 0.7333])
    """
    n_bins = _check_curve_params(n_bins, strategy)
    inp = Inputs(y_true, y_prob, None, validate=False)
    xp = inp.xp
    p = inp.score
    for name, a in (("y", inp.y), ("y", p)):
        if a.ndim != 1 and not (a.ndim == 2 and a.shape[1] == 1):
            raise ValueError(f"{name} should be a 1d array, got an array of shape "
                             f"{tuple(a.shape)} instead.")
    p = xp.reshape(p, (-1,))
    if validate:  # host reads, in scikit-learn's order
        assert_all_finite(p, xp=xp, input_name="y_prob")
        pos_label = check_pos_label(inp, pos_label)
        lo, hi = inp.ops.minmax(p)
        if bool(lo < 0) or bool(hi > 1):
            raise ValueError("y_prob has values outside [0, 1].")
    positive = _binary_correct(inp, pos_label, validate)
    acc = inp.acc
    if strategy == "quantile":
        edges = _quantile_edges(p, n_bins, xp)
    else:
        edges = xp.asarray(_uniform_edges(n_bins), dtype=acc, device=inp.device)
    p_acc = xp.astype(p, acc)
    codes = xp.searchsorted(edges[1:-1], p_acc, side="left")
    sums = inp.ops.bincount(codes, length=n_bins,
                            weights=xp.stack([p_acc, xp.astype(positive, acc)], axis=1))
    total = inp.ops.bincount(codes, length=n_bins)
    keep = total != 0  # the result's length: a host read (as scikit-learn's)
    total = xp.astype(total[keep], acc)
    fdt = inp.fdt
    return (xp.astype(sums[:, 1][keep] / total, fdt), xp.astype(sums[:, 0][keep] / total, fdt))
