"""``metrix.integrations.flax``: every stream metric as a ``flax.nnx.Metric``."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

nnx = pytest.importorskip("flax.nnx")
jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

import metrix.stream as ms  # noqa: E402
from metrix.integrations import flax as mf  # noqa: E402

pytestmark = pytest.mark.integrations

C = 5  # class 4 never occurs in y_true: an absent class
ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide" / "flax.md"


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _batches(seed=0, n_batches=4, n=64):
    """Realistic batches: labels 0..3 (class 4 absent), float32 logits that are right
    about 60 % of the time, regression targets; weights with zeros."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_batches):
        y = rng.integers(0, C - 1, n)
        logits = rng.normal(size=(n, C)).astype(np.float32)
        logits[np.arange(n), y] += np.where(rng.random(n) < 0.6, 2.5, 0.0).astype(np.float32)
        t = rng.normal(size=n).astype(np.float32)
        p = (t + 0.5 * rng.normal(size=n)).astype(np.float32)
        w = np.where(rng.random(n) < 0.2, 0.0, rng.random(n)).astype(np.float32)
        out.append({"labels": y, "logits": logits, "probs": _softmax(logits).astype(np.float32),
                    "target": t, "pred": p, "w": w})
    return out


def _cat(batches, key):
    return np.concatenate([b[key] for b in batches])


def _jnp(batch):
    return {k: jnp.asarray(v) for k, v in batch.items()}


def _check_sklearn(got, batches, weighted=False):
    y, p = _cat(batches, "labels"), _cat(batches, "logits").argmax(1)
    probs, t, r = _cat(batches, "probs"), _cat(batches, "target"), _cat(batches, "pred")
    w = _cat(batches, "w") if weighted else None
    labels = list(range(C))
    np.testing.assert_allclose(got["f1"], skm.f1_score(y, p, average="macro", labels=labels,
                                                       sample_weight=w, zero_division=0),
                               rtol=1e-5)
    np.testing.assert_allclose(got["accuracy"], skm.accuracy_score(y, p, sample_weight=w),
                               rtol=1e-6)
    # per-class one-vs-rest AUROC (average=None); class 4 is absent from y_true: NaN
    want_auc = [skm.roc_auc_score(y == k, probs[:, k], sample_weight=w) for k in range(C - 1)]
    assert got["auc"].shape == (C,) and np.isnan(got["auc"][C - 1])
    np.testing.assert_allclose(got["mse"], skm.mean_squared_error(t, r, sample_weight=w),
                               rtol=1e-5)
    return want_auc


# -- the faces -----------------------------------------------------------------------

def _all_faces():
    """One face of every stream metric, with keyword names for one MultiMetric."""
    lab = {"y_true_arg": "labels", "y_pred_arg": "logits"}
    rank = {"y_true_arg": "labels", "y_pred_arg": "probs"}
    reg = {"y_true_arg": "target", "y_pred_arg": "pos"}
    seg = {"y_true_arg": "seg_true", "y_pred_arg": "seg_pred"}
    text = {"y_true_arg": "tokens", "y_pred_arg": "token_logits"}
    binary = {"y_true_arg": "bin_true", "y_pred_arg": "bin_score"}
    multilabel = {"y_true_arg": "ml_true", "y_pred_arg": "probs"}  # one-hot rows, scores
    retrieval = {"y_true_arg": "bin_true", "y_pred_arg": "bin_score",
                 "sample_weight_arg": "query_ids"}
    faces, streams = {}, {}
    for name in mf.STREAM_METRICS:
        cls, stream = getattr(mf, name), getattr(ms, name)
        if name in ("AUROC", "AveragePrecision"):
            args, kw, names = (), {"num_classes": C, "capacity": 256}, rank
        elif next(iter(inspect.signature(stream).parameters)).startswith("min_"):
            # the binary operating points: (value, threshold)
            args, kw, names = (0.6,), {"capacity": 256}, binary
        elif name in ("LogLoss", "BrierScore", "D2LogLossScore", "D2BrierScore"):
            args, kw, names = (C,), {}, rank
        elif name == "CalibrationError":
            args, kw, names = (), {"n_bins": 10, "num_classes": C}, rank
        elif name in ("MedianAbsoluteError", "SpearmanCorrCoef", "D2PinballScore",
                      "D2AbsoluteErrorScore"):
            args, kw, names = (256,), {}, reg
        elif name == "Perplexity":
            args, kw, names = (), {}, text
        elif name == "ClassLikelihoodRatios":
            args, kw, names = (), {}, binary
        elif name == "ExactMatch":
            args, kw, names = (C,), {}, multilabel
        elif name.startswith("Retrieval"):  # the query ids go where sample_weight goes
            args, kw, names = (256,), {"top_k": 3}, retrieval
        elif "input_format" in inspect.signature(stream).parameters:
            args, kw, names = (C,), {}, seg
        elif "num_outputs" in inspect.signature(stream).parameters:
            args, kw, names = (), {}, reg
        else:
            args, kw, names = (C,), {}, lab
        faces[name] = cls(*args, **kw, **names)
        streams[name] = (stream(*args, **kw), names)
    return faces, streams


