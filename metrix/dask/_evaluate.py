"""``metrix.dask.evaluate``: many metrics of a Dask collection in one pass (host code)."""

from __future__ import annotations

import dask
import numpy as np

from ..evaluation.one_pass import DEFAULT_LABEL_METRICS, DEFAULT_PROBA_METRICS
from ..evaluation.partial import (
    LABEL_METRICS,
    PROBA_METRICS,
    RANKING_METRICS,
    PartialEvaluation,
)
from ..evaluation.score_table import areas_of_sums
from . import _checks, _graph, _groupby


def evaluate(data=None, y_true=None, y_pred=None, y_score=None, sample_weight=None, *,
             metrics=None, labels=None, pos_label=None, method="exact", bins=None,
             split_every=None, zero_division="warn", table="tree", split_out=None,
             n_resamples=0, confidence_level=0.95, ci_method="percentile", random_state=0,
             resample_bins=1000, progress=False):
    r"""Compute many metrics of a Dask DataFrame or Dask arrays in one pass.

    Each partition becomes a small mergeable state
    (:class:`metrix.evaluation.partial.PartialEvaluation`: a confusion matrix,
    sums of losses and moments, a table of distinct scores); the states merge
    in a tree of fan-in ``split_every`` on the workers and the client computes
    the metrics once from the root.  The result is the metric of all the
    rows, as scikit-learn on the concatenated data, never a mean over
    partitions.

    Parameters
    ----------
    data : dask.dataframe.DataFrame, default=None
        The frame whose columns ``y_true``, ``y_pred``, ``y_score`` and
        ``sample_weight`` name.  ``None``: those are Dask arrays (or Dask
        Series of one frame).
    y_true : str or dask array or Series
        True labels or targets (a column name with ``data``).
    y_pred : str or dask array or Series, default=None
        Predicted labels (label metrics) or values (regression metrics).
    y_score : str, list of str, or dask array or Series, default=None
        Probability of ``pos_label`` (one column, 1-D), or of each sorted
        class (a list of columns, or an array of shape (n, C)).
    sample_weight : str or dask array or Series, default=None
        Sample weights.
    metrics : sequence of str, default=None
        Names from :data:`metrix.evaluation.partial.PARTIAL_METRICS`
        (:func:`metrix.evaluate`'s names and the regression metrics).
        Default, as :func:`metrix.evaluate`: accuracy, balanced accuracy,
        macro precision / recall / F1, MCC and kappa when ``y_pred`` is
        given, log loss and Brier score when ``y_score`` is.
    labels : array-like, default=None
        The classes.  ``None``: found by one cheap first pass (the distinct
        values of ``y_true`` and ``y_pred`` per partition, merged).
    pos_label : scalar, default=None
        The positive class of the binary metrics and the class whose
        probability a 1-D ``y_score`` gives.  Default: the greatest label.
    method : {"exact", "binned"}, default="exact"
        ROC AUC / average precision from the exact table of distinct scores
        (one row per distinct score), or from a histogram over ``bins``.
    bins : int or array-like, default=None
        ``method="binned"``: equal bins of [0, 1], or increasing edges.
    split_every : int, default=None
        Fan-in of the merge tree (default 8).
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        The value of an undefined precision / recall / F1 / jaccard
        (``"warn"``: 0).
    table : {"tree", "groupby"}, default="tree"
        Where the exact table of distinct scores lives.  ``"tree"``: the
        per-partition tables merge up the tree (the root and the client hold
        the whole table).  ``"groupby"`` (a DataFrame or Series only): a Dask
        ``groupby(score).sum(split_out=...)``, a distributed sort and
        cumulative sums; no task holds more than a partition of the table.
    split_out : int, default=None
        ``table="groupby"``: partitions of the table (default: the input's).
    n_resamples : int, default=0
        ``B >= 2``: Poisson bootstrap intervals, streamed with the partitions
        (:class:`metrix.evaluation.poisson_states.PoissonBootstrap`: each row's
        counts come from a generator keyed by its global position, so any
        partitioning gives the same intervals; one extra pass reads the
        partitions' lengths).  ROC AUC / average precision resample their
        histogram over ``resample_bins`` bins.
    confidence_level : float, default=0.95
        Coverage of the intervals.
    ci_method : {"percentile", "basic"}, default="percentile"
        Interval type.
    random_state : int, default=0
        Seed of the Poisson counts.
    resample_bins : int, default=1000
        Bins of the resampled ROC AUC / average precision.
    progress : bool, default=False
        Show Dask's progress of the pass: with a ``distributed`` client,
        distributed's ``progress`` (a bar in a terminal, a widget in a
        notebook); with the local schedulers, ``dask.diagnostics.ProgressBar``.

    Returns
    -------
    results : dict of str to float
        The value of each metric, in the requested order; with
        ``method="binned"`` also ``roc_auc_error_bound`` /
        ``average_precision_error_bound``, bounds on ``|binned - exact|``; with
        ``n_resamples`` also ``<metric>_low``, ``<metric>_high`` and
        ``<metric>_standard_error``.

    Notes
    -----
    With ``method="exact"`` and ``table="tree"`` the root of the tree holds
    the whole table of distinct scores: 24 bytes a distinct score (three
    float64 columns), on the worker that merges last and on the client.  ``method="binned"`` holds
    ``2 * bins`` floats, and its ROC AUC error is at most
    :math:`\frac{1}{2} \sum_b P_b N_b / (P N)` (positive / negative weight
    per bin).

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics`` (the definitions of every metric).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> df = dd.from_pandas(pd.DataFrame({"y": [0, 1, 1, 0], "p": [0, 1, 0, 0]}),
    ...                     npartitions=2)
    >>> evaluate(df, y_true="y", y_pred="p", metrics=["accuracy", "f1"])
    {'accuracy': 0.75, 'f1': 0.6666666666666666}
    """
    metrics = _metric_names(metrics, y_pred, y_score)
    if table not in ("tree", "groupby"):
        raise ValueError(f'table must be "tree" or "groupby", got {table!r}')
    grouped = [m for m in metrics if m in RANKING_METRICS] if (
        table == "groupby" and method == "exact") else []
    rest = [m for m in metrics if m not in grouped]
    if grouped and data is None:
        if not _graph._is_series(y_true):
            raise TypeError('table="groupby" needs a Dask DataFrame or Series')
        data, y_true, y_pred, y_score, sample_weight = _graph.series_frame(
            y_true, y_pred, y_score, sample_weight)
    if grouped and pos_label is None and labels is None:  # one pass finds the classes
        labels = _graph.distinct_values(_graph.frame_pieces(data, y_true, None, None, None),
                                        (0,), split_every)
    values = {}
    if rest:
        pe, root = evaluate_graph(data, y_true, y_pred, y_score, sample_weight, metrics=rest,
                                  labels=labels, pos_label=pos_label, method=method, bins=bins,
                                  split_every=split_every, zero_division=zero_division)
    if grouped:
        if pos_label is None:
            pos_label = np.asarray(labels)[-1].item()
        terms = _groupby.area_terms(data, y_true, y_score, sample_weight,
                                    pos_label=pos_label,
                                    split_out=split_out or data.npartitions)
        if sample_weight is not None:  # all-zero weights: the one-shot's error
            terms.append(_nonzero(_graph.frame_pieces(data, y_true, None, None,
                                                      sample_weight), split_every))
        if rest:  # one compute for both graphs
            state, *terms = _compute(root, *terms, progress=progress)
        else:
            terms = list(_compute(*terms, progress=progress))
        if sample_weight is not None and not terms.pop():
            raise ValueError(_checks.ALL_ZERO_WEIGHTS)
        if rest:
            values.update(pe.finalize(state))
        values.update(areas_of_sums(grouped, *terms))
    elif not n_resamples:
        values.update(pe.finalize(_compute(root, progress=progress)[0]))
    if n_resamples:
        if grouped:
            raise ValueError('n_resamples needs table="tree"')
        boot, boot_root = _bootstrap_graph(
            data, y_true, y_pred, y_score, sample_weight, metrics=metrics, pe=pe,
            n_resamples=n_resamples, seed=random_state, bins=resample_bins,
            split_every=split_every)
        state, boot_states = _compute(root, boot_root, progress=progress)
        values.update(pe.finalize(state))
        found = boot.intervals(boot_states, {m: values[m] for m in metrics},
                               confidence_level=confidence_level, method=ci_method)
        values.update({f"{m}_{k}": v for m, bounds in found.items() for k, v in bounds.items()})
    return {**{m: values[m] for m in metrics}, **{k: v for k, v in values.items()
                                                  if k not in metrics}}


