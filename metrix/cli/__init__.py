"""``metrix eval``: score a predictions file with the default metrics of its task.

    metrix eval PREDICTIONS --y-true COL --y-pred COL [--y-score COL ...]
        [--sample-weight COL] [--task auto|binary|multiclass|multilabel|regression|ranking]
        [--backend numpy|torch|jax|cupy] [--device cpu|cuda|mps]
        [--bootstrap B] [--json OUT] [--plots DIR]

Several columns (multilabel targets, per-class scores) are given comma
separated or repeated; in a ``.npz`` file one 2-D array is a block of columns.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
import time
import warnings

import numpy as np

from ._io import BadData, CliError, NotInstalled, UsageError, open_table
from ._progress import Progress
from ._report import classification_table, host, metric_table, write_json
from ._tasks import TASKS, Data, check_inputs, default_metrics, detect_task, host_classes

__all__ = ["add_eval_parser", "run_eval", "BACKENDS", "DEVICES"]

BACKENDS = ("numpy", "torch", "jax", "cupy")
DEVICES = ("cpu", "cuda", "mps")

EXIT_CODES = """exit codes:
  0  success
  1  a metric failed on this data (message on stderr)
  2  bad usage: unknown task, unknown backend name, bad option
  3  not installed: backend, device, pyarrow (Parquet) or matplotlib (--plots)
  4  file unreadable: missing, unknown format, not parseable
  5  missing column
  6  bad data: missing values, wrong shape for the task"""


def add_eval_parser(sub):
    p = sub.add_parser(
        "eval", help="score a predictions file (CSV, Parquet, .npz)",
        description="Score a predictions file with the default metrics of its task.",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("predictions", help="a .csv, .tsv, .parquet or .npz file")
    p.add_argument("--y-true", required=True, action="append",
                   help="target column(s); comma separated for multilabel / ranking")
    p.add_argument("--y-pred", action="append", help="predicted label / value column(s)")
    p.add_argument("--y-score", action="append",
                   help="score / probability column(s): one for binary (the positive "
                        "class), one per class (in sorted class order) for multiclass")
    p.add_argument("--sample-weight", help="sample weight column")
    p.add_argument("--task", default="auto", help=f"one of {', '.join(TASKS)} (default auto)")
    p.add_argument("--pos-label", help="positive class of a binary task (default: the "
                                       "greater label)")
    p.add_argument("--backend", default="numpy", help=f"one of {', '.join(BACKENDS)}")
    p.add_argument("--device", default="cpu", help=f"one of {', '.join(DEVICES)}")
    p.add_argument("--bootstrap", type=int, default=0, metavar="B",
                   help="bootstrap resamples for confidence intervals (0: none)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval coverage")
    p.add_argument("--ci-method", default="percentile", choices=("percentile", "basic", "bca"))
    p.add_argument("--seed", type=int, default=0, help="bootstrap random seed")
    p.add_argument("--json", metavar="OUT", help="write every number to this JSON file")
    p.add_argument("--plots", metavar="DIR", help="write PNG plots to this directory")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _cols(values):
    out = []
    for v in values or ():
        out += [c.strip() for c in v.split(",") if c.strip()]
    return out


# -- backends -------------------------------------------------------------------

def converter(backend, device):
    """A function moving host NumPy arrays to ``backend`` on ``device``."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if device not in DEVICES:
        raise UsageError(f"unknown device {device!r}; expected one of {', '.join(DEVICES)}")
    if backend != "numpy" and importlib.util.find_spec(backend) is None:
        raise NotInstalled(f"backend {backend!r} is not installed: pip install 'metrix[{backend}]'")
    if backend == "numpy":
        if device != "cpu":
            raise NotInstalled(f"backend numpy runs on cpu only (got --device {device})")
        return lambda a: a
    if backend == "torch":
        import torch

        if device == "cuda" and not torch.cuda.is_available():
            raise NotInstalled("--device cuda: torch sees no CUDA device")
        if device == "mps" and not (getattr(torch.backends, "mps", None)
                                    and torch.backends.mps.is_available()):
            raise NotInstalled("--device mps: torch sees no MPS device")

        def to_torch(a):
            t = torch.from_numpy(np.ascontiguousarray(a))
            if device == "mps" and t.dtype == torch.float64:
                t = t.to(torch.float32)
            return t.to(device)
        return to_torch
    if backend == "jax":
        import jax
        import jax.numpy as jnp

        kind = {"cpu": "cpu", "cuda": "gpu", "mps": "METAL"}[device]
        try:
            dev = jax.devices(kind)[0]
        except RuntimeError as exc:
            raise NotInstalled(f"--device {device}: jax has no such device ({exc})") from exc
        return lambda a: jax.device_put(jnp.asarray(a), dev)
    import cupy

    if device != "cuda":
        raise NotInstalled(f"backend cupy runs on cuda only (got --device {device})")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise NotInstalled(f"--backend cupy: no CUDA device ({exc})") from exc
    return cupy.asarray