def test_every_stream_metric_has_an_nnx_metric_of_the_same_name_and_value():
    names = [n for n in ms.__all__ if isinstance(getattr(ms, n), type)
             and issubclass(getattr(ms, n), ms.Metric) and n != "Metric"
             # the aggregators (MeanMetric, ...) and the wrappers of another metric
             # (Running, ClasswiseWrapper) are the torch face's: this framework logs
             # values with its own
             and not issubclass(getattr(ms, n), ms.Aggregator)
             and n not in ("Running", "ClasswiseWrapper")]
    for name in names:
        assert issubclass(getattr(mf, name), nnx.metrics.Metric), name
    faces, streams = _all_faces()
    assert set(faces) | {"MetricCollection"} == set(names)
    metrics = nnx.MultiMetric(**faces)

    @nnx.jit
    def step(metrics, batch):
        metrics.update(labels=batch["labels"], logits=batch["logits"], probs=batch["probs"],
                       target=jnp.abs(batch["target"]) + 0.1, pos=jnp.abs(batch["pred"]),
                       seg_true=jnp.reshape(batch["labels"], (-1, 2)),
                       seg_pred=jnp.reshape(jnp.argmax(batch["logits"], axis=1), (-1, 2)),
                       tokens=jnp.reshape(batch["labels"], (-1, 2)),
                       token_logits=jnp.reshape(batch["logits"], (-1, 2, C)),
                       bin_true=batch["labels"] % 2, bin_score=batch["probs"][:, 1],
                       ml_true=jax.nn.one_hot(batch["labels"], C, dtype=jnp.int32),
                       query_ids=batch["labels"])

    batches = _batches(1, n_batches=2)
    for b in batches:
        step(metrics, _jnp(b))
    got = metrics.compute()
    for name, (stream, names) in streams.items():
        for b in batches:  # the stream metric on NumPy float64: the reference
            data = dict(b, target=np.abs(b["target"]).astype(np.float64) + 0.1,
                        pos=np.abs(b["pred"]).astype(np.float64),
                        seg_true=b["labels"].reshape(-1, 2),
                        seg_pred=b["logits"].argmax(1).reshape(-1, 2),
                        tokens=b["labels"].reshape(-1, 2),
                        token_logits=b["logits"].reshape(-1, 2, C),
                        bin_true=b["labels"] % 2, bin_score=b["probs"][:, 1],
                        ml_true=np.eye(C, dtype=np.int64)[b["labels"]])
            ids = (data["labels"],) if "sample_weight_arg" in names else ()
            stream.update(data[names["y_true_arg"]], data[names["y_pred_arg"]], *ids)
        np.testing.assert_allclose(np.asarray(got[name]), stream.compute(), rtol=2e-5,
                                   atol=1e-6, err_msg=name)


