"""``metrix eval`` out of core: a directory or glob of files, read batch by batch.

Each batch of the requested columns becomes a small mergeable state
(:class:`metrix.evaluation.partial.PartialEvaluation`: a confusion matrix,
sums of losses and moments, the table of distinct scores or a histogram), so
memory holds one batch and the states, never the whole data.  Labels are
global: a first pass over the label columns finds them (or the task is
regression).  Multilabel and ranking tasks (several target columns) merge
:class:`metrix.evaluation.partial_rows.RowsEvaluation` states instead.
``--dask`` runs the same states on a Dask cluster (:func:`metrix.dask.evaluate`).

Exact ROC AUC / average precision keep one row per distinct score (24
bytes); when that table would outgrow ``--memory`` the run stops with a
message that suggests ``--bins`` (a histogram with its error bound) or
``--dask``.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import inspect
import os
import resource
import sys
import time

import numpy as np

from ._io import (
    FORMATS,
    BadData,
    CliError,
    NotInstalled,
    Unreadable,
    UsageError,
    all_zero_weights,
    check_columns,
    check_finite,
    column_numpy,
    csv_header,
    open_arrow_csv,
)
from ._io import count_missing as _count_missing
from ._progress import Progress
from ._tasks import (
    Data,
    as_label,
    check_inputs,
    check_score_columns,
    default_metrics,
    detect_task,
    host_classes,
    is_text,
)


class _WeightSeen:
    """The weight column of each batch (float64), and whether any weight was not
    zero: a column of zeros only is bad data, as when the file is read whole."""

    def __init__(self, name):
        self.name, self.nonzero = name, False

    def __call__(self, batch):
        if not self.name:
            return None
        sw = batch[self.name].astype(np.float64)
        self.nonzero = self.nonzero or bool(np.any(sw))
        return sw

    def check(self):
        if self.name and not self.nonzero:
            raise all_zero_weights(self.name)


#: bytes per row of the exact table of distinct scores (score, positive and negative weight)
TABLE_ROW_BYTES = 24


def is_batched_source(path: str) -> bool:
    """A directory or a glob pattern (read batch by batch), not one file."""
    return os.path.isdir(path) or any(ch in path for ch in "*?[")


def source_files(path: str) -> tuple[list[str], str]:
    """The data files of a directory or glob, sorted, and their one format."""
    if os.path.isdir(path):
        found = [os.path.join(root, f) for root, _, files in os.walk(path) for f in files
                 if os.path.splitext(f)[1].lower() in FORMATS and not f.startswith((".", "_"))]
    else:
        found = [f for f in glob.glob(path, recursive=True) if os.path.isfile(f)]
    found = sorted(found)
    if not found:
        raise Unreadable(f"cannot read {path!r}: no data files there")
    formats = {FORMATS.get(os.path.splitext(f)[1].lower()) for f in found}
    if None in formats:
        bad = next(f for f in found if FORMATS.get(os.path.splitext(f)[1].lower()) is None)
        raise Unreadable(f"cannot read {bad!r}: unknown format; expected .csv, .tsv or .parquet")
    if formats - {"csv", "parquet"}:
        raise Unreadable(f"{path!r}: a directory or glob takes .csv or .parquet files, not .npz")
    if len(formats) > 1:
        raise Unreadable(f"{path!r} mixes CSV and Parquet files; give one format")
    return found, formats.pop()


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB.

    Linux: ``VmHWM`` of ``/proc/self/status``, this program's own peak
    (``getrusage``'s ``ru_maxrss`` keeps the peak of the process that started
    it, across ``exec``); elsewhere ``getrusage``.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024.0 if os.uname().sysname != "Darwin" else peak / 2**20


def default_memory_mb() -> int:
    """Half the machine's physical memory: the default ``--memory``."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20 / 2)
    except (ValueError, OSError, AttributeError):
        return 4096


