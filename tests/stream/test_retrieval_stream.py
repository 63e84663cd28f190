"""Streaming retrieval metrics with query ids (``RetrievalNormalizedDCG``,
``RetrievalMAP``, ``RetrievalMRR``, ``RetrievalPrecision``, ``RetrievalRecall``,
``RetrievalHitRate``)
against TorchMetrics on NumPy, torch CPU and JAX CPU: uneven batches that split
every query, merged states, ``state_dict`` round trips, ties, graded relevance,
queries without a relevant row under each ``empty_target_action``,
``ignore_index``, scores <= 0, and the buffer's capacity."""

from __future__ import annotations

import numpy as np
import pytest

import metrix
import metrix.stream as ms
from metrix.stream import BufferFullError

torch = pytest.importorskip("torch")
tmr = pytest.importorskip("torchmetrics.retrieval")

rng = np.random.default_rng(20261207)
N = 240
Q = rng.integers(0, 25, N)                     # 25 queries, rows in random order
S = rng.normal(size=N).astype(np.float32)      # logits: some scores <= 0
Y = (rng.random(N) < 0.25).astype(np.int64)
Y[Q == 3] = 0                                  # a query with no relevant row
Y[Q == 7] = 0
G = rng.integers(0, 4, N)                      # graded relevance
G[Q == 3] = 0
IGNORED = rng.random(N) < 0.2
IGNORED[[0, 1, -1]] = False                       # TorchMetrics refuses a batch of ignored rows
EDGES = (0, 0, 1, 2, 50, 50, 131, 239, N)      # empty batches, single rows, uneven sizes
TM_EDGES = (0, 1, 2, 50, 131, 239, N)          # TorchMetrics refuses empty batches

CLASSES = ("RetrievalNormalizedDCG", "RetrievalMAP", "RetrievalMRR", "RetrievalPrecision",
           "RetrievalRecall", "RetrievalHitRate")
LIBS = ("numpy", "torch", "jax")


def _lib(name):
    if name == "numpy":
        return np.asarray
    if name == "torch":
        return torch.asarray
    jnp = pytest.importorskip("jax.numpy")
    return jnp.asarray


def _feed(metric, y, s, q, edges=EDGES, lib=np.asarray):
    for a, b in zip(edges[:-1], edges[1:]):
        metric.update(lib(y[a:b]), lib(s[a:b]), lib(q[a:b]))
    return metric


def _torchmetrics(name, y, s, q, **kw):
    m = getattr(tmr, name)(**kw)
    for a, b in zip(TM_EDGES[:-1], TM_EDGES[1:]):
        m.update(torch.from_numpy(s[a:b]), torch.from_numpy(y[a:b]),
                 indexes=torch.from_numpy(q[a:b]))
    return float(m.compute())


def _target(name):
    return G if name == "RetrievalNormalizedDCG" else Y


