"""Stateful metrics for training loops, with TorchMetrics' names.

Each class holds a functional metric (``.spec``) and its state (``.state``):
``update`` replaces the state with ``spec.update(state, ...)`` (pure, so a
``torch.compile(fullgraph=True)`` step that calls it has no graph break), and
``compute`` returns 0-d arrays on the state's device (no host read).

The state is created at the first ``update``, in the namespace and on the
device of the data (or by ``to(device)``).  ``sync`` all-reduces it across
the ``torch.distributed`` process group, in place; a rank that saw no batch
takes part with an empty state on the group's device.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from .._core import namespace as _ns
from .._core.docstrings import sections
from ..backends import _collectives as _coll
from ..backends import ops as _ops
from ..registry import entries
from ._buffer import BufferFullError
from ._checkpoint import (
    CONFIG_KEY,
    check_config,
    check_mergeable,
    decode_config,
    encode_config,
    load_state,
)
from ._collection import CollectionStream
from ._functional import StreamMetric, iter_leaves, set_leaves, state_namespace, warm
from ._label import LabelStream
from ._multilabel import MULTILABEL_SPECS, MultilabelStream
from ._probabilistic import BrierScoreStream, HingeLossStream, LogLossStream
from ._ranking import DEFAULT_THRESHOLDS, RankingStream
from ._regression import RegressionStream
from ._segmentation import SegmentationStream
from ._sync import sync as _sync
from ._topk import TopKStream

#: the parameters of the binary or ``(n, C)`` score metrics (BrierScore, D2BrierScore,
#: HingeLoss): their docstrings name it with a line ``%(classes)s``
classes_doc = sections(classes="""\
    num_classes : int or None, default=None
        Classes ``0..num_classes-1`` of ``(n, C)`` scores ``y_pred``; None: binary.
    pos_label : int or float, default=1
        Binary: the positive label (any other label is negative).""")


class Metric:
    """A stateful streaming metric around a functional one (``spec``)."""

    _seen = None  # (objects pickled before the count existed: unknown)
    #: whether a greater value is better (True for scores, False for losses and
    #: errors, None where it has no direction): ``MetricTracker``'s default
    higher_is_better: bool | None = None

    def __init__(self, spec: StreamMetric):
        self.spec = spec
        self.state = None
        self._owned = None       # a state leaf only this object holds (see _Ranking,
        #                          _append)
        self._placement = None   # (xp, device, result dtype) of the state
        self._rows = {}          # exact buffers: rows stored (host ints, from shapes)
        self._dropped = {}       # exact buffers: rows dropped (host ints), or None:
        #                          unknown on the host after a compiled update
        self._seen = 0           # samples seen (host int from the shapes), or None:
        #                          unknown (after a sync, a load or a compiled update)

    @property
    def state(self):
        """The functional state (a pytree of arrays); a snapshot: later updates
        do not write into what it returns."""
        self._owned = None
        return self._state

    @state.setter
    def state(self, value):
        self._state, self._owned = value, None

    # -- lifecycle -----------------------------------------------------------
    def _create(self, like=None, *, xp=None, device=None):
        self._adopt(self.spec.init(like, xp=xp, device=device), fresh=True)

    def _create_for(self, y_true, y_pred, sample_weight):
        xp, device = _ns.get_namespace_and_device(y_true, y_pred, sample_weight)
        fdt = _ns.max_float_dtype(xp, device)
        if _is_float(y_pred) and not _ns.is_host_array(y_pred):
            fdt = _ns.result_float_dtype(xp, device, y_pred)
        _ops(xp)  # warm the adapter cache outside any compiled region
        self._adopt(self.spec._init(xp, device, fdt), fresh=True)

    def _adopt(self, state, fresh=False):
        warm(state)
        xp, device = state_namespace(state)
        fdt = next((v.dtype for p, v in iter_leaves(state) if p[-1] == "meta_dtype"),
                   _ns.max_float_dtype(xp, device))
        self._placement = (xp, device, fdt)
        self.state = state
        self._rows = {p[:-1]: 0 for p, _ in iter_leaves(state) if p[-1] == "buf_weight"}
        self._dropped = {p: 0 for p in self._rows}
        if fresh:
            self._own_rows(copy=False)  # a new state: no one else holds its buffer

    def update(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch (no host read; ``y_pred`` may be scores for label metrics)."""
        owned = self._owned
        if (owned is not None and owned is self._state.get("buf_weight")
                and self._dropped is not None):
            # the training loop's case first: the one exact buffer this object owns,
            # written in place after the rows counted on the host (see _append): the
            # inputs as they are (spec.row_inputs), else the spec's rows; a batch the
            # writer declines (rows past the capacity too) goes the general way
            start = self._rows[()]
            if sample_weight is None and self._write_pair is not None:
                end = self._write_pair(start, y_true, y_pred)
            elif self._write(*self.spec.buffer_rows(self._state, y_true, y_pred,
                                                    sample_weight), start):
                end = start + _ns_rows(y_pred)
            else:
                end = 0
            if end:
                self._rows[()] = end
                if self._seen is not None:
                    self._seen += end - start
                return
        if self._state is None:
            self._create_for(y_true, y_pred, sample_weight)
        if self._rows:
            if _coll.compiling():
                # a changing Python counter would recompile the step: compute reads
                # the state's dropped counts instead
                self._dropped = None
            else:
                # host ints from the shapes: no sync
                n = _ns_rows(y_pred)
                start = self._reserve(n)
                if self._append(start, y_true, y_pred, sample_weight):
                    if self._seen is not None:
                        self._seen += n
                    return
        self._count(y_pred)
        self.state = self.spec.update(self._state, y_true, y_pred, sample_weight)

    # -- sums added in place ----------------------------------------------------
    _add = None         # the adapter's in-place adder of the state copy this object
    #                     owns (spec.accumulator's; eager CPU NumPy and torch)
    _owned_leaf = None  # a leaf of that copy: its identity tells it is still ours

    def _add_in_place(self, a, b):
        """Add one unweighted batch ``(a, b)`` into the state in place: through the
        adder held while the copy it writes is still this object's own (the training
        loop's case, first), else through a new copy (``spec.accumulator(state)``).
        Only a copy this object made and has not handed out since (``state``,
        ``state_dict``) is written.  False, nothing done, where there is no adder,
        it declines the batch (every adder declines while ``torch.compile``
        traces) or the state is an exact buffer: the caller updates functionally."""
        add, owned = self._add, self._owned
        if add is None or owned is None or owned is not self._state.get(self._owned_leaf):
            state = self._state
            if state is None or self._rows or _coll.compiling():
                return False
            made = self.spec.accumulator(state)
            self._add = add = None
            if made is None:
                return False
            (self._state, add), self._owned = made, made[0][self._owned_leaf]
            self._add = add
        return add(a, b)

    # -- exact buffers written in place ----------------------------------------
    _write = None  # the adapter's in-place writer of the owned buffer (rows_accumulator)
    _clear = None  # and its in-place reset
    _write_pair = None  # and its writer of the inputs as they are (spec.row_inputs)

    def _own_rows(self, copy=True):
        """Own the top-level exact buffer: the adapter's ``rows_accumulator`` (eager
        NumPy and torch; None elsewhere) gives copies of it (or, ``copy=False``,
        takes it) and a writer into them; ``_owned`` is then its ``buf_weight``.
        Handing the state out (``state``, ``state_dict``) ends the ownership."""
        self._write = self._clear = self._write_pair = self._owned = None
        state = self._state
        if (() not in self._rows or len(self._rows) != 1 or _coll.compiling()
                or not _buffer_only(state)):
            return
        names = [k for k in state if k.startswith("buf_")]
        made = _ops(self._placement[0]).rows_accumulator(
            {k: state[k] for k in names}, state["count"], copy=copy,
            pair=self.spec.row_inputs)
        if made is not None:
            own, own_count, self._write, self._clear, self._write_pair = made
            self._state = {**state, **own, "count": own_count}
            self._owned = own["buf_weight"]

    def _clear_in_place(self):
        """``reset`` of an owned exact buffer (eager): its written rows and count
        zeroed in place, the state then equal to a new one, without allocating
        ``capacity`` rows again; False where it does not apply."""
        state = self._state
        if (self._clear is None or self._owned is None
                or self._owned is not state.get("buf_weight") or self._dropped is None
                or self._dropped.get(()) != 0 or _coll.compiling()):
            return False
        self._clear(self._rows[()])
        self._rows[()] = 0
        return True

    def _append(self, start, *inputs):
        """Write one batch's rows (``spec.buffer_rows``: the update's own input checks and
        conversions) after the ``start`` stored ones, in place into the buffer this
        object owns (O(batch) instead of ``write_rows``' O(capacity)); False where
        the adapter has no in-place write or does not take the batch (the caller
        then updates functionally).  Eager only; ``start`` is the host count."""
        if self._dropped is None:  # (the host count is unknown after compiled updates)
            return False
        if self._owned is None or self._owned is not self._state.get("buf_weight"):
            self._own_rows()
        if self._write is None:
            return False
        values, weight = self.spec.buffer_rows(self._state, *inputs)
        return self._write(values, weight, start)

    def _count(self, y_pred):
        if _coll.compiling():
            # unknown on the host; written, never read while tracing (no guard on
            # it, so the step does not recompile)
            self._seen = None
        else:
            self._count_eager(y_pred)

    def _count_eager(self, y_pred):
        seen = self._seen
        if seen is not None:
            shape = getattr(y_pred, "shape", None)
            self._seen = seen + (shape[0] if shape is not None else len(y_pred))

    def __call__(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch and return the metric of that batch alone.

        TorchMetrics' ``forward``, with metrix's argument order ``(y_true,
        y_pred)`` (scikit-learn's and Keras'; TorchMetrics takes ``(preds,
        target)``).  The batch is read once: its own state is computed, and
        then merged into the running state (a sum of small arrays; exact
        buffers append the batch to the running state instead).  No host read.
        """
        if self._state is None:
            self._create_for(y_true, y_pred, sample_weight)
        xp, device, fdt = self._placement
        batch = self.spec.update(self.spec._init(xp, device, fdt), y_true, y_pred,
                                 sample_weight)
        if self._rows:
            self.update(y_true, y_pred, sample_weight)  # exact buffers keep their capacity
        else:
            self._count(y_pred)
            self.state = self.spec.merge(self._state, batch)
        return _output(self.spec.compute(batch), xp)

    def compute(self):
        """The metric over everything seen: 0-d arrays on the state's device.

        Raises ``ValueError`` when no sample was seen (scikit-learn raises for
        empty input too): a metric of no data is not 0.0 or 1.0.
        """
        if self._seen == 0:
            raise ValueError(
                f"{type(self).__name__}.compute() before any sample: the metric of no "
                "data is undefined (scikit-learn raises for empty input). Call update() "
                "with at least one sample first.")
        if self._state is None:
            self._create()
        if self._rows:
            self._check_dropped()
        if self._seen is not None:
            self.spec.check_seen(self._seen)
        # new arrays: the state stays owned
        return _output(self.spec.compute(self._state), self._placement[0])

    def reset(self):
        """Forget the data; the state stays in its namespace, device and dtype."""
        if self._placement is not None and not self._clear_in_place():
            self._adopt(self.spec._init(*self._placement), fresh=True)
        self._seen = 0

    def merge(self, other: "Metric"):
        """Add the data of ``other`` (a metric of the same class built with the
        same arguments; ``ValueError`` naming the difference otherwise)."""
        if not isinstance(other, Metric):
            raise TypeError(f"{type(self).__name__}.merge expects a metrix.stream metric, "
                            f"got {type(other).__name__}")
        check_mergeable(self.spec, other.spec, type(self).__name__, type(other).__name__)
        if other.state is None:
            return self
        if self.state is None:
            self._create(xp=other._placement[0], device=other._placement[1])
        self.state = self.spec.merge(self.state, other.state)
        self._seen = (None if self._seen is None or other._seen is None
                      else self._seen + other._seen)
        if (self._dropped is not None and other._dropped is not None
                and self._rows.keys() == other._rows.keys()):
            # exact buffers concatenate: the host counts add (no device read)
            self._rows = {p: n + other._rows[p] for p, n in self._rows.items()}
            self._dropped = {p: n + other._dropped[p] for p, n in self._dropped.items()}
        else:
            self._recount()
        return self

    def sync(self, group=None, *, timeout=None):
        """All-reduce the state across the ``torch.distributed`` group, in place.

        One collective on a fixed-size buffer (see :func:`metrix.stream.sync`).
        Every rank must call it, for the same metrics in the same order,
        whatever its data; a rank that never does makes the others raise
        :class:`~metrix.stream.SyncTimeoutError` after ``timeout`` (a
        ``timedelta`` or seconds; default 5 minutes) instead of hanging.
        Without an initialised process group it does nothing.
        """
        if not _coll.torch_dist_ready():
            return self
        if self.state is None:
            like, device = _coll.torch_default_placement(group)
            xp, _ = _ns.get_namespace_and_device(like)
            self._create(xp=xp, device=device)
        self.state = _sync(self.state, group, timeout=timeout)
        self._seen = None  # the other ranks' samples are not counted on this host
        self._recount()
        return self

    def synced(self, group=None, *, timeout=None) -> "Metric":
        """A copy holding the state summed over the ``torch.distributed`` group.

        ``m.synced().compute()`` is the value over every rank's data, while
        ``m`` keeps this rank's own state (so it can go on accumulating, and a
        second sync does not count anything twice).  Without an initialised
        process group, a copy of ``m``.  Every rank must call it, as
        :meth:`sync`.
        """
        other = copy.copy(self)
        # the copy shares the state's arrays: neither writes them in place any more
        other._owned = self._owned = None
        other._rows, other._dropped = dict(self._rows), (
            None if self._dropped is None else dict(self._dropped))
        return other.sync(group, timeout=timeout)

    def to(self, device):
        """Move the state to ``device`` (created there, empty, if no update yet)."""
        if self.state is None:
            like = _coll.like_for_device(device)
            xp, dev = _ns.get_namespace_and_device(like)
            self._create(xp=xp, device=dev)
            return self
        xp, _ = state_namespace(self.state)
        moved = {p: _ns.asarray(v, xp=xp, device=device) for p, v in iter_leaves(self.state)}
        self.state = set_leaves(self.state, moved)
        xp, dev = state_namespace(self.state)
        self._placement = (xp, dev, self._placement[2])
        return self

    def state_dict(self) -> dict:
        """``{"path/of/leaf": array, "config": array}``: the state's arrays and the
        metric's configuration (JSON text as a ``uint8`` array on the state's
        device; see :mod:`metrix.stream._checkpoint`).  Before the first update
        only ``"config"`` (a NumPy array): loading that empties a metric."""
        if self.state is None:
            return {CONFIG_KEY: encode_config(self.spec, _ns.get_namespace_and_device()[0],
                                              None)}
        out = {"/".join(p): v for p, v in iter_leaves(self.state)}
        out[CONFIG_KEY] = encode_config(self.spec, *self._placement[:2])
        return out

    def load_state_dict(self, state_dict: dict):
        """Restore a :meth:`state_dict`, checked against this metric.

        Raises ``ValueError`` when the saved configuration differs (naming the
        setting: ``num_classes: saved 3, this metric 5``) or a leaf's shape or
        dtype kind does not fit (int counts vs float sums), ``KeyError`` naming
        missing and unexpected keys.  The arrays move to this metric's
        namespace and device when it has them (it was updated, moved with
        :meth:`to` or loaded before), else the metric takes the arrays'.

        A dict with only ``"config"`` (saved before any update) empties the
        metric, as :meth:`reset`.  An empty dict ``{}`` carries neither state
        nor configuration: it is accepted by a metric that holds no data yet
        (nothing changes) and raises ``ValueError`` on one that does; call
        :meth:`reset` to clear a metric.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"{type(self).__name__}.load_state_dict expects a dict from "
                            f"state_dict(), got {type(state_dict).__name__}")
        values = dict(state_dict)
        saved = values.pop(CONFIG_KEY, None)
        name = type(self).__name__
        if saved is not None:
            check_config(self.spec, decode_config(saved), name)
        if not values:
            if saved is None and self._state is not None:
                raise ValueError(
                    f"{name}.load_state_dict({{}}): an empty dict holds no state and no "
                    "configuration, and this metric holds data. Call reset() to clear it, or "
                    "load a state_dict() of a metric configured like this one.")
            self.reset()  # the saved metric had seen no data
            return self
        if self._placement is not None:
            xp, device = self._placement[:2]
        else:
            xp, device = _ns.get_namespace_and_device(*values.values())
        self._adopt(load_state(self.spec, values, xp, device, name))
        self._seen = None  # a saved state's samples: not known on the host
        self._recount()
        return self

    # -- exact buffers -------------------------------------------------------
    def _reserve(self, n):
        """Count ``n`` more rows in each buffer (``BufferFullError`` where they do
        not fit, before anything is written); the rows stored before (the last
        buffer's)."""
        used = 0
        for path, used in self._rows.items():
            cap = (self._state["buf_weight"] if not path  # (the top-level buffer)
                   else _leaf(self._state, path + ("buf_weight",))).shape[0]
            if used + n > cap:
                raise BufferFullError(
                    f"{type(self).__name__}: the exact buffer is full (capacity {cap} "
                    f"samples, {used} stored, batch of {n}). Create the metric with a "
                    "larger capacity= or use the binned mode (thresholds=).")
            self._rows[path] = used + n
        return used

    def _check_dropped(self):
        # exact buffers: the host counts of update / merge / sync / load; a device
        # read only after compiled updates (the result is NaN then anyway)
        for path in self._rows:
            if self._dropped is None:
                dropped = int(_leaf(self._state, path + ("dropped",)))  # host read (see above)
            else:
                dropped = self._dropped[path]
            if dropped:
                cap = _leaf(self._state, path + ("buf_weight",)).shape[0]
                raise BufferFullError(
                    f"{type(self).__name__}: {dropped} samples did not fit in the exact "
                    f"buffer (capacity {cap}). Create the metric with a larger capacity= "
                    "or use the binned mode (thresholds=).")

    def _recount(self):
        # host read of the buffer counts: merge / sync / load are sync points anyway
        self._rows = {path: int(_leaf(self.state, path + ("count",)))  # host read
                      for path in self._rows}
        self._dropped = {path: int(_leaf(self.state, path + ("dropped",)))  # host read
                         for path in self._rows}

    def __repr__(self):
        return f"{type(self).__name__}({self.spec!r})"

    # -- pickling (torch.save of a model, ddp_spawn, multiprocessing) ---------
    def __getstate__(self):
        out = dict(self.__dict__)
        if out["_placement"] is not None:  # the namespace is a module: found again on load
            out["_placement"] = (None,) + tuple(out["_placement"][1:])
        out["_owned"] = None
        out.pop("_add", None)
        out.pop("_write", None)  # closures over the owned copy: made again after loading
        out.pop("_write_pair", None)
        return out

    def __setstate__(self, values):
        self.__dict__.update(values)
        if self._placement is not None:
            self._placement = (state_namespace(self._state)[0],) + tuple(self._placement[1:])


