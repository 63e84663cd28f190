"""metrix.dask on a two-process LocalCluster: Parquet partitions equal scikit-learn on the
concatenated frame (uneven, empty and one-class partitions, absent classes, ties, zero
weights), for any merge tree, partition order, and a worker killed mid-run."""

from __future__ import annotations

import logging
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytestmark = pytest.mark.distributed

dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
skm = pytest.importorskip("sklearn.metrics")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import metrix.dask as md  # noqa: E402
from metrix.dask._evaluate import evaluate_state  # noqa: E402

TOL = 1e-12
SIZES = [300, 0, 120, 800, 57, 410, 5, 233]  # file 1 empty; file 2: one class only
CLASSES = [0, 1, 2, 4]
MULTI = ["accuracy", "balanced_accuracy", "matthews_corrcoef", "cohen_kappa", "hamming_loss",
         "zero_one_loss", "precision_macro", "recall_weighted", "f1_macro", "f1_micro",
         "jaccard_weighted", "log_loss", "brier_score_loss", "roc_auc_ovr",
         "roc_auc_ovr_weighted", "top_2_accuracy"]
BINARY = ["f1", "precision", "recall", "accuracy", "roc_auc", "average_precision",
          "brier_score_loss", "log_loss"]
REGRESSION = ["mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
              "r2_score", "explained_variance_score", "mean_absolute_percentage_error",
              "max_error", "median_absolute_error"]
PROBA_COLS = [f"p{c}" for c in CLASSES]


def _frame(rng, n, part):
    y = rng.choice(CLASSES, size=n, p=[0.4, 0.3, 0.2, 0.1])
    if part in (5, 6, 7):
        y = np.where(y == 4, 2, y)  # class 4 absent from the last partitions
    if part == 2:
        y = np.ones(n, dtype=y.dtype)  # one class only
    pred = np.where(rng.random(n) < 0.6, y, rng.choice(CLASSES, size=n))
    logits = rng.normal(size=(n, len(CLASSES))).round(1)
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    s = (rng.integers(0, 25, size=n) / 25.0)  # ties
    yb = (rng.random(n) < 0.25 + 0.5 * s).astype(np.int64)
    if part == 2:
        yb = np.zeros(n, dtype=np.int64)
    t = 50.0 + rng.normal(size=n).round(2)
    frame = {"y": y.astype(np.int64), "pred": pred.astype(np.int64), "yb": yb, "s": s,
             "predb": (s > 0.5).astype(np.int64), "w": rng.integers(0, 4, size=n) * 0.5,
             "t": t, "tp": t + rng.normal(scale=0.7, size=n)}
    frame.update({c: proba[:, i] for i, c in enumerate(PROBA_COLS)})
    return pd.DataFrame(frame)


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    rng = np.random.default_rng(7)
    root = tmp_path_factory.mktemp("parts")
    files, frames = [], []
    for i, n in enumerate(SIZES):
        frame = _frame(rng, n, i)
        path = root / f"part-{i}.parquet"
        frame.to_parquet(path, index=False)
        files.append(str(path))
        frames.append(frame)
    return files, pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _sk(name, df, *, binary=False):
    """scikit-learn's value on the concatenated frame."""
    w = df["w"].to_numpy()
    yt, yp = (df["yb"], df["predb"]) if binary else (df["y"], df["pred"])
    base, _, avg = name.partition("_")
    if name in REGRESSION:
        kw = {} if name == "max_error" else {"sample_weight": w}
        return getattr(skm, name)(df["t"], df["tp"], **kw)
    if name == "log_loss":
        return skm.log_loss(yt, df["s"] if binary else df[PROBA_COLS], sample_weight=w)
    if name == "brier_score_loss":
        return skm.brier_score_loss(yt, df["s"] if binary else df[PROBA_COLS], sample_weight=w)
    if name == "roc_auc":
        return skm.roc_auc_score(yt, df["s"], sample_weight=w)
    if name.startswith("roc_auc_ovr"):
        return skm.roc_auc_score(yt, df[PROBA_COLS], multi_class="ovr", sample_weight=w,
                                 average="weighted" if name.endswith("weighted") else "macro")
    if name == "top_2_accuracy":
        return skm.top_k_accuracy_score(yt, df[PROBA_COLS], k=2, labels=CLASSES,
                                        sample_weight=w)
    if name == "average_precision":
        return skm.average_precision_score(yt, df["s"], sample_weight=w)
    simple = {"accuracy": skm.accuracy_score, "balanced_accuracy": skm.balanced_accuracy_score,
              "matthews_corrcoef": skm.matthews_corrcoef, "cohen_kappa": skm.cohen_kappa_score,
              "hamming_loss": skm.hamming_loss, "zero_one_loss": skm.zero_one_loss}
    if name in simple:
        return simple[name](yt, yp, sample_weight=w)
    fn = {"precision": skm.precision_score, "recall": skm.recall_score, "f1": skm.f1_score,
          "jaccard": skm.jaccard_score}[base]
    return fn(yt, yp, average=avg or "binary", sample_weight=w, zero_division=0)


