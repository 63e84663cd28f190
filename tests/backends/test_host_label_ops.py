"""The adapter's host-label operations (what metric code asks instead of testing
for NumPy): whether arrays hold strings, mixed-dtype comparisons, ``== value``,
Python scalars of a small array, the library's nested conversion, and whether a
lane sorts on host arrays."""

from __future__ import annotations

import numpy as np
import pytest

from metrix.backends import GenericOps, ops

NUMPY_ONLY = {"holds_strings": True, "compares_mixed_dtypes": True}


def test_capabilities(xp):
    adapter = ops(xp.xp)
    for name, numpy_value in NUMPY_ONLY.items():
        assert getattr(adapter, name) is (numpy_value if xp.lib == "numpy" else False)
        assert getattr(GenericOps(xp.xp), name) is False


def test_is_strings(xp):
    adapter = ops(xp.xp)
    assert adapter.is_strings(xp.asarray([1, 2])) is False
    if xp.lib == "numpy":
        for a in (np.array(["a", "b"]), np.array([b"a"]), np.array(["a", 1], dtype=object)):
            assert adapter.is_strings(a) is True


def test_equals_value(xp):
    adapter = ops(xp.xp)
    res = adapter.equals_value(xp.asarray([0, 1, 1]), 1)
    assert xp.to_numpy(res).tolist() == [False, True, True]
    if xp.lib == "numpy":  # strings against a number: an array all the same
        res = adapter.equals_value(np.array(["a", "b"]), 1)
        assert isinstance(res, np.ndarray)
        assert not res.any()


@pytest.mark.parametrize("values, expected", [
    ([0, 3, 7], [0, 3, 7]),
    ([False, True], [False, True]),
])
def test_python_scalars(xp, values, expected):
    for adapter in (ops(xp.xp), GenericOps(xp.xp)):
        out = adapter.python_scalars(xp.asarray(np.array(values)))
        assert out == expected
        assert [type(v) for v in out] == [type(v) for v in expected]


def test_python_scalars_of_floats(xp):
    a = xp.asarray(np.array([1.0, 2.5]))
    # NumPy: tolist() (floats stay floats); elsewhere integral floats become ints
    expected = [1.0, 2.5] if xp.lib == "numpy" else [1, 2.5]
    out = ops(xp.xp).python_scalars(a)
    assert out == expected and [type(v) for v in out] == [type(v) for v in expected]
    assert GenericOps(xp.xp).python_scalars(a) == [1, 2.5]


def test_from_nested(xp):
    values = [0.5, 1]
    out = ops(xp.xp).from_nested(values)
    if xp.lib == "numpy":
        np.testing.assert_array_equal(out, np.asarray(values))
        assert out.dtype == np.float64
    else:
        assert out is None
    assert GenericOps(xp.xp).from_nested(values) is None


def test_lane_sorts_on_host(xp):
    a = xp.asarray(np.array([[0.1, 0.2]]))
    host = xp.lib == "numpy" or (xp.lib == "torch" and str(xp.device) == "cpu")
    assert ops(xp.xp).lane_sorts_on_host(a) is host
    assert GenericOps(xp.xp).lane_sorts_on_host(a) is False
