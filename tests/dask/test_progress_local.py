"""metrix.dask.evaluate(progress=True) without a distributed client: dask's own
ProgressBar of the local scheduler."""

from __future__ import annotations

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
skm = pytest.importorskip("sklearn.metrics")

import metrix.dask as md  # noqa: E402


def test_progress_with_the_local_scheduler(capsys):
    pytest.importorskip("dask.diagnostics")
    try:
        from distributed import default_client

        default_client()
        pytest.skip("a distributed client is active in this process")
    except (ImportError, ValueError):
        pass
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"y": rng.integers(0, 2, 500), "s": rng.random(500)})
    got = md.evaluate(dd.from_pandas(frame, npartitions=3), y_true="y", y_score="s",
                      metrics=["roc_auc", "log_loss"], progress=True, n_resamples=5)
    out = capsys.readouterr().out
    assert "Completed" in out and "100%" in out  # dask.diagnostics.ProgressBar
    assert got["roc_auc"] == pytest.approx(skm.roc_auc_score(frame["y"], frame["s"]),
                                           rel=1e-12)
    assert got["roc_auc_low"] < got["roc_auc"] < got["roc_auc_high"]
    quiet = md.evaluate(dd.from_pandas(frame, npartitions=3), y_true="y", y_score="s",
                        metrics=["roc_auc"])
    assert capsys.readouterr().out == "" and quiet["roc_auc"] == got["roc_auc"]
