"""Per-call latency at training-loop batch sizes (the accelerator regime, on CPU).

One thread, N = 256, 4,096 and 65,536, C = 10.  Each cell is the best over
``--runs`` interleaved runs of the mean time of ``--calls`` back-to-back calls
(each run prints its own figures, so the spread is visible).  Columns:

* metrix on torch CPU tensors with declared labels and ``validate=False`` (the
  training-loop call) against TorchMetrics' functional metric with
  ``validate_args=False``: target <= 0.5x, and ``f1_score`` macro < 40 us at
  N = 256;
* the defaults of both (``validate=True``, no labels; TorchMetrics'
  ``validate_args=True``): target <= 1.0x;
* the floor: the bare expression of the same value from the same inputs (no
  checks, labels assumed in range, sums in float64 as metrix sums:
  ``mean_squared_error``'s is one subtraction and one float64 norm), in torch
  and in NumPy on zero-copy views of the tensors (the result back as a
  tensor); "floor / tm" is the cheaper one against TorchMetrics: where it is
  above 0.5x, no implementation meets the 0.5x target.  "checked floor / tm"
  (the label metrics): the NumPy floor with the range checks a correct
  count needs (declared labels leave out the others, as scikit-learn's);
* binary ``average_precision_score`` is timed too (no target: the floor is
  one sort, as for the AUC);
* NumPy: metrix ``f1_score`` macro against one ``np.bincount`` of the codes
  ``C * y_true + y_pred`` (target <= 20x at N = 256) and scikit-learn;
* eager JAX: ``f1_score`` macro after the first call (target < 1 ms at N = 4,096).

Run: ``python -m bench.bench_latency [--sizes 256,4096,65536] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench._harness import fmt_time, have, print_table

C = 10
L = list(range(C))


def _per_call(fn, calls):
    fn()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def interleaved(fns: dict, *, runs: int, calls: int, label: str) -> dict:
    """Best per-call time of each function over ``runs`` interleaved runs."""
    best = dict.fromkeys(fns, float("inf"))
    for r in range(runs):
        times = {name: _per_call(fn, calls) for name, fn in fns.items()}
        print(f"  {label} run {r + 1}: "
              + ", ".join(f"{k} {fmt_time(v)}" for k, v in times.items()), flush=True)
        for k, v in times.items():
            best[k] = min(best[k], v)
    return best


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, C, n))
    yb = rng.integers(0, 2, n)
    s = np.clip(0.3 * yb + 0.7 * rng.random(n), 0, 1)
    r = rng.normal(size=n)
    q = r + rng.normal(0, 0.3, n)
    return y, p, yb, s, r, q


def torch_rows(n, runs, calls):
    import torch
    import torchmetrics.functional.classification as tmc
    import torchmetrics.functional.regression as tmr

    import metrix

    y, p, yb, s, r, q = (torch.from_numpy(a) for a in _data(n))
    s, r, q = s.float(), r.float(), q.float()
    # the floor: the bare expression of the value from the same inputs (no
    # checks, labels assumed in range, float64 sums), in torch and in NumPy on
    # zero-copy views with the result back as a tensor; the cheaper of the two
    # is what any call costs at least
    floors = {
        "f1_score macro": lambda: _f1_floor(torch, y, p),
        "accuracy_score": lambda: (y == p).double().mean(),
        "confusion_matrix": lambda: torch.bincount(C * y + p, minlength=C * C).reshape(C, C),
        "roc_auc_score binary": lambda: torch.sort(s),
        "average_precision_score binary": lambda: torch.sort(s),
        "mean_squared_error": lambda: torch.linalg.vector_norm(
            r - q, dtype=torch.float64).square() / n,
    }
    floors_np = {
        "f1_score macro": lambda: torch.from_numpy(_f1_floor_numpy(y.numpy(), p.numpy())),
        "accuracy_score": lambda: torch.from_numpy(
            np.asarray(np.mean(y.numpy() == p.numpy()))),
        "confusion_matrix": lambda: torch.from_numpy(
            np.bincount(C * y.numpy() + p.numpy(), minlength=C * C).reshape(C, C)),
        "roc_auc_score binary": lambda: torch.from_numpy(np.sort(s.numpy())),
        "average_precision_score binary": lambda: torch.from_numpy(np.sort(s.numpy())),
        "mean_squared_error": lambda: torch.from_numpy(_mse_floor_numpy(r.numpy(), q.numpy())),
    }
    # the label floors with the checks a correct count needs (labels outside
    # 0..C-1 left out, as scikit-learn's declared labels): a raveling or two
    # unsigned maxima
    checked = {
        "f1_score macro": lambda: torch.from_numpy(
            _f1_floor_numpy(y.numpy(), p.numpy(), checked=True)),
        "confusion_matrix": lambda: torch.from_numpy(
            _cm_checked_numpy(y.numpy(), p.numpy())),
    }
    cases = {
        "f1_score macro": (
            lambda: metrix.f1_score(y, p, labels=L, average="macro", validate=False),
            lambda: tmc.multiclass_f1_score(p, y, C, average="macro", validate_args=False),
            lambda: metrix.f1_score(y, p, average="macro"),
            lambda: tmc.multiclass_f1_score(p, y, C, average="macro")),
        "accuracy_score": (
            lambda: metrix.accuracy_score(y, p, validate=False),
            lambda: tmc.multiclass_accuracy(p, y, C, average="micro", validate_args=False),
            lambda: metrix.accuracy_score(y, p),
            lambda: tmc.multiclass_accuracy(p, y, C, average="micro")),
        "confusion_matrix": (
            lambda: metrix.confusion_matrix(y, p, labels=L, validate=False),
            lambda: tmc.multiclass_confusion_matrix(p, y, C, validate_args=False),
            lambda: metrix.confusion_matrix(y, p),
            lambda: tmc.multiclass_confusion_matrix(p, y, C)),
        "roc_auc_score binary": (
            lambda: metrix.roc_auc_score(yb, s, validate=False),
            lambda: tmc.binary_auroc(s, yb, validate_args=False),
            lambda: metrix.roc_auc_score(yb, s),
            lambda: tmc.binary_auroc(s, yb)),
        "average_precision_score binary": (
            lambda: metrix.average_precision_score(yb, s, validate=False),
            lambda: tmc.binary_average_precision(s, yb, validate_args=False),
            lambda: metrix.average_precision_score(yb, s),
            lambda: tmc.binary_average_precision(s, yb)),
        "mean_squared_error": (
            lambda: metrix.mean_squared_error(r, q, validate=False),
            lambda: tmr.mean_squared_error(q, r),
            lambda: metrix.mean_squared_error(r, q),
            lambda: tmr.mean_squared_error(q, r)),
    }
    rows = []
    for name, (fast, tm_fast, default, tm_default) in cases.items():
        fns = {"metrix": fast, "tm": tm_fast, "metrix default": default,
               "tm default": tm_default, "floor torch": floors[name],
               "floor numpy": floors_np[name]}
        if name in checked:
            fns["checked floor numpy"] = checked[name]
        t = interleaved(fns, runs=runs, calls=calls, label=f"torch {name} N={n}")
        floor = min(t["floor torch"], t["floor numpy"])
        checked_floor = t.get("checked floor numpy")
        rows.append({"N": n, "metric": name,
                     "floor (bare torch / NumPy views)": (
                         f"{fmt_time(t['floor torch'])} / {fmt_time(t['floor numpy'])}"),
                     "floor / tm": f"{floor / t['tm']:.2f}x",
                     "checked floor / tm": ("" if checked_floor is None
                                            else f"{checked_floor / t['tm']:.2f}x"),
                     "metrix (labels, validate=False)": fmt_time(t["metrix"]),
                     "TorchMetrics (validate_args=False)": fmt_time(t["tm"]),
                     "ratio": f"{t['metrix'] / t['tm']:.2f}x",
                     "metrix default": fmt_time(t["metrix default"]),
                     "TorchMetrics default": fmt_time(t["tm default"]),
                     "ratio default": f"{t['metrix default'] / t['tm default']:.2f}x"})
    return rows


def _f1_floor(torch, y, p):
    """Macro F1 in bare torch: one bincount, the C-vector formula (no checks)."""
    cm = torch.bincount(C * y + p, minlength=C * C).reshape(C, C).double()
    tp = cm.diagonal()
    den = cm.sum(0) + cm.sum(1)
    return torch.where(den > 0, 2 * tp / den.clamp(min=1), 0.0).mean()


def _cm_checked_numpy(y, p):
    """The declared confusion matrix in bare NumPy with its range checks, the
    cheaper of two: a small batch, one ``ravel_multi_index`` (it raises on a
    label outside ``0..C-1``) and one bincount; a larger one, one unsigned max
    of each array (negatives wrap past C; a huge label would wrap its code
    into a declared cell), the codes ``y * (C + 1) + p`` (the label C falls in
    a row or column cut off) and one bincount."""
    if y.shape[0] <= 512:
        return np.bincount(np.ravel_multi_index((y, p), (C, C)),
                           minlength=C * C).reshape(C, C)
    if np.maximum.reduce(y.view(np.uint64)) > C or np.maximum.reduce(p.view(np.uint64)) > C:
        raise ValueError("an undeclared label (not in the bench's data)")
    counts = np.bincount(y * (C + 1) + p, minlength=C * (C + 1))
    return counts[:C * (C + 1)].reshape(C, C + 1)[:, :C]


def _f1_floor_numpy(y, p, checked=False):
    """Macro F1 in bare NumPy (zero-copy views of the tensors): one bincount, the
    C-vector formula, the 0-d result (``checked``: the count of
    :func:`_cm_checked_numpy`)."""
    cm = (_cm_checked_numpy(y, p) if checked
          else np.bincount(C * y + p, minlength=C * C).reshape(C, C)).astype(np.float64)
    tp = cm.diagonal()
    den = cm.sum(0) + cm.sum(1)
    return np.asarray(np.mean(np.where(den > 0, 2 * tp / np.maximum(den, 1), 0.0)))


def _mse_floor_numpy(r, q):
    """The MSE in bare NumPy: the difference in the inputs' float, one float64
    dot product, the 0-d result in the inputs' float."""
    d = (r - q).astype(np.float64)
    return np.asarray(np.dot(d, d) / d.shape[0], dtype=r.dtype)


