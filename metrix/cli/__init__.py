"""``metrix eval``: score a predictions file with the default metrics of its task.

    metrix eval PREDICTIONS --y-true COL --y-pred COL [--y-score COL ...]
        [--sample-weight COL] [--task auto|binary|multiclass|multilabel|regression|ranking]
        [--backend numpy|torch|jax|cupy] [--device cpu|cuda|mps]
        [--bootstrap B] [--json OUT] [--plots DIR]
        [--batch-rows N] [--bins B] [--memory MB] [--dask ADDRESS|local]

PREDICTIONS is one file, or a directory or glob of Parquet / CSV files, read
batch by batch (:mod:`metrix.cli._batched`).

Several columns (multilabel targets, per-class scores) are given comma
separated or repeated; in a ``.npz`` file one 2-D array is a block of columns.

Bad input gives a one-line message on stderr and an exit code (``EXIT_CODES``),
never a traceback; a metric that fails on the data is a row of the report and
makes the exit code 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys
import time
import warnings

import numpy as np

from ..classification import accuracy_score
from . import _batched, _checks, _io
from ._io import BadData, CliError, NotInstalled, UsageError, all_zero_weights, open_table
from ._progress import Progress
from ._report import (
    classification_table,
    failure_line,
    host,
    metric_table,
    warning_lines,
    write_json,
)
from ._tasks import (
    PRF,
    TASKS,
    Data,
    as_label,
    check_inputs,
    check_score_columns,
    default_metrics,
    detect_task,
    host_classes,
    is_text,
    key,
)

__all__ = ["add_eval_parser", "run_eval", "BACKENDS", "DEVICES"]

BACKENDS = ("numpy", "torch", "jax", "cupy")
#: rows per batch of a directory or glob source
BATCH_ROWS = 1 << 20
DEVICES = ("cpu", "cuda", "mps")

NOTES = f"""binary scores:
  --y-score is the probability (score) of --pos-label (default: the greater
  label) for every metric, as scikit-learn's pos_label; with two --y-score
  columns (sorted class order) the column of --pos-label is used.

