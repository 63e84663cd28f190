"""The faces keep the one-shot contract: empty and degenerate stream states,
merges across configurations, warnings, tracing without declared labels.

Each case once returned a silent number: ``compute()`` before any update gave
0.0 (Accuracy, F1Score) or 1.0 (R2Score); R2 of one sample gave 0.0; a
multioutput metric reshaped batches that did not fit ``num_outputs``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
import metrix.stream as ms
from metrix.exceptions import UndefinedMetricWarning

MAKERS = {
    "Accuracy": lambda: ms.Accuracy(3),
    "F1Score": lambda: ms.F1Score(3),
    "ConfusionMatrix": lambda: ms.ConfusionMatrix(3),
    "R2Score": lambda: ms.R2Score(),
    "MeanSquaredError": lambda: ms.MeanSquaredError(),
    "AUROC": lambda: ms.AUROC(),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_compute_before_any_sample_raises_as_the_one_shot_does(name):
    m = MAKERS[name]()
    with pytest.raises(ValueError, match="before any sample"):
        m.compute()
    if name in ("R2Score", "MeanSquaredError"):
        m.update(np.zeros(0), np.zeros(0))  # empty batches are no samples either
    else:
        m.update(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    with pytest.raises(ValueError, match="before any sample"):
        m.compute()


def test_reset_forgets_the_samples():
    m = ms.Accuracy(3)
    m.update(np.array([0, 1]), np.array([0, 2]))
    assert float(m.compute()) == 0.5
    m.reset()
    with pytest.raises(ValueError, match="before any sample"):
        m.compute()


def test_a_merge_or_a_load_brings_samples():
    a, b = ms.Accuracy(3), ms.Accuracy(3)
    b.update(np.array([0, 1]), np.array([0, 1]))
    assert float(a.merge(b).compute()) == 1.0
    c = ms.Accuracy(3)
    c.load_state_dict(b.state_dict())
    assert float(c.compute()) == 1.0


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_r2_of_one_sample_is_nan_with_sklearns_warning(lib):
    yt, yp = np.array([1.0]), np.array([2.0])
    from sklearn.exceptions import UndefinedMetricWarning as SklearnWarning

    with pytest.warns(SklearnWarning, match="less than two samples"):
        assert np.isnan(skm.r2_score(yt, yp))
    if lib == "torch":
        torch = pytest.importorskip("torch")
        yt, yp = torch.from_numpy(yt), torch.from_numpy(yp)
    m = ms.R2Score()
    m.update(yt, yp)
    with pytest.warns(UndefinedMetricWarning, match="less than two samples"):
        got = m.compute()
    assert np.isnan(float(got))
    m.update(yt * 0 + 3.0, yp)  # two samples: scikit-learn's value, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(m.compute()) == pytest.approx(skm.r2_score([1.0, 3.0], [2.0, 2.0]))


def test_r2_of_one_sample_merged_from_states_is_nan():
    """The functional state carries the sample count: NaN without the host's count."""
    spec = ms.RegressionStream("r2")
    st = spec.update(spec.init(), np.array([1.0]), np.array([2.0]))
    assert np.isnan(float(spec.compute(st)))
    st = spec.merge(st, spec.update(spec.init(), np.array([3.0]), np.array([2.0])))
    assert float(spec.compute(st)) == pytest.approx(metrix.r2_score([1.0, 3.0], [2.0, 2.0]))


def test_r2_checkpoint_saved_before_the_sample_count_loads():
    # R2Score's state gained the sample count "n"; a state_dict saved without it
    # loads (taken as two samples or more: the value it had) and goes on updating
    y, p = np.array([1.0, 2.0, 3.0, 5.0]), np.array([1.0, 2.5, 2.0, 4.0])
    for make, key in ((ms.R2Score, "n"),
                      (lambda: ms.MetricCollection({"r2": ms.R2Score()}), "s0/n")):
        old = make()
        old.update(y[:3], p[:3])
        saved = old.state_dict()
        del saved[key]
        resumed = make().load_state_dict(saved)
        resumed.update(y[3:], p[3:])
        got = resumed.compute()
        got = got["r2"] if isinstance(got, dict) else got
        assert float(got) == pytest.approx(skm.r2_score(y, p))


@pytest.mark.parametrize("num_outputs, shape", [
    (2, (6,)),      # 1-D batch: once reshaped to (3, 2)
    (None, (3, 2)),  # two outputs without num_outputs: once flattened
    (2, (4, 3)),    # three columns for two outputs: once mixed rows and outputs
    (1, (3, 2)),
])
def test_multioutput_shapes_must_fit_num_outputs(num_outputs, shape):
    m = ms.MeanSquaredError(num_outputs=num_outputs, multioutput="raw_values")
    a = np.arange(np.prod(shape), dtype=float).reshape(shape)
    with pytest.raises(ValueError, match="expected"):
        m.update(a, a + 1)