def _output(out, xp):
    """A result in its user-facing form (a dict of values, a ``(value, threshold)``
    pair, or one value)."""
    if isinstance(out, dict):
        return {k: _output(v, xp) for k, v in out.items()}
    if isinstance(out, tuple):
        return tuple(_ns.to_output(v, xp) for v in out)
    return _ns.to_output(out, xp)


def _leaf(state, path):
    for k in path:
        state = state[k]
    return state


def _is_float(x) -> bool:
    dt = getattr(x, "dtype", None)
    return dt is not None and "float" in str(dt)


def _ns_rows(y) -> int:
    shape = getattr(y, "shape", None)
    return int(shape[0]) if shape is not None else len(y)


class _Accumulating(Metric):
    """A metric whose spec adds an unweighted batch in place on eager CPU (NumPy,
    torch): ``spec.accumulator(state)`` gives ``(state', add)``, ``state'`` holding
    copies of the leaves ``add(y_true, y_pred)`` writes into (no new array per
    batch); see :meth:`Metric._add_in_place`.  ``_owned_leaf`` names a leaf of the
    copy."""

    def update(self, y_true, y_pred, sample_weight=None):
        if (sample_weight is None and self._owned_leaf is not None
                and self._add_in_place(y_true, y_pred)):
            seen = self._seen  # (an array the adder took: it has a shape; adders
            if seen is not None:  # decline while compiling)
                self._seen = seen + y_pred.shape[0]
            return
        super().update(y_true, y_pred, sample_weight)