def numpy_rows(n, runs, calls, with_sklearn=True):
    import metrix

    y, p = _data(n)[:2]
    fns = {"metrix": lambda: metrix.f1_score(y, p, labels=L, average="macro",
                                             validate=False),
           "np.bincount": lambda: np.bincount(C * y + p, minlength=C * C)}
    if with_sklearn and have("sklearn"):
        import sklearn.metrics as skm

        fns["scikit-learn"] = lambda: skm.f1_score(y, p, average="macro")
    t = interleaved(fns, runs=runs, calls=calls, label=f"numpy f1 N={n}")
    return {"N": n, "metrix f1_score macro": fmt_time(t["metrix"]),
            "one np.bincount": fmt_time(t["np.bincount"]),
            "ratio": f"{t['metrix'] / t['np.bincount']:.1f}x",
            "scikit-learn": fmt_time(t.get("scikit-learn", float("nan")))}


def jax_row(n, runs, calls):
    import jax
    import jax.numpy as jnp

    import metrix

    y, p = (jnp.asarray(a) for a in _data(n)[:2])
    t0 = time.perf_counter()
    jax.block_until_ready(metrix.f1_score(y, p, labels=L, average="macro", validate=False))
    first = time.perf_counter() - t0

    def call():
        return jax.block_until_ready(metrix.f1_score(y, p, labels=L, average="macro",
                                                     validate=False))

    t = interleaved({"metrix": call}, runs=runs, calls=calls, label=f"jax eager f1 N={n}")
    return {"N": n, "first call": fmt_time(first), "after": fmt_time(t["metrix"])}


