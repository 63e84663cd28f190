"""The (namespace, device, dtype) combinations the conformance suite runs on.

Each combination converts NumPy reference inputs to its library and device.
Combinations whose library or hardware is absent are skipped with the reason.
array-api-strict devices stand in for hardware: ``device1`` catches silent
moves to the default device, ``no_float64`` behaves like MPS.
"""

from __future__ import annotations

import contextlib
import importlib.util
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .util import jax_x64


def _has(mod: str) -> bool:
    return importlib.util.find_spec(mod) is not None


def _torch_device_reason(kind: str):
    if not _has("torch"):
        return "torch is not installed"
    import torch

    if kind == "cuda" and not torch.cuda.is_available():
        return "no CUDA device here"
    if kind == "mps" and not (getattr(torch.backends, "mps", None)
                              and torch.backends.mps.is_available()):
        return "no MPS device here"
    return None


def _cupy_reason():
    if not _has("cupy"):
        return "cupy is not installed"
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # pragma: no cover - needs a GPU
        return f"cupy has no usable GPU: {exc}"
    return None


def _jax_gpu_reason():
    if not _has("jax"):
        return "jax is not installed"
    import jax

    try:
        jax.devices("gpu")
    except RuntimeError:
        return "no JAX GPU backend here"
    return None


@dataclass(frozen=True)
class Combo:
    """One place a metric runs: library, device and float dtype."""

    id: str
    lib: str                      # numpy | array_api_strict | torch | jax | cupy
    device: str | None            # library device name
    float_dtype: str              # float64 | float32
    skip_reason: Callable[[], str | None] = field(default=lambda: None, compare=False)
    numpy_only_ok: bool = False   # string labels run here

    @property
    def int_dtype(self) -> str:
        return "int32" if (self.lib == "jax" and self.float_dtype == "float32") else "int64"

    def context(self):
        """A context the metric call must run in (JAX x64 toggling)."""
        if self.lib == "jax":
            return jax_x64(self.float_dtype == "float64")
        return contextlib.nullcontext()

    def namespace(self):
        if self.lib == "numpy":
            import array_api_compat.numpy as xp
        elif self.lib == "array_api_strict":
            import array_api_strict as xp
        elif self.lib == "torch":
            import array_api_compat.torch as xp
        elif self.lib == "jax":
            import jax.numpy as xp
        else:
            import array_api_compat.cupy as xp
        return xp

    def native_device(self):
        if self.lib == "array_api_strict":
            import array_api_strict

            return array_api_strict.Device(self.device)
        if self.lib == "torch":
            import torch

            return torch.device(self.device)
        if self.lib == "jax":
            import jax

            return jax.devices(self.device)[0]
        return None

    def convert(self, a):
        """Convert a NumPy input: floats to this combo's float dtype, ints to its int."""
        if a is None or not isinstance(a, np.ndarray):
            return a
        if a.dtype.kind == "f":
            a = a.astype(self.float_dtype)
        elif a.dtype.kind in "iu":
            a = a.astype(self.int_dtype)
        if self.lib == "numpy":
            return a
        if a.dtype.kind in "OUS":
            raise TypeError("string labels are NumPy-only")
        xp = self.namespace()
        dev = self.native_device()
        if self.lib == "torch":
            import torch

            return torch.asarray(a, device=dev)
        if self.lib == "jax":
            import jax

            return jax.device_put(xp.asarray(a), dev)
        if self.lib == "cupy":
            return xp.asarray(a)
        return xp.asarray(a, device=dev)

    def check_placement(self, result):
        """Assert that an array result is of this library and on this device."""
        import array_api_compat

        if self.lib == "numpy":  # scalars come back as Python numbers, as scikit-learn's
            assert isinstance(result, (np.ndarray, np.generic, float, int)), type(result)
            return
        assert not isinstance(result, (np.ndarray, np.generic)), (
            f"result came back as NumPy ({type(result).__name__}), expected {self.lib}")
        xp = array_api_compat.array_namespace(result)
        assert array_api_compat.is_array_api_strict_namespace(xp) == (
            self.lib == "array_api_strict")
        assert array_api_compat.is_torch_namespace(xp) == (self.lib == "torch")
        assert array_api_compat.is_jax_namespace(xp) == (self.lib == "jax")
        if self.device is not None:
            assert str(array_api_compat.device(result)) == str(self.native_device()), (
                f"result on {array_api_compat.device(result)}, inputs on {self.native_device()}")


def _missing(mod):
    return lambda: None if _has(mod) else f"{mod} is not installed"


COMBOS = [
    Combo("numpy-f64", "numpy", None, "float64", numpy_only_ok=True),
    Combo("numpy-f32", "numpy", None, "float32", numpy_only_ok=True),
    Combo("strict-cpu-f64", "array_api_strict", "CPU_DEVICE", "float64",
          _missing("array_api_strict")),
    Combo("strict-device1-f64", "array_api_strict", "device1", "float64",
          _missing("array_api_strict")),
    Combo("strict-nofloat64-f32", "array_api_strict", "no_float64", "float32",
          _missing("array_api_strict")),
    Combo("torch-cpu-f64", "torch", "cpu", "float64", lambda: _torch_device_reason("cpu")),
    Combo("torch-cpu-f32", "torch", "cpu", "float32", lambda: _torch_device_reason("cpu")),
    Combo("torch-cuda-f32", "torch", "cuda", "float32", lambda: _torch_device_reason("cuda")),
    Combo("torch-mps-f32", "torch", "mps", "float32", lambda: _torch_device_reason("mps")),
    Combo("jax-cpu-x64", "jax", "cpu", "float64", _missing("jax")),
    Combo("jax-cpu-f32", "jax", "cpu", "float32", _missing("jax")),
    Combo("jax-gpu-f32", "jax", "gpu", "float32", _jax_gpu_reason),
    Combo("cupy-f64", "cupy", None, "float64", _cupy_reason),
]

COMBO_BY_ID = {c.id: c for c in COMBOS}


def tolerance(combo: Combo) -> dict:
    if combo.float_dtype == "float32":
        return {"rtol": 2e-4, "atol": 2e-5}
    return {"rtol": 1e-9, "atol": 1e-12}
