"""The retrieval rows' NumPy reference equals TorchMetrics' ``Retrieval*`` metrics.

``cases_retrieval.py`` compares the @k metrics with a float64 NumPy version of
TorchMetrics' definitions; this checks that version against TorchMetrics
itself (float32 inside, hence the tolerance) on every row that uses it.
"""

from __future__ import annotations

import numpy as np
import pytest

from conformance.cases_retrieval import torchmetrics_reference
from conformance.registry import collect

ROWS = [c for c in collect() if getattr(c.reference, "metric", None) is not None]


@pytest.mark.parametrize("case", ROWS, ids=[c.id for c in ROWS])
def test_numpy_reference_is_torchmetrics(case):
    tm = torchmetrics_reference(case.reference.metric)
    if case.id.endswith("-error"):
        with pytest.raises(ValueError):
            case.reference(*case.args, **case.kwargs)
        if not case.id.endswith(":k-error"):  # RetrievalMRR and RetrievalMAP take top_k=0
            with pytest.raises(ValueError):
                tm(*case.args, **case.kwargs)
        return
    want = tm(*case.args, **case.kwargs)
    got = case.reference(*case.args, **case.kwargs)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