def _check(got, df, names, *, binary=False):
    for name in names:
        want = _sk(name, df, binary=binary)
        assert got[name] == pytest.approx(want, abs=TOL, rel=TOL), name
        assert type(got[name]) is float


def _all(files, **kw):
    frame = dd.read_parquet(files)
    multi = md.evaluate(frame, y_true="y", y_pred="pred", y_score=PROBA_COLS, sample_weight="w",
                        metrics=MULTI, **kw)
    binary = md.evaluate(frame, y_true="yb", y_pred="predb", y_score="s", sample_weight="w",
                         metrics=BINARY, **kw)
    reg = md.evaluate(frame, y_true="t", y_pred="tp", sample_weight="w", metrics=REGRESSION,
                      **kw)
    return multi, binary, reg


def test_partitions_are_the_files(client, parquet):
    files, df = parquet
    frame = dd.read_parquet(files)
    assert frame.npartitions == len(SIZES)
    assert frame.map_partitions(len).compute().tolist() == SIZES


def test_evaluate_equals_sklearn_on_the_concatenated_frame(client, parquet):
    files, df = parquet
    multi, binary, reg = _all(files)
    _check(multi, df, MULTI)
    _check(binary, df, BINARY, binary=True)
    _check(reg, df, REGRESSION)


def test_same_values_for_any_tree_and_partition_order(client, parquet):
    files, df = parquet
    base = _all(files)
    order = np.random.default_rng(3).permutation(len(files))
    for got in (_all(files, split_every=2), _all([files[i] for i in order], split_every=3)):
        for a, b in zip(base, got):
            assert a.keys() == b.keys()
            for k in a:
                assert b[k] == pytest.approx(a[k], abs=TOL, rel=TOL), k


def test_single_metrics_on_series_and_arrays(client, parquet):
    files, df = parquet
    frame = dd.read_parquet(files)
    w = frame["w"]
    assert md.f1_score(frame["y"], frame["pred"], average="macro", sample_weight=w) == \
        pytest.approx(_sk("f1_macro", df), abs=TOL)
    assert md.precision_score(frame["yb"], frame["predb"], sample_weight=w) == \
        pytest.approx(_sk("precision", df, binary=True), abs=TOL)
    assert md.roc_auc_score(frame["yb"], frame["s"], sample_weight=w) == \
        pytest.approx(_sk("roc_auc", df, binary=True), abs=TOL)
    assert md.r2_score(frame["t"], frame["tp"], sample_weight=w) == \
        pytest.approx(_sk("r2_score", df), abs=TOL)
    # Dask arrays with chunks that differ between the inputs (rechunked to y_true's)
    yt = da.from_array(df["y"].to_numpy(), chunks=311)
    yp = da.from_array(df["pred"].to_numpy(), chunks=500)
    proba = da.from_array(df[PROBA_COLS].to_numpy(), chunks=(200, 2))
    wa = da.from_array(df["w"].to_numpy(), chunks=700)
    assert md.matthews_corrcoef(yt, yp, sample_weight=wa) == pytest.approx(
        _sk("matthews_corrcoef", df), abs=TOL)
    assert md.log_loss(yt, proba, sample_weight=wa) == pytest.approx(_sk("log_loss", df),
                                                                     abs=TOL)
    assert md.cohen_kappa_score(yt, yp, weights="quadratic") == pytest.approx(
        skm.cohen_kappa_score(df["y"], df["pred"], weights="quadratic"), abs=TOL)
    assert md.accuracy_score(yt, yp) == pytest.approx(skm.accuracy_score(df["y"], df["pred"]))


