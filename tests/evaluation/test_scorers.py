"""metrix's scorers equal scikit-learn's, name for name, and its model selection takes them."""

from __future__ import annotations

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

import sklearn.metrics as skm  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402
from sklearn.datasets import make_classification, make_multilabel_classification  # noqa: E402
from sklearn.linear_model import LogisticRegression, PoissonRegressor  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_validate  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402

import metrix  # noqa: E402


@pytest.fixture(scope="module")
def fitted():
    """An estimator and data for each kind of scorer (binary, multiclass,
    multilabel, regression with positive targets, clustering)."""
    Xb, yb = make_classification(200, n_features=6, random_state=0)
    Xm, ym = make_classification(240, n_features=8, n_informative=5, n_classes=3,
                                 random_state=1)
    rng = np.random.default_rng(2)
    Xr = rng.normal(size=(150, 4))
    Xl, yl = make_multilabel_classification(150, n_features=6, n_classes=4, random_state=5)
    yr = np.exp(Xr @ np.array([0.3, -0.2, 0.1, 0.0]) + rng.normal(scale=0.2, size=150))
    return [
        (LogisticRegression(max_iter=500).fit(Xb, yb), Xb, yb),
        (LogisticRegression(max_iter=500).fit(Xm, ym), Xm, ym),
        (KNeighborsClassifier(5).fit(Xl, yl), Xl, yl),
        (PoissonRegressor().fit(Xr, yr), Xr, yr),
        (KMeans(3, n_init=2, random_state=0).fit(Xm), Xm, ym),
    ]


@pytest.mark.parametrize("name", skm.get_scorer_names())
def test_every_scorer_name_equals_sklearn(name, fitted):
    ours, theirs = metrix.get_scorer(name), skm.get_scorer(name)
    assert ours is not metrix.get_scorer(name)  # a new object per call
    compared = 0
    for est, X, y in fitted:
        try:
            want = theirs(est, X, y)
        except (ValueError, TypeError, AttributeError):
            continue  # the wrong kind of estimator or target for this scorer
        got = ours(est, X, y)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        compared += 1
    assert compared, f"no estimator could be scored by {name!r}"


def test_scorer_computes_with_metrix():
    scorer = metrix.get_scorer("neg_log_loss")
    assert scorer._score_func is metrix.log_loss
    assert scorer._sign == -1 and scorer._response_method == "predict_proba"
    assert metrix.get_scorer("positive_likelihood_ratio")._score_func.__module__ == (
        "metrix.evaluation.scorers")
    assert metrix.get_scorer_names() == skm.get_scorer_names()


def test_grid_search_cv_results_equal_sklearn():
    X, y = make_classification(300, random_state=0)
    grid = {"C": [0.01, 1.0, 100.0]}
    pairs = [(metrix.get_scorer("roc_auc"), "roc_auc"),
             (metrix.make_scorer(metrix.fbeta_score, beta=2),
              skm.make_scorer(skm.fbeta_score, beta=2))]
    for ours, theirs in pairs:
        a = GridSearchCV(LogisticRegression(max_iter=500), grid, scoring=ours).fit(X, y)
        b = GridSearchCV(LogisticRegression(max_iter=500), grid, scoring=theirs).fit(X, y)
        np.testing.assert_allclose(a.cv_results_["mean_test_score"],
                                   b.cv_results_["mean_test_score"], rtol=1e-12)
        assert a.best_params_ == b.best_params_


@pytest.mark.parametrize("scoring", [["accuracy", "neg_log_loss"], ("f1", "roc_auc"),
                                     {"acc": "accuracy", "ap": "average_precision"}])
def test_check_scoring_multimetric(scoring):
    X, y = make_classification(200, random_state=3)
    est = LogisticRegression(max_iter=500).fit(X, y)
    ours = metrix.check_scoring(est, scoring)(est, X, y)
    theirs = skm.check_scoring(est, scoring)(est, X, y)
    assert ours.keys() == theirs.keys()
    for k in ours:
        np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-12)
    res = cross_validate(LogisticRegression(max_iter=500), X, y, cv=3,
                         scoring=metrix.check_scoring(est, scoring))
    assert all(f"test_{k}" in res for k in ours)


def test_check_scoring_rules():
    est = LogisticRegression()
    assert metrix.check_scoring(est, "accuracy")._score_func is metrix.accuracy_score
    assert metrix.check_scoring(est) is not None  # the estimator's own score
    with pytest.raises(ValueError, match="looks like it is a metric function"):
        metrix.check_scoring(est, metrix.accuracy_score)
    with pytest.raises(ValueError, match="not a valid scoring value"):
        metrix.get_scorer("accuracy_typo")
    with pytest.raises(ValueError, match="Duplicate elements"):
        metrix.check_scoring(est, ["accuracy", "accuracy"])
    class FitOnly:
        def fit(self, X, y):
            return self

    assert metrix.check_scoring(FitOnly(), None, allow_none=True) is None
    with pytest.raises(TypeError, match="should have a 'score' method"):
        metrix.check_scoring(FitOnly(), None)
    f = metrix.make_scorer(metrix.mean_squared_error, greater_is_better=False)
    assert metrix.get_scorer(f) is f and metrix.get_scorer(None) is None


def test_check_scoring_raise_exc_false_reports_the_failure():
    X, y = make_classification(60, n_classes=3, n_informative=4, random_state=4)
    est = LogisticRegression(max_iter=500).fit(X, y)
    out = metrix.check_scoring(est, ["accuracy", "roc_auc"], raise_exc=False)(est, X, y)
    assert isinstance(out["roc_auc"], str) and "Traceback" in out["roc_auc"]
    assert out["accuracy"] == pytest.approx(skm.accuracy_score(y, est.predict(X)))
