"""Streaming updates inside compiled steps: no graph break, no recompile, no retrace."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix.stream as ms
from conformance.util import jax_x64

pytestmark = pytest.mark.compile

C, N, STEPS = 5, 64, 100


def _data(seed=0):
    rng = np.random.default_rng(seed)
    ys = rng.integers(0, C, (STEPS, N))
    logits = rng.normal(size=(STEPS, N, C))
    ps = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    reg_t = rng.normal(size=(STEPS, N))
    reg_p = reg_t + rng.normal(0, 0.3, size=(STEPS, N))
    return ys, ps, reg_t, reg_p


def _collection():
    return ms.MetricCollection({
        "acc": ms.Accuracy(C), "f1": ms.F1Score(C), "mcc": ms.MatthewsCorrCoef(C),
        "auc": ms.AUROC(num_classes=C, thresholds=200),
        "ap_exact": ms.AveragePrecision(num_classes=C, capacity=STEPS * N),
        "ll": ms.LogLoss(num_classes=C)})


def _expected(ys, ps):
    y, p = ys.reshape(-1), ps.reshape(-1, C)
    onehot = (y[:, None] == np.arange(C)).astype(int)
    return {"acc": skm.accuracy_score(y, p.argmax(1)),
            "f1": skm.f1_score(y, p.argmax(1), average="macro"),
            "mcc": skm.matthews_corrcoef(y, p.argmax(1)),
            "ap_exact": skm.average_precision_score(onehot, p),
            "ll": skm.log_loss(y, p, labels=list(range(C)))}


def test_torch_compile_fullgraph_training_step_no_recompile():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch._dynamo")
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    ys, ps, reg_t, reg_p = _data()
    coll = _collection().to("cpu")
    mse = ms.MeanSquaredError().to("cpu")
    model = torch.nn.Linear(C, C).double()

    def step(y, p, t, q):
        out = model(p)            # a model forward in the same graph
        coll.update(y, p)
        mse.update(t, q)
        return out.sum()

    compiled = torch.compile(step, fullgraph=True)
    for i in range(STEPS):
        compiled(torch.asarray(ys[i]), torch.asarray(ps[i]), torch.asarray(reg_t[i]),
                 torch.asarray(reg_p[i]))
    assert counters["stats"]["unique_graphs"] == 1, dict(counters["stats"])
    assert not counters["graph_break"]
    got = coll.compute()
    for k, v in _expected(ys, ps).items():
        np.testing.assert_allclose(got[k].numpy(), v, rtol=1e-9)
    np.testing.assert_allclose(mse.compute().numpy(),
                               skm.mean_squared_error(reg_t.ravel(), reg_p.ravel()), rtol=1e-9)


def test_torch_compile_functional_update():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch._dynamo")
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    _, _, reg_t, reg_p = _data(1)
    spec = ms.CollectionStream({"r2": ms.RegressionStream("r2"),
                                "med": ms.RegressionStream("median_ae", capacity=STEPS * N)})
    state = spec.init(torch.zeros(1, dtype=torch.float64))
    update = torch.compile(spec.update, fullgraph=True)
    for i in range(STEPS):
        state = update(state, torch.asarray(reg_t[i]), torch.asarray(reg_p[i]))
    assert counters["stats"]["unique_graphs"] == 1, dict(counters["stats"])
    got = spec.compute(state)
    np.testing.assert_allclose(got["r2"].numpy(), skm.r2_score(reg_t.ravel(), reg_p.ravel()),
                               rtol=1e-9)
    np.testing.assert_allclose(got["med"].numpy(),
                               skm.median_absolute_error(reg_t.ravel(), reg_p.ravel()))


def test_jax_jit_update_does_not_retrace_and_scans():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    ys, ps, _, _ = _data(2)
    with jax_x64(True):
        spec = _collection().spec
        traces = []

        def update(state, y, p):
            traces.append(1)
            return spec.update(state, y, p)

        jitted = jax.jit(update)
        state = spec.init(jnp.zeros(1, dtype=jnp.float64))
        for i in range(STEPS):
            state = jitted(state, jnp.asarray(ys[i]), jnp.asarray(ps[i]))
        assert len(traces) == 1
        got = jax.jit(spec.compute)(state)

        def body(state, batch):
            return spec.update(state, *batch), None

        scanned, _ = jax.lax.scan(body, spec.init(jnp.zeros(1, dtype=jnp.float64)),
                                  (jnp.asarray(ys), jnp.asarray(ps)))
        got_scan = spec.compute(scanned)
    for k, v in _expected(ys, ps).items():
        np.testing.assert_allclose(np.asarray(got[k]), v, rtol=1e-9)
        np.testing.assert_allclose(np.asarray(got_scan[k]), v, rtol=1e-9)
