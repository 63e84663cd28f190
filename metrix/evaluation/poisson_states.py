"""The Poisson bootstrap as mergeable states (host code, NumPy): intervals of data that
arrives in chunks.

Each of the ``B`` resamples is a :class:`~metrix.evaluation.partial.PartialEvaluation`
state of its own.  A chunk of rows ``[r, r + n)`` feeds resample ``b`` with the
weights ``w_i * c_{ib}``, where ``c_{ib} ~ Poisson(1)`` comes from the
counter-based generator :func:`metrix.evaluation._poisson.poisson_counts` keyed
by ``(seed, i, b)``: the counts of a row do not depend on how the rows are cut
into chunks, partitions or machines, so the resample states merge by addition
like the point estimate's, and the intervals are the same for any split.

ROC AUC, average precision and the one-vs-rest AUCs resample their histogram
(``bins``, fixed edges): a table of distinct scores per resample would hold
``B`` copies of the data.  For the same reason the median absolute error (a
table of distinct errors) gets no interval.

References
----------
.. [1] N. Chamandy, O. Muralidharan, A. Najmi and S. Naidu, "Estimating
   Uncertainty for Massive Data Streams", Google technical report, 2012.
.. [2] A. Owen and D. Eckles, "Bootstrapping data arrays of arbitrary
   order", Annals of Applied Statistics 6 (2012).
"""

from __future__ import annotations

import numpy as np

from ._poisson import poisson_counts
from .partial import TABLED as NOT_RESAMPLED
from .partial import PartialEvaluation

__all__ = ["PoissonBootstrap"]


class PoissonBootstrap:
    """``B`` resample states of ``metrics``, fed chunk by chunk.

    Parameters
    ----------
    metrics : sequence of str
        :data:`metrix.evaluation.partial.PARTIAL_METRICS` names; those of
        :data:`NOT_RESAMPLED` are left out (no interval).
    n_resamples : int
        ``B``, at least 2.
    seed : int
        Seed of the counts (any partition of the rows gives the same draws).
    labels, pos_label
        As :class:`~metrix.evaluation.partial.PartialEvaluation`.
    bins : int or array-like, default=1000
        Bins of the resampled ROC AUC / average precision histograms.
    """

    def __init__(self, metrics, *, n_resamples, seed, labels=None, pos_label=None,
                 bins=1000):
        if int(n_resamples) < 2:
            raise ValueError(f"n_resamples must be at least 2, got {n_resamples}")
        self.b, self.seed = int(n_resamples), int(seed)
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        self.pe = PartialEvaluation([m for m in metrics if m not in NOT_RESAMPLED],
                                    labels=labels, pos_label=pos_label, method="binned",
                                    bins=bins)

    def empty(self) -> list:
        """The states of no data (one per resample)."""
        return [self.pe.empty() for _ in range(self.b)]

    def chunk(self, row_start, y_true, y_pred=None, y_score=None, sample_weight=None) -> list:
        """The resample states of the rows ``[row_start, row_start + len(y_true))``."""
        n = len(y_true)
        if n == 0:
            return self.empty()
        counts = poisson_counts(self.seed, int(row_start), n, 0, self.b)
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, np.float64)
        return [self.pe.chunk(y_true, y_pred, y_score, w * counts[i]) for i in range(self.b)]

    def merge(self, *states) -> list:
        """Resample by resample, the states of the union of the chunks."""
        states = [s for s in states if s is not None]
        return [self.pe.merge(*(s[i] for s in states)) for i in range(self.b)]

    def intervals(self, states, values, *, confidence_level=0.95, method="percentile") -> dict:
        """``{name: {"low", "high", "standard_error"}}`` around the point ``values``.

        ``method``: ``"percentile"`` or ``"basic"`` (as :func:`metrix.bootstrap`); a
        NaN among the resampled values makes the bounds NaN.
        """
        import array_api_compat.numpy as xp

        from .intervals import _interval

        if method not in ("percentile", "basic"):
            raise ValueError(f'method must be "percentile" or "basic", got {method!r}')
        dist = [self.pe.finalize(s) for s in states]
        out = {}
        for name, value in values.items():
            if name.endswith("_error_bound") or name not in dist[0]:
                continue
            d = np.asarray([r[name] for r in dist], dtype=np.float64)
            low, high, se = _interval(d, np.float64(value), method,
                                      (1 - confidence_level) / 2, None, xp)
            out[name] = {"low": float(low), "high": float(high), "standard_error": float(se)}
        return out