def _calls(calls, n):
    """Calls per run at N rows: ``calls`` at 256, fewer for larger batches, but
    at least 40 (a handful of calls makes the first, cache-cold one count)."""
    return max(40, calls * 256 // max(n, 256))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,4096,65536")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--no-jax", action="store_true")
    args = ap.parse_args(argv)
    sizes = [int(float(v)) for v in args.sizes.split(",")]
    if have("torch"):
        import torch

        torch.set_num_threads(1)
    tables = []
    if have("torch") and have("torchmetrics"):
        print("```")  # each run's figures, a block of the Markdown report
        rows = []
        for n in sizes:
            rows += torch_rows(n, args.runs, _calls(args.calls, n))
        print("```\n\n### torch CPU, one thread: metrix against TorchMetrics\n")
        tables.append(print_table(rows, list(rows[0])))
    print("\n```")
    rows = [numpy_rows(n, args.runs, _calls(args.calls, n)) for n in sizes]
    print("```\n\n### NumPy: metrix f1_score against one np.bincount\n")
    tables.append(print_table(rows, list(rows[0])))
    if have("jax") and not args.no_jax:
        print("\n```")
        rows = [jax_row(n, args.runs, max(10, args.calls // 10)) for n in sizes]
        print("```\n\n### eager JAX (not jitted by the caller)\n")
        tables.append(print_table(rows, list(rows[0])))
    return "\n\n".join(tables)


if __name__ == "__main__":
    main()
