"""The backend adapters (``metrix.backends``): correctness on every backend, delegation.

Correctness: every adapter op, on every backend and device of the ``xp``
fixture, against NumPy.  The generic (pure-standard) implementation is also
run on every backend, since it is what array-api-strict, unknown libraries and
torch on CUDA under deterministic algorithms get.

Delegation: the NumPy, torch and JAX adapters use their library's native call
(the generic one is patched to raise), and torch under
``use_deterministic_algorithms(True)`` on a non-CPU device takes the
sort-based path.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conformance.util import jax_x64
from metrix.backends import GenericOps, ops

RNG = np.random.default_rng(0)
X = RNG.integers(0, 7, size=200)
W = RNG.random(200)
W2 = RNG.random((200, 3))
EXPECTED_ADAPTER = {"numpy": "numpy", "array_api_strict": "generic", "torch": "torch",
                    "jax": "jax", "cupy": "cupy"}


def _name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _count_dtype(b) -> str:
    return "int32" if (b.lib == "jax" and b.float_dtype == "float32") else "int64"


def _tol(b) -> dict:
    return {"rtol": 1e-5, "atol": 1e-6} if b.float_dtype == "float32" else {"rtol": 1e-12}


def _check(b, result, expected, dtype, exact=False):
    b.combo.check_placement(result)
    assert _name(result.dtype) == dtype
    got = b.to_numpy(result)
    assert got.shape == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, **_tol(b))


@pytest.fixture(params=["adapter", "generic"])
def o(request, xp):
    """The backend's adapter, and the generic fallback on the same namespace."""
    return ops(xp.xp) if request.param == "adapter" else GenericOps(xp.xp)


# --- dispatch ---------------------------------------------------------------
def test_ops_picks_the_library_adapter(xp):
    adapter = ops(xp.xp)
    assert adapter.name == EXPECTED_ADAPTER[xp.lib]
    assert ops(xp.xp) is adapter  # cached


# --- bincount ---------------------------------------------------------------
def test_bincount_counts(xp, o):
    res = o.bincount(xp.asarray(X), length=7)
    _check(xp, res, np.bincount(X, minlength=7), _count_dtype(xp), exact=True)


def test_bincount_length_larger_than_max(xp, o):
    res = o.bincount(xp.asarray(X), length=12)
    expected = np.bincount(X, minlength=12)
    assert expected[7:].sum() == 0
    _check(xp, res, expected, _count_dtype(xp), exact=True)


def test_bincount_weights(xp, o):
    res = o.bincount(xp.asarray(X), length=9, weights=xp.asarray(W))
    _check(xp, res, np.bincount(X, weights=W, minlength=9), xp.float_dtype)


def test_bincount_2d_weights(xp, o):
    res = o.bincount(xp.asarray(X), length=9, weights=xp.asarray(W2))
    expected = np.stack([np.bincount(X, weights=W2[:, j], minlength=9) for j in range(3)], 1)
    assert expected.shape == (9, 3)
    _check(xp, res, expected, xp.float_dtype)


def test_bincount_integer_weights_stay_integer(xp, o):
    wi = np.arange(200) % 5
    res = o.bincount(xp.asarray(X), length=7, weights=xp.asarray(wi))
    _check(xp, res, np.bincount(X, weights=wi, minlength=7).astype(np.int64),
           _count_dtype(xp), exact=True)


def test_bincount_empty(xp, o):
    x = xp.asarray(np.zeros(0, dtype=np.int64))
    _check(xp, o.bincount(x, length=4), np.zeros(4, dtype=np.int64), _count_dtype(xp),
           exact=True)
    w = xp.asarray(np.zeros(0))
    _check(xp, o.bincount(x, length=4, weights=w), np.zeros(4), xp.float_dtype, exact=True)
    w2 = xp.asarray(np.zeros((0, 2)))
    _check(xp, o.bincount(x, length=4, weights=w2), np.zeros((4, 2)), xp.float_dtype,
           exact=True)


def test_bincount_single_bin(xp, o):
    x = xp.asarray(np.zeros(5, dtype=np.int64))
    _check(xp, o.bincount(x, length=1), np.array([5]), _count_dtype(xp), exact=True)


@pytest.mark.parametrize("np_dtype", ["uint8", "int8"])
def test_bincount_narrow_int_codes_full_range(xp, o, np_dtype):
    """Codes of a narrow dtype with ``length`` past its max (uint8 masks, 256 classes)."""
    info = np.iinfo(np_dtype)
    length = int(info.max) + 1
    codes = np.array([0, 1, 1, info.max, info.max, info.max], dtype=np_dtype)
    x = _native_narrow(xp, codes)
    assert _name(x.dtype) == np_dtype
    res = o.bincount(x, length=length)
    _check(xp, res, np.bincount(codes.astype(np.int64), minlength=length),
           _count_dtype(xp), exact=True)


def _native_narrow(xp, codes):
    """``codes`` on the backend keeping their narrow dtype (the combo widens ints)."""
    if xp.lib == "numpy":
        return codes
    if xp.lib == "torch":
        import torch

        return torch.asarray(codes, device=xp.device)
    if xp.lib == "jax":
        import jax

        return jax.device_put(xp.xp.asarray(codes), xp.device)
    if xp.lib == "cupy":
        return xp.xp.asarray(codes)
    return xp.xp.asarray(codes, device=xp.device)


def test_scatter_add(xp, o):
    idx = RNG.integers(0, 4, size=50)
    v = RNG.random(50)
    v2 = RNG.random((50, 2))
    res = o.scatter_add(xp.asarray(idx), xp.asarray(v), length=6)
    _check(xp, res, np.bincount(idx, weights=v, minlength=6), xp.float_dtype)
    res2 = o.scatter_add(xp.asarray(idx), xp.asarray(v2), length=6)
    exp2 = np.zeros((6, 2))
    np.add.at(exp2, idx, v2)
    _check(xp, res2, exp2, xp.float_dtype)


