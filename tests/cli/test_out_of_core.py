"""``metrix eval`` on a directory or glob of files, batch by batch, and with --dask:
every value equals scikit-learn on the concatenated data."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

sklearn_metrics = pytest.importorskip("sklearn.metrics")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from metrix.__main__ import main  # noqa: E402

skm = sklearn_metrics
SIZES = [300, 0, 120, 800, 57, 410, 5, 233]   # an empty file, a 5-row one


def _frames(task, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i, n in enumerate(SIZES):
        if task == "binary":
            y = rng.integers(0, 2, n)
            if i == 2:
                y[:] = 1                          # one class only in this file
            s = np.round(np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1), 2)  # ties
            cols = {"y": y, "p": (s > 0.5).astype(np.int64), "s": s}
        elif task == "multiclass":
            y = rng.integers(0, 4 if i < 5 else 3, n)  # class 3 absent from later files
            cols = {"y": y, "p": np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))}
            prob = np.round(rng.dirichlet([1.0] * 4, n) + 0.4 * np.eye(4)[y], 1)  # ties
            prob /= prob.sum(axis=1, keepdims=True)
            cols.update({f"s{k}": prob[:, k] for k in range(4)})
        else:
            y = rng.normal(100.0, 5.0, n)
            cols = {"y": y, "p": y + rng.normal(0, 1, n)}
        cols["w"] = np.where(rng.random(n) < 0.2, 0.0, rng.random(n))
        out.append(cols)
    return out


def _write(tmp_path, frames, fmt="parquet"):
    d = tmp_path / f"data_{fmt}"
    d.mkdir()
    for i, cols in enumerate(frames):
        path = d / f"part{i}.{fmt}"
        if fmt == "parquet":
            pq.write_table(pa.table(cols), path)
        else:
            keys = list(cols)
            lines = [",".join(keys)] + [",".join(repr(float(cols[k][j])) if cols[k].dtype.kind
                                                 == "f" else str(cols[k][j]) for k in keys)
                                        for j in range(len(cols[keys[0]]))]
            path.write_text("\n".join(lines) + "\n")
    return d


def _cat(frames, key):
    return np.concatenate([f[key] for f in frames])


def _eval(argv, tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main(["eval", *argv, "--quiet", "--json", str(out)])
    captured = capsys.readouterr()
    doc = json.loads(out.read_text()) if out.exists() else None
    return code, doc, captured


def _value(doc, key):
    return doc["metrics"][key]["value"]


def test_binary_directory_equals_sklearn(tmp_path, capsys):
    frames = _frames("binary")
    d = _write(tmp_path, frames)
    code, doc, _ = _eval([str(d), "--y-true", "y", "--y-pred", "p", "--y-score", "s",
                          "--sample-weight", "w", "--batch-rows", "100"], tmp_path, capsys)
    assert code == 0
    y, p, s, w = (_cat(frames, k) for k in "ypsw")
    assert doc["n_samples"] == len(y) and doc["files"] == len(SIZES)
    assert doc["mode"] == "batched" and doc["peak_rss_mb"] > 0
    want = {"accuracy": skm.accuracy_score(y, p, sample_weight=w),
            "balanced_accuracy": skm.balanced_accuracy_score(y, p, sample_weight=w),
            "precision": skm.precision_score(y, p, sample_weight=w),
            "recall": skm.recall_score(y, p, sample_weight=w),
            "f1": skm.f1_score(y, p, sample_weight=w),
            "mcc": skm.matthews_corrcoef(y, p, sample_weight=w),
            "roc_auc": skm.roc_auc_score(y, s, sample_weight=w),
            "average_precision": skm.average_precision_score(y, s, sample_weight=w),
            "log_loss": skm.log_loss(y, s, sample_weight=w),
            "brier": skm.brier_score_loss(y, s, sample_weight=w)}
    for key, value in want.items():
        assert _value(doc, key) == pytest.approx(value, rel=1e-12, abs=1e-14), key


def test_single_file_in_batches_equals_in_memory(tmp_path, capsys):
    frames = _frames("binary", seed=1)
    merged = {k: _cat(frames, k) for k in frames[0]}
    path = tmp_path / "all.parquet"
    pq.write_table(pa.table(merged), path)
    args = [str(path), "--y-true", "y", "--y-pred", "p", "--y-score", "s"]
    code, whole, _ = _eval(args, tmp_path, capsys)
    code2, batched, _ = _eval(args + ["--batch-rows", "64"], tmp_path, capsys)
    assert code == code2 == 0 and batched["mode"] == "batched"
    for key in whole["metrics"]:
        assert _value(batched, key) == pytest.approx(_value(whole, key), rel=1e-12), key


def test_multiclass_glob_of_csv_and_skipped_rows(tmp_path, capsys):
    frames = _frames("multiclass")
    d = _write(tmp_path, frames, fmt="csv")
    code, doc, captured = _eval([str(d / "*.csv"), "--y-true", "y", "--y-pred", "p"],
                                tmp_path, capsys)
    assert code == 0, captured.err
    y, p = _cat(frames, "y"), _cat(frames, "p")
    assert doc["task"] == "multiclass" and doc["labels"] == [0, 1, 2, 3]
    for key in ("f1_macro", "precision_weighted", "recall_macro"):
        metric, avg = key.rsplit("_", 1)
        fn = getattr(skm, f"{metric}_score")
        assert _value(doc, key) == pytest.approx(fn(y, p, average=avg), rel=1e-12)
    assert _value(doc, "cohen_kappa") == pytest.approx(skm.cohen_kappa_score(y, p), rel=1e-12)


def test_regression_directory(tmp_path, capsys):
    frames = _frames("regression")
    d = _write(tmp_path, frames)
    code, doc, _ = _eval([str(d), "--y-true", "y", "--y-pred", "p", "--sample-weight", "w",
                          "--batch-rows", "50"], tmp_path, capsys)
    assert code == 0
    y, p, w = (_cat(frames, k) for k in "ypw")
    assert _value(doc, "r2") == pytest.approx(skm.r2_score(y, p, sample_weight=w), rel=1e-11)
    assert _value(doc, "mae") == pytest.approx(
        skm.mean_absolute_error(y, p, sample_weight=w), rel=1e-12)
    # the median from the exact table of distinct errors
    assert _value(doc, "median_ae") == pytest.approx(
        skm.median_absolute_error(y, p, sample_weight=w), rel=1e-12)
    # max error takes no weights: skipped with --sample-weight, as when read whole
    assert doc["skipped"] == ["max_error"]
    code, doc, _ = _eval([str(d), "--y-true", "y", "--y-pred", "p", "--bootstrap", "20"],
                         tmp_path, capsys)
    assert code == 0
    assert _value(doc, "median_ae") == pytest.approx(skm.median_absolute_error(y, p),
                                                     rel=1e-12)
    assert "low" not in doc["metrics"]["median_ae"]  # a table per resample: no interval
    assert doc["metrics"]["mae"]["low"] < _value(doc, "mae") < doc["metrics"]["mae"]["high"]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_multiclass_scores_directory_equals_sklearn(tmp_path, capsys, weighted):
    # one-vs-rest AUC (a table per class), top-2 accuracy and log loss over batches
    # of files where class 3 is absent from the later ones
    frames = _frames("multiclass", seed=3)
    d = _write(tmp_path, frames)
    cols = ["--y-score", "s0", "--y-score", "s1", "--y-score", "s2", "--y-score", "s3"]
    sw = ["--sample-weight", "w"] if weighted else []
    code, doc, captured = _eval([str(d), "--y-true", "y", "--y-pred", "p", *cols, *sw,
                                 "--batch-rows", "64"], tmp_path, capsys)
    assert code == 0, captured.err
    y = _cat(frames, "y")
    s = np.stack([_cat(frames, f"s{k}") for k in range(4)], axis=1)
    w = _cat(frames, "w") if weighted else None
    assert doc["skipped"] == []
    assert _value(doc, "roc_auc_ovr") == pytest.approx(
        skm.roc_auc_score(y, s, multi_class="ovr", sample_weight=w), rel=1e-12)
    assert _value(doc, "top_2_accuracy") == pytest.approx(
        skm.top_k_accuracy_score(y, s, k=2, sample_weight=w), rel=1e-12)
    assert _value(doc, "log_loss") == pytest.approx(skm.log_loss(y, s, sample_weight=w),
                                                    rel=1e-12)
    code, binned, _ = _eval([str(d), "--y-true", "y", *cols, *sw, "--bins", "7"],
                            tmp_path, capsys)
    row = binned["metrics"]["roc_auc_ovr"]
    assert code == 0 and row["error_bound"] > 0
    assert abs(row["value"] - _value(doc, "roc_auc_ovr")) <= row["error_bound"] + 1e-12


def test_bins_give_the_error_bound(tmp_path, capsys):
    frames = _frames("binary", seed=2)
    d = _write(tmp_path, frames)
    code, doc, _ = _eval([str(d), "--y-true", "y", "--y-score", "s", "--bins", "20"],
                         tmp_path, capsys)
    assert code == 0
    y, s = _cat(frames, "y"), _cat(frames, "s")
    exact = skm.roc_auc_score(y, s)
    row = doc["metrics"]["roc_auc"]
    assert row["error_bound"] > 0
    assert abs(row["value"] - exact) <= row["error_bound"] + 1e-12


def test_poisson_bootstrap_streams_with_the_batches(tmp_path, capsys):
    frames = _frames("binary", seed=7)
    d = _write(tmp_path, frames)
    args = [str(d), "--y-true", "y", "--y-pred", "p", "--y-score", "s", "--sample-weight", "w",
            "--bootstrap", "300", "--seed", "3"]
    code, small, _ = _eval(args + ["--batch-rows", "50"], tmp_path, capsys)
    code2, large, _ = _eval(args + ["--batch-rows", "700"], tmp_path, capsys)
    assert code == code2 == 0 and small["bootstrap"]["resampling"] == "poisson"
    # the counts are keyed by the global row: any batching gives the same intervals
    for key, row in small["metrics"].items():
        for bound in ("low", "high", "standard_error"):
            assert row[bound] == pytest.approx(large["metrics"][key][bound], rel=1e-9), key
        assert row["low"] <= row["value"] <= row["high"], key
    # and they agree with the in-memory multinomial bootstrap of the joined file
    merged = {k: _cat(frames, k) for k in frames[0]}
    path = tmp_path / "all.parquet"
    pq.write_table(pa.table(merged), path)
    code, whole, _ = _eval([str(path), *args[1:]], tmp_path, capsys)
    assert code == 0
    for key in ("accuracy", "f1", "mcc", "log_loss", "roc_auc"):
        se_w = whole["metrics"][key]["standard_error"]
        se_s = small["metrics"][key]["standard_error"]
        assert 0.7 < se_s / se_w < 1.4, key


def test_the_exact_table_over_memory_says_what_to_do(tmp_path, capsys):
    rng = np.random.default_rng(3)
    d = tmp_path / "many"
    d.mkdir()
    for i in range(3):
        n = 30000
        pq.write_table(pa.table({"y": rng.integers(0, 2, n), "s": rng.random(n)}),
                       d / f"f{i}.parquet")
    code, doc, captured = _eval([str(d), "--y-true", "y", "--y-score", "s", "--memory", "1"],
                                tmp_path, capsys)
    assert code == 1 and "--bins" in captured.err and "--dask" in captured.err


@pytest.mark.parametrize("extra, message", [
    (["--bootstrap", "20", "--ci-method", "bca"], "bca"),
    (["--plots", "plots"], "--plots"),
    (["--backend", "torch"], "--backend numpy"),
])
def test_in_memory_options_are_refused_clearly(tmp_path, capsys, extra, message):
    d = _write(tmp_path, _frames("binary"))
    if "--plots" in extra:
        pytest.importorskip("matplotlib")
        extra = ["--plots", str(tmp_path / "plots")]
    code, _, captured = _eval([str(d), "--y-true", "y", "--y-pred", "p", *extra],
                              tmp_path, capsys)
    assert code == 2 and message in captured.err


def test_sources_without_files_or_with_mixed_formats(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, captured = _eval([str(empty), "--y-true", "y"], tmp_path, capsys)
    assert code == 4 and "no data files" in captured.err
    mixed = _write(tmp_path, _frames("binary"))
    (mixed / "extra.csv").write_text("y,p\n1,0\n")
    code, _, captured = _eval([str(mixed), "--y-true", "y", "--y-pred", "p"], tmp_path, capsys)
    assert code == 4 and "mixes CSV and Parquet" in captured.err


def test_missing_values_in_a_later_file(tmp_path, capsys):
    frames = _frames("binary")
    frames[5]["s"] = frames[5]["s"].copy()
    frames[5]["s"][3] = np.nan
    d = _write(tmp_path, frames)
    code, _, captured = _eval([str(d), "--y-true", "y", "--y-score", "s"], tmp_path, capsys)
    assert code == 6 and "part5" in captured.err and "1 missing value" in captured.err


_CAPPED = textwrap.dedent("""
    import resource, sys
    import numpy, pyarrow, pyarrow.parquet, metrix, metrix.cli, metrix.evaluation.partial

    def vm():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize"):
                return int(line.split()[1]) * 1024

    cap = vm() + int(sys.argv[1]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    from metrix.__main__ import main
    sys.exit(main(sys.argv[2:]))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and RLIMIT_AS")
def test_a_dataset_larger_than_the_memory_cap(tmp_path):
    # 4 files of 2.5e6 rows: 240 MB of columns, scored under a cap of 200 MB more
    # address space than the interpreter had after its imports (the allocators
    # reserve address space beyond what they use: the cap is on that)
    rng = np.random.default_rng(4)
    d = tmp_path / "big"
    d.mkdir()
    for i in range(4):
        n = 2_500_000
        s = np.round(rng.random(n), 3)
        pq.write_table(pa.table({"y": rng.integers(0, 2, n), "p": (s > 0.5).astype(np.int64),
                                 "s": s}), d / f"f{i}.parquet", row_group_size=100_000)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    r = subprocess.run([sys.executable, "-c", _CAPPED, "200", "eval", str(d), "--y-true", "y",
                        "--y-pred", "p", "--y-score", "s", "--quiet", "--batch-rows", "100000"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "10,000,000 rows" in r.stdout and "roc_auc" in r.stdout


@pytest.mark.distributed
@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="dask.distributed is not installed")
def test_dask_local_equals_batched(tmp_path, capsys):
    frames = _frames("binary", seed=5)
    d = _write(tmp_path, frames)
    args = [str(d), "--y-true", "y", "--y-pred", "p", "--y-score", "s", "--sample-weight", "w"]
    code, batched, _ = _eval(args, tmp_path, capsys)
    code2, dask_doc, captured = _eval(args + ["--dask", "local", "--dask-workers", "1"],
                                      tmp_path, capsys)
    assert code == code2 == 0, captured.err
    assert dask_doc["mode"] == "dask" and dask_doc["n_samples"] == batched["n_samples"]
    for key in batched["metrics"]:
        assert _value(dask_doc, key) == pytest.approx(_value(batched, key), rel=1e-12), key
    # the Poisson bootstrap: the same intervals from the batches and the partitions
    boot = ["--bootstrap", "50", "--seed", "1"]
    code, batched_b, _ = _eval(args + boot + ["--batch-rows", "97"], tmp_path, capsys)
    code2, dask_b, captured = _eval(args + boot + ["--dask", "local", "--dask-workers", "1"],
                                    tmp_path, capsys)
    assert code == code2 == 0, captured.err
    for key, row in batched_b["metrics"].items():
        for bound in ("low", "high", "standard_error"):
            assert dask_b["metrics"][key][bound] == pytest.approx(row[bound], rel=1e-9), key



@pytest.mark.distributed
@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="dask.distributed is not installed")
def test_dask_shows_its_own_progress_on_a_terminal(tmp_path, capsys, monkeypatch):
    d = _write(tmp_path, _frames("binary", seed=6))
    out = tmp_path / "out.json"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    code = main(["eval", str(d), "--y-true", "y", "--y-score", "s", "--dask", "local",
                 "--dask-workers", "1", "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Completed" in captured.err and "Completed" not in captured.out  # distributed's bar
    y, s = (np.concatenate([f[k] for f in _frames("binary", seed=6)]) for k in "ys")
    assert json.loads(out.read_text())["metrics"]["roc_auc"]["value"] == pytest.approx(
        skm.roc_auc_score(y, s), rel=1e-12)


@pytest.mark.parametrize("task", ["multilabel", "ranking"])
def test_multilabel_and_ranking_directories_equal_one_file(tmp_path, capsys, task):
    # targets of several columns, batch by batch (per-label counts and per-sample
    # means): the report of the same rows read in memory from one file
    rng = np.random.default_rng(9)
    frames = []
    for i, n in enumerate(SIZES):
        cols = {}
        for k in range(3):
            t = rng.integers(0, 2 if task == "multilabel" else 4, n)
            if k == 2 and i < 3:
                t[:] = 0  # a label absent from the first files
            cols[f"t{k}"] = t
            cols[f"p{k}"] = np.where(rng.random(n) < 0.7, np.minimum(t, 1), 1 - np.minimum(t, 1))
            cols[f"s{k}"] = np.round(rng.random(n), 1)  # ties
        cols["w"] = np.where(rng.random(n) < 0.2, 0.0, rng.random(n))
        frames.append(cols)
    d = _write(tmp_path, frames)
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({k: _cat(frames, k) for k in frames[0]}), whole)
    args = [*sum((["--y-true", f"t{k}"] for k in range(3)), []),
            *sum((["--y-score", f"s{k}"] for k in range(3)), []),
            "--sample-weight", "w", "--task", task]
    if task == "multilabel":
        args += sum((["--y-pred", f"p{k}"] for k in range(3)), [])
    code, batched, captured = _eval([str(d), *args, "--batch-rows", "64"], tmp_path, capsys)
    code2, mem, _ = _eval([str(whole), *args], tmp_path, capsys)
    # graded relevance: LRAP, coverage error and ranking loss refuse it, in both runs
    assert code == code2 == (0 if task == "multilabel" else 1), captured.err
    assert batched["mode"] == "batched" and batched["skipped"] == []
    assert set(batched["metrics"]) == set(mem["metrics"])
    assert batched["failed"] == mem["failed"]
    assert len(mem["failed"]) == (0 if task == "multilabel" else 3)
    for key, row in mem["metrics"].items():
        if row["status"] != "ok":
            assert batched["metrics"][key]["status"] == row["status"], key
            continue
        assert _value(batched, key) == pytest.approx(_value(mem, key), rel=1e-12), key
    code, _, captured = _eval([str(d), *args, "--bootstrap", "10"], tmp_path, capsys)
    assert code == 2 and "needs the data in memory" in captured.err


def test_ranking_task_of_one_relevance_column(tmp_path, capsys):
    frames = _frames("binary", seed=4)
    d = _write(tmp_path, frames)
    code, doc, captured = _eval([str(d), "--y-true", "y", "--y-score", "s", "--task",
                                 "ranking"], tmp_path, capsys)
    assert code == 0, captured.err
    y, s = _cat(frames, "y"), _cat(frames, "s")
    assert _value(doc, "roc_auc") == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)
    assert _value(doc, "average_precision") == pytest.approx(
        skm.average_precision_score(y, s), rel=1e-12)


@pytest.mark.distributed
@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="dask.distributed is not installed")
def test_dask_multiclass_scores_equal_batched(tmp_path, capsys):
    d = _write(tmp_path, _frames("multiclass", seed=8))
    args = [str(d), "--y-true", "y", "--y-pred", "p", "--sample-weight", "w",
            *sum((["--y-score", f"s{k}"] for k in range(4)), [])]
    code, batched, _ = _eval(args, tmp_path, capsys)
    code2, dask_doc, captured = _eval(args + ["--dask", "local", "--dask-workers", "1"],
                                      tmp_path, capsys)
    assert code == code2 == 0, captured.err
    assert dask_doc["skipped"] == [] and set(dask_doc["metrics"]) == set(batched["metrics"])
    for key in ("roc_auc_ovr", "top_2_accuracy", "log_loss", "f1_macro", "cohen_kappa"):
        assert _value(dask_doc, key) == pytest.approx(_value(batched, key), rel=1e-12), key

