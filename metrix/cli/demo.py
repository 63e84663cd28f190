"""``python -m metrix demo``: the ``metrix eval`` report on embedded synthetic
data (a binary classifier with scores), with bootstrap intervals, then a
synthetic imbalanced multiclass problem scored on every installed backend
(and timed against scikit-learn when it is installed).  Runs with NumPy alone."""

from __future__ import annotations

import importlib.util
import time

import numpy as np

import metrix


def _backends():
    """(name, converter) for each installed array library (CPU, plus CUDA if present)."""
    out = [("numpy", lambda a: a)]
    if importlib.util.find_spec("torch"):
        import torch

        out.append(("torch-cpu", lambda a: torch.asarray(a)))
        if torch.cuda.is_available():
            out.append(("torch-cuda", lambda a: torch.asarray(a, device="cuda")))
    if importlib.util.find_spec("jax"):
        import jax.numpy as jnp

        out.append(("jax", lambda a: jnp.asarray(a)))
    if importlib.util.find_spec("array_api_strict"):
        import array_api_strict as xps

        out.append(("array-api-strict", lambda a: xps.asarray(a)))
    if importlib.util.find_spec("cupy"):
        try:
            import cupy

            cupy.cuda.runtime.getDeviceCount()
            out.append(("cupy", lambda a: cupy.asarray(a)))
        except Exception:
            pass
    return out


def synthetic(n=200_000, n_classes=4, seed=0):
    """Imbalanced labels (class 0 dominant) and an 80%-accurate classifier."""
    rng = np.random.default_rng(seed)
    p = np.array([0.7, 0.15, 0.1, 0.05])[:n_classes]
    y_true = rng.choice(n_classes, size=n, p=p / p.sum())
    y_pred = np.where(rng.random(n) < 0.8, y_true, rng.integers(0, n_classes, n))
    return y_true, y_pred


def _scores(lib, y_true, y_pred):
    """The demo's scores by ``lib``: metrix, or ``sklearn.metrics`` (the reference)."""
    return {
        "accuracy": lib.accuracy_score(y_true, y_pred),
        "f1 macro": lib.f1_score(y_true, y_pred, average="macro"),
        "f1 weighted": lib.f1_score(y_true, y_pred, average="weighted"),
        "precision macro": lib.precision_score(y_true, y_pred, average="macro"),
        "recall macro": lib.recall_score(y_true, y_pred, average="macro"),
    }


def _scalar(x) -> float:
    # user-facing edge: printing needs host values
    return float(np.asarray(x.cpu() if hasattr(x, "cpu") else x))


def synthetic_binary(n=100_000, seed=0):
    """A calibrated-ish scorer: positives (30%) score higher on average."""
    rng = np.random.default_rng(seed)
    y_true = (rng.random(n) < 0.3).astype(np.int64)
    logit = 1.6 * (2 * y_true - 1) + rng.normal(0.0, 1.4, n) - 0.8
    y_score = 1.0 / (1.0 + np.exp(-logit))
    return y_true, (y_score >= 0.5).astype(np.int64), y_score


def eval_report(n=20_000, n_resamples=500) -> int:
    """The ``metrix eval`` report (binary task, all default metrics) on synthetic data."""
    import argparse

    from . import evaluate_arrays

    y_true, y_pred, y_score = synthetic_binary(n)
    args = argparse.Namespace(task="binary", pos_label=None, backend="numpy", device="cpu",
                              bootstrap=n_resamples, confidence=0.95, ci_method="percentile",
                              seed=0, json=None, plots=None, quiet=False)
    t0 = time.perf_counter()
    return evaluate_arrays(args, y_true, y_pred, y_score, None,
                           source="synthetic binary classifier", fmt="memory", t_start=t0,
                           t_read=0.0, conv=lambda a: a)


def _best_time(fn, repeat=5) -> float:
    """Best wall time of ``repeat`` calls (as the bench times: one run is noise)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run_demo(n=200_000, n_resamples=500) -> int:
    print("== metrix eval on synthetic data (what `metrix eval FILE` prints) ==\n")
    eval_report(min(n, 20_000), n_resamples)
    print()
    y_true, y_pred = synthetic(n)
    print(f"== metrix {metrix.__version__}: {n:,} samples, 4 imbalanced classes, "
          "on every installed backend ==\n")
    cm = metrix.confusion_matrix(y_true, y_pred)
    print("confusion matrix (rows: true, columns: predicted)")
    print(np.asarray(cm))
    print()
    names = list(_scores(metrix, y_true, y_pred))
    header = f"{'backend':<18}" + "".join(f"{k:>17}" for k in names) + f"{'best of 5':>12}"
    print(header)
    for name, conv in _backends():
        yt, yp = conv(y_true), conv(y_pred)
        vals = _scores(metrix, yt, yp)  # warm-up (and the values shown)
        dt = _best_time(lambda yt=yt, yp=yp: _scores(metrix, yt, yp))
        print(f"{name:<18}" + "".join(f"{_scalar(v):>17.4f}" for v in vals.values())
              + f"{dt * 1e3:>10.1f}ms")
    if importlib.util.find_spec("sklearn"):
        from sklearn import metrics as skm

        def reference():
            return list(_scores(skm, y_true, y_pred).values())

        ref = reference()
        dt = _best_time(reference)
        print(f"{'scikit-learn':<18}" + "".join(f"{v:>17.4f}" for v in ref)
              + f"{dt * 1e3:>10.1f}ms")
    else:
        print("\n(scikit-learn is not installed: no reference timing)")
    return 0
