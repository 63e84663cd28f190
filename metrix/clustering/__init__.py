"""Clustering metrics, scikit-learn's signatures and values.

* :mod:`.supervised`: scores of a clustering against reference labels, all read
  from one contingency table (``contingency_matrix``);
* :mod:`.unsupervised`: scores of a clustering of samples ``X`` (silhouette,
  Calinski-Harabasz, Davies-Bouldin), distances in row blocks;
* :mod:`.bicluster`: the consensus of two sets of biclusters.
"""

from . import bicluster, supervised, unsupervised
from .bicluster import *  # noqa: F401,F403
from .supervised import *  # noqa: F401,F403
from .unsupervised import *  # noqa: F401,F403

__all__ = [*supervised.__all__, *unsupervised.__all__, *bicluster.__all__]
