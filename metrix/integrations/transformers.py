"""Exact evaluation metrics for the Hugging Face ``transformers`` ``Trainer``.

    from metrix.integrations.transformers import compute_metrics

    trainer = Trainer(
        model=model,
        args=TrainingArguments(..., batch_eval_metrics=True),
        eval_dataset=eval_ds,
        compute_metrics=compute_metrics(["accuracy", "f1", "roc_auc"], task="multiclass"),
    )
    trainer.evaluate()   # {"eval_accuracy": ..., "eval_f1": ..., "eval_roc_auc": ..., ...}

How the ``Trainer`` (transformers 5) calls it.  With ``batch_eval_metrics=True``
``evaluation_loop`` calls ``compute_metrics(EvalPrediction(logits, labels),
compute_result=...)`` once per batch, right after the batch's forward pass:
``logits`` and ``labels`` are the batch's tensors on the model's device,
already gathered across processes (``accelerator.gather_for_metrics``: every
process sees the whole batch, the samples a distributed sampler repeats to
even out the last batch dropped), padded with ``-100`` along dimension 1
across processes when they have one (token-level outputs), and ``logits`` is
a tuple when the model returns more than its logits.  ``compute_result`` is
``True`` at the last batch only; what the earlier calls return is ignored.
Without ``batch_eval_metrics`` the ``Trainer`` keeps every batch's logits,
moves them to the host as NumPy arrays, concatenates them (padding with
``-100``) and calls ``compute_metrics(EvalPrediction)`` once, without
``compute_result``.

What :func:`compute_metrics` returns handles both: per batch it updates one
:class:`metrix.stream.MetricCollection` per kind of input (predicted labels,
probabilities, raw values: metrics that share a statistic, e.g. a confusion
matrix, update it once), on the batch's device, without a host read; at
``compute_result=True`` (or ``None``: the whole set in one call) it returns
``{name: float}`` over all the batches (one host read) and resets.  Because the
inputs are already gathered, the state is never all-reduced.
"""

from __future__ import annotations

import math
import re

import torch

from .. import stream as _stream
from ..registry import by_key, entries
from ..stream._functional import StreamMetric
from ..stream._label import MATRIX_METRICS, LabelStream
from ..stream._multilabel import MULTILABEL_METRICS as _MULTILABEL
from ..stream._multilabel import MultilabelStream
from ..stream._probabilistic import LogLossStream
from ..stream._ranking import DEFAULT_THRESHOLDS, RankingStream
from ..stream._regression import RegressionStream

__all__ = ["TrainerMetrics", "compute_metrics"]

TASKS = ("binary", "multiclass", "multilabel", "regression")

_TRAINER = entries(trainer=True)
#: scikit-learn's function names, ``evaluate``'s names and the registry's aliases, as
#: the registry's keys
_ALIASES = {n: e.key for e in _TRAINER for n in (e.function, e.evaluate, *e.aliases)
            if n and n != e.key}
_LABEL, _SCORE, _REGRESSION = (tuple(e.key for e in _TRAINER if e.family == f)
                               for f in ("label", "score", "regression"))
_AVERAGED = tuple(e.key for e in _TRAINER if e.averaged)
#: the areas under a curve (a ranking state) and the probabilities' loss (its own state)
_RANKING, _PROBA = (tuple(e.key for e in _TRAINER if e.path == p) for p in ("ranking", "proba"))
#: accuracy and the losses that are 1 minus it: one LabelStream of average=None each
_ACCURACY = tuple({n for e in _TRAINER if e.complement for n in (e.key, e.complement)})


