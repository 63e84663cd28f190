"""Per-sample ranking metrics: top-k accuracy, DCG/NDCG, label ranking scores.

Re-exported by :mod:`metrix.ranking`.  Each row (sample) is ranked by its own
scores; all rows are sorted at once (one batched sort) and tie groups are
summed with one ``bincount`` (:mod:`metrix.ranking._statistic`), so no Python loop runs
over samples, labels or queries and every shape is static.
"""

from __future__ import annotations

import contextvars
import math
import numbers
from collections.abc import Sequence
from typing import Any

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.docstrings import sections
from .._core.edge import metric_edge
from .._core.validation import column_or_1d
from ._averaging import warn_undefined
from ._input import Inputs, check_k, check_labels, discover_classes, encode_classes, target_type
from ._statistic import group_ids, segment_sums, sort_desc

_TOPK_LABEL_MSGS = {
    "unique": "Parameter 'labels' must be unique.",
    "ordered": "Parameter 'labels' must be ordered.",
    "count": "Number of given labels ({0}) not equal to the number of classes in "
             "'y_score' ({1}).",
    "subset": "'y_true' contains labels not in parameter 'labels'.",
}


_label_doc = sections(on_device="""\
    In the namespace and on the device of ``y_score`` (a Python float for
    NumPy).""", multilabel="""\
    y_true : array of shape (n_samples, n_labels)
        Multilabel indicator matrix.
    y_score : array of shape (n_samples, n_labels)
        Scores of each label; higher ranks first.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    validate : bool, default=True
        Check target types and finiteness (host reads).""", tsoumakas="""\
    References
    ----------
    .. [1] G. Tsoumakas, I. Katakis, I. Vlahavas, "Mining Multi-label Data",
       Data Mining and Knowledge Discovery Handbook, 2010.""")


#: a list set here receives ``(values, weight)`` of each per-sample mean computed
#: (the bootstrap's per-sample path reads them from one full-data call)
ROW_VALUES = contextvars.ContextVar("metrix_row_values", default=None)


def _sample_average(values, weight, *, xp, validate=False):
    """The mean of per-sample ``values`` weighted by ``weight``: ``np.average``'s
    value, zero-weight samples included as they are (NaN stays NaN).

    With ``validate``, weights summing to zero raise ``np.average``'s
    ``ZeroDivisionError`` as scikit-learn does (a host read); unchecked, the
    mean is NaN (or infinite).
    """
    sink = ROW_VALUES.get()
    if sink is not None:
        sink.append((values, weight))
    if weight is None:
        return xp.mean(values)
    w = xp.astype(weight, values.dtype)
    total = xp.sum(w)
    if validate and bool(total == 0):  # host read: validate=True only
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return xp.sum(values * w) / total


