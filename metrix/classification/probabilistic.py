"""Probabilistic classification metrics: log loss, Brier score, hinge loss, D^2.

Each metric builds one :class:`~metrix.classification._proba_input.ProbaProblem` (validation and
class encoding, once) and reads the probability of the true class:
``log_loss`` and ``d2_log_loss_score`` its clipped logarithm, the Brier
metrics the squared error.  Logarithms and sums are computed in the widest
float of the device (float64 where available); results have the dtype of
``y_proba``.  With ``labels`` declared (or ``pos_label`` for 1-D Brier) and
``validate=False`` each metric is a pure array program.

Each loss's per-sample term is written here once (:func:`log_loss_terms`,
:func:`brier_terms`, :func:`hinge_terms`): the one-shot functions,
``evaluate``, the bootstrap and the ``metrix.stream`` classes (``LogLoss``,
``BrierScore``, ``HingeLoss``) all read it.
"""

from __future__ import annotations

import warnings
from typing import Literal

from .._core import namespace as _ns
from .._core.docstrings import sections
from .._core.edge import metric_edge
from .._core.stacklevel import find_stack_level
from .._core.typing import Array, ArrayLike
from .._core.validation import check_consistent_length, num_samples
from ..backends import ops as _ops
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from . import _proba_input as _proba

__all__ = [
    "log_loss",
    "brier_score_loss",
    "hinge_loss",
    "d2_log_loss_score",
    "d2_brier_score",
]


#: docstring sections that the probabilistic metrics share
_Y_TRUE = """\
    y_true : array of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix (read as is against the
        columns of ``y_proba``, as scikit-learn's ``LabelBinarizer`` does).
"""
_doc = sections(targets=_Y_TRUE + """\
    y_proba : array of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities; columns are the sorted classes. A 1-D array is
        the probability of the greater class.
""", brier_targets=_Y_TRUE + """\
    y_proba : array of shape (n_samples,) or (n_samples, n_classes)
        1-D: probability of ``pos_label``; 2-D: one column per sorted class.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=None
        Positive class for 1-D ``y_proba`` (inferred as scikit-learn does:
        1 for {0, 1} and {-1, 1}, else the greater label; with ``validate=False``
        from the declared ``labels``, or 1 without them).
    labels : array-like, default=None
        Classes of a 2-D ``y_proba``, or of the binary ``y_true`` of a 1-D
        one (sync-free with ``validate=False``).
""", validate="""\
    validate : bool, default=True
        Check ranges, classes and row sums (reads values on the host).
""")


def _renamed_y_pred(y_proba, y_pred):
    """scikit-learn 1.9's ``y_pred`` -> ``y_proba`` deprecation."""
    if isinstance(y_pred, str) and y_pred == "deprecated":
        return y_proba
    if y_proba is not None:
        raise ValueError("Cannot use both `y_pred` and `y_proba`. `y_pred` is deprecated, "
                         "use `y_proba` instead.")
    warnings.warn("`y_pred` was renamed to `y_proba` in version 1.9 and will be removed in "
                  "1.11. Use `y_proba` instead.", FutureWarning, stacklevel=find_stack_level())
    return y_pred


# -- per-sample terms: each loss is written once, read by the one-shot functions,
#    ``evaluate``, the bootstrap and the ``metrix.stream`` classes ----------------------

def clip_bounds(eps, acc, xp, device):
    """``(eps, 1 - eps)`` as 0-d arrays of ``acc``: the log loss's clipping limits
    (``maximum``/``minimum`` with arrays cost less per block than ``clip`` and
    trace under ``torch.compile``)."""
    return tuple(xp.asarray(v, dtype=acc, device=device) for v in (eps, 1 - eps))


def log_loss_terms(codes, p, bounds, *, xp, acc, outside=None):
    """Per-sample log loss ``-log clip(p[i, codes[i]], eps, 1 - eps)`` in ``acc``.

    ``p``: ``(n, K)`` probabilities, or ``(n,)`` of column 1; ``bounds``:
    :func:`clip_bounds` (``eps`` is the machine epsilon of the dtype given, as
    scikit-learn clips).  ``outside``: the code of a true label that is none of
    the classes (``validate=False``): its loss is NaN, read without a host sync.
    """
    q = xp.astype(_proba.true_proba_rows(codes, p, xp, outside), acc, copy=False)
    return -xp.log(xp.minimum(xp.maximum(q, bounds[0]), bounds[1]))


