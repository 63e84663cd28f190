"""Comparison helpers for the conformance runner."""

from __future__ import annotations

import numpy as np

#: warning categories compared with scikit-learn's (others are noise here)
COMPARED = {"UndefinedMetricWarning", "UserWarning"}


def relevant_warnings(records) -> set:
    out = set()
    for w in records:
        name = w.category.__name__
        if name in COMPARED:
            out.add((name, str(w.message)))
    return out


def to_numpy(x):
    """Any supported array (any device) as a NumPy array."""
    if x is None or isinstance(x, (str, bytes)):
        return x
    if isinstance(x, (np.ndarray, np.generic, int, float, bool)):
        return np.asarray(x)
    mod = type(x).__module__
    if mod.startswith("torch"):
        return x.detach().cpu().numpy()
    if mod.startswith("array_api_strict"):
        return np.asarray(x._array)
    if mod.startswith("cupy"):
        return x.get()
    return np.asarray(x)


def is_array(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (str, bytes))


def array_results(result):
    """Every array inside ``result`` (tuples, dicts)."""
    if isinstance(result, dict):
        for v in result.values():
            yield from array_results(v)
    elif isinstance(result, (tuple, list)):
        for v in result:
            yield from array_results(v)
    elif is_array(result):
        yield result


def float_results(result):
    """The array-valued floating results inside ``result`` (tuples, dicts)."""
    if isinstance(result, dict):
        for v in result.values():
            yield from float_results(v)
    elif isinstance(result, (tuple, list)):
        for v in result:
            yield from float_results(v)
    elif is_array(result) and "float" in str(result.dtype):
        yield result


def assert_close(result, expected, *, rtol, atol, path="result"):
    if expected is None:
        assert result is None, f"{path}: expected None, got {result!r}"
        return
    if isinstance(expected, str):
        assert result == expected, f"{path}:\n{result}\n!=\n{expected}"
        return
    if isinstance(expected, dict):
        assert isinstance(result, dict), f"{path}: expected a dict, got {type(result)}"
        assert list(result.keys()) == list(expected.keys()), (
            f"{path}: keys {list(result)} != {list(expected)}")
        for k in expected:
            assert_close(result[k], expected[k], rtol=rtol, atol=atol, path=f"{path}[{k!r}]")
        return
    if isinstance(expected, (tuple, list)) and not (
        len(expected) and isinstance(expected[0], (int, float, np.number))
        and not isinstance(result, (tuple, list))
    ):
        assert isinstance(result, (tuple, list)), f"{path}: expected a sequence, got {type(result)}"
        assert len(result) == len(expected), f"{path}: length {len(result)} != {len(expected)}"
        for i, (r, e) in enumerate(zip(result, expected)):
            assert_close(r, e, rtol=rtol, atol=atol, path=f"{path}[{i}]")
        return
    got = to_numpy(result)
    exp = np.asarray(expected)
    assert got is not None, f"{path}: got None, expected {exp}"
    assert got.shape == exp.shape, f"{path}: shape {got.shape} != {exp.shape}"
    if exp.dtype.kind in "OUSb":
        np.testing.assert_array_equal(got, exp, err_msg=path)
        return
    np.testing.assert_allclose(got.astype(np.float64), exp.astype(np.float64),
                               rtol=rtol, atol=atol, equal_nan=True, err_msg=path)


def jax_x64(on: bool = True):
    """A context with JAX's 64-bit types on or off: ``jax.enable_x64`` (JAX 0.8
    and newer), else ``jax.experimental.enable_x64`` (the JAX floor, 0.5)."""
    import jax

    enable = getattr(jax, "enable_x64", None)
    if enable is None:
        from jax.experimental import enable_x64 as enable
    return enable(on)