# --- fused reductions -------------------------------------------------------
def _terms(a, b, c):
    d = a - b
    return d * d, d[:, None] * c, a


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("block", [None, 64])
def test_fused_sums_blocks_equal_one_pass(xp, o, monkeypatch, weighted, block):
    # a small block forces many blocks and a ragged last one (n = 1001)
    monkeypatch.setattr(o, "fused_block", block, raising=False)
    n = 1001
    a, b = RNG.random(n), RNG.random(n)
    c = RNG.random((n, 3))
    w = RNG.random(n) if weighted else None
    got = o.fused_sums(_terms, [xp.asarray(a), xp.asarray(b), xp.asarray(c)],
                       weights=None if w is None else xp.asarray(w))
    ww = np.ones(n) if w is None else w
    expected = [ww @ ((a - b) ** 2), ww @ ((a - b)[:, None] * c), ww @ a]
    assert len(got) == 3
    for g, e in zip(got, expected):
        _check(xp, g, np.asarray(e), xp.float_dtype)


@pytest.mark.parametrize("block", [None, 64])
@pytest.mark.parametrize("nan", [False, True])
def test_fused_max_blocks_equal_one_pass(xp, o, monkeypatch, block, nan):
    monkeypatch.setattr(o, "fused_block", block, raising=False)
    a, b = RNG.normal(size=(1001, 2)), RNG.normal(size=(1001, 2))
    a[1000, 0] = 9.0  # the maximum in the ragged last block
    if nan:
        a[500, 1] = np.nan
    got = o.fused_max(lambda x, y: abs(x - y), [xp.asarray(a), xp.asarray(b)])
    _check(xp, got, np.max(np.abs(a - b), axis=0), xp.float_dtype)


def test_fused_sums_passes_broadcast_constants_whole(xp, o, monkeypatch):
    monkeypatch.setattr(o, "fused_block", 16, raising=False)
    a = RNG.random(100)
    k = np.asarray([1.0, 2.0])
    (got,) = o.fused_sums(lambda x, c: (x[:, None] * c,), [xp.asarray(a), xp.asarray(k)])
    _check(xp, got, a.sum() * k, xp.float_dtype)


def test_torch_fused_sums_blocks_on_cpu_eager():
    torch = pytest.importorskip("torch")
    adapter = ops(torch)
    assert adapter._fused_rows([torch.zeros(10)]) == adapter.fused_block
    assert adapter._fused_rows([torch.zeros(10, 4)]) == adapter.fused_block // 4


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, None])
def test_sum_is_finite(xp, o, bad):
    a = RNG.random(300)
    if bad is not None:
        a[17] = bad
    got = o.sum_is_finite(xp.asarray(a))
    assert bool(got) is (bad is None)


