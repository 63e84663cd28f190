"""Checks of ``metrix.integrations.keras`` on one Keras backend, in its own process.

Keras reads its backend once, at import, from ``KERAS_BACKEND``: each backend
runs this script in a fresh process (``tests/integrations/test_keras.py``).
Prints one JSON object ``{check name: "ok" | "skipped: why" | traceback}`` for
the checks named on the command line (all of them when none is).
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import tempfile
import traceback
from pathlib import Path

import keras  # KERAS_BACKEND is set by the caller
import numpy as np
import sklearn.metrics as skm

import metrix.integrations.keras as mk
import metrix.stream as ms

BACKEND = keras.backend.backend()
ROOT = Path(__file__).resolve().parents[3]
C = 5  # class 4 never occurs in y: an absent class
CHECKS = {}


def check(*backends):
    def register(fn):
        CHECKS[fn.__name__[len("check_"):]] = (fn, backends)
        return fn
    return register


def close(actual, expected, what, rtol=2e-6, atol=1e-7):
    actual = np.asarray(keras.ops.convert_to_numpy(actual), dtype=np.float64)
    if not np.allclose(actual, expected, rtol=rtol, atol=atol):
        raise AssertionError(f"{what}: metrix {actual} != scikit-learn {expected}")


def classification_data(n=437, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype("float32")
    y = x[:, :4].argmax(1)
    noisy = rng.random(n) < 0.25
    y = np.where(noisy, rng.integers(0, 4, n), y)  # labels 0..3 of 5 classes
    return x, y


def dense(outputs, activation=None, seed=1):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input((8,)),
                             keras.layers.Dense(outputs, activation=activation)])


# -- compile / fit / evaluate ----------------------------------------------------------

@check("jax", "torch")
def check_multiclass_fit_and_evaluate_equal_scikit_learn():
    x, y = classification_data()
    model = dense(C, "softmax")
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy",
                  metrics=[mk.F1Score(C), mk.Accuracy(C), mk.LogLoss(C), mk.MetricCollection(
                      {"mcc": mk.MatthewsCorrCoef(C), "recall": mk.Recall(C, average=None)})])
    xv, yv = x[:150], y[:150]
    hist = model.fit(x, y, batch_size=64, epochs=2, verbose=0, validation_data=(xv, yv))
    pv = model.predict(xv, batch_size=64, verbose=0).argmax(1)
    close(hist.history["val_f1_score"][-1], skm.f1_score(yv, pv, average="macro",
                                                         labels=range(C)), "val F1")
    close(hist.history["val_mcc"][-1], skm.matthews_corrcoef(yv, pv), "val MCC")
    res = model.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)  # 437 = 6 * 64 + 53
    proba = model.predict(x, batch_size=64, verbose=0)
    p = proba.argmax(1)
    close(res["log_loss"], skm.log_loss(y, proba.astype(np.float64), labels=range(C)),
          "log loss", rtol=1e-5)
    close(res["f1_score"], skm.f1_score(y, p, average="macro", labels=range(C)), "F1")
    close(res["accuracy"], skm.accuracy_score(y, p), "accuracy")
    close(res["mcc"], skm.matthews_corrcoef(y, p), "MCC")
    if len(set(p)) < 2 or skm.accuracy_score(y, p) < 0.5:
        raise AssertionError("the model did not learn: the check would be weak")


@check("jax", "torch")
def check_binary_sigmoid_head_auroc_logloss_equal_scikit_learn():
    x, y = classification_data(seed=2)
    yb = (y % 2).astype("float32")[:, None]  # (N, 1) float targets, as Keras' binary losses
    model = dense(1, "sigmoid")
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy",
                  metrics=[mk.F1Score(2, average="binary"), mk.AUROC(capacity=1000),
                           mk.AveragePrecision(capacity=1000), mk.LogLoss(),
                           mk.Precision(2, threshold=0.3, name="precision_at_0.3")])
    model.fit(x, yb, batch_size=64, epochs=1, verbose=0)
    res = model.evaluate(x, yb, batch_size=64, verbose=0, return_dict=True)
    s = model.predict(x, batch_size=64, verbose=0)[:, 0].astype(np.float64)
    t = yb[:, 0].astype(int)
    close(res["f1_score"], skm.f1_score(t, s > 0.5), "binary F1")
    close(res["precision_at_0.3"], skm.precision_score(t, s > 0.3, average="macro"),
          "precision at threshold 0.3")
    close(res["auroc"], skm.roc_auc_score(t, s), "AUROC", rtol=1e-5)
    close(res["average_precision"], skm.average_precision_score(t, s), "AP", rtol=1e-5)
    close(res["log_loss"], skm.log_loss(t, s), "log loss", rtol=1e-5)


@check("jax", "torch")
def check_regression_weighted_metrics_equal_scikit_learn():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 8)).astype("float32")
    y = (x @ rng.normal(size=8) + 0.3 * rng.normal(size=300) + 4.0).astype("float32")
    w = rng.random(300).astype("float32")
    w[:40] = 0.0  # zero weights
    model = dense(1)
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse",
                  metrics=[mk.MeanAbsoluteError()],
                  weighted_metrics=[mk.MeanSquaredError(), mk.R2Score()])
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    res = model.evaluate(x, y, sample_weight=w, batch_size=64, verbose=0, return_dict=True)
    p = model.predict(x, batch_size=64, verbose=0)[:, 0].astype(np.float64)
    close(res["mean_absolute_error"], skm.mean_absolute_error(y, p), "MAE (unweighted)",
          rtol=1e-5)
    close(res["mean_squared_error"], skm.mean_squared_error(y, p, sample_weight=w), "MSE",
          rtol=1e-5)
    close(res["r2_score"], skm.r2_score(y, p, sample_weight=w), "R2", rtol=1e-5)


@check("jax", "torch")
def check_one_weight_weighs_every_row_as_in_keras():
    # Keras' rule: a scalar or one-element sample_weight weighs every row alike (the
    # value is the unweighted one); per-row weights of another length are an error
    y = np.array([0.5, 1.0, 2.0, 0.25, 3.0], "float32")
    p = np.array([0.75, 1.0, 1.5, 0.5, 2.0], "float32")
    for w in (2.0, np.array(2.0, "float32"), np.array([2.0], "float32")):
        for ours, theirs in ((mk.MeanSquaredError(), keras.metrics.MeanSquaredError()),
                             (mk.MeanAbsoluteError(), keras.metrics.MeanAbsoluteError())):
            ours.update_state(y, p, sample_weight=w)
            theirs.update_state(y, p, sample_weight=w)
            close(ours.result(), float(theirs.result()), f"{type(ours).__name__} {w!r}")
        r2 = mk.R2Score()
        r2.update_state(y, p, sample_weight=w)
        close(r2.result(), skm.r2_score(y, p), f"R2 {w!r}", rtol=1e-5)
    try:
        mk.MeanSquaredError().update_state(y, p, sample_weight=np.ones(4, "float32"))
    except ValueError as e:
        assert "inconsistent numbers of samples" in str(e), e
    else:
        raise AssertionError("four weights for five rows were taken")


# -- hand-written steps ------------------------------------------------------------------

@check("jax")
def check_stateless_jit_train_step_and_eval_step():
    import jax

    x, y = classification_data(480, seed=4)
    model = dense(C)
    optimizer = keras.optimizers.Adam(0.05)
    optimizer.build(model.trainable_variables)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    f1, mse = mk.F1Score(C), mk.MeanSquaredError()

    def loss_and_logits(trainable, non_trainable, xb, yb):
        logits, non_trainable = model.stateless_call(trainable, non_trainable, xb)
        return loss_fn(yb, logits), (logits, non_trainable)

    grad_fn = jax.value_and_grad(loss_and_logits, has_aux=True)

    @jax.jit
    def train_step(state, xb, yb):
        trainable, non_trainable, opt_vars, f1_vars, mse_vars = state
        (loss, (logits, non_trainable)), grads = grad_fn(trainable, non_trainable, xb, yb)
        trainable, opt_vars = optimizer.stateless_apply(opt_vars, grads, trainable)
        f1_vars = f1.stateless_update_state(f1_vars, yb, logits)
        mse_vars = mse.stateless_update_state(mse_vars, logits[:, 0], logits[:, 1])
        return loss, (trainable, non_trainable, opt_vars, f1_vars, mse_vars)

    state = tuple([v.value for v in vs] for vs in (
        model.trainable_variables, model.non_trainable_variables, optimizer.variables,
        f1.variables, mse.variables))
    for start in range(0, 480, 96):
        _, state = train_step(state, x[start:start + 96], y[start:start + 96])
    # the f1 variables hold the training batches' predictions (of the model as it was then)
    if int(np.asarray(state[3][0]).sum()) != 480:
        raise AssertionError("the F1 state did not count 480 samples")

    @jax.jit
    def eval_step(trainable, non_trainable, f1_vars, xb, yb):
        logits, _ = model.stateless_call(trainable, non_trainable, xb)
        f1_vars = f1.stateless_update_state(f1_vars, yb, logits)
        return f1_vars, f1.stateless_result(f1_vars)

    trainable, non_trainable = state[0], state[1]
    f1_vars = f1.stateless_reset_state()
    if any(np.asarray(v).any() for v in f1_vars):
        raise AssertionError("stateless_reset_state is not empty")
    for start in range(0, 480, 100):
        f1_vars, value = eval_step(trainable, non_trainable, f1_vars, x[start:start + 100],
                                   y[start:start + 100])
    logits, _ = model.stateless_call(trainable, non_trainable, x)
    p = np.asarray(logits).argmax(1)
    expected = skm.f1_score(y, p, average="macro", labels=range(C))
    close(value, expected, "jit eval-step F1")
    close(f1.stateless_result(f1_vars), expected, "stateless_result")
    # the Keras variables themselves were never written
    if np.asarray(f1.variables[0].value).any():
        raise AssertionError("a stateless step wrote the metric's variables")
    for v, new in zip(f1.variables, f1_vars):
        v.assign(new)
    close(f1.result(), expected, "result() after assigning the stateless values")


@check("jax", "torch")
def check_update_result_reset_and_call():
    x, y = classification_data(200, seed=5)
    s = np.random.default_rng(5).random((200, C)).astype("float32")
    m = mk.F1Score(C)
    m.update_state(y[:77], s[:77])
    batch = m(y[77:], s[77:])  # Keras' __call__: update, then the running value
    p = s.argmax(1)
    close(batch, skm.f1_score(y, p, average="macro", labels=range(C)), "__call__")
    m.reset_state()
    if any(np.asarray(keras.ops.convert_to_numpy(v.value)).any() for v in m.variables):
        raise AssertionError("reset_state left data")
    # the stateless API (Keras' base class, over these variables)
    values = m.stateless_update_state([v.value for v in m.variables], y, s)
    close(m.stateless_result(values), skm.f1_score(y, p, average="macro", labels=range(C)),
          "stateless_result")
    if any(np.asarray(keras.ops.convert_to_numpy(v.value)).any() for v in m.variables):
        raise AssertionError("stateless_update_state wrote the variables")
    if any(np.asarray(keras.ops.convert_to_numpy(v)).any() for v in m.stateless_reset_state()):
        raise AssertionError("stateless_reset_state is not empty")
    m.update_state(y, s)
    close(m.result(), skm.f1_score(y, p, average="macro", labels=range(C)), "after reset")


# -- inputs as Keras passes them --------------------------------------------------------

@check("jax", "torch")
def check_input_forms():
    rng = np.random.default_rng(6)
    n = 180
    y = rng.integers(0, 4, n)
    s = rng.random((n, C)).astype("float32")
    onehot = np.eye(C, dtype="float32")[y]
    p = s.argmax(1)
    ref = skm.f1_score(y, p, average="macro", labels=range(C))
    for yt, yp, what in [(y, s, "labels, scores"), (y[:, None], s, "(N, 1) labels"),
                         (onehot, s, "one-hot y_true"), (y, p, "integer predictions"),
                         (y.astype("float32"), p[:, None], "float labels, (N, 1) preds")]:
        m = mk.F1Score(C)
        m.update_state(yt, yp)
        close(m.result(), ref, what)
    yb = rng.integers(0, 2, n)
    sb = rng.random(n).astype("float32")
    for yp, what in [(sb, "(N,)"), (sb[:, None], "(N, 1)"),
                     (np.stack([1 - sb, sb], 1), "(N, 2)")]:
        m = mk.Recall(2, average=None, threshold=0.6 if yp.ndim == 1 else 0.5)
        m.update_state(yb, yp)
        pred = sb > (0.6 if yp.ndim == 1 else 0.5)
        if yp.ndim == 2 and yp.shape[1] == 2:
            pred = np.stack([1 - sb, sb], 1).argmax(1)
        close(m.result(), skm.recall_score(yb, pred, average=None), f"binary scores {what}")
        a = mk.AUROC(capacity=n)
        a.update_state(np.eye(2)[yb] if yp.ndim == 2 else yb, yp)
        close(a.result(), skm.roc_auc_score(yb, sb), f"AUROC {what}", rtol=1e-5)
    proba = s / s.sum(1, keepdims=True)
    ll = mk.LogLoss(C)
    ll.update_state(onehot, proba)
    close(ll.result(), skm.log_loss(y, proba, labels=range(C)), "LogLoss one-hot", rtol=1e-5)
    for bad in (rng.random((n, 3)), ):
        try:
            mk.F1Score(C).update_state(y, bad.astype("float32"))
        except ValueError as exc:
            if "num_classes=5" not in str(exc):
                raise
        else:
            raise AssertionError("scores of the wrong width were accepted")


# -- the aggregators and the wrappers -----------------------------------------------------

def _np(x):
    return np.asarray(keras.ops.convert_to_numpy(x), dtype=np.float64)


@check("jax", "torch")
def check_aggregators_equal_keras_mean_sum_and_numpy():
    rng = np.random.default_rng(12)
    batches = []
    for i, n in enumerate((5, 17, 1, 33)):
        v = (rng.normal(size=(n, 3) if i % 2 else (n,)) * 10).astype("float32")
        w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n) * 3).astype("float32")
        batches.append((v, w))
    forms = {"none": lambda v, w: None, "(N,)": lambda v, w: w,
             "(N, 1)": lambda v, w: w[:, None],
             "full": lambda v, w: np.broadcast_to(w.reshape((-1,) + (1,) * (v.ndim - 1)),
                                                  v.shape)}
    for ours, theirs in ((mk.MeanMetric(), keras.metrics.Mean()),
                         (mk.SumMetric(), keras.metrics.Sum())):
        for form, weight in forms.items():
            ours.reset_state()
            theirs.reset_state()
            for v, w in batches:
                if form == "(N, 1)" and v.ndim == 1:
                    continue  # Keras' rule squeezes (N, 1) weights only against 2-D values
                ours.update_state(v, sample_weight=weight(v, w))
                theirs.update_state(v, sample_weight=weight(v, w))
            close(ours.result(), float(_np(theirs.result())), f"{ours.name} {form}",
                  rtol=1e-5)
    flat = np.concatenate([v.reshape(-1) for v, _ in batches]).astype(np.float64)
    hi, lo, cat = mk.MaxMetric(), mk.MinMetric(), mk.CatMetric(200)
    for m in (hi, lo, cat):
        if not np.isnan(_np(m.result())).all() and m is not cat:
            raise AssertionError(f"{m.name}: result before any value is not NaN")
        for v, _ in batches:
            m.update_state(-np.abs(v))
    close(hi.result(), (-np.abs(flat)).max(), "MaxMetric")
    close(lo.result(), (-np.abs(flat)).min(), "MinMetric")
    close(cat.result(), -np.abs(flat), "CatMetric")
    hi.reset_state()
    hi.update_state(np.array([-7.0, -9.0], "float32"))  # reset restores -inf, not 0
    close(hi.result(), -7.0, "MaxMetric after reset_state")
    for name in ("MeanMetric", "SumMetric", "MaxMetric", "MinMetric"):
        for strategy in ("ignore", 0.5):
            ours, ref = getattr(mk, name)(nan_strategy=strategy), getattr(ms, name)(
                nan_strategy=strategy)
            v = np.array([1.0, np.nan, 3.0, -2.0], "float32")
            ours.update_state(v)
            ref.update(v.astype(np.float64))
            close(ours.result(), float(ref.compute()), f"{name} nan_strategy={strategy}")
    try:
        mk.MaxMetric().update_state(np.ones(3, "float32"), sample_weight=np.ones(3))
    except TypeError as exc:
        if "weight" not in str(exc):
            raise
    else:
        raise AssertionError("MaxMetric took a sample_weight")
    _aggregators_and_wrappers_round_trip()


def _aggregators_and_wrappers_round_trip():
    for m in (mk.MeanMetric(nan_strategy="ignore"), mk.CatMetric(8, nan_strategy=2.0),
              mk.Running(mk.MeanMetric(), window=3), mk.Running(mk.F1Score(3, average=None)),
              mk.ClasswiseWrapper(mk.Recall(3, average=None), labels=["a", "b", "c"])):
        back = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(m))
        if type(back) is not type(m) or back.get_config() != m.get_config():
            raise AssertionError(f"{m.name}: {back.get_config()} != {m.get_config()}")


@check("jax", "torch")
def check_aggregators_and_wrappers_in_fit_and_evaluate():
    rng = np.random.default_rng(13)
    x = rng.normal(size=(300, 8)).astype("float32")
    y = (x @ rng.normal(size=8) + 0.3 * rng.normal(size=300)).astype("float32")
    w = np.where(rng.random(300) < 0.2, 0.0, rng.random(300)).astype("float32")

    class Regressor(keras.Sequential):
        """Keras' documented way to log a value: a metric of the model, updated in
        ``compute_metrics`` (JAX runs it under a StatelessScope)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.abs_err = mk.MeanMetric(name="abs_err")
            self.max_err = mk.MaxMetric(name="max_err")
            self.recent = mk.Running(mk.MeanMetric(), window=2, name="recent")

        def compute_metrics(self, x, y, y_pred, sample_weight=None):
            logs = super().compute_metrics(x, y, y_pred, sample_weight)
            err = keras.ops.abs(keras.ops.reshape(y, (-1, 1)) - y_pred)
            self.abs_err.update_state(err, sample_weight=sample_weight)
            self.max_err.update_state(err)
            self.recent.update_state(err, sample_weight=sample_weight)
            for m in (self.abs_err, self.max_err, self.recent):
                logs[m.name] = m.result()
            return logs

    keras.utils.set_random_seed(1)
    model = Regressor([keras.Input((8,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    hist = model.fit(x, y, batch_size=64, epochs=2, verbose=0, sample_weight=w)
    if not {"abs_err", "max_err", "recent"} <= set(hist.history):
        raise AssertionError(f"fit logs: {sorted(hist.history)}")
    res = model.evaluate(x, y, sample_weight=w, batch_size=64, verbose=0, return_dict=True)
    err = np.abs(y.astype(np.float64) - model.predict(x, batch_size=64, verbose=0)[:, 0])
    close(res["abs_err"], np.average(err, weights=w), "evaluate's weighted mean", rtol=1e-5)
    close(res["max_err"], err.max(), "evaluate's maximum", rtol=1e-6)
    close(res["recent"], np.average(err[192:], weights=w[192:]), "the last 2 batches",
          rtol=1e-5)

    x, yc = classification_data(437, seed=14)
    model = dense(C, "softmax")
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy",
                  metrics=[mk.Running(mk.F1Score(C), window=2),
                           mk.ClasswiseWrapper(mk.Recall(C, average=None), prefix="recall_")])
    xv, yv = x[:150], yc[:150]
    hist = model.fit(x, yc, batch_size=64, epochs=1, verbose=0, validation_data=(xv, yv))
    pv = model.predict(xv, batch_size=64, verbose=0).argmax(1)
    recall = skm.recall_score(yv, pv, average=None, labels=range(C), zero_division=0)
    for k in range(C - 1):  # class 4 never occurs: NaN or 0 by zero_division
        close(hist.history[f"val_recall_{k}"][-1], recall[k], f"val recall of class {k}")
    # the window: the last 2 validation batches (150 = 64 + 64 + 22)
    close(hist.history["val_running_f1_score"][-1],
          skm.f1_score(yv[64:], pv[64:], average="macro", labels=range(C)),
          "val F1 over the last 2 batches")


# -- exactness, dtypes, configuration ---------------------------------------------------

def _minimal_args(name):
    if name in ("MedianAbsoluteError", "SpearmanCorrCoef", "D2PinballScore",
                "D2AbsoluteErrorScore") or name.startswith("Retrieval"):
        return {"capacity": 64}
    first = next(iter(inspect.signature(getattr(ms, name)).parameters))
    if first.startswith("min_"):  # the operating points: their least constraint
        return {first: 0.5}
    if name == "ExactMatch":
        return {"num_labels": 3}
    if name in mk._LABEL_NAMES or "num_classes" in inspect.signature(
            getattr(ms, name)).parameters:
        return {"num_classes": 3}
    return {}


@check("jax", "torch")
def check_counts_are_never_float32():
    # (float32 sums come with a compensating ".lo"; buffers and running extremes
    # (MaxError's max_abs) are not sums)
    x64 = BACKEND != "jax" or sys.modules["jax"].config.jax_enable_x64
    for name in mk.STREAM_METRICS:
        metric = getattr(mk, name)(**_minimal_args(name))
        leaf_names = {v.name for v in metric.variables}
        for v in metric.variables:
            dt = keras.backend.standardize_dtype(v.dtype)
            leaf = v.name.rsplit(".", 1)[-1]
            if "int" in dt:
                if dt != ("int64" if x64 else "int32"):
                    raise AssertionError(f"{name}.{v.name}: {dt}")
            elif x64 and dt != "float64":
                raise AssertionError(f"{name}.{v.name}: {dt} on a backend with float64")
            elif not x64 and not (leaf.startswith(("buf_", "max_", "min_"))
                                  or v.name.endswith(".lo")
                                  or v.name + ".lo" in leaf_names):
                raise AssertionError(f"{name}.{v.name}: a float32 sum without its .lo")


@check("jax", "torch")
def check_past_2_24_stays_exact():
    big = 2 ** 24
    m = mk.Accuracy(3)
    cm = m.variables[0]
    start = np.zeros(cm.shape, dtype=keras.backend.standardize_dtype(cm.dtype))
    start[1 * 5 + 1] = big - 3  # cell (true 0, predicted 0), (C + 2) x (C + 2) flat
    cm.assign(start)
    for _ in range(3):
        m.update_state(np.zeros(5, "int32"), np.zeros(5, "int32"))
    got = int(np.asarray(keras.ops.convert_to_numpy(cm.value))[6])
    if got != big + 12:
        raise AssertionError(f"count {got} != {big + 12}")
    m.update_state(np.ones(1, "int32"), np.zeros(1, "int32"))
    close(m.result(), (big + 12) / (big + 13), "accuracy past 2**24", rtol=0, atol=1e-7)

    r = mk.MeanSquaredError()
    v = {var.name: var for var in r.variables}
    v["sw"].assign(np.asarray(big, dtype=v["sw"].dtype))
    v["s_ee"].assign(np.full((1,), big, dtype=v["s_ee"].dtype))  # 2**24 errors of 1
    for _ in range(7):
        r.update_state(np.zeros(3, "float32"), np.ones(3, "float32"))
    total = sum(float(np.asarray(keras.ops.convert_to_numpy(v[k].value)).sum())
                for k in ("sw", "sw.lo") if k in v)
    if total != big + 21:
        raise AssertionError(f"sum of weights {total} != {big + 21}")
    close(r.result(), 1.0, "MSE past 2**24", rtol=0, atol=1e-7)



@check("jax")
def check_past_2_24_stays_exact_in_a_jit_step():
    import jax

    r = mk.MeanSquaredError()
    names = [v.name for v in r.variables]
    values = [np.zeros(v.shape, dtype=keras.backend.standardize_dtype(v.dtype))
              for v in r.variables]
    values[names.index("sw")] = values[names.index("sw")] + 2.0 ** 24
    step = jax.jit(r.stateless_update_state)
    for _ in range(9):
        values = step(values, np.zeros(4, "float32"), np.ones(4, "float32"))
    total = sum(float(np.asarray(values[names.index(k)])) for k in ("sw", "sw.lo")
                if k in names)
    if total != 2.0 ** 24 + 36:
        raise AssertionError(f"sum of weights {total} != {2 ** 24 + 36}")


@check("jax", "torch")
def check_config_round_trip_for_every_metric():
    for name in mk.STREAM_METRICS:
        args = _minimal_args(name)
        metric = getattr(mk, name)(**args, name=f"my_{name}", dtype="float32")
        config = metric.get_config()
        if config["name"] != f"my_{name}" or config["dtype"] != "float32":
            raise AssertionError(f"{name}: {config}")
        again = type(metric).from_config(config)
        if again.get_config() != config:
            raise AssertionError(f"{name}: {again.get_config()} != {config}")
        if [v.name for v in again.variables] != [v.name for v in metric.variables]:
            raise AssertionError(f"{name}: other variables after from_config")
        json.dumps(config)
    f1 = mk.FBetaScore(4, "weighted", beta=2.0, zero_division=1.0, threshold=0.3)
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(f1))
    spec = rebuilt.metric.spec
    if (type(rebuilt) is not mk.FBetaScore or spec.beta != 2.0 or spec.average != "weighted"
            or spec.zero_division != 1.0 or rebuilt.threshold != 0.3):
        raise AssertionError(f"FBetaScore lost its arguments: {rebuilt.get_config()}")
    coll = mk.MetricCollection({"f1": mk.F1Score(3), "auc": mk.AUROC(thresholds=[0.2, 0.7])})
    back = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(coll))
    if back.get_config() != coll.get_config() or back.metric.spec.metrics["auc"].thresholds \
            != (0.2, 0.7):
        raise AssertionError(f"collection: {back.get_config()}")


@check("jax", "torch")
def check_model_save_and_load_keeps_the_metrics():
    x, y = classification_data(120, seed=8)
    model = dense(C, "softmax")
    model.compile(loss="sparse_categorical_crossentropy", metrics=[mk.F1Score(C)])
    before = model.evaluate(x, y, verbose=0, return_dict=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.keras"
        model.save(path)
        loaded = keras.saving.load_model(path)
    after = loaded.evaluate(x, y, verbose=0, return_dict=True)
    close(after["f1_score"], before["f1_score"], "F1 after save / load")


@check("jax")
def check_tensorflow_backend_is_refused_clearly():
    original = keras.backend.backend
    keras.backend.backend = lambda: "tensorflow"
    try:
        mk.F1Score(3)
    except RuntimeError as exc:
        if "jax and torch" not in str(exc):
            raise
    else:
        raise AssertionError("the tensorflow backend was accepted")
    finally:
        keras.backend.backend = original


@check("jax", "torch")
def check_every_stream_metric_has_a_keras_class():
    names = [n for n in ms.__all__ if isinstance(getattr(ms, n), type)
             and issubclass(getattr(ms, n), ms.Metric) and n != "Metric"]
    for name in names + ["MeanMetric", "Running", "ClasswiseWrapper"]:
        if not issubclass(getattr(mk, name), keras.metrics.Metric):
            raise AssertionError(name)


@check("jax")
def check_the_guide_examples_run():
    guide = ROOT / "docs" / "guide" / "keras.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(), re.S)
    if not blocks:
        raise AssertionError("no python block in the guide")
    namespace = {}
    for block in blocks:  # the blocks continue one another
        exec(compile(block, str(guide), "exec"), namespace)


def main():
    """Run the checks named on the command line (all when none)."""
    wanted = set(sys.argv[1:]) or set(CHECKS)
    report = {}
    for name, (fn, backends) in CHECKS.items():
        if name not in wanted:
            continue
        if BACKEND not in backends:
            report[name] = f"skipped: not a check of the {BACKEND} backend"
            continue
        try:
            fn()
            report[name] = "ok"
        except Exception:
            report[name] = traceback.format_exc()
    print("METRIX-REPORT " + json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
