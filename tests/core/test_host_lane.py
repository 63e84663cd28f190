"""The training-loop call (``validate=False``, declared ``labels``) on eager torch
CPU tensors and on NumPy arrays.

Checked by value only, through the public functions: scikit-learn's numbers
(and the documented result types) on both sides of every condition that picks
how such a call is computed (validated or not, labels as a host list or an
array, weights or none, 1-D arrays of one type, the label and float dtypes,
sizes around 512, 8,192 and 65,536 rows, labels outside the declared ones).
Its speed is checked as a kernel budget: on torch CPU a training-loop call of
a batch runs on NumPy views of the tensors, a handful of aten ops, not torch
kernels (:data:`HOST_OPS`; the accelerator path has its own budget in
``tests/accelerator``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix

torch = pytest.importorskip("torch")
from tests.accelerator.test_sync_free import BUDGETED, count_ops  # noqa: E402

C = 5
L = list(range(C))
MEAN_ERRORS = {
    "mean_absolute_error": ("absolute", skm.mean_absolute_error),
    "mean_squared_error": ("squared", skm.mean_squared_error),
    "root_mean_squared_error": ("root", skm.root_mean_squared_error),
}
PRF_METRICS = {
    "f1_score": skm.f1_score,
    "precision_score": skm.precision_score,
    "recall_score": skm.recall_score,
}
#: the most aten ops a training-loop call on torch CPU tensors may dispatch: the
#: tensors' NumPy views and the results back (one per output array); a torch
#: path dispatches 10 to 60
HOST_OPS = 6
#: the largest batch whose label metrics, and whose mean errors, run on NumPy
#: views of torch CPU tensors (past them torch's own kernels cost less)
LABEL_ROWS, FLOAT_ROWS = 1 << 16, 8192


def _labels(n, seed, lo=0, hi=C, dtype=np.int64):
    rng = np.random.default_rng(seed)
    y = rng.integers(lo, hi, n).astype(dtype)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(lo, hi, n)).astype(dtype)
    return y, p


LIBS = {"numpy": lambda a: a, "torch": torch.from_numpy}


def _np(x):
    return None if x is None else np.asarray(x)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _direct_counts(y, p, labels=L):
    """The declared confusion matrix by a loop (scikit-learn refuses a batch
    with no declared label in ``y``; the training-loop call counts it)."""
    pos = {v: i for i, v in enumerate(labels)}
    cm = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for t, q in zip(y.tolist(), p.tolist()):
        if t in pos and q in pos:
            cm[pos[t], pos[q]] += 1
    return cm


# -- confusion matrix -------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("n", [1, 2, 255, 512, 513, 4096])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8])
@pytest.mark.parametrize("span", ["declared", "undeclared"])
def test_confusion_matrix_equals_scikit_learn(lib, n, dtype, span):
    lo, hi = (0, C) if span == "declared" else (-3 if dtype != np.uint8 else 0, C + 3)
    y, p = _labels(n, n, lo, hi, dtype)
    conv = LIBS[lib]
    got = metrix.confusion_matrix(conv(y), conv(p), labels=L, validate=False)
    want = _direct_counts(y, p)
    if np.isin(y, L).any():
        np.testing.assert_array_equal(want, skm.confusion_matrix(y, p, labels=L))
    assert type(got) is type(conv(y))
    np.testing.assert_array_equal(_np(got), want)
    assert _np(got).dtype == np.int64


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("n", [LABEL_ROWS, LABEL_ROWS + 1])
def test_confusion_matrix_around_the_batch_rows(lib, n):
    """The largest training-loop batch and one row more: the same counts."""
    y, p = _labels(n, 3, -1, C + 1)
    conv = LIBS[lib]
    for labels in (L, np.arange(C)):
        got = metrix.confusion_matrix(conv(y), conv(p), labels=labels, validate=False)
        np.testing.assert_array_equal(_np(got), skm.confusion_matrix(y, p, labels=L))
    w = np.random.default_rng(n).random(n)
    got = metrix.confusion_matrix(conv(y), conv(p), labels=L, sample_weight=conv(w),
                                  validate=False)
    np.testing.assert_allclose(_np(got), skm.confusion_matrix(y, p, labels=L, sample_weight=w),
                               rtol=1e-12)


@pytest.mark.parametrize("lib", LIBS)
def test_confusion_matrix_label_forms_and_dtypes(lib):
    """Declared labels in every host form, as an array, absent; label dtypes."""
    y, p = _labels(300, 1)
    conv = LIBS[lib]
    want = skm.confusion_matrix(y, p, labels=L)
    for labels in (L, tuple(L), range(C), [float(v) for v in L], [np.int64(v) for v in L],
                   np.arange(C), None):
        for validate in (False, True):
            got = metrix.confusion_matrix(conv(y), conv(p), labels=labels, validate=validate)
            assert type(got) is type(conv(y))
            np.testing.assert_array_equal(_np(got), want, err_msg=f"{labels!r} {validate}")
    for labels in ([1, 2, 3], [0], [4, 1, 2], [3, 0]):  # other sets, other orders
        got = metrix.confusion_matrix(conv(y), conv(p), labels=labels, validate=False)
        np.testing.assert_array_equal(_np(got), _direct_counts(y, p, labels), err_msg=labels)
        np.testing.assert_array_equal(_np(got), skm.confusion_matrix(y, p, labels=labels))
    for dtype in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64):
        a, b = (v % 2 if dtype == np.bool_ else v for v in (y, p))
        got = metrix.confusion_matrix(conv(a.astype(dtype)), conv(b.astype(dtype)), labels=L,
                                      validate=False)
        np.testing.assert_array_equal(_np(got), skm.confusion_matrix(a, b, labels=L),
                                      err_msg=str(dtype))


@pytest.mark.parametrize("lib", LIBS)
def test_confusion_matrix_weights_normalize_and_mixed_inputs(lib):
    y, p = _labels(64, 2)
    conv = LIBS[lib]
    w = np.random.default_rng(2).random(64)
    for sw in (None, np.ones(64), w, w.astype(np.float32)):
        for normalize in (None, "true", "pred", "all"):
            got = metrix.confusion_matrix(conv(y), conv(p), labels=L, normalize=normalize,
                                          sample_weight=None if sw is None else conv(sw),
                                          validate=False)
            want = skm.confusion_matrix(y, p, labels=L, normalize=normalize, sample_weight=sw)
            rtol = 1e-6 if sw is not None and sw.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(_np(got), want, rtol=rtol, atol=1e-12)
    # a tensor and a list: the values are scikit-learn's
    got = metrix.confusion_matrix(conv(y), list(p), labels=L, validate=False)
    np.testing.assert_array_equal(_np(got), skm.confusion_matrix(y, p, labels=L))
    # inputs scikit-learn refuses are refused
    for a, b, match in [(conv(y[:10]), conv(p[:11]), "inconsistent numbers of samples"),
                        (conv(y.reshape(8, 8)), conv(p.reshape(8, 8)), "not supported"),
                        (conv(y[:0]), conv(p[:0]), "empty")]:
        with pytest.raises(ValueError, match=match):
            metrix.confusion_matrix(a, b, labels=L, validate=False)


def test_confusion_matrix_off_the_host():
    """Tensors off the host (``meta``): a C x C int64 result there; two devices
    are refused."""
    y, p = (torch.from_numpy(v) for v in _labels(64, 3))
    got = metrix.confusion_matrix(y.to("meta"), p.to("meta"), labels=L, validate=False)
    assert got.device.type == "meta" and got.shape == (C, C) and got.dtype == torch.int64
    with pytest.raises(ValueError, match="different devices"):
        metrix.confusion_matrix(y, p.to("meta"), labels=L, validate=False)


# -- precision / recall / F ------------------------------------------------------

@pytest.mark.parametrize("name", PRF_METRICS)
@pytest.mark.parametrize("average", ["macro", "micro", "weighted", None, "binary"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("n", [1, 256, 513, 4096])
def test_prf_on_torch_cpu_equals_scikit_learn(name, average, dtype, n):
    c = 2 if average == "binary" else C
    labels = list(range(c))
    rng = np.random.default_rng(n)
    # undeclared labels on both sides (above C; below 0 where the dtype has them)
    lo = 0 if dtype == np.uint8 else -1
    y = rng.integers(lo, c + 2, n).astype(dtype)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(lo, c + 2, n)).astype(dtype)
    for zd in ("warn", 0.0, 1):
        got = getattr(metrix, name)(torch.from_numpy(y), torch.from_numpy(p), labels=labels,
                                    average=average, zero_division=zd, validate=False)
        assert isinstance(got, torch.Tensor) and got.dtype == torch.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scikit-learn's ill-defined warnings
            # binary: pos_label's score (scikit-learn refuses "binary" on the
            # undeclared labels a validate=False call leaves out)
            want = PRF_METRICS[name](y.astype(np.int64), p.astype(np.int64), labels=labels,
                                     average=None if average == "binary" else average,
                                     zero_division=0.0 if zd == "warn" else zd)
            if average == "binary":
                want = want[1]
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("lib", LIBS)
def test_prf_conditions_equal_scikit_learn(lib):
    """Each condition of the call on either side: validated, weighted, other
    label sets or none, a given pos_label, float / bool / int8 labels, mixed
    array types; and scikit-learn's errors."""
    y, p = _labels(300, 9)
    conv = LIBS[lib]
    yt, pt = conv(y), conv(p)
    got = metrix.precision_recall_fscore_support(yt, pt, labels=L, average=None, validate=False)
    want = skm.precision_recall_fscore_support(y, p, labels=L)
    for g, w in zip(got, want):
        np.testing.assert_allclose(_np(g), w, rtol=1e-12)
    assert _np(got[3]).dtype == np.int64
    np.testing.assert_allclose(
        _np(metrix.fbeta_score(yt, pt, beta=2.0, labels=L, average="weighted", validate=False)),
        skm.fbeta_score(y, p, beta=2.0, labels=L, average="weighted"), rtol=1e-12)
    w = np.random.default_rng(9).random(300)
    cases = [
        (dict(labels=L, average="macro"), {}),                                 # validated
        (dict(labels=L, average="macro", validate=False, sample_weight=conv(w)),
         dict(sample_weight=w)),                                               # weighted
        (dict(labels=[1, 2], average="macro", validate=False), dict(labels=[1, 2])),
        (dict(labels=[3, 0, 1], average=None, validate=False), dict(labels=[3, 0, 1])),
        (dict(labels=np.arange(C), average="micro", validate=False), {}),      # an array
        (dict(average="macro", validate=False), {}),                           # no labels
    ]
    for kwargs, sk in cases:
        sk = {"labels": L, "average": kwargs["average"], **sk}
        np.testing.assert_allclose(_np(metrix.f1_score(yt, pt, **kwargs)),
                                   skm.f1_score(y, p, **sk), rtol=1e-12, err_msg=str(kwargs))
    with pytest.warns(UserWarning, match="pos_label"):  # ignored by a non-binary average
        got = metrix.f1_score(yt, pt, labels=L, average="macro", pos_label=3, validate=False)
    np.testing.assert_allclose(_np(got), skm.f1_score(y, p, average="macro"), rtol=1e-12)
    for a, b in [(y.astype(np.float64), p.astype(np.float64)), (y % 2 == 1, p % 2 == 1),
                 (y.astype(np.int8), p.astype(np.int8))]:
        np.testing.assert_allclose(
            _np(metrix.f1_score(conv(a), conv(b), labels=L, average="macro", validate=False)),
            _quiet(skm.f1_score, a, b, labels=L, average="macro", zero_division=0),
            rtol=1e-12, err_msg=str(a.dtype))
    np.testing.assert_allclose(  # a tensor / array and a NumPy array
        _np(metrix.f1_score(yt, p, labels=L, average="macro", validate=False)),
        skm.f1_score(y, p, labels=L, average="macro"), rtol=1e-12)
    with pytest.raises(ValueError, match="average='binary'"):  # binary, C = 5
        metrix.f1_score(yt, pt, labels=L, validate=False)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        metrix.f1_score(yt[:10], pt[:11], labels=L, average="macro", validate=False)


