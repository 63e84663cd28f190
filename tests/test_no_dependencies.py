"""``import metrix`` (and using it on NumPy) imports no optional array library.

Each check runs in a fresh interpreter, as array-api-compat's own
``test_no_dependencies`` does, so that what this test session already
imported cannot hide an import.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("torch", "jax", "jaxlib", "cupy", "array_api_strict", "sklearn")


def _run(body: str) -> None:
    code = textwrap.dedent(body) + textwrap.dedent(f"""
        import sys
        bad = sorted(m for m in {FORBIDDEN!r}
                     if m in sys.modules or any(k.startswith(m + ".") for k in sys.modules))
        assert not bad, "imported " + ", ".join(bad)
        print("OK")
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("OK"), (
        proc.stdout + proc.stderr)


def test_import_metrix():
    _run("import metrix")


def test_import_backends_and_numpy_adapter():
    _run("""
        import numpy as np
        import metrix.backends
        from metrix._core.namespace import get_namespace_and_device
        xp, dev = get_namespace_and_device(np.array([0, 1, 1]))
        o = metrix.backends.ops(xp)
        assert o.bincount(np.array([0, 1, 1]), length=3).tolist() == [1, 2, 0]
        o.topk(np.array([3.0, 1.0, 2.0]), 2)
        o.unique_counts(np.array([2, 2, 1]))
    """)


# metric -> its arguments; a metric missing from metrix fails the test
_CALLS = {
    "accuracy_score": "([0, 1, 1, 0], [0, 1, 0, 0])",
    "confusion_matrix": "(np.array([0, 1, 2, 1]), np.array([0, 2, 2, 1]))",
    "f1_score": "([0, 1, 1, 0], [0, 1, 0, 0])",
    "precision_recall_fscore_support": "([0, 1, 2, 1], [0, 2, 2, 1], average='macro')",
    "mean_squared_error": "(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 2.0]))",
    "r2_score": "(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 2.0]))",
    "roc_auc_score": "(np.array([0, 1, 1, 0]), np.array([0.1, 0.8, 0.4, 0.3]))",
    "log_loss": "(np.array([0, 1, 1]), np.array([0.2, 0.7, 0.9]))",
    "ndcg_at_k": "(np.array([[0, 2, 1]]), np.array([[0.3, 0.1, 0.9]]), k=2)",
    "evaluate": "(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]))",
    "bootstrap": "(metrix.accuracy_score, np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]),"
                 " n_resamples=20, random_state=0)",
}


def test_metrics_on_numpy():
    calls = "\n".join(f"metrix.{name}{args}" for name, args in _CALLS.items())
    _run("import numpy as np\nimport metrix\n" + calls + "\n")
