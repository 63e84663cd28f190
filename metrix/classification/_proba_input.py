"""From raw probabilistic inputs to one validated, encoded problem.

``proba_problem`` is the single entry of ``log_loss``, ``brier_score_loss``,
``d2_log_loss_score``, ``d2_brier_score`` and the probabilistic part of
``evaluate``: namespace and device, scikit-learn's checks (once), the class
of every sample as a column code, and the probabilities.  The metrics then
read ``true_proba`` (the probability given to the true class) and, for the
Brier family, the whole matrix.  ``hinge_problem`` is the same for
``hinge_loss`` (decision values instead of probabilities).

Two target conventions, as in scikit-learn:

* ``mode="multiclass"`` (log loss; Brier with 2-D ``y_proba``): the columns
  are the sorted classes of ``labels`` (or of ``y_true``); a 1-D ``y_proba``
  is the probability of the second (greater) class.
* ``mode="binary"`` (Brier with 1-D ``y_proba``): the positive class is
  ``pos_label`` (inferred as scikit-learn does).

A multilabel-indicator ``y_true`` (n, L) is kept as an indicator matrix
(``ProbaProblem.indicator``) read against the L columns of ``y_proba``, as
scikit-learn's ``LabelBinarizer`` keeps it.  String labels on the host with
another library's probabilities are encoded on the host; only their codes move.

With ``labels`` declared (multiclass), ``pos_label`` given (binary) or an
indicator ``y_true``, and ``validate=False``, nothing is read on the host.
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

from .._core import namespace as _ns
from .._core.stacklevel import find_stack_level
from .._core.validation import (
    assert_all_finite,
    check_consistent_length,
    check_sample_weight,
    column_or_1d,
    target_info,
)
from ..backends import ops as _ops
from . import _encoding as _labels

_MULTIOUTPUT = "Multioutput target data is not supported with label binarization"


class ProbaProblem(NamedTuple):
    xp: object
    device: object
    codes: object         # int column code of each sample's true class, in [0, n_classes)
                          # (None for a multilabel ``indicator``)
    proba: object         # (n, K) probabilities, or (n,) probability of column 1
    n_classes: int        # K (2 for a 1-D ``proba``; L labels for multilabel)
    weights: object       # validated sample weights (widest float) or None
    float_dtype: object   # dtype of the probabilities (and of float results)
    acc_dtype: object     # dtype sums and logs are computed in
    eps: float            # machine epsilon of the probabilities' dtype (clipping)
    n_samples: int
    # declared labels read without validation: a code may be ``n_classes`` (a
    # true label outside ``labels``); such a sample's probability is NaN
    unchecked_codes: bool = False
    # multilabel-indicator y_true: (n, L) 0/1 matrix in ``acc_dtype`` (scikit-learn's
    # LabelBinarizer keeps it as is); ``proba`` is then (n, L)
    indicator: object = None


def float_proba(y_proba, xp, device):
    """``(probabilities, eps)``: at least float32 (float16 / bfloat16 sums lose
    whole units), and the machine epsilon of the dtype given, which clips the
    logs as scikit-learn clips them."""
    p = _ns.asarray(y_proba, xp=xp, device=device)
    if not xp.isdtype(p.dtype, "real floating"):
        p = xp.astype(p, _ns.max_float_dtype(xp, device))
    eps = float(xp.finfo(p.dtype).eps)
    if p.dtype != xp.float64 and p.dtype != xp.float32:  # float16 / bfloat16
        p = xp.astype(p, xp.float32)
    return p, eps


def _check_range(p, xp, low_word):
    # host reads: validate=True only
    lo, hi = _ops(xp).minmax(p)  # one read (p is finite: checked before)
    if bool(hi > 1):
        raise ValueError(f"y_prob contains values greater than 1: {float(hi)}")
    if bool(lo < 0):
        raise ValueError(f"y_prob contains values {low_word} than 0: {float(lo)}")


def discover_codes(y, xp, device, bounds=None):
    """Sorted classes of ``y`` (host) and each sample's position among them.

    ``bounds``: the integer (min, max) of ``y`` when already read.
    """
    kind = _labels.label_kind(y, xp)
    if kind == "i" and y.shape[0] > 0:
        # two consecutive integers (the usual binary case): min and max say it all
        if bounds is None:
            bounds = _ops(xp).minmax(y)  # host reads: the classes are data
        lo, hi = (int(v) for v in bounds)
        if hi - lo == 1:
            cdt = _ns.count_dtype(xp, device)
            codes = y if (lo == 0 and y.dtype == cdt) else xp.astype(y - lo, cdt)
            return _labels.restore_kind(_ns.host_values([lo, hi]), kind), codes
    space = _labels.encode(y, y, labels=None, xp=xp, device=device)
    if space.classes is not None:
        return space.classes, space.y_true
    present = _ns.to_host(_ops(xp).bincount(space.y_true, length=space.size) > 0)
    classes, select = _labels.resolve(space, present)
    codes = space.y_true
    if select is not None and list(select) != list(range(space.size)):
        lut_h = [0] * space.size
        for i, pos in enumerate(select):
            lut_h[int(pos)] = i
        lut = _ns.asarray(lut_h, xp=xp, device=device, dtype=_ns.count_dtype(xp, device))
        codes = xp.take(lut, codes)
    return classes, codes


def _declared_codes(y, labels, original, xp, device, validate):
    """Sorted declared classes and codes (``len(classes)`` for undeclared values)."""
    classes = sorted(set(labels))
    if len(classes) != len(labels):  # scikit-learn raises too (a shape mismatch)
        raise ValueError(f"Parameter 'labels' must be unique, got {original}.")
    if validate and list(labels) != classes:
        warnings.warn(
            f"Labels passed were {original}. But this function assumes labels are "
            "ordered lexicographically. "
            f"Pass the ordered labels={_ns.host_values(classes).tolist()} and ensure that "
            "the columns of y_prob correspond to this ordering.", UserWarning,
            stacklevel=find_stack_level())
    codes = _labels.encode(y, y, labels=classes, xp=xp, device=device).y_true
    if validate:
        outside = codes == len(classes)
        if bool(xp.any(outside)):  # host read, validate=True only
            bad = set(_ns.host_values(y)[_ns.to_host(outside)].tolist())
            raise ValueError(
                f"y_true contains values {bad} not belonging to the passed labels "
                f"{original}.")
    return classes, codes


def _labels_array(y_true, xp, device):
    """``(y, lxp, ldev)``: the labels as an array of the namespace they are encoded
    in: ``xp`` on ``device``, or the host (NumPy) for string / object labels with
    another library's probabilities (their codes move afterwards: :func:`_on`)."""
    if not _ops(xp).holds_strings and _ns.host_string_labels(y_true):
        hxp, _ = _ns.get_namespace_and_device(y_true)  # every input host: NumPy
        return _ns.asarray(y_true, xp=hxp), hxp, None
    return _ns.asarray(y_true, xp=xp, device=device), xp, device