@pytest.mark.parametrize("n", [2000, LABEL_ROWS, LABEL_ROWS + 1])
def test_prf_same_bits_on_torch_numpy_and_unit_weights(n):
    """One formula: unweighted and unit-weighted, the same bits; torch CPU and
    NumPy too, up to the largest training-loop batch (past it, within an ulp);
    and scikit-learn's value."""
    y, p = _labels(n, 10, -1, C + 1)
    ones = np.ones(n)
    for average in ("macro", "micro", "weighted", None):
        ref = skm.f1_score(y, p, labels=L, average=average)
        results = [[_np(metrix.f1_score(conv(y), conv(p), labels=L, average=average,
                                        sample_weight=None if sw is None else conv(sw),
                                        validate=False)) for sw in (None, ones)]
                   for conv in LIBS.values()]
        np.testing.assert_allclose(results[0][0], ref, rtol=1e-12)
        for plain, unit in results:
            np.testing.assert_array_equal(unit, plain, err_msg=str(average))
        if n <= LABEL_ROWS:
            np.testing.assert_array_equal(results[1][0], results[0][0], err_msg=str(average))
        else:
            np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-15, atol=0)


# -- mean errors -----------------------------------------------------------------

def _mean_error_ref(kind, a, b, w=None):
    """The mean error's definition: the difference in the inputs' dtype (as
    scikit-learn subtracts; float64 with float64 weights), its terms summed
    exactly, the result in the inputs' dtype (float64 with float64 weights)."""
    out = a.dtype if w is None or w.dtype.itemsize <= a.dtype.itemsize else w.dtype
    if w is not None and w.dtype == np.float64:
        a, b = a.astype(np.float64), b.astype(np.float64)
    d = (a - b).astype(np.float64)
    e = np.abs(d) if kind == "absolute" else d * d
    if w is None:
        m = math.fsum(e) / e.shape[0]
    else:
        w = w.astype(np.float64)
        m = math.fsum(e * w) / math.fsum(w)
    return np.asarray(math.sqrt(m) if kind == "root" else m, out)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("name", MEAN_ERRORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [1, 3, 256, FLOAT_ROWS, FLOAT_ROWS + 1])