def compute_metrics(metrics, task="multiclass", labels=None, *, average="auto", threshold=0.5,
                    from_logits=True, ignore_index=-100, thresholds=DEFAULT_THRESHOLDS,
                    capacity=None, multioutput="uniform_average"):
    """A ``compute_metrics`` for ``transformers.Trainer``: exact values, batch by batch.

    Use it with ``TrainingArguments(batch_eval_metrics=True)``: each batch of
    logits is folded into a fixed-size state on the model's device (no host
    read, nothing kept per sample), and the last batch returns the metrics
    of the whole evaluation set.  Without ``batch_eval_metrics`` the same
    object takes the ``Trainer``'s one ``EvalPrediction`` of NumPy arrays.

    Parameters
    ----------
    metrics : list of str or metrix.stream.Metric, or dict
        The metrics, by name or as :mod:`metrix.stream` instances (their
        configuration is used, not their state).  A dict ``{name: metric}``
        names the results; in a list a string is its own name and an
        instance is named after its class (``F1Score`` -> ``"f1_score"``).
        Names: ``accuracy, precision, recall, f1, jaccard, mcc, kappa,
        balanced_accuracy, hamming_loss, zero_one_loss`` (predicted labels),
        ``roc_auc, average_precision, log_loss`` (probabilities), ``mse,
        rmse, mae, r2, explained_variance, msle, rmsle, mape, median_ae``
        (``task="regression"``); scikit-learn's function names
        (``"f1_score"``, ``"roc_auc_score"``, ...) are accepted too.
    task : {"multiclass", "binary", "multilabel", "regression"}, default="multiclass"
        How the model's outputs are read.  ``"multiclass"``: logits ``(..., C)``
        and integer labels ``(...)``; the predicted label is the arg-max, the
        probabilities the softmax.  ``"binary"``: one logit per sample
        (``(...)`` or ``(..., 1)``: probability ``sigmoid(z)``, label ``z >
        logit(threshold)``) or two (``(..., 2)``: probability ``softmax(z)[1]``,
        label ``z1 - z0 > logit(threshold)``); labels 0 / 1, class 1 positive.
        ``"multilabel"``: logits ``(n, L)`` and labels ``(n, L)`` (a label
        above 0.5 is positive); each sigmoid above ``threshold`` is a
        predicted label.  ``"regression"``: predictions ``(n,)``, ``(n, 1)``
        or ``(n, k)``, as they are.  In a classification task, integer
        predictions shaped as the targets are taken as predicted labels (a
        ``preprocess_logits_for_metrics`` that returns the arg-max); only
        label metrics can read them.
    labels : int or sequence, default=None
        The classes (``"multiclass"``) or labels (``"multilabel"``): their
        number, or their names (used for the per-class results of
        ``average=None``).  ``None``: the number of columns of the logits.
    average : {"auto", "binary", "micro", "macro", "weighted"} or None, default="auto"
        The average of the per-class metrics (precision, recall, F1,
        jaccard, ROC AUC, average precision).  ``"auto"``: scikit-learn's
        default where it has one, ``"binary"`` (class 1) for
        ``task="binary"``, and ``"macro"`` for multiclass and multilabel
        (scikit-learn's ``"binary"`` default raises there).  ``None`` gives
        per-class values, returned as ``{name}_{class}``.  ROC AUC and
        average precision of a binary task take no average.
    threshold : float, default=0.5
        Probability above which a binary or multilabel prediction is positive.
    from_logits : bool, default=True
        ``False``: the predictions already are probabilities (no softmax or
        sigmoid is applied).
    ignore_index : int or None, default=-100
        Classification targets equal to it are left out (the ``Trainer`` pads
        token-level labels with -100, which the models' losses ignore).  Label
        metrics take it as their own ``ignore_index``; probability metrics
        give them zero weight.  Not applied to multilabel or
        regression targets.  ``None``: every target counts.  Any other
        label that no column of the logits can predict (5 with 3 columns,
        -1, 0.5) counts as an error in the label metrics (MCC, kappa and
        balanced accuracy too: one class for the labels below 0, one for
        those above), and makes the probability metrics raise a ValueError
        at the result, as do NaN / inf predictions, multilabel targets
        outside [0, 1] and ``msle`` / ``rmsle`` of values <= -1 (counted on
        the device batch by batch, read with the result).
    thresholds : int or sequence, default=1000
        ROC AUC and average precision are binned on these thresholds (an int
        ``T``: ``T`` evenly spaced on [0, 1]): a fixed-size histogram, the
        exact value of the probabilities rounded down to their bin.
    capacity : int, default=None
        Instead, keep up to ``capacity`` samples' probabilities on the device
        for exact ROC AUC and average precision (and ``median_ae``, which
        needs it); more samples raise :class:`metrix.stream.BufferFullError`.
    multioutput : str or sequence, default="uniform_average"
        The regression metrics' ``multioutput`` (``"raw_values"`` gives
        ``{name}_{i}`` per output).

    Returns
    -------
    TrainerMetrics
        The callable to pass as ``Trainer(compute_metrics=...)``.

    See Also
    --------
    metrix.stream.MetricCollection : The state it updates, one per kind of input.
    """
    return TrainerMetrics(metrics, task=task, labels=labels, average=average,
                          threshold=threshold, from_logits=from_logits,
                          ignore_index=ignore_index, thresholds=thresholds, capacity=capacity,
                          multioutput=multioutput)


