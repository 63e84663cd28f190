"""Streaming calibration error: one fixed histogram of confidences and accuracies.

State ``{"hist"}`` of shape ``(n_bins + 1, 3)`` in the widest float: per bin
the weight (a count without ``sample_weight``), the weighted confidences and
the weighted accuracies (:func:`metrix.classification.calibration.calibration_histogram`:
one ``searchsorted`` and one ``bincount`` per batch, no host read).  A sum:
it merges, syncs and checkpoints by addition, and ``compute`` applies the
one-shot formula (:func:`metrix.classification.calibration.calibration_error_from_histogram`)
to it.  TorchMetrics keeps every confidence instead (a state that grows with
the data); its bins, the edges ``torch.linspace(0, 1, n_bins + 1)`` with a
bin of their own for a confidence of 1.0, are the ones used here.

**Bad input.** ``validate=True`` reads each batch (a device sync) and raises
for probabilities outside [0, 1], NaN or infinite, and labels that are not
0 / 1 (binary) or ``0..num_classes-1`` (multiclass).  With ``validate=False``
nothing is read: a NaN probability makes the result NaN; a probability
below 0 is in the first bin and one above 1 in the last; a label outside
the classes counts as a wrong prediction (binary: anything but 1 is
negative); samples whose label is ``ignore_index`` count for nothing.
"""

from __future__ import annotations

from .._core import namespace as _ns
from .._core.validation import check_consistent_length
from ..backends import ops as _ops
from ..classification.calibration import (
    bin_edges,
    calibration_error_from_histogram,
    calibration_histogram,
    check_n_bins,
    check_norm,
    confidence_dtype,
    top_label,
)
from ._functional import StreamMetric, array_namespace, dtype_probe, is_float, result_dtype
from ._wrappers import _Accumulating

__all__ = ["CalibrationError", "CalibrationStream"]