def test_multimetric_under_nnx_jit_equals_scikit_learn():
    names = {"y_true_arg": "labels", "y_pred_arg": "logits"}
    metrics = nnx.MultiMetric(
        f1=mf.F1Score(C, **names),
        accuracy=mf.Accuracy(C, **names),
        auc=mf.AUROC(num_classes=C, average=None, capacity=512, y_true_arg="labels",
                     y_pred_arg="probs"),
        auc_binned=mf.AUROC(num_classes=C, average=None, y_true_arg="labels",
                            y_pred_arg="probs"),
        mse=mf.MeanSquaredError(y_true_arg="target", y_pred_arg="pred"),
        flax_accuracy=nnx.metrics.Accuracy(),
        loss=nnx.metrics.Average("loss"))
    traces = []

    @nnx.jit
    def eval_step(metrics, b):
        traces.append(1)
        metrics.update(labels=b["labels"], logits=b["logits"], probs=b["probs"],
                       target=b["target"], pred=b["pred"], loss=b["target"] ** 2)

    batches = _batches(0)
    for b in batches:
        eval_step(metrics, _jnp(b))
    got = metrics.compute()
    assert len(traces) == 1
    want_auc = _check_sklearn(got, batches)
    np.testing.assert_allclose(got["auc"][:C - 1], want_auc, rtol=1e-5)
    np.testing.assert_allclose(got["auc_binned"][:C - 1], want_auc, atol=2e-3)  # 1000 bins
    np.testing.assert_allclose(got["flax_accuracy"], got["accuracy"], rtol=1e-6)
    assert metrics.f1.state_vars["cm"][...].dtype == jnp.int32  # no x64: int32 counts
    assert isinstance(metrics.f1.state_vars["cm"], nnx.metrics.MetricState)


def test_alone_positional_and_keywords_eager_and_jitted():
    batches = _batches(2, n_batches=3)
    y, p = _cat(batches, "labels"), _cat(batches, "logits").argmax(1)
    want = skm.f1_score(y, p, average="macro", labels=list(range(C)), zero_division=0)
    eager, by_name, jitted = mf.F1Score(C), mf.F1Score(C), mf.F1Score(C)

    @nnx.jit
    def step(metric, y_true, y_pred):
        metric.update(y_true, y_pred)

    for b in batches:
        yb, lb = jnp.asarray(b["labels"]), jnp.asarray(b["logits"])
        eager.update(yb, lb)                       # (y_true, y_pred): scores are arg-maxed
        by_name.update(y_pred=lb, y_true=yb, unrelated=0)
        step(jitted, yb, lb)
    for metric in (eager, by_name, jitted):
        np.testing.assert_allclose(metric.compute(), want, rtol=1e-6)


def test_reset_forgets_and_keeps_dtypes():
    metrics = nnx.MultiMetric(
        f1=mf.F1Score(C, y_true_arg="labels", y_pred_arg="logits"),
        accuracy=mf.Accuracy(C, y_true_arg="labels", y_pred_arg="logits"),
        auc=mf.AUROC(num_classes=C, average=None, capacity=256, y_true_arg="labels",
                     y_pred_arg="probs"),
        mse=mf.MeanSquaredError(y_true_arg="target", y_pred_arg="pred"))
    fresh = jax.tree.map(lambda v: (v.shape, v.dtype), nnx.state(metrics))

    @nnx.jit
    def step(metrics, b):
        metrics.update(labels=b["labels"], logits=b["logits"], probs=b["probs"],
                       target=b["target"], pred=b["pred"])

    first, second = _batches(3, 2), _batches(4, 2)
    for b in first:
        step(metrics, _jnp(b))
    metrics.reset()
    assert all(not np.any(np.asarray(v)) for v in jax.tree.leaves(nnx.state(metrics)))
    assert jax.tree.map(lambda v: (v.shape, v.dtype), nnx.state(metrics)) == fresh
    for b in second:
        step(metrics, _jnp(b))
    got = metrics.compute()
    np.testing.assert_allclose(got["auc"][:C - 1], _check_sklearn(got, second), rtol=1e-5)


def test_sample_weights_with_zeros_equal_scikit_learn():
    names = {"y_true_arg": "labels", "y_pred_arg": "logits", "sample_weight_arg": "w"}
    metrics = nnx.MultiMetric(
        f1=mf.F1Score(C, weighted=True, **names),
        accuracy=mf.Accuracy(C, weighted=True, **names),
        auc=mf.AUROC(num_classes=C, average=None, capacity=256, y_true_arg="labels",
                     y_pred_arg="probs", sample_weight_arg="w"),
        mse=mf.MeanSquaredError(y_true_arg="target", y_pred_arg="pred", sample_weight_arg="w"),
        logloss=mf.LogLoss(C, y_true_arg="labels", y_pred_arg="probs", sample_weight_arg="w"))

    @nnx.jit
    def step(metrics, b):
        metrics.update(**b)

    batches = _batches(5, 3)
    for b in batches:
        step(metrics, _jnp(b))
    got = metrics.compute()
    np.testing.assert_allclose(got["auc"][:C - 1], _check_sklearn(got, batches, weighted=True),
                               rtol=1e-5)
    y, probs, w = _cat(batches, "labels"), _cat(batches, "probs"), _cat(batches, "w")
    np.testing.assert_allclose(got["logloss"], skm.log_loss(y, probs, sample_weight=w,
                                                            labels=list(range(C))),
                               rtol=1e-5)
    unweighted = mf.F1Score(C)
    with pytest.raises(ValueError, match="weighted=True"):
        unweighted.update(jnp.asarray(y), jnp.asarray(y), jnp.asarray(w))


