"""``metrix eval`` read whole and in batches: one exit code, the same rows.

Found by the conformance rows (``conformance/cases_offline_faces.py``): logits in
``--y-score`` exited 1 read whole (ROC AUC and average precision computed; log loss
and Brier score error rows) but 6 in batches (no report); a continuous target
without ``--y-pred`` exited 2 whole and 6 in batches; ``--sample-weight`` on a
regression exited 1 read whole (max error takes no weights) and reported max error
in batches.  Exit 1 is the documented meaning for logits ("a metric failed on this
data: the table and the JSON are still written"): logits are a valid score for the
ranking metrics, only the probability metrics refuse them.
"""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from sklearn import metrics as skm

from metrix.__main__ import main

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None,
                                reason="--batch-rows reads with pyarrow")

Y = np.array([1, 0, 1, 0, 0, 1, 1, 0])
LOGITS = np.array([2.5, -1.2, 0.3, 0.8, -0.4, 1.7, -0.1, 0.2])
MODES = {"whole": [], "batched": ["--batch-rows", "3"]}


def _eval(tmp_path, capsys, columns, options, mode):
    path = tmp_path / "p.csv"
    names = list(columns)
    rows = zip(*(columns[c] for c in names))
    path.write_text(",".join(names) + "\n" + "".join(
        ",".join(str(v) for v in row) + "\n" for row in rows))
    out = tmp_path / "r.json"
    if out.exists():
        out.unlink()
    code = main(["eval", str(path), *options, "--json", str(out), "--quiet", *MODES[mode]])
    std = capsys.readouterr()
    assert "Traceback" not in std.err
    return code, (json.loads(out.read_text()) if out.exists() else None), std.err


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("with_pred", [False, True])
def test_logits_as_scores_exit_1_with_the_ranking_metrics_computed(tmp_path, capsys, mode,
                                                                  with_pred):
    cols = {"y": Y, "s": LOGITS}
    opts = ["--y-true", "y", "--y-score", "s"]
    if with_pred:
        cols["p"] = (LOGITS > 0).astype(int)
        opts += ["--y-pred", "p"]
    code, doc, err = _eval(tmp_path, capsys, cols, opts, mode)
    assert code == 1
    # the probability metrics refuse logits (calibration_error too)
    assert doc["failed"] == ["log_loss", "brier", "calibration_error"]
    assert "greater than 1" in doc["metrics"]["log_loss"]["status"] or \
        "outside [0, 1]" in doc["metrics"]["log_loss"]["status"]
    assert doc["metrics"]["roc_auc"]["value"] == pytest.approx(skm.roc_auc_score(Y, LOGITS))
    assert doc["metrics"]["average_precision"]["value"] == pytest.approx(
        skm.average_precision_score(Y, LOGITS))
    if with_pred:
        assert doc["metrics"]["f1"]["value"] == pytest.approx(skm.f1_score(Y, cols["p"]))
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("metrix eval: error: 3 metrics failed: "
                                                   "log_loss (")


@pytest.mark.parametrize("mode", MODES)
def test_a_continuous_target_without_predictions_is_a_usage_error(tmp_path, capsys, mode):
    code, _, err = _eval(tmp_path, capsys, {"y": Y + 0.5, "s": LOGITS},
                         ["--y-true", "y", "--y-score", "s"], mode)
    assert code == 2 and "--task regression needs --y-pred" in err


@pytest.mark.parametrize("mode", MODES)
def test_one_score_column_for_three_classes_is_bad_data(tmp_path, capsys, mode):
    y = np.array([0, 1, 2, 1, 0, 2, 1, 0])
    code, _, err = _eval(tmp_path, capsys, {"y": y, "p": y, "s": np.full(8, 0.5)},
                         ["--y-true", "y", "--y-pred", "p", "--y-score", "s"], mode)
    assert code == 6 and "one column per class" in err


@pytest.mark.parametrize("mode", MODES)
def test_weighted_regression_skips_max_error_and_exits_0(tmp_path, capsys, mode):
    rng = np.random.default_rng(0)
    y, p, w = rng.normal(size=8), rng.normal(size=8), rng.random(8)
    code, doc, err = _eval(tmp_path, capsys, {"y": y, "p": p, "w": w},
                           ["--y-true", "y", "--y-pred", "p", "--sample-weight", "w"], mode)
    assert code == 0, err
    assert doc["metrics"]["max_error"]["status"] == "skipped (takes no sample_weight)"
    assert doc["metrics"]["r2"]["value"] == pytest.approx(skm.r2_score(y, p, sample_weight=w))


@pytest.mark.parametrize("mode", MODES)
def test_two_binary_score_columns_read_the_positive_class(tmp_path, capsys, mode):
    s1 = 1 / (1 + np.exp(-LOGITS))
    code, doc, err = _eval(tmp_path, capsys, {"y": Y, "s0": 1 - s1, "s1": s1},
                           ["--y-true", "y", "--y-score", "s0,s1", "--pos-label", "0"], mode)
    assert code == 0, err
    assert doc["metrics"]["roc_auc"]["value"] == pytest.approx(
        skm.roc_auc_score(Y == 0, 1 - s1))
    assert doc["metrics"]["log_loss"]["value"] == pytest.approx(
        skm.log_loss(Y == 0, 1 - s1, labels=[False, True]))


def test_one_class_exits_0_in_batches_too(tmp_path, capsys):
    code, doc, _ = _eval(tmp_path, capsys, {"y": np.ones(8, np.int64), "s": np.full(8, 0.5)},
                         ["--y-true", "y", "--y-score", "s"], "batched")
    assert code == 0
    assert doc["metrics"]["average_precision"]["value"] == 1.0