class Dataset:
    """The files of a source, read file by file as batches of chosen columns.

    One thread reads (``use_threads=False``): the memory is one batch's, with
    no per-thread buffers.
    """

    def __init__(self, files, fmt):
        if importlib.util.find_spec("pyarrow") is None:
            raise NotInstalled("reading a directory or glob needs pyarrow: "
                               "pip install 'metrix[parquet]'")
        self.files, self.fmt = files, fmt
        self.num_rows = 0 if fmt == "parquet" else None
        columns = None
        for f in files:
            names, rows = self._schema(f)
            if columns is None:
                columns = names
            elif names != columns and set(names) != set(columns):
                shown = ", ".join(sorted(set(names) ^ set(columns))[:10])
                raise Unreadable(f"{f!r} has other columns than {files[0]!r} ({shown})")
            if rows is not None:
                self.num_rows += rows
        self.columns = columns

    def _schema(self, path):
        try:
            if self.fmt == "parquet":
                import pyarrow.parquet as pq

                meta = pq.ParquetFile(path)
                return list(meta.schema_arrow.names), meta.metadata.num_rows
            return csv_header(path, self._delimiter(path)), None
        except CliError:
            raise
        except Exception as exc:  # pyarrow raises several types for bad files
            raise Unreadable(f"cannot read {path!r}: {exc}") from exc

    @staticmethod
    def _delimiter(path):
        return "\t" if path.lower().endswith(".tsv") else ","

    def _file_batches(self, path, names, batch_rows):
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            yield from pq.ParquetFile(path).iter_batches(batch_size=batch_rows, columns=names,
                                                         use_threads=False)
            return
        delimiter = self._delimiter(path)
        yield from open_arrow_csv(path, delimiter, csv_header(path, delimiter), names,
                                  use_threads=False, block_size=1 << 24)

    def batches(self, names, batch_rows):
        """``{name: numpy array}`` per batch, checked for missing values."""
        names = list(dict.fromkeys(names))
        for path in self.files:
            try:
                for batch in self._file_batches(path, names, batch_rows):
                    if not batch.num_rows:
                        continue
                    cols = {n: column_numpy(batch.column(n)) for n in names}
                    for n, a in cols.items():
                        k = _count_missing(a)
                        if k:
                            raise BadData(f"column {n!r} of {path!r} has {k:,} missing value"
                                          f"{'s' if k > 1 else ''} (null, NaN or blank cells)")
                        check_finite(n, a, path)
                    yield cols
            except CliError:
                raise
            except Exception as exc:
                text = str(exc)
                if "conversion error" in text:
                    raise BadData(f"{path!r} mixes numbers and text in one column: "
                                  f"{text}") from exc
                raise Unreadable(f"cannot read {path!r}: {text}") from exc


def _bootstrap_info(args):
    """``{"bootstrap": its settings}`` of a ``--bootstrap`` run, else ``{}``."""
    return {"bootstrap": {"n_resamples": args.bootstrap, "confidence_level": args.confidence,
                          "method": args.ci_method, "seed": args.seed, "resampling": "poisson",
                          "ranking_bins": args.bins or 1000}} if args.bootstrap else {}


def _report_rows(specs, chosen, values, failed=None):
    """The report's rows from the values (with ``<name>_error_bound`` and the
    interval keys where present); a spec that batches cannot compute is skipped,
    one in ``failed`` (name: its exception) is an error row."""
    results = []
    failed = failed or {}
    for spec in specs:
        name = chosen[spec.key]
        row = {"metric": spec.key, "function": spec.name}
        if name is None:
            row["status"] = "skipped (needs the data in memory: give one file)"
        elif name in failed:
            row["status"] = f"error: {failed[name]}"
        else:
            row["status"], row["value"] = "ok", values[name]
            for k in ("error_bound", "low", "high", "standard_error"):
                if f"{name}_{k}" in values:
                    row[k] = values[f"{name}_{k}"]
        results.append(row)
    return results


