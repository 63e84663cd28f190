"""Streaming perplexity of a language model: two sums, the negative log-likelihood
of the target tokens and their count.

``update(y_true, y_pred)`` takes token ids ``y_true`` of shape ``(B, S)`` and
logits ``y_pred`` of shape ``(B, S, V)`` (metrix's order: targets first;
TorchMetrics' ``Perplexity`` takes ``(preds, target)``).  Each token's
negative log-likelihood is ``logsumexp(logits) - logit[target]`` (a stable
log-softmax, in the logits' dtype, float32 at least; TorchMetrics takes the
log of a softmax, which is ``inf`` once a probability underflows), summed in
the widest float of the device:

* ``s_nll = sum w nll`` over the tokens whose target is not ``ignore_index``,
* ``sw = sum w`` over the same tokens (``w = 1`` unless ``sample_weight``
  is given: per sequence ``(B,)`` or per token ``(B, S)`` / ``(B * S,)``).

``compute`` is ``exp(s_nll / sw)``: the exponential of the mean over every
token seen (the corpus perplexity, as TorchMetrics' and Hugging Face's), not
a mean of per-batch or per-sequence perplexities, which would depend on how
the data was cut into batches.

A target that is neither ``ignore_index`` nor one of ``0..V-1`` makes its
token's loss NaN, so the result is NaN (no host read); ``validate=True``
raises ``ValueError`` for it instead (one host read per batch).
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from ..backends import ops as _ops
from ._functional import StreamMetric, array_namespace, dtype_probe, is_float, result_dtype
from ._wrappers import _Accumulating


class PerplexityStream(StreamMetric):
    """Functional streaming perplexity (see the module docstring).

    Parameters
    ----------
    ignore_index : int or None, default=None
        Target id whose tokens count for nothing (padding, ``-100``).
    validate : bool, default=False
        Raise for a target outside ``0..V-1`` (one host read per batch).
    """

    def __init__(self, ignore_index=None, *, validate=False):
        if ignore_index is not None and (not isinstance(ignore_index, int)
                                         or isinstance(ignore_index, bool)):
            raise ValueError(f"ignore_index must be None or an int, got {ignore_index!r}")
        if ignore_index is not None and not -2 ** 63 <= ignore_index < 2 ** 63:
            raise ValueError(f"ignore_index must be a 64-bit integer (no token id is "
                             f"outside that range), got {ignore_index!r}")
        self.ignore_index, self.validate = ignore_index, bool(validate)
        self.key = ("perplexity", ignore_index, self.validate)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "PerplexityStream", "ignore_index": self.ignore_index}

    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        return {"sw": xp.zeros((), dtype=acc, device=device),
                "s_nll": xp.zeros((), dtype=acc, device=device),
                "meta_dtype": dtype_probe(xp, device, fdt)}

    def update(self, state, y_true, y_pred, sample_weight=None):
        """Add one batch of sequences (pure; static shapes)."""
        xp, device, _, y, logits, w = self._inputs(state, y_true, y_pred, sample_weight,
                                                   primary=state["sw"])
        _check_shapes(y, logits)
        if not is_float(logits, xp):
            raise TypeError(f"y_pred must be floating-point logits (B, S, V), got {logits.dtype}")
        if self.validate and y.shape[0] * y.shape[1]:
            self._check_targets(y, logits.shape[2], xp)
        acc = state["sw"].dtype
        nll, counted = token_nll(y, logits, self.ignore_index, xp=xp, acc=acc)
        if w is not None:
            w = _token_weights(xp.astype(w, acc, copy=False), y.shape, xp)
            counted = counted * w
        return {**state, "sw": state["sw"] + xp.sum(counted),
                "s_nll": state["s_nll"] + xp.sum(counted * nll)}

    def _check_targets(self, y, v, xp):
        ok = (y >= 0) & (y < v)
        if is_float(y, xp):
            ok = ok & (y == xp.floor(y))
        if self.ignore_index is not None:
            ok = ok | (y == self.ignore_index)
        if not bool(xp.all(ok)):  # host read: validate=True only
            raise ValueError(f"y_true holds target ids outside 0..{v - 1} (the vocabulary of "
                             f"y_pred's last axis) that are not ignore_index="
                             f"{self.ignore_index!r}")

    def accumulator(self, state):
        """``(state', add)`` where the backend adds batches in place (eager CPU torch):
        ``state'`` holds copies of the sums and ``add(y_true, y_pred)`` adds one
        unweighted batch into them (False, nothing done, for a batch it does not
        take: call :meth:`update`); None elsewhere (and with ``validate=True``).
        For the stateful wrappers, which own their sums; :meth:`update` stays pure."""
        if self.validate:
            return None
        made = _ops(array_namespace(state["sw"])).nll_accumulator(
            state["sw"], state["s_nll"], ignore_index=self.ignore_index)
        if made is None:
            return None
        own_sw, own_nll, add = made
        return {**state, "sw": own_sw, "s_nll": own_nll}, add

    def compute(self, state):
        """``exp(s_nll / sw)`` (0-d; NaN before any counted token)."""
        xp = _ns.get_namespace_and_device(state["sw"])[0]
        sw = state["sw"]
        mean = state["s_nll"] / xp.where(sw == 0, xp.full_like(sw, math.nan), sw)
        return xp.astype(perplexity_from_mean_nll(mean, xp), result_dtype(state, xp))


def perplexity_from_mean_nll(mean_nll, xp):
    """The formula: ``exp`` of the mean negative log-likelihood per token."""
    return xp.exp(mean_nll)


def _check_shapes(y, logits):
    if logits.ndim != 3:
        raise ValueError(f"y_pred must be logits of shape (batch, seq_len, vocab_size), got "
                         f"{logits.ndim} dimensions {tuple(logits.shape)}")
    if y.ndim != 2:
        raise ValueError(f"y_true must be token ids of shape (batch, seq_len), got "
                         f"{y.ndim} dimensions {tuple(y.shape)}")
    if logits.shape[2] == 0:
        raise ValueError(f"y_pred {tuple(logits.shape)} has no vocabulary (vocab_size 0): "
                         "no token has a probability")
    if tuple(y.shape) != tuple(logits.shape[:2]):
        raise ValueError(f"y_true {tuple(y.shape)} and y_pred {tuple(logits.shape)} differ in "
                         "(batch, seq_len)")


def _token_weights(w, shape, xp):
    """Weights per sequence ``(B,)`` or per token ``(B, S)`` / ``(B * S,)`` as ``(B, S)``."""
    b, s = shape
    size = math.prod(w.shape)
    if size == b * s:
        return xp.reshape(w, (b, s))
    if size == b:
        return xp.broadcast_to(xp.reshape(w, (b, 1)), (b, s))
    raise ValueError(f"sample_weight of shape {tuple(w.shape)}: expected one weight per "
                     f"sequence ({b},) or per token ({b}, {s})")


def token_nll(y, logits, ignore_index, *, xp, acc):
    """``(nll, counted)`` per token ``(B, S)`` in ``acc``: ``logsumexp - logit[y]``
    (0 where ignored, NaN where ``y`` is no id of ``0..V-1``) and 1 / 0 for the
    tokens that count."""
    if xp.finfo(logits.dtype).bits < 32:  # float16 / bfloat16: the sums in float32
        logits = xp.astype(logits, xp.float32)
    v = logits.shape[2]
    valid = (y >= 0) & (y < v)
    if is_float(y, xp):
        valid = valid & (y == xp.floor(y))  # NaN fails every compare
    cdt = _ns.count_dtype(xp, _ns.device_of(logits))
    idx = xp.astype(xp.where(valid, y, xp.zeros_like(y)), cdt)
    nll = xp.astype(_ops(xp).token_nll(logits, idx), acc)
    nll = xp.where(valid, nll, xp.full_like(nll, math.nan))
    if ignore_index is None:
        return nll, xp.ones_like(nll)
    counted = y != ignore_index
    return xp.where(counted, nll, xp.zeros_like(nll)), xp.astype(counted, acc)


class Perplexity(_Accumulating):
    """Streaming perplexity of token ids ``y_true`` ``(B, S)`` under logits ``y_pred``
    ``(B, S, V)``: ``exp`` of the mean negative log-likelihood per token.

    ``Perplexity(ignore_index=None, *, validate=False)``; ``update(y_true,
    y_pred, sample_weight=None)`` (metrix's order: targets first).  Equals
    TorchMetrics' ``Perplexity`` (the mean over every token seen, tokens whose
    target is ``ignore_index`` left out), with a stable log-softmax.  See
    :class:`metrix.stream.PerplexityStream`.

    Parameters
    ----------
    ignore_index : int or None, default=None
        Target id whose tokens count for nothing (padding, ``-100``).
    validate : bool, default=False
        Raise ``ValueError`` for a target outside ``0..V-1`` (one host read
        per batch); without it such a target makes the result NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from metrix.stream import Perplexity
    >>> m = Perplexity(ignore_index=-100)
    >>> m.update(np.array([[0, 1, -100]]), np.zeros((1, 3, 4)))  # uniform over 4 tokens
    >>> round(float(m.compute()), 6)
    4.0
    """

    higher_is_better = False
    _owned_leaf = "s_nll"

    def __init__(self, ignore_index=None, *, validate=False):
        super().__init__(PerplexityStream(ignore_index, validate=validate))