def sum_neg_log_true_proba(prob):
    """``sum_i w_i * -log(clip(p_i,y_i))`` in one fused pass (no N-sized temporaries
    on CPUs: ``ops(xp).fused_sums`` works on cache-sized row blocks) of
    :func:`log_loss_terms`.  Multilabel: ``sum_i w_i * -sum_j T_ij log(clip(p_ij))``
    (scikit-learn's ``xlogy`` of the indicator)."""
    xp, acc = prob.xp, prob.acc_dtype
    bounds = clip_bounds(prob.eps, acc, xp, prob.device)

    if prob.indicator is not None:
        def label_rows(t, p):
            q = xp.astype(p, acc, copy=False)
            return (xp.sum(t * xp.log(xp.minimum(xp.maximum(q, bounds[0]), bounds[1])),
                           axis=1),)

        (s,) = _ops(xp).fused_sums(label_rows, [prob.indicator, prob.proba],
                                   weights=prob.weights)
        return -s

    outside = _proba.outside_code(prob)

    def rows(codes, p):
        return (log_loss_terms(codes, p, bounds, xp=xp, acc=acc, outside=outside),)

    (s,) = _ops(xp).fused_sums(rows, [prob.codes, prob.proba], weights=prob.weights)
    return s


def brier_terms(q, p, *, xp, acc):
    """Per-sample unscaled Brier term ``sum_c (T_ic - P_ic)^2`` in ``acc``, from the
    probability ``q`` of the true class (NaN rows stay NaN): ``2 (1 - q)^2`` for
    1-D ``p`` (the probability of the positive class), else
    ``sum_c P_ic^2 - 2 q + 1``."""
    q = xp.astype(q, acc, copy=False)
    if p.ndim == 1:
        return 2 * (1 - q) ** 2
    p = xp.astype(p, acc, copy=False)
    return xp.sum(p * p, axis=1) - 2 * q + 1


def squared_error(prob, q=None):
    """Per-sample :func:`brier_terms` of a problem (multilabel: of the indicator)."""
    xp = prob.xp
    if prob.indicator is not None:
        p = xp.astype(prob.proba, prob.acc_dtype, copy=False)
        return xp.sum((prob.indicator - p) ** 2, axis=1)
    if q is None:
        q = _proba.true_proba(prob)
    return brier_terms(q, prob.proba, xp=xp, acc=prob.acc_dtype)


def null_brier_sum(class_w, prior, *, binary, xp, acc):
    """``sum_c W_c * brier_terms(prior_c, prior)``: the weighted Brier sum of the
    null model that predicts ``prior`` for every sample, from the (weighted)
    class counts ``class_w`` alone (each class's samples share one
    :func:`brier_terms` value; ``binary``: the 1-D form, ``2 (1 - prior_c)^2``).
    The ``metrix.stream`` D^2 Brier score reads it (the one-shot function sums
    the same terms per sample, so that a model predicting the prior scores
    exactly 0)."""
    k = prior.shape[0]
    rows = prior if binary else xp.broadcast_to(xp.reshape(prior, (1, k)), (k, k))
    return xp.sum(class_w * brier_terms(prior, rows, xp=xp, acc=acc))


def null_log_loss_sum(class_w, prior, *, xp, acc):
    """``-sum_c W_c log(clip(prior_c, eps, 1 - eps))``: the weighted log-loss sum of
    the null model that predicts ``prior`` (``eps``: of ``acc``), from the
    (weighted) class counts ``class_w``."""
    eps = float(xp.finfo(acc).eps)  # the dtype's constant: no array is read
    return -xp.sum(class_w * xp.log(xp.clip(prior, eps, 1 - eps)))


def d2_from_sums(model_sum, null_sum):
    """``1 - model / null``: D^2 of two weighted loss sums (the total weight cancels)."""
    return 1 - model_sum / null_sum