# -- the run ----------------------------------------------------------------------

def run_eval(args) -> int:
    t_start = time.perf_counter()
    task = args.task
    if task not in TASKS:
        raise UsageError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    if args.bootstrap < 0 or args.bootstrap == 1:
        raise UsageError("--bootstrap needs B >= 2 resamples (0: no intervals)")
    conv = converter(args.backend, args.device)
    if args.plots:
        from ._plots import require_matplotlib

        require_matplotlib()
    yt_cols, yp_cols, ys_cols = _cols(args.y_true), _cols(args.y_pred), _cols(args.y_score)
    wanted = yt_cols + yp_cols + ys_cols + ([args.sample_weight] if args.sample_weight else [])
    table = open_table(args.predictions)
    table.check_columns(wanted)
    enabled = None if not args.quiet else False
    with Progress(table.num_rows, "reading", enabled=enabled) as bar:
        cols = table.read(list(dict.fromkeys(wanted)), progress=bar.update)
    t_read = time.perf_counter() - t_start

    def block(names):  # one column: as stored (1-D, or 2-D in a .npz); several: stacked
        if not names:
            return None
        if len(names) == 1:
            return cols[names[0]]
        return np.stack([cols[c] for c in names], axis=1)

    y_true, y_pred, y_score = block(yt_cols), block(yp_cols), block(ys_cols)
    sw = cols[args.sample_weight].astype(np.float64) if args.sample_weight else None
    lengths = {len(a) for a in (y_true, y_pred, y_score, sw) if a is not None}
    if len(lengths) > 1:
        raise BadData(f"columns have different lengths: {sorted(lengths)}")
    return evaluate_arrays(args, y_true, y_pred, y_score, sw, source=args.predictions,
                           fmt=table.fmt, t_start=t_start, t_read=t_read, conv=conv)