class _Merger:
    """Merges batch states as a binary counter does (states of equal rank merge), so
    the exact score tables merge O(log B) times each instead of once per batch."""

    def __init__(self, pe):
        self.pe, self.stack = pe, []   # [(rank, state)], ranks decreasing

    def push(self, state):
        rank = 0
        while self.stack and self.stack[-1][0] == rank:
            state = self.pe.merge(self.stack.pop()[1], state)
            rank += 1
        self.stack.append((rank, state))

    def table_rows(self):
        return sum(self.pe.table_rows(s) for _, s in self.stack)

    def result(self):
        if not self.stack:
            return self.pe.empty()
        return self.pe.merge(*(s for _, s in self.stack))


def _partial_name(spec, names):
    """The :class:`PartialEvaluation` name of a report row, or None (not streamable)."""
    for candidate in (spec.shared, spec.name, spec.key):
        if candidate in names:
            return candidate
    return None


def _labels(dataset, cols, batch_rows, progress_enabled):
    """Sorted distinct values of the label columns over every batch (the first pass)."""
    found = set()
    text = None
    with Progress(dataset.num_rows, "finding labels", enabled=progress_enabled) as bar:
        done = 0
        for batch in dataset.batches(cols, batch_rows):
            for a in batch.values():
                kind = is_text(a)
                if text is not None and kind != text:
                    raise BadData("label columns mix numbers and text")
                text = kind
                found.update(host_classes(a))
            done += len(next(iter(batch.values())))
            bar.update(done)
    return sorted(found)


def run_batched(args, *, yt_cols, yp_cols, ys_cols, t_start):
    """The report of a directory / glob source; returns the exit code."""
    _check_batched_args(args)
    files, fmt = source_files(args.predictions)
    dataset = Dataset(files, fmt)
    wanted = yt_cols + yp_cols + ys_cols + ([args.sample_weight] if args.sample_weight else [])
    check_columns(dataset.columns, wanted, args.predictions)
    enabled = False if args.quiet else None
    batch_rows, cols = args.batch_rows, (yt_cols, yp_cols, ys_cols)
    first = next(dataset.batches(wanted, min(batch_rows, 100_000)), None)
    if first is None:
        raise BadData(f"{args.predictions!r} has no rows")
    y_true0, y_pred0, y_score0 = _targets(first, cols)
    task = args.task if args.task != "auto" else detect_task(y_true0, y_pred0, y_score0)
    if y_true0.ndim == 2 or task == "multilabel":
        return _run_rows(args, dataset, task, wanted, cols, (y_true0, y_pred0, y_score0),
                         len(files), fmt)
    if len(yp_cols) > 1:
        raise UsageError(f"task {task} takes one --y-pred column, got {len(yp_cols)}")
    task, labels, pos = _task_labels(args, dataset, task, yt_cols + yp_cols, enabled)
    check_inputs(task, y_true0, y_pred0, y_score0)  # the task's input rules, as read whole
    if task in ("binary", "multiclass"):
        check_score_columns(task, labels, y_score0)
    data = Data(y_true0, y_pred0, y_score0, None, labels or [], pos)
    specs, chosen, names = _partial_specs(task, data, yp_cols, ys_cols)
    method = "binned" if args.bins else "exact"
    try:
        groups = [_Group(g, task, labels, pos, method, args) for g in _grouped(names)]
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    n, failed, limit = 0, {}, args.memory * 2**20
    weighted = _WeightSeen(args.sample_weight)
    with Progress(dataset.num_rows, "scoring", enabled=enabled) as bar:
        t0 = time.perf_counter()
        for batch in dataset.batches(wanted, batch_rows):
            y_true, y_pred, y_score = _targets(batch, cols)
            sw = weighted(batch)
            if task == "regression" and (is_text(y_true) or (y_pred is not None
                                                             and is_text(y_pred))):
                raise BadData("regression targets must be numbers, got text")
            _add_batch(groups, failed, n, y_true, y_pred, y_score, sw)
            n += len(y_true)
            if sum(g.merger.table_rows() for g in groups) * TABLE_ROW_BYTES > limit:
                raise CliError(
                    f"the exact table of distinct scores outgrew --memory {args.memory} MiB "
                    f"after {n:,} rows: pass --bins B for binned ROC AUC / average precision "
                    "with an error bound, --dask to spread it over a cluster, or a larger "
                    "--memory")
            bar.update(n)
        weighted.check()
        values, table_rows = _group_values(groups, failed)
        t_metrics = time.perf_counter() - t0
    results = _report_rows(specs, chosen, values, failed)
    _skip_unweighted(results, args.sample_weight)
    return task, results, {**_bootstrap_info(args), "n_samples": n, "labels": labels,
                           "pos_label": pos, "files": len(files), "format": fmt,
                           "method": method, "bins": args.bins or None,
                           "batch_rows": batch_rows, "table_rows": table_rows,
                           "timings_s": {"read_and_metrics": t_metrics, "read": 0.0}}


