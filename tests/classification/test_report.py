"""classification_report: scikit-learn's text byte for byte, its dict, one statistic."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import metrix

rng = np.random.default_rng(3)
N = 300
YT = rng.integers(0, 5, N)
YP = np.where(rng.random(N) < 0.55, YT, rng.integers(0, 5, N))
W = rng.random(N)
NAMES = np.array(["setosa", "versicolor", "virginica", "a-very-long-flower-name", "x"])
ML_T = (rng.random((N, 4)) < 0.4).astype(np.int64)
ML_P = (rng.random((N, 4)) < 0.4).astype(np.int64)

INPUTS = [
    ((YT, YP), {}),
    ((YT, YP), {"digits": 4}),
    ((YT, YP), {"target_names": list(NAMES)}),
    ((NAMES[YT], NAMES[YP]), {}),                                    # string labels
    ((NAMES[YT], NAMES[YP]), {"labels": ["x", "setosa", "virginica"],
                              "target_names": ["X", "Setosa", "Virginica"]}),
    ((YT, YP), {"labels": [4, 0, 2]}),                               # micro avg, not accuracy
    ((YT, np.where(YP == 1, 0, YP)), {"labels": [0, 1, 2, 3, 4, 8], "zero_division": 1.0}),
    ((YT, YP), {"sample_weight": W}),
    ((YT % 2, YP % 2), {"target_names": ["negative", "positive"], "digits": 3}),
    ((ML_T, ML_P), {}),
    ((ML_T, ML_P), {"labels": [3, 1], "sample_weight": W}),
    ((np.array([7]), np.array([7])), {}),
]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("args,kwargs", INPUTS, ids=[str(i) for i in range(len(INPUTS))])
def test_text_and_dict_match_sklearn(args, kwargs):
    want = _quiet(skm.classification_report, *args, **kwargs)
    got = _quiet(metrix.classification_report, *args, **kwargs)
    assert isinstance(got, str)
    assert got == want
    want_d = _quiet(skm.classification_report, *args, output_dict=True, **kwargs)
    got_d = _quiet(metrix.classification_report, *args, output_dict=True, **kwargs)
    assert got_d == want_d


def test_torch_and_jax_inputs_give_the_same_text():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    want = skm.classification_report(YT, YP, target_names=list(NAMES))
    got_t = metrix.classification_report(torch.asarray(YT), torch.asarray(YP),
                                         target_names=list(NAMES))
    got_j = metrix.classification_report(jnp.asarray(YT), jnp.asarray(YP),
                                         target_names=list(NAMES))
    assert got_t == want
    assert got_j == want


def test_one_bincount(bincount_calls):
    """The report is computed from one confusion-matrix bincount."""
    metrix.classification_report(YT, YP)
    assert len(bincount_calls) == 1


def test_errors_and_warnings():
    with pytest.raises(ValueError, match="Number of classes, 5, does not match size of "
                                         "target_names, 2"):
        metrix.classification_report(YT, YP, target_names=["a", "b"])
    with pytest.warns(UserWarning, match="labels size, 3, does not match size of "
                                         "target_names, 2"):
        metrix.classification_report(YT, YP, labels=[0, 1, 2], target_names=["a", "b"])
    with pytest.raises(ValueError, match="digits"):
        metrix.classification_report(YT, YP, digits=-1)
    with pytest.raises(ValueError, match="zero_division"):
        metrix.classification_report(YT, YP, zero_division=2)
    with pytest.raises(ValueError, match="mix of"):
        metrix.classification_report(ML_T, YP)