def test_groupby_table_equals_the_tree(client, parquet):
    files, df = parquet
    frame = dd.read_parquet(files)
    got = md.evaluate(frame, y_true="yb", y_pred="predb", y_score="s", sample_weight="w",
                      metrics=BINARY, table="groupby", split_out=3)
    _check(got, df, BINARY, binary=True)
    assert md.average_precision_score(frame["yb"], frame["s"], table="groupby") == \
        pytest.approx(skm.average_precision_score(df["yb"], df["s"]), abs=TOL)


def test_binned_auc_within_its_bound(client, parquet):
    files, df = parquet
    frame = dd.read_parquet(files)
    got = md.evaluate(frame, y_true="yb", y_score="s", sample_weight="w",
                      metrics=["roc_auc", "average_precision"], method="binned", bins=7)
    for m in ("roc_auc", "average_precision"):
        err = abs(got[m] - _sk(m, df, binary=True))
        assert 0 < err <= got[f"{m}_error_bound"] + 1e-12, m


def test_a_worker_killed_mid_run_changes_nothing(client, parquet):
    files, df = parquet
    # every partition takes 0.6 s, so the run lasts a few seconds on two workers
    frame = dd.read_parquet(files).map_partitions(lambda part: (time.sleep(0.6), part)[1])
    pids = list(client.run(os.getpid).values())
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(evaluate_state, frame, "y", "pred", PROBA_COLS, "w",
                             metrics=MULTI, labels=CLASSES, pos_label=None, method="exact",
                             bins=None, split_every=2, zero_division="warn")
        time.sleep(1.0)
        running = not future.done()
        os.kill(pids[0], signal.SIGKILL)
        pe, state = future.result(timeout=120)
    assert running, "the run ended before the worker was killed"
    assert int(state["n"]) == len(df)  # every row counted once
    assert state["cm"].sum() == pytest.approx(df["w"].sum(), abs=1e-9)
    _check(pe.finalize(state), df, MULTI)
    client.wait_for_workers(2, timeout=60)
    assert pids[0] not in client.run(os.getpid).values()


def test_progress_from_python_is_distributeds_bar(client, parquet, capsys):
    files, df = parquet
    got = md.evaluate(dd.read_parquet(files), y_true="yb", y_score="s", metrics=["roc_auc"],
                      progress=True)
    assert "Completed" in capsys.readouterr().out  # distributed's text bar
    assert got["roc_auc"] == pytest.approx(skm.roc_auc_score(df["yb"], df["s"]), rel=TOL)


@pytest.mark.parametrize("k", [None, 3])
def test_query_metrics_with_queries_spread_over_partitions(client, k):
    import metrix

    rng = np.random.default_rng(5)
    n = 1500
    frame = pd.DataFrame({"q": rng.integers(0, 60, n), "y": rng.integers(0, 2, n),
                          "g": rng.integers(0, 4, n).astype(float),
                          "s": np.round(rng.random(n), 1)})  # ties: ranked by row order
    parts = dd.from_pandas(frame, npartitions=7)
    for name in ("precision_at_k", "recall_at_k", "hit_rate_at_k", "mrr", "map_at_k",
                 "ndcg_at_k"):
        col = "g" if name == "ndcg_at_k" else "y"
        want = float(getattr(metrix, name)(frame[col].to_numpy(), frame["s"].to_numpy(),
                                           query_ids=frame["q"].to_numpy(), k=k))
        got = getattr(md, name)(parts[col], parts["s"], query_ids=parts["q"], k=k,
                                split_every=2)
        assert got == pytest.approx(want, abs=TOL), name
        arrays = [da.from_array(frame[c].to_numpy(), chunks=211) for c in (col, "s", "q")]
        got = getattr(md, name)(arrays[0], arrays[1], query_ids=arrays[2], k=k)
        assert got == pytest.approx(want, abs=TOL), name