def test_mean_error_equals_scikit_learn(lib, name, dtype, n):
    rng = np.random.default_rng(n)
    y = (rng.normal(size=n) * 3 + 100).astype(dtype)     # a large mean: float32 rounding
    p = (y + rng.normal(size=n)).astype(dtype)
    conv = LIBS[lib]
    kind, sk = MEAN_ERRORS[name]
    got = getattr(metrix, name)(conv(y), conv(p), validate=False)
    if lib == "numpy":
        assert type(got) is float
    else:
        assert isinstance(got, torch.Tensor) and got.ndim == 0
        assert got.dtype == (torch.float64 if dtype == np.float64 else torch.float32)
    if dtype == np.float32:  # the definition, to the bit of the result's dtype
        assert float(got) == float(_mean_error_ref(kind, y, p))
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(float(got), sk(y.astype(np.float64), p.astype(np.float64)),
                               rtol=tol if dtype != np.float16 else 2e-3)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("kind", ["absolute", "squared", "root"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weights", [None, np.float16, np.float32, np.float64])
def test_mean_error_sums_in_float64(lib, kind, dtype, weights):
    """Terms over six decades (a float32 sum would round differently): the
    definition's value to the bit of the result dtype, in that dtype."""
    name = {v[0]: k for k, v in MEAN_ERRORS.items()}[kind]
    conv = LIBS[lib]
    rng = np.random.default_rng(6)
    for n in (1, 7, 1000, FLOAT_ROWS, FLOAT_ROWS + 1):
        a = (rng.normal(size=n) * 1e3).astype(dtype)
        b = (a + rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3, n)).astype(dtype)
        w = None if weights is None else rng.random(n).astype(weights)
        got = getattr(metrix, name)(conv(a), conv(b), validate=False,
                                    sample_weight=None if w is None else conv(w))
        want = _mean_error_ref(kind, a, b, w)
        if lib == "numpy":
            assert type(got) is float
        else:
            assert got.dtype == getattr(torch, want.dtype.name)
        if want.dtype == np.float32:
            assert float(got) == float(want), n
        else:  # float64: the summation order's rounding only
            np.testing.assert_allclose(float(got), float(want), rtol=1e-13, err_msg=str(n))


@pytest.mark.parametrize("lib", LIBS)
def test_mean_error_conditions_equal_scikit_learn(lib):
    """Each condition of the call: validated, weighted, other multioutput, a
    tensor subclass, integer and mixed float targets, one row past the batch."""
    rng = np.random.default_rng(4)
    conv = LIBS[lib]
    y, p, w = (rng.random(50).astype(np.float32) for _ in range(3))
    big, big_p = rng.random((2, FLOAT_ROWS + 1)).astype(np.float32)
    ints, ints_p = rng.integers(0, 9, (2, 50))
    for name, (_, sk) in MEAN_ERRORS.items():
        metric = getattr(metrix, name)

        def check(got, want, rtol=1e-6, name=name):
            np.testing.assert_allclose(_np(got), want, rtol=rtol, err_msg=name)

        y64, p64, w64 = (v.astype(np.float64) for v in (y, p, w))
        check(metric(conv(y), conv(p), validate=False), sk(y64, p64))
        check(metric(conv(y), conv(p)), sk(y64, p64))
        check(metric(conv(y), conv(p), sample_weight=conv(w), validate=False),
              sk(y64, p64, sample_weight=w64))
        check(metric(conv(y), conv(p), sample_weight=conv(w)), sk(y64, p64, sample_weight=w64))
        got = metric(conv(y), conv(p), multioutput="raw_values", validate=False)
        assert _np(got).shape == (1,)
        check(got, sk(y64, p64, multioutput="raw_values"))
        check(metric(conv(ints), conv(ints_p), validate=False), sk(ints, ints_p), rtol=1e-12)
        check(metric(conv(y), conv(p64), validate=False), sk(y64, p64))
        check(metric(conv(big), conv(big_p), validate=False),
              sk(big.astype(np.float64), big_p.astype(np.float64)))
        if lib == "torch":
            param = torch.nn.Parameter(torch.from_numpy(y), requires_grad=False)
            check(metric(param, conv(p), validate=False), sk(y64, p64))
        try:  # output weights of one output: scikit-learn refuses them, but for the RMSE
            want = sk(y64, p64, multioutput=np.ones(1))
        except ValueError:
            with pytest.raises(ValueError, match="multi-output"):
                metric(conv(y), conv(p), multioutput=np.ones(1), validate=False)
        else:
            check(metric(conv(y), conv(p), multioutput=np.ones(1), validate=False), want)


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float64),
                                    (np.float32, np.float32), (np.float64, np.float16)])
