"""The ``xp`` fixture: one parameter per backend and device metrix supports.

Conversion and skip logic come from ``conformance/combos.py`` (``COMBOS``), so
the unit tests and the conformance suite agree on what each backend means.
Absent libraries and hardware skip with the reason.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # `pytest tests` from anywhere: make `conformance` importable
    sys.path.insert(0, _ROOT)

from conformance.combos import COMBO_BY_ID, Combo  # noqa: E402


class Backend(enum.Enum):
    """Backend/device -> the conformance combo that stands for it."""

    NUMPY = "numpy-f64"
    STRICT_CPU = "strict-cpu-f64"
    STRICT_DEVICE1 = "strict-device1-f64"
    STRICT_NO_FLOAT64 = "strict-nofloat64-f32"
    TORCH_CPU = "torch-cpu-f64"
    TORCH_CUDA = "torch-cuda-f32"
    TORCH_MPS = "torch-mps-f32"
    JAX_CPU = "jax-cpu-x64"
    JAX_GPU = "jax-gpu-f32"
    CUPY = "cupy-f64"

    @property
    def combo(self) -> Combo:
        return COMBO_BY_ID[self.value]


@dataclass(frozen=True)
class BackendCase:
    """What a test gets: the namespace, the device, and a NumPy -> backend converter."""

    backend: Backend
    xp: object
    device: object

    @property
    def combo(self) -> Combo:
        return self.backend.combo

    @property
    def lib(self) -> str:
        return self.combo.lib

    @property
    def float_dtype(self) -> str:
        return self.combo.float_dtype

    def asarray(self, a):
        """A NumPy array on this backend/device (floats and ints as the combo's dtypes)."""
        return self.combo.convert(np.asarray(a))

    def to_numpy(self, x):
        if self.lib == "cupy":
            return x.get()
        if self.lib == "torch":
            return x.detach().cpu().numpy()
        if self.lib == "array_api_strict":
            return np.asarray(x.to_device(self.xp.Device("CPU_DEVICE")))
        return np.asarray(x)

    def __repr__(self) -> str:
        return f"BackendCase({self.backend.name})"


@pytest.fixture(autouse=True)
def _jax_x64_restored():
    """A test that turns JAX's 64-bit types on (``jax.config.update``) leaves them as
    it found them, so that later tests in the same worker see JAX's setting, not
    the previous test's."""
    jax = sys.modules.get("jax")
    before = None if jax is None else jax.config.jax_enable_x64
    yield
    jax = sys.modules.get("jax")
    if before is not None and jax.config.jax_enable_x64 != before:
        jax.config.update("jax_enable_x64", before)


@pytest.fixture(params=list(Backend), ids=[b.value for b in Backend])
def xp(request):
    backend = request.param
    reason = backend.combo.skip_reason()
    if reason:
        pytest.skip(reason)
    combo = backend.combo
    with combo.context():
        yield BackendCase(backend, combo.namespace(), combo.native_device())


@pytest.fixture
def bincount_calls(monkeypatch):
    """The ``length`` of every count of NumPy's adapter while the test runs: each
    ``bincount``, and each fused ``edge_confusion`` (cells and count in one).

    Tests that promise one shared statistic count its ``bincount`` calls:
    ``metrix.evaluate(y_true, y_pred)`` then ``len(bincount_calls) == 1``.
    """
    import array_api_compat.numpy as npx

    from metrix.backends import ops

    adapter = ops(npx)
    calls = []
    inside = []
    original = adapter.bincount
    original_edge = adapter.edge_confusion

    def counting(*args, **kwargs):
        if not inside:
            calls.append(kwargs.get("length"))
        return original(*args, **kwargs)

    def counting_edge(cm, *args, **kwargs):
        calls.append(cm.shape[0])
        inside.append(True)
        try:
            return original_edge(cm, *args, **kwargs)
        finally:
            inside.pop()

    monkeypatch.setattr(adapter, "bincount", counting)
    monkeypatch.setattr(adapter, "edge_confusion", counting_edge)
    return calls


def pytest_terminal_summary(terminalreporter):
    """The meta-path kernel table (tests/accelerator): one line per call."""
    rows = {}
    for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get(
            "failed", []):
        props = dict(getattr(report, "user_properties", ()))
        if "kernel_ops" in props and report.when == "call":
            rows[report.nodeid.split("[", 1)[1][:-1]] = props["kernel_ops"]
    if not rows:
        return
    from tests.accelerator.budget import read_budget, table

    terminalreporter.write_sep("-", "aten ops per call on the meta path (kernel launches)")
    terminalreporter.write_line(table(dict(sorted(rows.items())), read_budget()))


@pytest.fixture(autouse=True, scope="module")
def _jax_caches_cleared():
    """JAX's compiled programs freed after each test module: every JAX test compiles
    a few (tens of MB each), which a worker would otherwise hold to the end."""
    yield
    jax = sys.modules.get("jax")
    if jax is not None:
        jax.clear_caches()
