"""Mergeable tables of a binary score for ROC AUC and average precision (host code, NumPy).

Two statistics, both sums over the samples and so mergeable in any order:

* the **exact table**: the distinct scores, sorted, with the positive weight
  ``P_s`` and the negative weight ``N_s`` of each.  Two tables merge by
  concatenating and re-summing the equal scores (``np.unique``).  The table
  holds one row per distinct score (three float64 columns: 24 bytes a row).
  Both areas read it exactly, ties and weights included: it is the data
  with the tied samples of each class folded into one row.
* the **binned histogram**: the positive and negative weight of each bin of
  fixed ``edges`` (a bin is ``[e_b, e_{b+1})``, the last one closed; scores
  outside the edges fall in the end bins).  It treats the samples of one bin
  as tied, so its areas are approximate, with the bounds of
  :func:`binned_bounds`.

The areas are sums over the table in decreasing score order (each distinct
score is one threshold of the curves, so ties are exact).  Where a class has
no weight, :func:`metrix.roc_auc_score` and
:func:`metrix.average_precision_score` read the table as data and give
scikit-learn's errors and values.
"""

from __future__ import annotations

import warnings

import numpy as np  # host code by design: the tables are NumPy arrays merged on the client

from .._core import namespace as _ns
from .._core.stacklevel import find_stack_level
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ..ranking._averaging import ONE_CLASS
from ..ranking._rank_values import ap_from_terms, auc_from_u
from ..ranking._statistic import average_precision_from_groups, roc_auc_from_groups
from ..ranking.scores import average_precision_score, roc_auc_score
from .one_pass import evaluate_name

__all__ = ["areas_of_sums", "binned_bounds", "check_edges", "empty_table", "merge_tables",
           "table_areas", "table_of"]

#: the two areas' names (``evaluate``'s, from the registry)
AUC, AP = evaluate_name(roc_auc_score), evaluate_name(average_precision_score)


def empty_table() -> dict:
    """The table of no data."""
    return {"score": np.zeros(0, np.float64), "pos": np.zeros(0, np.float64),
            "neg": np.zeros(0, np.float64)}


def table_of(score, positive, weight) -> dict:
    """The exact table of one chunk: distinct ``score`` with their summed weights.

    ``positive`` is a boolean array, ``weight`` the float64 sample weights.
    """
    score = np.asarray(score, dtype=np.float64).reshape(-1)
    if score.shape[0] == 0:
        return empty_table()
    distinct, inverse = np.unique(score, return_inverse=True)
    n = distinct.shape[0]
    pos = np.bincount(inverse, weights=np.where(positive, weight, 0.0), minlength=n)
    neg = np.bincount(inverse, weights=np.where(positive, 0.0, weight), minlength=n)
    return {"score": distinct, "pos": pos, "neg": neg}


def merge_tables(tables) -> dict:
    """One table of the union of the data of ``tables`` (associative, commutative).

    The tables are sorted runs: a stable sort of their concatenation (timsort)
    merges the runs in linear time, and equal scores are summed by ``reduceat``.
    """
    tables = [t for t in tables if t["score"].shape[0]]
    if not tables:
        return empty_table()
    if len(tables) == 1:
        return {k: v.copy() for k, v in tables[0].items()}
    score = np.concatenate([t["score"] for t in tables])
    order = np.argsort(score, kind="stable")
    score = score[order]
    pos = np.concatenate([t["pos"] for t in tables])[order]
    neg = np.concatenate([t["neg"] for t in tables])[order]
    start = np.flatnonzero(np.concatenate([[True], score[1:] != score[:-1]]))
    return {"score": score[start], "pos": np.add.reduceat(pos, start),
            "neg": np.add.reduceat(neg, start)}


def check_edges(bins) -> np.ndarray:
    """The bin edges: ``bins`` equal bins of [0, 1] (an int), or increasing edges."""
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"bins must be a positive int or increasing edges, got {bins}")
        return np.linspace(0.0, 1.0, int(bins) + 1)
    if bins is None:
        raise ValueError('method="binned" needs bins= (an int or increasing edges)')
    edges = np.asarray(bins, dtype=np.float64).reshape(-1)
    if edges.shape[0] < 2 or not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
        raise ValueError("bins must be at least two finite, strictly increasing edges")
    return edges


