"""Clustering metrics, scikit-learn's signatures and values.

* :mod:`.supervised`: scores of a clustering against reference labels, all read
  from one contingency table (``contingency_matrix``);
* :mod:`.unsupervised`: scores of a clustering of samples ``X`` (silhouette,
  Calinski-Harabasz, Davies-Bouldin), distances in row blocks.
"""

from . import supervised, unsupervised
from .supervised import *  # noqa: F401,F403
from .unsupervised import *  # noqa: F401,F403

__all__ = [*supervised.__all__, *unsupervised.__all__]
