import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    """Each test's figures are closed after it (matplotlib warns past 20 open)."""
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")