def test_mask_drops_padding_exactly():
    """A padded batch with garbage in the padding equals the batch without it: integer
    counts identical, float sums and exact buffers equal."""
    def make():
        return nnx.MultiMetric(
            coll=mf.MetricCollection({"f1": mf.F1Score(C), "mcc": mf.MatthewsCorrCoef(C),
                                      "acc": mf.Accuracy(C)}),
            auc=mf.AUROC(num_classes=C),                      # binned: int counts
            auc_exact=mf.AUROC(num_classes=C, average=None, capacity=512),
            mse=mf.MeanSquaredError(y_true_arg="y_true", y_pred_arg="reg"),
            msle=mf.MeanSquaredLogError(y_true_arg="y_true", y_pred_arg="reg"))

    rng = np.random.default_rng(6)
    padded, plain = make(), make()

    @nnx.jit
    def step(metrics, y, probs, mask=None):
        reg = jnp.abs(probs[:, 0]) * 3.0
        metrics.update(y_true=y, y_pred=probs, reg=reg, mask=mask)

    for n, pad in ((40, 24), (64, 0), (0, 64)):  # a batch with nothing kept too
        b = _batches(int(rng.integers(100)), 1, n)[0] if n else None
        y = np.full(n + pad, -100)
        probs = np.full((n + pad, C), np.nan, np.float32)
        if n:
            y[pad:], probs[pad:] = b["labels"], b["probs"]  # padding first: row 0 is garbage
            step(plain, jnp.asarray(b["labels"]), jnp.asarray(b["probs"]))
        step(padded, jnp.asarray(y), jnp.asarray(probs), jnp.arange(n + pad) >= pad)
    got, want = padded.compute(), plain.compute()
    np.testing.assert_array_equal(padded.coll.state["s0"]["cm"], plain.coll.state["s0"]["cm"])
    np.testing.assert_array_equal(padded.auc.state["hist"], plain.auc.state["hist"])
    for key in ("auc_exact", "mse", "msle"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-6, err_msg=key)
        assert np.all(np.isfinite(np.asarray(got[key]).ravel()[:C - 1])), key  # no NaN leaks
    for key in ("f1", "mcc", "acc"):
        np.testing.assert_allclose(got["coll"][key], want["coll"][key], rtol=1e-6)
    with pytest.raises(ValueError, match="one value per sample"):
        mf.F1Score(C).update(jnp.zeros(4, int), jnp.zeros(4, int), mask=jnp.ones(3, bool))


def test_argument_errors_name_the_keywords():
    f1 = mf.F1Score(C, y_true_arg="labels", y_pred_arg="logits")
    with pytest.raises(TypeError, match="'labels' and 'logits'"):
        f1.update(y_true=jnp.zeros(3, int), y_pred=jnp.zeros(3, int))
    with pytest.raises(TypeError, match="both positionally and as a keyword"):
        f1.update(jnp.zeros(3, int), jnp.zeros(3, int), labels=jnp.zeros(3, int))
    with pytest.raises(ValueError, match="three different"):
        mf.F1Score(C, y_true_arg="x", y_pred_arg="x")
    with pytest.raises(TypeError, match="metrix.stream metric"):
        mf.FlaxMetric(object())
    half = mf.LogLoss(C, dtype=jnp.float16)  # the result dtype; sums stay in the widest float
    assert half.state["meta_dtype"].dtype == jnp.float16
    assert half.state["s_loss"].dtype == jnp.float32


