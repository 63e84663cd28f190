"""The host entry of the training-loop lane (:mod:`metrix._core.host_lane`).

A metric with a host entry (``confusion_matrix``, the mean errors) takes the
training-loop call on eager torch CPU tensors itself, before its edge; every
other call (NumPy arrays too) goes the usual way.  Both must give scikit-learn's numbers
with the usual types: the entry is checked to be *taken* where it should be
(else these tests would compare the general path with itself), declined
where it must be, and to equal the path behind it.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from metrix._core.edge import array_metric, host_entry
from metrix.classification import confusion
from metrix.classification._lane import declared_range
from metrix.regression import scores

torch = pytest.importorskip("torch")
import metrix.backends.torch  # noqa: E402,F401  (its adapter registers the host views)

C = 5
L = list(range(C))
MEAN_ERRORS = {
    "mean_absolute_error": ("_mean_absolute_error", skm.mean_absolute_error),
    "mean_squared_error": ("_mean_squared_error", skm.mean_squared_error),
    "root_mean_squared_error": ("_root_mean_squared_error", skm.root_mean_squared_error),
}


class _Reached(Exception):
    pass


@pytest.fixture
def no_general(monkeypatch):
    """The metrics' paths past the host entry raise: a call that returns was
    answered by its host entry."""
    def refuse(*args, **kwargs):
        raise _Reached

    monkeypatch.setattr(confusion, "_confusion_matrix", refuse)
    monkeypatch.setattr(scores, "_mean_error", refuse)  # the mean errors' first step


def _labels(n, seed, lo=0, hi=C, dtype=np.int64):
    rng = np.random.default_rng(seed)
    y = rng.integers(lo, hi, n).astype(dtype)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(lo, hi, n)).astype(dtype)
    return y, p


LIBS = {"numpy": lambda a: a, "torch": torch.from_numpy}


def _direct_counts(y, p):
    """The declared confusion matrix by a loop (scikit-learn refuses a batch
    with no declared label in ``y``; the training-loop call counts it)."""
    cm = np.zeros((C, C), dtype=np.int64)
    for t, q in zip(y.tolist(), p.tolist()):
        if 0 <= t < C and 0 <= q < C:
            cm[t, q] += 1
    return cm


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("n", [1, 2, 255, 512, 513, 4096])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("span", ["declared", "undeclared"])
def test_confusion_entry_equals_scikit_learn(lib, n, dtype, span):
    lo, hi = (0, C) if span == "declared" else (-3 if dtype != np.uint8 else 0, C + 3)
    y, p = _labels(n, n, lo, hi, dtype)
    conv = LIBS[lib]
    got = metrix.confusion_matrix(conv(y), conv(p), labels=L, validate=False)
    want = _direct_counts(y, p)
    if np.isin(y, L).any():
        np.testing.assert_array_equal(want, skm.confusion_matrix(y, p, labels=L))
    assert type(got) is type(conv(y))
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).dtype == np.int64
    general = confusion._confusion_matrix(conv(y), conv(p), labels=L, validate=False)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(general))


def test_confusion_entry_is_taken(no_general):
    y, p = _labels(300, 1)
    conv = torch.from_numpy
    for labels in (L, tuple(L), range(C), [float(v) for v in L],
                   [np.int64(v) for v in L]):
        got = metrix.confusion_matrix(conv(y), conv(p), labels=labels, validate=False)
        np.testing.assert_array_equal(np.asarray(got), skm.confusion_matrix(y, p, labels=L))
    for dtype in (np.bool_, np.uint8, np.int8, np.int16, np.int32):  # labels 0 / 1 as bool
        a, b = (v % 2 if dtype == np.bool_ else v for v in (y, p))
        got = metrix.confusion_matrix(conv(a.astype(dtype)), conv(b.astype(dtype)), labels=L,
                                      validate=False)
        np.testing.assert_array_equal(np.asarray(got), skm.confusion_matrix(a, b, labels=L))


@pytest.mark.parametrize("lib", LIBS)
def test_confusion_entry_declines(lib, no_general):
    """Calls the entry must leave to the path behind it (which raises here):
    NumPy arrays, and tensor calls that are not the training-loop call."""
    y, p = _labels(64, 2)
    conv = LIBS[lib]
    if lib == "numpy":
        with pytest.raises(_Reached):
            metrix.confusion_matrix(y, p, labels=L, validate=False)
    declined = [
        dict(labels=L),                                        # validate=True
        dict(labels=L, validate=False, sample_weight=conv(np.ones(64))),
        dict(labels=L, validate=False, normalize="true"),
        dict(labels=[1, 2, 3], validate=False),                # not 0..C-1
        dict(labels=[0], validate=False),                      # one class
        dict(labels=np.arange(C), validate=False),             # not a host list
        dict(validate=False),                                  # no labels
    ]
    for kwargs in declined:
        with pytest.raises(_Reached):
            metrix.confusion_matrix(conv(y), conv(p), **kwargs)
    odd_inputs = [
        (conv(y.astype(np.float64)), conv(p.astype(np.float64))),   # float labels
        (conv(y[:10]), conv(p[:11])),                                # lengths differ
        (conv(y.reshape(8, 8)), conv(p.reshape(8, 8))),              # 2-D
        (conv(y[:0]), conv(p[:0])),                                  # empty
        (conv(y), list(p)),                                          # mixed types
    ]
    for a, b in odd_inputs:
        with pytest.raises(_Reached):
            metrix.confusion_matrix(a, b, labels=L, validate=False)


def test_confusion_entry_declines_what_has_no_host_view(no_general):
    y, p = (torch.from_numpy(v) for v in _labels(64, 3))
    for a, b in [(y.to("meta"), p.to("meta")),                 # off the host
                 (y, p.to("meta"))]:                            # two devices
        with pytest.raises(_Reached):
            metrix.confusion_matrix(a, b, labels=L, validate=False)


PRF_METRICS = {
    "f1_score": skm.f1_score,
    "precision_score": skm.precision_score,
    "recall_score": skm.recall_score,
}


@pytest.fixture
def no_prf_general(monkeypatch):
    """The precision / recall / F paths past the host views raise (the
    namespace's lane and the general statistic): a call that returns was
    answered on host views."""
    def refuse(*args, **kwargs):
        raise _Reached

    monkeypatch.setattr(confusion, "lane_inputs", refuse)
    monkeypatch.setattr(confusion, "setwise_problem", refuse)


@pytest.mark.parametrize("name", PRF_METRICS)
@pytest.mark.parametrize("average", ["macro", "micro", "weighted", None, "binary"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("n", [1, 256, 513, 4096])
def test_prf_on_host_views_equals_scikit_learn(no_prf_general, name, average, dtype, n):
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


def test_prf_on_host_views_is_taken_and_declines(no_prf_general):
    y, p = (torch.from_numpy(v) for v in _labels(300, 9))
    metrix.f1_score(y, p, labels=L, average="macro", validate=False)
    metrix.fbeta_score(y, p, beta=2.0, labels=L, average="weighted", validate=False)
    got = metrix.precision_recall_fscore_support(y, p, labels=L, average=None, validate=False)
    want = skm.precision_recall_fscore_support(y.numpy(), p.numpy(), labels=L)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12)
    assert got[3].dtype == torch.int64
    declined = [
        dict(labels=L, average="macro"),                                   # validated
        dict(labels=L, average="macro", validate=False,
             sample_weight=torch.ones(300, dtype=torch.float64)),          # weighted
        dict(labels=[1, 2], average="macro", validate=False),              # not 0..C-1
        dict(average="macro", validate=False),                             # no labels
        dict(labels=L, average="binary", validate=False),                  # binary, C = 5
        dict(labels=L, average="macro", pos_label=3, validate=False),     # pos_label given
    ]
    for kwargs in declined:
        with pytest.raises(_Reached):
            metrix.f1_score(y, p, **kwargs)
    for a, b in [(y.double(), p.double()),                       # float labels
                 (y.to(torch.bool), p.to(torch.bool)),          # bool labels
                 (y, p.numpy()),                                 # mixed types
                 (y.to("meta"), p.to("meta")),                   # off the host
                 (y[:10], p[:11])]:                              # lengths differ
        with pytest.raises(_Reached):
            metrix.f1_score(a, b, labels=L, average="macro", validate=False)


def test_prf_on_host_views_equals_the_lane():
    """The same lane function through the namespace's lane: the same bits."""
    y, p = (torch.from_numpy(v) for v in _labels(2000, 10, -1, C + 1))
    for average in ("macro", "micro", "weighted", None):
        host = confusion._prfs_on_host(y, p, 1.0, L, 1, average, 0.0, ("f-score",))
        assert host is not None
        lane = confusion._prfs(y, p, beta=1.0, labels=L, pos_label=1, average=average,
                               warn_for=(), sample_weight=torch.ones(2000, dtype=torch.float64),
                               zero_division=0.0, validate=False, want=("f-score",))
        np.testing.assert_array_equal(host[2].numpy(), lane[2].numpy())


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("name", MEAN_ERRORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [1, 3, 256, 8192])
def test_mean_error_entry_equals_scikit_learn(lib, name, dtype, n):
    rng = np.random.default_rng(n)
    y = (rng.normal(size=n) * 3 + 100).astype(dtype)     # a large mean: float32 rounding
    p = (y + rng.normal(size=n)).astype(dtype)
    conv = LIBS[lib]
    general_name, sk = MEAN_ERRORS[name]
    got = getattr(metrix, name)(conv(y), conv(p), validate=False)
    general = getattr(scores, general_name)(conv(y), conv(p), validate=False)
    if lib == "numpy":
        assert type(got) is float and type(general) is float
    else:
        assert isinstance(got, torch.Tensor) and got.ndim == 0
        assert got.dtype == general.dtype == (torch.float64 if dtype == np.float64
                                              else torch.float32)
    assert float(got) == float(general)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(float(got), sk(y.astype(np.float64), p.astype(np.float64)),
                               rtol=tol if dtype != np.float16 else 2e-3)


def test_mean_error_entry_is_taken_and_declines(no_general):
    rng = np.random.default_rng(4)
    conv = torch.from_numpy
    y, p, w = (conv(rng.random(50).astype(np.float32)) for _ in range(3))
    for name in MEAN_ERRORS:
        metric = getattr(metrix, name)
        metric(y, p, validate=False)
        metric(y, p, sample_weight=w, validate=False)
        with pytest.raises(_Reached):   # NumPy arrays: the usual way
            metric(y.numpy(), p.numpy(), validate=False)
        with pytest.raises(_Reached):   # a tensor subclass: the usual way
            metric(torch.nn.Parameter(y, requires_grad=False), p, validate=False)
        for kwargs in (dict(), dict(validate=False, multioutput="raw_values"),
                       dict(validate=False, multioutput=np.ones(1))):
            with pytest.raises(_Reached):
                metric(y, p, **kwargs)
        with pytest.raises(_Reached):   # integer targets: not the lane's kind
            metric(conv(np.arange(50)), conv(np.arange(50)), validate=False)
        with pytest.raises(_Reached):   # past the lane's rows on the host
            big = conv(np.zeros(8193, dtype=np.float32))
            metric(big, big, validate=False)


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float64),
                                    (np.float32, np.float32), (np.float64, np.float16)])