bootstrap limits (exit 2 above them, before any metric is computed):
  B <= {_checks.MAX_RESAMPLES:,} resamples, and B x rows <= {_checks.MAX_BOOTSTRAP_WORK:,}
  resampled rows per metric (1e7 rows x 1,000 resamples: about an hour of CPU
  time for the ten binary metrics; less on a GPU)."""

EXIT_CODES = """exit codes (errors: one line on stderr, no traceback):
  0  success (warnings, if any, are printed on stderr and kept in the JSON)
  1  a metric or its bootstrap interval failed on this data: the table and the
     JSON are still written, the failures listed on stderr
  2  bad usage: unknown task / backend / device, bad option value (--confidence
     outside (0, 1), --seed < 0, --bootstrap < 0, 1 or above the limits),
     --pos-label not a label, --json / --plots not writable (checked first)
  3  not installed: backend, device, pyarrow (Parquet), matplotlib or
     scikit-learn (--plots)
  4  file unreadable: missing, unknown format, not parseable, truncated
  5  missing column
  6  bad data: no rows, missing values (null, NaN, blank cells), text mixed
     with numbers, wrong shape or kind of values for the task
  7  internal error (a bug in metrix; METRIX_DEBUG=1 shows the traceback)
  8  out of memory (read a directory or glob batch by batch, a smaller
     --batch-rows, or --bins for ROC AUC / average precision)
  130 interrupted (Ctrl-C)"""


def add_eval_parser(sub):
    p = sub.add_parser(
        "eval", help="score a predictions file (CSV, Parquet, .npz)",
        description="Score a predictions file with the default metrics of its task.",
        epilog=NOTES + "\n\n" + EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("predictions", help="a .csv, .tsv, .parquet or .npz file")
    p.add_argument("--y-true", required=True, action="append",
                   help="target column(s); comma separated for multilabel / ranking")
    p.add_argument("--y-pred", action="append", help="predicted label / value column(s)")
    p.add_argument("--y-score", action="append",
                   help="score / probability column(s): one for binary (the probability "
                        "of --pos-label), one per class (in sorted class order) for "
                        "multiclass")
    p.add_argument("--sample-weight", help="sample weight column")
    p.add_argument("--task", default="auto", help=f"one of {', '.join(TASKS)} (default auto)")
    p.add_argument("--pos-label", help="positive class of a binary task (default: the "
                                       "greater label); --y-score is its probability")
    p.add_argument("--backend", default="numpy", help=f"one of {', '.join(BACKENDS)}")
    p.add_argument("--device", default="cpu", help=f"one of {', '.join(DEVICES)}")
    p.add_argument("--bootstrap", type=_checks.resamples, default=0, metavar="B",
                   help="bootstrap resamples for confidence intervals (0: none; "
                        f"2 to {_checks.MAX_RESAMPLES:,})")
    p.add_argument("--confidence", type=_checks.confidence, default=0.95,
                   help="interval coverage, in (0, 1) (default 0.95)")
    p.add_argument("--ci-method", default="percentile", choices=("percentile", "basic", "bca"))
    p.add_argument("--seed", type=_checks.seed, default=0,
                   help="bootstrap random seed, >= 0")
    p.add_argument("--json", metavar="OUT", help="write every number to this JSON file")
    p.add_argument("--plots", metavar="DIR", help="write PNG plots to this directory")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    big = p.add_argument_group(
        "data larger than memory",
        "A directory or glob of .parquet / .csv files is read batch by batch (so is one "
        "file with --batch-rows or --bins): memory holds one batch and the metrics' "
        "states. Metrics that need every row at once (median, top-k, --bootstrap, "
        "--plots) are skipped there.")
    big.add_argument("--batch-rows", type=_checks.positive_int, default=None, metavar="N",
                     help=f"rows per batch (default {BATCH_ROWS:,} for a directory or glob)")
    big.add_argument("--bins", type=_checks.positive_int, default=None, metavar="B",
                     help="binned ROC AUC / average precision over B bins of [0, 1], with "
                          "the error bound (default: exact, from the distinct scores)")
    big.add_argument("--memory", type=_checks.positive_int, default=None, metavar="MB",
                     help="memory for the exact table of distinct scores (default: half "
                          "the machine's)")
    big.add_argument("--dask", metavar="ADDRESS",
                     help="compute on a Dask cluster: a scheduler address, or 'local' for "
                          "a local cluster of processes (needs metrix[dask])")
    big.add_argument("--dask-workers", type=_checks.positive_int, default=2, metavar="K",
                     help="workers of --dask local (default 2)")
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
            with warnings.catch_warnings():  # read-only Arrow buffers: metrics never write
                warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
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
    _checks.check_outputs(args.json, args.plots)
    conv = converter(args.backend, args.device)
    if args.plots:
        from . import _plots

        _plots.require()
    yt_cols, yp_cols, ys_cols = _cols(args.y_true), _cols(args.y_pred), _cols(args.y_score)
    if getattr(args, "dask", None) or _batched.is_batched_source(args.predictions) or (
            getattr(args, "batch_rows", None) or getattr(args, "bins", None)):
        return _run_out_of_core(args, yt_cols, yp_cols, ys_cols, t_start)
    wanted = yt_cols + yp_cols + ys_cols + ([args.sample_weight] if args.sample_weight else [])
    table = open_table(args.predictions)
    _io.check_columns(table.columns, wanted, table.path)
    if table.num_rows:  # Parquet, .npz: the row count is known before reading
        _checks.check_bootstrap_budget(args.bootstrap, table.num_rows)
    enabled = None if not args.quiet else False
    with Progress(table.num_rows, "reading", enabled=enabled) as bar:
        cols = table.read(list(dict.fromkeys(wanted)), progress=bar.update)
    t_read = time.perf_counter() - t_start
    _check_shapes(cols, (yt_cols, yp_cols, ys_cols), args.sample_weight)
    # one column: as stored (1-D, or 2-D in a .npz); several: stacked
    y_true, y_pred, y_score = (_batched._block(cols, c) for c in (yt_cols, yp_cols, ys_cols))
    sw = cols[args.sample_weight].astype(np.float64) if args.sample_weight else None
    return evaluate_arrays(args, y_true, y_pred, y_score, sw, source=args.predictions,
                           fmt=table.fmt, t_start=t_start, t_read=t_read, conv=conv)


def _run_out_of_core(args, yt_cols, yp_cols, ys_cols, t_start):
    """A directory / glob, ``--batch-rows``, ``--bins`` or ``--dask``: the report from
    mergeable per-batch states (see :mod:`metrix.cli._batched`)."""
    if args.batch_rows is None:
        args.batch_rows = BATCH_ROWS
    if args.memory is None:
        args.memory = _batched.default_memory_mb()
    if args.dask:
        task, results, info = _batched.run_dask(args, yt_cols=yt_cols, yp_cols=yp_cols,
                                                ys_cols=ys_cols)
    else:
        task, results, info = _batched.run_batched(args, yt_cols=yt_cols, yp_cols=yp_cols,
                                                   ys_cols=ys_cols, t_start=t_start)
    n = info.pop("n_samples")
    mode = f"dask {args.dask}" if args.dask else f"batches of {args.batch_rows:,} rows"
    lines = [f"metrix eval: {args.predictions} ({n:,} rows in {info['files']} file"
             f"{'s' if info['files'] > 1 else ''}, task: {task}, {mode})"]
    if task == "binary" and info.get("pos_label") is not None:
        lines.append(f"positive class: {info['pos_label']!r}"
                     + ("; --y-score read as its probability by every metric"
                        if ys_cols else ""))
    if info.get("method") == "binned" and ys_cols:
        lines.append(f"ROC AUC and average precision binned over {info['bins']} bins of "
                     "[0, 1]: |binned - exact| <= the error bound in the JSON")
    if info.get("bootstrap"):
        lines.append(f"{args.bootstrap} Poisson bootstrap resamples, streamed with the "
                     "batches (ROC AUC / AP intervals from their histogram)")
    lines.append("")
    lines.append(metric_table(results, confidence=args.confidence if info.get("bootstrap")
                              else None))
    print("\n".join(lines))
    failed = [r for r in results if r["status"].startswith("error")]
    doc = {"file": args.predictions, "n_samples": n, "task": task, "backend": "numpy",
           "device": "cpu", "mode": "dask" if args.dask else "batched",
           "columns": {"y_true": yt_cols, "y_pred": yp_cols, "y_score": ys_cols,
                       "sample_weight": args.sample_weight},
           "metrics": {r["metric"]: {k: v for k, v in r.items() if k != "metric"}
                       for r in results},
           "skipped": [r["metric"] for r in results if r["status"].startswith("skipped")],
           "warnings": [], "failed": [r["metric"] for r in failed], **info}
    doc["timings_s"] = {**doc.get("timings_s", {}), "total": time.perf_counter() - t_start}
    if doc.get("labels") is not None:
        doc["labels"] = [host(v) for v in doc["labels"]]
    return _finish(doc, args.json, failed)  # as read whole


def _check_shapes(cols, groups, weight):
    """One value per row; a 2-D ``.npz`` array only as a whole option's block."""
    for names in groups:
        for name in names:
            ndim = cols[name].ndim
            if ndim == 0 or ndim > 2 or (ndim == 2 and len(names) > 1):
                raise BadData(f"column {name!r} has shape {cols[name].shape}; expected one "
                              "value per row (a 2-D array only alone as an option's columns)")
    if weight:
        if cols[weight].ndim != 1:
            raise BadData(f"--sample-weight column {weight!r} has shape {cols[weight].shape}; "
                          "expected one value per row")
        if is_text(cols[weight]):
            raise BadData(f"--sample-weight column {weight!r} must be numeric, got text")
        if len(cols[weight]) and not np.any(cols[weight]):
            raise all_zero_weights(weight)
    lengths = {len(a) for a in cols.values()}
    if len(lengths) > 1:
        raise BadData(f"columns have different lengths: {sorted(lengths)}")