def test_mean_error_weights_equal_scikit_learn(dtypes):
    """Weighted calls, in the wider dtype of the targets and the weights."""
    dt, wt = dtypes
    rng = np.random.default_rng(5)
    y, p = rng.normal(size=(2, 300)).astype(dt)
    w = rng.random(300).astype(wt)
    w[:100] = 0.0
    for name, (_, sk) in MEAN_ERRORS.items():
        got = getattr(metrix, name)(torch.from_numpy(y), torch.from_numpy(p),
                                    sample_weight=torch.from_numpy(w), validate=False)
        assert got.dtype == (torch.float64 if np.float64 in dtypes else torch.float32)
        np.testing.assert_allclose(float(got), sk(y.astype(np.float64), p.astype(np.float64),
                                                  sample_weight=w.astype(np.float64)),
                                   rtol=1e-12 if dt == np.float64 else 1e-6)


@pytest.mark.parametrize("name", MEAN_ERRORS)
def test_mean_error_every_route_ends_in_the_one_formula(monkeypatch, name):
    """The host entry, the NumPy lane (its one-call kernel), torch's own lane
    past the views' rows, weights and the general path all take
    ``mean_error_formula`` from the metric module (the kernel is given it): a
    formula patched to twice its value doubles every route's result."""
    from metrix.regression import scores

    formula = scores.mean_error_formula
    calls = []

    def doubled(kind, s, total, xp):
        calls.append(kind)
        return 2 * formula(kind, s, total, xp)

    monkeypatch.setattr(scores, "mean_error_formula", doubled)
    metric = getattr(metrix, name)
    sk = MEAN_ERRORS[name][1]
    rng = np.random.default_rng(9)
    for n, conv, kwargs in [(256, torch.from_numpy, {"validate": False}),
                            (256, LIBS["numpy"], {"validate": False}),
                            (256, LIBS["numpy"], {}),
                            (FLOAT_ROWS + 1, torch.from_numpy, {"validate": False}),
                            (256, torch.from_numpy, {"validate": False, "weights": True}),
                            (256, torch.from_numpy, {"multioutput": "raw_values"})]:
        y, p, w = rng.random((3, n))
        kwargs = dict(kwargs)
        if kwargs.pop("weights", False):
            kwargs["sample_weight"] = conv(w)
        calls.clear()
        got = metric(conv(y), conv(p), **kwargs)
        want = sk(y, p, sample_weight=w if "sample_weight" in kwargs else None)
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64).ravel(), 2 * want,
                                   rtol=1e-12, err_msg=f"{n} {kwargs}")
        assert calls, (n, kwargs)