def evaluate_arrays(args, y_true, y_pred, y_score, sw, *, source, fmt, t_start, t_read,
                    conv):
    """The report on host arrays (shared by ``eval`` and ``demo``)."""
    import metrix

    task = args.task
    n = int(y_true.shape[0])
    if n == 0:
        raise BadData(f"{source!r} has no rows")
    if task == "auto":
        task = detect_task(y_true, y_pred, y_score)
    check_inputs(task, y_true, y_pred, y_score)
    data, y_score, display = _prepare(task, y_true, y_pred, y_score, sw, args, conv)
    specs = default_metrics(task, data, has_pred=data.y_pred is not None,
                            has_score=data.y_score is not None)
    t0 = time.perf_counter()
    shared = _evaluate_shared(metrix, specs, data)
    results = [shared.get(spec.key) or _evaluate(metrix, spec, data) for spec in specs]
    t_metrics = time.perf_counter() - t0
    t0 = time.perf_counter()
    if args.bootstrap:
        _intervals(metrix, specs, results, data, args)
    t_boot = time.perf_counter() - t0
    doc = {"file": source, "format": fmt, "n_samples": n, "task": task,
           "backend": args.backend, "device": args.device,
           "columns": {"y_true": _cols(getattr(args, "y_true", None)),
                       "y_pred": _cols(getattr(args, "y_pred", None)),
                       "y_score": _cols(getattr(args, "y_score", None)),
                       "sample_weight": getattr(args, "sample_weight", None)},
           "metrics": {r["metric"]: {k: v for k, v in r.items() if k != "metric"}
                       for r in results},
           "not_available": [r["metric"] for r in results if r["status"] == "not available"]}
    if args.bootstrap:
        doc["bootstrap"] = {"n_resamples": args.bootstrap, "confidence_level": args.confidence,
                            "method": args.ci_method, "seed": args.seed}
    lines = [f"metrix eval: {source} ({n:,} rows, task: {task}, backend: "
             f"{args.backend}/{args.device})", ""]
    if task in ("binary", "multiclass", "multilabel") and data.y_pred is not None:
        report = _class_report(metrix, task, data, display, doc)
        if report:
            lines += [report, ""]
    lines.append(metric_table(results, confidence=args.confidence if args.bootstrap else None))
    print("\n".join(lines))
    if args.plots:
        doc["plots"] = _write_plots(metrix, task, data, display, results, args.plots)
        print(f"\nplots: {', '.join(doc['plots'])}")
    doc["timings_s"] = {"read": t_read, "metrics": t_metrics, "bootstrap": t_boot,
                        "total": time.perf_counter() - t_start}
    if args.json:
        write_json(doc, args.json)
        print(f"json: {args.json}")
    return 0


def _prepare(task, y_true, y_pred, y_score, sw, args, conv):
    """Class set, positive label, score layout; arrays moved to the backend."""
    classes, pos, display = [], None, []
    if task in ("binary", "multiclass"):
        values = [y_true] + ([y_pred] if y_pred is not None else [])
        classes = sorted(set().union(*(host_classes(v) for v in values)))
        display = list(classes)
        if task == "binary":
            pos = classes[-1] if classes else 1
            if args.pos_label is not None:
                pos = _as_label(args.pos_label, classes)
            if y_score is not None and y_score.ndim == 2:
                if y_score.shape[1] != 2:
                    raise BadData(f"binary --y-score takes 1 column (or 2), got "
                                  f"{y_score.shape[1]}")
                y_score = y_score[:, 1]
        elif y_score is not None and (y_score.ndim != 2 or y_score.shape[1] != len(classes)):
            got = 1 if y_score.ndim == 1 else y_score.shape[1]
            raise BadData(f"multiclass --y-score needs one column per class ({len(classes)}: "
                          f"{classes}), got {got}")
        if args.backend != "numpy" and any(isinstance(c, str) for c in classes):
            # string labels live on the host: encode them as class codes
            lut = {c: i for i, c in enumerate(classes)}
            y_true = np.asarray([lut[v] for v in y_true.tolist()])
            y_pred = None if y_pred is None else np.asarray([lut[v] for v in y_pred.tolist()])
            pos = None if pos is None else lut[pos]
            classes = list(range(len(classes)))
    elif task == "multilabel":
        display = list(range(y_true.shape[1]))
    move = (lambda a: None if a is None else conv(a))
    data = Data(move(y_true), move(y_pred), move(y_score), move(sw), classes, pos)
    return data, y_score, display


def _as_label(text, classes):
    for c in classes:
        if str(c) == text:
            return c
    raise UsageError(f"--pos-label {text!r} is not one of the labels {classes}")


def _call(fn, spec, data):
    args = (data.y_true, data.y_pred if spec.inputs == "pred" else data.y_score)
    kw = dict(spec.kwargs)
    if data.sample_weight is not None:
        if "sample_weight" not in inspect.signature(fn).parameters:
            raise TypeError("takes no sample_weight")
        kw["sample_weight"] = data.sample_weight
    return args, kw


