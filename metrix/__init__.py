"""metrix: evaluation metrics written once against the array API standard.

Every metric takes NumPy, CuPy, PyTorch, JAX or array-api-strict arrays and
returns its result in the same namespace and on the same device, with
scikit-learn's semantics.  The public API is flat, as in ``sklearn.metrics``;
``metrix.stream`` (streaming and distributed metrics) and ``metrix.cli`` load
on first use.
"""

import importlib

from . import classification as _classification
from . import clustering as _clustering
from . import evaluation as _evaluation
from . import ranking as _ranking
from . import regression as _regression
from . import retrieval as _retrieval
from . import segmentation as _segmentation
from .classification import *  # noqa: F401,F403
from .clustering import *  # noqa: F401,F403
from .evaluation import *  # noqa: F401,F403
from .exceptions import UndefinedMetricWarning
from .pairwise import (  # noqa: F401
    DistanceMetric,
    euclidean_distances,
    nan_euclidean_distances,
    pairwise_distances,
    pairwise_distances_argmin,
    pairwise_distances_argmin_min,
    pairwise_distances_chunked,
    pairwise_kernels,
)
from .ranking import *  # noqa: F401,F403
from .regression import *  # noqa: F401,F403
from .retrieval import *  # noqa: F401,F403
from .segmentation import *  # noqa: F401,F403

__version__ = "0.1.0"

#: the pairwise names scikit-learn exports on ``sklearn.metrics`` (the rest: ``metrix.pairwise``)
_PAIRWISE = ["DistanceMetric", "euclidean_distances", "nan_euclidean_distances",
             "pairwise_distances", "pairwise_distances_argmin",
             "pairwise_distances_argmin_min", "pairwise_distances_chunked", "pairwise_kernels"]

__all__ = ["UndefinedMetricWarning", *_classification.__all__, *_clustering.__all__,
           *_evaluation.__all__, *_ranking.__all__, *_regression.__all__,
           *_retrieval.__all__, *_segmentation.__all__, *_PAIRWISE]

_LAZY = ("stream", "cli", "display")
#: scikit-learn's display classes, computing with metrix (:mod:`metrix.display`,
#: which imports scikit-learn: loaded on first use, not by ``import metrix``)
DISPLAYS = ("CalibrationDisplay", "ConfusionMatrixDisplay", "DetCurveDisplay",
            "PrecisionRecallDisplay", "PredictionErrorDisplay", "RocCurveDisplay")


def __getattr__(name):
    """``metrix.stream``, ``metrix.cli`` and ``metrix.display`` (and the display
    classes) import on first attribute access (PEP 562)."""
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    if name in DISPLAYS:
        try:
            display = importlib.import_module(".display", __name__)
        except ImportError as exc:
            raise ImportError(f"metrix.{name} is scikit-learn's display class computing with "
                              "metrix: install scikit-learn (and matplotlib to draw)") from exc
        return getattr(display, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY, *DISPLAYS])