def _check_batched_args(args):
    """Refuse the options that need the data in memory or on a device."""
    if args.bootstrap and args.ci_method == "bca":
        raise UsageError("--ci-method bca needs the data in memory (its jackknife): give "
                         "one file, or use percentile / basic intervals")
    if args.plots:
        raise UsageError("--plots needs the data in memory: give one file")
    if args.backend != "numpy":
        raise UsageError("a directory or glob source is read on the host: --backend numpy")


def _task_labels(args, dataset, task, label_cols, enabled):
    """``(task, labels, pos_label)``: the labels of a first pass, and the task they give."""
    if task not in ("binary", "multiclass", "ranking"):
        return task, None, None
    labels, pos = _labels(dataset, label_cols, args.batch_rows, enabled), None
    if task == "ranking":  # one --y-true column: ROC AUC and AP of binary relevance
        if len(labels) > 2:
            raise BadData(f"--task ranking with one --y-true column needs binary "
                          f"relevance, got {len(labels)} values")
        pos = labels[-1]
    if task == "binary" and len(labels) > 2:
        task = "multiclass" if args.task == "auto" else task
        if args.task == "binary":
            raise BadData(f"--task binary needs at most 2 classes, got {len(labels)}")
    if task == "binary":
        pos = labels[-1]
        if args.pos_label is not None:
            pos = as_label(args.pos_label, labels)
    return task, labels, pos


def _partial_specs(task, data, yp_cols, ys_cols):
    """``(specs, chosen, names)``: the task's report rows, the :class:`PartialEvaluation`
    name of each (None: not streamable), and those names once each."""
    from ..evaluation.partial import PARTIAL_METRICS

    specs = default_metrics(task, data, has_pred=bool(yp_cols), has_score=bool(ys_cols))
    chosen = {spec.key: _partial_name(spec, PARTIAL_METRICS) for spec in specs}
    return specs, chosen, list(dict.fromkeys(n for n in chosen.values() if n is not None))


def _add_batch(groups, failed, row_start, y_true, y_pred, y_score, sw):
    """Add a batch to each group still live; a group that refuses it goes to ``failed``."""
    for group in [g for g in groups if g.names[0] not in failed]:
        try:
            group.add(row_start, y_true, y_pred, y_score, sw)
        except ValueError as exc:  # these metrics refuse the data: error rows
            failed.update(dict.fromkeys(group.names, exc))
    if failed and all(g.names[0] in failed for g in groups):
        # every metric refuses the data: bad data, as read whole
        raise BadData(str(failed[groups[0].names[0]]))