def _evaluate_shared(metrix, specs, data):
    """Rows of the specs ``metrix.evaluate`` knows, from one call per input kind
    (one confusion matrix for the label metrics, one sort for AUC and AP).

    A call that warns or fails yields nothing: its metrics are then computed
    one by one, so every row keeps its own warnings and errors.
    """
    names = getattr(metrix, "EVALUATE_METRICS", ())
    rows = {}
    for inputs in ("pred", "score"):
        group = [s for s in specs if s.inputs == inputs and s.shared in names
                 and hasattr(metrix, s.name)]
        if len(group) < 2 or getattr(data, "y_" + inputs) is None:
            continue
        second = {"y_pred": data.y_pred} if inputs == "pred" else {"y_score": data.y_score}
        kw = {"pos_label": data.pos_label} if data.pos_label is not None else {}
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                values = metrix.evaluate(data.y_true, metrics=[s.shared for s in group],
                                         sample_weight=data.sample_weight, **second, **kw)
        except Exception:
            continue
        if caught:
            continue
        for spec in group:
            rows[spec.key] = {"metric": spec.key, "function": spec.name, "status": "ok",
                              "value": host(values[spec.shared])}
    return rows


def _evaluate(metrix, spec, data):
    row = {"metric": spec.key, "function": spec.name, "status": "ok"}
    fn = getattr(metrix, spec.name, None)
    if fn is None:
        row["status"] = "not available"
        return row
    if (spec.inputs == "pred" and data.y_pred is None) or (
            spec.inputs == "score" and data.y_score is None):
        row["status"] = "skipped (no input)"
        return row
    try:
        args, kw = _call(fn, spec, data)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn(*args, **kw)
        row["value"] = host(value)
        if caught:
            row["warnings"] = sorted({str(w.message) for w in caught})
    except Exception as exc:  # a metric refusing this data is a row, not a crash
        row["status"] = f"error: {exc}"
    return row


def _intervals(metrix, specs, results, data, args):
    from metrix._bootstrap import bootstrap_with_estimate

    todo = [(s, r) for s, r in zip(specs, results)
            if r["status"] == "ok" and s.interval and not isinstance(r["value"], list)]
    total = args.bootstrap * len(todo)
    with Progress(total, "bootstrap", enabled=False if args.quiet else None) as bar:
        for i, (spec, row) in enumerate(todo):
            fn = getattr(metrix, spec.name)
            a, kw = _call(fn, spec, data)
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():  # already reported by the value's row
                    warnings.simplefilter("ignore")
                    res, _ = bootstrap_with_estimate(
                        fn, *a, n_resamples=args.bootstrap,
                        confidence_level=args.confidence, method=args.ci_method,
                        random_state=args.seed,
                        _progress=lambda d, t, i=i: bar.update(i * args.bootstrap + d), **kw)
                row["low"], row["high"] = host(res.low), host(res.high)
                row["standard_error"] = host(res.standard_error)
            except Exception as exc:
                row["interval_error"] = str(exc)
            row["bootstrap_s"] = time.perf_counter() - t0