def brier_halved(scale_by_half, n_classes):
    """Whether the Brier score is halved: ``"auto"`` halves two classes (1-D input)."""
    return n_classes < 3 if scale_by_half == "auto" else bool(scale_by_half)


def log_loss_from_problem(prob, *, normalize, neg_log_sum=None):
    """Mean (or sum) of ``-log(clip(p_true))`` over samples.

    ``neg_log_sum``: the weighted sum when already computed (``evaluate``).
    """
    total = sum_neg_log_true_proba(prob) if neg_log_sum is None else neg_log_sum
    if normalize:
        total = total / _proba.total_weight(prob)
    return prob.xp.astype(total, prob.float_dtype)


@metric_edge
@_doc
def log_loss(
    y_true: ArrayLike,
    y_proba: ArrayLike | None = None,
    *,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    y_pred: ArrayLike | Literal["deprecated"] = "deprecated",
    validate: bool = True,
) -> Array:
    r"""Log loss (cross-entropy) of predicted probabilities.

    .. math:: L = -\frac{1}{\sum_i w_i}\sum_i w_i \log \operatorname{clip}(p_{i, y_i},
              \epsilon, 1 - \epsilon)

    with ``epsilon`` the machine epsilon of ``y_proba``'s dtype, as scikit-learn.

    Parameters
    ----------
    %(targets)s
    normalize : bool, default=True
        Mean over samples; ``False`` gives the sum.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        All classes (sorted order gives the columns). Required when ``y_true``
        has a single class; with ``validate=False`` the call is sync-free.
    y_pred : array of shape (n_samples, n_classes) or (n_samples,), default="deprecated"
        Old name of ``y_proba`` (deprecated in scikit-learn 1.9).
    %(validate)s

    Returns
    -------
    loss : 0-d array
        The log loss, on the inputs' device, in ``y_proba``'s float dtype.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.log_loss``.
    .. [2] C. M. Bishop, *Pattern Recognition and Machine Learning*, 2006, p. 209.
    """
    y_proba = _renamed_y_pred(y_proba, y_pred)
    prob = _proba.proba_problem(y_true, y_proba, sample_weight, labels=labels,
                                validate=validate, normalized=normalize)
    return _ns.to_output(log_loss_from_problem(prob, normalize=normalize), prob.xp)


def brier_from_problem(prob, *, scale_by_half, sq=None):
    """Weighted mean of ``sum_c (T_ic - P_ic)^2`` (halved as ``scale_by_half``)."""
    if sq is None:
        sq = squared_error(prob)
    score = _proba.sample_mean(sq, prob)
    if brier_halved(scale_by_half, prob.n_classes):
        score = score * 0.5
    return prob.xp.astype(score, prob.float_dtype)


def _brier_problem(y_true, y_proba, sample_weight, pos_label, labels, validate):
    shape = getattr(y_proba, "shape", None)
    if shape is None:
        shape = _ns.host_values(y_proba).shape
    one_d = len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)
    return _proba.proba_problem(y_true, y_proba, sample_weight, labels=labels,
                                pos_label=pos_label, mode="binary" if one_d else "multiclass",
                                validate=validate)


def _check_scale(scale_by_half):
    if not (isinstance(scale_by_half, bool) or scale_by_half == "auto"):
        raise ValueError("The 'scale_by_half' parameter of brier_score_loss must be an "
                         f"instance of 'bool' or a str among {{'auto'}}. Got {scale_by_half!r} "
                         "instead.")