class TrainerMetrics:
    """The callable made by :func:`compute_metrics`.

    Each parameter is the one of :func:`compute_metrics` of the same name.

    Parameters
    ----------
    metrics : list or dict
        The metrics, by name or as :mod:`metrix.stream` instances.
    task : str, default="multiclass"
        How the model's outputs are read.
    labels : int or sequence, default=None
        The classes or labels: their number or their names.
    average : str or None, default="auto"
        The average of the per-class metrics.
    threshold : float, default=0.5
        Probability above which a binary or multilabel prediction is positive.
    from_logits : bool, default=True
        Whether the predictions are logits.
    ignore_index : int or None, default=-100
        Classification target left out.
    thresholds : int or sequence, default=1000
        The bins of ROC AUC and average precision.
    capacity : int, default=None
        Samples kept for exact ROC AUC, average precision and ``median_ae``.
    multioutput : str or sequence, default="uniform_average"
        The regression metrics' ``multioutput``.

    See Also
    --------
    compute_metrics : The factory, with the full description of the parameters.
    """

    def __init__(self, metrics, *, task="multiclass", labels=None, average="auto",
                 threshold=0.5, from_logits=True, ignore_index=-100,
                 thresholds=DEFAULT_THRESHOLDS, capacity=None, multioutput="uniform_average"):
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {task!r}")
        if not 0.0 < float(threshold) < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {threshold!r}")
        if average == "none":
            average = None
        elif average == "auto":
            average = "binary" if task == "binary" else "macro"
        self.task, self.average = task, average
        self.threshold, self.from_logits = float(threshold), bool(from_logits)
        self.ignore_index = None if task in ("multilabel", "regression") else ignore_index
        self.thresholds, self.capacity, self.multioutput = thresholds, capacity, multioutput
        self.label_names = _label_names(labels, task)
        self._given = _named(metrics)
        for name, m in self._given.items():
            _check_supported(name, m, task)
        self._kinds = None        # kind -> (MetricCollection, names); built at the first batch
        self._width = None        # classes / labels / outputs the collections were built for
        self._device = None       # where the states are
        self._bad_values = None   # on the device: the sum of the predictions (NaN / inf
        self._bad_labels = None   # make it so), and the labels no column can predict
        self._above = {}          # name -> the bound its values must be above (msle...)
        if self.label_names is not None or task == "binary":
            self._build(2 if task == "binary" else len(self.label_names))

    # -- the Trainer's call --------------------------------------------------------
    def __call__(self, eval_pred, compute_result=None):
        """Fold one batch in; at the last one return ``{name: float}`` and reset.

        Parameters
        ----------
        eval_pred : transformers.EvalPrediction or tuple
            ``(predictions, label_ids)``: torch tensors (one batch, with
            ``batch_eval_metrics``) or NumPy arrays (the whole set).  A tuple
            of predictions is read at its first element (the logits).
        compute_result : bool or None, default=None
            ``False``: accumulate and return ``{}``; ``True``: accumulate,
            return the metrics of everything accumulated, and reset;
            ``None`` (the ``Trainer`` without ``batch_eval_metrics``): the
            same as ``True``.

        Returns
        -------
        dict
            ``{name: float}`` when the result is computed, else ``{}``.
        """
        predictions, label_ids = _unpack(eval_pred)
        self.update(predictions, label_ids)
        if compute_result is False:
            return {}
        try:
            return self.compute()
        finally:
            self.reset()  # the next evaluation starts afresh, also after an error

    def update(self, predictions, label_ids):
        """Accumulate one batch of model outputs and targets (no host read).

        Parameters
        ----------
        predictions : array or tensor
            Logits (or probabilities with ``from_logits=False``, or values
            for regression), as the task says; or predicted labels (integers
            shaped as the targets, e.g. the arg-max returned by the
            ``Trainer``'s ``preprocess_logits_for_metrics``) for label metrics.
        label_ids : array or tensor
            The targets.
        """
        p, y = _as_tensors(predictions, label_ids)
        if self._kinds is None:
            self._build(self._width_of(p, y))
        elif (self.task in ("multiclass", "multilabel") and p.shape[-1] != self._width
              and not _decided(p, y)):
            raise ValueError(f"expected predictions with {self._width} columns "
                             f"({self.task}), got shape {tuple(p.shape)}")
        inputs = self._prepare(p, y)
        self._count_bad(p, y)
        for kind, (collection, _) in self._kinds.items():
            if collection.state is not None and self._device != p.device:
                collection.to(p.device)  # the model moved since the last evaluation
            yt, yp, w = inputs[kind]
            collection.update(yt, yp, w)
        self._device = p.device

    def compute(self):
        """The metrics of everything accumulated, as Python floats (one host read).

        Returns
        -------
        dict
            ``{name: float}``; per-class values as ``{name}_{class}``.
        """
        if self._kinds is None:
            return {}
        values = {}
        for collection, _ in self._kinds.values():
            values.update(collection.compute())
        names, flat = [], []
        for name in self._given:
            v = values[name]
            size = math.prod(v.shape)
            if v.ndim == 0:
                names.append(name)
            else:
                names.extend(f"{name}_{s}" for s in self._suffixes(size))
            flat.append(torch.reshape(torch.as_tensor(v), (-1,)))
        dev = flat[0].device
        dt = torch.float32 if dev.type == "mps" else torch.float64
        bad = [torch.zeros((1,), device=dev, dtype=dt) if b is None
               else torch.reshape(b, (1,)).to(device=dev, dtype=dt)
               for b in (self._bad_values, self._bad_labels)]
        numbers = torch.cat([f.to(dt) for f in flat] + bad).tolist()  # the one host read
        self._raise_bad(not math.isfinite(numbers[-2]), numbers[-1])
        return dict(zip(names, numbers[:-2]))

    def reset(self):
        """Forget the data (the state stays on its device, ready for the next evaluation)."""
        if self._kinds is not None:
            for collection, _ in self._kinds.values():
                collection.reset()
        self._bad_values = self._bad_labels = None

    # -- bad values: counted on the device per batch, raised at compute ---------------
    def _count_bad(self, p, y):
        """Add the batch's non-finite predictions and, where they matter, its labels
        that no column of the logits can predict (a few device ops, no host read)."""
        if p.dtype.is_floating_point:  # a NaN or inf makes the sum non-finite (2 ops)
            wide = torch.float32 if p.device.type == "mps" else torch.float64
            k = torch.sum(p, dtype=wide)
            self._bad_values = k if self._bad_values is None else self._bad_values + k
        k = self._bad_label_count(p, y)
        if k is not None:
            self._bad_labels = k if self._bad_labels is None else self._bad_labels + k

    def _bad_label_count(self, p, y):
        if self.task == "regression":  # a domain: the log errors take values above -1
            if not self._above:
                return None
            return sum(torch.sum(y <= b) + torch.sum(p <= b) for b in set(self._above.values()))
        if self.task == "multilabel":  # targets are 0 / 1 (or in [0, 1]); no padding
            yf = y.to(torch.float32) if not y.dtype.is_floating_point else y
            return torch.sum(~torch.isfinite(yf) | (yf < 0) | (yf > 1))
        if "proba" not in self._kinds:
            return None  # label metrics count such labels as errors
        y = torch.reshape(y, (-1,))
        keep = torch.ones_like(y, dtype=torch.bool) if self.ignore_index is None else (
            y != self.ignore_index)
        return torch.sum(keep & ((y < 0) | (y >= self._width_classes())
                                 | (y != torch.floor(y) if y.dtype.is_floating_point
                                    else torch.zeros_like(keep))))

    def _width_classes(self):
        return 2 if self.task == "binary" else self._width

    def _raise_bad(self, values, labels):
        if values:
            raise ValueError(
                "the predictions hold NaN or infinite values (scikit-learn raises 'Input "
                "contains NaN'); check the model's outputs (a diverged loss?)")
        if labels and self.task == "regression":
            bound = max(self._above.values())
            raise ValueError(
                f"{', '.join(self._above)}: the targets and predictions must be above "
                f"{bound:g} (scikit-learn: cannot be used when targets contain values less "
                f"than or equal to {bound:g})")
        if labels and self.task == "multilabel":
            raise ValueError(
                f"{int(labels)} multilabel target value{'s are' if labels > 1 else ' is'} "
                "not in [0, 1] (ignore_index, e.g. -100 padding, is not applied to "
                "multilabel targets)")
        if labels:
            proba = ", ".join(self._kinds["proba"][1])
            ignore = ("" if self.ignore_index is None
                      else f" and not ignore_index={self.ignore_index}")
            raise ValueError(
                f"{int(labels)} label{'s' if labels > 1 else ''} outside the "
                f"{self._width_classes()} classes of the predictions{ignore} (e.g. 5 for 3 "
                f"logits, or -1): {proba} need each label's probability (scikit-learn "
                "raises for labels not in labels=); label metrics count them as errors")

    @property
    def collections(self) -> dict:
        """``{kind: metrix.stream.MetricCollection}`` (kinds ``label``, ``proba``,
        ``value``); empty before the first batch when the width is not declared."""
        return {} if self._kinds is None else {k: c for k, (c, _) in self._kinds.items()}

    # -- building ----------------------------------------------------------------
    def _width_of(self, p, y):
        if self.task == "regression":
            if p.ndim == y.ndim + 1 and p.shape[-1] == 1:
                return None
            return p.shape[-1] if p.ndim == 2 else None
        if self.task == "multiclass" and _decided(p, y):
            raise ValueError("the predictions are labels (an integer array shaped as the "
                             "targets): give labels= (the classes)")
        if p.ndim < 1 or (self.task == "multilabel" and p.ndim != 2):
            raise ValueError(f"{self.task} predictions must be (n, columns) logits, got "
                             f"shape {tuple(p.shape)}")
        return p.shape[-1]

    def _build(self, width):
        task, avg = self.task, self.average
        if task in ("multiclass", "multilabel") and self.label_names is not None \
                and width != len(self.label_names):
            raise ValueError(f"labels declares {len(self.label_names)} classes, the "
                             f"predictions have {width} columns")
        specs = {}
        for name, m in self._given.items():
            specs[name] = _spec(name, m, task, width, avg, self.ignore_index, self.thresholds,
                                self.capacity, self.multioutput)
        self._above = {name: s.above for name, s in specs.items()
                       if isinstance(s, RegressionStream) and s.above is not None}
        kinds = {}
        for name, spec in specs.items():
            kinds.setdefault(_kind_of(spec), {})[name] = spec
        self._kinds = {k: (_stream.MetricCollection(v), tuple(v)) for k, v in kinds.items()}
        self._width = width

    def _suffixes(self, size):
        names = self.label_names
        if names is not None and len(names) == size:
            return names
        return range(size)

    # -- one batch: labels, probabilities, values ------------------------------------
    def _prepare(self, p, y):
        kinds = self._kinds
        if self.task == "regression":
            if p.ndim == y.ndim + 1 and p.shape[-1] == 1:
                p = p[..., 0]
            return {"value": (torch.reshape(y, p.shape), p, None)}
        decided = _decided(p, y)
        if decided and "proba" in kinds:
            raise ValueError(f"{', '.join(kinds['proba'][1])} need scores, and the "
                             "predictions are labels (from preprocess_logits_for_metrics?)")
        if p.dtype in (torch.float16, torch.bfloat16):
            p = p.float()  # softmax / sigmoid in float32
        out = {}
        if self.task == "multilabel":
            yt = (y > 0.5).to(torch.int64)
            if "label" in kinds:
                out["label"] = (yt, p if decided else self._positive(p), None)
            if "proba" in kinds:
                out["proba"] = (yt, torch.sigmoid(p) if self.from_logits else p, None)
            return out
        binary = self.task == "binary"
        two = binary and p.ndim == y.ndim + 1 and p.shape[-1] == 2
        if decided:
            p = torch.reshape(p, (-1,))
        elif binary and not two:
            if p.ndim == y.ndim + 1 and p.shape[-1] == 1:
                p = p[..., 0]
            p = torch.reshape(p, (-1,))
        else:
            p = torch.reshape(p, (-1, p.shape[-1]))
        y = torch.reshape(y, (-1,))
        if y.shape[0] != p.shape[0]:
            raise ValueError(f"{y.shape[0]} targets for {p.shape[0]} predictions")
        if y.dtype.is_floating_point:  # 1.0 is class 1; 0.5, NaN, inf are none of the classes
            none = self._width_classes()
            y = torch.where(torch.isfinite(y) & (y == torch.floor(y)), y,
                            torch.full_like(y, none)).to(torch.int64)
        if "label" in kinds:  # the label metrics' ignore_index leaves out padding
            out["label"] = (y, p if decided else self._predicted(p, binary, two), None)
        if "proba" in kinds:
            out["proba"] = self._proba_inputs(p, y, binary, two)
        return out

    def _predicted(self, p, binary, two):
        """The predicted class of each sample from its scores (rows of ``p``, or 1-D binary)."""
        if binary:
            return self._positive(p[:, 1] - p[:, 0] if two and self.from_logits
                                  else p[:, 1] if two else p).to(torch.int64)
        return torch.argmax(p, dim=-1)

    def _proba_inputs(self, p, y, binary, two):
        """``(y_true, probabilities, sample weights)`` of the probabilistic metrics."""
        if not self.from_logits:
            prob = p[:, 1] if two else p
        elif binary:
            prob = torch.softmax(p, dim=-1)[:, 1] if two else torch.sigmoid(p)
        else:
            prob = torch.softmax(p, dim=-1)
        if self.ignore_index is None:
            return y, prob, None
        keep = y != self.ignore_index  # zero weight, and a valid class: a finite loss
        w = keep.to(prob.dtype)
        return torch.where(keep, y, 0), prob, w

    def _positive(self, z):
        """``probability > threshold`` (on logits: ``z > logit(threshold)``, exact)."""
        t = self.threshold
        return z > (math.log(t / (1.0 - t)) if self.from_logits else t)

    def __repr__(self):
        return (f"{type(self).__name__}({list(self._given)}, task={self.task!r}, "
                f"average={self.average!r})")


