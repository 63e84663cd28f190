"""``metrix eval`` end to end on generated CSV, Parquet and .npz files."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import metrix
from metrix.__main__ import main

HAVE_PYARROW = importlib.util.find_spec("pyarrow") is not None
# --plots draws with metrix.display: matplotlib and scikit-learn (metrix[plots])
HAVE_PLOTS = all(importlib.util.find_spec(m) is not None for m in ("matplotlib", "sklearn"))
N = 600


def _binary(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    s = np.clip(0.35 * y + 0.65 * rng.random(N), 0, 1)
    return {"y": y, "p": (s > 0.5).astype(np.int64), "s": s, "w": rng.random(N) + 0.5}


def _multiclass(seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, N)
    sc = rng.dirichlet([1, 1, 1], N)
    sc[np.arange(N), y] += 0.5
    sc /= sc.sum(1, keepdims=True)
    return {"y": y, "p": sc.argmax(1), "s0": sc[:, 0], "s1": sc[:, 1], "s2": sc[:, 2]}


def _regression(seed=2):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=N) + 5
    return {"y": y, "p": y + 0.3 * rng.normal(size=N)}


def _write_csv(path, cols):
    names = list(cols)
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in zip(*(cols[n] for n in names)):
            f.write(",".join(str(v) for v in row) + "\n")
    return str(path)


def _write_parquet(path, cols):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(cols), str(path), row_group_size=200)
    return str(path)


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses a bad option value: exit 2
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _json(path):
    with open(path) as f:
        return json.load(f)


def test_binary_csv_json_and_plots(tmp_path, capsys):
    cols = _binary()
    f = _write_csv(tmp_path / "bin.csv", cols)
    out_json = tmp_path / "r.json"
    argv = ["eval", f, "--y-true", "y", "--y-pred", "p", "--y-score", "s", "--bootstrap", "200",
            "--json", str(out_json)]
    if HAVE_PLOTS:
        argv += ["--plots", str(tmp_path / "plots")]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "task: binary" in out and "precision" in out and "95% low" in out
    doc = _json(out_json)
    assert doc["task"] == "binary" and doc["n_samples"] == N and doc["format"] == "csv"
    m = doc["metrics"]
    want = {"accuracy": metrix.accuracy_score(cols["y"], cols["p"]),
            "f1": metrix.f1_score(cols["y"], cols["p"]),
            "mcc": metrix.matthews_corrcoef(cols["y"], cols["p"]),
            "roc_auc": metrix.roc_auc_score(cols["y"], cols["s"]),
            "average_precision": metrix.average_precision_score(cols["y"], cols["s"]),
            "log_loss": metrix.log_loss(cols["y"], cols["s"]),
            "brier": metrix.brier_score_loss(cols["y"], cols["s"])}
    for key, value in want.items():
        assert m[key]["status"] == "ok"
        assert m[key]["value"] == pytest.approx(float(value), rel=1e-9)
        assert m[key]["low"] <= m[key]["value"] <= m[key]["high"]
        assert m[key]["standard_error"] > 0
    for key in ("balanced_accuracy", "precision", "recall"):
        assert m[key]["status"] == "ok"
    assert doc["confusion_matrix"] == metrix.confusion_matrix(cols["y"], cols["p"]).tolist()
    rep = doc["classification_report"]
    assert rep["1"]["recall"] == pytest.approx(metrix.recall_score(cols["y"], cols["p"]))
    assert doc["bootstrap"]["n_resamples"] == 200
    if HAVE_PLOTS:
        names = sorted(os.path.basename(p) for p in doc["plots"])
        assert names == ["calibration.png", "confusion_matrix.png", "precision_recall.png",
                         "roc.png"]
        for p in doc["plots"]:
            with open(p, "rb") as fh:
                assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
            assert os.path.getsize(p) > 1000


def test_binary_sample_weight_and_string_labels(tmp_path, capsys):
    cols = _binary()
    names = np.array(["neg", "pos"])
    cols = {"y": names[cols["y"]], "p": names[cols["p"]], "w": cols["w"]}
    f = _write_csv(tmp_path / "s.csv", cols)
    code, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p", "--sample-weight", "w",
                           "--json", str(tmp_path / "s.json")], capsys)
    assert code == 0, err
    doc = _json(tmp_path / "s.json")
    ref = metrix.f1_score(cols["y"], cols["p"], pos_label="pos", sample_weight=cols["w"])
    assert doc["metrics"]["f1"]["value"] == pytest.approx(float(ref))
    assert doc["classes"] == ["neg", "pos"]


@pytest.mark.skipif(not HAVE_PYARROW, reason="pyarrow not installed")
def test_multiclass_parquet(tmp_path, capsys):
    cols = _multiclass()
    f = _write_parquet(tmp_path / "mc.parquet", cols)
    out_json = tmp_path / "mc.json"
    code, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p", "--y-score", "s0,s1,s2",
                           "--bootstrap", "50", "--json", str(out_json), "--quiet"], capsys)
    assert code == 0, err
    doc = _json(out_json)
    assert doc["task"] == "multiclass" and doc["format"] == "parquet"
    m = doc["metrics"]
    scores = np.stack([cols["s0"], cols["s1"], cols["s2"]], axis=1)
    want = {"f1_macro": metrix.f1_score(cols["y"], cols["p"], average="macro"),
            "precision_weighted": metrix.precision_score(cols["y"], cols["p"],
                                                         average="weighted"),
            "cohen_kappa": metrix.cohen_kappa_score(cols["y"], cols["p"]),
            "roc_auc_ovr": metrix.roc_auc_score(cols["y"], scores, multi_class="ovr"),
            "log_loss": metrix.log_loss(cols["y"], scores),
            "top_2_accuracy": metrix.top_k_accuracy_score(cols["y"], scores, k=2)}
    for key, value in want.items():
        assert m[key]["value"] == pytest.approx(float(value), rel=1e-9), key
        assert "low" in m[key]
    assert len(doc["confusion_matrix"]) == 3


def test_multilabel_npz(tmp_path, capsys):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, (N, 4))
    p = np.where(rng.random((N, 4)) < 0.8, y, 1 - y)
    s = np.clip(0.5 * y + 0.5 * rng.random((N, 4)), 0, 1)
    f = tmp_path / "ml.npz"
    np.savez(f, y=y, p=p, s=s)
    code, out, err = _run(["eval", str(f), "--y-true", "y", "--y-pred", "p", "--y-score", "s",
                           "--json", str(tmp_path / "ml.json")], capsys)
    assert code == 0, err
    doc = _json(tmp_path / "ml.json")
    assert doc["task"] == "multilabel"
    m = doc["metrics"]
    assert m["hamming_loss"]["value"] == pytest.approx(float(metrix.hamming_loss(y, p)))
    assert m["subset_accuracy"]["value"] == pytest.approx(float(metrix.accuracy_score(y, p)))
    ref = metrix.f1_score(y, p, average="samples", zero_division=0)
    assert m["f1_samples"]["value"] == pytest.approx(float(ref))
    assert m["lrap"]["value"] == pytest.approx(
        float(metrix.label_ranking_average_precision_score(y, s)))
    assert set(doc["classification_report"]) >= {"0", "3", "micro avg", "samples avg"}


def test_regression_npz_torch_backend_plots(tmp_path, capsys):
    pytest.importorskip("torch")
    cols = _regression()
    f = tmp_path / "reg.npz"
    np.savez(f, **cols)
    argv = ["eval", str(f), "--y-true", "y", "--y-pred", "p", "--backend", "torch",
            "--bootstrap", "50", "--json", str(tmp_path / "reg.json")]
    if HAVE_PLOTS:
        argv += ["--plots", str(tmp_path / "plots")]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    doc = _json(tmp_path / "reg.json")
    assert doc["task"] == "regression" and doc["backend"] == "torch"
    m = doc["metrics"]
    y, p = cols["y"], cols["p"]
    for key, fn in [("mae", "mean_absolute_error"), ("mse", "mean_squared_error"),
                    ("rmse", "root_mean_squared_error"), ("r2", "r2_score"),
                    ("explained_variance", "explained_variance_score"),
                    ("median_ae", "median_absolute_error"),
                    ("mape", "mean_absolute_percentage_error"), ("max_error", "max_error")]:
        ref = getattr(metrix, fn)(y, p)
        assert m[key]["value"] == pytest.approx(float(ref), rel=1e-9), key
        assert m[key]["low"] <= m[key]["high"]
    if HAVE_PLOTS:
        assert [os.path.basename(q) for q in doc["plots"]] == ["residuals.png"]
        assert os.path.getsize(doc["plots"][0]) > 1000


def test_ranking_task_npz(tmp_path, capsys):
    rng = np.random.default_rng(4)
    rel = rng.integers(0, 2, (50, 6))
    score = rel + rng.random((50, 6))
    f = tmp_path / "rank.npz"
    np.savez(f, rel=rel, score=score)
    code, out, err = _run(["eval", str(f), "--y-true", "rel", "--y-score", "score", "--task",
                           "ranking", "--json", str(tmp_path / "rk.json")], capsys)
    assert code == 0, err
    m = _json(tmp_path / "rk.json")["metrics"]
    assert m["ndcg"]["value"] == pytest.approx(float(metrix.ndcg_score(rel, score)))


def test_auto_detects_each_task():
    from metrix.cli._tasks import detect_task

    assert detect_task(np.array([0, 1, 1]), np.array([1, 1, 0]), None) == "binary"
    assert detect_task(np.array([0, 1, 2]), np.array([1, 1, 0]), None) == "multiclass"
    assert detect_task(np.array([0.5, 1.0]), np.array([0.4, 1.1]), None) == "regression"
    assert detect_task(np.array([1, 2, 3]), np.array([1.5, 2.0, 2.5]), None) == "regression"
    assert detect_task(np.array([[0, 1], [1, 1]]), np.array([[0, 1], [1, 0]]), None) \
        == "multilabel"
    assert detect_task(np.array(["a", "b"]), np.array(["b", "b"]), None) == "binary"


def test_not_available_metric_row(tmp_path, capsys, monkeypatch):
    monkeypatch.delattr(metrix, "matthews_corrcoef")
    f = _write_csv(tmp_path / "b.csv", _binary())
    code, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p", "--bootstrap", "20",
                           "--json", str(tmp_path / "b.json")], capsys)
    assert code == 0, err
    assert "mcc" in out and "not available" in out
    doc = _json(tmp_path / "b.json")
    assert doc["metrics"]["mcc"]["status"] == "not available"
    assert doc["not_available"] == ["mcc"]


@pytest.mark.parametrize("extra,code,match", [
    (["--y-pred", "nope"], 5, "column(s) 'nope' not found"),
    (["--y-pred", "p", "--task", "clustering"], 2, "unknown task 'clustering'"),
    (["--y-pred", "p", "--backend", "tensorflow"], 2, "unknown backend 'tensorflow'"),
    (["--y-pred", "p", "--device", "tpu"], 2, "unknown device 'tpu'"),
    (["--y-pred", "p", "--bootstrap", "1"], 2, "--bootstrap: needs B >= 2"),
    (["--y-pred", "p", "--pos-label", "7"], 2, "--pos-label '7' is not one of"),
    (["--y-pred", "p", "--y-score", "s", "--task", "multilabel"], 6, "multilabel needs"),
])
def test_bad_input_exit_codes(tmp_path, capsys, extra, code, match):
    f = _write_csv(tmp_path / "b.csv", _binary())
    got, out, err = _run(["eval", f, "--y-true", "y", *extra], capsys)
    assert got == code
    assert match in err


def test_backend_not_installed(tmp_path, capsys, monkeypatch):
    import metrix.cli as cli

    real = importlib.util.find_spec
    monkeypatch.setattr(cli.importlib.util, "find_spec",
                        lambda name, *a: None if name == "jax" else real(name, *a))
    f = _write_csv(tmp_path / "b.csv", _binary())
    got, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p", "--backend", "jax"],
                         capsys)
    assert got == 3 and "backend 'jax' is not installed" in err


def test_device_not_available(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    f = _write_csv(tmp_path / "b.csv", _binary())
    got, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p", "--backend", "torch",
                          "--device", "cuda"], capsys)
    assert got == 3 and "no CUDA device" in err


@pytest.mark.parametrize("name,content,match", [
    ("missing.csv", None, "no such file"),
    ("data.xlsx", b"PK", "unknown format '.xlsx'"),
    ("empty.csv", b"", "empty file"),
    ("bad.npz", b"not a zip", "as .npz"),
    ("bad.parquet", b"garbage!", "as Parquet"),
])
def test_unreadable_files(tmp_path, capsys, name, content, match):
    if name.endswith(".parquet") and not HAVE_PYARROW:
        pytest.skip("pyarrow not installed")
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    got, out, err = _run(["eval", str(path), "--y-true", "y", "--y-pred", "p"], capsys)
    assert got == 4 and match in err


def test_csv_without_pyarrow_and_missing_values(tmp_path, capsys, monkeypatch):
    import metrix.cli._io as io

    cols = _binary()
    f = _write_csv(tmp_path / "b.csv", cols)
    real = importlib.util.find_spec
    monkeypatch.setattr(io.importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyarrow" else real(name, *a))
    table = io.open_table(f)
    got = table.read(["y", "s"], chunk_rows=100)
    np.testing.assert_array_equal(got["y"], cols["y"])
    np.testing.assert_allclose(got["s"], cols["s"])
    monkeypatch.undo()
    (tmp_path / "na.csv").write_text("y,p\n1,0\n,1\n")
    code, out, err = _run(["eval", str(tmp_path / "na.csv"), "--y-true", "y", "--y-pred", "p"],
                          capsys)
    assert code == 6 and "has 1 missing value " in err


def test_progress_bar_quiet_off_terminal(tmp_path, capsys):
    f = _write_csv(tmp_path / "b.csv", _binary())
    code, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p", "--bootstrap", "20"],
                          capsys)
    assert code == 0 and err == ""  # stderr is not a terminal: no bar
    import io

    from metrix.cli._progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    import importlib.util

    has_tqdm = importlib.util.find_spec("tqdm") is not None
    for plain in (True, False) if has_tqdm else (True,):
        s = Tty()
        if plain:  # without tqdm: a plain percentage line
            real = importlib.util.find_spec
            importlib.util.find_spec = lambda name, *a: None if name == "tqdm" else real(name, *a)
        try:
            bar = Progress(10, "work", stream=s, min_interval=0)
        finally:
            if plain:
                importlib.util.find_spec = real
        bar.update(5)
        bar.update(10)
        bar.close()
        if plain:
            assert "50.0%" in s.getvalue() and "100.0%" in s.getvalue()
        else:  # tqdm's bar
            assert " 50%" in s.getvalue() and "100%" in s.getvalue()


def test_python_m_metrix_and_demo_subprocess(tmp_path):
    f = _write_csv(tmp_path / "b.csv", _binary())
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(metrix.__file__)))
    r = subprocess.run([sys.executable, "-m", "metrix", "eval", f, "--y-true", "y", "--y-pred",
                        "p"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "accuracy" in r.stdout
    r = subprocess.run([sys.executable, "-m", "metrix", "eval", f, "--y-true", "nope",
                        "--y-pred", "p"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 5 and "not found" in r.stderr


def test_demo_report_in_process(capsys):
    from metrix.cli.demo import eval_report

    assert eval_report(2000, 50) == 0
    out = capsys.readouterr().out
    assert "roc_auc" in out and "95% low" in out and "brier" in out


def test_eval_and_demo_report_import_no_optional_library(tmp_path):
    """The report runs with NumPy alone: no torch / jax / sklearn / pyarrow imported."""
    f = _write_csv(tmp_path / "b.csv", _binary())
    code = f"""
