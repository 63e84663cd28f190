"""``metrix eval --plots``: every PNG is a :mod:`metrix.display` class drawn from
metrix's curves and matrix (equal to scikit-learn's on the same data, weighted
as the report), and a missing scikit-learn or matplotlib is a clear exit 3."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import metrix
from metrix.__main__ import main

pytest.importorskip("matplotlib")
skm = pytest.importorskip("sklearn.metrics")
skc = pytest.importorskip("sklearn.calibration")
import metrix.display as md  # noqa: E402  (needs scikit-learn)

N = 500
PNG = b"\x89PNG\r\n\x1a\n"


def _csv(path, cols):
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for row in zip(*cols.values()):
            f.write(",".join(str(v) for v in row) + "\n")
    return str(path)


def _binary(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    s = np.round(np.clip(0.35 * y + 0.65 * rng.random(N), 0, 1), 2)  # ties
    w = rng.random(N) + 0.5
    w[:20] = 0.0  # zero weights
    return y, s, w


@pytest.fixture
def drawn(monkeypatch):
    """The displays each ``plot`` call draws (the real ``plot`` runs, so the PNGs exist)."""
    seen = {}
    for cls in (md.RocCurveDisplay, md.PrecisionRecallDisplay, md.CalibrationDisplay,
                md.ConfusionMatrixDisplay, md.PredictionErrorDisplay):
        def spy(self, *args, _orig=cls.plot, _name=cls.__name__, **kwargs):
            out = _orig(self, *args, **kwargs)
            seen.setdefault(_name, []).append(self)
            return out

        monkeypatch.setattr(cls, "plot", spy)
    return seen


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def _check_pngs(paths, names):
    assert sorted(os.path.basename(p) for p in paths) == sorted(n + ".png" for n in names)
    for p in paths:
        with open(p, "rb") as fh:
            assert fh.read(8) == PNG
        assert os.path.getsize(p) > 1000


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_plots_are_the_displays_of_metrix_curves(tmp_path, capsys, drawn, backend,
                                                        weighted):
    """String labels, positive class "neg" (the score read as P(y = neg)): each plot is
    the display class built from metrix's curve, equal to scikit-learn's on the same
    data, with the report's numbers in its legend."""
    if backend == "torch":
        pytest.importorskip("torch")
    y, s, w = _binary()
    names = np.array(["neg", "pos"])
    cols = {"y": names[y], "p": names[(s < 0.5).astype(int)], "s": s}
    if weighted:
        cols["w"] = w
    f = _csv(tmp_path / "b.csv", cols)
    argv = ["eval", f, "--y-true", "y", "--y-pred", "p", "--y-score", "s", "--pos-label", "neg",
            "--backend", backend, "--quiet", "--json", str(tmp_path / "r.json"),
            "--plots", str(tmp_path / "plots")]
    _run(argv + (["--sample-weight", "w"] if weighted else []), capsys)
    with open(tmp_path / "r.json") as fh:
        doc = json.load(fh)
    assert doc["failed"] == [] and doc["warnings"] == []
    _check_pngs(doc["plots"], ["confusion_matrix", "roc", "precision_recall", "calibration"])
    assert sorted(drawn) == ["CalibrationDisplay", "ConfusionMatrixDisplay",
                             "PrecisionRecallDisplay", "RocCurveDisplay"]
    assert all(len(v) == 1 for v in drawn.values())
    y_pos = (y == 0).astype(np.int64)  # "neg" is the positive class
    sw = w if weighted else None
    values = {k: v["value"] for k, v in doc["metrics"].items()}

    roc = drawn["RocCurveDisplay"][0]
    fpr, tpr, _ = metrix.roc_curve(y_pos, s, sample_weight=sw)
    # the same numbers on NumPy; torch's weighted sums may differ in the last bit
    tol = {"rtol": 0, "atol": 0} if backend == "numpy" else {"rtol": 1e-12, "atol": 1e-15}
    np.testing.assert_allclose(roc.fpr, np.asarray(fpr), **tol)
    np.testing.assert_allclose(roc.tpr, np.asarray(tpr), **tol)
    sk_fpr, sk_tpr, _ = skm.roc_curve(y_pos, s, sample_weight=sw)
    np.testing.assert_allclose(roc.fpr, sk_fpr, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(roc.tpr, sk_tpr, rtol=1e-12, atol=1e-15)
    assert roc.roc_auc == pytest.approx(values["roc_auc"], rel=1e-12)
    assert roc.ax_.get_xlabel() == "False Positive Rate (Positive label: neg)"
    assert f"AUC = {values['roc_auc']:.2f}" in roc.ax_.get_legend_handles_labels()[1]
    np.testing.assert_array_equal(roc.line_.get_xdata(), roc.fpr)  # the curve drawn

    pr = drawn["PrecisionRecallDisplay"][0]
    precision, recall, _ = skm.precision_recall_curve(y_pos, s, sample_weight=sw)
    np.testing.assert_allclose(pr.precision, precision, rtol=1e-12)
    np.testing.assert_allclose(pr.recall, recall, rtol=1e-12)
    assert pr.average_precision == pytest.approx(values["average_precision"], rel=1e-12)
    assert pr.prevalence_pos_label == pytest.approx(np.average(y_pos, weights=sw), rel=1e-12)
    assert pr.pos_label == "neg"

    cal = drawn["CalibrationDisplay"][0]
    prob_true, prob_pred = skc.calibration_curve(y_pos, s, n_bins=15)
    np.testing.assert_allclose(cal.prob_true, prob_true, rtol=1e-12)
    np.testing.assert_allclose(cal.prob_pred, prob_pred, rtol=1e-12)
    # the reliability plot shows the report's expected calibration error
    assert f"ECE = {values['calibration_error']:.4f} (15 bins)" in \
        cal.ax_.get_legend_handles_labels()[1]

    cm = drawn["ConfusionMatrixDisplay"][0]
    np.testing.assert_allclose(cm.confusion_matrix, doc["confusion_matrix"], rtol=1e-12)
    np.testing.assert_allclose(
        cm.confusion_matrix, skm.confusion_matrix(cols["y"], cols["p"], sample_weight=sw),
        rtol=1e-12)
    assert list(cm.display_labels) == ["neg", "pos"]


def test_multiclass_confusion_and_regression_prediction_error(tmp_path, capsys, drawn):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, N)
    p = np.where(rng.random(N) < 0.7, y, rng.integers(0, 4, N))
    out = _run(["eval", _csv(tmp_path / "m.csv", {"y": y, "p": p}), "--y-true", "y",
                "--y-pred", "p", "--quiet", "--plots", str(tmp_path / "mc")], capsys)
    assert "plots:" in out
    cm = drawn.pop("ConfusionMatrixDisplay")[0]
    np.testing.assert_array_equal(cm.confusion_matrix, skm.confusion_matrix(y, p))
    assert list(cm.display_labels) == [0, 1, 2, 3] and not drawn
    _check_pngs([str(tmp_path / "mc" / "confusion_matrix.png")], ["confusion_matrix"])

    yt = rng.normal(size=N) + 5
    yp = yt + 0.3 * rng.normal(size=N)
    np.savez(tmp_path / "r.npz", y=yt, p=yp)
    _run(["eval", str(tmp_path / "r.npz"), "--y-true", "y", "--y-pred", "p", "--quiet",
          "--json", str(tmp_path / "r.json"), "--plots", str(tmp_path / "reg")], capsys)
    with open(tmp_path / "r.json") as fh:
        _check_pngs(json.load(fh)["plots"], ["residuals"])
    panels = drawn.pop("PredictionErrorDisplay")
    assert not drawn and len(panels) == 2
    for disp in panels:  # every point (N is under the subsample)
        np.testing.assert_array_equal(disp.y_true, yt)
        np.testing.assert_array_equal(disp.y_pred, yp)


@pytest.mark.parametrize("missing, says", [("sklearn", "scikit-learn"),
                                            ("matplotlib", "matplotlib")])
def test_plots_without_the_extra_say_what_to_install(tmp_path, missing, says):
    """Without scikit-learn (or matplotlib), --plots fails before the run: exit 3 and one
    line naming the package and the extra."""
    y, s, _ = _binary()
    f = _csv(tmp_path / "b.csv", {"y": y, "s": s})
    code = (f"import sys; sys.modules[{missing!r}] = None\n"
            "from metrix.__main__ import main\n"
            f"sys.exit(main(['eval', {f!r}, '--y-true', 'y', '--y-score', 's', '--quiet', "
            f"'--plots', {str(tmp_path / 'plots')!r}]))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 3, run.stdout + run.stderr
    assert says in run.stderr and "pip install 'metrix[plots]'" in run.stderr, run.stderr
    assert run.stdout == ""  # nothing computed