def test_grad_tensors_keep_the_graph():
    y = torch.randn(40, dtype=torch.float64, requires_grad=True)
    p = torch.randn(40, dtype=torch.float64)
    got = metrix.mean_squared_error(y, p, validate=False)
    assert got.requires_grad
    np.testing.assert_allclose(float(got.detach()), skm.mean_squared_error(
        y.detach().numpy(), p.numpy()), rtol=1e-12)


# -- undeclared labels and declared-label forms -------------------------------------

def _wrapping_label(stride, lo, hi):
    """A label ``a`` in ``[2**62, 2**63)`` whose code ``a * stride`` wraps
    (int64) into ``[lo, hi)``: a count that does not bound its labels before
    coding them puts the sample in a declared cell."""
    e = (stride & -stride).bit_length() - 1
    mod = 1 << (64 - e)
    inv = pow(stride >> e, -1, mod)
    for t in range(lo, hi):
        if t % (1 << e) == 0:
            a = (t >> e) * inv % mod
            while a < 1 << 63:
                if a >= 1 << 62:
                    assert a * stride % (1 << 64) == t
                    return a
                a += mod
    raise AssertionError("no wrapping label")


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("n", [300, 600, 2000, 4096])
def test_a_label_whose_code_wraps_is_left_out(lib, n):
    """A huge label (undeclared) is left out, as scikit-learn leaves it out,
    not counted in the declared cell its wrapped code would name (codes of
    stride C + 1 and C + 2)."""
    conv = LIBS[lib]
    for stride in (C + 1, C + 2):
        y, p = _labels(n, n)
        y[5] = _wrapping_label(stride, stride, stride * C)
        p[5] = 0
        cm = metrix.confusion_matrix(conv(y), conv(p), labels=L, validate=False)
        np.testing.assert_array_equal(np.asarray(cm), skm.confusion_matrix(y, p, labels=L))
        for name in ("recall_score", "precision_score", "f1_score"):
            got = getattr(metrix, name)(conv(y), conv(p), labels=L, average=None,
                                        validate=False)
            want = getattr(skm, name)(y, p, labels=L, average=None, zero_division=0)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("lib", LIBS)
