"""consensus_score against scikit-learn, on every backend (the ``xp`` fixture)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix


def _sets(seed, k_a=3, k_b=4, n_rows=12, n_cols=9):
    r = np.random.RandomState(seed)
    a = (r.rand(k_a, n_rows) < 0.4, r.rand(k_a, n_cols) < 0.5)
    b = (r.rand(k_b, n_rows) < 0.4, r.rand(k_b, n_cols) < 0.5)
    b[0][0], b[1][0] = a[0][1], a[1][1]  # one shared bicluster
    return a, b


def test_signature_is_scikit_learns():
    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert params(metrix.consensus_score) == params(skm.consensus_score)


@pytest.mark.parametrize("seed", range(4))
def test_matches_sklearn(xp, seed):
    a, b = _sets(seed, k_a=2 + seed % 3, k_b=4 - seed % 2)
    want = skm.consensus_score(a, b)
    got = metrix.consensus_score(tuple(map(xp.asarray, a)), tuple(map(xp.asarray, b)))
    if xp.lib == "numpy":
        assert type(got) is float
    else:
        assert got.shape == () and type(got) is not float
    np.testing.assert_allclose(xp.to_numpy(got) if xp.lib != "numpy" else got, want,
                               rtol=1e-6 if xp.float_dtype == "float32" else 1e-12)


def test_sklearn_cases():
    a = [[True, True, False, False], [False, False, True, True]]
    b = a[::-1]
    for x, y, want in [((a, a), (a, a), 1), ((a, a), (b, b), 1), ((a, b), (b, a), 1),
                       ((a, a), (b, a), 0), ((b, b), (a, b), 0)]:
        assert metrix.consensus_score(x, y) == want
    rows = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, 1]], dtype=bool)
    idx = [0, 2]
    assert metrix.consensus_score((rows, rows), (rows[idx], rows[idx])) == pytest.approx(2 / 3)


def test_callable_similarity_called_per_pair():
    a, b = _sets(7)
    calls = []

    def overlap(ar, ac, br, bc):
        calls.append(1)
        return float(np.sum(ar & br) > 0)

    want = skm.consensus_score(a, b, similarity=overlap)
    n_calls = len(calls)
    assert metrix.consensus_score(a, b, similarity=overlap) == pytest.approx(want)
    assert len(calls) == 2 * n_calls == 2 * 3 * 4


def test_bad_input_errors():
    a, b = _sets(0)
    with pytest.raises(ValueError, match="'a' parameter of consensus_score must be an instance "
                                         "of 'tuple'"):
        metrix.consensus_score(list(a), b)
    with pytest.raises(ValueError, match="'similarity' parameter"):
        metrix.consensus_score(a, b, similarity="dice")
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        metrix.consensus_score((a[0], a[1][:2]), b)
