r"""Exact ROC AUC and average precision with the score table kept distributed (host code).

The tree path (:mod:`._graph`) merges the per-partition tables of distinct
scores up to one table at the root: simple, but the root task and the
client hold one row per distinct score.  This path never gathers the table:

1. per partition, the rows ``(score, w [y = pos], w [y != pos])``;
2. ``groupby("score").sum(split_out=k)``: the table of distinct scores in
   ``k`` hash partitions (a shuffle);
3. ``sort_values("score")`` (a distributed sort) and ``cumsum`` of the
   positive and negative weights, in score order across the partitions;
4. the sums, with ``P_s``, ``N_s`` the weights of score ``s``, ``N_{<s}``
   the negative weight below it and ``T_s``, ``F_s`` the positive and
   negative weight at or above it:

.. math::

   \mathrm{AUC} = \frac{\sum_s P_s (N_{<s} + N_s / 2)}{P N}, \qquad
   \mathrm{AP} = \frac{1}{P} \sum_s P_s \frac{T_s}{T_s + F_s}.

Both are scikit-learn's values (the trapezoid through every distinct
threshold; the step sum of precision over recall increments), in another
order of summation.  No task holds more than a partition of the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _rows(df, y_true, y_score, weight, pos_label):
    """The ``(s, pos, neg)`` rows of one partition (float64)."""
    w = np.ones(len(df)) if weight is None else df[weight].to_numpy(dtype=np.float64)
    positive = (df[y_true] == pos_label).to_numpy()
    return pd.DataFrame({"s": df[y_score].to_numpy(dtype=np.float64),
                         "pos": np.where(positive, w, 0.0), "neg": np.where(positive, 0.0, w),
                         "n_pos": positive.astype(np.int64),
                         "n_neg": (~positive).astype(np.int64)})


def area_terms(data, y_true, y_score, sample_weight, *, pos_label, split_out):
    """Delayed ``(auc_sum, ap_sum, P, N, n_pos, n_neg)`` of the areas above."""
    meta = pd.DataFrame({"s": np.zeros(0), "pos": np.zeros(0), "neg": np.zeros(0),
                         "n_pos": np.zeros(0, np.int64), "n_neg": np.zeros(0, np.int64)})
    rows = data.map_partitions(_rows, y_true, y_score, sample_weight, pos_label, meta=meta)
    counts = rows[["n_pos", "n_neg"]].sum()
    table = rows[["s", "pos", "neg"]].groupby("s").sum(split_out=split_out)
    # a fresh 0..n-1 index per partition: the columns below align one to one
    table = table.reset_index().sort_values("s").reset_index(drop=True)
    table = table.assign(cum_pos=table["pos"].cumsum(), cum_neg=table["neg"].cumsum())
    total_pos, total_neg = table["pos"].sum(), table["neg"].sum()
    auc_sum = (table["pos"] * (table["cum_neg"] - 0.5 * table["neg"])).sum()
    above_pos = total_pos - table["cum_pos"] + table["pos"]
    above_neg = total_neg - table["cum_neg"] + table["neg"]
    precision = (above_pos / (above_pos + above_neg)).where(table["pos"] > 0, 0.0)
    ap_sum = (table["pos"] * precision).sum()
    terms = (auc_sum, ap_sum, total_pos, total_neg, counts["n_pos"], counts["n_neg"])
    return [t.to_delayed() for t in terms]
