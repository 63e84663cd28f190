"""Bootstrap confidence intervals of any metric, computed where the data is.

``bootstrap(metric, *arrays)`` resamples the samples (rows) of ``arrays``
with replacement ``n_resamples`` times and returns the interval and the
standard error of ``metric`` as arrays of the inputs' namespace and device.

How the resamples are computed (see :mod:`metrix.evaluation._batched_paths`):

* label metrics, binary ROC AUC / average precision, log loss / Brier score
  and the mean-based regression metrics have a **vectorised path**: a batch
  of resamples is one draw of an ``(M, N)`` index (or Poisson count) array on
  the device, and one ``bincount`` (labels), one shared sort plus cumulative
  sums (ranking) or one pass of counts times per-sample terms (losses,
  regression) gives the ``M`` metric values;
* any other metric falls back to a Python loop of metric calls over the
  resamples (batched draws, one call per resample): correct for every metric,
  but ``n_resamples`` times the cost of one call.

Resamples are processed in batches of ``batch_size`` (by default sized so an
``(M, N)`` intermediate holds about 2M elements, 16 MB), so memory does not
grow with ``n_resamples``.  Multinomial draws come from the backend's own
generator (:mod:`metrix.backends._random`): the same ``random_state`` gives
the same interval on the same backend and device.  Poisson counts come from
the counter-based generator of :mod:`metrix.evaluation._poisson` (the same on
every backend and for any partitioning of the rows).

``bootstrap_many`` bootstraps several metrics of the same rows from one
shared draw per batch (what ``metrix eval --bootstrap`` needs).
"""

from __future__ import annotations

import inspect
import math
import numbers
import statistics
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, NamedTuple

from .._core import namespace as _ns
from .._core.edge import array_metric, as_host_array, python_scalars
from .._core.typing import ArrayLike
from ..backends._random import _seed_from, generator
from ..backends._threads import available_threads
from ._batched_find import find_path
from ._batched_paths import Batch
from ._poisson import poisson_counts

__all__ = ["bootstrap", "BootstrapResult"]

#: bytes of the intermediate (M, N) blocks of one batch of resamples
MEMORY_BOUND = 1 << 28
#: elements per batch from which bootstrap_many keeps two batches in flight
_THREADED_ELEMENTS = 1 << 20
_METHODS = ("percentile", "basic", "bca")
_RESAMPLING = ("multinomial", "poisson")


class BootstrapResult(NamedTuple):
    """Interval bounds and standard error: 0-d (or per-class) arrays on the inputs' device
    (Python floats for NumPy inputs, as the metrics return).

    Parameters
    ----------
    low : array
        Lower bound of the confidence interval.
    high : array
        Upper bound of the confidence interval.
    standard_error : array
        Standard deviation of the resampled metric values (``ddof=1``).
    """

    low: object
    high: object
    standard_error: object


