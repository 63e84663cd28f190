"""scikit-learn's own metric tests pass with metrix in place (see run_suite.py).

Every test that passes in scikit-learn's own run passes with metrix swapped in,
or matches an entry of ``allowlist.txt`` (each with its reason): no percentage.
"""

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("pandas")

from .run_suite import run, summary  # noqa: E402

pytestmark = pytest.mark.sklearn_suite


@pytest.mark.parametrize("array_api", [False, True], ids=["plain", "array_api"])
def test_sklearn_metric_tests_pass_with_metrix(array_api):
    if array_api:
        pytest.importorskip("array_api_strict")
    result = run(array_api=array_api, workers=2)
    assert result["baseline"] > 1000, "scikit-learn's tests did not run"
    assert not result["unexpected"], summary(result)
    assert not result["stale"], summary(result)
