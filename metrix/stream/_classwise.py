"""Per-class values as a dict keyed by class name, ready for ``log_dict``.

Reference: TorchMetrics' ``ClasswiseWrapper`` (the same keys: ``prefix +
label + postfix``, by default ``<class name in lower case>_<index>``).
"""

from __future__ import annotations

from .._core import namespace as _ns
from ._wrappers import Metric


class ClasswiseWrapper(Metric):
    """A per-class stream metric whose value is ``{name: 0-d array}``, one per class.

    ``ClasswiseWrapper(metric, labels=None, prefix=None, postfix=None)``:
    ``metric`` gives one value per class (``F1Score(num_classes, average=None)``,
    ``Recall(..., average=None)``, ...).  The keys are ``prefix + label +
    postfix``; ``labels`` names the classes (default: their indices); without
    ``prefix`` and ``postfix`` the prefix is the metric's class name in lower
    case and ``_`` (``f1score_0``), as TorchMetrics.  The wrapper holds the
    metric's state itself: ``update``, ``merge``, ``sync``, ``state_dict``
    are those of any :class:`Metric`.

    Examples
    --------
    >>> from metrix.stream import ClasswiseWrapper, Recall
    >>> m = ClasswiseWrapper(Recall(3, average=None), labels=["cat", "dog", "bird"])
    >>> m.update([0, 1, 2, 2], [0, 1, 1, 2])
    >>> {k: float(v) for k, v in m.compute().items()}
    {'recall_cat': 1.0, 'recall_dog': 1.0, 'recall_bird': 0.5}
    """

    def __init__(self, metric, labels=None, prefix=None, postfix=None):
        if not isinstance(metric, Metric):
            raise TypeError(f"ClasswiseWrapper wraps a metrix.stream metric, got "
                            f"{type(metric).__name__}")
        if labels is not None and not (isinstance(labels, (list, tuple))
                                       and all(isinstance(v, str) for v in labels)):
            raise ValueError(f"labels must be None or a list of str, got {labels!r}")
        for what, v in (("prefix", prefix), ("postfix", postfix)):
            if v is not None and not isinstance(v, str):
                raise ValueError(f"{what} must be None or a str, got {v!r}")
        if not prefix and not postfix:
            prefix, postfix = type(metric).__name__.lower() + "_", ""
        self.metric, self.labels = metric, None if labels is None else list(labels)
        self.prefix, self.postfix = prefix or "", postfix or ""
        self.higher_is_better = metric.higher_is_better
        super().__init__(metric.spec)

    def keys(self, shape):
        """The keys of a per-class result, in class order: ``prefix + label +
        postfix`` (the labels default to the class indices).

        The Keras and Flax faces name their results with it.

        Parameters
        ----------
        shape : tuple of int
            The shape of the wrapped metric's result: one value per class.

        Returns
        -------
        list of str
            One key per class.

        Raises
        ------
        ValueError
            When the result is not 1-D, or ``labels`` does not name every class.
        """
        shape = tuple(shape)
        if len(shape) != 1:
            raise ValueError(
                f"ClasswiseWrapper needs one value per class; {type(self.metric).__name__} "
                f"gives shape {shape}: create it with average=None")
        names = self.labels if self.labels is not None else [str(i) for i in range(shape[0])]
        if len(names) != shape[0]:
            raise ValueError(f"{len(names)} labels for {shape[0]} classes")
        return [f"{self.prefix}{name}{self.postfix}" for name in names]

    def _named(self, values):
        """``{key: value}`` of a per-class result (1-D)."""
        xp = self._placement[0]
        return {key: _ns.to_output(values[i], xp)
                for i, key in enumerate(self.keys(getattr(values, "shape", ())))}

    def compute(self):
        """``{name: value}`` of every class, on the state's device (no host read)."""
        return self._named(super().compute())

    def __call__(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch and return its own per-class values as a dict."""
        return self._named(super().__call__(y_true, y_pred, sample_weight))