def bootstrap(
    metric: Callable[..., Any],
    *arrays: ArrayLike,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: Literal["percentile", "basic", "bca"] = "percentile",
    random_state: int | Any | None = None,  # or a NumPy Generator (named by backends only)
    batch_size: int | None = None,
    resampling: Literal["multinomial", "poisson"] = "multinomial",
    **metric_kwargs: Any,
) -> BootstrapResult:
    """Bootstrap confidence interval of ``metric(*arrays, **metric_kwargs)``.

    The samples (rows) of all ``arrays`` (and ``sample_weight`` when it is in
    ``metric_kwargs``) are resampled together (a paired bootstrap), as
    ``scipy.stats.bootstrap(..., paired=True)``.  The standard error is the
    standard deviation of the ``B`` resampled values (``ddof=1``).

    .. math::

        \\text{percentile: } [\\hat\\theta^*_{(\\alpha/2)}, \\hat\\theta^*_{(1-\\alpha/2)}]
        \\qquad
        \\text{basic: } [2\\hat\\theta - \\hat\\theta^*_{(1-\\alpha/2)},
        2\\hat\\theta - \\hat\\theta^*_{(\\alpha/2)}]

    and ``bca`` shifts the two quantile levels by the bias correction
    :math:`z_0` and the jackknife acceleration :math:`a` (Efron and
    Tibshirani, 14.3).

    Parameters
    ----------
    metric : callable
        A metric such as ``metrix.f1_score``; called as
        ``metric(*arrays, **metric_kwargs)``.
    *arrays : array-like
        Inputs of the metric, with the samples along axis 0.
    n_resamples : int, default=1000
        Number of bootstrap resamples ``B`` (at least 2).
    confidence_level : float, default=0.95
        Coverage of the two-sided interval, in (0, 1).
    method : {"percentile", "basic", "bca"}, default="percentile"
        Interval type.  ``"bca"`` needs the jackknife: closed form for label,
        loss and regression metrics, O(N^2) for ranking metrics and N metric
        calls for the loop fallback; it reads two scalars per statistic on
        the host.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the backend's generator.
    batch_size : int or None, default=None
        Resamples per batch (memory bound); by default, as many as fit in
        ``MEMORY_BOUND`` bytes of intermediates.
    resampling : {"multinomial", "poisson"}, default="multinomial"
        ``"multinomial"`` draws N indices per resample (the classical
        bootstrap); ``"poisson"`` gives each sample an independent Poisson(1)
        count (the "Poisson bootstrap", which streams and shards), a function
        of ``(seed, row, resample)`` (``metrix.evaluation._poisson.poisson_counts``).
        The two agree in distribution, not draw for draw.  The loop fallback
        supports Poisson only for metrics taking ``sample_weight``.
    **metric_kwargs
        Passed to ``metric``; ``sample_weight`` is resampled with the rows.

    Returns
    -------
    BootstrapResult
        ``(low, high, standard_error)``: arrays of the inputs' namespace and
        device, with the metric's shape (0-d for a scalar metric) and float
        dtype.  A NaN among the resampled values makes the bounds NaN.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall/CRC, 1993.
    .. [2] ``scipy.stats.bootstrap``.
    """
    result, _ = bootstrap_with_estimate(
        metric, *arrays, n_resamples=n_resamples, confidence_level=confidence_level,
        method=method, random_state=random_state, batch_size=batch_size,
        resampling=resampling, **metric_kwargs)
    return result


def bootstrap_with_estimate(metric, *arrays, n_resamples=1000, confidence_level=0.95,
                            method="percentile", random_state=None, batch_size=None,
                            resampling="multinomial", _progress=None, _batched=True,
                            _return_distribution=False, **metric_kwargs):
    """:func:`bootstrap` plus the full-data value (and, privately, the distribution)."""
    _check_params(metric, arrays, n_resamples, confidence_level, method, batch_size,
                  resampling)
    call = _prepare(metric, arrays, metric_kwargs, {})
    metric, arrays, kw, xp, device, n, estimate = call
    path = find_path(metric, arrays, kw) if _batched else None
    rng = generator(xp, device, random_state)
    seed = _seed_from(random_state) if resampling == "poisson" else None
    m = _batch_rows([path], n, batch_size, n_resamples)
    fdt = _ns.max_float_dtype(xp, device)
    parts = []
    if path is not None and path.cell_level:  # draws the statistic itself: in order
        _feed_batches(n_resamples, m, lambda done, size: path.sample(rng, size, resampling),
                      lambda values: values, parts.append, threaded=False,
                      progress=_progress)
    else:
        _feed_batches(n_resamples, m, lambda done, size: _draw(
            resampling, rng, seed, n, done, size, xp, device),
            lambda batch: _batch_values(call, path, batch, fdt), parts.append,
            threaded=path is not None and _threaded(xp, n * m), progress=_progress)
    dist = xp.concat(parts, axis=0)
    res = _result(call, path, dist, method, confidence_level)
    if _return_distribution:
        return res, estimate, dist
    return res, estimate