def test_declared_labels_compare_by_value(lib):
    """Labels match the values of ``y``: 0..C-1 in any host form, and every
    other set or order (a shifted or strided range, a permutation, an array)
    gives scikit-learn's matrix and scores for those labels."""
    y, p = _labels(400, 13)
    conv = LIBS[lib]
    forms = {(0, 1, 2): [[0, 1, 2], (0, 1, 2), range(3), [0.0, 1.0, 2.0],
                         [np.int32(0), np.int32(1), np.int32(2)], np.arange(3)],
             (1, 2): [range(1, 3), [1, 2]], (0, 2, 4): [range(0, 6, 2), [0, 2, 4]],
             (1, 0): [[1, 0]], (0, 2): [[0, 2]], (4,): [[4]]}
    for values, labels_forms in forms.items():
        want_cm = skm.confusion_matrix(y, p, labels=list(values))
        want_f1 = skm.f1_score(y, p, labels=list(values), average=None)
        for labels in labels_forms:
            cm = metrix.confusion_matrix(conv(y), conv(p), labels=labels, validate=False)
            np.testing.assert_array_equal(_np(cm), want_cm, err_msg=repr(labels))
            f1 = metrix.f1_score(conv(y), conv(p), labels=labels, average=None, validate=False)
            np.testing.assert_allclose(_np(f1), want_f1, rtol=1e-12, err_msg=repr(labels))