def test_state_merge_and_load_state():
    batches = _batches(7, 4)
    whole, a, b = mf.F1Score(C), mf.F1Score(C), mf.F1Score(C)
    for i, batch in enumerate(batches):
        y, logits = jnp.asarray(batch["labels"]), jnp.asarray(batch["logits"])
        whole.update(y, logits)
        (a if i % 2 else b).update(y, logits)
    a.merge(b)
    np.testing.assert_array_equal(a.state["cm"], whole.state["cm"])
    resumed = mf.F1Score(C)
    resumed.load_state(a.state)
    assert resumed.state["cm"].dtype == jnp.int32
    np.testing.assert_array_equal(resumed.compute(), whole.compute())
    np.testing.assert_array_equal(ms.merge_states(b.state, b.state)["cm"], 2 * b.state["cm"])
    with pytest.raises(ValueError, match="shape"):
        resumed.load_state({"cm": jnp.zeros(4, jnp.int32)})
    with pytest.raises(ValueError, match="float32"):
        resumed.load_state({"cm": jnp.zeros((C + 2) ** 2, jnp.float32)})
    # exact buffers merge by concatenation: the variables take the larger buffer
    y, s = _cat(batches, "labels") % 2, _cat(batches, "probs")[:, 1]
    x, z = mf.AUROC(capacity=256), mf.AUROC(capacity=256)
    x.update(jnp.asarray(y[:100]), jnp.asarray(s[:100]))
    z.update(jnp.asarray(y[100:]), jnp.asarray(s[100:]))
    x.merge(z)
    assert x.state["buf_weight"].shape == (512,)
    np.testing.assert_allclose(x.compute(), skm.roc_auc_score(y, s), rtol=1e-6)


# -- the guide -----------------------------------------------------------------------

def _guide_blocks():
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) == 4
    return blocks


def test_the_guide_nnx_examples_run():
    spaces = []
    for block in _guide_blocks():
        if "shard_map" not in block:
            spaces.append({})
            exec(compile(block, str(GUIDE), "exec"), spaces[-1])
    ns = next(n for n in spaces if "f1" in n)
    np.testing.assert_allclose(ns["f1"].compute(), skm.f1_score([0, 1, 2, 2], [0, 2, 2, 2],
                                                                 average="macro"), rtol=1e-6)
    values = next(n for n in spaces if "logged" in n)["values"]
    assert {k: float(v) for k, v in values.items() if k != "recall"} == {
        "loss": 3.0, "worst": 6.0, "recent": 4.0}
    assert {k: float(v) for k, v in values["recall"].items()} == {
        "recall_a": 1.0, "recall_b": 1.0, "recall_c": 1.0}


_SHARD_CHECK = """
import json
import numpy as np
import sklearn.metrics as skm
assert jax.device_count() == 2, jax.devices()
one = spec.compute(spec.update(spec.init(logits), labels, jax.nn.softmax(logits)))
y, probs = np.asarray(labels), np.asarray(jax.nn.softmax(logits))
want = {"f1": skm.f1_score(y, probs.argmax(1), average="macro"),
        "accuracy": skm.accuracy_score(y, probs.argmax(1)),
        "auc": skm.roc_auc_score(y, probs, multi_class="ovr")}
print(json.dumps({"two": {k: float(v) for k, v in result.items()},
                  "one": {k: float(v) for k, v in one.items()}, "sklearn": want}))
"""


def test_the_guide_shard_map_example_on_two_host_devices():
    block = next(b for b in _guide_blocks() if "shard_map" in b)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", block + _SHARD_CHECK], capture_output=True,
                          text=True, timeout=240, env=env, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in ("f1", "accuracy", "auc"):
        np.testing.assert_allclose(got["two"][key], got["one"][key], rtol=1e-6, err_msg=key)
        np.testing.assert_allclose(got["two"][key], got["sklearn"][key], rtol=1e-5,
                                   err_msg=key)


# -- the aggregators and the wrappers ------------------------------------------------

def _logged(seed=11, sizes=(5, 17, 1, 33, 8)):
    """Uneven batches of logged values (2-D for some) and weights with zeros."""
    rng = np.random.default_rng(seed)
    out = []
    for i, n in enumerate(sizes):
        shape = (n, 2) if i % 2 else (n,)
        v = rng.normal(size=shape).astype(np.float32) * 10
        w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n) * 3).astype(np.float32)
        out.append((v, w))
    return out


def test_every_stream_class_is_on_the_face():
    names = [n for n in ms.__all__ if isinstance(getattr(ms, n), type)
             and issubclass(getattr(ms, n), ms.Metric) and n != "Metric"]
    assert {"MeanMetric", "SumMetric", "MaxMetric", "MinMetric", "CatMetric", "Running",
            "ClasswiseWrapper"} <= set(names)
    for name in names:
        assert issubclass(getattr(mf, name), nnx.metrics.Metric), name
        assert getattr(mf, name).__name__ == name
    assert mf.MetricTracker is ms.MetricTracker


