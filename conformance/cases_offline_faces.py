"""Conformance rows: the offline faces (``metrix.dask``, ``evaluate``, ``metrix eval``).

The same metrics reach users through faces that read host data in pieces:

* ``metrix.dask``: each single-metric function on Dask arrays of one
  partition and of several uneven ones (an empty partition and a one-row
  partition among them).  The rows are derived from the family rows
  (``cases_classification.py``, ``cases_agreement.py``,
  ``cases_probabilistic.py``, ``cases_ranking.py``, ``cases_regression.py``):
  the first row of each kind (metric, input shapes and dtypes, keywords,
  error or value) that ``metrix.dask`` can take (1-D targets, its keywords,
  averages other than ``None`` / ``"samples"``), so every kind is covered
  without volume.  Bad input (NaN / inf, a mix of target types, all-zero
  weights, empty input...) must raise the one-shot function's kind of error.
* ``evaluate``: ``metrix.evaluate`` (every combination: it is a one-shot
  function) and ``metrix.dask.evaluate``: the dict equals the metrics called
  one by one (string labels, weights with zeros, one class, binary labels
  {1, 2} and {-1, 1} with ``pos_label``).
* ``metrix eval --json``: the in-process entry (``metrix.__main__.main``) on a
  CSV or Parquet file written from the same data, read whole and with
  ``--batch-rows`` (batch by batch): the JSON values equal scikit-learn's, and
  each kind of bad value gives one exit code either way.

These faces take host NumPy (Dask arrays built from NumPy, files): their rows
run on the ``numpy-f64`` combination and skip the others with the reason.
``metrix.dask`` and ``metrix eval`` give no scikit-learn warnings (their
``zero_division="warn"`` is 0 without one): their rows leave warnings out.
The Hugging Face face (``compute_metrics``) runs with the framework
integrations, in ``tests/integrations/test_transformers_conformance.py``.

The family modules' ``CASES`` are read directly, not through
``registry.collect()``: ``collect`` imports this module, and calling it here
would recurse.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import io
import json
import os
import shutil
import tempfile

import numpy as np
from sklearn import metrics as skm

from conformance import (
    cases_agreement,
    cases_classification,
    cases_probabilistic,
    cases_ranking,
    cases_regression,
)
from conformance import cases_evaluation as ce
from conformance.cases_calibration import torch_binned_calibration_error
from conformance.cases_evaluation import evaluate_reference
from conformance.combos import COMBOS
from conformance.registry import Case

HAVE_DASK = importlib.util.find_spec("dask") is not None
HAVE_PYARROW = importlib.util.find_spec("pyarrow") is not None

#: host faces: one combination (their own arithmetic is float64 on the host)
HOST_ONLY = {c.id: "a host face (NumPy in, Python floats out): numpy-f64 only"
             for c in COMBOS if c.id != "numpy-f64"}

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


#: rows that meet a known bug of shared code, skipped with the reason until it is
#: fixed (each also a strict xfail in tests/dask or tests/cli); none at present
KNOWN: dict = {}


def _host_row(metric, ref, args, kw=None, id="", **extra):
    extra.setdefault("check_warnings", "off")
    extra.setdefault("check_dtype", False)
    skip = dict(HOST_ONLY)
    for (name, key), reason in KNOWN.items():
        if metric == name and id.endswith(key):
            skip["numpy-f64"] = f"known bug, shared code: {reason}"
    add(metric, ref, args, kw, id=id, skip=skip, **extra)


# -- metrix.dask: the family rows on Dask arrays -----------------------------------------

#: partitionings: one partition; uneven ones with a one-row and an empty partition
PARTITIONS = ("one", "uneven")


def _chunks(n, how):
    if how == "one" or n < 4:
        return (n,)
    third = n // 3
    return (1, third, 0, n - 1 - third - 5, 5)


def _dask_array(a, how):
    import dask.array as da

    return da.from_array(a, chunks=(_chunks(a.shape[0], how),) + tuple(
        (s,) for s in a.shape[1:]))


def on_dask(name, how):
    """``metrix.dask.<name>`` on Dask arrays made from the NumPy inputs."""

    def run(*args, **kwargs):
        md = importlib.import_module("metrix.dask")

        def conv(a):
            return _dask_array(a, how) if isinstance(a, np.ndarray) and a.ndim else a

        kwargs = {k: conv(v) if k == "sample_weight" else v for k, v in kwargs.items()}
        return getattr(md, name)(*(conv(a) for a in args), **kwargs)

    run.__name__ = f"dask_{name}_{how}"
    return run


_DASK_AVERAGES = ("binary", "micro", "macro", "weighted")
_FAMILY_ROWS = [(mod.__name__.rsplit("_", 1)[-1], case)
                for mod in (cases_classification, cases_agreement, cases_probabilistic,
                            cases_ranking, cases_regression)
                for case in mod.CASES]


def _raw_id(case):
    """The row's own id (``collect`` may already have prefixed it)."""
    return case.id.split(":")[-1]


