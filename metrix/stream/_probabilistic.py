"""Streaming probabilistic losses: a weighted sum of per-sample losses and of the weights.

Each state is ``{"sw", "s_<loss>"}`` in the widest float of the device (merged
by addition, all-reduced as sums, no host read in ``update`` or ``compute``).
The per-sample losses are the one-shot functions' own, written once in
:mod:`metrix.classification.probabilistic`:

* :class:`LogLossStream`: :func:`~metrix.classification.probabilistic.log_loss_terms`
  (scikit-learn's clip at the machine epsilon of ``y_proba``'s dtype, then
  ``-log p[y]``; binary 1-D input is the probability of class 1);
* :class:`BrierScoreStream`: :func:`~metrix.classification.probabilistic.brier_terms`
  (``sum_c (T_ic - P_ic)^2``, halved for two classes as ``scale_by_half`` says);
* :class:`HingeLossStream`: :func:`~metrix.classification.probabilistic.hinge_terms`
  (binary ``max(0, 1 - y f)``, Crammer-Singer multiclass, or one-vs-all).

**Bad labels**, as the one-shot functions with ``labels=range(C)``: with
``validate=True`` each batch is checked by the one-shot checks (a true label
outside ``0..C-1`` raises, so do NaN or out-of-range probabilities; rows that
do not sum to one warn); with ``validate=False`` nothing is read and a true
label that is not one of the integers ``0..C-1`` (2.5, -1, NaN included)
makes its loss NaN, so the result is NaN, on every backend.  Binary Brier
and hinge losses read ``y_true == pos_label`` as the positive class and any
other label as the negative one (scikit-learn's reading of two labels).
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.validation import check_consistent_length
from ..backends import ops as _ops
from ..classification import probabilistic as _prob
from ..classification._proba_input import true_proba_rows
from ._functional import StreamMetric, count_dtype, dtype_probe, is_float, result_dtype


def _class_codes(y, k, xp):
    """``(codes, valid)``: each label as its class code ``0..k-1`` and whether it
    is one (an integral value in range; NaN fails every compare); an invalid
    label gets the code ``k`` (no host read)."""
    cdt = _ns.count_dtype(xp, _ns.device_of(y))
    valid = (y >= 0) & (y < k)
    if is_float(y, xp):
        valid = valid & (y == xp.floor(y))
    elif y.dtype != cdt:
        y = xp.astype(y, cdt)
    codes = xp.where(valid, y, xp.full_like(y, k))
    return xp.astype(codes, cdt, copy=False), valid


def _positive_codes(y, pos_label, xp):
    """Binary codes: 1 where ``y == pos_label``, else 0."""
    return xp.astype(y == pos_label, _ns.count_dtype(xp, _ns.device_of(y)))


def _check_num_classes(num_classes):
    if num_classes is not None and (not isinstance(num_classes, int)
                                    or isinstance(num_classes, bool) or num_classes < 2):
        raise ValueError(f"num_classes must be None or an int >= 2, got {num_classes!r}")


def _check_pos_label(pos_label):
    if isinstance(pos_label, bool) or not isinstance(pos_label, (int, float)):
        raise ValueError(f"pos_label must be a number, got {pos_label!r}")


class _SumOfLosses(StreamMetric):
    """A state of two sums: the weights ``sw`` and the weighted losses ``s_loss``
    (per class for one-vs-all hinge: ``_width``)."""

    _width = None

    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        shape = () if self._width is None else (self._width,)
        return {"sw": xp.zeros((), dtype=acc, device=device),
                "s_loss": xp.zeros(shape, dtype=acc, device=device),
                "meta_dtype": dtype_probe(xp, device, fdt)}

    def _proba(self, state, y_true, y_proba, sample_weight):
        """``(xp, device, y_true (n,), y_proba, w)``; ``y_proba`` checked against
        ``num_classes`` (``(n,)`` / ``(n, 1)`` allowed for two classes)."""
        xp, device, _, yt, p, w = self._inputs(state, y_true, y_proba, sample_weight)
        k = self.num_classes or 2
        if p.ndim == 2 and p.shape[1] == 1 and k == 2:
            p = xp.reshape(p, (-1,))
        if not (p.ndim == 2 and p.shape[1] == k) and not (p.ndim == 1 and k == 2):
            want = f"(n_samples, {k})" + (" or (n_samples,)" if k == 2 else "")
            raise ValueError(f"{self._input_name} must have shape {want}, got "
                             f"{tuple(p.shape)}")
        yt = self._flat(yt, xp)
        check_consistent_length(yt, p, w)
        return xp, device, yt, p, w

    def update(self, state, y_true, y_proba, sample_weight=None):
        """The state after one batch (pure; no host read unless ``validate``)."""
        xp, _, loss, w = self._terms(state, y_true, y_proba, sample_weight)
        return self._added(state, loss, w, xp)

    def _added(self, state, loss, w, xp):
        """The state plus one batch of per-sample ``loss`` (``(n,)`` or ``(n, C)``)."""
        if w is None:
            return {**state, "sw": state["sw"] + loss.shape[0],
                    "s_loss": state["s_loss"] + xp.sum(loss, axis=0)}
        w = self._flat_as(w, state["sw"].dtype, xp)
        wl = w[:, None] * loss if loss.ndim == 2 else w * loss
        return {**state, "sw": state["sw"] + xp.sum(w),
                "s_loss": state["s_loss"] + xp.sum(wl, axis=0)}

    def _mean(self, state):
        xp, _ = _ns.get_namespace_and_device(state["sw"])
        return xp, safe_divide(state["s_loss"], state["sw"], zero_value=math.nan, xp=xp)


class LogLossStream(_SumOfLosses):
    """Functional streaming log loss over classes ``0..num_classes-1``.

    ``num_classes=None`` (or 2 with 1-D scores): binary, ``y_proba`` of shape
    ``(n,)`` is the probability of class 1; else ``y_proba`` is ``(n, C)``.
    ``normalize=False`` gives the summed loss.  ``validate=True`` checks each
    batch as :func:`metrix.log_loss` does (a device sync per batch); see the
    module docstring for bad labels without it.
    """

    _input_name = "y_proba"

    def __init__(self, num_classes=None, *, normalize=True, validate=False):
        _check_num_classes(num_classes)
        self.num_classes, self.normalize = num_classes, bool(normalize)
        self.validate = bool(validate)
        self.key = ("log_loss", num_classes, self.validate)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "LogLossStream", "num_classes": self.num_classes,
                "normalize": self.normalize}

    def _terms(self, state, y_true, y_proba, sample_weight):
        """``(xp, codes, loss, w)``: one batch's class codes (``k`` for a label that
        is none of the classes) and per-sample losses."""
        xp, device, yt, p, w = self._proba(state, y_true, y_proba, sample_weight)
        k = self.num_classes or 2
        if self.validate and p.shape[0]:  # host reads: validate=True only
            from ..classification._proba_input import proba_problem

            proba_problem(yt, p, w, labels=list(range(k)), validate=True)
        acc = state["sw"].dtype
        if not xp.isdtype(p.dtype, "real floating"):
            p = xp.astype(p, acc)
        eps = float(xp.finfo(p.dtype).eps)  # the dtype given: scikit-learn's clip
        if xp.finfo(p.dtype).bits < 32:  # float16 / bfloat16: the terms in ``acc``
            p = xp.astype(p, acc)
        codes, _ = _class_codes(yt, k, xp)
        loss = _prob.log_loss_terms(codes, p, _prob.clip_bounds(eps, acc, xp, device),
                                    xp=xp, acc=acc, outside=k)
        return xp, codes, loss, w

    def compute(self, state):
        """The mean (or, ``normalize=False``, summed) loss: 0-d, NaN before any weight."""
        xp, mean = self._mean(state)
        total = mean if self.normalize else state["s_loss"]
        return xp.astype(total, result_dtype(state, xp))


class BrierScoreStream(_SumOfLosses):
    """Functional streaming Brier score (see the module docstring).

    Parameters
    ----------
    num_classes : int or None, default=None
        ``None`` (or 2 with 1-D scores): binary, ``y_proba`` of shape ``(n,)``
        is the probability of ``pos_label``; else ``y_proba`` is ``(n, C)``,
        one column per class ``0..C-1``.
    pos_label : int or float, default=1
        Binary: the label of the positive class (any other label is negative).
    scale_by_half : bool or "auto", default="auto"
        Halve the score (``"auto"``: for two classes), as scikit-learn.
    validate : bool, default=False
        Check each batch as :func:`metrix.brier_score_loss` does (host reads).
    """

    _input_name = "y_proba"

    def __init__(self, num_classes=None, *, pos_label=1, scale_by_half="auto",
                 validate=False):
        _check_num_classes(num_classes)
        _check_pos_label(pos_label)
        _prob._check_scale(scale_by_half)
        self.num_classes, self.pos_label = num_classes, pos_label
        self.scale_by_half, self.validate = scale_by_half, bool(validate)
        self.key = ("brier", num_classes, pos_label, self.validate)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "BrierScoreStream", "num_classes": self.num_classes,
                "pos_label": self.pos_label, "scale_by_half": self.scale_by_half}

    def _terms(self, state, y_true, y_proba, sample_weight):
        """``(xp, codes, loss, w)``: one batch's class codes (binary: 1 for
        ``pos_label``, else 0) and unscaled per-sample Brier terms."""
        xp, _, yt, p, w = self._proba(state, y_true, y_proba, sample_weight)
        binary = p.ndim == 1
        if self.validate and p.shape[0]:  # host reads: validate=True only
            from ..classification._proba_input import proba_problem

            if binary:
                proba_problem(yt, p, None, pos_label=self.pos_label, mode="binary",
                              normalized=False)
            else:
                proba_problem(yt, p, None, labels=list(range(self.num_classes)))
        acc = state["sw"].dtype
        if not is_float(p, xp) or xp.finfo(p.dtype).bits < 32:
            p = xp.astype(p, acc)  # integers, float16 / bfloat16: the terms in ``acc``
        if not binary:
            codes, _ = _class_codes(yt, self.num_classes, xp)
            q = true_proba_rows(codes, p, xp, outside=self.num_classes)
        else:
            codes = _positive_codes(yt, self.pos_label, xp)
            q = true_proba_rows(codes, p, xp)
        return xp, codes, _prob.brier_terms(q, p, xp=xp, acc=acc), w

    def compute(self, state):
        """The Brier score: 0-d, NaN before any weight."""
        xp, score = self._mean(state)
        if _prob.brier_halved(self.scale_by_half, self.num_classes or 2):
            score = score * 0.5
        return xp.astype(score, result_dtype(state, xp))


class HingeLossStream(_SumOfLosses):
    """Functional streaming hinge loss of decision values (see the module docstring).

    Parameters
    ----------
    num_classes : int or None, default=None
        ``None`` (or 2 with 1-D decisions): binary, ``y_pred`` of shape
        ``(n,)`` is the decision value of ``pos_label``; else ``(n, C)``, one
        column per class ``0..C-1`` (Crammer-Singer margins).
    pos_label : int or float, default=1
        Binary: the label of the positive class (any other label is negative:
        ``{-1, 1}`` and ``{0, 1}`` both work with the default).
    squared : bool, default=False
        The squared hinge loss (TorchMetrics' ``squared=True``).
    multiclass_mode : {"crammer-singer", "one-vs-all"}, default="crammer-singer"
        ``"one-vs-all"``: one binary hinge loss per class, shape ``(C,)``
        (TorchMetrics' ``MulticlassHingeLoss(multiclass_mode="one-vs-all")``).
    validate : bool, default=False
        Check each batch on the host: finite decisions and, multiclass, labels
        in ``0..C-1`` (a device sync per batch).
    """

    _input_name = "pred_decision"

    def __init__(self, num_classes=None, *, pos_label=1, squared=False,
                 multiclass_mode="crammer-singer", validate=False):
        _check_num_classes(num_classes)
        _check_pos_label(pos_label)
        if multiclass_mode not in ("crammer-singer", "one-vs-all"):
            raise ValueError("multiclass_mode must be 'crammer-singer' or 'one-vs-all', got "
                             f"{multiclass_mode!r}")
        self.num_classes, self.pos_label = num_classes, pos_label
        self.squared, self.multiclass_mode = bool(squared), multiclass_mode
        self.validate = bool(validate)
        if multiclass_mode == "one-vs-all" and num_classes is not None:
            self._width = num_classes
        self.key = ("hinge", num_classes, pos_label, self.squared, multiclass_mode,
                    self.validate)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "HingeLossStream", "num_classes": self.num_classes,
                "pos_label": self.pos_label, "squared": self.squared,
                "multiclass_mode": self.multiclass_mode}

    def update(self, state, y_true, y_pred, sample_weight=None):
        """The state after one batch (pure; no host read unless ``validate``)."""
        xp, _, yt, f, w = self._proba(state, y_true, y_pred, sample_weight)
        acc = state["sw"].dtype
        if not xp.isdtype(f.dtype, "real floating"):
            f = xp.astype(f, acc)
        multiclass = f.ndim == 2
        if self._width is not None and not multiclass:
            raise ValueError("multiclass_mode='one-vs-all' needs decisions of shape "
                             f"(n_samples, {self._width}), got {tuple(f.shape)}")
        if self.validate and f.shape[0]:  # host reads: validate=True only
            self._check(yt, f, multiclass, xp)
        if multiclass:
            codes, valid = _class_codes(yt, self.num_classes, xp)
            codes = xp.where(valid, codes, xp.zeros_like(codes))
        else:
            codes, valid = _positive_codes(yt, self.pos_label, xp), None
        loss = _prob.hinge_terms(f, codes, multiclass=multiclass, xp=xp, acc=acc,
                                 squared=self.squared,
                                 one_vs_all=self.multiclass_mode == "one-vs-all")
        if valid is not None:
            mask = valid[:, None] if loss.ndim == 2 else valid
            loss = xp.where(mask, loss, xp.full_like(loss, math.nan))
        return self._added(state, loss, w, xp)

    def _check(self, yt, f, multiclass, xp):
        from .._core.validation import assert_all_finite

        assert_all_finite(f, xp=xp, input_name="pred_decision")
        if multiclass:
            _, valid = _class_codes(yt, self.num_classes, xp)
            if not bool(xp.all(valid)):  # host read: validate=True only
                raise ValueError("y_true contains labels that are not integers in "
                                 f"[0, {self.num_classes}) (num_classes={self.num_classes})")

    def compute(self, state):
        """The mean hinge loss: 0-d (``(C,)`` one-vs-all), NaN before any weight."""
        xp, mean = self._mean(state)
        return xp.astype(mean, result_dtype(state, xp))


# -- D^2 scores: the loss sum and the (weighted) count of each class ----------------------

class _D2(_SumOfLosses):
    """The D^2 form of a loss stream (``_terms`` of its loss class): the state adds
    ``class_w``, the (weighted) number of samples of each class, and ``n``, the
    number of samples (int64).  The null model predicts the class prior
    ``class_w / sum(class_w)``, so its loss sum is a function of ``class_w`` alone:
    exact from a fixed-size state, merged by addition."""

    def _init(self, xp, device, fdt):
        state = super()._init(xp, device, fdt)
        k = self.num_classes or 2
        state["class_w"] = xp.zeros((k,), dtype=state["sw"].dtype, device=device)
        state["n"] = xp.zeros((), dtype=count_dtype(xp, device), device=device)
        return state

    def update(self, state, y_true, y_proba, sample_weight=None):
        """The state after one batch (pure; no host read unless ``validate``)."""
        xp, codes, loss, w = self._terms(state, y_true, y_proba, sample_weight)
        k = self.num_classes or 2
        acc = state["sw"].dtype
        if w is not None:
            w = self._flat_as(w, acc, xp)
        # code k: a label that is none of the classes (its loss is NaN already)
        counts = _ops(xp).bincount(codes, length=k + 1, weights=w)[:k]
        state = self._added(state, loss, w, xp)
        return {**state, "class_w": state["class_w"] + xp.astype(counts, acc),
                "n": state["n"] + codes.shape[0]}

    def _null(self, class_w, prior, xp):
        raise NotImplementedError

    def compute(self, state):
        """D^2 of all the data: 0-d; NaN for fewer than two samples (as the one-shot
        function, without its warning: no host read) or a null loss of 0."""
        xp, _ = _ns.get_namespace_and_device(state["sw"])
        class_w = state["class_w"]
        prior = safe_divide(class_w, xp.sum(class_w), zero_value=math.nan, xp=xp)
        few = state["n"] < 2  # (the null loss of one sample is 0: not divided by)
        null = self._null(class_w, prior, xp)
        d2 = _prob.d2_from_sums(state["s_loss"], xp.where(few, xp.ones_like(null), null))
        d2 = xp.where(few, xp.full_like(d2, math.nan), d2)
        return xp.astype(d2, result_dtype(state, xp))


class D2LogLossScoreStream(_D2, LogLossStream):
    """Functional streaming D^2 log-loss score over classes ``0..num_classes-1``.

    ``1 - L(model) / L(prior)`` with ``L`` the weighted log-loss sum
    (:func:`~metrix.classification.probabilistic.log_loss_terms`) and the prior
    model's sum :func:`~metrix.classification.probabilistic.null_log_loss_sum`
    of the class weights.  Inputs as :class:`LogLossStream` (``num_classes=None``:
    binary, 1-D probabilities of class 1).
    """

    def __init__(self, num_classes=None, *, validate=False):
        super().__init__(num_classes, validate=validate)
        self.key = ("d2_log_loss",) + self.key[1:]

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "D2LogLossScoreStream", "num_classes": self.num_classes}

    def _null(self, class_w, prior, xp):
        return _prob.null_log_loss_sum(class_w, prior, xp=xp, acc=class_w.dtype)


class D2BrierScoreStream(_D2, BrierScoreStream):
    """Functional streaming D^2 Brier score (Brier skill score).

    ``1 - BS(model) / BS(prior)`` with ``BS`` the weighted sum of
    :func:`~metrix.classification.probabilistic.brier_terms` and the prior
    model's sum :func:`~metrix.classification.probabilistic.null_brier_sum` of
    the class weights.  Inputs as :class:`BrierScoreStream` (``num_classes=None``:
    binary, 1-D probabilities of ``pos_label``).
    """

    def __init__(self, num_classes=None, *, pos_label=1, validate=False):
        super().__init__(num_classes, pos_label=pos_label, validate=validate)
        self.key = ("d2_brier",) + self.key[1:]

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "D2BrierScoreStream", "num_classes": self.num_classes,
                "pos_label": self.pos_label}

    def _null(self, class_w, prior, xp):
        return _prob.null_brier_sum(class_w, prior, binary=self.num_classes is None, xp=xp,
                                    acc=class_w.dtype)
