"""The training loop's update first: an eager CPU batch added in place.

:class:`InPlaceFirst` goes before ``_Accumulating`` in a stateful metric's bases:
its ``update`` hands an unweighted batch straight to the adder the metric already
holds (``spec.accumulator``'s, see ``_Accumulating``) while the state it writes is
still the metric's own, and leaves every other case (the first batch, a
handed-out state, weights, a batch the adder declines, a compiled step: the
adapter's adder declines while ``torch.compile`` traces) to ``_Accumulating``.
At training-loop batch sizes the calls between ``update`` and the adder cost as
much as the batch's arithmetic.
"""

from __future__ import annotations


class InPlaceFirst:
    """``update`` through the held in-place adder first (module docstring)."""

    def update(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch (no host read)."""
        add = self._add
        if (add is not None and sample_weight is None and self._owned is not None
                and self._owned is self._state.get(self._owned_leaf) and add(y_true, y_pred)):
            seen = self._seen
            if seen is not None:
                self._seen = seen + y_pred.shape[0]
            return
        super().update(y_true, y_pred, sample_weight)