def _metric_names(metrics, y_pred, y_score):
    """The requested metrics as a list; by default those the given inputs allow."""
    if metrics is None:
        metrics = (DEFAULT_LABEL_METRICS if y_pred is not None else ()) + (
            DEFAULT_PROBA_METRICS if y_score is not None else ())
        if not metrics:
            raise ValueError("Give y_pred or y_score (or metrics=).")
    return [metrics] if isinstance(metrics, str) else list(metrics)


def _compute(*graphs, progress=False):
    """``dask.compute(*graphs)``, with Dask's own progress display when asked."""
    if not progress:
        return dask.compute(*graphs)
    try:
        from distributed import default_client
        from distributed import progress as show

        client = default_client()
    except (ImportError, ValueError):  # no distributed, or no client: a local scheduler
        client = None
    if client is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar():
            return dask.compute(*graphs)
    futures = client.compute(list(graphs))
    show(futures)
    return tuple(f.result() for f in futures)


def _bootstrap_graph(data, y_true, y_pred, y_score, sample_weight, *, metrics, pe,
                     n_resamples, seed, bins, split_every):
    """``(PoissonBootstrap, delayed merged resample states)``: each partition's rows
    get the counts of their global positions (the lengths are read first)."""
    from ..evaluation.poisson_states import PoissonBootstrap

    pieces = (_graph.frame_pieces(data, y_true, y_pred, y_score, sample_weight)
              if data is not None else
              _graph.array_pieces(y_true, y_pred, y_score, sample_weight))
    lengths = dask.compute(*[dask.delayed(len)(p[0]) for p in pieces])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64).tolist()
    boot = PoissonBootstrap(metrics, n_resamples=n_resamples, seed=seed, labels=pe.labels,
                            pos_label=pe.pos_label, bins=bins)
    leaves = [dask.delayed(boot.chunk, pure=True)(start, *p)
              for start, p in zip(starts, pieces)]
    if not leaves:
        return boot, dask.delayed(boot.empty)()
    return boot, _graph.tree_reduce(leaves, boot.merge, split_every)