def _dask_kind(md, case):
    """The row's kind (metric, input shapes and dtypes, keywords, weighted, error), or
    None where ``metrix.dask`` cannot take the row."""
    if case.call is not None or case.metric not in md.__all__ or case.compare is not None:
        return None
    params = inspect.signature(getattr(md, case.metric)).parameters
    if set(case.kwargs) - set(params) or len(case.args) != 2:
        return None
    if any(not isinstance(a, np.ndarray) for a in case.args):
        return None
    two_d_ok = case.metric in ("log_loss", "brier_score_loss")
    y, second = case.args
    if y.ndim != 1 or second.ndim > (2 if two_d_ok else 1):
        return None
    if case.kwargs.get("average", "binary") not in _DASK_AVERAGES:
        return None
    if case.kwargs.get("normalize", True) is not True:  # the sum: not offered on Dask
        return None
    keywords = tuple(sorted((k, "array" if isinstance(v, np.ndarray) else repr(v))
                            for k, v in case.kwargs.items() if k != "sample_weight"))
    weighted = "sample_weight" in case.kwargs
    return (case.metric, tuple((a.ndim, a.dtype.kind) for a in case.args), keywords,
            weighted, "error" in _raw_id(case))


def _dask_rows():
    """Uneven partitions: the first row of each kind and data (the family's edge
    cases: one class, ties, a constant target...); one partition: of each kind."""
    if not HAVE_DASK:
        return
    md = importlib.import_module("metrix.dask")
    seen = set()
    for family, case in _FAMILY_ROWS:
        kind = _dask_kind(md, case)
        if kind is None:
            continue
        data = (kind, tuple(id(a) for a in case.args), case.kwargs.get("average"))
        for how, key in (("one", kind), ("uneven", data)):
            if key in seen:
                continue
            seen.add(key)
            _host_row(case.metric, case.reference, case.args, case.kwargs,
                      id=f"dask-{how}:{family}:{_raw_id(case)}",
                      call=on_dask(case.metric, how), rtol=1e-12,
                      host_kwargs=case.host_kwargs, float32_reference=False)


_dask_rows()

# bad input: each must raise the one-shot function's kind of error
rng = np.random.default_rng(20261210)
N = 60
BIN = rng.integers(0, 2, N)
BIN_P = np.where(rng.random(N) < 0.7, BIN, 1 - BIN)
SCORE = np.round(np.clip(0.4 * BIN + 0.6 * rng.random(N), 0.01, 0.99), 2)
MC = rng.integers(0, 3, N)
MC_P = np.where(rng.random(N) < 0.6, MC, rng.integers(0, 3, N))
W = rng.random(N)
W_ZEROS = np.where(rng.random(N) < 0.3, 0.0, W)
W_NEG = W.copy()
W_NEG[4] = -0.5
ZERO_W = np.zeros(N)
Y = rng.normal(size=N) + 2.0
Y_PRED = Y + 0.3 * rng.normal(size=N)
STR = np.array(["neg", "pos"])
C3 = np.array(["ant", "bee", "cat"])


def _with(a, i, v):
    a = a.astype(np.float64)
    a[i] = v
    return a


SCORE_NAN, SCORE_INF = _with(SCORE, 7, np.nan), _with(SCORE, 7, np.inf)
ONE = np.ones(N, np.int64)
BIN_NAN = _with(BIN, 3, np.nan)
EMPTY_I, EMPTY_F = np.zeros(0, np.int64), np.zeros(0)