# -- metric specs ---------------------------------------------------------------------

def _named(metrics) -> dict:
    if isinstance(metrics, (str, _stream.Metric)):
        metrics = [metrics]
    if isinstance(metrics, dict):
        items = list(metrics.items())
    else:
        items = [(m if isinstance(m, str) else _snake(type(m).__name__), m) for m in metrics]
    if not items:
        raise ValueError("compute_metrics needs at least one metric")
    out = {}
    for name, m in items:
        if not isinstance(m, (str, _stream.Metric)):
            raise TypeError(f"{name!r}: expected a metric name or a metrix.stream metric, "
                            f"got {type(m).__name__}")
        if isinstance(m, _stream.MetricCollection):
            raise TypeError(f"{name!r}: give the metrics of a MetricCollection one by one "
                            "(a dict {name: metric})")
        if name in out:
            raise ValueError(f"the metric name {name!r} is given twice")
        out[name] = m
    return out


def _snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _canonical(name):
    return _ALIASES.get(name, name)


def _check_supported(name, m, task):
    if not isinstance(m, str):
        spec = m.spec
        if (task == "regression") != isinstance(spec, RegressionStream):
            raise ValueError(f"{name!r}: {type(m).__name__} is not a metric for "
                             f"task={task!r}")
        if task == "multilabel" and isinstance(spec, LabelStream):
            raise ValueError(f"{name!r}: metrix.stream label metrics take one label per "
                             "sample; for task='multilabel' give the metric by name")
        return
    c = _canonical(m)
    known = _LABEL + _SCORE + _REGRESSION
    if c not in known:
        raise ValueError(f"Unknown metric {m!r}; expected one of {known} (or "
                         "scikit-learn's function names)")
    if (task == "regression") != (c in _REGRESSION):
        raise ValueError(f"{m!r} is not a metric for task={task!r}")
    if task == "multilabel" and c not in _MULTILABEL + _RANKING:
        raise ValueError(f"{m!r} is not offered for multilabel targets")