def evaluate_arrays(args, y_true, y_pred, y_score, sw, *, source, fmt, t_start, t_read,
                    conv):
    """The report on host arrays (shared by ``eval`` and ``demo``)."""
    import metrix

    task = args.task
    n = int(y_true.shape[0])
    if n == 0:
        raise BadData(f"{source!r} has no rows")
    _checks.check_bootstrap_budget(args.bootstrap, n)
    seen = {}
    if task == "auto":
        task = detect_task(y_true, y_pred, y_score, seen)
    check_inputs(task, y_true, y_pred, y_score)
    data, y_score, display, pos_shown = _prepare(task, y_true, y_pred, y_score, sw, args, conv,
                                                 seen.get("classes"))
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
             f"{args.backend}/{args.device})"]
    if task == "binary":
        doc["pos_label"] = pos_shown
        lines.append(f"positive class: {pos_shown!r}")
        if data.y_score is not None:
            doc["score_reading"] = (f"--y-score is the probability (score) of the positive "
                                    f"class {pos_shown!r} (pos_label) for every metric")
            lines[-1] += f"; --y-score read as P(y = {pos_shown!r}) by every metric"
    lines.append("")
    notes = warning_lines(results)
    if task != "binary" and getattr(args, "pos_label", None) is not None:
        notes.append(f"--pos-label {args.pos_label!r} ignored: it applies to a binary task")
    failed = [r for r in results if r["status"].startswith("error") or "interval_error" in r]
    if task in ("binary", "multiclass", "multilabel") and data.y_pred is not None:
        report = _attempt("classification_report", notes, failed, _class_report,
                          metrix, task, data, display, doc)
        if report:
            lines += [report, ""]
    lines.append(metric_table(results, confidence=args.confidence if args.bootstrap else None))
    print("\n".join(lines))
    if args.plots:
        from ._plots import write

        doc["plots"] = _attempt("plots", notes, failed, write, metrix, task, data, display,
                                args.plots) or []
        print(f"\nplots: {', '.join(doc['plots']) or 'none'}")
    for line in notes:
        print(f"metrix eval: warning: {line}", file=sys.stderr)
    doc["warnings"] = notes
    doc["failed"] = [r["metric"] for r in failed]
    doc["timings_s"] = {"read": t_read, "metrics": t_metrics, "bootstrap": t_boot,
                        "total": time.perf_counter() - t_start}
    return _finish(doc, args.json, failed)


