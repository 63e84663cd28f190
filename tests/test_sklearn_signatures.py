"""Every scikit-learn metric of the families metrix covers exists in metrix with
scikit-learn's parameters, kinds and defaults (metrix may add its own, such as
``validate``)."""

import inspect
import math

import pytest

import metrix

skm = pytest.importorskip("sklearn.metrics")

#: the scikit-learn modules whose public functions metrix provides
FAMILIES = ("sklearn.metrics._classification", "sklearn.metrics._ranking",
            "sklearn.metrics._regression", "sklearn.metrics.cluster._supervised",
            "sklearn.metrics.cluster._unsupervised")


def _covered():
    return sorted(n for n in skm.__all__
                  if inspect.isfunction(getattr(skm, n))
                  and getattr(skm, n).__module__ in FAMILIES)


def test_families_are_found():
    assert {"f1_score", "roc_auc_score", "r2_score", "confusion_matrix_at_thresholds",
            "metric_at_thresholds", "d2_brier_score"} <= set(_covered())


def _same_default(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a is b or (type(a) is type(b) and a == b)


@pytest.mark.parametrize("name", _covered())
def test_signature_matches_scikit_learn(name):
    assert hasattr(metrix, name), f"metrix has no {name}"
    theirs = inspect.signature(getattr(skm, name)).parameters
    ours = inspect.signature(getattr(metrix, name)).parameters
    for param, p in theirs.items():
        assert param in ours, f"{name}: no parameter {param!r}"
        q = ours[param]
        assert _same_default(p.default, q.default), (
            f"{name}({param}=...): default {q.default!r}, scikit-learn {p.default!r}")
        if p.kind is not inspect.Parameter.KEYWORD_ONLY:
            assert q.kind is p.kind, f"{name}: {param} is {q.kind}, scikit-learn {p.kind}"
    # scikit-learn's positional parameters keep their order
    positional = [n for n, p in theirs.items() if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    assert [n for n in ours if n in positional] == positional