def test_aggregators_and_wrappers_under_nnx_jit_equal_the_stream_classes_and_numpy():
    y_names = {"y_true_arg": "labels", "y_pred_arg": "logits"}
    metrics = nnx.MultiMetric(
        mean=mf.MeanMetric(argname="loss", weight_arg="w"),
        plain_mean=mf.MeanMetric(argname="loss"),
        total=mf.SumMetric(argname="loss"),
        high=mf.MaxMetric(argname="loss"),
        low=mf.MinMetric(argname="loss"),
        cat=mf.CatMetric(128, argname="loss"),
        recent=mf.Running(mf.MeanMetric(argname="loss", weight_arg="w"), window=2),
        recent_f1=mf.Running(mf.F1Score(C, **y_names), window=3),
        recall=mf.ClasswiseWrapper(mf.Recall(C, average=None, **y_names), prefix="r_"),
        flax_avg=nnx.metrics.Average("loss"))
    traces = []

    @nnx.jit
    def step(metrics, loss, w, labels, logits):
        traces.append(1)
        metrics.update(loss=loss, w=w, labels=labels, logits=logits)

    logged, batches = _logged(), _batches(5, n_batches=5, n=16)
    ref = {"mean": ms.MeanMetric(), "plain_mean": ms.MeanMetric(), "total": ms.SumMetric(),
           "high": ms.MaxMetric(), "low": ms.MinMetric(), "cat": ms.CatMetric(128),
           "recent": ms.Running(ms.MeanMetric(), window=2),
           "recent_f1": ms.Running(ms.F1Score(C), window=3),
           "recall": ms.ClasswiseWrapper(ms.Recall(C, average=None), prefix="r_")}
    for (v, w), b in zip(logged, batches):
        wv = w.reshape((-1,) + (1,) * (v.ndim - 1))
        step(metrics, jnp.asarray(v), jnp.asarray(wv), jnp.asarray(b["labels"]),
             jnp.asarray(b["logits"]))
        v64 = v.astype(np.float64)
        ref["mean"].update(v64, wv)
        for key in ("plain_mean", "total", "high", "low", "cat"):
            ref[key].update(v64)
        ref["recent"].update(v64, wv)
        ref["recent_f1"].update(b["labels"], b["logits"].argmax(1))
        ref["recall"].update(b["labels"], b["logits"].argmax(1))
    assert len(traces) == len(logged)  # one trace per shape, none per update beyond
    got = metrics.compute()
    for key, stream in ref.items():
        want = stream.compute()
        if key == "recall":
            assert set(got[key]) == {f"r_{k}" for k in range(C)}
            for k, value in want.items():
                np.testing.assert_allclose(got[key][k], value, rtol=1e-6, err_msg=k)
        else:
            np.testing.assert_allclose(got[key], want, rtol=2e-6, atol=1e-6, err_msg=key)
    # numpy references (float64)
    flat = [v.astype(np.float64).reshape(-1) for v, _ in logged]
    ws = [np.broadcast_to(w.reshape((-1,) + (1,) * (v.ndim - 1)), v.shape).reshape(-1)
          for v, w in logged]
    np.testing.assert_allclose(got["mean"], np.average(np.concatenate(flat),
                                                       weights=np.concatenate(ws)), rtol=1e-6)
    np.testing.assert_allclose(got["plain_mean"], np.concatenate(flat).mean(), rtol=1e-6)
    np.testing.assert_allclose(got["flax_avg"], got["plain_mean"], rtol=1e-5)
    np.testing.assert_allclose(got["total"], np.concatenate(flat).sum(), rtol=1e-6)
    assert got["high"] == np.float32(np.concatenate(flat).max())
    assert got["low"] == np.float32(np.concatenate(flat).min())
    np.testing.assert_array_equal(got["cat"], np.concatenate(flat).astype(np.float32))
    np.testing.assert_allclose(got["recent"], np.average(np.concatenate(flat[-2:]),
                                                         weights=np.concatenate(ws[-2:])),
                               rtol=1e-6)
    y = np.concatenate([b["labels"] for b in batches[-3:]])
    p = np.concatenate([b["logits"].argmax(1) for b in batches[-3:]])
    np.testing.assert_allclose(got["recent_f1"], skm.f1_score(
        y, p, average="macro", labels=list(range(C)), zero_division=0), rtol=1e-6)


