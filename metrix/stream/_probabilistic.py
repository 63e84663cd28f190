"""Streaming log loss: a weighted sum of per-sample losses and of the weights.

State ``{"sw", "s_loss"}`` (widest float).  The per-sample loss is
scikit-learn's: probabilities clipped to ``[eps, 1 - eps]`` with ``eps`` the
machine epsilon of ``y_proba``'s dtype, then ``-log p[y]`` (binary 1-D input
is the probability of class 1).  Written here (``_sample_log_loss``) until
``metrix.classification.probabilistic`` exposes its helper.

**Bad labels**, as :func:`metrix.log_loss` with ``labels=range(C)``: with
``validate=True`` each batch is checked by the one-shot checks (a true label
outside ``0..C-1`` raises, so do NaN or out-of-range probabilities; rows that
do not sum to one warn); with ``validate=False`` nothing is read and a true
label that is not one of the integers ``0..C-1`` (2.5, -1, NaN included)
makes its loss NaN, so the result is NaN, on every backend.
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from .._core.arith import safe_divide
from ._functional import StreamMetric, dtype_probe, is_float, result_dtype


class LogLossStream(StreamMetric):
    """Functional streaming log loss over classes ``0..num_classes-1``.

    ``num_classes=None`` (or 2 with 1-D scores): binary, ``y_proba`` of shape
    ``(n,)`` is the probability of class 1; else ``y_proba`` is ``(n, C)``.
    ``normalize=False`` gives the summed loss.  ``validate=True`` checks each
    batch as :func:`metrix.log_loss` does (a device sync per batch); see the
    module docstring for bad labels without it.
    """

    def __init__(self, num_classes=None, *, normalize=True, validate=False):
        if num_classes is not None and (not isinstance(num_classes, int) or num_classes < 2):
            raise ValueError(f"num_classes must be None or an int >= 2, got {num_classes!r}")
        self.num_classes, self.normalize = num_classes, bool(normalize)
        self.validate = bool(validate)
        self.key = ("log_loss", num_classes, self.validate)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "LogLossStream", "num_classes": self.num_classes,
                "normalize": self.normalize}

    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        return {"sw": xp.zeros((), dtype=acc, device=device),
                "s_loss": xp.zeros((), dtype=acc, device=device),
                "meta_dtype": dtype_probe(xp, device, fdt)}

    def update(self, state, y_true, y_proba, sample_weight=None):
        xp, device, _, yt, p, w = self._inputs(state, y_true, y_proba, sample_weight)
        k = self.num_classes or 2
        if p.ndim == 2 and p.shape[1] == 1 and k == 2:
            p = xp.reshape(p, (-1,))
        if not (p.ndim == 2 and p.shape[1] == k) and not (p.ndim == 1 and k == 2):
            want = f"(n_samples, {k})" + (" or (n_samples,)" if k == 2 else "")
            raise ValueError(f"y_proba must have shape {want}, got {tuple(p.shape)}")
        if self.validate and p.shape[0]:  # host reads: validate=True only
            from ..classification._proba_input import proba_problem

            proba_problem(yt, p, w, labels=list(range(k)), validate=True)
        acc = state["sw"].dtype
        loss = _sample_log_loss(xp.reshape(yt, (-1,)), p, xp=xp, acc=acc)
        n = loss.shape[0]
        w = xp.ones((n,), dtype=acc, device=device) if w is None else xp.reshape(
            xp.astype(w, acc), (-1,))
        return {**state, "sw": state["sw"] + xp.sum(w), "s_loss": state["s_loss"] + xp.sum(
            w * loss)}

    def compute(self, state):
        xp, _ = _ns.get_namespace_and_device(state["sw"])
        total = state["s_loss"]
        if self.normalize:
            total = safe_divide(total, state["sw"], zero_value=math.nan, xp=xp)
        return xp.astype(total, result_dtype(state, xp))


def _sample_log_loss(y, p, *, xp, acc):
    """``-log clip(p)[y]`` per sample (clip at the epsilon of ``p``'s dtype); NaN
    where ``y`` is not one of the classes ``0..k-1`` (no host read)."""
    if not xp.isdtype(p.dtype, "real floating"):
        p = xp.astype(p, acc)
    eps = float(xp.finfo(p.dtype).eps)
    if xp.finfo(p.dtype).bits < 32:
        # float16 / bfloat16: 1 - p and the clip in the accumulator's precision (the
        # values as given, as scikit-learn sees them; the epsilon stays the input's)
        p = xp.astype(p, acc)
    if p.ndim == 1:
        p = xp.stack([1.0 - p, p], axis=1)
    p = xp.clip(p, eps, 1.0 - eps)
    k = p.shape[1]
    cdt = _ns.count_dtype(xp, _ns.device_of(p))
    if is_float(y, xp):
        valid = (y == xp.floor(y)) & (y >= 0) & (y < k)  # NaN fails every compare
        y = xp.where(valid, y, xp.zeros_like(y))
    else:
        if y.dtype != cdt:
            y = xp.astype(y, cdt)
        valid = (y >= 0) & (y < k)
        y = xp.where(valid, y, xp.zeros_like(y))
    idx = xp.reshape(xp.astype(y, cdt), (-1, 1))
    picked = xp.take_along_axis(p, idx, axis=1)[:, 0]
    loss = -xp.log(xp.astype(picked, acc))
    return xp.where(valid, loss, xp.full_like(loss, math.nan))