@metric_edge
@_doc
def brier_score_loss(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: int | float | bool | str | None = None,
    labels: ArrayLike | None = None,
    scale_by_half: bool | Literal["auto"] = "auto",
    validate: bool = True,
) -> Array:
    r"""Brier score: mean squared error of the predicted probabilities.

    .. math:: BS = \frac{1}{\sum_i w_i}\sum_i w_i \sum_c (y_{ic} - p_{ic})^2

    halved (to lie in [0, 1]) for binary problems by default.

    Parameters
    ----------
    %(brier_targets)s
    scale_by_half : bool or "auto", default="auto"
        "auto" halves for binary problems only.
    %(validate)s

    Returns
    -------
    score : 0-d array
        The Brier score, on the inputs' device, in ``y_proba``'s float dtype.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.brier_score_loss``.
    .. [2] G. W. Brier, "Verification of forecasts expressed in terms of
       probability", Monthly Weather Review 78, 1950.
    """
    _check_scale(scale_by_half)
    prob = _brier_problem(y_true, y_proba, sample_weight, pos_label, labels, validate)
    return _ns.to_output(brier_from_problem(prob, scale_by_half=scale_by_half), prob.xp)


def _d2_undefined(y_true, y_proba, sample_weight):
    check_consistent_length(y_proba, y_true, sample_weight)
    if num_samples(y_proba) < 2:
        warnings.warn("D^2 score is not well-defined with less than two samples.",
                      as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())
        xp, device = _ns.get_namespace_and_device(y_proba, y_true, sample_weight)
        p, _ = _proba.float_proba(y_proba, xp, device)
        return _ns.to_output(xp.asarray(float("nan"), dtype=p.dtype, device=device), xp)
    return None


def d2_log_loss_from_problem(prob, *, neg_log_sum=None, class_w=None):
    """``1 - log_loss(model) / log_loss(class-prior model)`` (sums, weighted)."""
    xp = prob.xp
    if class_w is None:
        class_w = _proba.class_weights(prob)
    num = sum_neg_log_true_proba(prob) if neg_log_sum is None else neg_log_sum
    prior = _proba.class_prior(prob, class_w)
    den = null_log_loss_sum(class_w, prior, xp=xp, acc=prob.acc_dtype)
    return xp.astype(d2_from_sums(num, den), prob.float_dtype)


@metric_edge
@_doc
def d2_log_loss_score(
    y_true: ArrayLike,
    y_proba: ArrayLike | None = None,
    *,
    sample_weight: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    y_pred: ArrayLike | Literal["deprecated"] = "deprecated",
    validate: bool = True,
) -> Array:
    r""":math:`D^2` for the log loss: the fraction of log loss explained.

    .. math:: D^2 = 1 - \frac{L(y, p)}{L(y, \bar p)}

    where ``\bar p`` predicts the (weighted) class proportions of ``y_true``.

    Parameters
    ----------
    %(targets)s
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        All classes (sorted order gives the columns); with ``validate=False``
        the call is sync-free.
    y_pred : array of shape (n_samples, n_classes) or (n_samples,), default="deprecated"
        Old name of ``y_proba`` (deprecated in scikit-learn 1.9).
    %(validate)s

    Returns
    -------
    d2 : 0-d array
        The score, on the inputs' device; nan (with a warning) for fewer than
        two samples.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.d2_log_loss_score``.
    """
    y_proba = _renamed_y_pred(y_proba, y_pred)
    early = _d2_undefined(y_true, y_proba, sample_weight)
    if early is not None:
        return early
    prob = _proba.proba_problem(y_true, y_proba, sample_weight, labels=labels,
                                validate=validate)
    return _ns.to_output(d2_log_loss_from_problem(prob), prob.xp)


def d2_brier_from_problem(prob, *, sq=None, class_w=None):
    """``1 - brier(model) / brier(class-prior model)``: the prior's per-sample terms
    are computed as the model's (a model predicting the prior scores exactly 0)."""
    xp = prob.xp
    if sq is None:
        sq = squared_error(prob)
    if class_w is None:
        class_w = _proba.class_weights(prob)
    prior = _proba.class_prior(prob, class_w)
    null = _proba.weighted_sum(_proba.null_squared_error(prob, prior), prob)
    return xp.astype(d2_from_sums(_proba.weighted_sum(sq, prob), null), prob.float_dtype)