def test_aggregators_compensated_sums_stay_exact_past_2_24():
    m = mf.MeanMetric()
    big = jnp.ones((2 ** 12,), jnp.float32)

    @nnx.jit
    def step(m, v):
        m.update(values=v)

    for _ in range(2 ** 12 + 3):  # 2**24 + 3 * 2**12 unit values, float32 without x64
        step(m, big)
    state = m.state
    assert state["weight"].dtype == jnp.float32
    assert float(state["weight"]) + float(state["weight_lo"]) == 2 ** 24 + 3 * 2 ** 12
    assert m.compute() == 1.0


def test_aggregators_nan_strategy():
    v = jnp.asarray([1.0, np.nan, 3.0, -2.0])
    w = jnp.asarray([1.0, 2.0, 0.0, 1.0])
    for strategy in ("disable", "ignore", 0.5):
        for name in ("MeanMetric", "SumMetric", "MaxMetric", "MinMetric"):
            face, stream = getattr(mf, name)(nan_strategy=strategy), \
                getattr(ms, name)(nan_strategy=strategy)
            args = (w,) if name == "MeanMetric" else ()
            face.update(v, *args)
            stream.update(np.asarray(v, np.float64), *(np.asarray(a) for a in args))
            np.testing.assert_allclose(face.compute(), stream.compute(), rtol=1e-6,
                                       err_msg=f"{name} {strategy}")
    bad = mf.MeanMetric(nan_strategy="error")
    with pytest.raises(RuntimeError, match="NaN"):
        bad.update(v)
    with pytest.warns(UserWarning, match="NaN"):
        warned = mf.SumMetric(nan_strategy="warn")
        warned.update(v)
    assert warned.compute() == 2.0

    @nnx.jit
    def step(m, v):
        m.update(values=v)

    with pytest.raises(TypeError, match="ignore"):
        step(mf.MeanMetric(nan_strategy="warn"), v)
    for strategy in ("ignore", "warn", "error"):
        with pytest.raises(ValueError, match="host"):
            mf.CatMetric(8, nan_strategy=strategy)
    cat = mf.CatMetric(8, nan_strategy=-1.0)
    step(cat, v)
    np.testing.assert_array_equal(cat.compute(), [1.0, -1.0, 3.0, -2.0])


def test_aggregators_mask_drops_padding_exactly():
    v = jnp.asarray([[1.0, 2.0], [np.nan, np.inf], [4.0, -8.0]])
    mask = jnp.asarray([True, False, True])
    kept = np.asarray(v)[[0, 2]]
    w = jnp.asarray([1.0, 5.0, 3.0])
    for name, want in [("MeanMetric", np.average(kept, weights=np.repeat([[1.0], [3.0]], 2, 1))),
                       ("SumMetric", kept.sum()), ("MaxMetric", kept.max()),
                       ("MinMetric", kept.min())]:
        m = getattr(mf, name)()
        m.update(v, *((jnp.broadcast_to(w[:, None], v.shape),) if name == "MeanMetric"
                      else ()), mask=mask)
        np.testing.assert_allclose(m.compute(), want, rtol=1e-6, err_msg=name)
    with pytest.raises(ValueError, match="mask"):
        mf.CatMetric(8).update(v, mask=mask)
    with pytest.raises(ValueError, match="mask"):
        mf.MeanMetric().update(v, mask=jnp.ones(2))


def test_aggregators_merge_reset_and_no_data():
    logged = _logged(12)
    whole, a, b = mf.MaxMetric(), mf.MaxMetric(), mf.MaxMetric()
    mean_whole, ma, mb = mf.MeanMetric(), mf.MeanMetric(), mf.MeanMetric()
    for i, (v, w) in enumerate(logged):
        v = -np.abs(v)  # all negative: a maximum that started at 0 would be wrong
        whole.update(v)
        (a if i % 2 else b).update(v)
        mean_whole.update(v[:, None] if v.ndim == 1 else v, w[:, None])
        (ma if i % 2 else mb).update(v[:, None] if v.ndim == 1 else v, w[:, None])
    a.merge(b)
    ma.merge(mb)
    assert a.compute() == whole.compute() < 0
    np.testing.assert_allclose(ma.compute(), mean_whole.compute(), rtol=1e-6)
    with pytest.raises(ValueError, match="nan_strategy"):
        mf.MeanMetric().merge(mf.MeanMetric(nan_strategy="ignore"))
    for m in (a, ma, mf.CatMetric(4), mf.Running(mf.SumMetric())):
        m.reset()
        with pytest.raises(ValueError, match="before any sample"):
            m.compute()
    a.update(jnp.asarray([-7.0, -9.0]))
    assert a.compute() == -7.0  # reset restores -inf, not 0
    assert a.state["max_value"].dtype == jnp.float32
    cat, other = mf.CatMetric(6), mf.CatMetric(6)
    cat.update(jnp.arange(4.0))
    other.update(jnp.asarray([9.0, 8.0]))
    cat.merge(other)
    np.testing.assert_array_equal(cat.compute(), [0.0, 1.0, 2.0, 3.0, 9.0, 8.0])
    cat.update(jnp.arange(8.0))
    with pytest.raises(ms.BufferFullError):
        cat.compute()
    with pytest.raises(TypeError, match="no weight"):
        mf.SumMetric().update(jnp.ones(3), jnp.ones(3))