def _group_values(groups, failed):
    """``(values, table rows)`` of the live groups' merged states; errors go to ``failed``."""
    values, table_rows = {}, 0
    for group in [g for g in groups if g.names[0] not in failed]:
        state = group.merger.result()
        table_rows += group.pe.table_rows(state)
        try:
            values.update(group.values(state))
        except ValueError as exc:
            failed.update(dict.fromkeys(group.names, exc))
    return values, table_rows


def _grouped(names):
    """The metrics in groups of one statistic each (labels, probabilities, the score
    table, one-vs-rest tables, top-k, regression sums): a group whose metrics refuse
    the data is a set of error rows, as each metric is when the file is read whole."""
    from ..evaluation.partial import (
        LABEL_METRICS,
        OVR_METRICS,
        PROBA_METRICS,
        RANKING_METRICS,
        REGRESSION_METRICS,
    )

    kinds = (LABEL_METRICS, PROBA_METRICS, RANKING_METRICS, OVR_METRICS, REGRESSION_METRICS)
    groups = [[m for m in names if m in kind] for kind in kinds]
    groups.append([m for m in names if not any(m in kind for kind in kinds)])  # top-k
    return [g for g in groups if g]


class _Group:
    """One group of metrics: its :class:`PartialEvaluation`, merged states and
    resamples.  A binary task's score metrics read ``y_pos`` (1 where ``y_true`` is
    the positive class) and the positive class's score, with labels [0, 1], as the
    metrics of a file read whole do.  ``--bootstrap``: a :class:`metrix.evaluation.
    poisson_states.PoissonBootstrap` fed with the batches (the same counts for any
    batching)."""

    def __init__(self, names, task, labels, pos, method, args):
        from ..evaluation.partial import LABEL_METRICS, PartialEvaluation
        from ..evaluation.poisson_states import PoissonBootstrap

        self.names, self.args = names, args
        self.scored = task == "binary" and names[0] not in LABEL_METRICS
        self.pos, self.classes = pos, labels
        g_labels, g_pos = ([0, 1], 1) if self.scored else (labels, pos)
        self.pe = PartialEvaluation(names, labels=g_labels, pos_label=g_pos, method=method,
                                    bins=args.bins or None)
        self.merger = _Merger(self.pe)
        self.boot = PoissonBootstrap(names, n_resamples=args.bootstrap, seed=args.seed,
                                     labels=g_labels, pos_label=g_pos,
                                     bins=args.bins or 1000) if args.bootstrap else None
        self.resamples = None if self.boot is None else self.boot.empty()

    def add(self, row_start, y_true, y_pred, y_score, sw):
        if self.scored:
            if y_score is not None and y_score.ndim == 2 and y_score.shape[1] == 2:
                y_score = y_score[:, self.classes.index(self.pos)]
            y_true = (y_true == self.pos).astype(np.int64)
        self.merger.push(self.pe.chunk(y_true, y_pred, y_score, sw))
        if self.boot is not None:
            self.resamples = self.boot.merge(
                self.resamples, self.boot.chunk(row_start, y_true, y_pred, y_score, sw))

    def values(self, state):
        """The metrics and, with ``--bootstrap``, ``<name>_low``, ``<name>_high`` and
        ``<name>_standard_error``, as :func:`metrix.dask.evaluate` gives them."""
        values = self.pe.finalize(state)
        if self.boot is not None:
            found = self.boot.intervals(self.resamples, {m: values[m] for m in self.names},
                                        confidence_level=self.args.confidence,
                                        method=self.args.ci_method)
            values.update({f"{m}_{k}": v for m, bounds in found.items()
                           for k, v in bounds.items()})
        return values


def _skip_unweighted(results, weight):
    """With ``--sample-weight``, a metric that takes no weights (max error) is
    skipped, as when the file is read whole."""
    import metrix

    for row in results if weight else ():
        fn = getattr(metrix, row["function"], None)
        if fn is not None and "sample_weight" not in inspect.signature(fn).parameters:
            row.pop("value", None)
            row["status"] = "skipped (takes no sample_weight)"


