"""Streaming supervised clustering scores over a declared contingency table.

The statistic is the label metrics' confusion matrix
(:class:`~metrix.stream.LabelStream`'s, ``(n + 2) x (n + 2)`` counts with
"other" bins, ``n = max(num_classes, num_clusters)``): its inner block is
the contingency table of classes ``0..num_classes-1`` against clusters
``0..num_clusters-1``.  It merges by addition, and in a
``MetricCollection`` it is shared with the label metrics of the same ``n``.
``compute`` applies the one-shot functions' table formulas
(:mod:`metrix.clustering._scores`) to the classes and clusters present, as
scikit-learn does; a label outside the declared ranges makes the result NaN
(nothing is read on the host to check it, unless ``validate=True``).
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from ..clustering import _scores
from ..clustering._contingency import matrix_table
from ..clustering.supervised import adjusted_mutual_info
from ..registry import entries
from ._functional import StreamMetric
from ._label import LabelStream
from ._wrappers import Metric

_AVERAGES = ("arithmetic", "geometric", "max", "min")


def _hcv(which):
    def formula(tab, fdt, xp, *, beta):
        return _scores.homogeneity_completeness(tab, beta, fdt, xp)[which]
    return formula


#: name -> the table formula ``f(tab, fdt, xp, **options)`` and its options
_FORMULAS = {
    "rand": (_scores.rand_index, ()),
    "adjusted_rand": (_scores.adjusted_rand, ()),
    "mutual_info": (_scores.mutual_info, ()),
    "normalized_mutual_info": (_scores.normalized_mutual_info, ("method",)),
    "adjusted_mutual_info": (adjusted_mutual_info, ("method",)),
    "homogeneity": (_hcv(0), ("beta",)),
    "completeness": (_hcv(1), ("beta",)),
    "v_measure": (_hcv(2), ("beta",)),
    "fowlkes_mallows": (_scores.fowlkes_mallows, ()),
}


class ClusteringStream(StreamMetric):
    """Functional streaming clustering score of labels against clusters.

    Parameters
    ----------
    metric : str
        One of ``rand, adjusted_rand, mutual_info, normalized_mutual_info,
        adjusted_mutual_info, homogeneity, completeness, v_measure,
        fowlkes_mallows``.
    num_classes : int
        True labels are the integers ``0..num_classes-1``.
    num_clusters : int, default=None
        Cluster labels are ``0..num_clusters-1`` (default: ``num_classes``).
    average_method : {"arithmetic", "geometric", "max", "min"}, default="arithmetic"
        The normaliser of the normalized and adjusted mutual information.
    beta : float, default=1.0
        The V-measure's weight of completeness (homogeneity and completeness
        ignore it).
    validate : bool, default=False
        Check on the host that every label is in range (a device read per batch).

    Notes
    -----
    ``adjusted_mutual_info``'s ``compute`` reads the table's margins on the
    host (the expected mutual information has a data-dependent number of
    terms), as the one-shot function does.
    """

    def __init__(self, metric, num_classes, num_clusters=None, *,
                 average_method="arithmetic", beta=1.0, validate=False):
        if metric not in _FORMULAS:
            raise ValueError(f"Unknown clustering metric {metric!r}; expected one of "
                             f"{tuple(_FORMULAS)}")
        num_clusters = num_classes if num_clusters is None else num_clusters
        self._positive_int(num_classes, "num_classes")
        self._positive_int(num_clusters, "num_clusters")
        if average_method not in _AVERAGES:
            raise ValueError(f"average_method must be one of {_AVERAGES}, got "
                             f"{average_method!r}")
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or not beta >= 0:
            raise ValueError(f"beta must be a float >= 0, got {beta!r}")
        self.metric, self.num_classes, self.num_clusters = metric, num_classes, num_clusters
        self.average_method, self.beta = average_method, float(beta)
        self.counts = LabelStream(max(num_classes, num_clusters), "confusion",
                                  validate=validate)
        self.key = self.counts.key
        self.validate = bool(validate)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "ClusteringStream", "metric": self.metric,
                "num_classes": self.num_classes, "num_clusters": self.num_clusters,
                "average_method": self.average_method, "beta": self.beta}

    def _init(self, xp, device, fdt):
        return self.counts._init(xp, device, fdt)

    def update(self, state, y_true, y_pred, sample_weight=None):
        """Count one batch of (class, cluster) pairs (no weights: scikit-learn's
        clustering scores take none)."""
        if sample_weight is not None:
            raise TypeError("the clustering scores take no sample_weight")
        return self.counts.update(state, y_true, y_pred)

    def compute(self, state):
        """The score of the classes and clusters seen (NaN if a label was out of range)."""
        cm = state["cm"]
        xp, device = _ns.get_namespace_and_device(cm)
        n = self.counts.num_classes
        full = xp.reshape(cm, (n + 2, n + 2))
        table = full[1:self.num_classes + 1, 1:self.num_clusters + 1]
        fdt = _ns.max_float_dtype(xp, device)
        formula, options = _FORMULAS[self.metric]
        kwargs = {"method": self.average_method, "beta": self.beta}
        value = formula(matrix_table(table, xp=xp), fdt, xp,
                        **{k: kwargs[k] for k in options})
        outside = xp.sum(full) - xp.sum(table)
        return xp.where(outside > 0, xp.full_like(value, math.nan), value)


# -- the stateful classes, from the registry ----------------------------------------

_DOC = """Streaming {what}: a contingency table of declared classes and clusters.

    ``{name}(num_classes, num_clusters=None, *, validate=False{options})``; equals
    ``metrix.{fn}`` on all the data (labels ``0..num_classes-1``, clusters
    ``0..num_clusters-1``; one out of range makes the result NaN).  See
    :class:`metrix.stream.ClusteringStream`.
    """


def _clustering_class(entry):
    metric, options = entry.key, _FORMULAS[entry.key][1]

    def __init__(self, num_classes, num_clusters=None, *, validate=False, **kwargs):
        unknown = set(kwargs) - {"average_method" if o == "method" else o for o in options}
        if unknown:
            raise TypeError(f"{entry.stream}() got unexpected keyword arguments "
                            f"{sorted(unknown)}")
        Metric.__init__(self, ClusteringStream(metric, num_classes, num_clusters,
                                               validate=validate, **kwargs))

    extra = "".join({"method": ', average_method="arithmetic"', "beta": ", beta=1.0"}[o]
                    for o in options)
    doc = _DOC.format(what=entry.what, name=entry.stream, fn=entry.function, options=extra)
    return type(entry.stream, (Metric,), {"__init__": __init__, "__doc__": doc,
                                          "__module__": Metric.__module__,
                                          "higher_is_better": entry.greater_is_better})


CLASSES = {e.stream: _clustering_class(e) for e in entries(family="clustering")}