def bootstrap_many(calls, *, n_resamples=1000, confidence_level=0.95, method="percentile",
                   random_state=None, batch_size=None, resampling="multinomial",
                   progress=None):
    """Bootstrap intervals of several metrics on the same rows, from one shared draw.

    ``calls`` maps a name to ``(metric, arrays, kwargs)``; every call's arrays
    have the same ``N`` rows.  Each batch of resamples is drawn once (indices,
    or Poisson counts) and fed to every metric: its vectorised path (metrics on
    the same inputs share their statistic: one set of confusion matrices per
    ``(y_true, y_pred)``, one ordering of the counts per ranking), or the loop
    of metric calls on the same resamples.  The intervals are those of
    :func:`bootstrap` on these draws (unweighted label metrics draw per-sample
    resamples here, not confusion cells, so that every metric sees the same
    resamples), and they are joint: metric ``a`` and ``b`` of resample ``r``
    come from the same rows.

    Parameters
    ----------
    calls : dict
        ``name -> (metric, arrays, kwargs)``.
    n_resamples : int, default=1000
        Number of bootstrap resamples, shared by every metric.
    confidence_level : float, default=0.95
        Coverage of the two-sided intervals.
    method : {"percentile", "basic", "bca"}, default="percentile"
        Interval type, as in :func:`bootstrap`.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the shared draws.
    batch_size : int or None, default=None
        Resamples per batch; by default the smallest of the metrics' defaults.
    resampling : {"multinomial", "poisson"}, default="multinomial"
        As in :func:`bootstrap`.
    progress : callable or None, default=None
        Called as ``progress(done, n_resamples)`` after each batch.

    Returns
    -------
    dict
        ``name -> (BootstrapResult, estimate)``, or the exception a metric raised
        (its other metrics go on).
    """
    out, ready, conv, setups = {}, {}, {}, {}
    for name, (metric, arrays, kw) in calls.items():
        try:
            _check_params(metric, tuple(arrays), n_resamples, confidence_level, method,
                          batch_size, resampling)
            call = _prepare(metric, tuple(arrays), dict(kw), conv)
            path = find_path(call[0], call[1], call[2], setups)
            if path is not None:
                path.cell_level = False  # every metric reads the shared draws
            ready[name] = (call, path)
        except Exception as exc:  # this metric's inputs: reported, the others go on
            out[name] = exc
    if not ready:
        return out
    sizes = {call[5] for call, _ in ready.values()}
    if len(sizes) > 1:
        raise ValueError(f"bootstrap_many needs the same number of rows in every call, "
                         f"got {sorted(sizes)}")
    (n,) = sizes
    xp, device = next(iter(ready.values()))[0][3:5]
    rng = generator(xp, device, random_state)
    seed = _seed_from(random_state) if resampling == "poisson" else None
    m = _batch_rows([p for _, p in ready.values()], n, batch_size, n_resamples)
    fdt = _ns.max_float_dtype(xp, device)
    parts = {name: [] for name in ready}

    def consume(batch):  # every live metric's values of one batch, or its error
        got = {}
        for name in list(parts):
            try:
                got[name] = _batch_values(*ready[name], batch, fdt)
            except Exception as exc:
                got[name] = exc
        return got

    def collect(got):
        for name, value in got.items():
            if name not in parts:
                continue
            if isinstance(value, Exception):
                out[name] = value
                del parts[name]
            else:
                parts[name].append(value)

    _feed_batches(n_resamples, m, lambda done, size: _draw(
        resampling, rng, seed, n, done, size, xp, device, shared=True), consume, collect,
        # the loop fallback's catch_warnings is not thread-safe: paths only
        threaded=all(p is not None for _, p in ready.values()) and _threaded(xp, n * m),
        alive=lambda: bool(parts), progress=progress)
    for name, chunks in parts.items():
        call, path = ready[name]
        try:
            dist = call[3].concat(chunks, axis=0)
            out[name] = (_result(call, path, dist, method, confidence_level), call[6])
        except Exception as exc:
            out[name] = exc
    return {name: out[name] for name in calls}


def _threaded(xp, elements):
    """Whether batches of ``elements`` go two at a time (large host batches, where
    NumPy's gathers and arithmetic release the GIL, and a second CPU)."""
    return (_ns.is_numpy_namespace(xp) and elements >= _THREADED_ELEMENTS
            and available_threads() > 1)