_BAD = [  # (metric, args, kwargs, id)
    ("roc_auc_score", (BIN, SCORE_NAN), {}, "nan-score"),
    ("average_precision_score", (BIN, SCORE_INF), {}, "inf-score"),
    ("log_loss", (BIN, SCORE_NAN), {}, "nan-proba"),
    ("brier_score_loss", (BIN, SCORE_INF), {}, "inf-proba"),
    ("roc_auc_score", (BIN_NAN, SCORE), {}, "nan-labels"),
    ("accuracy_score", (BIN_NAN, BIN_P), {}, "nan-labels"),
    ("f1_score", (BIN, _with(BIN_P, 2, np.nan)), {}, "nan-pred"),
    ("mean_squared_error", (Y, _with(Y_PRED, 5, np.nan)), {}, "nan-pred"),
    ("r2_score", (_with(Y, 5, np.inf), Y_PRED), {}, "inf-target"),
    ("accuracy_score", (BIN, SCORE), {}, "labels-vs-probabilities"),
    ("f1_score", (SCORE, BIN), {}, "probabilities-vs-labels"),
    ("matthews_corrcoef", (BIN, SCORE), {}, "labels-vs-probabilities"),
    ("average_precision_score", (SCORE, SCORE), {}, "continuous-target"),
    ("average_precision_score", (MC, SCORE), {}, "multiclass-target"),
    ("roc_auc_score", (SCORE, SCORE), {}, "continuous-target"),
    ("log_loss", (SCORE, SCORE), {}, "continuous-target"),
    ("accuracy_score", (BIN, BIN_P), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("f1_score", (MC, MC_P), {"average": "macro", "sample_weight": ZERO_W},
     "all-zero-weights"),
    ("cohen_kappa_score", (MC, MC_P), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("roc_auc_score", (BIN, SCORE), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("average_precision_score", (BIN, SCORE), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("log_loss", (BIN, SCORE), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("brier_score_loss", (BIN, SCORE), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("mean_squared_error", (Y, Y_PRED), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("r2_score", (Y, Y_PRED), {"sample_weight": ZERO_W}, "all-zero-weights"),
    ("max_error", (EMPTY_F, EMPTY_F), {}, "empty"),
    ("accuracy_score", (EMPTY_I, EMPTY_I), {}, "empty"),
    ("roc_auc_score", (EMPTY_I, EMPTY_F), {}, "empty"),
    ("log_loss", (EMPTY_I, EMPTY_F), {}, "empty"),
    ("mean_absolute_error", (EMPTY_F, EMPTY_F), {}, "empty"),
    # values, not errors: negative weights (scikit-learn takes them), string labels
    ("accuracy_score", (MC, MC_P), {"sample_weight": W_NEG}, "negative-weight"),
    ("roc_auc_score", (BIN, SCORE), {"sample_weight": W_NEG}, "negative-weight"),
    ("r2_score", (Y, Y_PRED), {"sample_weight": W_NEG}, "negative-weight"),
    ("f1_score", (STR[BIN], STR[BIN_P]), {"pos_label": "pos", "sample_weight": W_ZEROS},
     "strings"),
    ("cohen_kappa_score", (C3[MC], C3[MC_P]), {"labels": ["bee", "cat", "ant"]}, "strings"),
    ("roc_auc_score", (STR[BIN], SCORE), {}, "strings"),
    ("average_precision_score", (STR[BIN], SCORE), {"pos_label": "neg"}, "strings"),
    ("log_loss", (STR[BIN], SCORE), {}, "strings"),
    ("brier_score_loss", (STR[BIN], SCORE), {}, "strings-no-pos-label-error"),
    ("brier_score_loss", (STR[BIN], SCORE), {"pos_label": "neg"}, "strings"),
    ("f1_score", (STR[BIN], STR[BIN_P]), {}, "strings-pos-label-error"),
    ("accuracy_score", (STR[BIN], BIN_P), {}, "strings-vs-numbers-error"),
]

if HAVE_DASK:
    for _metric, _args, _kw, _id in _BAD:
        for _how in PARTITIONS:
            _host_row(_metric, getattr(skm, _metric), _args, _kw,
                      id=f"dask-{_how}:bad:{_id}", call=on_dask(_metric, _how), rtol=1e-12,
                      float32_reference=False)


# -- evaluate: the dict equals each metric called one by one ------------------------------

def evaluate_strings_reference(y_true, y_pred=None, y_score=None, **kw):
    """``evaluate_reference``, with a 1-D ``y_score`` read as the probability of
    the greatest label by the Brier scores too, as ``evaluate`` documents it
    (scikit-learn's own ``brier_score_loss`` wants ``pos_label`` for strings)."""
    metrics = kw.pop("metrics")
    brier = [m for m in metrics if m in ("brier_score_loss", "d2_brier_score")]
    rest = [m for m in metrics if m not in brier]
    out = evaluate_reference(y_true, y_pred, y_score, metrics=rest, **kw)
    greatest = np.unique(y_true)[-1]
    w = kw.get("sample_weight")
    for m in brier:
        fn = skm.brier_score_loss if m == "brier_score_loss" else skm.d2_brier_score
        out[m] = np.float64(fn(y_true, y_score, pos_label=greatest, sample_weight=w))
    return {m: out[m] for m in metrics}


PROBA = {"float32_reference": False}   # probabilities rounded to float32 stay valid
MIXED = {"check_dtype": False}          # label and score metrics in one dict
BINARY = ["accuracy", "balanced_accuracy", "f1", "precision", "recall", "jaccard",
          "matthews_corrcoef", "cohen_kappa", "f1_macro", "roc_auc", "average_precision",
          "log_loss", "brier_score_loss", "d2_log_loss_score", "d2_brier_score"]
# ``cases_evaluation.py``'s data (its shapes: JAX compiles each shape once per run)
EV_T, EV_P, EV_S, EV_W = ce.BIN_T, ce.BIN_P, ce.BIN_SCORE, ce.W
EV_W0 = np.where(EV_W < 0.3, 0.0, EV_W)
EV_ZERO = np.zeros_like(EV_W)
EV_ONE = np.ones_like(EV_T)
ev = evaluate_reference
add("evaluate", evaluate_strings_reference, (STR[EV_T], STR[EV_P], EV_S),
    {"metrics": BINARY, "pos_label": "pos", "sample_weight": EV_W0}, id="strings-weighted",
    **PROBA, **MIXED)
add("evaluate", ev, (C3[ce.MC_T % 3], C3[ce.MC_P % 3]),
    {"metrics": ["accuracy", "f1_macro", "recall_weighted", "matthews_corrcoef",
                 "cohen_kappa_quadratic", "jaccard_micro"], "sample_weight": EV_W0},
    id="strings-multiclass")
add("evaluate", ev, (EV_T, EV_P, EV_S), {"metrics": BINARY, "sample_weight": EV_W0},
    id="weights-with-zeros", **PROBA, **MIXED)
add("evaluate", ev, (EV_T, EV_P, EV_S), {"metrics": BINARY, "sample_weight": EV_ZERO},
    id="all-zero-weights-error", **PROBA, **MIXED)
add("evaluate", ev, (EV_ONE, EV_ONE, EV_S),
    {"metrics": ["accuracy", "balanced_accuracy", "matthews_corrcoef", "cohen_kappa",
                 "f1", "f1_macro", "log_loss", "brier_score_loss"]},
    id="one-class", **PROBA, **MIXED)
add("evaluate", ev, (EV_ONE, EV_ONE, EV_S), {"metrics": ["roc_auc", "average_precision"]},
    id="one-class-ranking", **PROBA)
for _pos in (2, 1):
    add("evaluate", ev, (EV_T + 1, EV_P + 1, EV_S), {"metrics": BINARY, "pos_label": _pos},
        id=f"labels-1-2-pos-{_pos}", **PROBA, **MIXED)
for _pos in (1, -1):
    add("evaluate", ev, (2 * EV_T - 1, 2 * EV_P - 1, EV_S),
        {"metrics": BINARY, "pos_label": _pos, "sample_weight": EV_W},
        id=f"labels-pm1-pos-{_pos}", **PROBA, **MIXED)
add("evaluate", ev, (EV_T + 1, EV_P + 1, EV_S), {"metrics": ["f1", "average_precision"]},
    id="labels-1-2-default-pos", **PROBA, **MIXED)
add("evaluate", ev, (EV_T[:1], EV_P[:1], EV_S[:1]),
    {"metrics": ["accuracy", "f1", "matthews_corrcoef", "cohen_kappa", "log_loss"]},
    id="one-sample", **PROBA, **MIXED)


# -- metrix.dask.evaluate -----------------------------------------------------------------

def dask_evaluate(how):
    def run(y_true, y_pred=None, y_score=None, **kw):
        md = importlib.import_module("metrix.dask")

        def conv(a):
            return None if a is None else _dask_array(a, how)

        if kw.get("sample_weight") is not None:
            kw["sample_weight"] = conv(kw["sample_weight"])
        return md.evaluate(None, conv(y_true), conv(y_pred), conv(y_score), **kw)

    return run


def dask_evaluate_reference(y_true, y_pred=None, y_score=None, *, metrics, pos_label=None,
                            **kw):
    """``metrix.dask.evaluate``'s defaults: ``pos_label`` is the greatest label (the
    class a 1-D ``y_score`` gives the probability of)."""
    if pos_label is None:
        pos_label = np.unique(y_true if y_pred is None else np.r_[y_true, y_pred])[-1]
    return evaluate_strings_reference(y_true, y_pred, y_score, metrics=metrics,
                                      pos_label=pos_label, **kw)


DASK_BINARY = [m for m in BINARY if not m.startswith("d2_")]
_DASK_EVALUATE = [
    ((STR[BIN], STR[BIN_P], SCORE), {"metrics": DASK_BINARY, "sample_weight": W_ZEROS},
     "strings-weighted"),
    ((C3[MC], C3[MC_P]), {"metrics": ["accuracy", "f1_macro", "recall_weighted",
                                      "matthews_corrcoef", "cohen_kappa_quadratic"]},
     "strings-multiclass"),
    ((BIN, BIN_P, SCORE), {"metrics": DASK_BINARY, "sample_weight": ZERO_W},
     "all-zero-weights-error"),
    ((ONE, ONE, SCORE), {"metrics": ["accuracy", "balanced_accuracy", "matthews_corrcoef",
                                     "cohen_kappa", "f1", "f1_macro"]}, "one-class"),
    ((BIN + 1, BIN_P + 1, SCORE), {"metrics": DASK_BINARY}, "labels-1-2"),
    ((2 * BIN - 1, 2 * BIN_P - 1, SCORE), {"metrics": DASK_BINARY, "sample_weight": W},
     "labels-pm1"),
    ((BIN, BIN_P, SCORE_NAN), {"metrics": ["accuracy", "roc_auc"]}, "nan-score-error"),
]
if HAVE_DASK:
    for _args, _kw, _id in _DASK_EVALUATE:
        for _how in PARTITIONS:
            _host_row("dask.evaluate", dask_evaluate_reference, _args, _kw,
                      id=f"dask-{_how}:{_id}", call=dask_evaluate(_how), rtol=1e-12,
                      float32_reference=False)


# -- metrix eval --json ---------------------------------------------------------------------

def _write(path, columns, fmt):
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table(columns), path)
        return
    names = list(columns)
    n = len(columns[names[0]])
    lines = [",".join(names)]
    for i in range(n):
        lines.append(",".join(repr(float(columns[c][i])) if columns[c].dtype.kind == "f"
                              else str(columns[c][i]) for c in names))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_cli(columns, options, *, fmt, batch_rows=None):
    """``(exit code, JSON document or None, stderr)`` of ``metrix eval`` in process."""
    from metrix.__main__ import main

    folder = tempfile.mkdtemp(prefix="metrix-eval-")
    try:
        data = os.path.join(folder, f"data.{fmt}")
        _write(data, columns, fmt)
        out = os.path.join(folder, "out.json")
        argv = ["eval", data, *options, "--json", out, "--quiet"]
        if batch_rows:
            argv += ["--batch-rows", str(batch_rows)]
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
        doc = None
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)
        return code, doc, err.getvalue()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _columns(y_true, y_pred, y_score, sample_weight):
    cols, opts = {"y": y_true}, ["--y-true", "y"]
    if y_pred is not None:
        cols["p"] = y_pred
        opts += ["--y-pred", "p"]
    if y_score is not None:
        names = ["s"] if y_score.ndim == 1 else [f"s{k}" for k in range(y_score.shape[1])]
        for k, name in enumerate(names):
            cols[name] = y_score if y_score.ndim == 1 else y_score[:, k]
        opts += ["--y-score", ",".join(names)]
    if sample_weight is not None:
        cols["w"] = sample_weight
        opts += ["--sample-weight", "w"]
    return cols, opts


def cli_face(fmt, batch_rows):
    """``metrix eval --json`` of the arrays: ``{metric: value}`` of the computed rows
    (a non-zero exit raises ValueError with the message)."""

    def run(y_true, y_pred=None, y_score=None, sample_weight=None, *, task="auto", extra=()):
        cols, opts = _columns(y_true, y_pred, y_score, sample_weight)
        code, doc, err = run_cli(cols, [*opts, "--task", task, *extra], fmt=fmt,
                                 batch_rows=batch_rows)
        if code != 0:
            raise ValueError(f"metrix eval exited {code}: {err.strip()}")
        return {k: np.nan if v["value"] is None else v["value"]
                for k, v in doc["metrics"].items() if v["status"] == "ok"}

    return run


def _sk_quiet(fn, *args, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(fn(*args, **kw))


def cli_reference(batched):
    """scikit-learn's values of the report's rows, whole or batched."""

    def ref(y_true, y_pred=None, y_score=None, sample_weight=None, *, task="auto", extra=()):
        w = {"sample_weight": sample_weight}
        sk = _sk_quiet
        out = {}
        if task == "binary":
            pos = np.unique(np.r_[y_true, y_pred] if y_pred is not None else y_true)[-1]
            if "--pos-label" in extra:
                pos = type(pos)(extra[list(extra).index("--pos-label") + 1])
            if y_pred is not None:
                out.update(accuracy=sk(skm.accuracy_score, y_true, y_pred, **w),
                           balanced_accuracy=sk(skm.balanced_accuracy_score, y_true, y_pred,
                                                **w),
                           precision=sk(skm.precision_score, y_true, y_pred, pos_label=pos,
                                        **w),
                           recall=sk(skm.recall_score, y_true, y_pred, pos_label=pos, **w),
                           f1=sk(skm.f1_score, y_true, y_pred, pos_label=pos, **w),
                           mcc=sk(skm.matthews_corrcoef, y_true, y_pred, **w))
            if y_score is not None:
                y_pos = (y_true == pos).astype(int)
                out.update(roc_auc=sk(skm.roc_auc_score, y_pos, y_score, **w),
                           average_precision=sk(skm.average_precision_score, y_pos, y_score,
                                                **w),
                           log_loss=sk(skm.log_loss, y_pos, y_score, labels=[0, 1], **w),
                           brier=sk(skm.brier_score_loss, y_pos, y_score, pos_label=1, **w),
                           calibration_error=torch_binned_calibration_error(y_pos, y_score,
                                                                            **w))
        elif task == "multiclass":
            labels = np.unique(np.r_[y_true, y_pred]).tolist()
            out.update(accuracy=sk(skm.accuracy_score, y_true, y_pred, **w),
                       balanced_accuracy=sk(skm.balanced_accuracy_score, y_true, y_pred, **w))
            for avg in ("macro", "weighted"):
                for name, fn in (("precision", skm.precision_score),
                                 ("recall", skm.recall_score), ("f1", skm.f1_score)):
                    out[f"{name}_{avg}"] = sk(fn, y_true, y_pred, average=avg, **w)
            out.update(mcc=sk(skm.matthews_corrcoef, y_true, y_pred, **w),
                       cohen_kappa=sk(skm.cohen_kappa_score, y_true, y_pred, **w))
            if y_score is not None:
                out.update(roc_auc_ovr=sk(skm.roc_auc_score, y_true, y_score,
                                          multi_class="ovr", labels=labels, **w),
                           log_loss=sk(skm.log_loss, y_true, y_score, labels=labels, **w),
                           top_2_accuracy=sk(skm.top_k_accuracy_score, y_true, y_score, k=2,
                                             labels=labels, **w))
        else:
            out.update(mae=sk(skm.mean_absolute_error, y_true, y_pred, **w),
                       mse=sk(skm.mean_squared_error, y_true, y_pred, **w),
                       rmse=sk(skm.root_mean_squared_error, y_true, y_pred, **w),
                       r2=sk(skm.r2_score, y_true, y_pred, **w),
                       explained_variance=sk(skm.explained_variance_score, y_true, y_pred,
                                             **w))
            out.update(median_ae=sk(skm.median_absolute_error, y_true, y_pred, **w),
                       mape=sk(skm.mean_absolute_percentage_error, y_true, y_pred, **w))
            if sample_weight is None:  # it takes no weights: skipped with them
                out["max_error"] = sk(skm.max_error, y_true, y_pred)
        return out

    return ref


MC_PROBA = rng.dirichlet(np.ones(3), N)
#: CLI modes: (format, --batch-rows); batches of 7 rows split the 60 unevenly
CLI_MODES = [("csv", None), ("csv", 7)] + ([("parquet", None), ("parquet", 7)]
                                            if HAVE_PYARROW else [])
_CLI_ROWS = [
    ((BIN, BIN_P, SCORE), {"task": "binary"}, "binary"),
    ((BIN, BIN_P, SCORE, W_ZEROS), {"task": "binary"}, "binary-weighted"),
    ((BIN + 1, BIN_P + 1, SCORE), {"task": "binary", "extra": ("--pos-label", "1")},
     "binary-1-2-pos-label-1"),
    ((2 * BIN - 1, None, SCORE), {"task": "binary"}, "binary-pm1-scores"),
    ((ONE, ONE, SCORE), {"task": "binary"}, "binary-one-class"),
    ((MC, MC_P, MC_PROBA), {"task": "multiclass"}, "multiclass"),
    ((MC, MC_P, MC_PROBA, W), {"task": "multiclass"}, "multiclass-weighted"),
    ((Y, Y_PRED), {"task": "regression"}, "regression"),
    ((Y, Y_PRED, None, W_ZEROS), {"task": "regression"}, "regression-weighted"),
]
for _fmt, _rows in CLI_MODES:
    if _fmt == "parquet" and not HAVE_PYARROW:
        continue
    if _rows and not HAVE_PYARROW:  # --batch-rows reads with pyarrow
        continue
    _mode = f"{_fmt}-{'batched' if _rows else 'whole'}"
    for _args, _kw, _id in _CLI_ROWS:
        _host_row("metrix eval", cli_reference(bool(_rows)), _args, _kw,
                  id=f"cli-{_mode}:{_id}", call=cli_face(_fmt, _rows), rtol=1e-10,
                  atol=1e-12, host_kwargs=("task", "extra"), float32_reference=False)


# bad values: one exit code, whole or batched (the CLI's EXIT_CODES)
def cli_exit_codes(fmt):
    """``{"whole": code, "batched": code}`` of ``metrix eval`` on the columns."""

    def run(columns, options):
        codes = {}
        for mode, rows in (("whole", None), ("batched", 2)):
            codes[mode] = run_cli(columns, options, fmt=fmt, batch_rows=rows)[0]
        return codes

    return run


def expected_codes(code):
    return lambda columns, options: {"whole": code, "batched": code}


_S = ["--y-true", "y", "--y-score", "s"]
_P = ["--y-true", "y", "--y-pred", "p"]
_LOGITS = np.array([2.5, -1.2, 0.3, 0.8, -0.4, 1.7])
_Y6 = np.array([1, 0, 1, 0, 0, 1])
_CLI_BAD = [  # (columns, options, exit code, id)
    ({"y": _Y6, "s": _LOGITS}, _S, 1, "logits-as-scores"),
    ({"y": _Y6, "s": _LOGITS, "p": (_LOGITS > 0).astype(int)}, [*_S, "--y-pred", "p"], 1,
     "logits-as-scores-with-labels"),
    ({"y": _Y6, "s": _LOGITS / 3 + 0.5}, _S, 1, "probabilities-above-one"),
    ({"y": _Y6, "s": _with(_LOGITS, 2, np.nan)}, _S, 6, "nan-score"),
    ({"y": _with(_Y6, 2, np.nan), "s": _LOGITS}, _S, 6, "nan-label"),
    ({"y": _Y6, "s": _with(_LOGITS, 2, np.inf)}, _S, 6, "inf-score"),
    ({"y": _Y6, "s": np.full(6, 0.5), "w": np.zeros(6)}, [*_S, "--sample-weight", "w"], 6,
     "all-zero-weights"),
    ({"y": _Y6 + 0.5, "s": _LOGITS}, _S, 2, "continuous-target-no-pred"),
    ({"y": np.array([1, 2, 0, 1, 0, 2]), "s": np.full(6, 0.5)}, _S, 6,
     "three-classes-one-score-column"),
    ({"y": np.ones(6, np.int64), "s": np.full(6, 0.5)}, _S, 0, "one-class"),
    ({"y": np.ones(6, np.int64), "p": np.ones(6, np.int64)}, _P, 0, "one-class-labels"),
    ({"y": np.array(["a", "b", "a", "b", "a", "b"]), "p": _Y6}, _P, 6, "text-vs-numbers"),
]
if HAVE_PYARROW:
    for _cols, _opts, _code, _id in _CLI_BAD:
        _host_row("metrix eval", expected_codes(_code), (_cols, _opts), id=f"cli-exit:{_id}",
                  call=cli_exit_codes("csv"))
