"""metrix's displays: scikit-learn's classes, their numbers computed by metrix (on any library)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import sklearn.calibration as skc  # noqa: E402
import sklearn.metrics as skm  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import cross_validate  # noqa: E402

import metrix  # noqa: E402
import metrix.ranking  # noqa: E402

torch = pytest.importorskip("torch")

THEIRS = {name: getattr(skm, name, None) or getattr(skc, name) for name in metrix.DISPLAYS}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(150, random_state=0)
    clf = LogisticRegression().fit(X, y)
    return X, y, clf


@pytest.mark.parametrize("name", metrix.DISPLAYS)
def test_is_sklearns_class_with_its_signatures(name):
    ours, theirs = getattr(metrix, name), THEIRS[name]
    assert issubclass(ours, theirs) and ours.__module__.startswith("metrix.display")
    for method in ("from_predictions", "from_cv_results", "from_estimator"):
        if hasattr(theirs, method):
            assert (inspect.signature(getattr(ours, method))
                    == inspect.signature(getattr(theirs, method))), method


def _state(display):
    return {k: v for k, v in vars(display).items()
            if not k.endswith("_") and k not in ("curve_kwargs",)}


def _same(a, b, rtol=1e-12):
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys()
    for k in sa:
        va, vb = sa[k], sb[k]
        if isinstance(vb, (np.ndarray, list)) and k != "display_labels":
            assert len(va) == len(vb)
            for x, y in zip(np.atleast_1d(np.asarray(va, dtype=object)),
                            np.atleast_1d(np.asarray(vb, dtype=object))):
                np.testing.assert_allclose(np.asarray(x, float), np.asarray(y, float),
                                           rtol=rtol, atol=rtol)
        elif isinstance(vb, float):
            assert va == pytest.approx(vb, rel=rtol)
        else:
            assert np.array_equal(np.asarray(va), np.asarray(vb)), k


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("name", ["RocCurveDisplay", "PrecisionRecallDisplay",
                                  "DetCurveDisplay", "CalibrationDisplay"])
def test_from_predictions_equals_sklearn(name, lib, data):
    X, y, clf = data
    score = clf.predict_proba(X)[:, 1]
    conv = {"numpy": np.asarray, "torch": torch.as_tensor}.get(lib)
    if conv is None:
        jnp = pytest.importorskip("jax.numpy")
        conv = jnp.asarray
    ours = getattr(metrix, name).from_predictions(conv(y), conv(score))
    theirs = THEIRS[name].from_predictions(y, score)
    _same(ours, theirs, rtol=1e-12 if lib != "jax" else 1e-5)  # JAX: float32 here
    assert type(ours) is getattr(metrix, name)


def test_confusion_and_prediction_error_from_torch(data):
    X, y, clf = data
    pred = clf.predict(X)
    ours = metrix.ConfusionMatrixDisplay.from_predictions(torch.as_tensor(y),
                                                          torch.as_tensor(pred),
                                                          normalize="true")
    _same(ours, skm.ConfusionMatrixDisplay.from_predictions(y, pred, normalize="true"))
    s = clf.decision_function(X)
    ours = metrix.PredictionErrorDisplay.from_predictions(torch.as_tensor(s),
                                                          torch.as_tensor(s * 0.9),
                                                          random_state=0)
    _same(ours, skm.PredictionErrorDisplay.from_predictions(s, s * 0.9, random_state=0))


@pytest.mark.parametrize("name", ["RocCurveDisplay", "PrecisionRecallDisplay"])
def test_from_cv_results_equals_sklearn(name, data):
    X, y, clf = data
    cv = cross_validate(clf, X, y, cv=3, return_estimator=True, return_indices=True)
    _same(getattr(metrix, name).from_cv_results(cv, X, y), THEIRS[name].from_cv_results(cv, X, y))


def test_from_estimator_computes_with_metrix(data, monkeypatch):
    X, y, clf = data
    calls = []
    real = metrix.ranking.roc_curve

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(metrix.ranking, "roc_curve", spy)
    disp = metrix.RocCurveDisplay.from_estimator(clf, X, y)
    assert calls and disp.roc_auc == pytest.approx(skm.roc_auc_score(y, clf.decision_function(X)))


def test_import_metrix_does_not_load_the_displays():
    import subprocess
    import sys

    code = ("import sys, metrix; assert 'metrix.display' not in sys.modules; "
            "metrix.RocCurveDisplay; assert 'metrix.display' in sys.modules")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_without_sklearn_the_error_says_what_to_install():
    import subprocess
    import sys

    code = ("import sys; sys.modules['sklearn'] = None; import metrix\n"
            "try:\n    metrix.RocCurveDisplay\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "install scikit-learn" in out.stdout, out.stdout + out.stderr
