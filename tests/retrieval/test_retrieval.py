"""Top-k label metrics and per-query retrieval metrics (metrix/retrieval.py).

References: plain-Python brute force (loops over samples / queries, below),
scikit-learn's ``precision_recall_fscore_support`` / ``classification_report``
on the top-k indicator, and TorchMetrics' ``Retrieval*`` metrics.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import classification_report, precision_recall_fscore_support

import metrix
from conformance.combos import COMBOS
from conformance.util import jax_x64, to_numpy
from metrix.exceptions import UndefinedMetricWarning

HYP = settings(max_examples=60, deadline=None,
               suppress_health_check=[HealthCheck.too_slow])
AVERAGES = [None, "micro", "macro", "weighted", "samples"]


# -- brute-force references ---------------------------------------------------

def ref_topk(ys, k):
    """Top-k indicator by sorting each row on (-score, class index)."""
    n, c = ys.shape
    out = np.zeros((n, c), dtype=int)
    for i in range(n):
        order = sorted(range(c), key=lambda j: (-ys[i, j], j))
        for j in order[:k]:
            out[i, j] = 1
    return out


def _div(a, b, zd):
    return zd if b == 0 else a / b


def _nanavg(vals, weights=None):
    pairs = [(v, 1.0 if weights is None else w)
             for v, w in zip(vals, weights if weights is not None else vals)
             if not math.isnan(v)]
    if not pairs:
        return float("nan")
    tot = sum(w for _, w in pairs)
    if tot == 0:
        return sum(v for v, _ in pairs) / len(pairs)
    return sum(v * w for v, w in pairs) / tot


def ref_prf(yt, ys, k, *, average=None, beta=1.0, labels=None, zd=0.0, sw=None):
    n, c = yt.shape
    top = ref_topk(ys, k)
    cols = list(range(c)) if labels is None else list(labels)
    w = [1.0] * n if sw is None else list(sw)

    def prf(tp, pred, true):
        p, r = _div(tp, pred, zd), _div(tp, true, zd)
        if math.isinf(beta):
            f = r
        elif beta == 0:
            f = p
        else:
            f = _div((1 + beta ** 2) * tp, beta ** 2 * true + pred, zd)
        return p, r, f

    if average == "samples":
        res = []
        for i in range(n):
            tp = sum(w[i] for j in cols if top[i, j] and yt[i, j])
            pred = sum(w[i] for j in cols if top[i, j])
            true = sum(w[i] for j in cols if yt[i, j])
            res.append(prf(tp, pred, true))
        return tuple(_nanavg([r[m] for r in res], w) for m in range(3))
    tps = [sum(w[i] for i in range(n) if top[i, j] and yt[i, j]) for j in cols]
    preds = [sum(w[i] for i in range(n) if top[i, j]) for j in cols]
    trues = [sum(w[i] for i in range(n) if yt[i, j]) for j in cols]
    if average == "micro":
        return prf(sum(tps), sum(preds), sum(trues))
    res = [prf(*t) for t in zip(tps, preds, trues)]
    if average is None:
        return tuple(np.array([r[m] for r in res]) for m in range(3)) + (np.array(trues),)
    weights = trues if average == "weighted" else None
    return tuple(_nanavg([r[m] for r in res], weights) for m in range(3))


#: a query without relevant items: its value per ``empty_target_action`` (None: skipped)
EMPTY_QUERY = {"skip": None, "pos": 1.0, "neg": 0.0}


def ref_query(scores, rels, metric, k, action="neg", adaptive_k=False):
    """One query by brute force; None means "skip"."""
    n = len(scores)
    order = sorted(range(n), key=lambda i: (-scores[i], i))
    ranked = [rels[i] for i in order]
    if sum(rels) == 0 and action in EMPTY_QUERY:
        return EMPTY_QUERY[action]
    kk = n if k is None else k
    top = ranked[:kk]
    hits = sum(1 for g in top if g > 0)
    n_rel = sum(1 for g in rels if g > 0)
    if metric == "precision":
        den = n if k is None else (min(k, n) if adaptive_k else k)
        return hits / den
    if metric == "recall":
        return hits / n_rel if n_rel else 0.0
    if metric == "hit_rate":
        return float(hits > 0)
    if metric == "mrr":
        return next((1.0 / (r + 1) for r, g in enumerate(top) if g > 0), 0.0)
    if metric == "map":
        if hits == 0:
            return 0.0
        seen, tot = 0, 0.0
        for r, g in enumerate(top):
            if g > 0:
                seen += 1
                tot += seen / (r + 1)
        return tot / hits
    if metric == "ndcg":
        def dcg(g):
            return sum(x / math.log2(r + 2) for r, x in enumerate(g[:kk]))
        ideal = dcg(sorted(rels, reverse=True))
        return dcg(ranked) / ideal if ideal != 0 else 0.0  # negative gains allowed
    raise AssertionError(metric)


def ref_mean(groups, metric, k, action="neg", adaptive_k=False):
    vals = [ref_query(s, r, metric, k, action, adaptive_k) for s, r in groups]
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else 0.0


QUERY_FUNCS = {"precision": metrix.precision_at_k, "recall": metrix.recall_at_k,
               "hit_rate": metrix.hit_rate_at_k, "mrr": metrix.mrr,
               "map": metrix.map_at_k, "ndcg": metrix.ndcg_at_k}


# -- strategies ---------------------------------------------------------------

@st.composite
def topk_problem(draw):
    n = draw(st.integers(1, 8))
    c = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2 ** 31))
    rng = np.random.default_rng(seed)
    yt = (rng.random((n, c)) < draw(st.sampled_from([0.2, 0.5]))).astype(int)
    ys = rng.integers(0, draw(st.sampled_from([2, 3, 10])), (n, c)).astype(float)
    k = draw(st.integers(1, c))
    sw = None
    if draw(st.booleans()):
        sw = rng.integers(0, 4, n).astype(float)
        sw[0] = 1.0
    labels = None
    if draw(st.booleans()):
        labels = list(rng.permutation(c)[:draw(st.integers(1, c))])
    return yt, ys, k, sw, labels


# -- precision_recall_fscore_at_k ---------------------------------------------

@HYP
@given(topk_problem(), st.sampled_from(AVERAGES), st.sampled_from([0.0, 1.0, np.nan]),
       st.sampled_from([1.0, 0.5, 2.0, 0.0, np.inf]))
def test_prf_at_k_vs_bruteforce_and_sklearn(problem, average, zd, beta):
    yt, ys, k, sw, labels = problem
    got = metrix.precision_recall_fscore_at_k(yt, ys, k=k, average=average, beta=beta,
                                              labels=labels, zero_division=zd,
                                              sample_weight=sw)
    exp = ref_prf(yt, ys, k, average=average, beta=beta, labels=labels, zd=zd, sw=sw)
    for g, e in zip(got, exp):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(e, dtype=float),
                                   rtol=1e-12, atol=1e-12, equal_nan=True)
    if average is None:
        assert got[3].dtype == (np.float64 if sw is not None else np.int64)
    else:
        assert got[3] is None and np.ndim(got[0]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = precision_recall_fscore_support(
            yt, ref_topk(ys, k), average=average, beta=beta, labels=labels,
            zero_division=zd, sample_weight=sw)
    for g, e in zip(got[:3], sk[:3]):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(e, dtype=float),
                                   rtol=1e-12, atol=1e-12, equal_nan=True)


def test_ties_go_to_lower_class_index():
    ys = np.array([[1.0, 2.0, 2.0, 2.0, 0.0]])
    yt = np.array([[0, 0, 1, 1, 0]])
    p, r, f, s = metrix.precision_recall_fscore_at_k(yt, ys, k=2)
    # top-2 = classes 1 and 2 (the first two of the tied 2.0s)
    np.testing.assert_array_equal(p, [0, 0, 1, 0, 0])
    np.testing.assert_array_equal(r, [0, 0, 1, 0, 0])


@pytest.mark.parametrize("average", [None, "micro", "macro", "samples"])
def test_warn_matches_sklearn(average):
    yt = np.array([[1, 0, 0], [0, 0, 0], [1, 0, 0]])
    ys = np.array([[0.9, 0.1, 0.2], [0.1, 0.8, 0.3], [0.2, 0.3, 0.9]])
    with warnings.catch_warnings(record=True) as got_w:
        warnings.simplefilter("always")
        got = metrix.precision_recall_fscore_at_k(yt, ys, k=1, average=average,
                                                  zero_division="warn")
    with warnings.catch_warnings(record=True) as exp_w:
        warnings.simplefilter("always")
        exp = precision_recall_fscore_support(yt, ref_topk(ys, 1), average=average,
                                              zero_division="warn")
    assert [str(w.message) for w in got_w] == [str(w.message) for w in exp_w]
    assert all(issubclass(w.category, UndefinedMetricWarning) for w in got_w)
    for g, e in zip(got[:3], exp[:3]):
        np.testing.assert_allclose(g, e)


def test_prf_at_k_errors():
    yt = np.array([[1, 0, 0], [0, 1, 0]])
    ys = np.array([[0.9, 0.1, 0.2], [0.1, 0.8, 0.3]])
    f = metrix.precision_recall_fscore_at_k
    with pytest.raises(ValueError, match="larger than the number of classes"):
        f(yt, ys, k=4)
    with pytest.raises(ValueError, match="positive integer"):
        f(yt, ys, k=0)
    with pytest.raises(TypeError, match="positive integer"):
        f(yt, ys, k=1.5)
    with pytest.raises(ValueError, match="same shape"):
        f(yt[:, :2], ys, k=1)
    with pytest.raises(ValueError, match="2-D"):
        f(yt[0], ys[0], k=1)
    bad = ys.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="y_score contains NaN"):
        f(yt, bad, k=1)
    bad[0, 1] = np.inf
    with pytest.raises(ValueError, match="y_score contains infinity"):
        f(yt, bad, k=1)
    with pytest.raises(ValueError, match="binary label indicator"):
        f(yt * 2, ys, k=1)
    with pytest.raises(ValueError, match="must be a str among"):
        f(yt, ys, k=1, average="binary")
    with pytest.raises(ValueError, match=r"Got 3 > 2"):
        f(yt, ys, k=1, labels=[0, 3])
    with pytest.raises(ValueError, match=r"Got -1 < 0"):
        f(yt, ys, k=1, labels=[-1, 0])
    with pytest.raises(ValueError, match="zero_division"):
        f(yt, ys, k=1, zero_division=2)
    with pytest.raises(ValueError, match="inconsistent|sample_weight.shape"):
        f(yt, ys, k=1, sample_weight=[1.0])


_COMBOS = [pytest.param(c, id=c.id, marks=pytest.mark.skipif(
    c.skip_reason() is not None, reason=str(c.skip_reason()))) for c in COMBOS]


@pytest.mark.parametrize("combo", _COMBOS)
def test_backends(combo):
    rng = np.random.default_rng(3)
    yt = (rng.random((30, 6)) < 0.4).astype(np.int64)
    ys = rng.integers(0, 4, (30, 6)).astype(np.float64)
    sw = rng.random(30)
    tol = dict(rtol=2e-4, atol=2e-5) if combo.float_dtype == "float32" else dict(
        rtol=1e-9, atol=1e-12)
    with combo.context():
        for avg in (None, "macro", "samples"):
            got = metrix.precision_recall_fscore_at_k(
                combo.convert(yt), combo.convert(ys), k=2, average=avg,
                sample_weight=combo.convert(sw))
            exp = ref_prf(yt, ys, 2, average=avg, sw=sw)
            for g, e in zip(got[:3], exp[:3]):
                combo.check_placement(g)
                assert isinstance(g, float) or str(g.dtype).endswith(combo.float_dtype)
                np.testing.assert_allclose(to_numpy(g), e, **tol)
        # per-query metrics, dense and ragged
        ysd = rng.random((12, 9))
        ytd = (rng.random((12, 9)) < 0.3).astype(np.int64)
        qid = np.repeat(np.arange(12), 9)
        groups = [(list(ysd[i]), list(ytd[i])) for i in range(12)]
        for name, fn in QUERY_FUNCS.items():
            exp = ref_mean(groups, name, 4)
            for kw in ({}, {"query_ids": combo.convert(qid)},
                       {"query_ids": combo.convert(qid), "n_queries": 12}):
                if kw:
                    args = (combo.convert(ytd.ravel()), combo.convert(ysd.ravel()))
                else:
                    args = (combo.convert(ytd), combo.convert(ysd))
                g = fn(*args, k=4, **kw)
                combo.check_placement(g)
                assert isinstance(g, float) or str(g.dtype).endswith(combo.float_dtype)
                np.testing.assert_allclose(to_numpy(g), exp, **tol)
        sc = metrix.ranked_to_scores(combo.convert(np.array([[2, 0], [1, -1]])), 3)
        combo.check_placement(sc)
        np.testing.assert_array_equal(to_numpy(sc), [[1, 0, 2], [0, 2, 0]])


# -- ranked_to_scores -----------------------------------------------------------

def test_ranked_to_scores_topk_is_the_list_head():
    rng = np.random.default_rng(0)
    ranked = np.stack([rng.permutation(10)[:5] for _ in range(7)])
    scores = metrix.ranked_to_scores(ranked, 10)
    assert scores.shape == (7, 10)
    for k in range(1, 6):
        top = ref_topk(scores, k)
        for i in range(7):
            assert set(np.flatnonzero(top[i])) == set(ranked[i, :k])
    ragged = metrix.ranked_to_scores([[3, 1], [2], []], 4)
    np.testing.assert_array_equal(ragged, [[0, 1, 0, 2], [0, 0, 2, 0], [0, 0, 0, 0]])
    with pytest.raises(ValueError, match="repeats a label"):
        metrix.ranked_to_scores([[1, 1]], 3)
    with pytest.raises(ValueError, match="outside"):
        metrix.ranked_to_scores([[1, 5]], 3)
    with pytest.raises(ValueError, match="n_classes"):
        metrix.ranked_to_scores([[1]], 0)


# -- classification_report_at_k and format_report -----------------------------

@pytest.mark.parametrize("digits", [2, 4])
@pytest.mark.parametrize("names", [None, ["a", "bb", "a-much-longer-name", "d", "e"],
                                   ["x", "y", "z", "w", "v"]])
@pytest.mark.parametrize("weighted", [False, True])
def test_report_at_k_matches_sklearn(digits, names, weighted):
    rng = np.random.default_rng(5)
    yt = (rng.random((40, 5)) < 0.3).astype(int)
    ys = rng.integers(0, 5, (40, 5)).astype(float)
    sw = rng.random(40) * 3 if weighted else None
    top = ref_topk(ys, 2)
    for output_dict in (False, True):
        got = metrix.classification_report_at_k(yt, ys, k=2, target_names=names,
                                                 digits=digits, output_dict=output_dict,
                                                 sample_weight=sw)
        exp = classification_report(yt, top, target_names=names, digits=digits,
                                    output_dict=output_dict, sample_weight=sw,
                                    zero_division=0)
        if output_dict:
            assert list(got) == list(exp)
            for key in exp:
                assert got[key] == pytest.approx(exp[key], rel=1e-12)
        else:
            assert got == exp


def test_report_at_k_labels_and_errors():
    rng = np.random.default_rng(6)
    yt = (rng.random((20, 4)) < 0.4).astype(int)
    ys = rng.random((20, 4))
    got = metrix.classification_report_at_k(yt, ys, k=1, labels=[3, 1])
    exp = classification_report(yt, ref_topk(ys, 1), labels=[3, 1], zero_division=0)
    assert got == exp
    with pytest.raises(ValueError, match="does not match size of target_names"):
        metrix.classification_report_at_k(yt, ys, k=1, target_names=["a"])


def _report_inputs(kind, rng):
    if kind == "multiclass":
        yt, yp = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    elif kind == "binary":
        yt, yp = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    else:
        yt = (rng.random((50, 3)) < 0.4).astype(int)
        yp = (rng.random((50, 3)) < 0.4).astype(int)
    return yt, yp


@pytest.mark.parametrize("kind", ["multiclass", "binary", "multilabel"])
@pytest.mark.parametrize("digits", [2, 3, 4])
@pytest.mark.parametrize("names", ["short", "long", None])
@pytest.mark.parametrize("weighted", [False, True])
def test_format_report_byte_for_byte(kind, digits, names, weighted):
    from metrix.classification._report_format import format_report

    rng = np.random.default_rng(hash((kind, digits)) % 2 ** 32)
    yt, yp = _report_inputs(kind, rng)
    sw = rng.random(50) * 2 if weighted else None
    n_labels = 3 if kind == "multilabel" else len(np.unique(np.r_[yt, yp]))
    target_names = {"short": [chr(97 + i) for i in range(n_labels)],
                    "long": [f"class number {i} " * (i + 1) for i in range(n_labels)],
                    None: None}[names]
    kw = dict(sample_weight=sw, zero_division=0)
    p, r, f, s = precision_recall_fscore_support(yt, yp, average=None, **kw)
    rows = list(zip(p, r, f, s))
    avgs = ["micro", "macro", "weighted"] + (["samples"] if kind == "multilabel" else [])
    accuracy, averages = None, {}
    for a in avgs:
        ap, ar, af, _ = precision_recall_fscore_support(yt, yp, average=a, **kw)
        if a == "micro" and kind != "multilabel":
            accuracy = (ap, ar, af, np.sum(s))
        else:
            averages[f"{a} avg"] = (ap, ar, af, np.sum(s))
    names_arg = target_names if target_names is not None else [
        str(i) for i in range(n_labels)]
    for output_dict in (False, True):
        got = format_report(rows, target_names=names_arg, averages=averages, digits=digits,
                            output_dict=output_dict, accuracy=accuracy)
        exp = classification_report(yt, yp, target_names=target_names, digits=digits,
                                    output_dict=output_dict, **kw)
        assert got == exp
        if output_dict:
            assert list(got) == list(exp)


# -- per-query retrieval metrics -----------------------------------------------

@st.composite
def ragged_problem(draw):
    seed = draw(st.integers(0, 2 ** 31))
    rng = np.random.default_rng(seed)
    nq = draw(st.integers(1, 6))
    sizes = rng.integers(1, 8, nq)
    ids = rng.choice(np.arange(-50, 50), nq, replace=False)
    q = np.repeat(ids, sizes)
    perm = rng.permutation(q.shape[0])
    q = q[perm]
    n = q.shape[0]
    scores = rng.integers(0, draw(st.sampled_from([2, 4, 100])), n).astype(float)
    graded = draw(st.booleans())
    rels = rng.integers(0, 3 if graded else 2, n) * (rng.random(n) < 0.6)
    return q, scores, rels, graded


@HYP
@given(ragged_problem(), st.sampled_from([None, 1, 2, 3, 10]),
       st.sampled_from(["neg", "pos", "skip"]), st.booleans())
def test_query_metrics_vs_bruteforce(problem, k, action, adaptive_k):
    q, scores, rels, graded = problem
    groups = []
    for qid in np.unique(q):
        idx = np.flatnonzero(q == qid)  # flat order = tie order
        groups.append((list(scores[idx]), list(rels[idx])))
    for name, fn in QUERY_FUNCS.items():
        if graded and name != "ndcg":
            continue
        kw = {"adaptive_k": adaptive_k} if name == "precision" else {}
        exp = ref_mean(groups, name, k, action, adaptive_k)
        uniq, enc = np.unique(q, return_inverse=True)
        width = int(np.bincount(enc).max())
        for ids, extra in ((q, {}),  # encoded ids, padded layout
                           (enc, {"n_queries": len(uniq)}),  # lexsort path
                           (enc, {"n_queries": len(uniq) + 2, "max_items": width + 1})):
            got = fn(rels, scores, k=k, query_ids=ids, empty_target_action=action,
                     **kw, **extra)
            np.testing.assert_allclose(got, exp, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name} {extra}")


@HYP
@given(st.integers(0, 2 ** 31), st.sampled_from([None, 1, 3, 20]),
       st.sampled_from(["neg", "pos", "skip"]))
def test_query_metrics_dense_vs_bruteforce(seed, k, action):
    rng = np.random.default_rng(seed)
    nq, ni = rng.integers(1, 6), rng.integers(1, 8)
    ys = rng.integers(0, 3, (nq, ni)).astype(float)
    yt = (rng.random((nq, ni)) < 0.3).astype(int)
    groups = [(list(ys[i]), list(yt[i])) for i in range(nq)]
    for name, fn in QUERY_FUNCS.items():
        got = fn(yt, ys, k=k, empty_target_action=action)
        exp = ref_mean(groups, name, k, action)
        np.testing.assert_allclose(got, exp, rtol=1e-12, atol=1e-12, err_msg=name)


_TM = {"precision": "RetrievalPrecision", "recall": "RetrievalRecall",
       "hit_rate": "RetrievalHitRate", "mrr": "RetrievalMRR", "map": "RetrievalMAP",
       "ndcg": "RetrievalNormalizedDCG"}


@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
@pytest.mark.parametrize("k", [None, 3, 10])
def test_query_metrics_vs_torchmetrics(action, k):
    torch = pytest.importorskip("torch")
    tmr = pytest.importorskip("torchmetrics.retrieval")
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 25, 60)
    q = np.repeat(rng.choice(10_000, 60, replace=False), sizes)
    n = q.shape[0]
    # positive, distinct scores (TorchMetrics treats scores <= 0 as irrelevant)
    scores = rng.permutation(n).astype(np.float64) / n + 0.01
    rels = (rng.random(n) < 0.15).astype(np.int64)
    graded = rng.integers(0, 4, n) * (rng.random(n) < 0.3)
    for name, fn in QUERY_FUNCS.items():
        tgt = graded if name == "ndcg" else rels
        m = getattr(tmr, _TM[name])(top_k=k, empty_target_action=action)
        exp = float(m(torch.from_numpy(scores), torch.from_numpy(tgt),
                      indexes=torch.from_numpy(q)))
        got = fn(tgt, scores, k=k, query_ids=q, empty_target_action=action)
        np.testing.assert_allclose(got, exp, rtol=1e-6, err_msg=name)


def test_query_empty_target_error_and_validation():
    yt = np.array([[0, 0, 0], [1, 0, 0]])
    ys = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    with pytest.raises(ValueError, match="no relevant item"):
        metrix.map_at_k(yt, ys, k=2, empty_target_action="error")
    assert metrix.map_at_k(yt[1:], ys[1:], k=2, empty_target_action="error") == 1.0
    with pytest.raises(ValueError, match="empty_target_action must be one of"):
        metrix.map_at_k(yt, ys, empty_target_action="ignore")
    with pytest.raises(ValueError, match="positive integer or None"):
        metrix.ndcg_at_k(yt, ys, k=0)
    with pytest.raises(ValueError, match="same shape"):
        metrix.ndcg_at_k(yt, ys[:, :2])
    with pytest.raises(ValueError, match="binary"):
        metrix.precision_at_k(yt * 2, ys)
    bad = ys.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="y_score contains NaN"):
        metrix.mrr(yt, bad)
    q = np.array([0, 0, 1, 5])
    with pytest.raises(ValueError, match=r"\[0, n_queries=2\)"):
        metrix.recall_at_k(np.ones(4), np.arange(4.0), query_ids=q, n_queries=2)
    with pytest.raises(ValueError, match="1-D of one length"):
        metrix.recall_at_k(np.ones(4), np.arange(4.0), query_ids=q[:3])
    # all queries skipped -> 0, as TorchMetrics
    assert metrix.recall_at_k(yt[:1], ys[:1], empty_target_action="skip") == 0.0


def test_ragged_missing_ids_are_not_queries():
    # ids 1 and 3 never occur: with n_queries=5 they are left out, not scored 0
    q = np.array([0, 0, 2, 2, 4])
    yt = np.array([1, 0, 0, 1, 1])
    ys = np.array([0.9, 0.1, 0.8, 0.2, 0.5])
    a = metrix.mrr(yt, ys, query_ids=q, n_queries=5)
    b = metrix.mrr(yt, ys, query_ids=q)
    assert a == pytest.approx((1 + 0.5 + 1) / 3) and b == pytest.approx(a)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("seed", range(6))
def test_query_metrics_large_vs_bruteforce(lib, seed):
    # over 2**15 (query, item) pairs, as large inputs are ranked (by each query's top-k
    # candidates): ties, queries with fewer than k items, graded and negative gains,
    # ints, float32
    conv = np.asarray
    if lib == "torch":
        torch = pytest.importorskip("torch")
        conv = torch.from_numpy
    rng = np.random.default_rng(seed)
    nq = 320
    sizes = rng.integers(1, 240, nq)
    sizes[:3] = [1, 2, 4]
    ids = rng.choice(np.arange(-500, 500), nq, replace=False)
    q = np.repeat(ids, sizes)
    q = q[rng.permutation(q.shape[0])]
    n = q.shape[0]
    scores = [rng.random(n), rng.integers(0, 8, n).astype(float),
              rng.normal(size=n).astype(np.float32), rng.integers(-50, 50, n)][seed % 4]
    rels = (rng.random(n) < 0.1).astype(np.int64)
    gains = rng.integers(-1 if seed % 2 else 0, 4, n) * (rng.random(n) < 0.3)
    uniq, enc = np.unique(q, return_inverse=True)
    rows = np.split(np.argsort(enc, kind="stable"), np.cumsum(np.bincount(enc))[:-1])
    for name, fn in QUERY_FUNCS.items():
        tgt = gains if name == "ndcg" else rels
        grp = [(list(scores[r]), list(tgt[r])) for r in rows]  # flat order = tie order
        for k in (1, 3, 5):
            exp = ref_mean(grp, name, k)
            for ids_, extra in ((q, {}), (enc, {"n_queries": nq}),
                                (enc, {"n_queries": nq + 1, "max_items": int(sizes.max()),
                                       "validate": False})):
                got = fn(conv(tgt), conv(scores), k=k, query_ids=conv(ids_), **extra)
                tol = 1e-6 if scores.dtype == np.float32 else 1e-12  # float32 result
                np.testing.assert_allclose(float(got), exp, rtol=tol, atol=tol,
                                           err_msg=f"{name} k={k} {extra}")


def test_ndcg_padded_ideal_keeps_negative_gains():
    # padding slots (gain 0) must not outrank a real negative gain in the ideal order
    yt, ys = np.array([2.0, -1.0]), np.array([0.1, 0.9])
    exp = ref_mean([(list(ys), list(yt))], "ndcg", 2)
    for extra in ({"n_queries": 1, "max_items": 3}, {"n_queries": 1}, {}):
        got = metrix.ndcg_at_k(yt, ys, k=2, query_ids=np.zeros(2, dtype=int), **extra)
        np.testing.assert_allclose(got, exp, rtol=1e-12, err_msg=str(extra))
    np.testing.assert_allclose(metrix.ndcg_at_k(yt[None], ys[None], k=2), exp, rtol=1e-12)


# -- jit / compile ---------------------------------------------------------------

def _compile_inputs():
    rng = np.random.default_rng(0)
    yt = (rng.random((16, 6)) < 0.4).astype(np.int64)
    ys = rng.integers(0, 4, (16, 6)).astype(np.float64)
    q = np.repeat(np.arange(16), 6)
    return yt, ys, q


@pytest.mark.compile
def test_jax_jit():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    yt, ys, q = _compile_inputs()
    with jax_x64(True):
        f = jax.jit(lambda a, b: metrix.precision_recall_fscore_at_k(
            a, b, k=2, average="macro", validate=False)[:3])
        got = f(jnp.asarray(yt), jnp.asarray(ys))
        np.testing.assert_allclose(got, ref_prf(yt, ys, 2, average="macro"), rtol=1e-12)
        f = jax.jit(lambda a, b: metrix.precision_recall_fscore_at_k(
            a, b, k=3, average=None, validate=False))
        got = f(jnp.asarray(yt), jnp.asarray(ys))
        np.testing.assert_allclose(got[0], ref_prf(yt, ys, 3)[0], rtol=1e-12)
        groups = [(list(ys[i]), list(yt[i])) for i in range(16)]
        for name in ("map", "ndcg"):
            fn = QUERY_FUNCS[name]
            g = jax.jit(lambda a, b, c: fn(a, b, k=3, query_ids=c, n_queries=16,
                                           validate=False, empty_target_action="skip"))
            got = g(jnp.asarray(yt.ravel()), jnp.asarray(ys.ravel()), jnp.asarray(q))
            np.testing.assert_allclose(got, ref_mean(groups, name, 3, "skip"), rtol=1e-12)
            g = jax.jit(lambda a, b, c: fn(a, b, k=3, query_ids=c, n_queries=16,
                                           max_items=6, validate=False))  # padded path
            got = g(jnp.asarray(yt.ravel()), jnp.asarray(ys.ravel()), jnp.asarray(q))
            np.testing.assert_allclose(got, ref_mean(groups, name, 3), rtol=1e-12)
            g = jax.jit(lambda a, b: fn(a, b, k=3, validate=False))
            np.testing.assert_allclose(g(jnp.asarray(yt), jnp.asarray(ys)),
                                       ref_mean(groups, name, 3), rtol=1e-12)
        s = jax.jit(lambda r: metrix.ranked_to_scores(r, 4, validate=False))(
            jnp.asarray([[2, 0], [1, -1]]))
        np.testing.assert_array_equal(s, [[1, 0, 2, 0], [0, 2, 0, 0]])


@pytest.mark.compile
def test_torch_compile():
    torch = pytest.importorskip("torch")
    torch._dynamo.reset()
    yt, ys, q = _compile_inputs()
    f = torch.compile(lambda a, b: metrix.precision_recall_fscore_at_k(
        a, b, k=2, average="samples", validate=False)[:3], fullgraph=True)
    got = f(torch.from_numpy(yt), torch.from_numpy(ys))
    np.testing.assert_allclose([float(g) for g in got], ref_prf(yt, ys, 2, average="samples"),
                               rtol=1e-12)
    groups = [(list(ys[i]), list(yt[i])) for i in range(16)]
    for name in ("map", "ndcg"):
        fn = QUERY_FUNCS[name]
        g = torch.compile(lambda a, b, c: fn(a, b, k=3, query_ids=c, n_queries=16,
                                             validate=False), fullgraph=True)
        got = g(torch.from_numpy(yt.ravel()), torch.from_numpy(ys.ravel()),
                torch.from_numpy(q))
        np.testing.assert_allclose(float(got), ref_mean(groups, name, 3), rtol=1e-12)
    g = torch.compile(lambda a, b, c: metrix.ndcg_at_k(
        a, b, k=3, query_ids=c, n_queries=16, max_items=6, validate=False), fullgraph=True)
    got = g(torch.from_numpy(yt.ravel()), torch.from_numpy(ys.ravel()), torch.from_numpy(q))
    np.testing.assert_allclose(float(got), ref_mean(groups, "ndcg", 3), rtol=1e-12)