def _spec(name, m, task, width, average, ignore, thresholds, capacity, multioutput):
    mask = ignore is not None  # score metrics: padded samples weigh 0
    if not isinstance(m, str):
        return _instance_spec(m.spec, ignore)
    c = _canonical(m)
    if task == "regression":
        if not by_key(c).buffered:
            return RegressionStream(c, num_outputs=width, multioutput=multioutput)
        if capacity is None:
            raise ValueError(f"{c} keeps the errors: give capacity= (samples)")
        return RegressionStream(c, num_outputs=width, multioutput=multioutput,
                                capacity=capacity)
    avg = average if c in _AVERAGED else None
    if c in _RANKING:
        if task == "binary":
            return RankingStream(c, thresholds=thresholds, capacity=capacity, weighted=mask)
        if avg == "binary":
            raise ValueError(f"average='binary' is for task='binary'; {m!r} of a {task} task "
                             "takes 'macro', 'weighted', 'micro' or None")
        key = "num_classes" if task == "multiclass" else "num_labels"
        return RankingStream(c, average=avg, thresholds=thresholds, capacity=capacity,
                             weighted=mask, **{key: width})
    if c in _PROBA:
        return LogLossStream(None if task == "binary" else width)
    if task == "multilabel":
        return MultilabelStream(width, c, average=avg)
    if c in _ACCURACY:
        # as stream.Accuracy: a label the logits cannot predict (outside 0..width-1)
        # counts as an error; only ignore_index is padding
        return LabelStream(width, by_key(c).spec or c, average=None, ignore_index=ignore)
    if c in _AVERAGED:
        return LabelStream(width, c, average=avg, pos_label=1, ignore_index=ignore)
    return _WithOthers(LabelStream(width, c, ignore_index=ignore))


