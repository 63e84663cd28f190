"""metrix on any NumPy it claims: public NumPy API only, and the metrics right
after SciPy or scikit-learn has been imported (on NumPy 1.26, SciPy's import
leaves a ``numpy._core`` stub without ``umath`` that once broke every metric).

The minimum-versions leg (``ci/min_deps.py``) runs this file on NumPy 1.24.1
and 1.26.4; the main leg on the pinned NumPy 2.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("scipy.sparse")

PACKAGE = Path(__file__).resolve().parents[2] / "metrix"

#: private modules of the array libraries, whose layout changes between versions
PRIVATE = re.compile(r"\b(?:np|numpy)\.(?:_core|core)\b|getattr\((?:np|numpy), *[\"']_?core"
                     r"|\bjax\._src\b|\btorch\._C\b")

SCRIPT = r"""
import scipy.sparse  # first, as in nearly every ML process
import sklearn.metrics as skm
import numpy as np
import metrix

rng = np.random.default_rng(0)
y = rng.integers(0, 3, 500)
p = np.where(rng.random(500) < 0.7, y, rng.integers(0, 3, 500))
proba = rng.dirichlet(np.ones(3), 500)
yb = (y > 0).astype(np.uint8)
s = rng.random(500)
w = rng.random(500)
cases = [
    ("accuracy_score", (y, p), {}),
    ("f1_score", (y, p), {"average": "macro", "sample_weight": w}),
    ("confusion_matrix", (y.astype(np.uint8), p.astype(np.int8)), {}),
    ("matthews_corrcoef", (y, p), {}),
    ("log_loss", (y, proba), {}),
    ("roc_auc_score", (yb, s), {}),
    ("average_precision_score", (yb, s), {}),
    ("roc_auc_score", (y, proba), {"multi_class": "ovr"}),
    ("top_k_accuracy_score", (y, proba), {"k": 2}),
    ("mean_squared_error", (s, s ** 2), {"sample_weight": w}),
    ("median_absolute_error", (s, s ** 2), {}),
    ("r2_score", (s, s ** 2), {}),
    ("adjusted_rand_score", (y, p), {}),
    ("adjusted_mutual_info_score", (y, p), {}),
]
for name, args, kw in cases:
    got, want = getattr(metrix, name)(*args, **kw), getattr(skm, name)(*args, **kw)
    assert np.allclose(got, want), (name, got, want)
cm = metrix.contingency_matrix(y, p, sparse=True)
want = skm.cluster.contingency_matrix(y, p, sparse=True)
assert type(cm) is type(want) and (cm != want).nnz == 0
print("ok", np.__version__)
"""


def test_no_private_module_of_an_array_library():
    hits = [f"{path.relative_to(PACKAGE.parent)}:{i}: {line.strip()}"
            for path in sorted(PACKAGE.rglob("*.py"))
            for i, line in enumerate(path.read_text().splitlines(), 1)
            if PRIVATE.search(line.split("#", 1)[0])]
    assert not hits, "\n".join(hits)


def test_metrics_after_scipy_sparse_equal_sklearn():
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("ok")