# -- label metrics -------------------------------------------------------------------

def _label_class(name, metric, average, doc, higher_is_better):
    if metric in MULTILABEL_SPECS:
        def __init__(self, num_classes=None, average=average, *, num_labels=None, **kwargs):
            if average == "none":
                average = None
            Metric.__init__(self, _label_spec(name, metric, num_classes, num_labels, average,
                                              kwargs))
            if isinstance(self.spec, MultilabelStream):
                self._owned_leaf = "n"  # multilabel counts: added in place (accumulator)
        base = _Accumulating
    else:
        def __init__(self, num_classes, average=average, **kwargs):
            if average == "none":
                average = None
            Metric.__init__(self, LabelStream(num_classes, metric, average=average, **kwargs))
        base = Metric

    return type(name, (base,), {"__init__": __init__, "__doc__": doc,
                                "__module__": __name__, "higher_is_better": higher_is_better})


def _label_spec(name, metric, num_classes, num_labels, average, kwargs):
    """The class's spec: a confusion matrix over ``num_classes`` classes, the
    multilabel counts of ``num_labels`` indicator columns, or (``Accuracy``'s
    ``top_k`` above 1) the top-k hits of ``(n, C)`` scores."""
    top_k = kwargs.pop("top_k", 1) if metric == "accuracy" else 1
    if top_k != 1:
        if num_labels is not None or average not in (None, "micro"):
            raise ValueError(f"{name}(top_k={top_k!r}) is the micro top-k accuracy of "
                             "(n_samples, num_classes) scores: give num_classes and "
                             f"average=None or 'micro', got num_labels={num_labels!r}, "
                             f"average={average!r}")
        return TopKStream(num_classes, top_k, **kwargs)
    if num_labels is None:
        if num_classes is None:
            raise TypeError(f"{name} needs num_classes= (one label per sample) or "
                            "num_labels= (multilabel indicators)")
        return LabelStream(num_classes, metric, average=average, **kwargs)
    if num_classes is not None:
        raise ValueError(f"{name}: give num_classes (one label per sample) or num_labels "
                         "(multilabel indicators), not both")
    return MultilabelStream(num_labels, metric, average=average, **kwargs)