@metric_edge
@_doc
def d2_brier_score(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: int | float | bool | str | None = None,
    labels: ArrayLike | None = None,
    validate: bool = True,
) -> Array:
    r""":math:`D^2` for the Brier score (Brier skill score).

    .. math:: D^2 = 1 - \frac{BS(y, p)}{BS(y, \bar p)}, \qquad
              BS(y, \bar p) = 1 - \sum_c \bar p_c^2

    Parameters
    ----------
    %(brier_targets)s
    %(validate)s

    Returns
    -------
    d2 : 0-d array
        The score, on the inputs' device; nan (with a warning) for fewer than
        two samples.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.d2_brier_score``.
    """
    early = _d2_undefined(y_true, y_proba, sample_weight)
    if early is not None:
        return early
    prob = _brier_problem(y_true, y_proba, sample_weight, pos_label, labels, validate)
    return _ns.to_output(d2_brier_from_problem(prob), prob.xp)


def hinge_terms(f, codes, *, multiclass, xp, acc, squared=False, one_vs_all=False):
    r"""Per-sample hinge loss ``max(0, 1 - m)`` in ``acc`` (squared as ``squared``).

    Binary (``f`` of shape ``(n,)``, ``codes`` 1 for the positive class, 0
    else): ``m = y f`` with ``y = +-1``.  Multiclass (``f`` of shape ``(n, K)``,
    ``codes`` the true column): Crammer-Singer's ``m = f_true - max_{other} f``,
    or with ``one_vs_all`` one binary term per column, ``(n, K)``
    (TorchMetrics' ``multiclass_mode="one-vs-all"``).
    """
    fa = xp.astype(f, acc)
    if multiclass:
        cols = xp.arange(fa.shape[1], dtype=codes.dtype, device=_ns.device_of(codes))
        own = codes[:, None] == cols[None, :]
        if one_vs_all:
            margin = xp.where(own, fa, -fa)
        else:
            others = xp.where(own, xp.asarray(-float("inf"), dtype=acc,
                                              device=_ns.device_of(fa)), fa)
            margin = xp.take_along_axis(fa, codes[:, None], axis=1)[:, 0] - xp.max(
                others, axis=1)
    else:
        margin = (2 * xp.astype(codes, acc) - 1) * fa
    losses = xp.clip(1 - margin, 0, None)
    return losses * losses if squared else losses


def hinge_from_problem(prob):
    r"""Weighted mean of :func:`hinge_terms`; binary margins ``y f``, multiclass
    ``f_true - max_{other} f`` (Crammer-Singer)."""
    losses = hinge_terms(prob.decision, prob.codes, multiclass=prob.multiclass, xp=prob.xp,
                         acc=prob.acc_dtype)
    return prob.xp.astype(_proba.sample_mean(losses, prob), prob.float_dtype)


@metric_edge
def hinge_loss(
    y_true: ArrayLike,
    pred_decision: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    validate: bool = True,
) -> Array:
    r"""Average hinge loss (binary, or Crammer-Singer multiclass).

    .. math:: L = \frac{1}{\sum_i w_i}\sum_i w_i \max(0, 1 - m_i), \quad
       m_i = y_i f_i \text{ (binary, } y_i = \pm 1), \quad
       m_i = f_{i, y_i} - \max_{j \ne y_i} f_{ij} \text{ (multiclass)}

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        True labels; binary: the greater label is positive.
    pred_decision : array of shape (n_samples,) or (n_samples, n_classes)
        Decision function values (one column per sorted class when multiclass).
    labels : array-like, default=None
        All classes of a multiclass problem (sync-free with ``validate=False``).
    sample_weight : array of shape (n_samples,), default=None
        Sample weights, averaged as ``numpy.average`` does (a zero total
        raises ``ZeroDivisionError`` with ``validate``).
    validate : bool, default=True
        Check the values of the inputs (finite decisions, labels among
        ``labels``, the total weight) on the host; ``False`` reads none.

    Returns
    -------
    loss : 0-d array
        The mean hinge loss, on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.hinge_loss``.
    .. [2] K. Crammer, Y. Singer, "On the algorithmic implementation of
       multiclass kernel-based vector machines", JMLR 2, 2001.
    """
    prob = _proba.hinge_problem(y_true, pred_decision, sample_weight, labels=labels,
                                validate=validate)
    return _ns.to_output(hinge_from_problem(prob), prob.xp)
