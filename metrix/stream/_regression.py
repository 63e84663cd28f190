"""Streaming regression metrics: exact weighted sums, or an exact buffer for medians.

Mean-based metrics keep per-output sums in the widest float of the device
(``sw = sum w`` and, with ``e = y_true - y_pred``: ``s_ee = sum w e^2`` for
MSE / RMSE, ``s_abs = sum w |e|`` for MAE, ``s_y = sum w y``, ``s_yy = sum w
y^2``, ``s_e = sum w e`` and ``s_ee`` for R2 / explained variance, ``s_log``
and ``s_pct`` for MSLE and MAPE), so a state merges by addition.  Each metric
keeps only the sums it reads.
The centred sums come from the raw ones (``sum w (y - mean)^2 = s_yy -
s_y^2 / sw``): exact in exact arithmetic, with a float64 cancellation error of
about ``eps * mean^2 / variance`` relative.

``MedianAbsoluteError`` keeps ``|e|`` in an exact buffer of declared
``capacity`` (:mod:`metrix.stream._buffer`) and applies scikit-learn's
"averaged inverted CDF" weighted median to it (the adapter op
``ops(xp).weighted_quantile``, as the one-shot function).

The D2 Tweedie score (``d2_tweedie``) is exact from sums too: with ``m = s_y /
sw`` the null deviance ``sum w d_p(y, m)`` expands into ``sum w``, ``sum w y``
and one sum ``s_null`` of a function of ``y`` alone (``y^2`` for power 0, ``y
log y`` for 1, ``log y`` for 2, ``max(y, 0)^(2-p)`` otherwise; derived in
:func:`metrix.regression.scores.tweedie_null_half_deviance`), beside the
model's deviance ``s_dev``; the running minimum and maximum of ``y_true``
(rows of non-zero weight) make a constant ``y_true``'s null deviance exactly 0.
The D2 pinball and absolute error scores need the weighted quantile of all of
``y_true``: they keep ``y_true`` in an exact buffer of ``capacity`` rows (the
baseline's loss) and the model's pinball sums ``s_d, s_part`` (mergeable).

The mean errors, R2, explained variance and the D2 scores apply the one-shot
functions' formulas (:func:`metrix.regression.scores.mean_error_formula`,
:func:`metrix.regression.scores.explained_fraction`,
:func:`~metrix.regression.scores.pinball_losses`, ...) to these sums.
"""

from __future__ import annotations

import math
import warnings

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.validation import check_consistent_length
from ..backends import ops as _ops
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ..regression._input import check_alpha, check_power, check_stream_outputs, stream_targets
from ..regression.scores import (
    d2_pinball_baseline,
    deviance_scale,
    explained_fraction,
    half_deviances,
    mean_error_formula,
    pinball_from_means,
    pinball_losses,
    pinball_part,
    tweedie_null_half_deviance,
    tweedie_null_terms,
)
from ._buffer import check_capacity, init_buffer, nan_if_dropped, write_rows
from ._functional import StreamMetric, array_namespace, dtype_probe, result_dtype

_SUMS = {
    "sq": ("s_ee",),
    "abs": ("s_abs",),
    "moments": ("s_y", "s_yy", "s_e", "s_ee"),
    "log": ("s_log",),
    "pct": ("s_pct",),
    "deviance": ("s_dev",),
    "pinball": ("s_d", "s_part"),
    "max": ("max_abs",),
    "d2_tweedie": ("s_dev", "s_y", "s_null"),
    "d2_pinball": ("s_d", "s_part"),
}
# each metric keeps only the sums it reads (an update of MSE is one sum of squares)
_STATISTIC = {"mse": "sq", "rmse": "sq", "mae": "abs", "r2": "moments",
              "explained_variance": "moments", "msle": "log", "rmsle": "log", "mape": "pct",
              "median_ae": "buffer", "max_error": "max", "poisson": "deviance",
              "gamma": "deviance", "tweedie": "deviance", "pinball": "pinball",
              "d2_tweedie": "d2_tweedie", "d2_pinball": "d2_pinball",
              "d2_absolute_error": "d2_pinball"}