def test_multioutput_shapes_that_fit():
    rng = np.random.default_rng(0)
    a, b = rng.random((5, 2)), rng.random((5, 2))
    m = ms.MeanSquaredError(num_outputs=2, multioutput="raw_values")
    m.update(a, b)
    np.testing.assert_allclose(m.compute(), skm.mean_squared_error(a, b,
                                                                    multioutput="raw_values"))
    one = ms.MeanSquaredError()
    one.update(a[:, :1], b[:, :1])
    one.update(a[:, 0], b[:, 0])
    assert float(one.compute()) == pytest.approx(
        skm.mean_squared_error(np.r_[a[:, 0], a[:, 0]], np.r_[b[:, 0], b[:, 0]]))


def test_metrix_warnings_are_sklearns_too_when_sklearn_is_imported():
    """A filter or ``pytest.warns`` written for scikit-learn's class catches metrix's
    warning (scikit-learn is imported here; metrix never imports it for this)."""
    from sklearn.exceptions import UndefinedMetricWarning as SklearnWarning

    with pytest.warns(SklearnWarning, match="ill-defined"):
        metrix.precision_score([0, 0, 1], [0, 0, 0])
    with pytest.warns(UndefinedMetricWarning, match="ill-defined"):
        metrix.precision_score([0, 0, 1], [0, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=SklearnWarning)
        assert metrix.precision_score([0, 0, 1], [0, 0, 0]) == 0.0


def test_metrix_does_not_import_sklearn_for_its_warnings():
    import subprocess
    import sys

    code = ("import sys, warnings, metrix\nwarnings.simplefilter('ignore')\n"
            "metrix.precision_score([0, 0, 1], [0, 0, 0])\n"
            "assert 'sklearn' not in sys.modules, 'metrix imported scikit-learn'\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("make_a, make_b, names", [
    (lambda: ms.MeanSquaredError(), lambda: ms.MeanAbsoluteError(), "class"),
    (lambda: ms.F1Score(3), lambda: ms.F1Score(4), "num_classes: other 4, this metric 3"),
    (lambda: ms.AUROC(capacity=10), lambda: ms.AUROC(), "capacity"),
    (lambda: ms.Accuracy(3), lambda: ms.F1Score(3), "class"),
])
@pytest.mark.parametrize("updated", [True, False])
def test_merge_across_configurations_names_the_difference(make_a, make_b, names, updated):
    a, b = make_a(), make_b()
    if updated:
        for m in (a, b):
            if isinstance(m, (ms.MeanSquaredError, ms.MeanAbsoluteError)):
                m.update(np.array([0.0, 1.0]), np.array([1.0, 1.0]))
            elif isinstance(m, ms.AUROC):
                m.update(np.array([0, 1]), np.array([0.2, 0.7]))
            else:
                m.update(np.array([0, 1]), np.array([0, 2]))
    with pytest.raises(ValueError, match=names):
        a.merge(b)


def test_scores_with_the_wrong_number_of_columns_name_num_classes():
    with pytest.raises(ValueError, match="num_classes=3"):
        ms.F1Score(3).update(np.array([0, 1]), np.full((2, 4), 0.25))


def test_tracing_without_declared_labels_says_what_to_do():
    jax = pytest.importorskip("jax")
    a = jax.numpy.asarray([0, 1, 2, 1])
    b = jax.numpy.asarray([0, 2, 2, 1])
    with pytest.raises(TypeError, match=r"labels=\[0, 1, \.\.\.\], validate=False"):
        jax.jit(lambda a, b: metrix.f1_score(a, b, average="macro"))(a, b)
    got = jax.jit(lambda a, b: metrix.f1_score(a, b, average="macro", labels=[0, 1, 2],
                                               validate=False))(a, b)
    assert float(got) == pytest.approx(skm.f1_score([0, 1, 2, 1], [0, 2, 2, 1],
                                                    average="macro"), rel=1e-6)


def test_binary_ranking_streams_take_a_declared_pos_label():
    """Labels {1, 2}: once the exact AUROC came out inverted (0.19 for 0.81) and the
    binned one NaN; with pos_label=2 both give scikit-learn's value, and without it
    validate=True says to declare it."""
    y = np.array([1, 2, 1, 2, 2, 1, 2, 1])
    s = np.array([0.1, 0.8, 0.3, 0.7, 0.2, 0.4, 0.9, 0.6])
    for kw in ({"capacity": 10}, {}):
        auc, ap = ms.AUROC(pos_label=2, **kw), ms.AveragePrecision(pos_label=2, **kw)
        auc.update(y, s)
        ap.update(y, s)
        assert float(auc.compute()) == pytest.approx(skm.roc_auc_score(y, s))
        assert float(ap.compute()) == pytest.approx(skm.average_precision_score(y, s,
                                                                                pos_label=2))
    with pytest.raises(ValueError, match="pos_label="):
        ms.AUROC(validate=True).update(y, s)
    with pytest.raises(ValueError, match="pos_label"):
        ms.AUROC(pos_label=2).merge(ms.AUROC())
    with pytest.raises(ValueError, match="binary"):
        ms.AUROC(num_classes=3, pos_label=2)
