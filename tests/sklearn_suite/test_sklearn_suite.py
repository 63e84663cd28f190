"""scikit-learn's own metric tests pass with metrix in place (see run_suite.py)."""

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("pandas")

from .run_suite import THRESHOLD, run, summary  # noqa: E402

pytestmark = pytest.mark.sklearn_suite


@pytest.mark.parametrize("array_api", [False, True], ids=["plain", "array_api"])
def test_sklearn_metric_tests_pass_with_metrix(array_api):
    if array_api:
        pytest.importorskip("array_api_strict")
    result = run(array_api=array_api, workers=2)
    assert result["baseline"] > 1000, "scikit-learn's tests did not run"
    assert result["ratio"] >= THRESHOLD, summary(result)
