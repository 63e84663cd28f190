"""Saved states of the stream metrics: checked on load, portable across backends.

``load_state_dict`` checks the configuration saved with the state (class
count, average, thresholds, task, capacity, ...), the keys, each leaf's shape
and dtype kind, with errors that name the mismatch; a state saved on one
backend loads on another (see :mod:`metrix.stream._checkpoint`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import metrix.stream as ms
from metrix.stream._checkpoint import CONFIG_KEY, decode_config

RNG = np.random.default_rng(0)
Y3, P3 = RNG.integers(0, 3, 40), RNG.integers(0, 3, 40)
YB, SB = np.r_[0, 1, RNG.integers(0, 2, 38)], RNG.random(40)


def close(got, want, combo=None):
    tol = {"rtol": 2e-4, "atol": 2e-5} if combo is not None and \
        combo.float_dtype == "float32" else {"rtol": 1e-9, "atol": 1e-12}
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               **tol)


def _np(x):
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if type(x).__module__.startswith("array_api_strict"):
        import array_api_strict as xps

        return np.asarray(xps.asarray(x, device=xps.Device("CPU_DEVICE")))
    return np.asarray(x)


def _numpy_dict(sd):
    return {k: _np(v) for k, v in sd.items()}


# every wrapper, its constructor and data (y_true, y_pred)
def _cases():
    p = RNG.dirichlet(np.ones(3), 40)
    return [
        ("acc", lambda: ms.Accuracy(3), Y3, P3),
        ("f1w", lambda: ms.F1Score(3, average="weighted", weighted=True), Y3, P3),
        ("kappa", lambda: ms.CohenKappa(3, weights="linear"), Y3, P3),
        ("cm", lambda: ms.ConfusionMatrix(3, normalize="true"), Y3, P3),
        ("auc", lambda: ms.AUROC(thresholds=20), YB, SB),
        ("ap_edges", lambda: ms.AveragePrecision(thresholds=[0.2, 0.5, 0.9]), YB, SB),
        ("auc_exact", lambda: ms.AUROC(num_classes=3, capacity=64), Y3, p),
        ("mse", lambda: ms.MeanSquaredError(), SB, SB[::-1].copy()),
        ("mae", lambda: ms.MeanAbsoluteError(), SB, SB[::-1].copy()),
        ("r2", lambda: ms.R2Score(num_outputs=2, multioutput="raw_values"),
         RNG.random((40, 2)), RNG.random((40, 2))),
        ("medae", lambda: ms.MedianAbsoluteError(capacity=50), SB, SB[::-1].copy()),
        ("ll", lambda: ms.LogLoss(3), Y3, p),
        ("coll", lambda: ms.MetricCollection({"f1": ms.F1Score(3), "p": ms.Precision(3)}),
         Y3, P3),
    ]


CASES = _cases()
# one of each kind of state, for the (slower) runs on every backend
BACKEND_CASES = [c for c in CASES if c[0] in ("f1w", "auc", "auc_exact", "r2", "ll", "coll")]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_round_trip_every_metric(case):
    _, make, y, p = case
    m = make()
    m.update(y[:25], p[:25])
    sd = m.state_dict()
    assert CONFIG_KEY in sd
    other = make().load_state_dict(sd)
    m.update(y[25:], p[25:])
    other.update(y[25:], p[25:])  # loading keeps the exact buffers' row counts
    want = m.compute()
    got = other.compute()
    if isinstance(want, dict):
        for k in want:
            close(got[k], want[k])
    else:
        close(got, want)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_pickle_round_trip_every_metric(case, backend):
    """A metric pickles mid-stream (torch.save of a model, ddp_spawn, multiprocessing)
    and goes on counting."""
    import pickle

    _, make, y, p = case
    if backend == "torch":
        torch = pytest.importorskip("torch")
        y, p = torch.asarray(y), torch.asarray(p)
    m = make()
    m.update(y[:10], p[:10])
    m.update(y[10:25], p[10:25])  # the second batch takes the in-place path where there is one
    other = pickle.loads(pickle.dumps(m))
    for metric in (m, other):
        metric.update(y[25:], p[25:])
    want, got = m.compute(), other.compute()
    assert type(got) is type(want)
    if isinstance(want, dict):
        for k in want:
            close(_np(got[k]), _np(want[k]))
    else:
        close(_np(got), _np(want))


def test_the_issue_reproduction_names_the_mismatch():
    m = ms.F1Score(3)
    m.update(Y3, P3)
    sd = m.state_dict()
    with pytest.raises(ValueError, match="num_classes: saved 3, this metric 5"):
        ms.F1Score(5).load_state_dict(sd)
    # a dict without the configuration (saved before it existed): the shapes
    old = {k: v for k, v in sd.items() if k != CONFIG_KEY}
    with pytest.raises(ValueError, match=r"state_dict\['cm'\] has shape \(25,\), "
                                         r"expected \(49,\)"):
        ms.F1Score(5).load_state_dict(old)
    ms.F1Score(3).load_state_dict(old)  # and it still loads where it fits


def test_empty_dict():
    m = ms.F1Score(3)
    m.update(Y3, P3)
    before = m.compute()
    with pytest.raises(ValueError, match=r"empty dict.*reset\(\)"):
        m.load_state_dict({})
    assert m.compute() == before  # nothing wiped
    fresh = ms.F1Score(3).load_state_dict({})  # a metric without data: nothing to lose
    assert fresh.state is None
    # the state_dict of a metric that saw no data: the config alone, and loading it
    # empties a metric (as reset(), keeping its placement)
    empty = ms.F1Score(3).state_dict()
    assert set(empty) == {CONFIG_KEY}
    m.load_state_dict(empty)
    assert int(np.asarray(m.state["cm"]).sum()) == 0
    with pytest.raises(ValueError, match="num_classes"):
        m.load_state_dict(ms.F1Score(4).state_dict())
    with pytest.raises(TypeError, match="expects a dict"):
        m.load_state_dict([("cm", np.zeros(25))])


DATA = {"labels": (Y3, P3), "scores": (YB, SB), "reg": (SB, SB[::-1].copy()),
        "proba": (Y3, RNG.dirichlet(np.ones(3), 40))}


@pytest.mark.parametrize("saved, target, data, what", [
    (lambda: ms.F1Score(3, average="macro"), lambda: ms.F1Score(3, average="micro"),
     "labels", "average: saved 'macro', this metric 'micro'"),
    (lambda: ms.AUROC(thresholds=5), lambda: ms.AUROC(thresholds=[0, .25, .5, .75, 1.]),
     "scores", r"thresholds: saved 5, this metric \[0.0, 0.25, 0.5, 0.75, 1.0\]"),
    (lambda: ms.AUROC(), lambda: ms.AveragePrecision(), "scores",
     "metric: saved 'roc_auc', this metric 'average_precision'"),
    (lambda: ms.AUROC(capacity=40), lambda: ms.AUROC(capacity=50), "scores",
     "capacity: saved 40, this metric 50"),
    (lambda: ms.F1Score(3), lambda: ms.Precision(3), "labels", "metric: saved 'f1'"),
    (lambda: ms.F1Score(3, weighted=True), lambda: ms.F1Score(3), "labels",
     "weighted: saved True, this metric False"),
    (lambda: ms.MeanSquaredError(), lambda: ms.MeanSquaredError(multioutput="raw_values"),
     "reg", "multioutput: saved 'uniform_average'"),
    (lambda: ms.LogLoss(3), lambda: ms.LogLoss(3, normalize=False), "proba",
     "normalize: saved True"),
    (lambda: ms.Accuracy(2, threshold=0.3), lambda: ms.Accuracy(2), "scores",
     "threshold: not other|threshold: saved 0.3"),
    (lambda: ms.MetricCollection({"a": ms.Accuracy(3)}),
     lambda: ms.MetricCollection({"b": ms.Accuracy(3)}), "labels", "metrics.a: saved"),
])
def test_configuration_mismatch_is_named_even_when_shapes_agree(saved, target, data, what):
    s = saved()
    s.update(*DATA[data])
    with pytest.raises(ValueError, match=what):
        target().load_state_dict(s.state_dict())


def test_binary_label_streams_of_other_thresholds_do_not_merge():
    # their confusion matrices count predictions cut at different scores
    a, b = ms.Accuracy(2, threshold=0.3), ms.Accuracy(2)
    a.update(YB, SB)
    b.update(YB, SB)
    with pytest.raises(ValueError, match="threshold: other"):
        b.merge(a)
    c = ms.Accuracy(2)  # the default: no key in the configuration (older checkpoints)
    c.update(YB, SB)
    assert "threshold" not in b.spec.config()
    close(c.merge(b).compute(), b.compute())


def test_keys_shapes_and_dtype_kinds_without_a_configuration():
    m = ms.F1Score(3)
    m.update(Y3, P3)
    cm = m.state_dict()["cm"]
    with pytest.raises(KeyError, match=r"missing \['cm'\], unexpected \['nope'\]"):
        ms.F1Score(3).load_state_dict({"nope": cm})
    with pytest.raises(KeyError, match=r"unexpected \['extra'\]"):
        ms.F1Score(3).load_state_dict({"cm": cm, "extra": cm})
    # int counts into a float (weighted) metric, and float sums into int counts
    with pytest.raises(ValueError, match=r"state_dict\['cm'\] has dtype int64, expected "
                                         "float values"):
        ms.F1Score(3, weighted=True).load_state_dict({"cm": cm})
    with pytest.raises(ValueError, match=r"expected integer counts \(int64\)"):
        ms.F1Score(3).load_state_dict({"cm": cm.astype(float)})
    # within a kind the dtype becomes the metric's own (int32 counts: JAX without x64)
    got = ms.F1Score(3).load_state_dict({"cm": cm.astype(np.int32)})
    assert got.state["cm"].dtype == np.int64
    close(got.compute(), m.compute())
    # exact buffers: the fields agree on their length (a merged state has more rows)
    a = ms.AUROC(capacity=8)
    a.update(YB[:5], SB[:5])
    sd = a.state_dict()
    sd["buf_target"] = sd["buf_target"][:4]
    with pytest.raises(ValueError, match="buffer fields must have one length"):
        ms.AUROC(capacity=8).load_state_dict(sd)


def test_merged_buffers_load():
    a, b = ms.AUROC(capacity=30), ms.AUROC(capacity=30)
    a.update(YB[:20], SB[:20])
    b.update(YB[20:], SB[20:])
    a.merge(b)
    c = ms.AUROC(capacity=30).load_state_dict(a.state_dict())
    close(c.compute(), a.compute())


def test_configuration_formats():
    m = ms.AUROC(thresholds=[0.1, 0.5])
    sd = m.state_dict()
    cfg = decode_config(sd[CONFIG_KEY])
    assert cfg["thresholds"] == [0.1, 0.5] and cfg["version"] == 1
    import json

    # a str (e.g. edited by hand) is read too; an unknown version is refused
    m.load_state_dict({CONFIG_KEY: json.dumps(cfg)})
    with pytest.raises(ValueError, match="format version 99"):
        m.load_state_dict({CONFIG_KEY: json.dumps({**cfg, "version": 99})})
    with pytest.raises(ValueError, match="not a metrix.stream metric configuration"):
        m.load_state_dict({CONFIG_KEY: np.zeros(3, dtype=np.uint8)})
    # zero_division=nan round-trips (NaN != NaN must not read as a mismatch)
    f = ms.F1Score(3, zero_division=np.nan)
    f.update(Y3, P3)
    ms.F1Score(3, zero_division=np.nan).load_state_dict(f.state_dict())


# -- across backends --------------------------------------------------------------------

def test_numpy_state_loads_on_every_backend(xp):
    for _, make, y, p in BACKEND_CASES:
        src = make()
        src.update(y, p)
        want = src.compute()
        sd = {k: xp.asarray(v) for k, v in src.state_dict().items()}
        got = make().load_state_dict(sd)  # a new metric takes the arrays' placement
        out = got.compute()
        for k, v in (out.items() if isinstance(out, dict) else [(None, out)]):
            xp.combo.check_placement(v)
            close(xp.to_numpy(v) if not isinstance(v, float) else v,
                  want[k] if k is not None else want, xp.combo)


def test_backend_state_loads_into_numpy_and_placed_metrics(xp):
    for _, make, y, p in BACKEND_CASES:
        src = make()
        src.update(xp.asarray(y), xp.asarray(p))
        sd = src.state_dict()
        ref = make()
        ref.update(y, p)
        want = ref.compute()
        # a metric already placed on NumPy keeps its placement: the arrays move there
        placed = make()
        placed.update(y[:1], p[:1])
        placed.load_state_dict(sd)
        out = placed.compute()
        for k, v in (out.items() if isinstance(out, dict) else [(None, out)]):
            assert isinstance(v, (float, np.generic, np.ndarray)), type(v)
            close(v, want[k] if k is not None else want, xp.combo)


def test_loads_onto_a_metric_placed_on_another_device():
    xps = pytest.importorskip("array_api_strict")
    dev = xps.Device("device1")
    src = ms.MetricCollection({"f1": ms.F1Score(3), "ap": ms.AveragePrecision(thresholds=9),
                               "mse": ms.MeanSquaredError()})
    src.update(YB, SB)
    m = ms.MetricCollection({"f1": ms.F1Score(3), "ap": ms.AveragePrecision(thresholds=9),
                             "mse": ms.MeanSquaredError()})
    m.update(xps.asarray(YB[:2], device=dev), xps.asarray(SB[:2], device=dev))
    m.load_state_dict(src.state_dict())
    for v in m.state_dict().values():
        assert v.device == dev
    for k, v in m.compute().items():
        assert v.device == dev
        close(np.asarray(xps.asarray(v, device=xps.Device("CPU_DEVICE"))), src.compute()[k])


def test_torch_and_numpy_both_ways():
    torch = pytest.importorskip("torch")
    m = ms.AUROC(capacity=64)
    m.update(torch.asarray(YB[:30]), torch.asarray(SB[:30]))
    sd = m.state_dict()
    assert all(isinstance(v, torch.Tensor) for v in sd.values())
    n = ms.AUROC(capacity=64).load_state_dict(_numpy_dict(sd))  # torch -> NumPy
    assert isinstance(n.state["buf_score"], np.ndarray)
    n.update(YB[30:], SB[30:])
    t = ms.AUROC(capacity=64).to("cpu").load_state_dict(_numpy_dict(sd))  # NumPy -> torch
    assert isinstance(t.state["buf_score"], torch.Tensor)
    t.update(torch.asarray(YB[30:]), torch.asarray(SB[30:]))
    full = ms.AUROC(capacity=64)
    full.update(YB, SB)
    close(n.compute(), full.compute())
    close(t.compute(), full.compute())
    # torch.save / torch.load (weights_only) keep every entry
    import io

    buf = io.BytesIO()
    torch.save(sd, buf)
    buf.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.load(buf, weights_only=True)
    close(ms.AUROC(capacity=64).load_state_dict(loaded).compute(), m.compute())