def histogram_of(score, positive, weight, edges) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative weight per bin of ``edges``."""
    score = np.asarray(score, dtype=np.float64).reshape(-1)
    n_bins = edges.shape[0] - 1
    b = np.clip(np.searchsorted(edges, score, side="right") - 1, 0, n_bins - 1)
    pos = np.bincount(b, weights=np.where(positive, weight, 0.0), minlength=n_bins)
    neg = np.bincount(b, weights=np.where(positive, 0.0, weight), minlength=n_bins)
    return pos, neg


def table_areas(score, pos, neg, names, *, n_pos, n_neg) -> dict:
    """``roc_auc`` / ``average_precision`` of a table (scores ascending).

    ``n_pos`` / ``n_neg``: the numbers of positive and negative samples
    (unweighted), for scikit-learn's "Only one class present" NaN of ROC AUC.
    """
    p_total, n_total = float(pos.sum()), float(neg.sum())
    if n_pos and n_neg and p_total > 0 and n_total > 0:
        return _closed_form(pos, neg, names)
    out = {}
    keep_p, keep_n = pos != 0, neg != 0
    y = np.concatenate([np.ones(int(keep_p.sum()), np.int64),
                        np.zeros(int(keep_n.sum()), np.int64)])
    s = np.concatenate([score[keep_p], score[keep_n]])
    w = np.concatenate([pos[keep_p], neg[keep_n]])
    if AUC in names:
        # host NumPy tables (this module is host code): no device to read
        out[AUC] = (float(roc_auc_score(y, s, sample_weight=w)) if n_pos and n_neg
                    else _one_class())
    if AP in names:
        if y.shape[0] == 0:  # no weight at all: scikit-learn's value for no positive
            y, s, w = np.zeros(1, np.int64), np.zeros(1), np.ones(1)
        out[AP] = float(average_precision_score(y, s, sample_weight=w))  # host tables, as above
    return out


def _closed_form(pos, neg, names) -> dict:
    """Both areas from the table: its rows in decreasing score order are the tie
    groups of :mod:`metrix.ranking._statistic`, whose area formulas read them
    (ties are one threshold)."""
    # host NumPy table in, Python floats out (the finished metrics)
    xp, p, n = _ns.namespace_for(np), pos[::-1], neg[::-1]
    formulas = {AUC: roc_auc_from_groups, AP: average_precision_from_groups}
    return {m: float(formulas[m](p, n, xp=xp)) for m in formulas if m in names}


def areas_of_sums(names, auc_sum, ap_sum, p_total, n_total, n_pos, n_neg) -> dict:
    """``roc_auc = auc_sum / (P N)``, ``average_precision = ap_sum / P`` (the family's
    :func:`~metrix.ranking._rank_values.auc_from_u` and ``ap_from_terms``) with
    scikit-learn's edge cases: one class (``n_pos`` or ``n_neg`` samples 0) gives
    a NaN ROC AUC with its warning, no positive weight an AP of 0.  Host values
    only (NumPy sums of a table, or Dask's computed terms): ``float()`` reads no
    device."""
    out = {}
    if AUC in names:
        # Python numbers: auc_from_u divides them on the host (no namespace used)
        out[AUC] = (auc_from_u(float(auc_sum), float(p_total), float(n_total), xp=None)
                    if n_pos and n_neg else _one_class())
    if AP in names:
        out[AP] = ap_from_terms(float(ap_sum), max(float(p_total), 0.0), xp=None)
    return out


def _one_class() -> float:
    """scikit-learn's NaN ROC AUC of one class, with its warning."""
    warnings.warn(ONE_CLASS, as_sklearn_too(UndefinedMetricWarning),
                  stacklevel=find_stack_level())
    return float("nan")


def binned_bounds(pos, neg) -> dict:
    r"""Bounds on ``|binned - exact|`` of ROC AUC and average precision.

    ROC AUC: a pair (positive, negative) in different bins is ordered as by
    the exact scores; the binned area counts each pair inside a bin as a tie
    (1/2) where the exact area counts 0, 1/2 or 1, so

    .. math:: |\mathrm{AUC}_b - \mathrm{AUC}| \le \frac{1}{2}
              \frac{\sum_b P_b N_b}{P N}.

    Average precision: the positives of bin ``b`` add ``P_b / P`` times a
    weighted mean of the precisions at thresholds inside the bin, each in
    ``[L_b, U_b]`` with ``A``, ``B`` the positive and negative weight of the
    bins above: ``L_b = A / (A + B + N_b)`` (no positive of the bin yet, all
    its negatives) and ``U_b = (A + P_b) / (A + B + P_b)`` (all its positives,
    no negative); the binned value puts the precision ``Q_b = (A + P_b) /
    (A + B + P_b + N_b)``, also in ``[L_b, U_b]``, so

    .. math:: |\mathrm{AP}_b - \mathrm{AP}| \le \sum_b \frac{P_b}{P}
              \max(U_b - Q_b, Q_b - L_b).

    ``pos`` / ``neg`` are the bins' weights with scores ascending.
    """
    p_total, n_total = float(pos.sum()), float(neg.sum())
    auc = (0.5 * float(np.dot(pos, neg)) / (p_total * n_total)
           if p_total > 0 and n_total > 0 else float("nan"))
    if p_total <= 0:
        return {AUC: auc, AP: float("nan")}
    # the bins in decreasing score order; A, B: weights strictly above each bin
    pd, nd = pos[::-1], neg[::-1]
    a = np.cumsum(pd) - pd
    b = np.cumsum(nd) - nd
    with np.errstate(invalid="ignore", divide="ignore"):
        low_den = a + b + nd
        low = np.where(low_den > 0, a / np.where(low_den > 0, low_den, 1.0), 1.0)
        up_den = a + b + pd
        up = np.where(up_den > 0, (a + pd) / np.where(up_den > 0, up_den, 1.0), 1.0)
        q_den = a + b + pd + nd
        q = np.where(q_den > 0, (a + pd) / np.where(q_den > 0, q_den, 1.0), 1.0)
    gap = np.maximum(up - q, q - low)
    ap = float(np.sum(np.where(pd > 0, pd / p_total * gap, 0.0)))
    return {AUC: auc, AP: ap}
