"""Vectorised bootstrap paths: B resamples of a metric without B metric calls.

A *path* turns a batch of resamples into a batch of metric values with a few
array operations over all resamples at once.  A batch of ``M`` resamples is
either ``idx`` (an ``(M, N)`` array of drawn sample indices, multinomial
resampling) or ``counts`` (an ``(M, N)`` float array of Poisson(1) counts).

* **Label metrics** (accuracy, precision / recall / F-beta, balanced accuracy,
  MCC, Cohen's kappa): the label set is discovered once on the full data, the
  labels are encoded once, and one ``bincount`` of ``m * S + cell`` (weights:
  the drawn samples' weights) gives the ``M`` confusion matrices (``S = C^2``
  cells; for many classes three length-``C`` bincounts instead).  The
  metric's own formula (``metrix.classification._prf``, ``.agreement``: they
  reduce over the last axis) is then applied to the ``(M, C)`` per-class counts.
* **Binary ranking metrics** (``roc_auc_score``, ``average_precision_score``):
  the scores are sorted once for all resamples and split by class; each
  resample is a row of counts in that order, and one cumulative sum per class
  plus one gather give every resample's AUC or AP at once (ties located once
  by ``searchsorted``).
* **Probabilistic losses** (``log_loss``, ``brier_score_loss``): per-sample
  loss terms, clipped as the metric clips them; a resample's loss is the
  count-weighted mean of the terms.
* **Mean-based regression metrics** (MAE, MSE, RMSE, R², explained variance,
  MAPE): one ``(M, N) @ (N, k)`` product of counts with the per-sample terms of
  :class:`~metrix.stream._regression.RegressionStream`, then its formulas.

A :class:`Batch` is drawn once and may feed several paths (``bootstrap_many``):
its integer counts are made once, and paths on the same inputs share what
they derive from it (confusion matrices, counts in a ranking's order).

Every path also gives the jackknife values for ``method="bca"`` (labels,
losses and regression in closed form from the full-data statistic; ranking by
the same batched code on leave-one-out count rows, O(N^2): meant for moderate
N).
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from .._core.edge import array_metric as _fn
from ..backends import ops as _ops
from ..classification import _encoding as _labels
from ..classification import _proba_input as _proba
from ..classification import agreement as _agr
from ..classification import probabilistic as _prob
from ..classification._input import label_problem, prepare_inputs
from ..classification._prf import PRF, prf_from_counts
from ..classification._statistic import LabelCounts
from ..classification.confusion import (
    accuracy_from_totals,
    accuracy_score,
    precision_score,
    recall_score,
)
from ..ranking._rank_values import ap_from_terms, auc_from_u
from ..regression.scores import explained_fraction
from ..stream._regression import RegressionStream, explained_fraction_terms, mean_error_of

#: elements of one intermediate (M, N) or (G, C) block
BLOCK = 1 << 22
#: unweighted label metrics resample the confusion cells directly (see LabelPath)
CELL_PATH = True


class Batch:
    """One batch of ``M`` resamples, drawn once and read by every path.

    ``idx``: ``(M, N)`` drawn indices (multinomial resampling), or ``raw``:
    ``(M, N)`` Poisson counts (any integer or float dtype, host or device).
    :meth:`counts` gives the per-sample counts in a float dtype (one
    ``bincount`` of the indices, made once and kept); ``memo`` keeps what
    several paths derive from the same draws (the confusion matrices of one
    ``(y_true, y_pred)``, the counts of one ranking in its sorted order).
    ``shared``: the batch feeds several metrics (:func:`bootstrap_many`).
    """

    def __init__(self, n, *, xp, device, idx=None, raw=None, shared=False):
        self.n, self.xp, self.device, self.idx, self.raw = n, xp, device, idx, raw
        self.shared = shared
        self.m = int((idx if idx is not None else raw).shape[0])
        self.memo = {}

    def counts(self, dtype):
        """(M, N) counts of each sample in each resample, as ``dtype`` (None: the
        integer counts of the drawn indices)."""
        key = ("counts", dtype)
        if key not in self.memo:
            xp = self.xp
            if self.idx is not None:
                int_key = ("counts", None)
                if int_key not in self.memo:
                    self.memo[int_key] = _int_counts(self.idx, self.n, xp=xp, o=_ops(xp))
                k = self.memo[int_key]
            else:
                k = _ns.asarray(self.raw, xp=xp, device=self.device)
            self.memo[key] = k if dtype is None else xp.astype(k, dtype)
        return self.memo[key]

    def loop_args(self, dtype):
        """Keywords of :func:`intervals._loop_values` (the loop fallback)."""
        if self.idx is not None:
            return {"idx": self.idx}
        return {"counts": self.counts(dtype)}


class _Path:
    """Metric values of a batch of per-sample resamples (``cell_level`` paths draw
    their own statistic instead: :meth:`LabelPath.sample`)."""

    cell_level = False

    def values_batch(self, batch):
        """Metric values of the ``M`` resamples of ``batch``."""
        if batch.idx is not None:
            return self.values(idx=batch.idx)
        return self.values(counts=batch.counts(self.acc))

    #: elements of one (M, N) intermediate: small enough to stay in cache-ish memory
    block_elements = 1 << 21

    def _counts(self, idx=None, counts=None, *, weighted=True):
        """The ``(M, N)`` resample counts in ``self.acc`` (one ``bincount`` of drawn
        indices, or as given), times the sample weights ``self.w`` if ``weighted``."""
        xp = self.xp
        k = xp.astype(counts if idx is None else _int_counts(idx, self.n, xp=xp, o=self.o),
                      self.acc)
        if weighted and getattr(self, "w", None) is not None:
            k = k * xp.reshape(self.w, (1, -1))
        return k

    def block_rows(self):
        """Resamples per batch (the default ``batch_size``)."""
        if self.cell_level:
            return max(1, BLOCK // (self.c1 * self.c1))
        return max(1, self.block_elements // max(self.n, 1))


def _int_counts(idx, n, *, xp, o):
    """(M, N) integer resample counts from (M, N) drawn indices (one bincount)."""
    m = idx.shape[0]
    dev = _ns.device_of(idx)
    rows = xp.reshape(xp.arange(m, dtype=_ns.count_dtype(xp, dev), device=dev), (-1, 1)) * n
    flat = o.bincount(xp.reshape(rows + idx, (-1,)), length=m * n)
    return xp.reshape(flat, (m, n))


# ---------------------------------------------------------------------------
# label metrics

class LabelPath(_Path):
    """B confusion matrices from one bincount, then a batched formula.

    Without sample weights the confusion matrix of a resample depends on the
    resample only through how many of each cell's samples it drew, so the
    ``M`` matrices are drawn directly: ``Multinomial(N, cm / N)`` (multinomial
    resampling) or independent ``Poisson(cm)`` cells (Poisson resampling).
    This is the same distribution as drawing ``N`` indices per resample, at a
    cost of O(M C^2) instead of O(M N).  With sample weights, indices (or
    Poisson counts) are drawn per sample and one ``bincount`` of
    ``m * C^2 + cell`` weighted by the drawn samples' weights gives the
    matrices.  ``metric``: the function (its formula is picked by identity);
    ``setwise``: an averaged metric (its classes are ``labels``, or ``pos_label``).
    """

    #: the keywords a path reads (each metric takes some of them; ``labels`` only
    #: the averaged ones; ``weights`` only None)
    READS = frozenset({"sample_weight", "normalize", "labels", "pos_label", "average",
                       "zero_division", "beta", "macro_over", "adjusted", "weights",
                       "replace_undefined_by"})

    def __init__(self, metric, setwise, y_true, y_pred, kw, setups=None):
        self.metric, self.kw = metric, dict(kw)
        sw = kw.get("sample_weight")
        average = kw.get("average", "binary")
        labels = kw.get("labels")
        setups = {} if setups is None else setups
        key = ("label problem", id(y_true), id(y_pred), id(sw))
        if key not in setups:
            setups[key] = label_problem(prepare_inputs(y_true, y_pred, sw, validate=True))
        prob = setups[key]
        xp, dev = prob.xp, prob.device
        if setwise and average == "binary":
            classes = [kw.get("pos_label", 1)]
        else:
            classes = _ns.host_list(labels if setwise and labels is not None else prob.classes)
        self.xp, self.device, self.o = xp, dev, _ops(xp)
        self.acc, self.fdt = prob.acc_dtype, prob.float_dtype
        key = key + tuple(repr(c) for c in classes)
        if key not in setups:
            setups[key] = _labels.encode(prob.y_true, prob.y_pred, labels=classes, xp=xp,
                                         device=dev)
        space = setups[key]
        self.c = len(classes)
        self.c1 = space.size  # classes + the "other" bin
        self.t = _ns.asarray(space.y_true, xp=xp, device=dev)
        self.p = _ns.asarray(space.y_pred, xp=xp, device=dev)
        self.w = prob.weights
        self.n = int(self.t.shape[0])
        self.dense = self.c1 * self.c1 <= 4096
        self.cell = self.t * self.c1 + self.p
        self.cell_level = CELL_PATH and self.w is None and self.dense
        # metrics on the same inputs and classes share their confusion matrices
        self.share_key = ("cm", id(y_true), id(y_pred), id(sw),
                          tuple(repr(c) for c in classes))
        if self.cell_level:
            self.cm0 = xp.reshape(self._bincount(xp.reshape(self.cell, (1, -1)), None,
                                                 self.c1 * self.c1, 1), (-1,))

    def sample(self, rng, m, resampling):
        """``m`` resampled values from drawn confusion cells (``cell_level`` only)."""
        xp, c1 = self.xp, self.c1
        if resampling == "multinomial":
            cells = rng.multinomial(self.n, self.cm0, m)
        else:
            cells = rng.poisson_rates(self.cm0, m)
        cm = xp.reshape(xp.astype(cells, self.acc), (m, c1, c1))
        diag = xp.reshape(cm, (m, -1))[:, :: c1 + 1]
        return self.formula(diag, xp.sum(cm, axis=1), xp.sum(cm, axis=2))

    def values_batch(self, batch):
        if not batch.shared:
            return super().values_batch(batch)
        if self.share_key not in batch.memo:
            batch.memo[self.share_key] = self.counts(counts=batch.counts(self.acc))
        return self.formula(*batch.memo[self.share_key])

    # -- statistic ----------------------------------------------------------
    def _bincount(self, codes, weights, length, m):
        xp, dev = self.xp, self.device
        if m == 1:  # one resample: its codes as they are (no N-sized sum of offsets)
            flat = xp.reshape(codes, (-1,))
        else:
            rows = xp.reshape(xp.arange(m, dtype=codes.dtype, device=dev), (-1, 1)) * length
            flat = xp.reshape(rows + codes, (-1,))
        wflat = None if weights is None else xp.reshape(weights, (-1,))
        out = self.o.bincount(flat, length=m * length, weights=wflat)
        return xp.reshape(xp.astype(out, self.acc), (m, length))

    def counts(self, idx=None, counts=None):
        """(tp, pred, true) per bin, each (M, C+1), for a batch of resamples."""
        xp = self.xp
        if idx is not None and self.w is not None:
            # weighted: counts per sample (one bincount of the indices), then sequential
            # passes, instead of two random gathers (codes and weights) per draw
            counts, idx = xp.astype(_int_counts(idx, self.n, xp=xp, o=self.o), self.acc), None
        if idx is not None:
            m = idx.shape[0]
            w = None if self.w is None else xp.take(self.w, xp.reshape(idx, (-1,)))
            w = None if w is None else xp.reshape(w, idx.shape)

            def pick(a):
                return xp.reshape(xp.take(a, xp.reshape(idx, (-1,))), idx.shape)
        else:
            m = counts.shape[0]
            w = counts if self.w is None else counts * xp.reshape(self.w, (1, -1))

            def pick(a):
                return xp.broadcast_to(xp.reshape(a, (1, -1)), counts.shape)
        c1 = self.c1
        if self.dense:
            cm = xp.reshape(self._bincount(pick(self.cell), w, c1 * c1, m), (m, c1, c1))
            diag = xp.reshape(cm, (m, -1))[:, :: c1 + 1]
            return diag, xp.sum(cm, axis=1), xp.sum(cm, axis=2)
        hit = xp.where(self.t == self.p, self.t, xp.full_like(self.t, c1))
        true = self._bincount(pick(self.t), w, c1, m)
        pred = self._bincount(pick(self.p), w, c1, m)
        tp = self._bincount(pick(hit), w, c1 + 1, m)[:, :c1]
        return tp, pred, true

    def values(self, idx=None, counts=None):
        return self.formula(*self.counts(idx=idx, counts=counts))

    def jackknife(self):
        """Leave-one-out values, grouped: (values (G, ...), multiplicity (G,))."""
        xp, dev, c1 = self.xp, self.device, self.c1
        tp, pred, true = self.counts(counts=xp.ones((1, self.n), dtype=self.acc, device=dev))
        if self.w is None:  # one group per confusion cell, weighted by its count
            g = xp.arange(c1 * c1, device=dev)
            gt, gp = g // c1, g % c1
            gw = xp.ones((c1 * c1,), dtype=self.acc, device=dev)
            cm = self._bincount(xp.reshape(self.cell, (1, -1)), None, c1 * c1, 1)
            mult = xp.reshape(cm, (-1,))
        else:  # one group per sample
            gt, gp, gw = self.t, self.p, xp.astype(self.w, self.acc)
            mult = xp.ones((self.n,), dtype=self.acc, device=dev)
        eye = xp.eye(c1, dtype=self.acc, device=dev)
        out = []
        step = max(1, BLOCK // c1)
        for s in range(0, int(gt.shape[0]), step):
            t_, p_, w_ = gt[s:s + step], gp[s:s + step], xp.reshape(gw[s:s + step], (-1, 1))
            et, ep = xp.take(eye, t_, axis=0) * w_, xp.take(eye, p_, axis=0) * w_
            same = xp.reshape(xp.astype(t_ == p_, self.acc), (-1, 1))
            out.append(self.formula(tp - et * same, pred - ep, true - et))
        return xp.concat(out, axis=0), mult

    # -- formula: each metric's own, on the (M, C) counts ----------------------
    def formula(self, tp, pred, true):
        f, kw, xp = self.metric, self.kw, self.xp
        if f is _fn(accuracy_score):
            return accuracy_from_totals(xp.sum(tp, axis=1), xp.sum(true, axis=1),
                                        normalize=kw.get("normalize", True), xp=xp)
        counts = LabelCounts(*(v[:, :self.c] for v in (tp, pred, true)))
        if f is _fn(_agr.balanced_accuracy_score):
            return _agr.balanced_accuracy_from_counts(
                counts.tp, counts.true, adjusted=kw.get("adjusted", False), xp=xp)
        if f is _fn(_agr.matthews_corrcoef):
            return _agr.mcc_from_counts(*counts, xp=xp)
        if f is _fn(_agr.cohen_kappa_score):
            terms = _agr.kappa_terms(None, counts, weights=None, xp=xp, acc=self.acc)
            # float() of the user's keyword (a host value), not of an array
            return _agr.kappa_value(*terms, xp=xp, replace_undefined_by=float(
                kw.get("replace_undefined_by", math.nan)))
        return prf_of(f, counts, kw, kw.get("average", "binary"), xp, self.acc)


def prf_of(metric, counts, kw, average, xp, acc):
    """Precision, recall or F-beta (``metric``) of ``LabelCounts``: the family's
    formula, on any leading batch axis."""
    which = 0 if metric is _fn(precision_score) else 1 if metric is _fn(recall_score) else 2
    return prf_from_counts(counts, beta=float(kw.get("beta", 1.0)),  # fbeta_score's keyword
                           average=average, warn_for=(),
                           zero_division=kw.get("zero_division", "warn"), weights=None, xp=xp,
                           dtype=acc, acc_dtype=acc, validate=False, want=(PRF[which],),
                           macro_over=kw.get("macro_over", "all"))[which]


# ---------------------------------------------------------------------------
# binary ranking metrics

class _RankStats:
    """Cumulative counts of one batch in a :class:`RankingPath`'s order (shared by the
    metrics of one ranking)."""

    def __init__(self, kp, kn, xp):
        self.kp, self.kn, self.xp = kp, kn, xp
        self.cp = _cumsum0(kp, xp)
        self._cn = None

    @property
    def cn(self):
        if self._cn is None:
            self._cn = _cumsum0(self.kn, self.xp)
        return self._cn


def _rowdot(a, b, xp):
    """``sum(a * b, axis=-1)``, not a BLAS product: a BLAS call that starts threads
    on a machine whose cores are busy can take 10-100x longer than one pass."""
    return xp.sum(a * b, axis=-1)


def _cumsum0(k, xp):
    """Cumulative sums along axis 1 with a leading 0 column."""
    zero = xp.zeros((k.shape[0], 1), dtype=k.dtype, device=_ns.device_of(k))
    return xp.concat([zero, xp.cumulative_sum(k, axis=1)], axis=1)


class _RankingSetup:
    """What a :class:`RankingPath` derives once from the full data (shared by the AUC
    and AP of one ranking): ``perm`` (the positives, then the negatives, each by
    descending score: one unstable argsort per class; ties are located by the
    searches, so their order does not matter), its inverse ``rank``, and the
    tie-group positions ``lo``, ``hi``, ``hp``, ``hn``."""

    def __init__(self, yt, y_score, pos, sw, *, xp, device, acc, o):
        ys = _ns.asarray(y_score, xp=xp, device=device)
        self.fdt = _ns.result_float_dtype(xp, device, ys)
        self.n = int(yt.shape[0])
        is_pos = yt == pos
        ip, ineg = xp.nonzero(is_pos)[0], xp.nonzero(~is_pos)[0]
        self.np_ = int(ip.shape[0])
        nsp, nsn = -xp.astype(xp.take(ys, ip), acc), -xp.astype(xp.take(ys, ineg), acc)
        op, on = o.argsorts([nsp, nsn])
        self.perm = xp.concat([xp.take(ip, op), xp.take(ineg, on)])
        # position of each sample in ``perm``; int32 halves the memory the random
        # gather ``rank[idx]`` reads (3x faster)
        rank = o.inverse_permutation(self.perm)
        self.rank = xp.astype(rank, xp.int32) if self.n < 2**31 else rank
        nsp, nsn = xp.take(nsp, op), xp.take(nsn, on)  # ascending
        self.lo = xp.searchsorted(nsp, nsn, side="left")
        # a negative tied with a positive sits at its ``lo`` (host reads, once each)
        at = xp.take(nsp, xp.clip(self.lo, max=max(self.np_ - 1, 0))) if self.np_ else None
        self.ties = at is not None and bool(xp.any(at == nsn))
        self.hi = xp.searchsorted(nsp, nsn, side="right") if self.ties else self.lo
        self.hp_plain = not bool(xp.any(nsp[1:] == nsp[:-1]))  # no ties among positives
        self.hp = None if self.hp_plain else xp.searchsorted(nsp, nsp, side="right")
        self.hn = xp.searchsorted(nsn, nsp, side="right")
        self.w = None if sw is None else xp.take(
            xp.astype(_ns.asarray(sw, xp=xp, device=device), acc), self.perm)


class RankingPath(_Path):
    r"""One shared sort; per resample, cumulative counts of each class.

    The samples are sorted once by descending score and split by class (``perm``:
    the positives, then the negatives, each by descending score).  A resample is a
    row of counts in that order, ``kp`` (positives) and ``kn`` (negatives), times
    the sample weights.  With ``CP`` and ``CN`` their cumulative sums (a leading 0)
    and the tie groups located once by ``searchsorted`` on the sorted scores,

    .. math::

        \mathrm{AUC} = \frac{\sum_j kn_j (CP_{lo_j} + CP_{hi_j}) / 2}{P\,N}, \qquad
        \mathrm{AP} = \frac{1}{P} \sum_i kp_i
        \frac{CP_{hp_i}}{CP_{hp_i} + CN_{hn_i}}

    where ``lo_j`` / ``hi_j`` count the positives scored above / at least as high
    as negative ``j``, and ``hp_i`` / ``hn_i`` the positives / negatives scored at
    least as high as positive ``i``: the tie handling of one metric call.  One
    cumulative sum over each class and one monotone gather per metric.  ``auc``: ROC
    AUC, else average precision.
    """

    #: the keywords a path reads (each metric takes some of them; ``max_fpr`` only None)
    READS = frozenset({"sample_weight", "average", "pos_label", "max_fpr"})

    def __init__(self, auc, y_true, y_score, kw, setups=None):
        xp, dev = _ns.get_namespace_and_device(y_true, y_score, kw.get("sample_weight"))
        self.xp, self.device, self.o, self.auc = xp, dev, _ops(xp), auc
        yt = _ns.asarray(y_true, xp=xp, device=dev)
        self.acc = _ns.max_float_dtype(xp, dev)
        self.int64 = _ns.count_dtype(xp, dev) == xp.int64
        if auc:  # label_binarize: the greater class is positive
            pos = _ns.host_unique(_ns.to_host(yt))[-1]  # host read, once
            pos = pos.item() if hasattr(pos, "item") else pos
        else:
            pos = kw.get("pos_label", 1)
        sw = kw.get("sample_weight")
        # AUC and AP of the same ranking share the setup and each batch's cumulative counts
        self.share_key = ("rank", id(y_true), id(y_score), id(sw), repr(pos))
        setups = {} if setups is None else setups
        if self.share_key not in setups:
            setups[self.share_key] = _RankingSetup(yt, y_score, pos, sw, xp=xp, device=dev,
                                                   acc=self.acc, o=self.o)
        setup = setups[self.share_key]
        self.n, self.fdt, self.np_ = setup.n, setup.fdt, setup.np_
        self.perm, self.rank, self.w = setup.perm, setup.rank, setup.w
        self.lo, self.hi, self.ties = setup.lo, setup.hi, setup.ties
        self.hp, self.hn, self.hp_plain = setup.hp, setup.hn, setup.hp_plain

    def values(self, idx=None, counts=None):
        xp = self.xp
        if idx is not None:
            ranks = xp.reshape(xp.take(self.rank, xp.reshape(idx, (-1,))), idx.shape)
            k = self._exact(_int_counts(ranks, self.n, xp=xp, o=self.o))
        else:
            k = xp.take(xp.astype(counts, self.acc), self.perm, axis=1)
        return self.from_counts(k)

    def _exact(self, k):
        """Integer counts become int64 without weights (sums of counts times
        cumulative counts are exact below 2^63, and skip a float pass); else floats."""
        xp = self.xp
        if self.w is None and xp.isdtype(k.dtype, "integral") and self.int64:
            return k if k.dtype == xp.int64 else xp.astype(k, xp.int64)
        return xp.astype(k, self.acc)

    def values_batch(self, batch):
        if batch.idx is not None and not batch.shared:
            return self.values(idx=batch.idx)
        if self.share_key not in batch.memo:
            xp = self.xp
            # gather narrow integers (the random gather reads less memory): int32
            # counts of drawn indices, or the Poisson counts as drawn (uint8)
            narrow = xp.int32 if batch.idx is not None and self.n < 2**31 else None
            k = xp.take(batch.counts(narrow), self.perm, axis=1)
            batch.memo[self.share_key] = self._stats(self._exact(k))
        return self._formula(batch.memo[self.share_key])

    def from_counts(self, k):
        """Metric values for count rows ``k`` (M, N) in the order ``perm``."""
        return self._formula(self._stats(k))

    def _stats(self, k):
        xp = self.xp
        if self.w is not None:
            k = k * xp.reshape(self.w, (1, -1))
        return _RankStats(k[:, : self.np_], k[:, self.np_:], xp)

    def _formula(self, st):
        xp, acc = self.xp, self.acc
        npos = xp.astype(st.cp[:, -1], acc)
        if self.auc:
            below = xp.take(st.cp, self.lo, axis=1)
            if self.ties:  # twice the area: ties count one half
                area = xp.astype(_rowdot(st.kn, below + xp.take(st.cp, self.hi, axis=1), xp),
                                 acc) * 0.5
            else:
                area = xp.astype(_rowdot(st.kn, below, xp), acc)
            nneg = xp.astype(xp.sum(st.kn, axis=1), acc)
            return auc_from_u(area, npos, nneg, xp=xp)
        tp = st.cp[:, 1:] if self.hp_plain else xp.take(st.cp, self.hp, axis=1)
        den = tp + xp.take(st.cn, self.hn, axis=1)
        # a zero denominator has tp = 0 (counts and weights are >= 0): precision 0;
        # integer counts are >= 1 elsewhere, so max(den, 1) says it in one pass
        if xp.isdtype(den.dtype, "integral"):
            den = xp.maximum(den, xp.asarray(1, dtype=den.dtype, device=self.device))
        else:
            den = xp.where(den == 0, xp.asarray(1, dtype=den.dtype, device=self.device), den)
        prec = xp.astype(tp, acc) / xp.astype(den, acc) if tp.dtype != acc else tp / den
        # no positive weight: 0, as scikit-learn (its recall is then 1 everywhere)
        return ap_from_terms(xp.astype(_rowdot(st.kp, prec, xp), acc), npos, xp=xp)

    def jackknife(self):
        return _leave_one_out(self)


def _leave_one_out(path):
    """Jackknife values: ``path.from_counts`` of the leave-one-out count rows (row
    ``j`` leaves out the ``j``-th sample of the path's order), in blocks; O(N^2)."""
    xp, n = path.xp, path.n
    out = []
    step = max(1, BLOCK // max(n, 1))
    for s in range(0, n, step):
        e = min(s + step, n)
        rows = xp.reshape(xp.arange(s, e, device=path.device), (-1, 1))
        cols = xp.reshape(xp.arange(n, device=path.device), (1, -1))
        out.append(path.from_counts(xp.astype(rows != cols, path.acc)))
    return xp.concat(out, axis=0), None


# ---------------------------------------------------------------------------
# probabilistic losses (log loss, Brier score)


class ProbaPath(_Path):
    r"""Per-sample loss terms ``t`` and weights ``w``; a batch is two count products.

    .. math:: L_b = \frac{\sum_i k_{bi} w_i t_i}{\sum_i k_{bi} w_i}

    with ``t_i = -\log \operatorname{clip}(p_{i, y_i}, \epsilon, 1 - \epsilon)`` (log loss,
    the metric's own clipping) or ``\sum_c (T_{ic} - p_{ic})^2`` (Brier, halved for two
    classes as ``scale_by_half`` says).  The jackknife is closed form:
    ``(S - w_i t_i) / (W - w_i)``.  A resample the metric call would refuse raises
    the same kind of error: one that misses a class of ``y_true`` when ``labels``
    are not given (the metric rediscovers them), or whose weights are all zero.
    """

    #: the keywords a path reads (each metric takes some of them)
    READS = frozenset({"sample_weight", "labels", "normalize", "pos_label", "scale_by_half"})

    def __init__(self, metric, y_true, y_proba, kw):
        self.kw = dict(kw)
        sw = kw.get("sample_weight")
        log = metric is _fn(_prob.log_loss)
        if log:
            prob = _proba.proba_problem(y_true, y_proba, sw, labels=kw.get("labels"),
                                        normalized=kw.get("normalize", True))
        else:
            one_d = getattr(y_proba, "ndim", 1) == 1
            prob = _proba.proba_problem(y_true, y_proba, sw, labels=kw.get("labels"),
                                        pos_label=kw.get("pos_label"),
                                        mode="binary" if one_d else "multiclass")
        xp, dev = prob.xp, prob.device
        self.xp, self.device, self.o = xp, dev, _ops(xp)
        self.acc, self.fdt, self.n = prob.acc_dtype, prob.float_dtype, prob.n_samples
        if log:
            bounds = _prob.clip_bounds(prob.eps, self.acc, xp, dev)
            terms = _prob.log_loss_terms(prob.codes, prob.proba, bounds, xp=xp, acc=self.acc,
                                         outside=_proba.outside_code(prob))
            self.normalize = kw.get("normalize", True)
        else:
            terms = _prob.squared_error(prob)
            if _prob.brier_halved(kw.get("scale_by_half", "auto"), prob.n_classes):
                terms = terms * 0.5
            self.normalize = True
        self.w = prob.weights
        self.wt = terms if self.w is None else terms * self.w
        # without labels, a resample must hold every class of y_true (as the call checks)
        self.codes, self.k = None, prob.n_classes
        if kw.get("labels") is None and (log or prob.proba.ndim == 2):
            self.codes = prob.codes

    def values(self, idx=None, counts=None):
        xp = self.xp
        if idx is not None and self.codes is None:
            # sums of the drawn terms: one gather per draw, no counts to make
            flat = xp.reshape(idx, (-1,))

            def drawn_sum(v):
                return xp.sum(xp.reshape(xp.take(v, flat), idx.shape), axis=1)

            den = None if self.w is None else drawn_sum(self.w)
            return self._finish(drawn_sum(self.wt), den, idx.shape[0])
        if idx is not None:
            counts = xp.astype(_int_counts(idx, self.n, xp=xp, o=self.o), self.acc)
        return self.from_counts(xp.astype(counts, self.acc), drawn=idx is not None)

    def values_batch(self, batch):
        if batch.idx is not None and not batch.shared:
            return self.values(idx=batch.idx)
        return self.from_counts(batch.counts(self.acc), drawn=batch.idx is not None)

    def from_counts(self, k, drawn=False):
        """Loss of each count row ``k`` (M, N); ``drawn``: multinomial draws (the
        metric call sees only the drawn rows)."""
        xp = self.xp
        total = _rowdot(k, self.wt, xp)
        den = xp.sum(k, axis=1) if self.w is None else _rowdot(k, self.w, xp)
        if drawn and self.codes is not None:
            m, kk = k.shape[0], self.k
            rows = xp.reshape(xp.arange(m, dtype=self.codes.dtype, device=self.device),
                              (-1, 1)) * kk
            per_class = self.o.bincount(xp.reshape(rows + xp.reshape(self.codes, (1, -1)),
                                                   (-1,)), length=m * kk,
                                        weights=xp.reshape(k, (-1,)))
            if bool(xp.any(per_class == 0)):  # host read per batch
                raise ValueError("a bootstrap resample misses a class of y_true, so the "
                                 "metric call refuses it; pass labels= to declare them")
        return self._finish(total, den, k.shape[0])

    def _finish(self, total, den, m):
        """``total / den`` (``den=None``: every resample has N unit weights)."""
        xp = self.xp
        if den is None:  # no read: N > 0 unit weights
            den = xp.full((m,), float(self.n), dtype=self.acc, device=self.device)
        elif bool(xp.any(den == 0)):  # host read per batch: the call refuses these weights
            raise ValueError("Sample weights must contain at least one non-zero number "
                             "(a bootstrap resample has all its weights zero).")
        if not self.normalize:
            return total
        return total / den

    def jackknife(self):
        xp = self.xp
        w = xp.ones_like(self.wt) if self.w is None else self.w
        s, tw = xp.sum(self.wt), xp.sum(w)
        left = s - self.wt
        return (left / (tw - w) if self.normalize else left), None


# ---------------------------------------------------------------------------
# regression metrics (weighted means)

class RegressionPath(_Path):
    """Per-sample terms X (N, 1 + k); a batch of resamples is one counts @ X product:
    the weights and the ``k`` sums of :class:`~metrix.stream._regression.RegressionStream`
    ``key`` (its per-row terms; ``y`` centred on the full data's mean where R2 and
    explained variance read its moments, so no cancellation), read by its formulas."""

    #: the keywords a path reads (each metric takes some of them)
    READS = frozenset({"sample_weight", "multioutput", "force_finite"})

    def __init__(self, key, y_true, y_pred, kw):
        xp, dev = _ns.get_namespace_and_device(y_true, y_pred, kw.get("sample_weight"))
        self.xp, self.device, self.o, self.key = xp, dev, _ops(xp), key
        self.stream = RegressionStream(key, force_finite=kw.get("force_finite", True))
        self.acc = acc = _ns.max_float_dtype(xp, dev)
        yt = xp.astype(_ns.asarray(y_true, xp=xp, device=dev), acc)
        yp = xp.astype(_ns.asarray(y_pred, xp=xp, device=dev), acc)
        self.n = int(yt.shape[0])
        e = yt - yp
        moments = self.stream.statistic == "moments"  # shift-invariant in y
        terms = self.stream.row_terms(yt - xp.mean(yt) if moments else yt, yp, e, xp)
        self.sums = ("sw", *terms)
        self.x = xp.stack([xp.ones_like(e), *terms.values()], axis=1)
        sw = kw.get("sample_weight")
        self.w = None if sw is None else xp.astype(_ns.asarray(sw, xp=xp, device=dev), acc)

    def values(self, idx=None, counts=None):
        return self.from_sums(self.xp.matmul(self._counts(idx, counts), self.x))

    def jackknife(self):
        xp = self.xp
        wx = self.x if self.w is None else self.x * xp.reshape(self.w, (-1, 1))
        total = xp.sum(wx, axis=0, keepdims=True)
        return self.from_sums(total - wx), None

    def from_sums(self, s):
        xp = self.xp
        state = {name: s[:, i] for i, name in enumerate(self.sums)}
        w = state["sw"]  # no weight in a resample: NaN
        state["sw"] = xp.where(w == 0, xp.full_like(w, math.nan), w)
        if self.stream.statistic == "moments":  # R2, explained variance
            num, den = explained_fraction_terms(state, self.key, xp=xp)
            return explained_fraction(num, den, self.stream.force_finite, xp)
        return mean_error_of(self.key, state, state["sw"], xp)