def test_ieee_divide(xp, o):
    # IEEE 754 at a zero denominator (+-inf, NaN for 0 / 0 and NaN / 0), no warning
    num = np.array([3.0, -3.0, 0.0, np.nan, 6.0])
    den = np.array([0.0, 0.0, 0.0, 0.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.to_numpy(o.ieee_divide(xp.asarray(num), xp.asarray(den)))
    np.testing.assert_array_equal(got, [np.inf, -np.inf, np.nan, np.nan, 1.5])


def test_sum_is_finite_false_on_overflow_is_only_a_hint(xp):
    # finite values whose reduction overflows: False, so callers check exactly
    from metrix._core.validation import assert_all_finite
    big = np.full(10, np.finfo(xp.float_dtype).max / 2)
    x = xp.asarray(big)
    assert not bool(ops(xp.xp).sum_is_finite(x))
    assert_all_finite(x, xp=xp.xp)  # no error: every value is finite


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("ranks", [[0], [49, 50], [0, 7, 99]])
def test_order_statistics(xp, o, k, ranks):
    a = RNG.integers(0, 20, size=(100, k)).astype(float)  # ties
    a[3, 0] = np.nan                                      # NaN sorts last
    x = xp.asarray(a)
    got = o.order_statistics(x, ranks)
    expected = np.sort(a, axis=0)
    assert len(got) == len(ranks)
    for r, g in zip(ranks, got):
        _check(xp, g, expected[r, :], xp.float_dtype)
    np.testing.assert_array_equal(xp.to_numpy(x), a)  # overwrite=False keeps x


@pytest.mark.parametrize("k", [1, 4])
def test_order_statistics_overwrite_numpy(k):
    a = RNG.random((500, k))
    got = ops(np).order_statistics(a.copy(), [0, 250, 499], overwrite=True)
    expected = np.sort(a, axis=0)
    for r, g in zip([0, 250, 499], got):
        np.testing.assert_array_equal(g, expected[r, :])


# --- ordering ---------------------------------------------------------------
def _np_topk(a, k, axis):
    idx = np.argsort(-a, axis=axis, kind="stable")
    idx = np.take(idx, np.arange(k), axis=axis)
    return np.take_along_axis(a, idx, axis=axis), idx


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_topk_ties_lower_index_first(xp, o, axis):
    a = np.array([[1.0, 3.0, 3.0, 2.0, 3.0, 0.5],
                  [2.0, 2.0, 2.0, 2.0, 1.0, 2.0],
                  [0.0, 5.0, 5.0, 4.0, 4.0, 4.0],
                  [2.0, 2.0, 1.0, 2.0, 1.0, 9.0]])
    k = 3
    vals, idx = o.topk(xp.asarray(a), k, axis=axis)
    exp_vals, exp_idx = _np_topk(a, k, axis)
    _check(xp, vals, exp_vals, xp.float_dtype, exact=True)
    xp.combo.check_placement(idx)
    np.testing.assert_array_equal(xp.to_numpy(idx), exp_idx)


def test_topk_1d_all_ties(xp, o):
    vals, idx = o.topk(xp.asarray(np.ones(6)), 4)
    np.testing.assert_array_equal(xp.to_numpy(idx), [0, 1, 2, 3])
    np.testing.assert_array_equal(xp.to_numpy(vals), np.ones(4))


def test_argsort_desc_stable(xp, o):
    a = np.array([1.0, 3.0, 1.0, 3.0, 2.0, 1.0])
    idx = o.argsort_desc(xp.asarray(a))
    np.testing.assert_array_equal(xp.to_numpy(idx), [1, 3, 4, 0, 2, 5])


# --- unique -----------------------------------------------------------------
def test_unique_counts(xp, o):
    a = np.array([5, 2, 2, 9, 5, 5, 0])
    values, counts = o.unique_counts(xp.asarray(a))
    ev, ec = np.unique(a, return_counts=True)
    xp.combo.check_placement(values)
    xp.combo.check_placement(counts)
    np.testing.assert_array_equal(xp.to_numpy(values), ev)
    np.testing.assert_array_equal(xp.to_numpy(counts), ec)


@pytest.mark.parametrize("shape", [(7,), (2, 3)])
def test_unique_inverse(xp, o, shape):
    a = np.array([5, 2, 2, 9, 5, 0, 7])[: int(np.prod(shape))].reshape(shape)
    values, inverse = o.unique_inverse(xp.asarray(a))
    ev, einv = np.unique(a, return_inverse=True)
    xp.combo.check_placement(values)
    xp.combo.check_placement(inverse)
    np.testing.assert_array_equal(xp.to_numpy(values), ev)
    inv = xp.to_numpy(inverse)
    assert inv.shape == (a.size,)
    np.testing.assert_array_equal(inv, einv.reshape(-1))
    np.testing.assert_array_equal(xp.to_numpy(values)[inv], a.reshape(-1))


# --- placement --------------------------------------------------------------
@pytest.mark.parametrize("host", [lambda: [0, 2, 1], lambda: np.array([0, 2, 1])],
                         ids=["list", "numpy"])
def test_asarray_on_moves_host_input(xp, o, host):
    res = o.asarray_on(host(), xp.device)
    xp.combo.check_placement(res)
    np.testing.assert_array_equal(xp.to_numpy(res), [0, 2, 1])


def test_asarray_on_float_dtype_and_device_without_float64(xp, o):
    res = o.asarray_on(np.array([0.5, 1.5]), xp.device)
    xp.combo.check_placement(res)
    # host float64 keeps float64 where the device has it, else the widest float
    no_f64 = {"STRICT_NO_FLOAT64", "TORCH_MPS", "JAX_GPU"}  # JAX_GPU runs without x64
    want = "float32" if xp.backend.name in no_f64 else "float64"
    assert _name(res.dtype) == want
    res32 = o.asarray_on(np.array([0.5, 1.5]), xp.device, dtype=xp.xp.float32)
    assert _name(res32.dtype) == "float32"


def test_asarray_on_moves_between_strict_devices():
    strict = pytest.importorskip("array_api_strict")
    x = strict.asarray([1, 2, 3], device=strict.Device("device1"))
    res = ops(strict).asarray_on(x, strict.Device("CPU_DEVICE"))
    assert res.device == strict.Device("CPU_DEVICE")
    assert ops(strict).asarray_on(x, None).device == strict.Device("device1")


# --- delegation -------------------------------------------------------------
def _forbid_generic(monkeypatch, *names):
    def boom(*args, **kwargs):
        raise AssertionError("the generic fallback was called")

    for n in names:
        monkeypatch.setattr(GenericOps, n, boom)


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
def test_native_adapters_do_not_use_the_generic_path(monkeypatch, lib):
    if lib == "numpy":
        import array_api_compat.numpy as nxp

        conv = np.asarray
    elif lib == "torch":
        torch = pytest.importorskip("torch")
        import array_api_compat.torch as nxp

        conv = torch.asarray
    else:
        pytest.importorskip("jax")
        import jax.numpy as nxp

        conv = nxp.asarray
    _forbid_generic(monkeypatch, "_sorted_bincount", "unique_counts", "unique_inverse")
    if lib == "jax":
        _forbid_generic(monkeypatch, "topk")
    o = ops(nxp)
    x = conv(X)
    np.testing.assert_array_equal(np.asarray(o.bincount(x, length=8)),
                                  np.bincount(X, minlength=8))
    np.testing.assert_allclose(np.asarray(o.bincount(x, length=8, weights=conv(W))),
                               np.bincount(X, weights=W, minlength=8), rtol=1e-6)
    assert tuple(o.bincount(x, length=8, weights=conv(W2)).shape) == (8, 3)
    assert np.asarray(o.scatter_add(x, conv(W), length=8)).shape == (8,)
    values, counts = o.unique_counts(x)
    np.testing.assert_array_equal(np.asarray(counts), np.unique(X, return_counts=True)[1])
    o.unique_inverse(x)
    if lib == "jax":
        vals, idx = o.topk(nxp.asarray([1.0, 3.0, 3.0, 2.0]), 2)
        np.testing.assert_array_equal(np.asarray(idx), [1, 2])


def test_generic_path_is_forbidden_for_real():
    """The monkeypatch above would catch a call: the generic adapter does call it."""
    import array_api_compat.numpy as nxp

    with pytest.MonkeyPatch.context() as mp:
        _forbid_generic(mp, "_sorted_bincount")
        with pytest.raises(AssertionError, match="generic fallback"):
            GenericOps(nxp).bincount(np.asarray(X), length=8)


def _torch_spy(monkeypatch):
    torch = pytest.importorskip("torch")
    import metrix.backends.torch as tb

    calls = []

    def sorted_spy(self, x, *, length, weights=None):
        calls.append(("sorted", x.device.type, weights is not None))
        return torch.zeros(length, dtype=torch.int64)

    monkeypatch.setattr(tb.Ops, "_sorted_bincount", sorted_spy)
    return torch, calls


def test_torch_deterministic_non_cpu_uses_sorted_path(monkeypatch):
    """CUDA ``bincount``/``index_add`` raise under deterministic algorithms.

    Simulated with the ``meta`` device (a non-CPU device every torch has); the
    native kernels are patched to raise so that only the sort-based path passes.
    """
    torch, calls = _torch_spy(monkeypatch)
    import array_api_compat.torch as txp

    def no_native(*a, **k):
        raise RuntimeError("bincount is nondeterministic on this device")

    monkeypatch.setattr(torch, "bincount", no_native)
    o = ops(txp)
    x = torch.zeros(10, dtype=torch.int64, device="meta")
    w = torch.zeros(10, dtype=torch.float32, device="meta")
    w2 = torch.zeros((10, 2), dtype=torch.float32, device="meta")
    prev = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        o.bincount(x, length=4)
        o.bincount(x, length=4, weights=w)
        o.bincount(x, length=4, weights=w2)
        o.scatter_add(x, w, length=4)
    finally:
        torch.use_deterministic_algorithms(prev)
    assert calls == [("sorted", "meta", False), ("sorted", "meta", True),
                     ("sorted", "meta", True), ("sorted", "meta", True)]


def test_torch_deterministic_cpu_and_nondeterministic_stay_native(monkeypatch):
    torch, calls = _torch_spy(monkeypatch)
    import array_api_compat.torch as txp

    o = ops(txp)
    prev = torch.are_deterministic_algorithms_enabled()
    try:
        torch.use_deterministic_algorithms(True)
        cpu = o.bincount(torch.asarray(X), length=7)  # CPU bincount is deterministic
        torch.use_deterministic_algorithms(False)
        o.bincount(torch.zeros(3, dtype=torch.int64, device="meta"), length=4,
                   weights=torch.zeros((3, 2), device="meta"))
    finally:
        torch.use_deterministic_algorithms(prev)
    assert calls == []
    np.testing.assert_array_equal(cpu.numpy(), np.bincount(X, minlength=7))


def test_torch_sorted_path_values():
    """What the deterministic-CUDA route computes, checked on CPU tensors."""
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as txp

    g = GenericOps(txp)
    x = torch.asarray(X)
    np.testing.assert_array_equal(g.bincount(x, length=9).numpy(), np.bincount(X, minlength=9))
    np.testing.assert_allclose(g.bincount(x, length=9, weights=torch.asarray(W)).numpy(),
                               np.bincount(X, weights=W, minlength=9), rtol=1e-12)


# --- tracing ----------------------------------------------------------------
@pytest.mark.compile
def test_torch_bincount_under_compile_fullgraph():
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as txp

    o = ops(txp)

    def step(x, w, w2):
        return (o.bincount(x, length=9), o.bincount(x, length=9, weights=w),
                o.bincount(x, length=9, weights=w2))

    torch._dynamo.reset()
    c, cw, cw2 = torch.compile(step, fullgraph=True)(
        torch.asarray(X), torch.asarray(W), torch.asarray(W2))
    assert c.dtype == torch.int64 and cw.dtype == torch.float64
    np.testing.assert_array_equal(c.numpy(), np.bincount(X, minlength=9))
    np.testing.assert_allclose(cw.numpy(), np.bincount(X, weights=W, minlength=9), rtol=1e-12)
    assert tuple(cw2.shape) == (9, 3)
    np.testing.assert_allclose(cw2.numpy()[:, 1], np.bincount(X, weights=W2[:, 1], minlength=9),
                               rtol=1e-12)


@pytest.mark.compile
def test_jax_bincount_and_topk_under_jit():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    o = ops(jnp)

    @jax.jit
    def step(x, w, w2, s):
        return (o.bincount(x, length=9), o.bincount(x, length=9, weights=w),
                o.bincount(x, length=9, weights=w2), o.topk(s, 2))

    with jax_x64(True):
        c, cw, cw2, (tv, ti) = step(jnp.asarray(X), jnp.asarray(W), jnp.asarray(W2),
                                   jnp.asarray([1.0, 3.0, 3.0, 2.0]))
        assert c.dtype == jnp.int64 and cw.dtype == jnp.float64
        np.testing.assert_array_equal(np.asarray(c), np.bincount(X, minlength=9))
        np.testing.assert_allclose(np.asarray(cw), np.bincount(X, weights=W, minlength=9),
                                   rtol=1e-12)
        assert cw2.shape == (9, 3)
        np.testing.assert_array_equal(np.asarray(ti), [1, 2])


# --- chunked CPU kernels ------------------------------------------------------

@pytest.fixture(params=["one part", "three parts"])
def chunked(request, monkeypatch):
    """The chunked pair count as the tests' chunk positions assume: torch's
    chunk set to NumPy's (2^17), and NumPy's count in one part or split over
    three threads (``_MIN_PER_THREAD`` lowered to one chunk)."""
    from metrix.backends import _pair_count

    try:
        import metrix.backends.torch as tb
    except ImportError:
        tb = None
    if tb is not None:
        monkeypatch.setattr(tb.TorchKernel, "chunk", _pair_count.CHUNK)
    if request.param == "three parts":
        monkeypatch.setattr(_pair_count, "_MIN_PER_THREAD", _pair_count.CHUNK)
        monkeypatch.setenv("METRIX_NUM_THREADS", "3")
    return request.param


@pytest.mark.parametrize("lib", ["numpy", "torch"])
# sizes up to 11 take the two-sample joint count (size**4 <= 2**14 cells), 12 and up not
@pytest.mark.parametrize("size", [2, 3, 10, 11, 12, 17, 60])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_pair_bincount_chunked_equals_one_bincount(lib, size, dtype, chunked):
    # longer than the chunk (2^17) with a ragged, odd-length last chunk
    n = (1 << 18) * 2 + 12345
    rng = np.random.default_rng(size)
    a, b = rng.integers(0, size, n).astype(dtype), rng.integers(0, size, n).astype(dtype)
    a[-1], b[-1] = size - 1, size - 1  # the last cell, in the ragged tail
    want = np.bincount(a.astype(np.int64) * size + b, minlength=size * size)
    if lib == "torch":
        torch = pytest.importorskip("torch")
        import array_api_compat.torch as txp

        got = ops(txp).pair_bincount(torch.from_numpy(a), torch.from_numpy(b), size=size)
        assert got.dtype == torch.int64
        got = got.numpy()
    else:
        import array_api_compat.numpy as nxp

        got = ops(nxp).pair_bincount(a, b, size=size)
    np.testing.assert_array_equal(got, want)


def test_numpy_minmax_chunked():
    import array_api_compat.numpy as nxp

    x = np.random.default_rng(1).integers(-50, 50, (1 << 17) * 5 + 7)
    x[-1] = 99
    x[3] = -77
    assert tuple(int(v) for v in ops(nxp).minmax(x)) == (-77, 99)
    f = x.astype(float)
    f[-3] = np.nan  # in the last chunk: the chunk bounds still propagate it
    assert all(np.isnan(v) for v in ops(nxp).minmax(f))


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_split_sort(lib):
    rng = np.random.default_rng(2)
    s, y = np.round(rng.random(1000), 2), rng.integers(0, 2, 1000)
    if lib == "torch":
        torch = pytest.importorskip("torch")
        import array_api_compat.torch as xp

        ts = torch.from_numpy(s).requires_grad_(True)  # scores straight from a model
        q, r = ops(xp).split_sort(ts, torch.from_numpy(y))
        assert isinstance(q, torch.Tensor) and q.dtype == torch.float64
        q, r = q.numpy(), r.numpy()
        # bfloat16 (no NumPy dtype) is sorted as float32, which holds it exactly
        low = ts.to(torch.bfloat16)
        qb, rb = ops(xp).split_sort(low, torch.from_numpy(y))
        held = low.detach().float().numpy()
        np.testing.assert_array_equal(qb.numpy(), np.sort(held[y == 1]))
        np.testing.assert_array_equal(rb.numpy(), np.sort(held[y == 0]))
    else:
        import array_api_compat.numpy as xp

        q, r = ops(xp).split_sort(s, y)
    np.testing.assert_array_equal(q, np.sort(s[y == 1]))
    np.testing.assert_array_equal(r, np.sort(s[y == 0]))
    assert GenericOps(xp).split_sort(s, y) is None


def _rank_sums_by_hand(q, r):
    lt, le = np.searchsorted(r, q, "left"), np.searchsorted(r, q, "right")
    pos_ge = q.shape[0] - np.searchsorted(q, q, "left")
    return int(lt.sum() + le.sum()), float((pos_ge / (pos_ge + r.shape[0] - lt)).sum())


@pytest.mark.parametrize("threads", ["1", "3"])
@pytest.mark.parametrize("decimals", [0, 1, 2, None])
def test_split_rank_sums_blocks_threads_and_ties(monkeypatch, decimals, threads):
    # tiny blocks and thread parts, so tie groups of the positives span blocks
    # and parts, and ties across the classes fall on block edges
    import array_api_compat.numpy as xp

    from metrix.backends import numpy as nb

    monkeypatch.setattr(nb, "_SEARCH_BLOCK", 8)
    monkeypatch.setattr(nb, "_SPLIT_MIN", 64)
    monkeypatch.setenv("METRIX_NUM_THREADS", threads)
    rng = np.random.default_rng(5)
    s = rng.random(3001)
    s = np.round(s, decimals) if decimals is not None else s
    y = rng.integers(0, 2, s.shape[0])
    q, r = ops(xp).split_sort(s, y)
    pairs, prec = ops(xp).split_rank_sums(q, r)
    want_pairs, want_prec = _rank_sums_by_hand(q, r)
    assert pairs == want_pairs
    assert prec == pytest.approx(want_prec, rel=1e-13)
    assert ops(xp).split_rank_sums(q, r, precision=False) == (want_pairs, 0.0)
    assert ops(xp).split_rank_sums(q[:0], r) == (0, 0.0)
    assert ops(xp).split_rank_sums(q, r[:0])[0] == 0
    assert GenericOps(xp).split_rank_sums(q, r) is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binned_codes_torch_eager_equals_generic(dtype):
    torch = pytest.importorskip("torch")
    import array_api_compat.numpy as nxp
    import array_api_compat.torch as txp

    t = 1000
    s = np.concatenate([np.arange(t) / (t - 1), np.nextafter(np.arange(t) / (t - 1), -1),
                        [-1e-4, -0.002, -5.0, 1.0005, 7.0, 0.0, 1.0]]).astype(dtype)
    y = np.random.default_rng(3).integers(0, 2, s.shape[0])
    want = GenericOps(nxp).binned_codes(s, y, n_thresholds=t)
    assert want.min() == 0 and want.max() == 2 * t + 1  # bin 0 and bin T, both targets
    got = ops(txp).binned_codes(torch.from_numpy(s), torch.from_numpy(y), n_thresholds=t)
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(
        ops(txp).binned_codes(torch.from_numpy(s), None, n_thresholds=t).numpy(),
        GenericOps(nxp).binned_codes(s, None, n_thresholds=t))


@pytest.mark.parametrize("t", [2, 7, 1000, 1024])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_binned_histogram_fast_paths_equal_generic(lib, dtype, t):
    # the NumPy kernel (power-of-two layout, int32 bins) against the generic
    # bincount of binned_codes, on edges, just below them and out of range
    import array_api_compat.numpy as nxp

    grid = np.arange(t) / (t - 1)
    s = np.concatenate([grid, np.nextafter(grid, -1), np.nextafter(grid, 2),
                        [-1e-4, -0.002, -5.0, 1.0005, 7.0, 1e30, -1e30]]).astype(dtype)
    rng = np.random.default_rng(t)
    order = rng.permutation(2 * s.shape[0])
    s, y = np.concatenate([s, s])[order], np.repeat([0, 1], s.shape[0])[order]
    hist = rng.integers(0, 5, (1, 2, t + 1))
    want = GenericOps(nxp).binned_histogram(hist, s, y, n_thresholds=t)
    assert want.sum() == hist.sum() + s.shape[0]
    assert (want - hist)[0, :, [0, -1]].all()  # bin 0 and bin T filled, both targets
    if lib == "numpy":
        for dt in (np.int64, np.int32, np.uint8):
            got = ops(nxp).binned_histogram(hist, s, y.astype(dt), n_thresholds=t)
            np.testing.assert_array_equal(got, want)
        return
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as txp

    ts, th = torch.from_numpy(s).requires_grad_(), torch.from_numpy(hist.copy())
    got = ops(txp).binned_histogram(th, ts, torch.from_numpy(y), n_thresholds=t)
    assert got.dtype == torch.int64 and not got.requires_grad
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(th.numpy(), hist)  # the state is not written to
    # bool targets and float16 scores take the generic torch path: same counts
    got = ops(txp).binned_histogram(torch.from_numpy(hist), torch.from_numpy(s),
                                    torch.from_numpy(y.astype(bool)), n_thresholds=t)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("clip", [True, False])
@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_edge_confusion_fast_paths_equal_generic(lib, clip):
    # labels outside 0..n-1 go to the edge rows / columns (clip=True only)
    import array_api_compat.numpy as nxp

    n = 6
    rng = np.random.default_rng(5)
    lo, hi = (-3, n + 3) if clip else (0, n)
    a, b = rng.integers(lo, hi, 5000), rng.integers(lo, hi, 5000)
    cm = rng.integers(0, 9, (n + 2) ** 2)
    want = GenericOps(nxp).edge_confusion(cm, a, b, n=n, clip=clip)
    assert want.sum() == cm.sum() + a.shape[0]
    if clip:
        edge = (want - cm).reshape(n + 2, n + 2)
        assert edge[0].sum() == (a < 0).sum() and edge[:, -1].sum() == (b >= n).sum()
    if lib == "numpy":
        np.testing.assert_array_equal(ops(nxp).edge_confusion(cm, a, b, n=n, clip=clip), want)
        # int32 labels take the generic way: the same counts
        got = ops(nxp).edge_confusion(cm, a.astype(np.int32), b.astype(np.int32), n=n,
                                      clip=clip)
        np.testing.assert_array_equal(got, want)
        return
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as txp

    tc = torch.from_numpy(cm)
    got = ops(txp).edge_confusion(tc, torch.from_numpy(a), torch.from_numpy(b), n=n, clip=clip)
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(tc.numpy(), cm)  # the state is not written to
    got = ops(txp).edge_confusion(tc, torch.from_numpy(a).to(torch.int32),
                                  torch.from_numpy(b).to(torch.int32), n=n, clip=clip)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("rows", [300, 3000])  # codes shifted in place / counts placed
@pytest.mark.parametrize("case", ["in range", "edges", "a below", "a above", "b below",
                                  "b above", "weights", "int32", "empty"])
def test_numpy_edge_counts_fast_path_equals_generic(case, rows):
    # in-range int64 labels skip the clips; every out-of-range value (each array,
    # each side) falls back to them: the same counts as the generic way
    import array_api_compat.numpy as nxp

    n = 5
    rng = np.random.default_rng(11)
    a, b = rng.integers(0, n, rows), rng.integers(0, n, rows)
    w = None
    if case == "edges":
        a[:7], b[7:20] = -1, n  # the edge rows / columns themselves
    elif case == "a below":
        a[3] = -4
    elif case == "a above":
        a[-1] = n + 9
    elif case == "b below":
        b[0] = -2
    elif case == "b above":
        b[5] = n + 1
    elif case == "weights":
        a[1], w = n + 3, rng.random(rows)
    elif case == "int32":
        a, b = a.astype(np.int32), b.astype(np.int32)
        a[2] = -7
    elif case == "empty":
        a, b = a[:0], b[:0]
    want = GenericOps(nxp).edge_counts(a, b, n=n, weights=w)
    got = ops(nxp).edge_counts(a, b, n=n, weights=w)
    assert got.shape == ((n + 2) ** 2,)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)  # sums in another order
    if w is None:  # the edge rows / columns hold the out-of-range values
        cm = got.reshape(n + 2, n + 2)
        assert cm[0].sum() == (a < 0).sum() and cm[-1].sum() == (a >= n).sum()
        assert cm[:, 0].sum() == (b < 0).sum() and cm[:, -1].sum() == (b >= n).sum()


@pytest.mark.parametrize("rows", [1, 300, 513, 5000])
@pytest.mark.parametrize("case", ["in range", "a below", "a above", "a at n", "b below",
                                  "b above", "b at n", "huge", "int32", "int8", "uint8",
                                  "empty"])
def test_numpy_inner_counts_equal_edge_block(case, rows):
    # the declared confusion matrix: the raveled count (small batches), the
    # checked one (larger int64) and the edge count's inner block agree, and a
    # label outside 0..n-1 (either array, either side) is left out, not aliased
    import array_api_compat.numpy as nxp

    n = 4
    rng = np.random.default_rng(rows)
    a, b = rng.integers(0, n, rows), rng.integers(0, n, rows)
    i = rows - 1
    bad = {"a below": (a, -1), "a above": (a, n + 7), "a at n": (a, n),
           "b below": (b, -3), "b above": (b, 2 * n + 1), "b at n": (b, n),
           "huge": (b, np.iinfo(np.int64).max)}
    if case in bad:
        arr, v = bad[case]
        arr[i] = v
    elif case in ("int32", "int8", "uint8"):
        a, b = a.astype(case), b.astype(case)
        if case != "uint8":
            a[i] = -2
    elif case == "empty":
        a, b = a[:0], b[:0]
    got = ops(nxp).inner_counts(a, b, n=n)
    assert got.shape == (n, n)
    want = np.zeros((n, n), dtype=np.int64)
    keep = (a >= 0) & (a < n) & (b >= 0) & (b < n)
    np.add.at(want, (a[keep].astype(np.int64), b[keep].astype(np.int64)), 1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, GenericOps(nxp).inner_counts(a, b, n=n))
    if case in bad:
        assert got.sum() == rows - 1  # the undeclared sample is counted nowhere


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_pair_bincount_discover_grows_and_refuses(lib, chunked):
    n = (1 << 18) * 3 + 777
    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 3, n), rng.integers(0, 3, n)
    a[(1 << 18) + 5] = 7      # the range grows in a later chunk (a, then b)
    b[-1] = 20                # past the uint8 code limit of torch (size 21)
    size = 21
    want = np.bincount(a * size + b, minlength=size * size)
    if lib == "torch":
        torch = pytest.importorskip("torch")
        import array_api_compat.torch as xp

        conv = torch.from_numpy
    else:
        import array_api_compat.numpy as xp

        conv = np.asarray
    o = ops(xp)
    flat, got_size = o.pair_bincount_discover(conv(a), conv(b), max_size=100)
    assert got_size == size
    np.testing.assert_array_equal(np.asarray(flat), want)
    neg = a.copy()
    neg[-3] = -1
    assert o.pair_bincount_discover(conv(neg), conv(b), max_size=100) is None
    neg[-3] = np.iinfo(np.int64).min  # wraps to 0 in a code a * size + b
    assert o.pair_bincount_discover(conv(neg), conv(b), max_size=100) is None
    a32, b32 = a.astype(np.int32), b.astype(np.int32)
    np.testing.assert_array_equal(
        np.asarray(o.pair_bincount_discover(conv(a32), conv(b32), max_size=100)[0]), want)
    b32[5] = -7
    assert o.pair_bincount_discover(conv(a32), conv(b32), max_size=100) is None
    assert o.pair_bincount_discover(conv(a), conv(b), max_size=20) is None
    assert GenericOps(xp).pair_bincount_discover(conv(a), conv(b), max_size=100) is None


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_pair_bincount_discover_grows_within_the_joint_count(lib, chunked):
    # 2 -> 5 -> 11 labels: every size takes the two-sample joint count, whose
    # counts must survive each growth; odd chunk lengths leave one sample over
    n = (1 << 17) * 4 + 1001
    rng = np.random.default_rng(9)
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    a[(1 << 17) + 3], b[(1 << 17) * 3 - 1], a[-1] = 4, 10, 10
    want = np.bincount(a * 11 + b, minlength=121)
    conv = np.asarray
    if lib == "torch":
        torch = pytest.importorskip("torch")
        import array_api_compat.torch as xp

        conv = torch.from_numpy
    else:
        import array_api_compat.numpy as xp
    flat, size = ops(xp).pair_bincount_discover(conv(a), conv(b), max_size=100)
    assert size == 11
    np.testing.assert_array_equal(np.asarray(flat), want)