def _close(got, want, tol=2e-6):
    np.testing.assert_allclose(float(got), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("name", CLASSES)
def test_equals_torchmetrics_split_queries(name, lib):
    y, conv = _target(name), _lib(lib)
    for top_k in (None, 1, 3, 40):
        for action in ("neg", "pos", "skip"):
            kw = {"top_k": top_k, "empty_target_action": action}
            want = _torchmetrics(name, y, S, Q, **kw)
            got = _feed(getattr(ms, name)(N, **kw), y, S, Q, lib=conv).compute()
            if lib != "numpy":
                assert got.ndim == 0 and type(got).__module__.split(".")[0] == lib \
                    or lib == "jax"
            _close(got, want)


@pytest.mark.parametrize("lib", LIBS)
def test_precision_adaptive_k(lib):
    conv = _lib(lib)
    for top_k in (None, 2, 15, 100):      # 100 > every query's rows
        for adaptive in (False, True):
            want = _torchmetrics("RetrievalPrecision", Y, S, Q, top_k=top_k,
                                 adaptive_k=adaptive)
            got = _feed(ms.RetrievalPrecision(N, top_k=top_k, adaptive_k=adaptive), Y, S, Q,
                        lib=conv).compute()
            _close(got, want)


@pytest.mark.parametrize("name", CLASSES)
def test_merged_and_state_dict_round_trip(name):
    y = _target(name)
    want = _torchmetrics(name, y, S, Q, top_k=5)
    a = _feed(ms.__dict__[name](N, top_k=5), y, S, Q, edges=EDGES[:5], lib=torch.asarray)
    b = _feed(ms.__dict__[name](N, top_k=5), y, S, Q, edges=EDGES[4:], lib=torch.asarray)
    _close(a.merge(b).compute(), want)
    saved = _feed(ms.__dict__[name](N, top_k=5), y, S, Q, edges=EDGES[:6]).state_dict()
    resumed = ms.__dict__[name](N, top_k=5).load_state_dict(saved)
    _close(_feed(resumed, y, S, Q, edges=EDGES[5:]).compute(), want)
    with pytest.raises(ValueError, match="top_k"):
        ms.__dict__[name](N, top_k=4).load_state_dict(saved)


@pytest.mark.parametrize("lib", LIBS)
def test_ties_and_graded_ndcg(lib):
    conv = _lib(lib)
    tied = np.round(S).astype(np.float32)       # many ties inside each query
    for top_k in (None, 2, 6):
        want = _torchmetrics("RetrievalNormalizedDCG", G, tied, Q, top_k=top_k)
        got = _feed(ms.RetrievalNormalizedDCG(N, top_k=top_k), G, tied, Q,
                    lib=conv).compute()
        _close(got, want)   # tied rows share their mean gain (scikit-learn's rule)
    # graded relevance: a gain of 3 is not a gain of 1
    flat = np.minimum(G, 1)
    assert abs(float(_feed(ms.RetrievalNormalizedDCG(N), G, S, Q).compute())
               - float(_feed(ms.RetrievalNormalizedDCG(N), flat, S, Q).compute())) > 1e-3


@pytest.mark.parametrize("name", CLASSES[1:])
def test_ties_between_rows_of_equal_relevance(name):
    # ties only among rows of the same relevance: every order of them gives one value
    s = (np.round(S) + 0.5 * Y).astype(np.float32)
    for top_k in (None, 1, 3):
        want = _torchmetrics(name, Y, s, Q, top_k=top_k)
        _close(_feed(getattr(ms, name)(N, top_k=top_k), Y, s, Q).compute(), want)


def test_ties_rank_by_arrival_as_the_one_shot_functions():
    # positive scores (no TorchMetrics score filter): the one-shot functions on the
    # rows in arrival order rank tied rows by position too
    s = np.round(np.abs(S) * 2).astype(np.float64) + 1.0
    pairs = {"RetrievalMAP": metrix.map_at_k, "RetrievalMRR": metrix.mrr,
             "RetrievalPrecision": metrix.precision_at_k, "RetrievalRecall": metrix.recall_at_k,
             "RetrievalHitRate": metrix.hit_rate_at_k}
    for name, fn in pairs.items():
        for k in (1, 3):
            want = fn(Y, s, k=k, query_ids=Q)
            _close(_feed(getattr(ms, name)(N, top_k=k), Y, s, Q).compute(), want, 1e-6)


def test_scores_at_or_below_zero_are_not_retrieved_as_torchmetrics():
    q = np.array([0, 0, 0, 1, 1])
    y = np.array([1, 0, 1, 1, 0])
    s = np.array([-0.5, -1.0, 0.0, 0.3, 0.9], dtype=np.float32)
    for name in CLASSES[1:]:
        want = _torchmetrics_one(name, y, s, q)
        got = getattr(ms, name)(8)
        got.update(y, s, q)
        _close(got.compute(), want)
    m = ms.RetrievalRecall(8)
    m.update(y, s, q)
    assert float(m.compute()) == 0.5   # query 0: 0 / 2, query 1: 1 / 1


def _torchmetrics_one(name, y, s, q, **kw):
    m = getattr(tmr, name)(**kw)
    m.update(torch.from_numpy(s), torch.from_numpy(y), indexes=torch.from_numpy(q))
    return float(m.compute())


@pytest.mark.parametrize("name", CLASSES)
def test_empty_target_actions_and_all_skipped(name):
    q = np.array([0, 0, 1, 1, 2])
    y = np.array([0, 0, 1, 0, 0])
    s = np.array([0.2, 0.9, 0.5, 0.7, 0.4], dtype=np.float32)
    for action in ("neg", "pos", "skip"):
        m = getattr(ms, name)(5, empty_target_action=action)
        m.update(y, s, q)
        _close(m.compute(), _torchmetrics_one(name, y, s, q, empty_target_action=action))
    m = getattr(ms, name)(5, empty_target_action="skip")
    m.update(np.zeros(3, np.int64), s[:3], q[:3])     # every query skipped: 0.0
    assert float(m.compute()) == 0.0
    m = getattr(ms, name)(5, empty_target_action="error")
    m.update(y, s, q)
    with pytest.raises(ValueError, match="no relevant"):
        m.compute()
    with pytest.raises(ValueError):
        _torchmetrics_one(name, y, s, q, empty_target_action="error")
    ok = getattr(ms, name)(5, empty_target_action="error")
    ok.update(y[2:4], s[2:4], q[2:4])
    _close(ok.compute(), _torchmetrics_one(name, y[2:4], s[2:4], q[2:4]))


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("name", CLASSES)
def test_ignore_index(name, lib):
    y = np.where(IGNORED, -100, _target(name))
    want = _torchmetrics(name, y, S, Q, ignore_index=-100, top_k=4)
    got = _feed(getattr(ms, name)(N, ignore_index=-100, top_k=4), y, S, Q,
                lib=_lib(lib)).compute()
    _close(got, want)


def test_capacity_overflow_and_functional_nan():
    m = ms.RetrievalMAP(10)
    m.update(Y[:8], S[:8], Q[:8])
    with pytest.raises(BufferFullError):
        m.update(Y[8:12], S[8:12], Q[8:12])
    spec = ms.RetrievalStream("map", 10)
    state = spec.update(spec.init(), Y[:12], S[:12], Q[:12])
    assert int(state["dropped"]) == 2 and np.isnan(float(spec.compute(state)))


def test_bad_arguments():
    m = ms.RetrievalMRR(10)
    with pytest.raises(ValueError, match="indexes"):
        m.update(Y[:3], S[:3])
    with pytest.raises(ValueError, match="integer"):
        m.update(Y[:3], S[:3], S[:3])
    with pytest.raises(ValueError, match="same number"):
        m.update(Y[:3], S[:3], Q[:4])
    for bad in ({"top_k": 0}, {"empty_target_action": "zero"}, {"ignore_index": 0.5}):
        with pytest.raises(ValueError):
            ms.RetrievalMRR(10, **bad)
    with pytest.raises(ValueError, match="capacity"):
        ms.RetrievalMRR("skip")            # TorchMetrics' first positional is not ours
    v = ms.RetrievalMAP(10, validate=True)
    with pytest.raises(ValueError, match="binary"):
        v.update(G[:5] + 1, S[:5], Q[:5])
    ms.RetrievalNormalizedDCG(10, validate=True).update(G[:5], S[:5], Q[:5])  # graded: fine


def test_collection_shares_one_buffer_and_narrow_dtypes():
    coll = ms.MetricCollection({"map": ms.RetrievalMAP(N, top_k=3),
                                "mrr": ms.RetrievalMRR(N, top_k=3)})
    assert len(coll.spec._groups) == 1
    _feed(coll, Y.astype(bool), S.astype(np.float16), Q.astype(np.uint8), lib=torch.asarray)
    got = coll.compute()
    s16 = S.astype(np.float16).astype(np.float32)
    _close(got["map"], _torchmetrics("RetrievalMAP", Y, s16, Q, top_k=3))
    _close(got["mrr"], _torchmetrics("RetrievalMRR", Y, s16, Q, top_k=3))


def test_forward_returns_the_batch_value():
    m = ms.RetrievalRecall(N, top_k=2)
    batch = m(Y[:100], S[:100], Q[:100])
    _close(batch, _torchmetrics_one("RetrievalRecall", Y[:100], S[:100], Q[:100], top_k=2))
    m(Y[100:], S[100:], Q[100:])
    _close(m.compute(), _torchmetrics("RetrievalRecall", Y, S, Q, top_k=2))


def test_jax_jit_update_and_compute():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    spec = ms.RetrievalStream("ndcg", N, top_k=5)
    state = spec.init(jnp.zeros((1,), jnp.float32))
    step = jax.jit(spec.update)
    for a, b in ((0, 120), (120, N)):
        state = step(state, jnp.asarray(G[a:b]), jnp.asarray(S[a:b]), jnp.asarray(Q[a:b]))
    got = jax.jit(spec.compute)(state)
    _close(got, _torchmetrics("RetrievalNormalizedDCG", G, S, Q, top_k=5))


def test_torch_face_takes_the_ids_third():
    mt = pytest.importorskip("metrix.integrations.torch")
    m = mt.RetrievalMAP(N, top_k=3)
    for a, b in zip(TM_EDGES[:-1], TM_EDGES[1:]):
        m.update(torch.asarray(Y[a:b]), torch.asarray(S[a:b]), torch.asarray(Q[a:b]))
    _close(m.compute(), _torchmetrics("RetrievalMAP", Y, S, Q, top_k=3))


def test_hit_rate_counts_rows_of_any_score_and_equals_the_one_shot():
    # TorchMetrics' hit rate sums the targets of the top k as they are: a relevant
    # row with a score <= 0 is a hit (precision and recall would not count it)
    q = np.array([0, 0, 0, 1, 1, 2])
    y = np.array([1, 0, 0, 0, 1, 0])
    s = np.array([-0.5, -1.0, -2.0, 0.3, 0.9, 0.1], dtype=np.float32)
    for k in (None, 1):
        for action in ("neg", "pos", "skip"):
            m = ms.RetrievalHitRate(8, top_k=k, empty_target_action=action)
            m.update(y, s, q)
            want = _torchmetrics_one("RetrievalHitRate", y, s, q, top_k=k,
                                     empty_target_action=action)
            _close(m.compute(), want)
            one_shot = metrix.hit_rate_at_k(y, s, k=k, query_ids=q, empty_target_action=action)
            _close(m.compute(), float(one_shot))
    m = ms.RetrievalHitRate(8, top_k=1)
    m.update(y, s, q)
    _close(m.compute(), 2 / 3)     # queries 0 and 1 hit at rank 1; query 2 empty
    m = ms.RetrievalRecall(8, top_k=1)
    m.update(y, s, q)
    _close(m.compute(), 1 / 3)     # recall drops the row scored -0.5


@pytest.mark.parametrize("lib", LIBS)
def test_hit_rate_dtypes_merge_and_state_dict(lib):
    conv = _lib(lib)
    want = _torchmetrics("RetrievalHitRate", Y, S, Q, top_k=2)
    dtypes = ("float16", "float32", "float64") + (("bfloat16",) if lib == "torch" else ())
    for sdt in dtypes:
        for qdt in ("uint8", "int8", "int16", "int32", "int64"):
            s = S.astype(np.float16) if sdt in ("float16", "bfloat16") else S
            w = _torchmetrics("RetrievalHitRate", Y, s.astype(np.float32), Q, top_k=2)
            if sdt == "bfloat16":
                sc = torch.asarray(S).to(torch.bfloat16)
                w = _torchmetrics("RetrievalHitRate", Y, sc.float().numpy(), Q, top_k=2)
                m = ms.RetrievalHitRate(N, top_k=2)
                for a, b in zip(EDGES[:-1], EDGES[1:]):
                    m.update(torch.asarray(Y[a:b].astype(bool)), sc[a:b],
                             torch.asarray(Q[a:b].astype(qdt)))
            else:
                m = _feed(ms.RetrievalHitRate(N, top_k=2), Y.astype(bool), s.astype(sdt),
                          Q.astype(qdt), lib=conv)
            _close(m.compute(), w)
    a = _feed(ms.RetrievalHitRate(N, top_k=2), Y, S, Q, edges=EDGES[:5], lib=conv)
    b = _feed(ms.RetrievalHitRate(N, top_k=2), Y, S, Q, edges=EDGES[4:], lib=conv)
    _close(a.merge(b).compute(), want)
    c = ms.RetrievalHitRate(N, top_k=2).load_state_dict(
        _feed(ms.RetrievalHitRate(N, top_k=2), Y, S, Q, edges=EDGES[:4], lib=conv).state_dict())
    _close(_feed(c, Y, S, Q, edges=EDGES[3:], lib=conv).compute(), want)
    with pytest.raises(ValueError, match="metric"):   # another retrieval metric's state
        ms.RetrievalRecall(N, top_k=2).load_state_dict(c.state_dict())
