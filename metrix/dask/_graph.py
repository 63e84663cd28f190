"""The Dask graph: one task per partition, a tree of merges, one compute (host code).

Inputs become a list of *pieces*, one per partition: a tuple of delayed
objects whose values are NumPy arrays or pandas objects (``y_true``,
``y_pred``, ``y_score``, ``sample_weight``; ``None`` where not given).  Each
piece runs :meth:`PartialEvaluation.chunk` in its own task; the states merge
in a tree of fan-in ``split_every``; the client computes the root once.
Every task is a pure function of its inputs, so a task that Dask reruns (a
worker lost) gives the same state and nothing is counted twice.
"""

from __future__ import annotations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np

DEFAULT_SPLIT_EVERY = 8


def _is_frame(x) -> bool:
    return isinstance(x, dd.DataFrame)


def _is_series(x) -> bool:
    return isinstance(x, dd.Series)


def frame_pieces(data, y_true, y_pred, y_score, sample_weight):
    """One delayed ``(y_true, y_pred, y_score, w)`` tuple per partition of a frame.

    ``y_score`` is a column name or a list of names (the class probabilities,
    in the order of the sorted labels).
    """
    score_cols = None if y_score is None else (
        [y_score] if isinstance(y_score, str) else list(y_score))
    cols = [y_true] + ([y_pred] if y_pred is not None else []) + (score_cols or []) + (
        [sample_weight] if sample_weight is not None else [])
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise KeyError(f"columns {missing} are not in the frame (columns: {list(data.columns)})")
    spec = (y_true, y_pred, score_cols, sample_weight)
    return [dask.delayed(_split_frame, pure=True, nout=4)(part, spec)
            for part in data[list(dict.fromkeys(cols))].to_delayed()]


def _split_frame(df, spec):
    y_true, y_pred, score_cols, weight = spec
    ys = None
    if score_cols is not None:
        ys = df[score_cols].to_numpy()
        ys = ys[:, 0] if len(score_cols) == 1 else ys
    return (df[y_true].to_numpy(), None if y_pred is None else df[y_pred].to_numpy(), ys,
            None if weight is None else df[weight].to_numpy(dtype=np.float64))


def array_pieces(y_true, y_pred, y_score, sample_weight):
    """One tuple of delayed arrays per partition of Dask arrays or Series
    (aligned on ``y_true``'s chunks; NumPy / pandas inputs are chunked like it)."""
    given = [a for a in (y_true, y_pred, y_score, sample_weight) if a is not None]
    if any(_is_series(a) for a in given):
        if not all(_is_series(a) for a in given):
            raise TypeError("Mix of Dask Series and other inputs: pass all as Series of one "
                            "frame, or all as Dask arrays.")
        frame, *names = series_frame(y_true, y_pred, y_score, sample_weight)
        return frame_pieces(frame, *names)
    yt = y_true if isinstance(y_true, da.Array) else da.from_array(np.asarray(y_true))
    chunks = yt.chunks[0]
    cols = []
    for a in (yt, y_pred, y_score, sample_weight):
        if a is None:
            cols.append(None)
            continue
        if not isinstance(a, da.Array):
            a = np.asarray(a)
            a = da.from_array(a, chunks=(chunks,) + tuple((s,) for s in a.shape[1:]))
        if a.ndim > 2:
            raise ValueError(f"inputs must be 1-D or 2-D, got shape {a.shape}")
        if a.shape[0] != yt.shape[0] and not (np.isnan(a.shape[0]) or np.isnan(yt.shape[0])):
            raise ValueError("Found input variables with inconsistent numbers of samples: "
                             f"[{yt.shape[0]}, {a.shape[0]}]")
        if a.chunks[0] != chunks or (a.ndim == 2 and len(a.chunks[1]) != 1):
            a = a.rechunk((chunks,) + ((-1,) if a.ndim == 2 else ()))
        blocks = a.to_delayed()
        cols.append(list(blocks.reshape(-1)) if a.ndim == 1 else list(blocks[:, 0]))
    return [tuple(None if c is None else c[i] for c in cols) for i in range(len(chunks))]


def series_frame(y_true, y_pred=None, y_score=None, sample_weight=None):
    """``(frame, *column names)`` of Dask Series of one frame (``None`` for those
    not given).  Dask may fuse the partitions of a projected column differently
    from another's: their partitions are never zipped separately."""
    names = ("y_true", "y_pred", "y_score", "sample_weight")
    given = (y_true, y_pred, y_score, sample_weight)
    frame = y_true.to_frame(name="y_true")
    for name, a in zip(names[1:], given[1:]):
        if a is not None:
            frame = frame.assign(**{name: a})
    return (frame, *(n if a is not None else None for n, a in zip(names, given)))


def tree_reduce(leaves, combine, split_every):
    """The delayed root of a tree of ``combine(*children)`` of fan-in ``split_every``."""
    k = DEFAULT_SPLIT_EVERY if split_every is None else int(split_every)
    if k < 2:
        raise ValueError(f"split_every must be an int >= 2, got {split_every!r}")
    level = list(leaves)
    delayed_combine = dask.delayed(combine, pure=True)
    while len(level) > 1:
        level = [delayed_combine(*level[i:i + k]) for i in range(0, len(level), k)]
    return level[0]


def distinct_values(pieces, which, split_every):
    """The sorted distinct values of the inputs ``which`` (indices into a piece):
    one cheap pass (unique per partition, unions in a tree)."""
    leaves = [dask.delayed(_unique_of, pure=True)(*(p[i] for i in which)) for p in pieces]
    if not leaves:
        return np.zeros(0)
    return dask.compute(tree_reduce(leaves, _union, split_every))[0]


def _unique_of(*arrays):
    return _union(*(np.asarray(a.to_numpy() if hasattr(a, "to_numpy") else a).reshape(-1)
                    for a in arrays if a is not None))


def _union(*arrays):
    arrays = [np.asarray(a) for a in arrays if len(a)]
    if not arrays:
        return np.zeros(0)
    joined = np.concatenate([a.astype(object) if a.dtype.kind == "O" else a for a in arrays])
    if joined.dtype.kind == "O":
        return np.asarray(sorted(set(joined.tolist())), dtype=object)
    return np.unique(joined)