def _finish(doc, json_path, failed):
    """The exit code, after the JSON (with the peak memory) is written: the table
    and the JSON, then one line on stderr naming the failures."""
    doc["peak_rss_mb"] = _batched.peak_rss_mb()
    if json_path:
        write_json(doc, json_path)
        print(f"json: {json_path}")
    if failed:
        print(f"metrix eval: error: {failure_line(failed)}", file=sys.stderr)
        return 1
    return 0


def _attempt(what, notes, failed, fn, *args):
    """``fn(*args)``; its warnings become ``notes``, its error a row of ``failed``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return fn(*args)
        except Exception as exc:  # a metric refusing the data, as a metric row does
            failed.append({"metric": what, "status": f"error: {exc}"})
            return None
        finally:
            for msg in dict.fromkeys(str(w.message) for w in caught):
                notes.append(f"{what}: {msg}")


def _prepare(task, y_true, y_pred, y_score, sw, args, conv, known=None):
    """Class set (``known``: already read by :func:`detect_task`), positive
    label, score layout; arrays moved to the backend.

    Binary: ``y_score`` becomes the probability of the positive class (the
    column of ``pos`` when two are given) and ``y_pos`` the 0/1 target of the
    score metrics, so every metric reads the score the same way.
    """
    classes, pos, display, y_pos, pos_shown = [], None, [], None, None
    if task in ("binary", "multiclass"):
        values = [y_true] + ([y_pred] if y_pred is not None else [])
        if known is None or (y_pred is not None and y_pred.ndim != 1):
            known = set().union(*(host_classes(v) for v in values))
        classes = sorted(known)
        display = list(classes)
        if task == "binary":
            if len(classes) > 2:
                shown = ", ".join(map(repr, classes[:5])) + (" ..." if len(classes) > 5 else "")
                raise BadData(f"--task binary needs at most 2 classes, got {len(classes)}: "
                              f"{shown}")
            pos = classes[-1] if classes else 1
            if args.pos_label is not None:
                pos = as_label(args.pos_label, classes)
            pos_shown = pos
            check_score_columns(task, classes, y_score)
            if y_score is not None and y_score.ndim == 2:
                y_score = y_score[:, classes.index(pos)]
            if y_score is not None:
                if classes == [0, 1] and pos == 1 and y_true.dtype.kind in "iu":
                    y_pos = y_true  # already the 0/1 target: no copy
                else:
                    y_pos = (y_true == pos).astype(np.int64)
        else:
            check_score_columns(task, classes, y_score)
        if args.backend != "numpy" and any(isinstance(c, str) for c in classes):
            # string labels live on the host: encode them as class codes
            lut = {c: i for i, c in enumerate(classes)}
            y_true = np.asarray([lut[v] for v in y_true.tolist()])
            y_pred = None if y_pred is None else np.asarray([lut[v] for v in y_pred.tolist()])
            pos = None if pos is None else lut[pos]
            classes = list(range(len(classes)))
    elif task == "multilabel":
        display = list(range(y_true.shape[1]))

    def move(a):
        return None if a is None else conv(a)

    data = Data(move(y_true), move(y_pred), move(y_score), move(sw), classes, pos, move(y_pos))
    return data, y_score, display, pos_shown


def _target(inputs, data):
    """``(y_true, pos_label)`` for a metric of ``inputs``: binary scores use ``y_pos``."""
    if inputs == "score" and data.y_pos is not None:
        return data.y_pos, 1
    return data.y_true, data.pos_label


def _call(fn, spec, data):
    args = (_target(spec.inputs, data)[0],
            data.y_pred if spec.inputs == "pred" else data.y_score)
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
        y_true, pos = _target(inputs, data)
        kw = {"pos_label": pos} if pos is not None else {}
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                values = metrix.evaluate(y_true, metrics=[s.shared for s in group],
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
    if getattr(data, "y_" + spec.inputs) is None:  # y_pred or y_score
        row["status"] = "skipped (no input)"
        return row
    if data.sample_weight is not None and "sample_weight" not in inspect.signature(
            fn).parameters:
        row["status"] = "skipped (takes no sample_weight)"
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
    """Every interval from one shared draw of resamples (``bootstrap_many``): the
    draws are paid once for all metrics, and the intervals are joint."""
    from metrix.evaluation.intervals import bootstrap_many

    todo = [(s, r) for s, r in zip(specs, results)
            if r["status"] == "ok" and s.interval and not isinstance(r["value"], list)]
    calls = {}
    for spec, _ in todo:
        fn = getattr(metrix, spec.name)
        a, kw = _call(fn, spec, data)
        calls[spec.key] = (fn, a, kw)
    if not calls:
        return
    t0 = time.perf_counter()
    with Progress(args.bootstrap, "bootstrap", enabled=False if args.quiet else None) as bar:
        with warnings.catch_warnings():  # already reported by the value's row
            warnings.simplefilter("ignore")
            try:
                found = bootstrap_many(calls, n_resamples=args.bootstrap,
                                       confidence_level=args.confidence,
                                       method=args.ci_method, random_state=args.seed,
                                       progress=lambda done, total: bar.update(done))
            except Exception as exc:  # the shared draw itself failed: every row says so
                found = {key: exc for key in calls}
    spent = (time.perf_counter() - t0) / len(calls)
    for spec, row in todo:
        got = found[spec.key]
        if isinstance(got, Exception):
            row["interval_error"] = str(got)
        else:
            res, _ = got
            row["low"], row["high"] = host(res.low), host(res.high)
            row["standard_error"] = host(res.standard_error)
            if not _is_nan(row["value"]) and (_is_nan(row["low"]) or _is_nan(row["high"])):
                row.setdefault("warnings", []).append(
                    "no interval (nan): the metric is undefined on some resamples "
                    "(e.g. one class only); more rows are needed")
        row["bootstrap_s"] = spent  # the shared run's time, split evenly


def _is_nan(v):
    return isinstance(v, float) and v != v


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
    cols = (*map(key, PRF), "support")  # the columns: the metrics' names in the report
    per_class = {str(c): dict(zip(cols, (p[i], r[i], f[i], s[i]))) for i, c in enumerate(display)}
    for avg in avgs:
        if fn is None:
            pa, ra, fa = _average_of_rows((p, r, f), s, avg)
        else:
            pa, ra, fa, _ = (host(v) for v in fn(data.y_true, data.y_pred, average=avg, **kw))
        rows.append((f"{avg} avg", pa, ra, fa, total))
        per_class[f"{avg} avg"] = dict(zip(cols, (pa, ra, fa, total)))
    doc["classification_report"] = per_class
    acc = None
    if task != "multilabel":
        acc = doc["metrics"].get(key(accuracy_score), {}).get("value")
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


def main_eval(args) -> int:
    """Run ``eval`` and turn every error into a one-line message and an exit code."""
    try:
        return run_eval(args)
    except CliError as exc:
        _say(f"error: {exc}")
        return exc.code
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except MemoryError as exc:
        _say(f"out of memory ({exc}): read the data batch by batch (a directory or glob, or "
             "--batch-rows N), with a smaller --batch-rows, or --bins B for ROC AUC / "
             "average precision")
        return 8
    except Exception as exc:  # a bug: one line, the traceback only on request
        if os.environ.get("METRIX_DEBUG"):
            raise
        _say(f"internal error: {type(exc).__name__}: {exc} (a bug in metrix; "
             "METRIX_DEBUG=1 shows the traceback)")
        return 7


def _say(message):
    print("metrix eval: " + " ".join(str(message).split()), file=sys.stderr)