_LABEL_DOC = """Streaming {what} over classes ``0..num_classes-1`` (one confusion matrix).

    ``{name}(num_classes, average={average!r}, *, zero_division="warn",
    weighted=False, validate=False, ignore_index=None, threshold=0.5, ...)``;
    see :class:`metrix.stream.LabelStream` for the parameters.{macro}  Equals
    ``metrix.{fn}(..., labels=range(num_classes))`` on all the data (binary
    probabilities thresholded; samples whose target is ``ignore_index`` left out).
    """

_MULTILABEL_DOC = """
    ``{name}(num_labels=L, average=..., *, threshold=0.5, zero_division="warn",
    weighted=False, validate=False, ...)``: multilabel ``(N, L)`` indicator targets and
    ``(N, L)`` indicators or scores (``> threshold`` is positive); see
    :class:`metrix.stream.MultilabelStream`.  Equals ``metrix.{fn}`` (scikit-learn's)
    on the indicator matrices.{extra}
    """

_MULTILABEL_EXTRA = {
    "Accuracy": "  Multilabel accuracy is subset accuracy (every label of a sample "
                "right), as scikit-learn's ``accuracy_score`` and TorchMetrics' "
                "``ExactMatch``; TorchMetrics' ``MultilabelAccuracy`` (per label) is "
                "``1 - HammingDistance``.",
    "ConfusionMatrix": "  With ``num_labels`` it is ``multilabel_confusion_matrix``: "
                       "``(L, 2, 2)``, ``[[tn, fp], [fn, tp]]`` per label.",
}