def run_dask(args, *, yt_cols, yp_cols, ys_cols):
    """The report computed by :func:`metrix.dask.evaluate` on a Dask cluster."""
    _check_dask_args(args, yt_cols, yp_cols)
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import metrix.dask as mdask

    path = args.predictions
    if is_batched_source(path):
        files, fmt = source_files(path)
    else:
        files, fmt = [path], FORMATS.get(os.path.splitext(path)[1].lower())
        if fmt not in ("csv", "parquet"):
            raise Unreadable(f"--dask reads .csv or .parquet files, not {path!r}")
    wanted = yt_cols + yp_cols + ys_cols + ([args.sample_weight] if args.sample_weight else [])
    wanted = list(dict.fromkeys(wanted))
    cluster = LocalCluster(n_workers=args.dask_workers, threads_per_worker=1, processes=True,
                           dashboard_address=None) if args.dask == "local" else None
    client = Client(args.dask if cluster is None else cluster)
    try:
        if client.dashboard_link and not args.quiet:
            print(f"metrix eval: Dask dashboard (progress): {client.dashboard_link}",
                  file=sys.stderr)
        try:
            frame = (dd.read_parquet(files, columns=wanted) if fmt == "parquet"
                     else dd.read_csv(files, usecols=wanted))
        except Exception as exc:
            raise Unreadable(f"cannot read {path!r} with Dask: {exc}") from exc
        head = frame.head(100_000, npartitions=-1)
        if not len(head):
            raise BadData(f"{path!r} has no rows")
        y_true0 = head[yt_cols[0]].to_numpy()
        y_pred0 = head[yp_cols[0]].to_numpy() if yp_cols else None
        y_score = (ys_cols[0] if len(ys_cols) == 1 else ys_cols) if ys_cols else None
        y_score0 = None if y_score is None else head[y_score].to_numpy()
        task = args.task if args.task != "auto" else detect_task(y_true0, y_pred0, y_score0)
        if task in ("multilabel", "ranking"):
            raise UsageError(f"--dask does not take task {task}")
        data = Data(y_true0, y_pred0, y_score0, None, [], None)
        specs, chosen, names = _partial_specs(task, data, yp_cols, ys_cols)
        pos = args.pos_label if task == "binary" else None
        method = "binned" if args.bins else "exact"
        t0 = time.perf_counter()
        kwargs = dict(y_true=yt_cols[0], y_pred=yp_cols[0] if yp_cols else None,
                      y_score=y_score, sample_weight=args.sample_weight, metrics=names,
                      pos_label=_typed_label(pos, y_true0), method=method, bins=args.bins or None)
        if args.bootstrap:
            kwargs.update(n_resamples=args.bootstrap, confidence_level=args.confidence,
                          ci_method=args.ci_method, random_state=args.seed,
                          resample_bins=args.bins or 1000)
        try:
            # distributed's own bar on a terminal, on stderr (stdout holds the report)
            show = not args.quiet and sys.stderr.isatty()
            with contextlib.redirect_stdout(sys.stderr) if show else contextlib.nullcontext():
                values = mdask.evaluate(frame, progress=show, **kwargs)
        except ValueError as exc:
            raise BadData(str(exc)) from exc
        t_metrics = time.perf_counter() - t0
        n = int(frame.shape[0].compute())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    results = _report_rows(specs, chosen, values)
    return task, results, {**_bootstrap_info(args), "n_samples": n, "files": len(files),
                           "format": fmt, "dask": args.dask, "method": method,
                           "bins": args.bins or None, "timings_s": {"read_and_metrics": t_metrics}}