def _instance_spec(spec, ignore):
    """The spec of a given instance, as the padded inputs need it."""
    if ignore is None:
        return spec
    if isinstance(spec, LabelStream):
        kw = dict(average=spec.average, beta=spec.beta, pos_label=spec.pos_label,
                  zero_division=spec.zero_division, weights=spec.kappa_weights,
                  adjusted=spec.adjusted, normalize=spec.normalize, weighted=spec.weighted,
                  threshold=spec.threshold, ignore_index=ignore)
        # validate / assume_valid are not carried over: no host read per batch, and
        # targets outside the classes stay in the "other" bins
        made = LabelStream(spec.num_classes, spec.metric, **kw)
        return _WithOthers(made) if spec.metric in MATRIX_METRICS else made
    if isinstance(spec, RankingStream) and spec.capacity is None and not spec.weighted:
        kw = {"num_classes": spec.rows} if spec.task == "multiclass" else (
            {"num_labels": spec.rows} if spec.task == "multilabel" else {})
        return RankingStream(spec.metric, average=spec.average, thresholds=spec.thresholds,
                             weighted=True, validate=spec.validate, **kw)
    return spec


def _kind_of(spec):
    if isinstance(spec, (LabelStream, MultilabelStream, _WithOthers)):
        return "label"
    if isinstance(spec, (RankingStream, LogLossStream)):
        return "proba"
    if isinstance(spec, RegressionStream):
        return "value"
    raise TypeError(f"{type(spec).__name__} is not a metric compute_metrics can feed")