def evaluate_state(data, y_true, y_pred, y_score, sample_weight, *, metrics, labels=None,
                   pos_label=None, method="exact", bins=None, split_every=None,
                   zero_division="warn"):
    """``(PartialEvaluation, merged state)`` of the data (the tree path, computed)."""
    pe, root = evaluate_graph(data, y_true, y_pred, y_score, sample_weight, metrics=metrics,
                              labels=labels, pos_label=pos_label, method=method, bins=bins,
                              split_every=split_every, zero_division=zero_division)
    return pe, dask.compute(root)[0]


def evaluate_graph(data, y_true, y_pred, y_score, sample_weight, *, metrics, labels,
                   pos_label, method, bins, split_every, zero_division):
    """``(PartialEvaluation, delayed merged state)``: the graph of :func:`evaluate`
    (the label set, when needed and not given, is computed first)."""
    if y_true is None:
        raise ValueError("y_true is required")
    if data is not None:
        if not _graph._is_frame(data):
            raise TypeError(f"data must be a Dask DataFrame, got {type(data).__name__}")
        pieces = _graph.frame_pieces(data, y_true, y_pred, y_score, sample_weight)
    else:
        pieces = _graph.array_pieces(y_true, y_pred, y_score, sample_weight)
    _checks.zero_division(metrics, zero_division)
    needs = [m for m in metrics if m in LABEL_METRICS + PROBA_METRICS + RANKING_METRICS]
    deferred = []   # checks of values that need the whole data, run with the one compute
    if needs and labels is None and not (
            pos_label is not None and all(m in RANKING_METRICS for m in needs)):
        of_pred = y_pred is not None and any(m in LABEL_METRICS for m in needs)
        found = dask.compute(*(_distinct(pieces, (i,), split_every)
                               for i in ((0, 1) if of_pred else (0,))))
        _checks.found_labels(needs, *found)
        labels = _graph._union(*found)
    elif needs:  # labels given: what they leave unchecked is checked with the compute
        spec = _checks.labels_spec(needs, labels, pos_label)
        if spec is not None:
            deferred.append((("labels", spec), _distinct(pieces, (0,), split_every)))
    pe = PartialEvaluation(metrics, labels=labels, pos_label=pos_label, method=method,
                           bins=bins, zero_division=zero_division)
    if sample_weight is not None:
        deferred.append((("weights", None), _nonzero(pieces, split_every)))
    leaves = [dask.delayed(pe.chunk, pure=True)(*p) for p in pieces]
    root = (_graph.tree_reduce(leaves, pe.merge, split_every) if leaves
            else dask.delayed(pe.empty)())
    if deferred:  # the state, once the checks of the whole data passed (the same compute)
        root = dask.delayed(_checks.checked, pure=True)(
            root, [spec for spec, _ in deferred], *(value for _, value in deferred))
    return pe, root


def _distinct(pieces, which, split_every):
    """The delayed sorted distinct values of the inputs ``which`` (a tree of unions)."""
    leaves = [dask.delayed(_graph._unique_of, pure=True)(*(p[i] for i in which))
              for p in pieces]
    if not leaves:
        return dask.delayed(np.zeros)(0)
    return _graph.tree_reduce(leaves, _graph._union, split_every)


def _nonzero(pieces, split_every):
    """Delayed: whether any sample weight is not zero."""
    leaves = [dask.delayed(_checks.any_nonzero, pure=True)(p[3]) for p in pieces]
    if not leaves:
        return dask.delayed(bool)(False)
    return _graph.tree_reduce(leaves, _checks.any_of, split_every)