#: the statistics whose values (targets and predictions) must lie above a bound: the
#: log errors' domain (``check_log_domain``), read as ``RegressionStream.above``
_ABOVE = {"log": -1.0}
#: the buffered statistics (``capacity=`` required)
_BUFFERED = ("buffer", "d2_pinball")
#: NaN below two samples (scikit-learn), with check_seen's warning
_TWO_SAMPLES = {"r2": "R^2 score", "d2_tweedie": "D^2 score", "d2_pinball": "D^2 score",
                "d2_absolute_error": "D^2 score"}
#: the Tweedie power of the deviance metrics (``tweedie`` takes ``power=``)
_POWER = {"poisson": 1, "gamma": 2}
_MULTI = ("raw_values", "uniform_average", "variance_weighted")


class RegressionStream(StreamMetric):
    """Functional streaming regression metric.

    Parameters
    ----------
    metric : str
        ``mse, rmse, mae, r2, explained_variance, msle, rmsle, mape, median_ae,
        max_error, poisson, gamma, tweedie, pinball, d2_tweedie, d2_pinball,
        d2_absolute_error``.
    num_outputs : int or None, default=None
        ``None``: 1-D targets and 0-d results; ``k``: targets ``(n, k)``.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"} or host
        weights, default="uniform_average"
    force_finite : bool, default=True
        scikit-learn's rule for constant targets (R2, explained variance).
    capacity : int, default=None
        Rows of the exact buffer (``median_ae``, ``d2_pinball`` and
        ``d2_absolute_error``; required there).
    power : float, default=0
        The Tweedie power of ``tweedie`` and ``d2_tweedie`` (``poisson`` is 1,
        ``gamma`` 2).
    alpha : float, default=0.5
        The quantile of ``pinball`` and ``d2_pinball`` (``d2_absolute_error``
        is 0.5).

    Notes
    -----
    The log errors (``msle``, ``rmsle``) take values above -1 (the attribute
    ``above``; ``None`` for the other metrics): the stream reads nothing to
    check it, ``compute_metrics`` counts the values at or below it on the
    device.  Out of the deviances' domain (``poisson`` needs ``y_true >= 0`` and
    ``y_pred > 0``, ``gamma`` both positive) the result is NaN or infinite: the
    stream reads nothing to check it (the one-shot functions raise).

    The D2 scores are NaN below two samples (``check_seen`` warns, as
    scikit-learn).  A constant ``y_true`` (null deviance 0): the D2 Tweedie
    score is ``1 - dev / 0`` (-inf, or NaN for a perfect prediction) where
    scikit-learn raises ``ZeroDivisionError``; the D2 pinball and absolute
    error scores follow scikit-learn (1.0 for a perfect prediction, else 0.0).
    All-zero weights give NaN (scikit-learn raises).
    """

    def __init__(self, metric="mse", *, num_outputs=None, multioutput="uniform_average",
                 force_finite=True, capacity=None, power=0, alpha=0.5):
        if metric not in _STATISTIC:
            raise ValueError(f"Unknown regression metric {metric!r}; expected one of "
                             f"{tuple(_STATISTIC)}")
        if num_outputs is not None and (not isinstance(num_outputs, int) or num_outputs < 1):
            raise ValueError(f"num_outputs must be None or a positive int, got {num_outputs!r}")
        if isinstance(multioutput, str):
            if multioutput not in _MULTI:
                raise ValueError(f"multioutput must be one of {_MULTI} or weights, got "
                                 f"{multioutput!r}")
            if multioutput == "variance_weighted" and metric not in ("r2",
                                                                     "explained_variance"):
                raise ValueError("multioutput='variance_weighted' is only for r2 and "
                                 "explained_variance")
        else:
            multioutput = tuple(float(v) for v in _ns.host_list(multioutput))
            if len(multioutput) != (num_outputs or 1):
                raise ValueError("There must be equally many custom weights "
                                 f"({len(multioutput)}) as outputs ({num_outputs or 1}).")
        self.metric, self.num_outputs, self.multioutput = metric, num_outputs, multioutput
        self.force_finite = bool(force_finite)
        self.statistic = _STATISTIC[metric]
        self.above = _ABOVE.get(self.statistic)  # the values' domain: above it (or None)
        self.power = _POWER.get(metric, check_power(
            power, "D2TweedieScore" if metric == "d2_tweedie" else "MeanTweedieDeviance"))
        self.alpha = 0.5 if metric == "d2_absolute_error" else check_alpha(
            alpha, "D2PinballScore" if metric == "d2_pinball" else "MeanPinballLoss")
        if metric in ("max_error", "poisson", "gamma", "tweedie",
                      "d2_tweedie") and num_outputs not in (None, 1):
            raise ValueError(f"{metric} takes one output (scikit-learn's rule), got "
                             f"num_outputs={num_outputs}")
        k = num_outputs or 1
        if self.statistic in _BUFFERED:
            self.capacity = check_capacity(capacity)
            self.key = ("reg_" + self.statistic, k, self.capacity) + (
                (self.alpha,) if self.statistic == "d2_pinball" else ())
        else:
            if capacity is not None:
                raise ValueError("capacity is only used by median_ae, d2_pinball and "
                                 f"d2_absolute_error, not {metric!r}")
            self.capacity = None
            # R2 also counts samples (NaN below two, whatever the weights)
            self.key = ("reg_" + self.statistic, k) + (("n",) if metric == "r2" else ()) + (
                (self.power,) if self.statistic in ("deviance", "d2_tweedie") else
                (self.alpha,) if self.statistic == "pinball" else ())

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        mo = self.multioutput
        return {"kind": "RegressionStream", "metric": self.metric,
                "num_outputs": self.num_outputs,
                "multioutput": mo if isinstance(mo, str) else list(mo),
                "force_finite": self.force_finite, "capacity": self.capacity,
                "power": self.power, "alpha": self.alpha}

    def _init(self, xp, device, fdt):
        k = self.num_outputs or 1
        acc = _ns.max_float_dtype(xp, device)
        if self.statistic == "buffer":
            state = init_buffer(xp, device, self.capacity, {"abs": ((k,), acc)})
        elif self.statistic == "d2_pinball":  # y_true's rows, and the model's sums
            state = init_buffer(xp, device, self.capacity, {"true": ((k,), acc)})
            state.update({name: xp.zeros((k,), dtype=acc, device=device)
                          for name in _SUMS["d2_pinball"]})
            state["sw"] = xp.zeros((), dtype=acc, device=device)
        else:
            state = {name: xp.zeros((k,), dtype=acc, device=device)
                     for name in _SUMS[self.statistic]}
            if self.statistic == "max":  # a running maximum starts below every value
                state["max_abs"] = xp.full((k,), -math.inf, dtype=acc, device=device)
            state["sw"] = xp.zeros((), dtype=acc, device=device)
            if self.metric in _TWO_SAMPLES:  # NaN below two samples, whatever the weights
                state["n"] = xp.zeros((), dtype=_ns.count_dtype(xp, device), device=device)
            if self.statistic == "d2_tweedie":  # y_true range (max_* / min_*: extremes)
                state["min_y"] = xp.full((k,), math.inf, dtype=acc, device=device)
                state["max_y"] = xp.full((k,), -math.inf, dtype=acc, device=device)
        state["meta_dtype"] = dtype_probe(xp, device, fdt)
        return state

    def update(self, state, y_true, y_pred, sample_weight=None):
        """Add one batch (pure; static shapes)."""
        if self.statistic == "buffer":
            return write_rows(state, *self.buffer_rows(state, y_true, y_pred, sample_weight),
                              xp=array_namespace(state["buf_weight"]))
        leaf = state["sw"]
        xp, device, _, yt, yp, w = self._inputs(state, y_true, y_pred, sample_weight,
                                                primary=leaf)
        acc = leaf.dtype
        k = self.num_outputs or 1
        yt, yp = xp.astype(yt, acc, copy=False), xp.astype(yp, acc, copy=False)
        self._check_outputs(yt, yp)
        flat = (k == 1 and yt.ndim == 1 and yp.ndim == 1
                and self.statistic not in _BUFFERED)
        if not flat:  # (1-D sums are 0-d and broadcast into the (1,) state)
            yt, yp = xp.reshape(yt, (-1, k)), xp.reshape(yp, (-1, k))
        if yt.shape != yp.shape:
            raise ValueError(f"y_true and y_pred have different shapes {tuple(yt.shape)} "
                             f"and {tuple(yp.shape)}")
        check_consistent_length(yt, w)  # (shapes: no host read)
        n = yt.shape[0]
        if "n" in state:
            out_n = state["n"] + n
        e = yt - yp
        if self.statistic == "d2_pinball":  # y_true's rows; the sums below
            wb = None if w is None else self._flat_as(w, acc, xp)  # (None: weight 1)
            state = write_rows(state, {"true": yt}, wb, xp=xp)
        out = dict(state)
        if "n" in state:
            out["n"] = out_n
        if self.statistic == "max":
            return self._update_max(state, out, e, w, n, xp)
        if w is None:  # unit weights: plain sums, the count from the shape
            out["sw"] = state["sw"] + n

            def total(v):
                return xp.sum(v, axis=0)
        else:
            w = self._flat_as(w, acc, xp)
            wc = w if e.ndim == 1 else xp.reshape(w, (-1, 1))
            out["sw"] = state["sw"] + xp.sum(w)

            def total(v):
                return xp.sum(wc * v, axis=0)
        for name, rows in self.row_terms(yt, yp, e, xp).items():
            out[name] = state[name] + total(rows)
        if self.statistic == "d2_tweedie" and n:
            out["min_y"], out["max_y"] = _running_range(state, yt, w, xp)
        return out

    def row_terms(self, yt, yp, e, xp):
        """Each sum's per-row terms (``e = y_true - y_pred``; the bootstrap's path reads
        them too)."""
        stat = self.statistic
        if stat == "sq":
            return {"s_ee": e * e}
        if stat == "abs":
            return {"s_abs": xp.abs(e)}
        if stat == "moments":
            return {"s_ee": e * e, "s_y": yt, "s_yy": yt * yt, "s_e": e}
        if stat == "log":
            d = xp.log1p(yt) - xp.log1p(yp)
            return {"s_log": d * d}
        if stat == "pct":
            eps = xp.finfo(xp.float64).eps
            return {"s_pct": xp.abs(e) / xp.clip(xp.abs(yt), min=eps)}
        if stat == "deviance":
            return {"s_dev": half_deviances(yt, (yp,), self.power, xp)[0]}
        if stat == "d2_tweedie":
            return {"s_dev": half_deviances(yt, (yp,), self.power, xp)[0], "s_y": yt,
                    "s_null": tweedie_null_terms(yt, self.power, xp)}
        return {"s_d": e, "s_part": pinball_part(e, self.alpha, xp)}  # pinball, d2_pinball

    def _update_max(self, state, out, e, w, n, xp):
        """``max_error``: the running maximum of ``|y_true - y_pred|`` (no weights)."""
        if w is not None:
            raise TypeError("MaxError takes no sample_weight (scikit-learn's max_error "
                            "has none)")
        out["sw"] = state["sw"] + n
        if n:
            out["max_abs"] = xp.maximum(state["max_abs"], xp.max(xp.abs(e), axis=0))
        return out

    def buffer_rows(self, state, y_true, y_pred, sample_weight=None):
        """The exact buffer's rows of one batch (``median_ae``): ``({"abs": |y_true -
        y_pred|}, weight or None)``, as :meth:`update` writes them (the stateful
        wrappers write them in place into a buffer they own)."""
        leaf = state["buf_weight"]
        xp, _, _, yt, yp, w = self._inputs(state, y_true, y_pred, sample_weight, primary=leaf)
        yt, yp = stream_targets(yt, yp, self.num_outputs, leaf.dtype, xp)
        check_consistent_length(yt, w)  # (shapes: no host read)
        if w is not None:
            w = xp.reshape(xp.astype(w, leaf.dtype, copy=False), (-1,))
        return {"abs": xp.abs(yt - yp)}, w

    def _check_outputs(self, yt, yp):
        """The batch's shape against ``num_outputs`` (:func:`check_stream_outputs`)."""
        check_stream_outputs(yt, yp, self.num_outputs)

    def check_seen(self, n_samples):
        if self.metric in _TWO_SAMPLES and n_samples < 2:
            warnings.warn(f"{_TWO_SAMPLES[self.metric]} is not well-defined with less "
                          "than two samples.", as_sklearn_too(UndefinedMetricWarning),
                          stacklevel=3)

    def accumulator(self, state):
        """``(state', add)`` where the backend adds batches in place (eager CPU
        NumPy / torch; one output, MSE / RMSE / MAE): ``state'`` holds copies of
        the sums and ``add(y_true, y_pred)`` adds one unweighted batch into them
        (False, nothing done, for a batch it does not take: call :meth:`update`);
        None elsewhere.  For the stateful wrappers, which own their sums;
        :meth:`update` stays pure."""
        if self.statistic not in ("sq", "abs") or (self.num_outputs or 1) != 1:
            return None
        name = _SUMS[self.statistic][0]
        made = _ops(array_namespace(state["sw"])).error_accumulator(
            state["sw"], state[name], power=2 if self.statistic == "sq" else 1)
        if made is None:
            return None
        sw, total, add = made
        return {**state, "sw": sw, name: total}, add

    def compute(self, state):
        """The metric of all data seen (0-d, or ``(k,)`` for ``raw_values``)."""
        xp, _ = _ns.get_namespace_and_device(*(v for k, v in state.items()
                                               if not k.startswith("meta_")))
        fdt = result_dtype(state, xp)
        m = self.metric
        if m == "median_ae":
            # the one-shot's weighted median; a free row weighs 0 and counts for nothing
            median = _ops(xp).weighted_quantile(state["buf_abs"], 0.5,
                                                weights=state["buf_weight"], average=True)
            per_output = nan_if_dropped(median, state, xp=xp)
            return xp.astype(self._average(per_output, None, xp), fdt)
        if self.statistic in ("d2_tweedie", "d2_pinball"):
            return xp.astype(self._d2(state, xp), fdt)
        sw = state["sw"]
        if m in ("r2", "explained_variance"):
            num, den = explained_fraction_terms(state, m, xp=xp)
            scores = explained_fraction(num, den, self.force_finite, xp)
            value = self._average(scores, den, xp)
            if m == "r2":  # scikit-learn: NaN below two samples (with check_seen's warning)
                value = xp.where(state["n"] < 2, xp.full_like(value, math.nan), value)
            return xp.astype(value, fdt)
        # no weight seen: NaN (a division by NaN, not by zero: no warning)
        sw = xp.where(sw == 0, xp.full_like(sw, math.nan), sw)
        if self.statistic in ("max", "deviance", "pinball"):
            return xp.astype(self._average(self._loss(state, sw, xp), None, xp), fdt)
        return xp.astype(self._average(mean_error_of(m, state, sw, xp), None, xp), fdt)

    def _d2(self, state, xp):
        """The D2 scores: the one-shot functions' formulas on the sums (and, for
        the pinball loss, on the buffered ``y_true``); NaN below two samples,
        with no weight, or (the buffer) when rows were dropped."""
        sw = state["sw"]
        sw = xp.where(sw == 0, xp.full_like(sw, math.nan), sw)
        if self.statistic == "d2_tweedie":
            p = self.power
            num = state["s_dev"] / sw
            den = tweedie_null_half_deviance(state["s_null"] / sw, state["s_y"] / sw, p, xp)
            den = xp.where(state["min_y"] == state["max_y"], xp.zeros_like(den), den)
            scores = explained_fraction(num, den, False, xp)  # 1 - num / den
            n = state["n"]
        else:
            num = pinball_from_means(state["s_d"] / sw, state["s_part"] / sw, self.alpha)
            y, w = state["buf_true"], state["buf_weight"]
            q = d2_pinball_baseline(y, self.alpha, w, xp)
            den = pinball_losses(y, (q,), self.alpha, w, xp.sum(w), xp)[0]
            scores = nan_if_dropped(explained_fraction(num, den, True, xp), state, xp=xp)
            n = state["count"] + state["dropped"]
        value = self._average(scores, None, xp)
        return xp.where(n < 2, xp.full_like(value, math.nan), value)

    def _loss(self, state, sw, xp):
        """Per output: the maximum error, the mean deviance or the pinball loss
        (the one-shot functions' formulas on the sums); NaN with no sample."""
        if self.statistic == "max":
            return xp.where(xp.isnan(sw), xp.full_like(state["max_abs"], math.nan),
                            state["max_abs"])
        if self.statistic == "deviance":
            return deviance_scale(self.power) * state["s_dev"] / sw
        return pinball_from_means(state["s_d"] / sw, state["s_part"] / sw, self.alpha)

    def _average(self, per_output, den, xp):
        mo = self.multioutput
        if mo == "raw_values":
            return per_output
        if mo == "uniform_average":
            return xp.mean(per_output)
        if mo == "variance_weighted":
            total = xp.sum(den)
            weighted = safe_divide(xp.sum(per_output * den), total, zero_value=0.0, xp=xp)
            return xp.where(xp.any(den != 0), weighted, xp.mean(per_output))
        weights = xp.asarray(mo, dtype=per_output.dtype, device=_ns.device_of(per_output))
        return xp.sum(per_output * weights) / xp.sum(weights)