class _WithOthers(StreamMetric):
    """MCC, Cohen's kappa and balanced accuracy (``MATRIX_METRICS``) of the whole
    ``(C+2) x (C+2)`` matrix of a :class:`LabelStream` (its state and update, its
    :meth:`~LabelStream.of_matrix` on the whole matrix): a label the logits cannot
    predict (below 0, or ``C`` and above) is a class of its own that is never
    predicted, so it counts as an error, as ``stream.Accuracy`` counts it
    (scikit-learn's value when the labels below 0 and those above ``C - 1`` are one
    value each).  The padding (``ignore_index``'s cell) is left out.  The stream
    metric itself reads the classes' ``C x C`` block only."""

    def __init__(self, inner):
        self.inner, self.key, self.weighted = inner, inner.key, inner.weighted

    def _init(self, xp, device, fdt):
        return self.inner._init(xp, device, fdt)

    def update(self, state, y_true, y_pred, sample_weight=None):
        return self.inner.update(state, y_true, y_pred, sample_weight)

    def compute(self, state):
        inner, c = self.inner, self.inner.num_classes
        cm = torch.reshape(state["cm"], (c + 2, c + 2))
        if inner.ignore_index is not None:  # the padded samples' cell (see LabelStream)
            idx = torch.arange(c + 2, device=cm.device)
            padded = (idx[:, None] == c + 1) & (idx[None, :] == 0)
            cm = torch.where(padded, torch.zeros_like(cm), cm)
        return inner.of_matrix(cm)