def _class_report(metrix, task, data, display, doc):
    kw = {"sample_weight": data.sample_weight} if data.sample_weight is not None else {}
    cm = None
    if task != "multilabel" and hasattr(metrix, "confusion_matrix"):
        # one confusion matrix gives the per-class rows, the averages and the matrix
        cm = np.asarray(host(metrix.confusion_matrix(data.y_true, data.y_pred,
                                                     labels=data.classes, **kw)))
        p, r, f, s = _prf_of_confusion(cm)
        fn = None
    else:
        fn = getattr(metrix, "precision_recall_fscore_support", None)
        if fn is None:
            return None
        kw["zero_division"] = 0
        if task != "multilabel":
            kw["labels"] = data.classes
        p, r, f, s = (host(v) for v in fn(data.y_true, data.y_pred, average=None, **kw))
    rows = [(str(c), p[i], r[i], f[i], s[i]) for i, c in enumerate(display)]
    rows.append(("", None, None, None, None))
    total = float(sum(s))
    avgs = ("micro", "macro", "weighted", "samples") if task == "multilabel" else (
        "macro", "weighted")
    per_class = {str(c): {"precision": p[i], "recall": r[i], "f1": f[i], "support": s[i]}
                 for i, c in enumerate(display)}
    for avg in avgs:
        if fn is None:
            pa, ra, fa = _average_of_rows((p, r, f), s, avg)
        else:
            pa, ra, fa, _ = (host(v) for v in fn(data.y_true, data.y_pred, average=avg, **kw))
        rows.append((f"{avg} avg", pa, ra, fa, total))
        per_class[f"{avg} avg"] = {"precision": pa, "recall": ra, "f1": fa, "support": total}
    doc["classification_report"] = per_class
    acc = None
    if task != "multilabel":
        acc = doc["metrics"].get("accuracy", {}).get("value")
        if cm is not None:
            doc["confusion_matrix"] = cm.tolist()
            doc["classes"] = display
    return classification_table(rows, accuracy=acc, n=None if acc is None else int(total))


def _prf_of_confusion(cm):
    """Per-class precision, recall, F1 (zero_division=0) and support of a confusion
    matrix (host arithmetic on C x C numbers, scikit-learn's formulas)."""
    tp = np.diag(cm).astype(np.float64)
    pred, true = cm.sum(axis=0), cm.sum(axis=1)

    def ratio(a, b):
        b = np.asarray(b, dtype=np.float64)
        return np.divide(a, b, out=np.zeros_like(tp), where=b != 0)

    f = ratio(2 * tp, pred + true)
    return ratio(tp, pred).tolist(), ratio(tp, true).tolist(), f.tolist(), true.tolist()


def _average_of_rows(values, support, average):
    """The macro or support-weighted mean of per-class rows (as scikit-learn)."""
    out = []
    w = np.asarray(support, dtype=np.float64)
    for v in values:
        v = np.asarray(v, dtype=np.float64)
        if average == "macro":
            out.append(float(v.mean()) if v.size else 0.0)
        else:
            out.append(float((v * w).sum() / w.sum()) if w.sum() > 0 else 0.0)
    return out


def _write_plots(metrix, task, data, display, results, directory):
    from . import _plots

    out = []
    vals = {r["metric"]: r.get("value") for r in results}
    if task in ("binary", "multiclass") and data.y_pred is not None:
        cm = metrix.confusion_matrix(data.y_true, data.y_pred, labels=data.classes)
        out.append(_plots.confusion(cm, display, _plots.path_in(directory, "confusion_matrix.png")))
    if task == "binary" and data.y_score is not None:
        pos = data.pos_label
        fpr, tpr, _ = metrix.roc_curve(data.y_true, data.y_score, pos_label=pos)
        out.append(_plots.roc(fpr, tpr, _num(vals.get("roc_auc")),
                              _plots.path_in(directory, "roc.png")))
        prec, rec, _ = metrix.precision_recall_curve(data.y_true, data.y_score, pos_label=pos)
        out.append(_plots.precision_recall(prec, rec, _num(vals.get("average_precision")),
                                           _plots.path_in(directory, "precision_recall.png")))
        y_pos = np.asarray(host(data.y_true)) == pos
        out.append(_plots.calibration(y_pos, data.y_score,
                                      _plots.path_in(directory, "calibration.png")))
    if task == "regression":
        out.append(_plots.residuals(data.y_true, data.y_pred,
                                    _plots.path_in(directory, "residuals.png")))
    return out


def _num(v):
    return float(v) if isinstance(v, (int, float)) else float("nan")


def main_eval(args) -> int:
    """Run ``eval`` and turn user errors into a message and an exit code."""
    try:
        return run_eval(args)
    except CliError as exc:
        print(f"metrix eval: error: {exc}", file=sys.stderr)
        return exc.code