@pytest.mark.compile
def test_compiled_call_equals_scikit_learn():
    """Under torch.compile the call compiles in one graph to the same numbers."""
    y, p = (torch.from_numpy(v) for v in _labels(100, 8))
    compiled = torch.compile(lambda a, b: metrix.confusion_matrix(a, b, labels=L,
                                                                  validate=False),
                             fullgraph=True, backend="eager")
    np.testing.assert_array_equal(compiled(y, p).numpy(), _direct_counts(y.numpy(), p.numpy()))
    compiled = torch.compile(lambda a, b: metrix.f1_score(a, b, labels=L, average="macro",
                                                          validate=False),
                             fullgraph=True, backend="eager")
    assert float(compiled(y, p)) == pytest.approx(
        skm.f1_score(y.numpy(), p.numpy(), labels=L, average="macro"), rel=1e-12)


# -- the kernel budget of the training-loop call on torch CPU ------------------------

def _host_calls(n):
    """The training-loop calls of an ``n``-row batch of torch CPU tensors."""
    rng = np.random.default_rng(n)
    y, p = (torch.from_numpy(v) for v in _labels(n, n, -1, C + 1))
    yb, pb = (torch.from_numpy(rng.integers(0, 2, n)) for _ in range(2))
    s = torch.from_numpy(rng.random(n))
    w = torch.from_numpy(rng.random(n))
    u8 = y.clamp(0, 255).to(torch.uint8), p.clamp(0, 255).to(torch.uint8)
    nv = {"validate": False}
    labels = {
        "confusion_matrix": lambda: metrix.confusion_matrix(y, p, labels=L, **nv),
        "confusion_matrix[uint8]": lambda: metrix.confusion_matrix(*u8, labels=L, **nv),
        "confusion_matrix[weights]": lambda: metrix.confusion_matrix(
            y, p, labels=L, sample_weight=w, **nv),
        "accuracy_score": lambda: metrix.accuracy_score(y, p, **nv),
        "precision_recall_fscore_support": lambda: metrix.precision_recall_fscore_support(
            y, p, labels=L, average=None, **nv),
        "f1_score[binary]": lambda: metrix.f1_score(yb, pb, labels=[0, 1], **nv),
        "f1_score[weights]": lambda: metrix.f1_score(y, p, labels=L, average="macro",
                                                     sample_weight=w, **nv),
        "matthews_corrcoef": lambda: metrix.matthews_corrcoef(y, p, labels=L, **nv),
        "cohen_kappa_score": lambda: metrix.cohen_kappa_score(y, p, labels=L, **nv),
        "balanced_accuracy_score": lambda: metrix.balanced_accuracy_score(y, p, labels=L,
                                                                          **nv),
        "jaccard_score": lambda: metrix.jaccard_score(y, p, labels=L, average="macro", **nv),
        "roc_auc_score": lambda: metrix.roc_auc_score(yb, s, **nv),
        "average_precision_score": lambda: metrix.average_precision_score(yb, s, **nv),
    }
    for average in ("macro", "micro", "weighted", None):
        for name in ("f1_score", "precision_score", "recall_score"):
            labels[f"{name}[{average}]"] = (lambda fn, a: lambda: fn(
                y, p, labels=L, average=a, **nv))(getattr(metrix, name), average)
    floats = {}
    for name in MEAN_ERRORS:
        fn = getattr(metrix, name)
        for dt in (torch.float32, torch.float64):
            a, b = s.to(dt), torch.from_numpy(rng.random(n)).to(dt)
            floats[f"{name}[{dt}]"] = (lambda fn, a, b: lambda: fn(a, b, **nv))(fn, a, b)
            floats[f"{name}[{dt}, weights]"] = (lambda fn, a, b: lambda: fn(
                a, b, sample_weight=w, **nv))(fn, a, b)
    return labels, floats


