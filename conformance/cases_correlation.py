"""Conformance rows: Pearson's and Spearman's correlation (one-shot).

SciPy is the reference (scikit-learn has no correlation metric):
``scipy.stats.pearsonr`` / ``spearmanr`` per column, and for weighted
Pearson the correlation of ``numpy.cov(..., aweights=w)``.  Rows: 1-D and
2-D inputs, ties, weights with zeros, two samples, a large mean, a constant
input (NaN, SciPy's value; SciPy also warns, metrix does not) and the errors
(fewer than two samples, different lengths).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from conformance.registry import Case

rng = np.random.default_rng(20261207)

N = 64
Y = rng.normal(size=N) * 3 + 1
P = 0.6 * Y + rng.normal(size=N)
Y2 = rng.normal(size=(N, 3)) * [1.0, 5.0, 0.5]
P2 = Y2 * [0.3, -1.0, 2.0] + rng.normal(size=(N, 3))
YT = rng.integers(0, 5, N).astype(float)      # ties
PT = np.where(rng.random(N) < 0.5, YT, rng.integers(0, 5, N)).astype(float)
W_ZEROS = np.where(rng.random(N) < 0.3, 0.0, rng.random(N) + 0.1)
BIG = 1e3 + rng.normal(size=N)
BIG_P = BIG + rng.normal(size=N)
CONST = np.full(N, 0.1)


def _columns(fn):
    """SciPy's coefficient of each column pair (a float for 1-D input)."""
    def ref(t, p):
        if t.ndim == 1:
            return float(fn(t, p)[0])
        return np.array([fn(t[:, j], p[:, j])[0] for j in range(t.shape[1])])
    return ref


pearson, spearman = _columns(stats.pearsonr), _columns(stats.spearmanr)


def weighted_pearson(t, p, sample_weight):
    c = np.cov(t, p, aweights=sample_weight)
    return float(c[0, 1] / np.sqrt(c[0, 0] * c[1, 1]))


def _needs_two(t, p, **kw):
    raise ValueError("at least 2 samples")


def _lengths(t, p, **kw):
    raise ValueError("inconsistent lengths")


CASES: list[Case] = []
for name, ref in (("pearson_corrcoef", pearson), ("spearman_corrcoef", spearman)):
    CASES += [
        Case(name, ref, (Y, P), id="1d"),
        Case(name, ref, (Y2, P2), id="2d"),
        Case(name, ref, (Y[:, None], P[:, None]), id="column"),
        Case(name, ref, (YT, PT), id="ties"),
        Case(name, ref, (Y[:2], P[:2]), id="two-samples"),
        Case(name, ref, (BIG, BIG_P), id="large-mean"),
        Case(name, ref, (CONST, P), id="constant", check_warnings="off"),
        Case(name, _needs_two, (Y[:1], P[:1]), id="one-sample-error"),
        Case(name, _lengths, (Y, P[:-1]), id="length-error"),
    ]
CASES += [
    Case("pearson_corrcoef", weighted_pearson, (Y, P), {"sample_weight": W_ZEROS},
         id="zero-weights"),
    Case("pearson_corrcoef", weighted_pearson, (YT, PT), {"sample_weight": W_ZEROS + 1.0},
         id="ties-weighted"),
]