# -- inputs ---------------------------------------------------------------------------

def _decided(p, y):
    """Whether the predictions are labels already (integers shaped as the targets:
    ``preprocess_logits_for_metrics`` returning the arg-max)."""
    return not p.dtype.is_floating_point and p.shape == y.shape


def _unpack(eval_pred):
    if hasattr(eval_pred, "predictions"):
        predictions, label_ids = eval_pred.predictions, eval_pred.label_ids
    else:
        predictions, label_ids = eval_pred[0], eval_pred[1]
    if isinstance(predictions, (tuple, list)):
        predictions = predictions[0]  # the logits; the rest are hidden states, attentions...
    if isinstance(label_ids, (tuple, list)):
        if len(label_ids) != 1:
            raise ValueError(f"compute_metrics reads one label tensor, got {len(label_ids)} "
                             "(several label_names)")
        label_ids = label_ids[0]
    if label_ids is None:
        raise ValueError("the evaluation data has no labels")
    return predictions, label_ids


def _as_tensors(predictions, label_ids):
    p = predictions if isinstance(predictions, torch.Tensor) else torch.as_tensor(predictions)
    y = label_ids if isinstance(label_ids, torch.Tensor) else torch.as_tensor(label_ids)
    if y.device != p.device:
        y = y.to(p.device)
    return p, y


def _label_names(labels, task):
    if labels is None:
        return None
    if task == "regression":
        raise ValueError("labels= is for classification tasks")
    if isinstance(labels, int) and not isinstance(labels, bool):
        if labels < 1:
            raise ValueError(f"labels must be a positive int or a sequence, got {labels!r}")
        names = list(range(labels))
    else:
        names = list(labels)
    if task == "binary" and len(names) != 2:
        raise ValueError(f"task='binary' has 2 classes, labels gives {len(names)}")
    return names