def _feed_batches(n_resamples, m, draw, consume, collect, *, threaded, alive=None,
                  progress=None):
    """Draw batches of at most ``m`` resamples (``draw(done, size)``) in order on this
    thread, and ``collect(consume(batch))`` each in order.  ``threaded``: two
    batches in flight, one consumed on a worker thread; the draws stay in order
    on this thread, so the results do not depend on it."""
    pool = ThreadPoolExecutor(1) if threaded else None
    done = 0
    try:
        while done < n_resamples and (alive is None or alive()):
            size = min(m, n_resamples - done)
            batch = draw(done, size)
            done += size
            if pool is None or done >= n_resamples:
                collect(consume(batch))
            else:
                ahead = pool.submit(consume, batch)
                size = min(m, n_resamples - done)
                second = draw(done, size)
                done += size
                mine = consume(second)
                collect(ahead.result())
                collect(mine)
            if progress is not None:
                progress(done, n_resamples)
    finally:
        if pool is not None:
            pool.shutdown()


def _prepare(metric, arrays, metric_kwargs, conv):
    """``(metric, arrays, kw, xp, device, n, estimate)``: inputs on one namespace and
    device (``conv`` keeps each input object's conversion, so calls on the same
    inputs get the same arrays), the metric unwrapped, its full-data value."""
    kw = dict(metric_kwargs)
    sw = kw.get("sample_weight")
    metric = array_metric(metric)  # arrays in, arrays out: no Python float per resample

    def host(a):
        key = ("host", id(a))
        if key not in conv:
            conv[key] = (a, as_host_array(a))
        return conv[key][1]

    harr = tuple(host(a) for a in arrays)
    hsw = None if sw is None else host(sw)
    xp, device = _ns.get_namespace_and_device(*harr, hsw)

    def move(a):
        if _is_host_string_array(a):
            return a
        key = ("dev", id(a))
        if key not in conv:
            conv[key] = (a, _ns.asarray(a, xp=xp, device=device))
        return conv[key][1]

    arrays = tuple(move(a) for a in harr)
    if hsw is not None:
        kw["sample_weight"] = move(hsw)
    n = _n_samples(arrays)
    estimate = metric(*arrays, **kw)  # validates the inputs, raises the metric's errors
    return metric, arrays, kw, xp, device, n, estimate


def _loop_rows(n):
    return max(1, MEMORY_BOUND // (32 * n))


def _batch_rows(paths, n, batch_size, n_resamples):
    """Resamples per batch: ``batch_size``, else the smallest default of ``paths``."""
    if batch_size is None:
        batch_size = min(p.block_rows() if p is not None else _loop_rows(n) for p in paths)
    return min(batch_size, n_resamples)


def _batch_values(call, path, batch, fdt):
    """One batch's metric values: the vectorised path's, or one metric call a resample."""
    if path is not None:
        return path.values_batch(batch)
    return _loop_values(*call[:5], **batch.loop_args(fdt))


def _draw(resampling, rng, seed, n, start, size, xp, device, shared=False):
    """One batch of ``size`` resamples (resamples ``start..start+size`` for Poisson)."""
    if resampling == "multinomial":
        return Batch(n, xp=xp, device=device, idx=rng.integers(n, (size, n)), shared=shared)
    return Batch(n, xp=xp, device=device, raw=poisson_counts(seed, 0, n, start, size),
                 shared=shared)


def _result(call, path, dist, method, confidence_level):
    metric, arrays, kw, xp, device, _, estimate = call
    est = xp.asarray(_ns.asarray(estimate, xp=xp, device=device), dtype=dist.dtype)
    jack = None
    if method == "bca":
        jack = path.jackknife() if path is not None else _loop_jackknife(
            metric, arrays, kw, xp, device)
    low, high, se = _interval(dist, est, method, (1 - confidence_level) / 2, jack, xp)
    out_dtype = _out_dtype(estimate, xp, device)
    return BootstrapResult(*(python_scalars(_ns.to_output(xp.astype(v, out_dtype), xp))
                             for v in (low, high, se)))


# -- parameters ----------------------------------------------------------------

def _check_params(metric, arrays, n_resamples, confidence_level, method, batch_size,
                  resampling):
    if not callable(metric):
        raise TypeError(f"metric must be callable, got {type(metric).__name__}")
    if not arrays:
        raise TypeError("bootstrap needs at least one input array after the metric")
    if (not isinstance(n_resamples, numbers.Integral) or isinstance(n_resamples, bool)
            or n_resamples < 2):
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}")
    if not isinstance(confidence_level, numbers.Real) or not 0 < confidence_level < 1:
        raise ValueError(
            f"confidence_level must be a float in (0, 1), got {confidence_level!r}")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if resampling not in _RESAMPLING:
        raise ValueError(f"resampling must be one of {_RESAMPLING}, got {resampling!r}")
    if batch_size is not None and (not isinstance(batch_size, numbers.Integral)
                                   or isinstance(batch_size, bool) or batch_size < 1):
        raise ValueError(f"batch_size must be a positive integer or None, got {batch_size!r}")