#: the label metrics whose ``average="macro"`` takes ``macro_over``
_MACRO_OVER = ("accuracy", "precision", "recall", "f1", "fbeta", "jaccard")
_MACRO_OVER_DOC = """
    ``macro_over="present"``: the macro average over the classes seen in
    ``y_true`` or ``y_pred`` (TorchMetrics' multiclass macro average), not
    all ``num_classes`` (the default, ``"all"``)."""

for _e in entries(family="label"):
    _doc = _LABEL_DOC.format(what=_e.what, name=_e.stream, average=_e.average,
                             fn=_e.function,
                             macro=_MACRO_OVER_DOC if _e.key in _MACRO_OVER else "")
    if (_e.spec or _e.key) in MULTILABEL_SPECS:
        fn = "multilabel_confusion_matrix" if _e.key == "confusion" else _e.function
        _doc += _MULTILABEL_DOC.format(name=_e.stream, fn=fn,
                                       extra=_MULTILABEL_EXTRA.get(_e.stream, ""))
    globals()[_e.stream] = _label_class(_e.stream, _e.spec or _e.key, _e.average, _doc,
                                        _e.greater_is_better)


_TOPK_DOC = """
    ``Accuracy(num_classes, top_k=k)`` (``k > 1``) on scores ``(n, C)``: the
    fraction of samples whose true class is among their ``k`` highest scores,
    equal to ``metrix.top_k_accuracy_score(..., k=k, labels=range(num_classes))``
    (scikit-learn's tie order) and TorchMetrics' ``MulticlassAccuracy(top_k=k,
    average="micro")``; ``average`` must be None or ``"micro"``.  Its state
    is two sums (hits, total), ``metrix.stream._topk.TopKStream``.
    """

if Accuracy.__doc__:  # noqa: F821 (made above from the registry); None under -OO
    Accuracy.__doc__ += _TOPK_DOC  # noqa: F821


class ExactMatch(_Accumulating):
    """Streaming exact match (subset accuracy) of multilabel indicators ``(N, L)``.

    ``ExactMatch(num_labels, *, threshold=0.5, weighted=False, validate=False)``:
    the fraction of samples whose every label is right (TorchMetrics'
    ``ExactMatch(task="multilabel")``); equals ``metrix.accuracy_score`` (and
    scikit-learn's) on the indicator matrices, and ``Accuracy(num_labels=L)``.
    A floating ``y_pred`` above ``threshold`` is a positive prediction.  See
    :class:`metrix.stream.MultilabelStream`.
    """

    higher_is_better = True
    _owned_leaf = "n"

    def __init__(self, num_labels, *, threshold=0.5, weighted=False, validate=False):
        super().__init__(MultilabelStream(num_labels, "exact_match", average=None,
                                          threshold=threshold, weighted=weighted,
                                          validate=validate))


# -- regression ----------------------------------------------------------------------