@metric_edge
@_label_doc
def top_k_accuracy_score(y_true: Any, y_score: Any, *, k: int = 2, normalize: bool = True,
                         sample_weight: Any = None, labels: Sequence | None = None,
                         validate: bool = True) -> Any:
    """Fraction of samples whose true class is among the ``k`` highest scores.

    .. math:: \\mathrm{hit}_i = [\\#\\{c : s_{ic} \\succ s_{i y_i}\\} < k]

    where ``c`` ranks before ``y_i`` if its score is higher, or equal with a
    higher class index (scikit-learn's tie order).  No sort is needed: one
    comparison of every score with the true class's score.

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        True labels.
    y_score : array of shape (n_samples,) or (n_samples, n_classes)
        Scores of each class (binary: of the greater label).
    k : int, default=2
        Number of most likely classes a hit may be among.
    normalize : bool, default=True
        The fraction of hits (else their weighted count).
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    labels : host list, default=None
        The classes of ``y_score``'s columns (sorted).
    validate : bool, default=True
        Check the target type, finiteness and labels (host reads).

    Returns
    -------
    score : 0-d array
        %(on_device)s

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.top_k_accuracy_score``.
    """
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
        raise ValueError("The 'k' parameter of top_k_accuracy_score must be an int in the "
                         f"range [1, inf). Got {k!r} instead.")
    # no non-zero-weight check here: scikit-learn raises np.average's ZeroDivisionError
    # at the end (normalize=True; else the weighted count is 0)
    inp = Inputs(y_true, y_score, sample_weight, validate=validate, nonzero_weights=False)
    xp = inp.xp
    if not inp.host_y:
        inp.y = column_or_1d(inp.y, xp=xp, input_name="y_true")
    s = inp.score
    y_type = _topk_target_type(inp, s, labels, validate)
    if y_type == "binary":
        if s.ndim == 2 and s.shape[1] != 1:
            raise ValueError(f"`y_true` is binary while y_score is 2d with {s.shape[1]} "
                             "classes. If `y_true` does not contain all the labels, `labels` "
                             "must be provided.")
        s = xp.reshape(s, (-1,))
    elif s.ndim != 2:
        raise ValueError("`y_score` needs to be of shape `(n_samples, n_classes)`, since "
                         f"`y_true` contains multiple classes. Got `y_score.shape={s.shape}`.")
    n_score_classes = s.shape[1] if s.ndim == 2 else 2
    if labels is None:
        classes, codes = discover_classes(inp)
        n_classes = len(classes)
        if n_classes != n_score_classes:
            raise ValueError(
                f"Number of classes in 'y_true' ({n_classes}) not equal to the number of "
                f"classes in 'y_score' ({n_score_classes}).You can provide a list of all "
                "known classes by assigning it to the `labels` parameter.")
    else:
        labels = check_labels(labels, n_columns=n_score_classes, msgs=_TOPK_LABEL_MSGS,
                              inp=inp, validate=validate)
        n_classes = len(labels)
        codes = encode_classes(inp, labels)
    if k >= n_classes:
        warn_undefined(f"'k' ({k}) greater than or equal to 'n_classes' ({n_classes}) will "
                       "result in a perfect score and is therefore meaningless.")
    hits = _topk_hits(s, codes, k, binary=y_type == "binary", labels=labels,
                      n_classes=n_classes, inp=inp)
    if normalize:
        value = _sample_average(hits, inp.weight, xp=xp, validate=validate)
    elif inp.weight is None:
        value = xp.sum(hits)
    else:
        value = xp.sum(hits * inp.weight)
    return inp.out(value)


def _topk_target_type(inp, s, labels, validate):
    """``"binary"`` or ``"multiclass"``: checked (``validate``), or read from the shapes."""
    if not validate:
        multi = (s.ndim == 2 and s.shape[1] > 1) or (labels is not None and len(labels) > 2)
        return "multiclass" if multi else "binary"
    y_type = target_type(inp)
    if y_type == "binary" and labels is not None and len(labels) > 2:
        return "multiclass"
    if y_type not in ("binary", "multiclass"):
        raise ValueError(f"y type must be 'binary' or 'multiclass', got '{y_type}' instead.")
    return y_type


def _topk_hits(s, codes, k, *, binary, labels, n_classes, inp):
    """1 where the true class is among the ``k`` highest scores, else 0 (dtype ``acc``)."""
    xp, device = inp.xp, inp.device
    if binary and k == 1:
        unit = (xp.min(s) >= 0) & (xp.max(s) <= 1)
        thr = xp.where(unit, xp.asarray(0.5, dtype=s.dtype, device=device),
                       xp.asarray(0.0, dtype=s.dtype, device=device))
        hits = (s > thr) == (codes == 1)
    elif binary:
        hits = xp.ones(s.shape, dtype=xp.bool, device=device)
    else:
        if labels is not None:  # code C (unchecked: a label outside them) reads column 0
            codes_in = xp.minimum(codes, xp.asarray(n_classes - 1, dtype=codes.dtype,
                                                    device=device))
        else:
            codes_in = codes
        hits = top_k_hit_rows(s, codes_in, k, xp=xp)
    if labels is not None:  # a true label outside the declared ones is never a hit
        hits = hits & (codes < n_classes)
    return xp.astype(hits, inp.acc)


def top_k_hit_rows(s, codes, k, *, xp):
    """Whether each row's true column ``codes`` (in ``0..C-1``) is among the ``k``
    highest of the scores ``s`` ``(n, C)``: fewer than ``k`` columns rank ahead
    of it, a column ranking ahead when its score is higher, or equal with a
    higher index (scikit-learn's tie order).  One comparison of every score
    with the true class's, no sort; read by :func:`top_k_accuracy_score` and
    :class:`metrix.stream.Accuracy` (``top_k=``)."""
    device = _ns.device_of(s)
    idx = xp.reshape(codes, (-1, 1))
    s_true = xp.take_along_axis(s, idx, axis=1)
    cols = xp.reshape(xp.arange(s.shape[1], dtype=codes.dtype, device=device), (1, -1))
    ahead = (s > s_true) | ((s == s_true) & (cols > idx))
    return xp.sum(xp.astype(ahead, _ns.count_dtype(xp, device)), axis=1) < k