def test_labels_growing_across_chunks_match_sklearn(chunked):
    from sklearn.metrics import confusion_matrix as sk_cm
    from sklearn.metrics import f1_score as sk_f1

    import metrix

    n = (1 << 18) * 2 + 99
    rng = np.random.default_rng(5)
    yt, yp = rng.integers(1, 4, n), rng.integers(1, 4, n)
    yp[-1], yt[1 << 18] = 9, 6   # classes first seen late; 0 and 5, 7, 8 never
    for lib in ("numpy", "torch"):
        a, b = yt, yp
        if lib == "torch":
            torch = pytest.importorskip("torch")
            a, b = torch.from_numpy(yt), torch.from_numpy(yp)
        np.testing.assert_allclose(float(metrix.f1_score(a, b, average="macro")),
                                   sk_f1(yt, yp, average="macro"), rtol=1e-12)
        np.testing.assert_array_equal(np.asarray(metrix.confusion_matrix(a, b)),
                                      sk_cm(yt, yp))


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8"])
def test_declared_labels_fused_count_matches_sklearn(lib, dtype, chunked):
    # long inputs (the chunked path) with values outside the declared 0..C-1
    from sklearn.metrics import confusion_matrix as sk_cm
    from sklearn.metrics import f1_score as sk_f1

    import metrix

    n = (1 << 17) * 2 + 31
    rng = np.random.default_rng(6)
    yt, yp = rng.integers(-2, 6, n).astype(dtype), rng.integers(-1, 7, n).astype(dtype)
    labels = [0, 1, 2, 3]
    a, b = yt, yp
    if lib == "torch":
        torch = pytest.importorskip("torch")
        a, b = torch.from_numpy(yt), torch.from_numpy(yp)
    for validate in (True, False):
        got = metrix.f1_score(a, b, labels=labels, average=None, validate=validate)
        np.testing.assert_allclose(np.asarray(got), sk_f1(yt, yp, labels=labels, average=None),
                                   rtol=1e-12)
        np.testing.assert_array_equal(
            np.asarray(metrix.confusion_matrix(a, b, labels=labels, validate=validate)),
            sk_cm(yt, yp, labels=labels))


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_declared_count_mixes_clean_and_out_of_range_chunks(lib, chunked):
    # chunk 0 all in 0..n-1 (counted as is); chunks 1-3 each hold one value
    # outside (-1, n itself, int64 min) and take the "other" codes first
    n, ch = 10, 1 << 17
    rng = np.random.default_rng(12)
    a, b = rng.integers(0, n, ch * 4 + 3), rng.integers(0, n, ch * 4 + 3)
    a[ch + 7], b[2 * ch + 1], a[3 * ch + 5] = -1, n, np.iinfo(np.int64).min
    other = lambda y: np.where((y >= 0) & (y < n), y, n)  # noqa: E731
    want = np.bincount(other(a) * (n + 1) + other(b), minlength=(n + 1) ** 2)
    conv = np.asarray
    if lib == "torch":
        torch = pytest.importorskip("torch")
        import array_api_compat.torch as xp

        conv = torch.from_numpy
    else:
        import array_api_compat.numpy as xp
    a_in = conv(a)
    got = ops(xp).pair_bincount_declared(a_in, conv(b), n=n)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert a[ch + 7] == -1 and a[3 * ch + 5] == np.iinfo(np.int64).min  # input untouched


