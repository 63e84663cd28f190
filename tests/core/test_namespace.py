"""Namespace and device resolution, mixed inputs, output placement and dtype."""

from __future__ import annotations

import numpy as np
import pytest

import metrix
from metrix._core import namespace as ns

torch = pytest.importorskip("torch")


def test_numpy_and_lists_give_python_float():
    out = metrix.accuracy_score([0, 1, 1], np.array([0, 1, 0]))
    assert type(out) is float
    assert out == pytest.approx(2 / 3)


def test_mixed_numpy_torch_moves_to_torch():
    out = metrix.f1_score(np.array([0, 1, 1, 0]), torch.tensor([0, 1, 0, 0]))
    assert isinstance(out, torch.Tensor) and out.ndim == 0
    assert out.dtype == torch.float64


def test_float32_inputs_give_float32_output():
    w = torch.ones(4, dtype=torch.float32)
    out = metrix.accuracy_score(torch.tensor([0, 1, 1, 0]), torch.tensor([0, 1, 0, 0]),
                                sample_weight=w)
    assert out.dtype == torch.float32


def test_two_libraries_follow_y_pred():
    jnp = pytest.importorskip("jax.numpy")
    out = metrix.accuracy_score(torch.tensor([0, 1]), jnp.asarray([0, 0]))
    assert type(out).__module__.startswith("jax") and float(out) == 0.5


def test_two_libraries_raise_type_error_below_the_edge():
    jnp = pytest.importorskip("jax.numpy")
    from metrix._core.namespace import get_namespace_and_device
    with pytest.raises(TypeError, match="different array libraries"):
        get_namespace_and_device(torch.tensor([0, 1]), jnp.asarray([0, 1]))


def test_two_devices_raise_value_error():
    xps = pytest.importorskip("array_api_strict")
    a = xps.asarray([0, 1], device=xps.Device("CPU_DEVICE"))
    b = xps.asarray([0, 1], device=xps.Device("device1"))
    with pytest.raises(ValueError, match="different devices"):
        metrix.accuracy_score(a, b)


def test_strings_on_non_numpy_backend_raise():
    with pytest.raises(TypeError, match="only supported with NumPy"):
        metrix.accuracy_score(["a", "b"], torch.tensor([0, 1]))


def test_widest_float_on_float32_only_device():
    xps = pytest.importorskip("array_api_strict")
    dev = xps.Device("no_float64")
    assert ns.max_float_dtype(xps, dev) == xps.float32
    a = xps.asarray([0, 1, 1], device=dev)
    out = metrix.accuracy_score(a, a)
    assert out.dtype == xps.float32 and out.device == dev


def test_device1_result_stays_on_device1():
    xps = pytest.importorskip("array_api_strict")
    dev = xps.Device("device1")
    a = xps.asarray([0, 1, 2, 1], device=dev)
    b = xps.asarray([0, 2, 2, 1], device=dev)
    for out in (metrix.f1_score(a, b, average="macro"), metrix.confusion_matrix(a, b)):
        assert out.device == dev


def test_unsupported_type():
    with pytest.raises(TypeError, match="Unsupported input"):
        ns.get_namespace_and_device(object())