def _regression_class(name, metric, doc, higher_is_better):
    def __init__(self, num_outputs=None, multioutput="uniform_average", **kwargs):
        Metric.__init__(self, RegressionStream(metric, num_outputs=num_outputs,
                                               multioutput=multioutput, **kwargs))

    return type(name, (_Accumulating,), {"__init__": __init__, "__doc__": doc,
                                         "__module__": __name__, "_owned_leaf": "sw",
                                         "higher_is_better": higher_is_better})


_REG_DOC = """Streaming {what}: exact weighted sums (merge by addition).

    ``{name}(num_outputs=None, multioutput="uniform_average", ...)``; equals
    ``metrix.{fn}`` on all the data (float tolerance).
    """

for _e in entries(family="regression"):
    if _e.stream is not None and not _e.buffered:  # the buffered ones: written below
        globals()[_e.stream] = _regression_class(_e.stream, _e.key, _REG_DOC.format(
            what=_e.what, name=_e.stream, fn=_e.function), _e.greater_is_better)


class MedianAbsoluteError(Metric):
    """Streaming median absolute error, exact, in a buffer of ``capacity`` samples.

    Equals ``metrix.median_absolute_error`` on all the data; more than
    ``capacity`` samples raise :class:`~metrix.stream.BufferFullError`.
    """

    higher_is_better = False

    def __init__(self, capacity, num_outputs=None, multioutput="uniform_average"):
        super().__init__(RegressionStream("median_ae", num_outputs=num_outputs,
                                          multioutput=multioutput, capacity=capacity))


class D2PinballScore(Metric):
    """Streaming D^2 pinball score, exact, with ``y_true`` in a buffer of ``capacity`` rows.

    ``D2PinballScore(capacity, num_outputs=None, multioutput="uniform_average",
    alpha=0.5)``: equals ``metrix.d2_pinball_score`` (scikit-learn's) on all
    the data.  The baseline is the weighted ``alpha``-quantile of all of
    ``y_true`` (scikit-learn's averaged inverted CDF), so ``y_true`` is kept;
    the model's pinball loss is two weighted sums per output.  More than
    ``capacity`` samples raise :class:`~metrix.stream.BufferFullError`.  See
    :class:`metrix.stream.RegressionStream`.
    """

    higher_is_better = True

    def __init__(self, capacity, num_outputs=None, multioutput="uniform_average", alpha=0.5):
        super().__init__(RegressionStream("d2_pinball", num_outputs=num_outputs,
                                          multioutput=multioutput, capacity=capacity,
                                          alpha=alpha))


class D2AbsoluteErrorScore(Metric):
    """Streaming D^2 absolute error score (D^2 pinball at ``alpha=0.5``), exact.

    ``D2AbsoluteErrorScore(capacity, num_outputs=None, multioutput="uniform_average")``:
    equals ``metrix.d2_absolute_error_score`` (scikit-learn's) on all the data;
    ``y_true`` is kept in a buffer of ``capacity`` rows for its weighted median
    (see :class:`D2PinballScore`).
    """

    higher_is_better = True

    def __init__(self, capacity, num_outputs=None, multioutput="uniform_average"):
        super().__init__(RegressionStream("d2_absolute_error", num_outputs=num_outputs,
                                          multioutput=multioutput, capacity=capacity))


# -- ranking and probabilistic -------------------------------------------------------

class _Ranking(_Accumulating):
    """AUROC / AveragePrecision.  On eager CPU (NumPy, torch) a binned, unweighted
    batch is added into the histogram in place (``RankingStream.accumulator``)."""

    _owned_leaf = "hist"
    higher_is_better = True


_SCORE_RULE = """
    Scores: the default ``thresholds=1000`` (an int ``T``) bins probabilities on
    [0, 1].  With ``validate=True`` a score outside [0, 1] (or NaN, infinite)
    raises ``ValueError``: apply a sigmoid / softmax to logits, pass explicit
    ``thresholds=`` edges on the scores' scale (any finite score is then
    accepted), or use the exact mode ``capacity=``.  With ``validate=False``
    nothing is read: a score below 0 is in the lowest bin (below every
    threshold), one above 1 in the top bin with 1.0, and a NaN score in the
    lowest bin, on every backend.  See :mod:`metrix.stream._ranking`.
    """


class _Area(_Ranking):
    """AUROC / AveragePrecision: the area ``_metric`` (a ``RankingStream`` metric)."""

    _metric = None

    def __init__(self, num_classes=None, average="macro", *, num_labels=None,
                 thresholds=DEFAULT_THRESHOLDS, capacity=None, weighted=False,
                 validate=False, pos_label=None):
        super().__init__(RankingStream(self._metric, num_classes=num_classes,
                                       num_labels=num_labels, average=average,
                                       thresholds=thresholds, capacity=capacity,
                                       weighted=weighted, validate=validate,
                                       pos_label=pos_label))


class AUROC(_Area):
    """Streaming ROC AUC: binned (``thresholds``, default 1000) or exact (``capacity``).

    ``AUROC(num_classes=None, num_labels=None, average="macro", thresholds=1000,
    capacity=None, weighted=False, validate=False, pos_label=None)``; see
    :class:`metrix.stream.RankingStream` (binary targets other than 0 / 1 need
    ``pos_label``).
    """

    _metric = "roc_auc"


class AveragePrecision(_Area):
    """Streaming average precision: binned (default 1000 thresholds) or exact.

    ``AveragePrecision(num_classes=None, num_labels=None, average="macro",
    thresholds=1000, capacity=None, weighted=False, validate=False, pos_label=None)``;
    see :class:`metrix.stream.RankingStream` (binary targets other than 0 / 1 need
    ``pos_label``).
    """

    _metric = "average_precision"