import sys, io, contextlib
import importlib.util as u
real = u.find_spec
u.find_spec = lambda name, *a: None if name.split('.')[0] in ('pyarrow',) else real(name, *a)
from metrix.__main__ import main
from metrix.cli.demo import eval_report
with contextlib.redirect_stdout(io.StringIO()):
    assert main(['eval', {str(f)!r}, '--y-true', 'y', '--y-pred', 'p', '--y-score', 's',
                 '--bootstrap', '20']) == 0
    assert eval_report(2000, 20) == 0
bad = [m for m in ('torch', 'jax', 'cupy', 'sklearn', 'pyarrow', 'matplotlib')
       if m in sys.modules]
assert not bad, bad
print('OK')
"""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(metrix.__file__)))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "OK", r.stdout + r.stderr


def test_column_numpy_views_equal_pyarrow():
    # numeric chunks without nulls are read as views of their buffers (offsets of
    # sliced chunks, several chunks); nulls, booleans and text go through pyarrow
    pa = pytest.importorskip("pyarrow")
    from metrix.cli._io import column_numpy

    cases = [
        pa.chunked_array([pa.array(np.arange(10, dtype=t)).slice(3, 5),
                          pa.array(np.arange(4, dtype=t))])
        for t in ("int8", "int32", "int64", "uint16", "uint64", "float32", "float64")]
    cases += [pa.chunked_array([pa.array([1.5, None, 3.0])]),
              pa.chunked_array([pa.array([1, None, 3])]),
              pa.chunked_array([pa.array([True, False, True])]),
              pa.chunked_array([pa.array(["a", "b"]), pa.array(["c"])]),
              pa.array(np.arange(6, dtype="int64")).slice(2, 3),  # an Array, not chunked
              pa.chunked_array([], type=pa.float64())]
    for col in cases:
        got = column_numpy(col)
        want = col.to_numpy(zero_copy_only=False)
        assert got.dtype == want.dtype and got.shape == want.shape, col.type
        np.testing.assert_array_equal(got, want)


def test_weighted_support_column_is_separated():
    # a weighted support printed in full is wider than its column: the columns
    # stay split on whitespace (it ran into the f1 column)
    from metrix.cli._report import classification_table

    text = classification_table([("a", 0.5, 0.25, 1 / 3, 0.769327065275),
                                 ("b", 1.0, 1.0, 1.0, 3.0)])
    rows = [line.split() for line in text.splitlines()[2:]]
    assert rows == [["a", "0.5000", "0.2500", "0.3333", "0.769327065275"],
                    ["b", "1.0000", "1.0000", "1.0000", "3"]]
