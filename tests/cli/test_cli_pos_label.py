"""``metrix eval --pos-label``: the binary score is P(y = pos_label) for every metric.

Every score-based metric of the binary report is checked against scikit-learn
computed with that one reading, for integer labels (positive class 0 and 1)
and string labels, with and without sample weights.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrix.__main__ import main

sk = pytest.importorskip("sklearn.metrics")

N = 300


def _data(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    s = np.clip(0.35 * y + 0.65 * rng.random(N), 0.01, 0.99)  # P(y = 1)
    return y, (s > 0.5).astype(np.int64), s, rng.random(N) + 0.5


def _write(path, cols):
    names = list(cols)
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in zip(*(cols[n] for n in names)):
            f.write(",".join(str(v) for v in row) + "\n")
    return str(path)


def _eval(tmp_path, capsys, cols, *extra):
    f = _write(tmp_path / "b.csv", cols)
    out = tmp_path / "r.json"
    code = main(["eval", f, "--y-true", "y", "--y-pred", "p", "--y-score", "s", "--quiet",
                 "--json", str(out), *extra])
    std = capsys.readouterr()
    assert code == 0, std.err
    with open(out) as fh:
        return json.load(fh), std.out


def _expected(y, p, s, pos, w=None):
    """scikit-learn with the score read as P(y == pos) by every metric."""
    yp = (y == pos)
    kw = {} if w is None else {"sample_weight": w}
    return {"roc_auc": sk.roc_auc_score(yp, s, **kw),
            "log_loss": sk.log_loss(yp, s, **kw),
            "average_precision": sk.average_precision_score(y, s, pos_label=pos, **kw),
            "brier": sk.brier_score_loss(y, s, pos_label=pos, **kw),
            "precision": sk.precision_score(y, p, pos_label=pos, **kw),
            "recall": sk.recall_score(y, p, pos_label=pos, **kw),
            "f1": sk.f1_score(y, p, pos_label=pos, **kw),
            "accuracy": sk.accuracy_score(y, p, **kw)}


def _check(doc, want):
    for key, value in want.items():
        assert doc["metrics"][key]["status"] == "ok", key
        assert doc["metrics"][key]["value"] == pytest.approx(value, rel=1e-9, abs=1e-12), key


@pytest.mark.parametrize("pos", [0, 1])
def test_integer_labels(tmp_path, capsys, pos):
    y, p, s1, _ = _data()
    s = s1 if pos == 1 else 1 - s1  # the file holds P(y = pos)
    doc, out = _eval(tmp_path, capsys, {"y": y, "p": p, "s": s}, "--pos-label", str(pos))
    _check(doc, _expected(y, p, s, pos))
    assert doc["pos_label"] == pos
    assert f"probability (score) of the positive class {pos}" in doc["score_reading"]
    assert f"positive class: {pos}; --y-score read as P(y = {pos})" in out
    # a good classifier stays good whichever class is positive
    assert doc["metrics"]["roc_auc"]["value"] > 0.8


def test_pos_label_lower_class_same_file_two_readings(tmp_path, capsys):
    """One file, --pos-label 0: the score is P(y = 0) for all four score metrics."""
    y, p, s, _ = _data(1)
    doc, _ = _eval(tmp_path, capsys, {"y": y, "p": p, "s": s}, "--pos-label", "0")
    _check(doc, _expected(y, p, s, 0))


@pytest.mark.parametrize("pos", ["ham", "spam"])
def test_string_labels_with_weights(tmp_path, capsys, pos):
    y01, p01, s1, w = _data(2)
    names = np.array(["ham", "spam"])
    y, p = names[y01], names[p01]
    s = s1 if pos == "spam" else 1 - s1
    doc, out = _eval(tmp_path, capsys, {"y": y, "p": p, "s": s, "w": w},
                     "--pos-label", pos, "--sample-weight", "w")
    _check(doc, _expected(y, p, s, pos, w))
    assert doc["pos_label"] == pos and f"P(y = {pos!r})" in out


def test_default_pos_label_is_the_greater_label(tmp_path, capsys):
    y, p, s, _ = _data(3)
    doc, _ = _eval(tmp_path, capsys, {"y": y, "p": p, "s": s})
    _check(doc, _expected(y, p, s, 1))
    assert doc["pos_label"] == 1


def test_two_score_columns_use_the_pos_label_column(tmp_path, capsys):
    y, p, s1, _ = _data(4)
    f = _write(tmp_path / "b.csv", {"y": y, "p": p, "s0": 1 - s1, "s1": s1})
    out = tmp_path / "r.json"
    code = main(["eval", f, "--y-true", "y", "--y-pred", "p", "--y-score", "s0,s1",
                 "--pos-label", "0", "--json", str(out)])
    assert code == 0, capsys.readouterr().err
    with open(out) as fh:
        doc = json.load(fh)
    _check(doc, _expected(y, p, 1 - s1, 0))


def test_string_labels_torch_backend(tmp_path, capsys):
    pytest.importorskip("torch")
    y01, p01, s1, _ = _data(5)
    names = np.array(["ham", "spam"])
    y, p = names[y01], names[p01]
    doc, _ = _eval(tmp_path, capsys, {"y": y, "p": p, "s": 1 - s1}, "--pos-label", "ham",
                   "--backend", "torch")
    want = _expected(y, p, 1 - s1, "ham")
    for key, value in want.items():  # torch computes in float64 on CPU here
        assert doc["metrics"][key]["value"] == pytest.approx(value, rel=1e-6), key
    assert doc["pos_label"] == "ham"


def test_bootstrap_interval_brackets_the_value(tmp_path, capsys):
    y, p, s, _ = _data(6)
    doc, _ = _eval(tmp_path, capsys, {"y": y, "p": p, "s": 1 - s}, "--pos-label", "0",
                   "--bootstrap", "50")
    for key in ("roc_auc", "average_precision", "log_loss", "brier"):
        m = doc["metrics"][key]
        assert m["low"] <= m["value"] <= m["high"], key


def test_pos_label_on_multiclass_is_reported_as_ignored(tmp_path, capsys):
    f = _write(tmp_path / "m.csv", {"y": [0, 1, 2, 1], "p": [0, 1, 2, 2]})
    code = main(["eval", f, "--y-true", "y", "--y-pred", "p", "--pos-label", "1"])
    err = capsys.readouterr().err
    assert code == 0
    assert "warning: --pos-label '1' ignored: it applies to a binary task" in err