def _check_dask_args(args, yt_cols, yp_cols):
    """Refuse a ``--dask`` run without dask, or with options it cannot take."""
    if importlib.util.find_spec("dask") is None or importlib.util.find_spec(
            "distributed") is None:
        raise NotInstalled("--dask needs dask and distributed: pip install 'metrix[dask]'")
    if len(yt_cols) != 1 or len(yp_cols) > 1:
        raise UsageError("--dask takes one --y-true column and at most one --y-pred column "
                         "(several --y-score columns: the probability of each class)")
    if args.plots:
        raise UsageError("--dask gives no --plots")
    if args.bootstrap and args.ci_method == "bca":
        raise UsageError("--ci-method bca needs the data in memory (its jackknife): use "
                         "percentile / basic intervals with --dask")


def _typed_label(text, sample):
    """``--pos-label`` text as a value of the labels' type."""
    if text is None:
        return None
    if sample.dtype.kind in "iub":
        return int(float(text))
    if sample.dtype.kind == "f":
        return float(text)
    return text


def _run_rows(args, dataset, task, wanted, cols, first, n_files, fmt):
    """A multilabel or ranking task (targets of several columns) batch by batch:
    :class:`metrix.evaluation.partial_rows.RowsEvaluation`."""
    from ..evaluation.partial_rows import PER_LABEL, ROWS_METRICS, RowsEvaluation

    yt_cols, yp_cols, ys_cols = cols
    if args.bootstrap:
        raise UsageError(f"--bootstrap of a {task} task needs the data in memory: give one "
                         "file")
    check_inputs(task, *first)
    data = Data(*first, None, [], None)
    specs = default_metrics(task, data, has_pred=bool(yp_cols), has_score=bool(ys_cols))
    chosen = {spec.key: spec.key if spec.key in ROWS_METRICS else None for spec in specs}
    names = [m for m in chosen.values() if m is not None]
    # the per-label averages share one count; each per-sample mean goes alone, so a
    # metric that refuses the data (graded relevance for LRAP, say) is one error row
    groups = [g for g in [[m for m in names if m in PER_LABEL]] if g]
    groups += [[m] for m in names if m not in PER_LABEL]
    mergers = {tuple(g): _Merger(RowsEvaluation(g)) for g in groups}
    failed, n = {}, 0
    enabled = False if args.quiet else None
    with Progress(dataset.num_rows, "scoring", enabled=enabled) as bar:
        t0 = time.perf_counter()
        weighted = _WeightSeen(args.sample_weight)
        for batch in dataset.batches(wanted, args.batch_rows):
            y_true, y_pred, y_score = _targets(batch, cols)
            sw = weighted(batch)
            check_inputs(task, y_true, y_pred, y_score)
            for group, merger in list(mergers.items()):
                try:
                    merger.push(merger.pe.chunk(y_true, y_pred, y_score, sw))
                except (ValueError, TypeError) as exc:
                    failed.update(dict.fromkeys(group, exc))
                    del mergers[group]
            n += len(y_true)
            bar.update(n)
        weighted.check()
        values = {}
        for merger in mergers.values():
            values.update(merger.pe.finalize(merger.result()))
        t_metrics = time.perf_counter() - t0
    results = _report_rows(specs, chosen, values, failed)
    return task, results, {"n_samples": n, "labels": None, "pos_label": None,
                           "files": n_files, "format": fmt, "method": "exact", "bins": None,
                           "batch_rows": args.batch_rows, "table_rows": 0,
                           "timings_s": {"read_and_metrics": t_metrics}}


def _targets(batch, cols):
    """``(y_true, y_pred, y_score)`` of a batch, from the ``(true, pred, score)`` columns."""
    yt_cols, yp_cols, ys_cols = cols
    return _block(batch, yt_cols), _block(batch, yp_cols), _scores(batch, ys_cols)


def _block(batch, names):
    """One column as it is (1-D), several stacked as the columns of a 2-D array."""
    if not names:
        return None
    if len(names) == 1:
        return batch[names[0]]
    return np.stack([batch[c] for c in names], axis=1)


def _scores(batch, names):
    """The score column(s) as :func:`_block` gives them, in float64."""
    return None if not names else _block(batch, names).astype(np.float64)