# -- DCG / NDCG ---------------------------------------------------------------

def _position_discounts(n_labels, k, log_base, *, xp, dtype, device):
    """DCG discounts of ranked positions ``0..n_labels-1``: ``1 / log_b(pos + 2)``,
    0 from position ``k`` on."""
    pos = xp.arange(n_labels, dtype=dtype, device=device)
    d = 1.0 / (xp.log(pos + 2.0) / math.log(log_base))
    if k is not None:
        d = xp.where(pos < k, d, xp.zeros_like(d))
    return d


def _dcg_rows(y, s, discount, *, ignore_ties, xp, ops):
    """DCG of every row of ``y`` ranked by ``s`` (tie-averaged unless ``ignore_ties``)."""
    if ignore_ties:
        # scikit-learn's order: its default (unstable) ascending argsort, reversed.
        # Tied scores then fall as NumPy's sort kernel leaves them, which depends on
        # the CPU (SIMD sorts): on NumPy input the same kernel gives scikit-learn's
        # order on the same machine; ignore_ties asserts there are no ties
        order = xp.flip(xp.argsort(s, axis=1, stable=False), axis=1)
        return xp.sum(xp.take_along_axis(y, order, axis=1) * discount, axis=1)
    order, ss = sort_desc(s, xp=xp)
    gains = xp.take_along_axis(y, order, axis=1)
    gid = group_ids(ss, xp=xp)
    disc = xp.reshape(discount, (1, -1)) * xp.ones_like(gains)
    sums = segment_sums(gid, xp.stack([gains, xp.ones_like(gains), disc], axis=-1),
                        xp=xp, ops=ops)
    mean_gain = safe_divide(sums[..., 0], sums[..., 1], zero_value=0.0, xp=xp)
    return xp.sum(mean_gain * sums[..., 2], axis=1)


def _dcg_inputs(y_true, y_score, sample_weight, validate):
    # no non-zero-weight check here: scikit-learn raises np.average's ZeroDivisionError
    # at the end
    inp = Inputs(y_true, y_score, sample_weight, validate=validate, nonzero_weights=False)
    xp = inp.xp
    if inp.host_y:
        raise ValueError("Only ('multilabel-indicator', 'continuous-multioutput', "
                         "'multiclass-multioutput') formats are supported. Got strings.")
    return inp, xp


def _check_dcg_type(inp, validate):
    supported = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")
    y_type = target_type(inp) if validate else (
        "multiclass-multioutput" if inp.y.ndim == 2 else "binary")
    if y_type not in supported:
        raise ValueError(f"Only {supported} formats are supported. Got {y_type} instead")
    if tuple(inp.score.shape) != tuple(inp.y.shape):
        raise ValueError(f"y_true and y_score have different shapes {tuple(inp.y.shape)} and "
                         f"{tuple(inp.score.shape)}")


@metric_edge
@_label_doc
def dcg_score(y_true: Any, y_score: Any, *, k: int | None = None, log_base: float = 2,
              sample_weight: Any = None, ignore_ties: bool = False,
              validate: bool = True) -> Any:
    """Discounted cumulative gain, averaged over samples.

    .. math:: \\mathrm{DCG@k}(r) = \\sum_{i < k} \\frac{y_{r_i}}{\\log_b(i + 2)}

    with tied scores sharing their average gain over the tied positions.

    Parameters
    ----------
    y_true : array of shape (n_samples, n_labels)
        Relevance of each label (non-negative).
    y_score : array of shape (n_samples, n_labels)
        Scores of each label; higher ranks first.
    k : int, default=None
        Only the ``k`` highest ranks count; ``None``: all.
    log_base : float, default=2
        Base of the logarithm of the discount.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    ignore_ties : bool, default=False
        Break ties by position instead of averaging the gains of tied scores
        (faster).
    validate : bool, default=True
        Check target types and finiteness (host reads).

    Returns
    -------
    dcg : 0-d array
        %(on_device)s

    References
    ----------
    .. [1] K. Järvelin, J. Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] F. McSherry, M. Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008.
    """
    check_k(k)
    if not isinstance(log_base, numbers.Real) or log_base <= 0:
        raise ValueError("The 'log_base' parameter of dcg_score must be a float in the range "
                         f"(0.0, inf). Got {log_base!r} instead.")
    inp, xp = _dcg_inputs(y_true, y_score, sample_weight, validate)
    _check_dcg_type(inp, validate)
    y = xp.astype(inp.y, inp.acc)
    s = inp.score
    d = _position_discounts(y.shape[1], k, log_base, xp=xp, dtype=inp.acc,
                            device=inp.device)
    gain = _dcg_rows(y, s, d, ignore_ties=ignore_ties, xp=xp, ops=inp.ops)
    return inp.out(_sample_average(gain, inp.weight, xp=xp, validate=validate))


