"""Calibration: ``calibration_curve`` against scikit-learn, ``calibration_error`` and
``metrix.stream.CalibrationError`` against TorchMetrics.

What is compared: every number to the reference on NumPy, torch CPU and JAX
CPU; probabilities exactly on bin edges (the edges are ``torch.linspace``'s,
dtype by dtype); weights against repeated rows (zeros included); uneven
batches (empty, one sample), merges and ``state_dict`` round trips of the
stream class; and the errors for bad input.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from sklearn.calibration import calibration_curve as sk_curve
from torchmetrics.classification import BinaryCalibrationError, MulticlassCalibrationError
from torchmetrics.functional.classification import (
    binary_calibration_error,
    multiclass_calibration_error,
)

import metrix
import metrix.stream as ms
from metrix.classification.calibration import bin_edges

RNG = np.random.default_rng(7)
N, C = 300, 5
YB = RNG.integers(0, 2, N)
PB = RNG.random(N)
PB_TIED = np.round(PB, 1)                  # many probabilities on the edges k / 5, k / 10
YC = RNG.integers(0, C, N)
PC = RNG.dirichlet(np.ones(C), N)
PC_TIED = np.round(PC, 1)
W_INT = RNG.integers(0, 4, N)              # zeros included

NORMS = ("l1", "l2", "max")


def tm(y, p, *, n_bins=15, norm="l1", dtype=torch.float64):
    pt = torch.as_tensor(np.asarray(p), dtype=dtype)
    yt = torch.as_tensor(np.asarray(y), dtype=torch.int64)
    if pt.ndim == 1:
        return float(binary_calibration_error(pt, yt, n_bins=n_bins, norm=norm))
    return float(multiclass_calibration_error(pt, yt, pt.shape[1], n_bins=n_bins, norm=norm))


def _np(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


# -- the bins ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_edges_are_torch_linspace(dtype):
    for n in range(1, 300):
        want = torch.linspace(0, 1, n + 1, dtype=dtype).tolist()
        assert list(bin_edges(n, dtype == torch.float32)) == want, n


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n_bins", [1, 3, 5, 7, 9, 10, 13, 14, 15, 20])
def test_probabilities_on_edges_fall_as_in_torchmetrics(dtype, n_bins):
    # every edge of several bin counts, 0 and 1 included, and the tenths: the
    # float32 edges of 9, 13, 14, 15 bins differ from the rounded k / n
    on_edges = np.concatenate([torch.linspace(0, 1, k + 1, dtype=dtype).numpy()
                               for k in (n_bins, 5, 9, 10, 15)] + [np.round(PB[:60], 1)])
    on_edges = on_edges.astype(torch.empty(0, dtype=dtype).numpy().dtype)
    y = RNG.integers(0, 2, on_edges.shape[0])
    for norm in NORMS:
        want = tm(y, on_edges, n_bins=n_bins, norm=norm, dtype=dtype)
        got = metrix.calibration_error(torch.as_tensor(y), torch.as_tensor(on_edges),
                                       n_bins=n_bins, norm=norm)
        assert got.dtype == dtype
        np.testing.assert_allclose(float(got), want, rtol=1e-6 if dtype == torch.float32
                                   else 1e-12, atol=1e-7)
        # NumPy and the stream bin the same way
        got_np = metrix.calibration_error(y, on_edges, n_bins=n_bins, norm=norm)
        np.testing.assert_allclose(got_np, want, rtol=1e-6, atol=1e-7)


# -- calibration_curve ------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 2, 5, 10, 13])
@pytest.mark.parametrize("p", [PB, PB_TIED], ids=["continuous", "tied"])
def test_curve_equals_sklearn_bit_for_bit(strategy, n_bins, p):
    for n in (1, 2, 7, N):
        want = sk_curve(YB[:n], p[:n], n_bins=n_bins, strategy=strategy)
        for conv in (np.asarray, torch.as_tensor):
            got = metrix.calibration_curve(conv(YB[:n]), conv(p[:n]), n_bins=n_bins,
                                           strategy=strategy)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(_np(g), w)


def test_curve_jax_float32_and_pos_label():
    jnp = pytest.importorskip("jax.numpy")
    p32 = PB_TIED.astype(np.float32)
    for strategy in ("uniform", "quantile"):
        want = sk_curve(YB, p32, n_bins=7, strategy=strategy)
        got = metrix.calibration_curve(jnp.asarray(YB), jnp.asarray(p32), n_bins=7,
                                       strategy=strategy)
        for g, w in zip(got, want):
            assert g.dtype == jnp.float32
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)
    labels = np.array(["no", "yes"])[YB]
    for pos in ("yes", "no"):
        want = sk_curve(labels, PB, pos_label=pos)
        got = metrix.calibration_curve(labels, PB, pos_label=pos)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("args, kw", [
    ((YB, PC[:, :2]), {}),
    ((YB, PB[:-1]), {}),
    ((YC, PB), {}),
    ((YC, PB), {"pos_label": 1}),
    ((np.array(["a", "b"])[YB], PB), {}),
    ((YB, PB + 0.5), {}),
    ((YB, PB - 0.5), {}),
    ((YB, PB), {"n_bins": 0}),
    ((YB, PB), {"n_bins": 2.0}),
    ((YB, PB), {"strategy": "kmeans"}),
])
def test_curve_errors_are_sklearns(args, kw):
    with pytest.raises(ValueError) as want:
        sk_curve(*args, **kw)
    with pytest.raises(ValueError) as got:
        metrix.calibration_curve(*args, **kw)
    if "strategy" in kw:  # scikit-learn prints a set: its order follows the string hashes
        assert sorted(str(got.value)) == sorted(str(want.value))
    else:
        assert str(got.value) == str(want.value)


def test_curve_nan_raises():
    p = PB.copy()
    p[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        metrix.calibration_curve(YB, p)


# -- calibration_error ------------------------------------------------------------------

@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n_bins", [1, 4, 10, 15])
def test_error_equals_torchmetrics(norm, n_bins):
    jnp = pytest.importorskip("jax.numpy")
    for p in (PB, PB_TIED):
        want = tm(YB, p, n_bins=n_bins, norm=norm)
        assert metrix.calibration_error(YB, p, n_bins=n_bins, norm=norm) == pytest.approx(
            want, rel=1e-12, abs=1e-15)
        got = metrix.calibration_error(torch.as_tensor(YB), torch.as_tensor(p),
                                       n_bins=n_bins, norm=norm)
        assert got.dtype == torch.float64 and got.ndim == 0
        assert float(got) == pytest.approx(want, rel=1e-12, abs=1e-15)
        got = metrix.calibration_error(jnp.asarray(YB), jnp.asarray(p, dtype=jnp.float32),
                                       n_bins=n_bins, norm=norm)
        assert float(got) == pytest.approx(tm(YB, p.astype(np.float32), n_bins=n_bins,
                                              norm=norm, dtype=torch.float32), rel=1e-5)
    for p in (PC, PC_TIED):
        # TorchMetrics' multiclass confidences are float32 whatever the input's dtype
        want = tm(YC, p.astype(np.float32), n_bins=n_bins, norm=norm, dtype=torch.float32)
        got = metrix.calibration_error(torch.as_tensor(YC), torch.as_tensor(p, dtype=torch.float32),
                                       n_bins=n_bins, norm=norm)
        assert float(got) == pytest.approx(want, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("norm", NORMS)
def test_weights_are_repeated_rows(norm):
    for y, p in ((YB, PB_TIED), (YC, PC)):
        want = metrix.calibration_error(np.repeat(y, W_INT), np.repeat(p, W_INT, axis=0),
                                        norm=norm)
        got = metrix.calibration_error(y, p, norm=norm, sample_weight=W_INT)
        assert got == pytest.approx(want, rel=1e-12)
        # a weight scale changes nothing
        assert metrix.calibration_error(y, p, norm=norm, sample_weight=W_INT * 0.25) == \
            pytest.approx(want, rel=1e-12)


def test_special_inputs():
    # one sample: |confidence - accuracy|
    assert metrix.calibration_error([1], [0.3]) == pytest.approx(0.7)
    assert metrix.calibration_error([2], [[0.1, 0.2, 0.7]]) == pytest.approx(0.3)
    # constant probabilities: one bin
    const = np.full(N, 0.5)
    for norm in NORMS:
        assert metrix.calibration_error(YB, const, norm=norm) == pytest.approx(
            abs(YB.mean() - 0.5))
    # probability 1.0 has its own bin (TorchMetrics' extra bucket)
    y = np.array([1, 0, 1, 1])
    p = np.array([1.0, 0.95, 0.96, 0.97])
    assert metrix.calibration_error(y, p, n_bins=2, norm="max") == pytest.approx(
        tm(y, p, n_bins=2, norm="max"))
    # the first of tied maxima is the predicted class (torch's argmax)
    p2 = np.array([[0.4, 0.4, 0.2], [0.3, 0.35, 0.35]])
    assert metrix.calibration_error([1, 2], p2) == pytest.approx(tm([1, 2], p2))
    # pos_label; labels {-1, 1}; bool labels
    assert metrix.calibration_error(YB + 1, PB, pos_label=2) == pytest.approx(tm(YB, PB))
    assert metrix.calibration_error(2 * YB - 1, PB) == pytest.approx(tm(YB, PB))
    assert metrix.calibration_error(YB.astype(bool), PB) == pytest.approx(tm(YB, PB))


@pytest.mark.parametrize("args, kw, match", [
    ((YB, PB + 0.5), {}, "outside \\[0, 1\\].*sigmoid"),
    ((YC, PC * 2), {}, "outside \\[0, 1\\].*softmax"),
    ((YB, np.where(np.arange(N) == 3, np.nan, PB)), {}, "NaN"),
    ((YC, PB), {}, "pos_label is not specified"),
    ((YC, PB), {"pos_label": 1}, "Only binary"),
    ((YC + 1, PC), {}, "class indices in 0..4"),
    ((YC + 0.5, PC), {}, "class indices"),
    ((YB, PB[:-1]), {}, "inconsistent numbers of samples"),
    ((YB[:0], PB[:0]), {}, "0 sample"),
    ((YB, PB), {"norm": "l3"}, "norm must be one of"),
    ((YB, PB), {"n_bins": 0}, "n_bins"),
    ((YB, PB), {"sample_weight": np.ones((N, 2))}, "1D"),
])
def test_error_bad_input(args, kw, match):
    with pytest.raises(ValueError, match=match):
        metrix.calibration_error(*args, **kw)


def test_error_validate_false_reads_nothing_and_stays_defined():
    # a probability outside [0, 1] lands in an end bin; NaN makes the result NaN
    got = metrix.calibration_error(torch.as_tensor(YB), torch.as_tensor(PB - 0.1),
                                   validate=False)
    assert torch.isfinite(got)
    p = PB.copy()
    p[0] = np.nan
    assert np.isnan(metrix.calibration_error(YB, p, validate=False))


# -- the stream class --------------------------------------------------------------------

CUTS = (0, 0, 1, 2, 60, 60, 200, 299, N)  # an empty batch, one sample, uneven ones


def _batches(*arrays):
    for lo, hi in zip(CUTS[:-1], CUTS[1:]):
        yield tuple(a[lo:hi] for a in arrays)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("multiclass", [False, True])
def test_stream_equals_torchmetrics_class(norm, multiclass):
    y, p = (YC, PC_TIED) if multiclass else (YB, PB_TIED)
    p32 = torch.as_tensor(p, dtype=torch.float32)
    ref = (MulticlassCalibrationError(C, n_bins=10, norm=norm) if multiclass
           else BinaryCalibrationError(n_bins=10, norm=norm))
    m = ms.CalibrationError(10, norm, C if multiclass else None)
    for yb, pb in _batches(torch.as_tensor(y), p32):
        m.update(yb, pb)
        if yb.shape[0]:
            ref.update(pb, yb)
    got = m.compute()
    assert got.dtype == torch.float32 and got.ndim == 0
    assert float(got) == pytest.approx(float(ref.compute()), rel=1e-5, abs=1e-7)
    # the one-shot function on all the data: the same formula
    assert float(got) == pytest.approx(float(metrix.calibration_error(
        torch.as_tensor(y), p32, n_bins=10, norm=norm)), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
def test_stream_merge_state_dict_and_weights(lib):
    if lib == "jax":
        conv = pytest.importorskip("jax.numpy").asarray
    else:
        conv = torch.as_tensor if lib == "torch" else np.asarray
    want = metrix.calibration_error(YC, PC, n_bins=8, norm="l2", sample_weight=W_INT)
    a, b = ms.CalibrationError(8, "l2", C), ms.CalibrationError(8, "l2", C)
    for i, (yb, pb, wb) in enumerate(_batches(YC, PC, W_INT)):
        (a if i % 2 else b).update(conv(yb), conv(pb), conv(wb))
    a.merge(b)
    assert float(a.compute()) == pytest.approx(want, rel=1e-5 if lib == "jax" else 1e-12)
    fresh = ms.CalibrationError(8, "l2", C)
    fresh.load_state_dict(a.state_dict())
    assert float(fresh.compute()) == pytest.approx(float(a.compute()), rel=1e-12)
    with pytest.raises(ValueError):
        ms.CalibrationError(9, "l2", C).load_state_dict(a.state_dict())


def test_stream_ignore_index_equals_torchmetrics():
    y = YB.copy()
    y[::7] = -1
    ref = BinaryCalibrationError(n_bins=6, ignore_index=-1)
    m = ms.CalibrationError(6, ignore_index=-1)
    pt = torch.as_tensor(PB, dtype=torch.float32)
    ref.update(pt, torch.as_tensor(y))
    m.update(torch.as_tensor(y), pt)
    assert float(m.compute()) == pytest.approx(float(ref.compute()), rel=1e-5)


def test_stream_validate_and_shapes():
    with pytest.raises(ValueError, match="probabilities"):
        ms.CalibrationError(validate=True).update(YB, PB + 0.5)
    with pytest.raises(ValueError, match="0 or 1"):
        ms.CalibrationError(validate=True).update(YB + 1, PB)
    with pytest.raises(ValueError, match="in 0..4"):
        ms.CalibrationError(num_classes=C, validate=True).update(YC + 1, PC)
    with pytest.raises(ValueError, match="num_classes=5"):
        ms.CalibrationError().update(YC, PC)
    with pytest.raises(ValueError, match="n_samples, 3"):
        ms.CalibrationError(num_classes=3).update(YC, PC)
    with pytest.raises(ValueError, match="inconsistent"):
        ms.CalibrationError().update(YB[:3], PB[:4])
    with pytest.raises(ValueError, match="norm"):
        ms.CalibrationError(norm="l0")
    with pytest.raises(ValueError, match="n_bins"):
        ms.CalibrationError(n_bins=0)
    with pytest.raises(ValueError, match="before any sample"):
        ms.CalibrationError().compute()


def test_stream_functional_under_jit():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    spec = ms.CalibrationStream(10, "l1", C)
    state = spec.init(jnp.zeros((0, C), dtype=jnp.float32))
    update = jax.jit(spec.update)
    for yb, pb in _batches(YC, PC):
        state = update(state, jnp.asarray(yb), jnp.asarray(pb, dtype=jnp.float32))
    got = jax.jit(spec.compute)(state)
    want = tm(YC, PC.astype(np.float32), n_bins=10, dtype=torch.float32)
    with warnings.catch_warnings():
        assert float(got) == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("conv", [np.asarray, torch.as_tensor], ids=["numpy", "torch"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_bins", [3, 9, 14, 15, 100])  # (100: float64 past the bin table)
def test_in_place_kernel_equals_the_pure_update(conv, dtype, n_bins):
    # eager CPU: the wrapper adds unweighted batches in place with NumPy's kernel
    # (arithmetic bins); the pure update bins with searchsorted: the same histogram,
    # edges, their neighbours and out-of-range values included
    edges = np.asarray(bin_edges(n_bins, dtype == np.float32), dtype=dtype)
    p = np.concatenate([edges, np.nextafter(edges, dtype(2)), np.nextafter(edges, dtype(-1)),
                        np.array([-0.5, 1.5, 0.0, 1.0, np.inf, -np.inf]),
                        RNG.random(50)]).astype(dtype)
    p = np.concatenate([p, np.tile(p, 3000 // p.shape[0] + 1)])  # a batch past _SEARCH_ROWS:
    # the second update bins it by the bin table, or arithmetically past it (the first,
    # of one row, searches)
    y = RNG.integers(0, 2, p.shape[0])
    pc = np.stack([p, (1 - p) * 0.5, (1 - p) * 0.5], axis=1).astype(dtype)
    yc = RNG.integers(0, 3, p.shape[0])
    for k, (yy, pp) in ((None, (y, p)), (3, (yc, pc))):
        m = ms.CalibrationError(n_bins, num_classes=k)
        m.update(conv(yy[:1]), conv(pp[:1]))  # creates the state (pure update)
        m.update(conv(yy[1:]), conv(pp[1:]))  # in place
        assert m._add is not None
        spec = m.spec
        want = spec.update(spec.init(conv(pp)), conv(yy), conv(pp))["hist"]
        got, want = _np(m.state["hist"]), _np(want)
        # counts exact (the bins); the confidence sums up to their order of addition
        np.testing.assert_array_equal(got[:, [0, 2]], want[:, [0, 2]])
        np.testing.assert_allclose(got[:, 1], want[:, 1], rtol=1e-13)


@pytest.mark.parametrize("conv", [np.asarray, torch.as_tensor], ids=["numpy", "torch"])
@pytest.mark.parametrize("rows", [1, 300, 512, 513, 2047, 2048, 5000])
@pytest.mark.parametrize("c", [2, 10, 32, 33])
@pytest.mark.filterwarnings("ignore:torch.searchsorted")
def test_in_place_kernel_equals_the_pure_update_across_its_routes(conv, rows, c):
    # the kernel's routes by batch size (binary search up to _SEARCH_ROWS rows, the
    # bin table past it) and, multiclass, by shape (the row argmax, or column-wise
    # from _COLUMN_ROWS rows of at most _COLUMN_CLASSES classes): the same histogram
    # as the pure update, with tied top probabilities (the first class wins), edges,
    # narrow and unsigned labels, float32 / float64 and strided / Fortran-ordered rows
    n_bins = 10
    for dtype in (np.float32, np.float64):
        edges = np.asarray(bin_edges(n_bins, dtype == np.float32), dtype=dtype)
        logits = RNG.integers(0, 4, (rows, c)).astype(dtype)  # many ties
        p = (logits / logits.sum(axis=1, keepdims=True).clip(1)).astype(dtype)
        p[: min(rows, edges.shape[0]), 0] = edges[: min(rows, edges.shape[0])]
        p[RNG.random(rows) < 0.1] = dtype(1 / c)  # a whole row tied
        y = RNG.integers(0, c, rows).astype(np.uint8)
        yb = RNG.integers(0, 2, rows).astype(np.int8)
        for k, yy, pp in ((c, y, p), (c, y, np.asfortranarray(p)), (None, yb, p[:, 0]),
                          (None, yb, np.ascontiguousarray(p[:, :1]).reshape(-1))):
            m = ms.CalibrationError(n_bins, num_classes=k)
            m.update(conv(yy[:1]), conv(pp[:1]))  # creates the state (pure update)
            m.update(conv(yy), conv(pp))  # in place
            assert m._add is not None
            spec = m.spec
            state = spec.init(conv(pp))
            state = spec.update(spec.update(state, conv(yy[:1]), conv(pp[:1])),
                                conv(yy), conv(pp))
            got, want = _np(m.state["hist"]), _np(state["hist"])
            np.testing.assert_array_equal(got[:, [0, 2]], want[:, [0, 2]])
            np.testing.assert_allclose(got[:, 1], want[:, 1], rtol=1e-12)
