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

``ALLOWED`` lists what is there today, module by module, with the reason; it
is a ratchet: a new tie fails, and so does an entry larger than the code
needs (lower it when a tie goes, so it cannot come back unseen).  The
refactor to one definition per metric empties it but for the host modules
named there.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "metrix"
FAMILIES = ("classification", "ranking", "regression", "retrieval", "clustering",
            "segmentation", "stream")
LIBRARIES = {"numpy", "torch", "jax", "cupy", "array_api_strict"}
TESTS = {"is_numpy_namespace", "is_torch_namespace", "is_jax_namespace", "is_cupy_namespace",
         "is_array_api_strict_namespace", "backend_name"}
KERNELS = {"_small_batch", "host_views", "ARRAY_TYPE", "host_view"}

#: module -> (ties allowed, why); to be emptied by the one-definition refactor
ALLOWED = {
    "clustering/_sparse.py": (1, "host: SciPy sparse contingency tables (scikit-learn's type)"),
    "clustering/supervised.py": (1, "scikit-learn's signature: dtype=np.int64, np.bool_"),
    "clustering/_unsupervised_input.py": (4, "host: scikit-learn's pairwise-distance checks"),
    "classification/confusion.py": (2, "the declared confusion matrix's and F-score's "
                                       "NumPy kernels, asked of backends.host_views"),
    "regression/scores.py": (2, "the mean errors' NumPy kernel, asked of backends.host_views"),
    "stream/_checkpoint.py": (2, "the state's backend in its config (checkpoints)"),
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