def test_mean_error_entry_weights_equal_scikit_learn(no_general, dtypes):
    """Weighted calls are taken (the general path raises here), in the
    general path's result dtype: the wider of the targets and the weights."""
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


def test_grad_tensors_take_the_usual_way():
    """A tensor that needs grad has no host view: the call goes the usual way."""
    y = torch.randn(40, dtype=torch.float64, requires_grad=True)
    p = torch.randn(40, dtype=torch.float64)
    got = metrix.mean_squared_error(y, p, validate=False)
    assert got.requires_grad  # the general path keeps the graph
    np.testing.assert_allclose(float(got.detach()), skm.mean_squared_error(
        y.detach().numpy(), p.numpy()), rtol=1e-12)


@pytest.mark.parametrize("kind", ["absolute", "squared", "root"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weights", [None, np.float16, np.float32, np.float64])
def test_numpy_mean_error_kernel_equals_the_lane(kind, dtype, weights):
    """``ops.mean_error`` (NumPy: the host entry's kernel) is the lane's
    arithmetic, to the bit, with its result dtype."""
    from metrix.backends.numpy import lean_namespace

    xp, o = lean_namespace()

    class WithoutKernel(type(o)):  # the lane's own arithmetic, NumPy's dot
        def mean_error(self, kind, a, b, w=None, /):
            return None
    rng = np.random.default_rng(6)
    for n in (1, 7, 1000, 8192):
        a = (rng.normal(size=n) * 1e3).astype(dtype)
        # differences over six decades: a float32 sum would round differently
        b = (a + rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3, n)).astype(dtype)
        w = None if weights is None else rng.random(n).astype(weights)
        got = o.mean_error(kind, a, b, w)
        generic = scores._mean_error_lane(xp, WithoutKernel(xp), kind, a, b, w)
        want_dtype = np.float64 if weights == np.float64 else dtype
        assert got.dtype == want_dtype and np.asarray(generic).dtype == want_dtype
        assert got == generic
    assert o.mean_error(kind, a, b.astype(np.float64 if dtype == np.float32
                                          else np.float32)) is None
    assert o.mean_error(kind, a.astype(np.float16), b.astype(np.float16)) is None
    assert o.mean_error(kind, a, b, np.ones(a.shape[0], dtype=np.int64)) is None


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
    not counted in the declared cell its wrapped code would name: in the
    confusion matrix (stride C + 1 past 512 rows) and in the metrics of the
    edge count (stride C + 2)."""
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


def test_declared_range_compares_values():
    assert declared_range([0, 1, 2]) == 3
    assert declared_range((0, 1)) == 2
    assert declared_range(range(4)) == 4
    assert declared_range([0.0, 1.0]) == 2
    assert declared_range([np.int32(0), np.int32(1)]) == 2
    for labels in ([], (), range(0), range(1, 3), range(0, 6, 2), [1, 0], [0, 2],
                   ["0", "1"], [0, None], np.arange(3), None, "01",
                   [np.arange(2), np.arange(2)]):
        assert declared_range(labels) is None, labels


@pytest.mark.compile
def test_compiled_call_takes_the_usual_way():
    """Under torch.compile the lane declines (it reads NumPy views): the call
    compiles in one graph to the same counts."""
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


def test_host_entry_checks_the_signature():
    def general(y_true, y_pred, *, labels=None, validate=True):
        pass

    def same(y_true, y_pred, *, labels=None, validate=True):
        pass

    def other(y_true, y_pred, *, labels=None, validate=False):
        pass

    assert host_entry(general)(same).__metrix_edge__
    with pytest.raises(TypeError, match="signature"):
        host_entry(general)(other)


@pytest.mark.parametrize("name", ["confusion_matrix", *MEAN_ERRORS])
def test_public_and_general_signatures_agree(name):
    general = {"confusion_matrix": confusion._confusion_matrix,
               **{k: getattr(scores, v[0]) for k, v in MEAN_ERRORS.items()}}[name]
    public = getattr(metrix, name)
    assert [(p.name, p.default) for p in inspect.signature(public).parameters.values()] \
        == [(p.name, p.default) for p in inspect.signature(general).parameters.values()]
    assert public.__doc__ and len(public.__doc__) > 200


@pytest.mark.parametrize("name", ["f1_score", *MEAN_ERRORS])
def test_bootstrap_finds_the_batched_path_behind_a_host_entry(name):
    """The bootstrap tells a metric by the name of the function behind its
    edge: past a host entry it still finds the metric's batched path."""
    from metrix.evaluation._batched_find import find_path

    if name == "f1_score":
        arrays, kw = _labels(50, 12), {"average": "macro"}
    else:
        arrays, kw = tuple(np.random.default_rng(12).random((2, 50))), {}
    behind = array_metric(getattr(metrix, name))
    assert behind.__name__ == name
    assert find_path(behind, arrays, kw) is not None