def _is_host_string_array(a):
    """A host (NumPy) array of strings or objects: resampled on the host, never moved."""
    return hasattr(a, "dtype") and getattr(a.dtype, "kind", "") in "OUS" and _ns.is_host_array(a)


def _n_samples(arrays):
    lengths = [int(a.shape[0]) if hasattr(a, "shape") else len(a) for a in arrays]
    if len(set(lengths)) > 1:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: {lengths}")
    if lengths[0] < 1:
        raise ValueError("bootstrap needs at least one sample")
    return lengths[0]


def _out_dtype(estimate, xp, device):
    dt = getattr(estimate, "dtype", None)
    try:
        if dt is not None and xp.isdtype(dt, "real floating"):
            return dt
    except Exception:
        pass
    return _ns.max_float_dtype(xp, device)


# -- loop fallback ----------------------------------------------------------------

def _take(a, idx, xp):
    return a[_ns.to_host(idx)] if _is_host_string_array(a) else xp.take(a, idx, axis=0)


def _call_quiet(metric, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metric(*args, **kw)


def _loop_values(metric, arrays, kw, xp, device, idx=None, counts=None):
    """One metric call per resample (metrics without a vectorised path)."""
    sw = kw.get("sample_weight")
    vals = []
    rows = idx.shape[0] if idx is not None else counts.shape[0]
    for r in range(rows):
        if idx is not None:
            args = tuple(_take(a, idx[r, :], xp) for a in arrays)
            kw_r = kw if sw is None else {**kw, "sample_weight": xp.take(sw, idx[r, :])}
        else:
            if "sample_weight" not in inspect.signature(metric).parameters:
                raise ValueError(
                    f"resampling='poisson' needs a vectorised metric or one with a "
                    f"sample_weight parameter; {getattr(metric, '__name__', metric)} has "
                    "neither. Use resampling='multinomial'.")
            w = counts[r, :] if sw is None else counts[r, :] * xp.astype(sw, counts.dtype)
            args, kw_r = arrays, {**kw, "sample_weight": w}
        vals.append(_ns.asarray(_call_quiet(metric, args, kw_r), xp=xp, device=device))
    fdt = _ns.max_float_dtype(xp, device)
    return xp.stack([xp.astype(v, fdt) for v in vals], axis=0)


def _loop_jackknife(metric, arrays, kw, xp, device):
    """Leave-one-out values by N metric calls (the fallback's BCa; O(N^2))."""
    n = _n_samples(arrays)
    base = xp.arange(n - 1, device=device)
    sw = kw.get("sample_weight")
    vals = []
    for i in range(n):
        keep = base + xp.astype(base >= i, base.dtype)
        args = tuple(_take(a, keep, xp) for a in arrays)
        kw_i = kw if sw is None else {**kw, "sample_weight": xp.take(sw, keep)}
        vals.append(_ns.asarray(_call_quiet(metric, args, kw_i), xp=xp, device=device))
    fdt = _ns.max_float_dtype(xp, device)
    return xp.stack([xp.astype(v, fdt) for v in vals], axis=0), None


# -- intervals --------------------------------------------------------------------

def _interval(dist, est, method, alpha, jack, xp):
    srt = xp.sort(dist, axis=0)
    se = xp.std(dist, axis=0, correction=1)
    if method == "bca":
        q_lo, q_hi = _bca_levels(dist, est, jack, alpha, xp)
        low, high = _quantile(srt, q_lo, xp), _quantile(srt, q_hi, xp)
    else:
        low, high = _quantile(srt, alpha, xp), _quantile(srt, 1 - alpha, xp)
        if method == "basic":
            low, high = 2 * est - high, 2 * est - low
    bad = xp.any(xp.isnan(dist), axis=0)
    nan = xp.full_like(low, math.nan)
    low, high = xp.where(bad, nan, low), xp.where(bad, nan, high)
    return low, high, se


def _quantile(srt, q, xp):
    """NumPy's "linear" quantile of the sorted axis 0; ``q`` a float or host array."""
    b = int(srt.shape[0])
    shape = tuple(srt.shape[1:])
    if isinstance(q, float):
        if not math.isfinite(q):
            return xp.full_like(srt[0, ...], math.nan)
        pos = q * (b - 1)
        lo = min(max(int(math.floor(pos)), 0), b - 1)
        hi = min(lo + 1, b - 1)
        frac = pos - lo
        return srt[lo, ...] + (srt[hi, ...] - srt[lo, ...]) * frac
    flat = xp.reshape(srt, (b, -1))
    # the quantile levels are host input (the user edge), not device values
    out = [_quantile(flat[:, j:j + 1], float(qj), xp)[0]  # NaN where qj is not finite
           for j, qj in enumerate(_ns.host_values(q).reshape(-1).tolist())]
    return xp.reshape(xp.stack(out), shape)


def _bca_levels(dist, est, jack, alpha, xp):
    """Efron's BCa quantile levels (host floats per statistic element)."""
    b = int(dist.shape[0])
    fdt = dist.dtype
    below = xp.sum(xp.astype(dist < est, fdt), axis=0) + xp.sum(xp.astype(dist <= est, fdt),
                                                               axis=0)
    pct = _ns.to_host(below / (2 * b)).reshape(-1)
    theta, mult = jack
    theta = xp.astype(theta, fdt)
    if mult is None:
        mult = xp.ones((theta.shape[0],), dtype=fdt, device=_ns.device_of(theta))
    mult = xp.reshape(xp.astype(mult, fdt), (-1,) + (1,) * (theta.ndim - 1))
    use = mult > 0
    theta0 = xp.where(use, theta, xp.zeros_like(theta))
    mean = xp.sum(mult * theta0, axis=0) / xp.sum(mult, axis=0)
    d = xp.where(use, mean - theta0, xp.zeros_like(theta0))
    num = xp.sum(mult * d ** 3, axis=0)
    den = xp.sum(mult * d ** 2, axis=0)
    # host read (BCa only, documented): one acceleration value per statistic
    num_h, den_h = _ns.to_host(num).reshape(-1), _ns.to_host(den).reshape(-1)
    nd = statistics.NormalDist()
    z_a = nd.inv_cdf(alpha)
    lo, hi = [], []
    for p, nu, de in zip(pct.tolist(), num_h.tolist(), den_h.tolist()):
        z0 = _ndtri(p, nd)
        a = nu / (6.0 * de ** 1.5) if de > 0 else math.nan
        lo.append(_ndtr(z0 + (z0 + z_a) / (1 - a * (z0 + z_a))))
        hi.append(_ndtr(z0 + (z0 - z_a) / (1 - a * (z0 - z_a))))
    shape = tuple(dist.shape[1:])
    if not shape:
        return lo[0], hi[0]
    return (_ns.host_values(lo).reshape(shape), _ns.host_values(hi).reshape(shape))


def _ndtri(p, nd):
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return nd.inv_cdf(p)


def _ndtr(x):
    if math.isnan(x):
        return math.nan
    return 0.5 * math.erfc(-x / math.sqrt(2.0))