class CalibrationStream(StreamMetric):
    """Functional streaming calibration error (expected, RMS or maximum).

    Parameters
    ----------
    n_bins : int, default=15
        Equal-width bins on [0, 1] (plus one for a confidence of 1.0).
    norm : {"l1", "l2", "max"}, default="l1"
        Expected, root-mean-square or maximum calibration error.
    num_classes : int or None, default=None
        None: binary, ``y_prob`` of shape ``(n,)`` is the probability of class 1
        and ``y_true`` is 0 / 1; ``C``: ``y_prob`` is ``(n, C)`` (top label).
    ignore_index : int or None, default=None
        A label whose samples are left out.
    validate : bool, default=False
        Check each batch's values (a device sync); see the module docstring.
    """

    def __init__(self, n_bins=15, norm="l1", num_classes=None, *, ignore_index=None,
                 validate=False):
        self.n_bins = check_n_bins(n_bins, type(self).__name__)
        self.norm = check_norm(norm)
        if num_classes is not None and (not isinstance(num_classes, int)
                                        or isinstance(num_classes, bool) or num_classes < 2):
            raise ValueError(f"num_classes must be None or an int >= 2, got {num_classes!r}")
        if ignore_index is not None and (not isinstance(ignore_index, int)
                                         or isinstance(ignore_index, bool)):
            raise ValueError(f"ignore_index must be None or an int, got {ignore_index!r}")
        self.num_classes, self.ignore_index = num_classes, ignore_index
        self.validate = bool(validate)
        # norm is read by compute only: every norm shares one histogram
        self.key = ("calibration", self.n_bins, num_classes, ignore_index, self.validate)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "CalibrationStream", "n_bins": self.n_bins, "norm": self.norm,
                "num_classes": self.num_classes, "ignore_index": self.ignore_index}

    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        return {"hist": xp.zeros((self.n_bins + 1, 3), dtype=acc, device=device),
                "meta_dtype": dtype_probe(xp, device, fdt)}

    def update(self, state, y_true, y_prob, sample_weight=None):
        """Add one batch (pure; static shapes)."""
        hist = state["hist"]
        xp, device, _, y, p, w = self._inputs(state, y_true, y_prob, sample_weight,
                                              primary=hist)
        p = confidence_dtype(p, xp, device)
        y = self._shaped(y, p, xp)
        if self.validate and p.shape[0]:  # host reads: validate=True only
            self._check_values(y, p, xp)
        if self.num_classes is None:
            conf = xp.reshape(p, (-1,))
            correct = y if y.dtype == xp.bool else y == 1
        else:
            conf, correct = top_label(p, y, xp=xp)
        if w is not None:
            w = xp.reshape(w, (-1,))
        if self.ignore_index is not None:
            kept = xp.astype(y != self.ignore_index, hist.dtype)
            w = kept if w is None else xp.astype(w, hist.dtype) * kept
        add = calibration_histogram(conf, correct, w, self.n_bins, xp=xp, acc=hist.dtype)
        return {**state, "hist": hist + add}

    def accumulator(self, state):
        """``(state', add)`` where the backend adds batches in place (eager CPU
        NumPy / torch, ``validate=False``, no ``ignore_index``): ``state'`` holds a
        copy of the histogram and ``add(y_true, y_prob)`` adds one unweighted
        batch into it (False, nothing done, for a batch it does not take: call
        :meth:`update`); None elsewhere.  For the stateful wrapper, which owns its
        histogram; :meth:`update` stays pure."""
        if self.validate or self.ignore_index is not None:
            return None
        hist = state["hist"]
        made = _ops(array_namespace(hist)).calibration_accumulator(
            hist, edges=(bin_edges(self.n_bins, True), bin_edges(self.n_bins, False)),
            multiclass=self.num_classes is not None)
        if made is None:
            return None
        own, add = made
        return {**state, "hist": own}, add

    def _shaped(self, y, p, xp):
        """``y`` 1-D; ``p`` checked against ``num_classes`` (shapes only)."""
        k = self.num_classes
        binary_ok = p.ndim == 1 or (p.ndim == 2 and p.shape[1] == 1)
        if (k is None and not binary_ok) or (k is not None and not (
                p.ndim == 2 and p.shape[1] == k)):
            want = "(n_samples,)" if k is None else f"(n_samples, {k})"
            hint = (f"; for {p.shape[1]} classes create the metric with "
                    f"num_classes={p.shape[1]}" if k is None and p.ndim == 2 else "")
            raise ValueError(f"y_prob must have shape {want}, got {tuple(p.shape)}{hint}")
        if y.ndim != 1:
            y = xp.reshape(y, (-1,))
        check_consistent_length(y, p)
        return y

    def _check_values(self, y, p, xp):
        # host reads: validate=True only
        lo, hi = xp.min(p), xp.max(p)
        if not (bool(lo >= 0) and bool(hi <= 1)):  # NaN fails both
            act = "a sigmoid" if self.num_classes is None else "a softmax"
            raise ValueError(f"y_prob must hold probabilities in [0, 1] (min {float(lo):.6g}, "
                             f"max {float(hi):.6g}, NaN fails): apply {act} to logits first.")
        top = 2 if self.num_classes is None else self.num_classes
        ok = (y >= 0) & (y < top)
        if is_float(y, xp):
            ok = ok & (y == xp.floor(y))
        if self.ignore_index is not None:
            ok = ok | (y == self.ignore_index)
        if not bool(xp.all(ok)):  # host read: validate=True only (_check_values)
            what = "0 or 1" if self.num_classes is None else f"in 0..{top - 1}"
            raise ValueError(f"y_true values must be {what} for CalibrationError"
                             + ("" if self.ignore_index is None
                                else f" (or ignore_index={self.ignore_index})") + ".")

    def compute(self, state):
        """The calibration error of everything seen (0-d, result dtype)."""
        hist = state["hist"]
        xp = array_namespace(hist)
        value = calibration_error_from_histogram(hist, norm=self.norm, xp=xp)
        return xp.astype(value, result_dtype(state, xp))


class CalibrationError(_Accumulating):
    """Streaming calibration error (``norm="l1"``: expected calibration error).

    ``CalibrationError(n_bins=15, norm="l1", num_classes=None, *,
    ignore_index=None, validate=False)``; ``num_classes=None`` is binary
    (``y_prob`` the probability of class 1, ``y_true`` 0 / 1), ``C`` the
    multiclass top-label error of ``(n, C)`` probabilities.  Equals
    :func:`metrix.calibration_error` on all the data, and TorchMetrics'
    ``BinaryCalibrationError`` / ``MulticlassCalibrationError`` (their
    binning; a fixed histogram instead of every confidence, and sample
    weights).  See :class:`metrix.stream.CalibrationStream`.

    Examples
    --------
    >>> import numpy as np
    >>> from metrix.stream import CalibrationError
    >>> m = CalibrationError(n_bins=5)
    >>> m.update(np.array([0, 1]), np.array([0.25, 0.75]))
    >>> m.update(np.array([1, 0]), np.array([0.6, 0.1]))
    >>> round(float(m.compute()), 4)
    0.25
    """

    higher_is_better = False
    _owned_leaf = "hist"  # eager CPU: unweighted batches added in place (``accumulator``)

    def __init__(self, n_bins=15, norm="l1", num_classes=None, *, ignore_index=None,
                 validate=False):
        super().__init__(CalibrationStream(n_bins, norm, num_classes,
                                           ignore_index=ignore_index, validate=validate))