@pytest.mark.parametrize("n", [1, 256, 513, FLOAT_ROWS, LABEL_ROWS])
def test_training_loop_call_on_torch_cpu_within_the_kernel_budget(n):
    """A batch of eager torch CPU tensors: the call runs on NumPy views of them
    (at most :data:`HOST_OPS` aten ops: the views and the results back, no torch
    kernel), up to ``LABEL_ROWS`` rows for the label metrics and ``FLOAT_ROWS``
    for the mean errors."""
    if not BUDGETED:
        pytest.skip("op counts are budgeted on the pinned torch only")
    labels, floats = _host_calls(n)
    calls = {**labels, **(floats if n <= FLOAT_ROWS else {})}
    over = {}
    for name, call in calls.items():
        ops = count_ops(lambda mk, call=call: call())[0]
        if len(ops) > HOST_OPS:
            over[name] = ops
    assert not over, f"over the host budget of {HOST_OPS} aten ops at {n} rows: {over}"


@pytest.mark.parametrize("name", ["f1_score", *MEAN_ERRORS])
def test_bootstrap_of_a_training_loop_metric_is_batched(name):
    """The bootstrap of these metrics computes the resamples together: fewer aten
    ops than resamples (a loop of metric calls dispatches a few per resample),
    and the loop's intervals (the same draws: a weighted call draws rows)."""
    rng = np.random.default_rng(12)
    if name == "f1_score":
        arrays, kw = _labels(200, 12), {"average": "macro"}
    else:
        arrays, kw = tuple(rng.random((2, 200))), {}
    kw["sample_weight"] = rng.random(200) + 0.5
    t_arrays = tuple(torch.from_numpy(a) for a in arrays)
    t_kw = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    fn = getattr(metrix, name)
    b = 400
    ops = count_ops(lambda mk: metrix.bootstrap(fn, *t_arrays, n_resamples=b, random_state=0,
                                                **t_kw))[0]
    assert len(ops) < b // 2, len(ops)
    got = metrix.bootstrap(fn, *arrays, n_resamples=60, random_state=1, **kw)
    sk = getattr(skm, name)
    want = metrix.bootstrap(lambda *a, **k: sk(*a, **k), *arrays, n_resamples=60,
                            random_state=1, **kw)
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=1e-9, atol=1e-12)