def test_torch_chunked_count_at_its_own_chunk():
    # TorchKernel's default chunk (2^18): two chunks, the second ragged and odd,
    # a label first seen in it, and the input never written to
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as txp

    import metrix.backends.torch as tb

    ch = tb.TorchKernel.chunk
    n = ch + 4321
    rng = np.random.default_rng(13)
    a, b = rng.integers(0, 4, n), rng.integers(0, 4, n)
    a[ch + 10] = 9
    want = np.bincount(a * 10 + b, minlength=100)
    ta, tb_ = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    flat, size = ops(txp).pair_bincount_discover(ta, tb_, max_size=50)
    assert size == 10
    np.testing.assert_array_equal(flat.numpy(), want)
    np.testing.assert_array_equal(ops(txp).pair_bincount(ta, tb_, size=10).numpy(), want)
    np.testing.assert_array_equal(ta.numpy(), a)


def test_thread_split_points(monkeypatch):
    from metrix.backends._threads import available_threads, split_points

    monkeypatch.setenv("METRIX_NUM_THREADS", "3")
    assert available_threads() == 3
    assert split_points(10, min_part=1, align=1) == [0, 4, 8, 10]
    assert split_points(100, min_part=40, align=1) == [0, 50, 100]   # 2 parts of >= 40
    assert split_points(100, min_part=10, align=16) == [0, 48, 96, 100]
    assert split_points(100, min_part=10, align=1, threads=1) == [0, 100]
    assert split_points(5, min_part=10, align=1) == [0, 5]
    monkeypatch.setenv("METRIX_NUM_THREADS", "0")
    assert available_threads() == 1
    monkeypatch.setenv("METRIX_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="METRIX_NUM_THREADS"):
        available_threads()
    monkeypatch.delenv("METRIX_NUM_THREADS")
    assert 1 <= available_threads() <= 4


def test_run_parts_keeps_order_and_raises_a_part_error():
    import threading

    from metrix.backends._threads import run_parts

    seen = set()

    def part(i):
        seen.add(threading.get_ident())
        if i == 2:
            raise KeyError("part 2")
        return i * 10

    assert run_parts(part, [(0,), (1,)]) == [0, 10]
    assert len(seen) == 2  # the second part ran on another thread
    with pytest.raises(KeyError, match="part 2"):
        run_parts(part, [(0,), (1,), (2,)])


@pytest.mark.parametrize("clip", [True, False])
def test_edge_cells_torch_eager_equals_generic(clip):
    torch = pytest.importorskip("torch")
    import array_api_compat.numpy as nxp
    import array_api_compat.torch as txp

    rng = np.random.default_rng(8)
    lo, hi = (-3, 8) if clip else (0, 5)
    a, b = rng.integers(lo, hi, 500), rng.integers(lo, hi, 500)
    want = GenericOps(nxp).edge_cells(a, b, n=5, clip=clip)
    assert want.min() >= 0 and want.max() < 49
    got = ops(txp).edge_cells(torch.from_numpy(a), torch.from_numpy(b), n=5, clip=clip)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
def test_narrow_label_dtypes_with_many_classes(lib, dtype):
    # 100 classes: codes a * size + b overflow 8/16-bit arithmetic; the fused
    # kernels must widen or step aside
    from sklearn.metrics import confusion_matrix as sk_cm

    import metrix

    n = (1 << 18) + 3
    rng = np.random.default_rng(9)
    yt, yp = (rng.integers(0, 100, n).astype(dtype) for _ in range(2))
    a, b = yt, yp
    if lib == "torch":
        torch = pytest.importorskip("torch")
        a, b = torch.from_numpy(yt), torch.from_numpy(yp)
    labels = list(range(100))
    np.testing.assert_array_equal(np.asarray(metrix.confusion_matrix(a, b)), sk_cm(yt, yp))
    for validate in (True, False):
        np.testing.assert_array_equal(
            np.asarray(metrix.confusion_matrix(a, b, labels=labels, validate=validate)),
            sk_cm(yt, yp, labels=labels))


def _libs_ops(lib):
    if lib == "torch":
        torch = pytest.importorskip("torch")
        import array_api_compat.torch as txp

        return ops(txp), torch.from_numpy, lambda a: a.numpy()
    import array_api_compat.numpy as nxp

    return ops(nxp), np.asarray, np.asarray


def _check_candidates(values, seg, k, kept, skip_zeros):
    """``kept`` holds each segment's top k (ties by position) and is closed upwards."""
    assert np.all(np.diff(kept) > 0)
    mask = np.zeros(values.shape[0], dtype=bool)
    mask[kept] = True
    drop = skip_zeros and values.min() >= 0
    for s in np.unique(seg):
        idx = np.flatnonzero(seg == s)
        v = values[idx]
        if drop:
            assert not mask[idx[v == 0]].any()
            idx, v = idx[v != 0], v[v != 0]
        order = idx[np.lexsort((idx, -v.astype(np.float64)))]
        assert mask[order[:k]].all()
        if mask[idx].any():
            lowest = values[idx[mask[idx]]].min()
            assert mask[idx[values[idx] >= lowest]].all()


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("kind", ["float", "ties", "int", "wide_int", "float32", "zeros",
                                  "neg_zeros"])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_segment_top_candidates(lib, kind, k):
    o, conv, back = _libs_ops(lib)
    rng = np.random.default_rng(k)
    n_seg = 500
    seg = rng.integers(0, n_seg, 60_000)
    seg[:5] = n_seg - 1  # one query much larger than k, others near 4k items
    values = {"float": lambda: rng.random(seg.shape[0]),
              "ties": lambda: rng.integers(0, 6, seg.shape[0]).astype(float),
              "int": lambda: rng.integers(-9, 1000, seg.shape[0]),
              "wide_int": lambda: rng.integers(-2 ** 62, 2 ** 62, seg.shape[0]) * 2,
              "float32": lambda: rng.normal(size=seg.shape[0]).astype(np.float32),
              "zeros": lambda: rng.integers(0, 4, seg.shape[0]) * (rng.random(seg.shape[0]) < .1),
              "neg_zeros": lambda: (rng.integers(-1, 4, seg.shape[0])
                                    * (rng.random(seg.shape[0]) < .2)),
              }[kind]()
    for skip in (False, True):
        kept = o.segment_top_candidates(conv(values), conv(seg), n_segments=n_seg, k=k,
                                        skip_zeros=skip)
        # mostly tied values can make half the pairs candidates: the fallback
        may_fall_back = ((kind == "ties" and k == 10) or kind == "neg_zeros"
                         or (kind == "zeros" and not skip))
        if may_fall_back and kept is None:
            continue
        assert kept is not None, (kind, skip)
        kept = back(kept)
        assert kept.shape[0] < values.shape[0] // 2 + 1
        _check_candidates(values, seg, k, kept, skip)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_segment_top_candidates_falls_back(lib):
    o, conv, _ = _libs_ops(lib)
    seg = np.repeat(np.arange(1000), 100)
    x = np.random.default_rng(0).random(seg.shape[0])

    def cand(v, s=seg, n_segments=1000, k=10):
        return o.segment_top_candidates(conv(v), conv(s), n_segments=n_segments, k=k)

    assert cand(x) is not None
    assert cand(np.full_like(x, 0.5)) is None  # all equal: nothing to drop
    bad = x.copy()
    bad[7] = np.nan
    assert cand(bad) is None
    bad[7] = np.inf
    assert cand(bad) is None
    assert cand(x, k=40) is None  # segments of 100 items: few more than k
    assert cand(x[:1000], s=seg[:1000]) is None  # small input: a sort is cheap
    assert GenericOps(np).segment_top_candidates(x, seg, n_segments=1000, k=10) is None


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint64"])
def test_unique_inverse_dense_integers(lib, dtype):
    o, conv, back = _libs_ops(lib)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    x = rng.integers(max(info.min, -1000), min(info.max, 10**6), 300_000).astype(dtype)
    x[0], x[1] = (info.min, info.max) if info.bits == 8 else (x[0], x[1])
    if lib == "torch" and dtype == "uint64":  # no NumPy view: torch.unique, whose sort
        try:  # lacks uint64 on some builds (x86 CPU's parallel sort): that error, or the values
            values, inverse = o.unique_inverse(conv(x))
        except NotImplementedError as exc:
            assert "not implemented for 'UInt64'" in str(exc), exc
            return
    else:
        values, inverse = o.unique_inverse(conv(x))
    ev, ei = np.unique(x, return_inverse=True)
    assert back(values).dtype == ev.dtype
    np.testing.assert_array_equal(back(values), ev)
    np.testing.assert_array_equal(back(inverse), ei)


def test_unique_inverse_dense_only_on_narrow_ranges():
    from metrix.backends.numpy import unique_inverse_dense

    x = np.random.default_rng(0).integers(0, 1000, 300_000)
    assert unique_inverse_dense(x) is not None
    assert unique_inverse_dense(x * 10**6) is None  # range far above N: the sort
    assert unique_inverse_dense(x[:1000]) is None
    assert unique_inverse_dense(x.astype(float)) is None