def test_wrappers_and_tracker():
    r = mf.Running(mf.MeanMetric(), window=2)
    for v in (1.0, 2.0, 6.0):
        r.update(values=jnp.asarray([v]))
    assert float(r.compute()) == 4.0
    assert r.argnames == ("values", "weight")
    rf = mf.Running(mf.F1Score(C, y_true_arg="labels", y_pred_arg="logits"))
    assert rf.argnames[:2] == ("labels", "logits") and rf.higher_is_better is True
    cw = mf.ClasswiseWrapper(mf.Recall(3, average=None), labels=["cat", "dog", "bird"])
    cw.update(jnp.asarray([0, 1, 2, 2]), jnp.asarray([0, 1, 1, 2]))
    assert {k: float(v) for k, v in cw.compute().items()} == {
        "recall_cat": 1.0, "recall_dog": 1.0, "recall_bird": 0.5}
    with pytest.raises(ValueError, match="average=None"):
        c = mf.ClasswiseWrapper(mf.Recall(3))
        c.update(jnp.asarray([0, 1]), jnp.asarray([0, 1]))
        c.compute()
    with pytest.raises(ValueError, match="labels"):
        mf.ClasswiseWrapper(mf.Recall(3, average=None), labels="cat")
    tracker = mf.MetricTracker(mf.F1Score(3))
    for p in ([0, 1, 1], [0, 1, 2], [2, 2, 2]):
        tracker.increment()
        tracker.update(jnp.asarray([0, 1, 2]), jnp.asarray(p))
    assert tracker.best_metric(return_step=True) == (1.0, 1)


def test_running_masks_each_window_slot_exactly():
    rng = np.random.default_rng(21)
    faces = {"acc": mf.Running(mf.Accuracy(3), window=2),
             "mse": mf.Running(mf.MeanSquaredError(), window=2),
             "mean": mf.Running(mf.MeanMetric(), window=2)}
    refs = {"acc": ms.Running(ms.Accuracy(3), window=2),
            "mse": ms.Running(ms.MeanSquaredError(), window=2),
            "mean": ms.Running(ms.MeanMetric(), window=2)}

    @nnx.jit
    def step(face, a, b, mask):
        face.update(a, b, mask=mask)

    @nnx.jit
    def step_values(face, v, mask):
        face.update(values=v, mask=mask)

    for keep_rows in ([1, 1, 0, 1, 0, 1], [0, 0, 0, 0, 0, 0], [1, 0, 1, 1, 1, 1]):
        keep = np.asarray(keep_rows, bool)
        y, p = rng.integers(0, 3, 6), rng.integers(0, 3, 6)
        t, r = rng.normal(size=6), rng.normal(size=6)
        t[~keep] = np.nan  # padding with garbage
        step(faces["acc"], jnp.asarray(y), jnp.asarray(p), jnp.asarray(keep))
        step(faces["mse"], jnp.asarray(t, jnp.float32), jnp.asarray(r, jnp.float32),
             jnp.asarray(keep))
        step_values(faces["mean"], jnp.asarray(t, jnp.float32), jnp.asarray(keep))
        refs["acc"].update(y[keep], p[keep])
        refs["mse"].update(t[keep], r[keep])
        refs["mean"].update(t[keep])
    for key, face in faces.items():
        np.testing.assert_allclose(face.compute(), refs[key].compute(), rtol=1e-6,
                                   err_msg=key)
