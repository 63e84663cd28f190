"""``evaluate``: many classification metrics from one pass over the data.

Every label metric requested reads the same :class:`~metrix.classification._input.LabelProblem`
(one validation, one encoding, one confusion-matrix ``bincount``); every
probabilistic metric reads the same :class:`~metrix.classification._proba_input.ProbaProblem` and
the same clipped log-probabilities of the true class.  The formulas are the
helpers the public metrics call, so ``evaluate(...)["f1_macro"]`` is
``f1_score(..., average="macro")`` to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .._core import namespace as _ns
from .._core.typing import Array, ArrayLike
from .._core.validation import check_zero_division
from ..classification import _proba_input as _proba
from ..classification import _statistic as _stats
from ..classification import agreement as _agr
from ..classification import confusion as _conf
from ..classification import probabilistic as _prob
from ..classification._input import label_problem, prepare_inputs, with_declared_labels
from ..classification._prf import PRF, prf_from_counts, setwise_labels
from ..registry import by_function, names

__all__ = ["evaluate", "EVALUATE_METRICS"]


def evaluate_name(function):
    """``evaluate``'s name of the public ``function`` (its registry entry's)."""
    return by_function(function.__name__).evaluate


_ACCURACY, _BALANCED, _MCC, _KAPPA, _HAMMING, _JACCARD, _LOG_LOSS, _BRIER = map(evaluate_name, (
    _conf.accuracy_score, _agr.balanced_accuracy_score, _agr.matthews_corrcoef,
    _agr.cohen_kappa_score, _agr.hamming_loss, _agr.jaccard_score, _prob.log_loss,
    _prob.brier_score_loss))
#: the losses that are ``1 - accuracy`` (Hamming loss: not for multilabel targets)
_COMPLEMENTS = names(complement=by_function(_conf.accuracy_score.__name__).key)
#: precision / recall / F1: their index in ``prf_from_counts``' results and warnings
_PRF = dict(zip((evaluate_name(f) for f in (_conf.precision_score, _conf.recall_score,
                                            _conf.f1_score)), PRF))
DEFAULT_LABEL_METRICS = (_ACCURACY, _BALANCED, *(f"{m}_macro" for m in _PRF), _MCC, _KAPPA)
DEFAULT_PROBA_METRICS = names(path="proba")
_AVERAGES = {"": "binary", "_micro": "micro", "_macro": "macro", "_weighted": "weighted",
             "_samples": "samples"}
#: the variants of a confusion-matrix metric: name -> (its metric, the formula's keywords)
_VARIANT = {f"adjusted_{_BALANCED}": (_BALANCED, {"adjusted": True}),
            f"{_KAPPA}_linear": (_KAPPA, {"weights": "linear"}),
            f"{_KAPPA}_quadratic": (_KAPPA, {"weights": "quadratic"})}
_PLAIN = (_ACCURACY, _BALANCED, f"adjusted_{_BALANCED}", _MCC, _KAPPA, f"{_KAPPA}_linear",
          f"{_KAPPA}_quadratic", *_COMPLEMENTS)
_SETWISE = tuple(f"{m}{s}" for m in names(family="label", averaged=True) for s in _AVERAGES)
_D2_LOG, _D2_BRIER = "d2_log_loss_score", "d2_brier_score"
PROBA_METRICS = DEFAULT_PROBA_METRICS + (_D2_LOG, _D2_BRIER)
#: the confusion-matrix metrics' formulas on the shared problem (``v``: validate)
_CM_FORMULAS = {
    _BALANCED: lambda prob, v, adjusted=False: _agr.balanced_accuracy_from_problem(
        prob, adjusted=adjusted, validate=v),
    _MCC: lambda prob, v: _agr.mcc_from_problem(prob),
    _KAPPA: lambda prob, v, weights=None: _agr.kappa_from_problem(
        prob, weights=weights, replace_undefined_by=float("nan"), validate=v)}
#: binary ranking metrics of a 1-D ``y_score``: one sort for both
RANKING_METRICS = names(path="ranking")
#: every name ``evaluate`` understands
EVALUATE_METRICS = _PLAIN + _SETWISE + PROBA_METRICS + RANKING_METRICS


def _split(name):
    """("precision", "macro") for "precision_macro"; (name, None) otherwise."""
    for suffix, average in sorted(_AVERAGES.items(), key=lambda kv: -len(kv[0])):
        if suffix and name.endswith(suffix):
            return name[: -len(suffix)], average
    return name, "binary"


def evaluate(
    y_true: ArrayLike,
    y_pred: ArrayLike | None = None,
    y_score: ArrayLike | None = None,
    *,
    metrics: Sequence[str] | None = None,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    pos_label: int | float | bool | str = 1,
    zero_division: Literal["warn"] | float = "warn",
    validate: bool = True,
) -> dict[str, Array]:
    r"""Compute many classification metrics at the cost of one.

    Label metrics share one confusion-matrix statistic; probabilistic
    metrics share one encoding of ``y_true`` and one clipped
    ``log p(true class)``.

    Parameters
    ----------
    y_true : array of shape (n_samples,) or (n_samples, n_labels)
        Ground-truth labels, or a label-indicator matrix (any supported array
        library).
    y_pred : array of shape (n_samples,) or (n_samples, n_labels), default=None
        Predicted labels (needed by the label metrics).
    y_score : array of shape (n_samples,) or (n_samples, n_classes), default=None
        Predicted probabilities (columns: sorted classes; 1-D: the greater
        class), needed by the probabilistic metrics.
    metrics : sequence of str, default=None
        Names from ``EVALUATE_METRICS``: ``accuracy``, ``balanced_accuracy``,
        ``adjusted_balanced_accuracy``, ``matthews_corrcoef``, ``cohen_kappa``
        (``_linear``, ``_quadratic``), ``hamming_loss``, ``zero_one_loss``,
        ``precision`` / ``recall`` / ``f1`` / ``jaccard`` with an optional
        ``_micro``, ``_macro``, ``_weighted`` or ``_samples`` suffix (none
        means ``average="binary"``), ``log_loss``, ``brier_score_loss``,
        ``d2_log_loss_score``, ``d2_brier_score``, and for a binary 1-D
        ``y_score`` ``roc_auc`` and ``average_precision`` (one sort for both;
        AP's positive class is ``pos_label``).  Default: accuracy,
        balanced accuracy, macro precision / recall / F1, MCC and kappa, plus
        log loss and Brier score when ``y_score`` is given.
    labels : array-like, default=None
        The classes.  With ``labels`` declared and ``validate=False`` the
        whole call is sync-free (it traces under ``jax.jit`` and
        ``torch.compile``); the balanced accuracy and MCC then assume they
        contain every value present, and ``y_score``'s columns are the
        sorted labels.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=1
        The class of the binary averages (names without a suffix).
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        As in :func:`precision_recall_fscore_support` (jaccard: "warn", 0, 1).
    validate : bool, default=True
        Check the values of the inputs on the host (once for all the
        metrics); ``False`` reads none.

    Returns
    -------
    results : dict of str to 0-d array
        The value of each metric, in the requested order, each on the inputs'
        device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics`` (the definitions of every metric).
    """
    if metrics is None:
        metrics = (DEFAULT_LABEL_METRICS if y_pred is not None else ()) + (
            DEFAULT_PROBA_METRICS if y_score is not None else ())
    metrics = list(metrics)
    unknown = [m for m in metrics if m not in EVALUATE_METRICS]
    if unknown:
        raise ValueError(f"Unknown metric names {unknown}; choose from {EVALUATE_METRICS}.")
    check_zero_division(zero_division)
    label_names = [m for m in metrics if m not in PROBA_METRICS + RANKING_METRICS]
    proba_names = [m for m in metrics if m in PROBA_METRICS]
    ranking_names = [m for m in metrics if m in RANKING_METRICS]
    values = {}
    if label_names:
        if y_pred is None:
            raise ValueError(f"{label_names} need y_pred.")
        values.update(_label_metrics(y_true, y_pred, label_names, labels=labels,
                                     sample_weight=sample_weight, pos_label=pos_label,
                                     zero_division=zero_division, validate=validate))
    if proba_names:
        if y_score is None:
            raise ValueError(f"{proba_names} need y_score.")
        values.update(_proba_metrics(y_true, y_score, proba_names, labels=labels,
                                     sample_weight=sample_weight, validate=validate))
    if ranking_names:
        if y_score is None:
            raise ValueError(f"{ranking_names} need y_score.")
        from ..ranking.scores import binary_auc_ap

        values.update(binary_auc_ap(y_true, y_score, ranking_names, pos_label=pos_label,
                                    sample_weight=sample_weight, validate=validate))
    return {m: values[m] for m in metrics}


def _label_metrics(y_true, y_pred, names, *, labels, sample_weight, pos_label, zero_division,
                   validate):
    exact = any(_split(n)[1] == "binary" for n in names if n not in _PLAIN)
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate,
                              exact_binary=exact)
    xp, targets = prepared.xp, prepared.targets
    multilabel = targets.y_type == "multilabel-indicator"
    cm_names = {n: _VARIANT.get(n, (n, {})) for n in names
                if _VARIANT.get(n, (n,))[0] in _CM_FORMULAS}
    if cm_names and multilabel:
        raise ValueError("multilabel-indicator is not supported")
    weighted_kappa = any("weights" in kw for _, kw in cm_names.values())
    prob = label_problem(prepared, labels=labels, validate=validate,
                         want_cm=weighted_kappa or (bool(cm_names) and labels is not None))
    if cm_names:
        _agr.warn_single_label(prob)
    out, setwise = {}, {}
    for name in names:
        if name in _SETWISE:
            setwise.setdefault(_split(name)[1], []).append(name)
    for average, group in setwise.items():
        sub = _setwise_problem(prob, prepared, average, labels, pos_label, validate)
        out.update(_setwise_values(sub, group, average, zero_division, validate))
    if {_ACCURACY, *_COMPLEMENTS} & set(names):
        out.update(_accuracy_values(prob, targets, names, labels))
    for name, (base, kw) in cm_names.items():
        out[name] = _CM_FORMULAS[base](prob, validate, **kw)
    return {k: _ns.to_output(v, xp) for k, v in out.items()}


def _accuracy_values(prob, targets, names, labels):
    """Accuracy and its complements, zero-one and Hamming loss (those in ``names``), of
    the shared problem."""
    xp, w, acc, fdt = prob.xp, prob.weights, prob.acc_dtype, prob.float_dtype
    multilabel = targets.y_type == "multilabel-indicator"
    if labels is None and not multilabel:  # the statistic read off the shared counts
        correct = xp.sum(xp.astype(prob.counts.tp, acc))
        total = xp.sum(w) if w is not None else int(prob.n_samples)
    else:
        correct, total = _conf.correct_and_total(targets, w, xp, acc)
    accuracy = _conf.accuracy_from_totals(correct, total, xp=xp)
    out = {m: accuracy if m == _ACCURACY else 1 - accuracy for m in names
           if m in (_ACCURACY, *_COMPLEMENTS)}
    if _HAMMING in out and multilabel:
        out[_HAMMING] = _agr.hamming_from_targets(targets, w, xp, acc)
    return {m: xp.astype(v, fdt) for m, v in out.items()}


def _setwise_problem(prob, prepared, average, labels, pos_label, validate):
    """The shared problem restricted as ``average`` needs (no new pass, except samples)."""
    targets = prepared.targets
    if average == "samples":
        setwise_labels(targets, average=average, labels=labels, pos_label=pos_label)
        return label_problem(prepared, labels=labels, validate=validate, samplewise=True)
    if average != "binary":
        setwise_labels(targets, average=average, labels=labels, pos_label=None)
        return prob
    if not validate and labels is not None:
        targets = with_declared_labels(targets, labels)
    setwise_labels(targets, average="binary", labels=None, pos_label=pos_label)
    xp = prob.xp
    classes = _ns.host_list(prob.classes)
    if pos_label in classes:
        idx = [classes.index(pos_label)]
        counts = _stats.select_counts(prob.counts, idx, xp=xp, device=prob.device)
    else:
        counts = _stats.LabelCounts(*(xp.zeros_like(c[:1]) for c in prob.counts))
    return prob._replace(counts=counts)


def _setwise_values(sub, group, average, zero_division, validate):
    xp = sub.xp
    out = {}
    prf = [n for n in group if _split(n)[0] in _PRF]
    if prf:
        warn_for = tuple(_PRF[_split(n)[0]] for n in prf)
        p, r, f, _ = prf_from_counts(sub.counts, beta=1.0, average=average, warn_for=warn_for,
                                     zero_division=zero_division, weights=sub.weights, xp=xp,
                                     dtype=sub.float_dtype, acc_dtype=sub.acc_dtype,
                                     validate=validate)
        if average == "binary":
            p, r, f = (xp.reshape(v, ()) for v in (p, r, f))
        for n in prf:
            out[n] = dict(zip(_PRF, (p, r, f)))[_split(n)[0]]
    jac = [n for n in group if _split(n)[0] == _JACCARD]
    if jac:
        _agr.check_jaccard_zero_division(zero_division)
        j = _agr.jaccard_from_problem(sub, average=average, zero_division=zero_division,
                                      validate=validate)
        out[jac[0]] = xp.reshape(j, ()) if average == "binary" else j
    return out


def _proba_metrics(y_true, y_score, names, *, labels, sample_weight, validate):
    prob = _proba.proba_problem(y_true, y_score, sample_weight, labels=labels,
                                validate=validate)
    out = {}
    neg_log_sum = None
    if {_LOG_LOSS, _D2_LOG} & set(names):
        neg_log_sum = _prob.sum_neg_log_true_proba(prob)  # one fused pass for both
    sq = _prob.squared_error(prob) if {_BRIER, _D2_BRIER} & set(names) else None
    class_w = _proba.class_weights(prob) if {_D2_LOG, _D2_BRIER} & set(names) else None
    if _LOG_LOSS in names:
        out[_LOG_LOSS] = _prob.log_loss_from_problem(prob, normalize=True,
                                                     neg_log_sum=neg_log_sum)
    if _BRIER in names:
        out[_BRIER] = _prob.brier_from_problem(prob, scale_by_half="auto", sq=sq)
    if _D2_LOG in names:
        out[_D2_LOG] = _prob.d2_log_loss_from_problem(prob, neg_log_sum=neg_log_sum,
                                                      class_w=class_w)
    if _D2_BRIER in names:
        out[_D2_BRIER] = _prob.d2_brier_from_problem(prob, sq=sq, class_w=class_w)
    return {k: _ns.to_output(v, prob.xp) for k, v in out.items()}
