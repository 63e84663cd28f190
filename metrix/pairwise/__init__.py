"""Pairwise distances, kernels and nearest rows: ``sklearn.metrics.pairwise``
with scikit-learn 1.9's signatures and values, on the inputs' namespace and
device.

* :mod:`.distances`: ``euclidean_distances`` (scikit-learn's expansion and
  float32 upcast), cosine, manhattan and the ``paired_*`` distances;
* :mod:`.kernels`: linear, polynomial, sigmoid, RBF, Laplacian, chi-squared;
* :mod:`.reductions`: ``pairwise_distances`` / ``pairwise_kernels`` by metric
  string, ``pairwise_distances_chunked`` and the fused
  ``pairwise_distances_argmin(_min)`` (no distance matrix formed);
* :mod:`.special`: ``nan_euclidean_distances``, ``haversine_distances`` and
  the input checks ``check_pairwise_arrays`` / ``check_paired_arrays``;
* :mod:`.distance_metric`: ``DistanceMetric`` (scikit-learn's metric names,
  the distances ``pairwise_distances`` computes).

The flat names are also exported on :mod:`metrix`, as scikit-learn exports
them on :mod:`sklearn.metrics`.
"""

from . import distance_metric, distances, kernels, reductions, special  # noqa: F401
from .distance_metric import DistanceMetric  # noqa: F401
from .distances import *  # noqa: F401,F403
from .kernels import *  # noqa: F401,F403
from .reductions import (  # noqa: F401
    KERNEL_PARAMS,
    PAIRWISE_DISTANCE_FUNCTIONS,
    PAIRWISE_KERNEL_FUNCTIONS,
    distance_metrics,
    kernel_metrics,
    pairwise_distances,
    pairwise_distances_argmin,
    pairwise_distances_argmin_min,
    pairwise_distances_chunked,
    pairwise_kernels,
)
from .special import *  # noqa: F401,F403

__all__ = [*distances.__all__, *kernels.__all__, *special.__all__, "pairwise_distances",
           "pairwise_kernels", "pairwise_distances_chunked", "pairwise_distances_argmin_min",
           "pairwise_distances_argmin", "distance_metrics", "kernel_metrics", "DistanceMetric"]
