"""metrix: evaluation metrics written once against the array API standard.

Every metric takes NumPy, CuPy, PyTorch, JAX or array-api-strict arrays and
returns its result in the same namespace and on the same device, with
scikit-learn's semantics.  The public API is flat, as in ``sklearn.metrics``.
"""

from . import _bootstrap
from . import agreement as _agreement
from . import classification as _classification
from . import evaluation as _evaluation
from . import probabilistic as _probabilistic
from . import ranking as _ranking
from . import regression as _regression
from . import report as _report
from . import retrieval as _retrieval
from ._bootstrap import *  # noqa: F401,F403
from .agreement import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .evaluation import *  # noqa: F401,F403
from .exceptions import UndefinedMetricWarning
from .probabilistic import *  # noqa: F401,F403
from .ranking import *  # noqa: F401,F403
from .regression import *  # noqa: F401,F403
from .report import *  # noqa: F401,F403
from .retrieval import *  # noqa: F401,F403

__version__ = "0.1.0"

__all__ = ["UndefinedMetricWarning", *_bootstrap.__all__, *_agreement.__all__, *_classification.__all__,
           *_evaluation.__all__, *_probabilistic.__all__,
           *_ranking.__all__, *_regression.__all__, *_report.__all__, *_retrieval.__all__]