class _OperatingPoint(_Ranking):
    """A binary operating point (``(value, threshold)``) on the ranking statistic."""

    def _start(self, metric, minimum, thresholds, capacity, weighted, validate, pos_label):
        _Ranking.__init__(self, RankingStream(metric, minimum=minimum, thresholds=thresholds,
                                              capacity=capacity, weighted=weighted,
                                              validate=validate, pos_label=pos_label))


_OP_DOC = """Streaming binary {what} and its threshold.

    ``{name}({minimum}, *, thresholds=1000, capacity=None, weighted=False,
    validate=False, pos_label=None)``: binned (``thresholds``: an int ``T`` of
    evenly spaced thresholds on [0, 1], or the thresholds themselves; equals
    TorchMetrics' ``Binary{name}`` with the same ``thresholds``) or exact
    (``capacity``: a buffer of that many samples; equals TorchMetrics with
    ``thresholds=None``).  ``compute()`` returns ``(value, threshold)``, 0-d
    arrays, equal to ``metrix.{function}`` on all the data with the same
    ``thresholds`` (``None`` for the exact mode), whose docstring states
    TorchMetrics' rules for ties and for a constraint no threshold meets.  See
    :class:`metrix.stream.RankingStream` for the parameters.

    The binned mode compares a score with the thresholds in the widest float
    (``thresholds=T``: arithmetically, ``floor(s (T - 1)) + 1``), TorchMetrics
    and the one-shot function in the scores' dtype: a float32 score that rounds
    onto a threshold (``0.7`` and ``t = 0.7``) may fall on the other side.
    TorchMetrics applies a sigmoid to scores outside [0, 1]; metrix does not.
    """


class RecallAtFixedPrecision(_OperatingPoint):
    __doc__ = _OP_DOC.format(what="recall at a least precision", name="RecallAtFixedPrecision",
                             minimum="min_precision", function="recall_at_fixed_precision")

    def __init__(self, min_precision, *, thresholds=DEFAULT_THRESHOLDS, capacity=None,
                 weighted=False, validate=False, pos_label=None):
        self._start("recall_at_fixed_precision", min_precision, thresholds, capacity,
                    weighted, validate, pos_label)


class PrecisionAtFixedRecall(_OperatingPoint):
    __doc__ = _OP_DOC.format(what="precision at a least recall", name="PrecisionAtFixedRecall",
                             minimum="min_recall", function="precision_at_fixed_recall")

    def __init__(self, min_recall, *, thresholds=DEFAULT_THRESHOLDS, capacity=None,
                 weighted=False, validate=False, pos_label=None):
        self._start("precision_at_fixed_recall", min_recall, thresholds, capacity, weighted,
                    validate, pos_label)


class SensitivityAtSpecificity(_OperatingPoint):
    __doc__ = _OP_DOC.format(what="sensitivity at a least specificity",
                             name="SensitivityAtSpecificity", minimum="min_specificity",
                             function="sensitivity_at_specificity")

    def __init__(self, min_specificity, *, thresholds=DEFAULT_THRESHOLDS, capacity=None,
                 weighted=False, validate=False, pos_label=None):
        self._start("sensitivity_at_specificity", min_specificity, thresholds, capacity,
                    weighted, validate, pos_label)


class SpecificityAtSensitivity(_OperatingPoint):
    __doc__ = _OP_DOC.format(what="specificity at a least sensitivity",
                             name="SpecificityAtSensitivity", minimum="min_sensitivity",
                             function="specificity_at_sensitivity")

    def __init__(self, min_sensitivity, *, thresholds=DEFAULT_THRESHOLDS, capacity=None,
                 weighted=False, validate=False, pos_label=None):
        self._start("specificity_at_sensitivity", min_sensitivity, thresholds, capacity,
                    weighted, validate, pos_label)


for _cls in (AUROC, AveragePrecision, RecallAtFixedPrecision, PrecisionAtFixedRecall,
             SensitivityAtSpecificity, SpecificityAtSensitivity):
    if _cls.__doc__:  # None under python -OO
        _cls.__doc__ += _SCORE_RULE


class LogLoss(Metric):
    """Streaming log loss (``num_classes=None``: binary, 1-D probabilities of class 1).

    ``LogLoss(num_classes=None, *, normalize=True, validate=False)``; equals
    ``metrix.log_loss(..., labels=range(num_classes))`` on all the data.  With
    ``validate=False`` a true label outside ``0..num_classes-1`` makes the
    result NaN (no host read); with ``validate=True`` it raises, as the
    one-shot function does.  See :class:`metrix.stream.LogLossStream`.
    """

    higher_is_better = False

    def __init__(self, num_classes=None, *, normalize=True, validate=False):
        super().__init__(LogLossStream(num_classes, normalize=normalize, validate=validate))


@classes_doc
class BrierScore(Metric):
    """Streaming Brier score (``num_classes=None``: binary, 1-D probabilities of ``pos_label``).

    ``BrierScore(num_classes=None, *, pos_label=1, scale_by_half="auto",
    validate=False)``; equals ``metrix.brier_score_loss(..., pos_label=pos_label)``
    (binary) or ``metrix.brier_score_loss(..., labels=range(num_classes))``
    (``(n, C)`` probabilities) on all the data, and scikit-learn's.  The state
    is two weighted sums in the widest float.  With ``validate=False`` a true
    label outside ``0..num_classes-1`` makes the result NaN (no host read).
    See :class:`metrix.stream.BrierScoreStream`.

    Parameters
    ----------
    %(classes)s
    scale_by_half : bool or "auto", default="auto"
        Halve the score (``"auto"``: for two classes), as scikit-learn.
    validate : bool, default=False
        Check each batch as the one-shot function does (host reads).
    """

    higher_is_better = False

    def __init__(self, num_classes=None, *, pos_label=1, scale_by_half="auto",
                 validate=False):
        super().__init__(BrierScoreStream(num_classes, pos_label=pos_label,
                                          scale_by_half=scale_by_half, validate=validate))