@metric_edge
def ndcg_score(y_true: Any, y_score: Any, *, k: int | None = None, sample_weight: Any = None,
               ignore_ties: bool = False, validate: bool = True) -> Any:
    """Normalized discounted cumulative gain, averaged over samples.

    .. math:: \\mathrm{NDCG@k} = \\mathrm{DCG@k}(\\hat r) / \\mathrm{DCG@k}(r^*)

    with ``r*`` the ideal ranking (by ``y_true``); 0 for a sample whose
    relevances are all zero.

    Parameters
    ----------
    y_true : array of shape (n_samples, n_labels)
        Non-negative relevances.
    y_score : array of shape (n_samples, n_labels)
        Scores of each label; higher ranks first.
    k : int, default=None
        Only the ``k`` highest ranks count; ``None``: all.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    ignore_ties : bool, default=False
        Break ties by position instead of averaging the gains of tied scores
        (faster).
    validate : bool, default=True
        Check target types, finiteness and non-negative relevances (host reads).

    Returns
    -------
    ndcg : 0-d array
        In [0, 1], in the namespace and on the device of ``y_score`` (a NumPy
        scalar for NumPy).

    References
    ----------
    .. [1] K. Järvelin, J. Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    """
    check_k(k)
    inp, xp = _dcg_inputs(y_true, y_score, sample_weight, validate)
    if validate and inp.y.ndim >= 1 and bool(xp.min(inp.y) < 0):
        raise ValueError("ndcg_score should not be used on negative y_true values.")
    if inp.y.ndim > 1 and inp.y.shape[1] <= 1:
        raise ValueError("Computing NDCG is only meaningful when there is more than 1 "
                         f"document. Got {inp.y.shape[1]} instead.")
    _check_dcg_type(inp, validate)
    y = xp.astype(inp.y, inp.acc)
    d = _position_discounts(y.shape[1], k, 2, xp=xp, dtype=inp.acc, device=inp.device)
    gain = _dcg_rows(y, inp.score, d, ignore_ties=ignore_ties, xp=xp, ops=inp.ops)
    ideal = xp.sum(xp.flip(xp.sort(y, axis=1), axis=1) * d, axis=1)
    ndcg = safe_divide(gain, ideal, zero_value=0.0, xp=xp)
    return inp.out(_sample_average(ndcg, inp.weight, xp=xp, validate=validate))


# -- label ranking --------------------------------------------------------------

def _label_inputs(y_true, y_score, sample_weight, validate, allow_binary_2d=False,
                  ensure_2d=False):
    # no non-zero-weight check here: scikit-learn raises np.average's ZeroDivisionError
    # at the end (LRAP: NaN)
    inp = Inputs(y_true, y_score, sample_weight, validate=validate, nonzero_weights=False,
                 ensure_2d=ensure_2d)
    if inp.host_y:
        raise ValueError("multiclass format is not supported")
    if inp.y.ndim != 2 or inp.score.ndim != 2:
        if validate:
            y_type = target_type(inp)
            raise ValueError(f"{y_type} format is not supported")
        raise ValueError(f"Expected 2D arrays, got y_true of shape {tuple(inp.y.shape)}")
    if validate:
        y_type = target_type(inp)
        ok = y_type == "multilabel-indicator" or (allow_binary_2d and y_type == "binary")
        if not ok:
            raise ValueError(f"{y_type} format is not supported")
    if tuple(inp.y.shape) != tuple(inp.score.shape):
        raise ValueError("y_true and y_score have different shape")
    return inp, inp.xp


