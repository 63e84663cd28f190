"""float16 and bfloat16 scores rank as the values they hold: the same numbers as
scikit-learn on those values in float64, on the training-loop lane (a batch)
and the general path (beyond it), with and without validation.  bfloat16 has
no NumPy dtype: the torch adapter widens it to float32 (exact) for its NumPy
kernels, or counts its bit patterns; many 16-bit scores are ranked by
counting (``metrix.backends._half_ranks``), checked here against the sort."""

from __future__ import annotations

import numpy as np
import pytest

import metrix

sk = pytest.importorskip("sklearn.metrics")
torch = pytest.importorskip("torch")


def _scores(n, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    return y, rng.random(n) + 0.3 * y  # many ties once rounded to 8 or 11 bits


@pytest.mark.parametrize("n", [300, 70_000])  # the lane, and past it
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("validate", [True, False])
def test_binary_low_precision_scores_on_torch(n, dtype, validate):
    y, s = _scores(n)
    low = torch.from_numpy(s).to(getattr(torch, dtype))
    held = low.to(torch.float64).numpy()  # the values the low-precision scores hold
    yt = torch.from_numpy(y)
    for metric, ref in ((metrix.roc_auc_score, sk.roc_auc_score),
                        (metrix.average_precision_score, sk.average_precision_score)):
        got = metric(yt, low, validate=validate)
        assert got.dtype == torch.float32
        assert float(got) == pytest.approx(ref(y, held), rel=1e-6)


@pytest.mark.parametrize("n", [300, 70_000])
def test_binary_float16_scores_on_numpy(n):
    y, s = _scores(n, seed=1)
    low = s.astype(np.float16)
    for metric, ref in ((metrix.roc_auc_score, sk.roc_auc_score),
                        (metrix.average_precision_score, sk.average_precision_score)):
        assert metric(y, low) == pytest.approx(ref(y, low.astype(np.float64)), rel=1e-6)


def test_one_vs_rest_bfloat16_scores_on_torch():
    # bfloat16 rows do not sum to 1 within scikit-learn's tolerance: the
    # reference is the same values in float32 (the lane's widened input)
    rng = np.random.default_rng(2)
    y = torch.from_numpy(rng.integers(0, 3, 500))
    p = rng.random((500, 3)) + np.eye(3)[y.numpy()] * 0.4
    low = torch.from_numpy(p / p.sum(1, keepdims=True)).to(torch.bfloat16)
    kw = dict(multi_class="ovr", labels=[0, 1, 2], validate=False)
    got = metrix.roc_auc_score(y, low, **kw)
    assert float(got) == float(metrix.roc_auc_score(y, low.float(), **kw))
    for k in range(3):  # each class's AUC, against scikit-learn on the values held
        col = low[:, k].to(torch.float64).numpy()
        assert float(metrix.roc_auc_score((y == k).long(), low[:, k], validate=False)) == \
            pytest.approx(sk.roc_auc_score((y == k).numpy(), col), rel=1e-6)


def _half_cases():
    """float16 scores with heavy ties: +0.0 and -0.0 (one value), the extremes,
    subnormals, a few repeated values and noise."""
    rng = np.random.default_rng(7)
    n = 80_000
    y = (rng.random(n) < 0.4).astype(np.int64)
    s = (rng.normal(size=n) + y).astype(np.float16)
    k = n // 8
    s[:k] = 0.0
    s[k:2 * k] = -0.0
    s[2 * k:2 * k + 50] = np.float16(65504)
    s[2 * k + 50:2 * k + 100] = -np.float16(65504)
    s[2 * k + 100:2 * k + 200] = np.float16(6e-8)  # subnormal
    perm = rng.permutation(n)
    return y[perm], s[perm]


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_counted_rank_sums_equal_the_searched_ones(fmt):
    """The 16-bit counting kernels give the sort-and-search kernels' rank sums:
    the pair count exactly, the precision sum to rounding (-0.0 and +0.0 tie)."""
    from metrix.backends._half_ranks import counting_split_sort, histogram_rank_sums
    from metrix.backends.numpy import split_rank_sums_numpy, split_sort_numpy

    y, s = _half_cases()
    if fmt == "bfloat16":  # the top half of float32 patterns
        bits = (s.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        wide = (bits.astype(np.uint32) << 16).view(np.float32)
    else:
        bits, wide = s.view(np.uint16), s.astype(np.float32)
    pos = y == 1
    q, r = counting_split_sort(bits, pos, fmt)
    q32, r32 = split_sort_numpy(wide, pos)
    as_float = (lambda b: (b.astype(np.uint32) << 16).view(np.float32)) if fmt == "bfloat16" \
        else (lambda b: b.view(np.float16).astype(np.float32))
    np.testing.assert_array_equal(as_float(q), q32)  # -0.0 == 0.0
    np.testing.assert_array_equal(as_float(r), r32)
    pairs, prec = histogram_rank_sums(bits[pos], bits[~pos], fmt)
    ref_pairs, ref_prec = split_rank_sums_numpy(q32, r32)
    assert pairs == ref_pairs
    assert prec == pytest.approx(ref_prec, rel=1e-12)


def test_counted_rank_sums_decline_nan():
    from metrix.backends._half_ranks import counting_split_sort, histogram_rank_sums

    s = np.array([0.5, np.nan, 0.25], dtype=np.float16).view(np.uint16)
    pos = np.array([True, False, False])
    assert counting_split_sort(s, pos, "float16") is None
    assert histogram_rank_sums(s[pos], s[~pos], "float16") is None


@pytest.mark.parametrize("validate", [True, False])
def test_many_16_bit_scores_are_counted_and_match_sklearn(validate):
    """Past HALF_MIN_ROWS float16 (NumPy) and bfloat16 (torch) scores take the
    counting kernels; the values are scikit-learn's on the values held."""
    y, s = _half_cases()
    bf = torch.from_numpy(s.astype(np.float32)).to(torch.bfloat16)
    cases = ((y, s, s.astype(np.float64)),
             (torch.from_numpy(y), bf, bf.to(torch.float64).numpy()))
    for yy, ss, held in cases:
        for metric, ref in ((metrix.roc_auc_score, sk.roc_auc_score),
                            (metrix.average_precision_score, sk.average_precision_score)):
            got = float(metric(yy, ss, validate=validate))
            assert got == pytest.approx(ref(y, held), rel=1e-6)


def test_numpy_bfloat16_gives_a_clear_error():
    """NumPy has no bfloat16: an ml_dtypes array either computes (where ml_dtypes
    gives NumPy its arithmetic) to scikit-learn's value, or names the dtype."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    y = np.array([0, 1, 1, 0, 1])
    s = np.array([0.1, 0.8, 0.7, 0.3, 0.2]).astype(ml_dtypes.bfloat16)
    held = s.astype(np.float64)
    cases = ((metrix.roc_auc_score, (y, s), sk.roc_auc_score(y, held)),
             (metrix.average_precision_score, (y, s), sk.average_precision_score(y, held)),
             (metrix.mean_squared_error, (held, s), 0.0))
    for metric, args, want in cases:
        try:
            got = metric(*args)
        except (TypeError, ValueError) as exc:  # an error that names the dtype
            assert "bfloat16" in str(exc)
        else:
            assert float(got) == pytest.approx(want, rel=1e-6, abs=1e-12)
    assert metrix.roc_auc_score(y, s.astype(np.float32)) == pytest.approx(
        sk.roc_auc_score(y, held), rel=1e-6)