# -- formulas on the sums (the bootstrap's batched path calls them too) ----------

def mean_error_of(metric, state, sw, xp):
    """:func:`mean_error_formula` of the metric's one sum (any leading batch axis)."""
    (name,) = _SUMS[_STATISTIC[metric]]
    return mean_error_formula("root" if metric in ("rmse", "rmsle") else "mean",
                              state[name], sw, xp)


def explained_fraction_terms(state, metric, *, xp):
    """(numerator, denominator) of R2 (sums) or explained variance (means); any
    leading batch axis."""
    sw = state["sw"]
    ss_tot = xp.clip(state["s_yy"] - safe_divide(state["s_y"] ** 2, sw, zero_value=0.0,
                                                  xp=xp), min=0.0)
    if metric == "r2":
        return state["s_ee"], ss_tot
    var_e = xp.clip(safe_divide(state["s_ee"], sw, zero_value=0.0, xp=xp)
                    - safe_divide(state["s_e"], sw, zero_value=0.0, xp=xp) ** 2, min=0.0)
    return var_e, safe_divide(ss_tot, sw, zero_value=0.0, xp=xp)



def _running_range(state, yt, w, xp):
    """``(min_y, max_y)`` updated with the batch's ``y_true`` (rows of non-zero
    weight; a batch of at least one row)."""
    if w is not None:
        keep = xp.reshape(w, (-1,) + (1,) * (yt.ndim - 1)) != 0
        lo = xp.where(keep, yt, xp.full_like(yt, math.inf))
        hi = xp.where(keep, yt, xp.full_like(yt, -math.inf))
    else:
        lo = hi = yt
    return (xp.minimum(state["min_y"], xp.min(lo, axis=0)),
            xp.maximum(state["max_y"], xp.max(hi, axis=0)))
