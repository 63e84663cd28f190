"""Metric code names no array library: the rule of one definition, enforced.

The family packages compute against the ``xp`` namespace; what a backend does
better lives in its adapter (``metrix/backends/``).  This test reads their
source (``ast``) and counts, per module, what ties metric code to a library:

* an import of ``numpy``, ``torch``, ``jax``, ``cupy`` or ``array_api_strict``;
* a test of the namespace or backend (``is_numpy_namespace`` and the other
  ``is_*_namespace``, ``backend_name``) or of the device (``.device.type``);
* a backend's kernels or host views reached from metric code
  (``backends._small_batch``, ``backends.host_views``, ``ARRAY_TYPE``,
  ``host_view``).

``ALLOWED`` lists the host modules that keep a tie, each with the reason
(scikit-learn's own host types: SciPy sparse tables, NumPy dtypes in a
signature, the pairwise-distance checks); it is a ratchet: a new tie fails,
and so does an entry larger than the code needs.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "metrix"
FAMILIES = ("classification", "ranking", "regression", "retrieval", "clustering",
            "segmentation", "stream", "pairwise")
LIBRARIES = {"numpy", "torch", "jax", "cupy", "array_api_strict"}
TESTS = {"is_numpy_namespace", "is_torch_namespace", "is_jax_namespace", "is_cupy_namespace",
         "is_array_api_strict_namespace", "backend_name"}
KERNELS = {"_small_batch", "host_views", "ARRAY_TYPE", "host_view"}

#: host module -> (ties allowed, why)
ALLOWED = {
    "clustering/_sparse.py": (1, "host: SciPy sparse contingency tables (scikit-learn's type)"),
    "clustering/supervised.py": (1, "scikit-learn's signature: dtype=np.int64, np.bool_"),
    "clustering/_unsupervised_input.py": (4, "host: scikit-learn's pairwise-distance checks"),
    "pairwise/distance_metric.py": (1, "scikit-learn's signature: dtype=np.float64; the "
                                       "metric's parameters (V, VI, w) checked on the host"),
}


def _ties(tree) -> int:
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            n += sum(a.name.split(".")[0] in LIBRARIES for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            n += node.level == 0 and mod.split(".")[0] in LIBRARIES
            n += any(part in KERNELS for part in mod.split("."))
            n += sum(a.name in TESTS | KERNELS for a in node.names)
        elif isinstance(node, ast.Attribute):
            n += node.attr in TESTS | {"ARRAY_TYPE", "host_view"}
            n += (node.attr == "type" and isinstance(node.value, ast.Attribute)
                  and node.value.attr == "device")
        elif isinstance(node, ast.Name):
            n += node.id in TESTS | {"ARRAY_TYPE", "host_view"}
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "getattr" and len(node.args) > 1
                and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "device"
                and isinstance(node.args[1], ast.Constant) and node.args[1].value == "type"):
            n += 1  # getattr(x.device, "type"): a device test too
    return n


def ties() -> Counter:
    out = Counter()
    for family in FAMILIES:
        for path in sorted((PKG / family).rglob("*.py")):
            k = _ties(ast.parse(path.read_text()))
            if k:
                out[path.relative_to(PKG).as_posix()] = k
    return out


def test_metric_code_names_no_library_beyond_the_allowlist():
    found = ties()
    new = {m: k for m, k in found.items() if k > ALLOWED.get(m, (0, ""))[0]}
    assert not new, (f"metric code ties itself to a library in {new} (ties per module): "
                     "put the backend's part in its adapter (metrix/backends/)")


def test_the_allowlist_is_tight():
    found = ties()
    loose = {m: (allowed, found.get(m, 0)) for m, (allowed, _) in ALLOWED.items()
             if found.get(m, 0) < allowed}
    assert not loose, (f"ALLOWED is above what the code needs {loose} (allowed, found): "
                       "lower it, so a removed tie cannot come back unseen")
