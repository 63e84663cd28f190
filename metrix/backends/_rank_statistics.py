"""The ranking family's statistics, as adapter operations.

What a binary ROC AUC or average precision needs of unweighted 1-D scores,
whichever kernel computes it: the adapters' fast paths (one sort of packed
keys on host float32, two value sorts of the split classes on CPUs) or the
array API composition below (one sort and binary searches), traceable and
sync-free.  The metric asks for the statistic and applies its one formula
(:mod:`metrix.ranking.scores`); which kernel runs is decided here.
"""

from __future__ import annotations

from .._core.namespace import device_of, max_float_dtype

#: from this many samples the CPU adapters split the classes and sort values
#: (below it one argsort costs less than the compaction)
SPLIT_MIN = 1024


class RankStatistics:
    """Statistics of binary ranking metrics (mixed into every adapter): the
    generic kernels, which the CPU adapters override, and the statistics
    composed of them."""

    def split_sort(self, score, pos, /):
        """The scores of the positives and of the negatives, each sorted ascending.

        Two compacted arrays (sizes ``P`` and ``N - P``): two value sorts that
        together cost about one sort of ``N``, with no argsort and no gather.
        Returns None where compaction needs a host read (accelerators) or has
        a data-dependent shape under tracing: the generic case.
        """
        return None

    def auc_pairs(self, score, pos, /):
        """``(2U, P, N)`` of unweighted binary ROC AUC (Mann-Whitney ``U``, ties
        counting 1/2; ``P`` positives, ``N`` negatives) as Python ints, from
        one sort of packed keys; None where the adapter has no such path (the
        caller sorts).  NumPy: float32 / float16 scores (:mod:`._packed_sort`)."""
        return None

    def ap_sum(self, score, pos, /):
        """``(S, P)`` of unweighted binary average precision, ``AP = S / P`` (0
        for ``P = 0``), as a Python float and int, from one sort of packed keys;
        None where the adapter has no such path (the caller sorts).  NumPy:
        float32 / float16 scores (:mod:`._packed_sort`)."""
        return None

    def split_rank_sums(self, q, r, /, *, precision=True):
        """The sums behind unweighted binary AUC and AP of a :meth:`split_sort`.

        ``(sum_v #{r < v} + #{r <= v}, sum_v (P - #{q < v}) / (P - #{q < v} + M - #{r < v}))``
        over ``v`` in ``q`` (sorted positives, ``P`` of them; ``r`` the ``M``
        sorted negatives), as a Python int and float (the second 0.0 without
        ``precision``).  The CPU adapters search in blocks on threads; generic:
        None (the caller searches with the namespace).
        """
        return None

    def mid_ranks(self, x, /):
        """``(lo + hi, order)``: for each value of a 1-D ``x``, the sum of its left
        and right ``searchsorted`` positions among the sorted values (twice its
        0-based mid-rank, plus one: tied values share it), listed in the order
        ``order`` of ``x``'s elements (None: ``x``'s own order).  Generic: the
        sorted values are the queries (cache-friendly binary searches)."""
        xp = self.xp
        ordered, order = self.sort_with_order(x)
        ranks = xp.searchsorted(ordered, ordered, side="left") + xp.searchsorted(
            ordered, ordered, side="right")
        return ranks, order

    def mann_whitney(self, score, pos, /):
        """``(2U, P, N)`` of 1-D ``score`` and boolean ``pos``: twice the
        Mann-Whitney ``U`` of the positives' scores over the negatives' (ties
        count 1/2), the numbers of positives and negatives.  Python ints where
        a host kernel summed them exactly; else arrays (``2U`` and ``P`` in the
        widest float of the device, ``N`` likewise), sync-free.

        .. math:: 2U = \\sum_{k \\in P} (lo_k + hi_k) - P^2

        with ``lo`` / ``hi`` each score's left / right ``searchsorted``
        position among the sorted scores (Hanley & McNeil, Radiology 143(1), 1982).
        """
        packed = self.auc_pairs(score, pos)
        if packed is not None:  # host float32 / float16: one sort of packed keys
            return packed
        if score.shape[0] >= SPLIT_MIN:
            split = self.split_sort(score, pos)
            sums = None if split is None else self.split_rank_sums(*split, precision=False)
            if sums is not None:  # two value sorts and one search, summed on the host
                return sums[0], int(split[0].shape[0]), int(split[1].shape[0])
        xp = self.xp
        acc = max_float_dtype(xp, device_of(score))
        ranks, order = self.mid_ranks(score)
        p = xp.astype(pos if order is None else self.take(pos, order), acc)
        n_pos = xp.sum(p)
        u2 = xp.sum(p * (xp.astype(ranks, acc) - n_pos))  # sum over P of (lo + hi - P)
        return u2, n_pos, score.shape[0] - n_pos

    def ap_terms(self, score, pos, /):
        """``(S, P)`` of 1-D ``score`` and boolean ``pos``: the unweighted binary
        average precision is ``S / P`` (0 without positives).  With the scores
        sorted ascending, ``s_i`` the first position of sample ``i``'s tie group
        and ``b_i`` the positives before it,

        .. math:: S = \\sum_{i \\in P} \\frac{P - b_i}{n - s_i}

        (scikit-learn's step-wise sum over distinct thresholds).  Python
        numbers from a host kernel; else arrays in the widest float, sync-free.
        """
        packed = self.ap_sum(score, pos)
        if packed is not None:  # host float32 / float16: one sort of packed keys
            return packed
        xp = self.xp
        acc = max_float_dtype(xp, device_of(score))
        ordered, order = self.sort_with_order(score)
        first = xp.searchsorted(ordered, ordered, side="left")  # each tie group's start
        p = xp.astype(self.take(pos, order), acc)
        before = xp.cumulative_sum(p) - p  # the positives ahead of each position
        n_pos = xp.sum(p)
        precision = (n_pos - self.take(before, first)) / xp.astype(score.shape[0] - first, acc)
        return xp.sum(p * precision), n_pos