def _sorted_relevance(inp, xp):
    order, s = sort_desc(inp.score, xp=xp)
    rel = xp.astype(xp.take_along_axis(xp.astype(inp.y, inp.acc), order, axis=1) != 0,
                    inp.acc)
    return rel, group_ids(s, xp=xp)


@metric_edge
@_label_doc
def label_ranking_average_precision_score(y_true: Any, y_score: Any, *,
                                          sample_weight: Any = None,
                                          validate: bool = True) -> Any:
    """Label ranking average precision (LRAP).

    .. math:: \\frac{1}{|Y_i|} \\sum_{j \\in Y_i}
              \\frac{|\\{k \\in Y_i : s_{ik} \\ge s_{ij}\\}|}{|\\{k : s_{ik} \\ge s_{ij}\\}|}

    averaged over samples (1 for a sample with no or only relevant labels).

    Parameters
    ----------
    %(multilabel)s

    Returns
    -------
    score : 0-d array
        %(on_device)s

    %(tsoumakas)s
    """
    inp, xp = _label_inputs(y_true, y_score, sample_weight, validate, allow_binary_2d=True)
    rel, gid = _sorted_relevance(inp, xp)
    sums = segment_sums(gid, xp.stack([rel, xp.ones_like(rel)], axis=-1), xp=xp, ops=inp.ops)
    r_g, c_g = sums[..., 0], sums[..., 1]
    ratio = safe_divide(xp.cumulative_sum(r_g, axis=1), xp.cumulative_sum(c_g, axis=1),
                        zero_value=0.0, xp=xp)
    n_rel = xp.sum(rel, axis=1)
    n_labels = rel.shape[1]
    aux = safe_divide(xp.sum(r_g * ratio, axis=1), n_rel, zero_value=1.0, xp=xp)
    aux = xp.where((n_rel == 0) | (n_rel == n_labels), xp.ones_like(aux), aux)
    return inp.out(_sample_average(aux, inp.weight, xp=xp))


@metric_edge
@_label_doc
def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None,
                   validate: bool = True) -> Any:
    """Coverage error: how far down the ranking all relevant labels are covered.

    .. math:: \\mathrm{cov}_i = |\\{k : s_{ik} \\ge \\min_{j \\in Y_i} s_{ij}\\}|

    averaged over samples (0 for a sample with no relevant label).

    Parameters
    ----------
    %(multilabel)s

    Returns
    -------
    coverage : 0-d array
        %(on_device)s

    %(tsoumakas)s
    """
    inp, xp = _label_inputs(y_true, y_score, sample_weight, validate, ensure_2d=True)
    s = inp.score
    relevant = inp.y != 0
    inf = xp.full_like(s, float("inf"))
    lowest = xp.min(xp.where(relevant, s, inf), axis=1, keepdims=True)
    coverage = xp.sum(xp.astype(s >= lowest, inp.acc), axis=1)
    return inp.out(_sample_average(coverage, inp.weight, xp=xp, validate=validate))


@metric_edge
@_label_doc
def label_ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None,
                       validate: bool = True) -> Any:
    """Label ranking loss: the fraction of wrongly ordered (relevant, irrelevant) pairs.

    .. math:: \\frac{|\\{(j, l) : j \\in Y_i, l \\notin Y_i, s_{il} \\ge s_{ij}\\}|}
              {|Y_i| (L - |Y_i|)}

    averaged over samples (0 for a sample with no or only relevant labels).

    Parameters
    ----------
    %(multilabel)s

    Returns
    -------
    loss : 0-d array
        %(on_device)s

    %(tsoumakas)s
    """
    inp, xp = _label_inputs(y_true, y_score, sample_weight, validate)
    rel, gid = _sorted_relevance(inp, xp)
    sums = segment_sums(gid, xp.stack([rel, 1.0 - rel], axis=-1), xp=xp, ops=inp.ops)
    p_g, n_g = sums[..., 0], sums[..., 1]
    wrong = xp.sum(p_g * xp.cumulative_sum(n_g, axis=1), axis=1)
    n_pos = xp.sum(rel, axis=1)
    n_labels = rel.shape[1]
    loss = safe_divide(wrong, (n_labels - n_pos) * n_pos, zero_value=0.0, xp=xp)
    return inp.out(_sample_average(loss, inp.weight, xp=xp, validate=validate))
