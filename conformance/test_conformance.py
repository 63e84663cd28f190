"""Run every conformance case on every (namespace, device, dtype) combination."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import metrix
from conformance.combos import COMBOS, tolerance
from conformance.registry import collect
from conformance.util import array_results, assert_close, float_results, relevant_warnings

CASES = collect()
_CASE_BY_ID = {c.id: c for c in CASES}


@functools.lru_cache(maxsize=None)
def _reference(case_id: str, float_dtype: str):
    case = _CASE_BY_ID[case_id]

    def prep(a):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f" and case.float32_reference:
            return a.astype(float_dtype).astype(np.float64)
        return a

    args = [prep(a) for a in case.args]
    kwargs = {k: (v if k in case.host_kwargs else prep(v)) for k, v in case.kwargs.items()}
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            value = case.reference(*args, **kwargs)
        except Exception as exc:  # the case expects the same error from metrix
            value = exc
    return value, relevant_warnings(rec)


#: metrics whose NumPy float results are float64 whatever the input dtype, as
#: scikit-learn's (its tests assert the dtype of a weighted confusion matrix)
NUMPY_FLOAT64_RESULTS = {"confusion_matrix"}


def assert_case_value(case, combo, result, expected):
    """``result`` equals ``expected`` to the combo's tolerance plus the case's own
    (or by the case's ``compare``)."""
    tol = tolerance(combo)
    tol = {"rtol": tol["rtol"] + case.rtol, "atol": tol["atol"] + case.atol}
    if case.compare is not None:
        case.compare(result, expected, tol)
    else:
        assert_close(result, expected, **tol)


def skip_if_not_here(case, combo):
    """Skip a (case, combination) that cannot run here, with the reason."""
    reason = combo.skip_reason()
    if reason:
        pytest.skip(reason)
    if combo.id in case.skip:
        pytest.skip(case.skip[combo.id])
    if case.numpy_only and not combo.numpy_only_ok:
        pytest.skip("string labels are NumPy-only")


@pytest.mark.parametrize("combo", COMBOS, ids=[c.id for c in COMBOS])
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
def test_conformance(case, combo):
    skip_if_not_here(case, combo)
    expected, expected_warnings = _reference(case.id, combo.float_dtype)
    if isinstance(expected, ImportError):  # the reference's library (TorchMetrics, say)
        # does not import in this environment (the minimum-versions stages pin NumPy 1,
        # which the torch wheel cannot load): nothing to compare against here
        pytest.skip(f"the reference needs a library that does not import here: {expected}")

    fn = case.call if case.call is not None else getattr(metrix, case.metric)
    with combo.context(), warnings.catch_warnings(record=True) as rec:
        args = [combo.convert(a) for a in case.args]
        kwargs = {k: (v if k in case.host_kwargs else combo.convert(v))
                  for k, v in case.kwargs.items()}
        warnings.simplefilter("always")
        if isinstance(expected, Exception):
            exc_type = (ValueError if isinstance(expected, ValueError)
                        else TypeError if isinstance(expected, TypeError)
                        else type(expected))
            with pytest.raises(exc_type):
                fn(*args, **kwargs)
            return
        result = fn(*args, **kwargs)

    assert_case_value(case, combo, result, expected)

    any_float_input = any(
        isinstance(a, np.ndarray) and a.dtype.kind == "f"
        for a in list(case.args) + [v for k, v in case.kwargs.items()
                                    if k not in case.host_kwargs])
    narrow = combo.float_dtype == "float32" and (
        any_float_input or combo.device == "no_float64" or combo.lib == "jax")
    want = "float32" if narrow else "float64"
    if combo.lib == "numpy" and case.metric in NUMPY_FLOAT64_RESULTS:
        want = "float64"
    for r in array_results(result):
        combo.check_placement(r)
    for r in float_results(result) if case.check_dtype else ():
        assert str(r.dtype).endswith(want), f"result dtype {r.dtype}, expected {want}"

    if case.check_warnings != "off":
        got = relevant_warnings(rec)
        if case.check_warnings == "category":
            got = {c for c, _ in got}
            expected_warnings = {c for c, _ in expected_warnings}
        assert got == expected_warnings