@classes_doc
class HingeLoss(Metric):
    """Streaming hinge loss of decision values (binary, or Crammer-Singer multiclass).

    ``HingeLoss(num_classes=None, *, pos_label=1, squared=False,
    multiclass_mode="crammer-singer", validate=False)``; equals
    ``metrix.hinge_loss`` (and scikit-learn's) on all the data: binary
    ``(n,)`` decisions with labels ``{-1, 1}`` or ``{0, 1}`` (``pos_label``
    positive), or ``(n, C)`` decisions with ``labels=range(num_classes)``; and
    TorchMetrics' ``BinaryHingeLoss`` / ``MulticlassHingeLoss`` (``squared``,
    ``multiclass_mode``) on decisions in [0, 1] (TorchMetrics applies a
    sigmoid / softmax to other values; metrix reads them as they are).  See
    :class:`metrix.stream.HingeLossStream`.

    Parameters
    ----------
    %(classes)s
    squared : bool, default=False
        The squared hinge loss.
    multiclass_mode : {"crammer-singer", "one-vs-all"}, default="crammer-singer"
        ``"one-vs-all"``: one binary hinge loss per class, shape ``(C,)``.
    validate : bool, default=False
        Check each batch on the host (finite decisions, labels in range).
    """

    higher_is_better = False

    def __init__(self, num_classes=None, *, pos_label=1, squared=False,
                 multiclass_mode="crammer-singer", validate=False):
        super().__init__(HingeLossStream(num_classes, pos_label=pos_label, squared=squared,
                                         multiclass_mode=multiclass_mode, validate=validate))


# -- segmentation --------------------------------------------------------------------

def _segmentation_class(name, metric, average, fn, what):
    def __init__(self, num_classes, average=average, *, include_background=True,
                 ignore_index=None, per_image=False, input_format="index",
                 zero_division="warn", validate=False):
        Metric.__init__(self, SegmentationStream(
            num_classes, metric, average=average, include_background=include_background,
            ignore_index=ignore_index, per_image=per_image, input_format=input_format,
            zero_division=zero_division, validate=validate))

    doc = f"""Streaming {what} of label maps ``(N, ...)`` or one-hot / scores ``(N, C, ...)``.

    ``{name}(num_classes, average={average!r}, *, include_background=True,
    ignore_index=None, per_image=False, input_format="index",
    zero_division="warn", validate=False)``; equals ``metrix.{fn}(...,
    labels=range(num_classes))`` on all the images.  See
    :class:`metrix.stream.SegmentationStream`.
    """
    return type(name, (Metric,), {"__init__": __init__, "__doc__": doc,
                                  "__module__": __name__, "higher_is_better": True})


MeanIoU = _segmentation_class("MeanIoU", "iou", "macro", "mean_iou",
                              "intersection over union (mIoU)")
DiceScore = _segmentation_class("DiceScore", "dice", "macro", "dice_score", "Dice score")
PixelAccuracy = _segmentation_class("PixelAccuracy", "accuracy", "micro", "pixel_accuracy",
                                    "pixel accuracy")


class GeneralizedDiceScore(Metric):
    """Streaming generalized Dice score of label maps or one-hot / scores ``(N, C, ...)``.

    ``GeneralizedDiceScore(num_classes, average="weighted", *, weight_type="square",
    include_background=True, ignore_index=None, per_image=False,
    input_format="index", validate=False)``; equals
    ``metrix.generalized_dice_score(..., labels=range(num_classes))`` on all
    the images.  See :class:`metrix.stream.SegmentationStream`.
    """

    higher_is_better = True

    def __init__(self, num_classes, average="weighted", *, weight_type="square",
                 include_background=True, ignore_index=None, per_image=False,
                 input_format="index", validate=False):
        super().__init__(SegmentationStream(
            num_classes, "generalized_dice", average=average, weight_type=weight_type,
            include_background=include_background, ignore_index=ignore_index,
            per_image=per_image, input_format=input_format, validate=validate))


class MetricCollection(Metric):
    """Several metrics updated together; each distinct statistic is paid for once.

    ``MetricCollection({"acc": Accuracy(10), "f1": F1Score(10)})``: both read one
    confusion matrix, so an update costs one ``bincount``.  ``compute()``
    returns ``{name: value}``.
    """

    def __init__(self, metrics: dict):
        specs = {name: (m.spec if isinstance(m, Metric) else m) for name, m in metrics.items()}
        super().__init__(CollectionStream(specs))
        #: each member's direction, by name (``MetricTracker`` reads it)
        self.higher_is_better = {name: getattr(m, "higher_is_better", None)
                                 for name, m in metrics.items()}

    def __getitem__(self, name):
        return self.spec.metrics[name]

    def keys(self):
        return self.spec.metrics.keys()


def _buffer_only(state) -> bool:
    """Whether a state is an exact buffer and nothing else (its update is the rows'
    write alone, which the in-place path replaces; a state with sums beside its
    buffer, as ``D2PinballScore``'s, updates functionally)."""
    return all(k.startswith(("buf_", "meta_")) or k in ("count", "dropped") for k in state)
