"""scikit-learn's metric displays, computing with metrix.

Each class is scikit-learn's display class (``plot``, ``from_estimator`` and
the attributes are scikit-learn's) whose ``from_predictions`` (and
``from_cv_results``) compute the curve or the matrix with metrix, on the
inputs' device; the result moves to the host only to be drawn.  Importing
this package imports scikit-learn and matplotlib is imported when a display
draws; ``metrix.RocCurveDisplay`` and the other flat names load it on first
use.
"""

from .calibration import CalibrationDisplay
from .confusion import ConfusionMatrixDisplay
from .curves import DetCurveDisplay, PrecisionRecallDisplay, RocCurveDisplay
from .prediction_error import PredictionErrorDisplay

__all__ = ["CalibrationDisplay", "ConfusionMatrixDisplay", "DetCurveDisplay",
           "PrecisionRecallDisplay", "PredictionErrorDisplay", "RocCurveDisplay"]