def _on(codes, lxp, xp, device):
    """Codes made in the labels' namespace ``lxp``, on ``xp``'s ``device``."""
    if lxp is xp:
        return codes
    return _ns.asarray(_ns.to_host(codes), xp=xp, device=device,
                       dtype=_ns.count_dtype(xp, device))


def _check_weight_sum(w, xp):
    """scikit-learn's ``_average``: weights summing to zero cannot normalise (host
    read: validate=True only; all-zero weights were refused before, as it does)."""
    if w is not None and bool(xp.sum(w) == 0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")


def proba_problem(y_true, y_proba, sample_weight, *, labels=None, pos_label=None,
                  mode="multiclass", validate=True, normalized=True) -> ProbaProblem:
    """Validate and encode (y_true, y_proba) as scikit-learn does.

    ``normalized``: the metric divides by the total weight (all but the summed
    ``log_loss``), so with ``validate`` weights summing to zero raise as in
    scikit-learn.
    """
    xp, device = _ns.get_namespace_and_device(y_proba, y_true, sample_weight)
    p, eps = float_proba(y_proba, xp, device)
    yt, lxp, ldev = _labels_array(y_true, xp, device)
    if yt.ndim == 2 and yt.shape[1] == 1:
        yt = lxp.reshape(yt, (-1,))
    check_consistent_length(p, yt, sample_weight)
    acc = _ns.max_float_dtype(xp, device)
    fdt = p.dtype
    n = int(p.shape[0])
    if n == 0:  # a shape, not a value: checked with validate=False too
        raise ValueError(f"Found array with 0 sample(s) (shape={tuple(p.shape)}) while a "
                         "minimum of 1 is required.")
    w = check_sample_weight(sample_weight, n, xp=xp, device=device, dtype=acc,
                            validate=validate, nonzero=True)
    if mode == "binary":
        p = column_or_1d(p, xp=xp, input_name="y")
        yt = column_or_1d(yt, xp=lxp, input_name="y")
        if validate:
            pos_label = _checked_pos_label(yt, p, w, pos_label, lxp, xp, normalized)
        elif pos_label is None:  # the declared classes' rule, or 1 (targets 0 / 1)
            pos_label = 1 if labels is None else _pos_label_of(
                _ns.host_unique(_ns.host_values(labels)))
        codes = lxp.astype(label_equals(yt, pos_label, lxp), _ns.count_dtype(lxp, ldev))
        return ProbaProblem(xp, device, _on(codes, lxp, xp, device), p, 2, w, fdt, acc,
                            eps, n)

    if p.ndim > 2:
        raise ValueError(f"Found array with dim {p.ndim}. None expected <= 2.")
    bounds = _checked_targets(p, yt, labels, lxp, xp) if validate else None
    if p.ndim == 2 and p.shape[1] == 1:
        p = xp.reshape(p, (-1,))
    if yt.ndim == 2:
        if _labels.label_kind(yt, lxp) == "O":  # strings: no indicator (validate=False)
            raise ValueError(_MULTIOUTPUT)
        return _multilabel_problem(yt, p, w, labels, xp, device, fdt, acc, eps, n,
                                   validate and normalized, validate)
    classes, codes = _classes_and_codes(yt, labels, lxp, ldev, bounds, validate)
    codes = _on(codes, lxp, xp, device)
    k = 2 if p.ndim == 1 else int(p.shape[1])
    if validate and p.ndim == 2:
        _warn_row_sums(p, acc, eps, xp)
    if len(classes) != k:
        raise _class_count_error(classes, k, labels)
    if validate and normalized:
        _check_weight_sum(w, xp)
    return ProbaProblem(xp, device, codes, p, k, w, fdt, acc, eps, n,
                        unchecked_codes=labels is not None and not validate)


def _checked_pos_label(yt, p, w, pos_label, lxp, xp, normalized):
    """``mode="binary"``, validated: scikit-learn's checks (host reads), then the positive class."""
    assert_all_finite(yt, xp=lxp, input_name="y_true")
    assert_all_finite(p, xp=xp, input_name="y_prob")
    y_type = target_info(yt, xp=lxp, input_name="y_true").y_type  # host reads
    if y_type != "binary":
        raise ValueError(
            f"The type of the target inferred from y_true is {y_type} but should be "
            "binary according to the shape of y_prob.")
    _check_range(p, xp, "less")
    if pos_label is None:  # scikit-learn's _check_pos_label_consistency: greatest-label fallback
        pos_label = _pos_label_of(_ns.host_unique(_ns.to_host(yt)))
    if normalized:
        _check_weight_sum(w, xp)
    return pos_label


def _checked_targets(p, yt, labels, lxp, xp):
    """``mode="multiclass"``, validated: scikit-learn's checks (host reads), ``y_true``'s bounds."""
    assert_all_finite(p, xp=xp, input_name="y_proba")
    _check_range(p, xp, "lower")
    info = target_info(yt, xp=lxp, input_name="y_true")  # host reads
    y_type = info.y_type
    if "multioutput" in y_type or (yt.ndim == 2 and y_type != "multilabel-indicator"):
        raise ValueError(_MULTIOUTPUT)
    if labels is None and y_type not in ("binary", "multiclass", "multilabel-indicator"):
        raise ValueError(f"Unknown label type: {y_type}")
    return info.bounds  # spares :func:`discover_codes` a second read


def _classes_and_codes(yt, labels, lxp, ldev, bounds, validate):
    """Sorted classes (of ``y_true`` or the declared ``labels``; two or more) and codes."""
    if labels is None:
        classes, codes = discover_codes(yt, lxp, ldev, bounds)
        if len(classes) == 1:
            raise ValueError(
                f"y_true contains only one label ({_ns.host_values(classes)[0]}). Please "
                "provide the list of all expected class labels explicitly through the "
                "labels argument.")
        return classes, codes
    classes, codes = _declared_codes(yt, _ns.host_list(labels), labels, lxp, ldev, validate)
    if len(classes) < 2:
        raise ValueError(
            "The labels array needs to contain at least two labels, got "
            f"{_ns.host_values(classes)}.")
    return classes, codes


def _class_count_error(classes, k, labels):
    """The error for ``classes`` (declared: ``labels`` given) other than the ``k`` columns."""
    if labels is None:
        return ValueError(
            "y_true and y_prob contain different number of classes: "
            f"{len(classes)} vs {k}. Please provide the true labels explicitly through "
            f"the labels argument. Classes found in y_true: {_ns.host_values(classes)}")
    return ValueError(
        "The number of classes in labels is different from that in y_prob. Classes "
        f"found in labels: {_ns.host_values(classes)}")


def _warn_row_sums(p, acc, eps, xp):
    rowsum = xp.sum(xp.astype(p, acc), axis=1)
    tol = 1e-8 + math.sqrt(eps)
    if not bool(xp.all(xp.abs(rowsum - 1) <= tol)):  # host read: validate=True only
        warnings.warn("The y_prob values do not sum to one. Make sure to pass "
                      "probabilities.", UserWarning, stacklevel=find_stack_level())


def _multilabel_problem(yt, p, w, labels, xp, device, fdt, acc, eps, n, check_sum,
                        validate):
    """A multilabel-indicator ``y_true`` (n, L): scikit-learn's LabelBinarizer keeps
    it as is (classes ``0..L-1``), and every metric reads the 0/1 matrix against an
    (n, L) ``y_proba`` (a 1-D one is the second of two columns).  Shapes only:
    nothing is read unless ``validate``."""
    if labels is not None:  # LabelBinarizer fitted on 1-D labels refuses the matrix
        raise ValueError("The object was not fitted with multilabel input.")
    n_labels = int(yt.shape[1])
    if p.ndim == 1:
        p = xp.stack((1 - p, p), axis=1)
    elif validate:
        _warn_row_sums(p, acc, eps, xp)
    if int(p.shape[1]) != n_labels:
        raise _class_count_error(list(range(n_labels)), int(p.shape[1]), None)
    if check_sum:
        _check_weight_sum(w, xp)
    indicator = xp.astype(yt, acc)
    return ProbaProblem(xp, device, None, p, n_labels, w, fdt, acc, eps, n,
                        indicator=indicator)


class HingeProblem(NamedTuple):
    xp: object
    decision: object      # decision values: (n,) binary, (n, K) multiclass
    codes: object         # multiclass: column code of the true class; binary: 1 for
                          # the positive (greater) class, 0 otherwise
    multiclass: bool      # more than two classes (Crammer-Singer margins)
    weights: object       # validated sample weights (widest float) or None
    float_dtype: object   # dtype of the decision values (and of the result)
    acc_dtype: object     # dtype margins and sums are computed in


def hinge_problem(y_true, pred_decision, sample_weight, *, labels=None,
                  validate=True) -> HingeProblem:
    """Validate and encode ``(y_true, pred_decision)`` as scikit-learn's ``hinge_loss``.

    Binary (two classes or fewer): the greater class is positive.  Multiclass:
    one column of ``pred_decision`` per sorted class (of ``labels`` when given).
    Sample weights are taken as ``numpy.average`` takes them (no finiteness or
    sign check); with ``validate`` a zero total raises its ``ZeroDivisionError``.
    """
    xp, device = _ns.get_namespace_and_device(y_true, pred_decision, sample_weight)
    check_consistent_length(y_true, pred_decision, sample_weight)
    f, _ = float_proba(pred_decision, xp, device)
    if validate:  # scikit-learn's check_array(pred_decision)
        assert_all_finite(f, xp=xp)
    yt, lxp, ldev = _labels_array(y_true, xp, device)
    yt = column_or_1d(yt, xp=lxp, input_name="y_true")
    acc = _ns.max_float_dtype(xp, device)
    n = int(yt.shape[0])
    w = check_sample_weight(sample_weight, n, xp=xp, device=device, dtype=acc,
                            validate=False)
    if labels is not None:
        classes = sorted(set(_ns.host_list(labels)))
    else:
        classes, codes = discover_codes(yt, lxp, ldev)
        classes = _ns.host_values(classes).tolist()  # host read: labels=None discovers
    n_classes = len(classes)
    if n_classes > 2:
        if f.ndim <= 1:
            raise ValueError(
                "The shape of pred_decision cannot be 1d arraywith a multiclass target. "
                "pred_decision shape must be (n_samples, n_classes), that is "
                f"({n}, {n_classes}). Got: {tuple(f.shape)}")
        if n_classes != f.shape[1]:
            if labels is None:
                raise ValueError("Please include all labels in y_true or pass labels as "
                                 "third argument")
            raise ValueError(
                "The shape of pred_decision is not consistent with the number of classes. "
                "With a multiclass target, pred_decision shape must be (n_samples, "
                f"n_classes), that is ({n}, {n_classes}). Got: {tuple(f.shape)}")
        if labels is not None:
            codes = _labels.encode(yt, yt, labels=classes, xp=lxp, device=ldev).y_true
            if validate and bool(lxp.any(codes == n_classes)):  # host read
                raise ValueError("y contains previously unseen labels")
            codes = lxp.clip(codes, 0, n_classes - 1)
        if validate:
            _check_weight_sum(w, xp)
        return HingeProblem(xp, f, _on(codes, lxp, xp, device), True, w, f.dtype, acc)
    f = column_or_1d(f, xp=xp, input_name="pred_decision")
    if labels is not None and validate:  # host read: validate=True only
        classes = _ns.host_values(discover_codes(yt, lxp, ldev)[0]).tolist()
    if validate:
        _check_weight_sum(w, xp)
    if len(classes) == 2:
        codes = _on(lxp.astype(label_equals(yt, classes[1], lxp),
                               _ns.count_dtype(lxp, ldev)), lxp, xp, device)
    else:  # a single class: scikit-learn's LabelBinarizer makes every sample negative
        codes = xp.zeros((n,), dtype=_ns.count_dtype(xp, device), device=_ns.device_of(f))
    return HingeProblem(xp, f, codes, False, w, f.dtype, acc)


def label_equals(y, value, xp):
    """``y == value`` as an array (NumPy compares strings with a number as a scalar)."""
    return _ops(xp).equals_value(y, value)


def _pos_label_of(classes):
    """scikit-learn's positive class of the sorted ``classes``: 1 for {0, 1} and
    {-1, 1}, else the greatest; strings need ``pos_label``."""
    is_str = classes.dtype.kind in "OUS"
    ok = not is_str and classes.shape[0] <= 2 and (
        classes.tolist() in ([0, 1], [-1, 1], [0], [-1], [1]))
    if ok:
        return 1
    if not is_str:
        return classes[-1].item()
    classes_repr = ", ".join(repr(c) for c in classes.tolist())
    raise ValueError(
        f"y_true takes value in {{{classes_repr}}} and pos_label is not specified: either "
        "make y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly.")


# -- shared statistics -----------------------------------------------------

def true_proba(prob):
    """The probability given to each sample's true class (input dtype, unclipped);
    NaN for a true label outside the declared ``labels`` (``validate=False``)."""
    return true_proba_rows(prob.codes, prob.proba, prob.xp, outside_code(prob))


def outside_code(prob):
    """The code of labels outside the declared ones where it may occur, else None."""
    return prob.n_classes if prob.unchecked_codes else None


def true_proba_rows(codes, p, xp, outside=None):
    if outside is not None:
        # sync-free rule for unchecked labels: the row's probability is NaN (so
        # is the loss), on every backend, instead of an out-of-bounds read
        inside = codes < outside
        q = true_proba_rows(xp.where(inside, codes, xp.zeros_like(codes)), p, xp)
        return xp.where(inside, q, xp.asarray(float("nan"), dtype=q.dtype,
                                              device=_ns.device_of(q)))
    if p.ndim == 1:
        # |[code == 0] - p| is exactly p (code 1) or 1 - p (code 0), without the
        # branchy select of a random mask
        return xp.abs(xp.astype(codes == 0, p.dtype) - p)
    return xp.take_along_axis(p, codes[:, None], axis=1)[:, 0]


def total_weight(prob):
    """``sum_i w_i`` (the sample count without weights)."""
    if prob.weights is None:
        return prob.n_samples
    return prob.xp.sum(prob.weights)


def sample_mean(values, prob):
    """Mean of per-sample ``values`` over the samples, weighted by the sample weights."""
    xp = prob.xp
    if prob.weights is None:
        return xp.mean(values)
    return xp.sum(values * prob.weights) / xp.sum(prob.weights)


def weighted_sum(values, prob):
    """``sum_i w_i * values_i`` (the plain sum without weights)."""
    if prob.weights is None:
        return prob.xp.sum(values)
    return prob.xp.sum(values * prob.weights)


def class_weights(prob):
    """(Weighted) number of samples of each column class, length ``n_classes``
    (multilabel: the weighted column sums of the indicator)."""
    xp = prob.xp
    w = prob.weights
    if prob.indicator is not None:
        (counts,) = _ops(xp).fused_sums(lambda t: (t,), [prob.indicator], weights=w)
        return counts
    counts = _ops(xp).bincount(prob.codes, length=prob.n_classes + 1, weights=w)
    return xp.astype(counts[: prob.n_classes], prob.acc_dtype)


def class_prior(prob, class_w):
    """The null model's probabilities: the weighted mean of each indicator column
    (scikit-learn's ``_average(transformed_labels, axis=0)``)."""
    if prob.indicator is not None:  # labels do not partition the samples
        return class_w / total_weight(prob)
    return class_w / prob.xp.sum(class_w)


def null_squared_error(prob, prior):
    """Per-sample Brier term of the null model that predicts ``prior`` for every
    sample, by the same formula as the model's
    (:func:`metrix.classification.probabilistic.brier_terms`; scikit-learn scores
    the tiled prior as it scores ``y_proba``: a model predicting the prior gets
    exactly :math:`D^2 = 0`)."""
    xp = prob.xp
    if prob.indicator is not None:
        return xp.sum((prob.indicator - prior[None, :]) ** 2, axis=1)
    lookup = prior
    if prob.unchecked_codes:  # a label outside ``labels``: NaN, as its model term
        nan = xp.full((1,), float("nan"), dtype=prior.dtype, device=prob.device)
        lookup = xp.concat((prior, nan))
    q = _ops(xp).take(lookup, prob.codes)
    if prob.proba.ndim == 1:
        return 2 * (1 - q) ** 2
    return xp.sum(prior[None, :] * prior[None, :], axis=1) - 2 * q + 1
