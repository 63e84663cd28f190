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
"averaged inverted CDF" weighted median to it.

The mean errors, R2 and explained variance apply the one-shot functions'
formulas (:func:`metrix.regression.scores.mean_error_formula`,
:func:`metrix.regression.scores.explained_fraction`) to these sums.
"""

from __future__ import annotations

import math
import warnings

from .._core import namespace as _ns
from .._core.arith import safe_divide
from ..backends import ops as _ops
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ..regression._input import check_alpha, check_power, check_stream_outputs, stream_targets
from ..regression.scores import (
    deviance_scale,
    explained_fraction,
    half_deviances,
    mean_error_formula,
    pinball_from_means,
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
}
# each metric keeps only the sums it reads (an update of MSE is one sum of squares)
_STATISTIC = {"mse": "sq", "rmse": "sq", "mae": "abs", "r2": "moments",
              "explained_variance": "moments", "msle": "log", "rmsle": "log", "mape": "pct",
              "median_ae": "buffer", "max_error": "max", "poisson": "deviance",
              "gamma": "deviance", "tweedie": "deviance", "pinball": "pinball"}
#: the Tweedie power of the deviance metrics (``tweedie`` takes ``power=``)
_POWER = {"poisson": 1, "gamma": 2}
_MULTI = ("raw_values", "uniform_average", "variance_weighted")


class RegressionStream(StreamMetric):
    """Functional streaming regression metric.

    Parameters
    ----------
    metric : str
        ``mse, rmse, mae, r2, explained_variance, msle, rmsle, mape, median_ae,
        max_error, poisson, gamma, tweedie, pinball``.
    num_outputs : int or None, default=None
        ``None``: 1-D targets and 0-d results; ``k``: targets ``(n, k)``.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"} or host
        weights, default="uniform_average"
    force_finite : bool, default=True
        scikit-learn's rule for constant targets (R2, explained variance).
    capacity : int, default=None
        Rows of the exact buffer (``median_ae`` only; required there).
    power : float, default=0
        The Tweedie power of ``tweedie`` (``poisson`` is 1, ``gamma`` 2).
    alpha : float, default=0.5
        The quantile of ``pinball``.

    Notes
    -----
    Out of the deviances' domain (``poisson`` needs ``y_true >= 0`` and
    ``y_pred > 0``, ``gamma`` both positive) the result is NaN or infinite: the
    stream reads nothing to check it (the one-shot functions raise).
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
        self.power = _POWER.get(metric, check_power(power, "MeanTweedieDeviance"))
        self.alpha = check_alpha(alpha, "MeanPinballLoss")
        if metric in ("max_error", "poisson", "gamma", "tweedie") and num_outputs not in (
                None, 1):
            raise ValueError(f"{metric} takes one output (scikit-learn's rule), got "
                             f"num_outputs={num_outputs}")
        k = num_outputs or 1
        if self.statistic == "buffer":
            self.capacity = check_capacity(capacity)
            self.key = ("reg_buffer", k, self.capacity)
        else:
            if capacity is not None:
                raise ValueError(f"capacity is only used by median_ae, not {metric!r}")
            self.capacity = None
            # R2 also counts samples (NaN below two, whatever the weights)
            self.key = ("reg_" + self.statistic, k) + (("n",) if metric == "r2" else ()) + (
                (self.power,) if self.statistic == "deviance" else
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
        else:
            state = {name: xp.zeros((k,), dtype=acc, device=device)
                     for name in _SUMS[self.statistic]}
            if self.statistic == "max":  # a running maximum starts below every value
                state["max_abs"] = xp.full((k,), -math.inf, dtype=acc, device=device)
            state["sw"] = xp.zeros((), dtype=acc, device=device)
            if self.metric == "r2":  # NaN below two samples, whatever the weights
                state["n"] = xp.zeros((), dtype=_ns.count_dtype(xp, device), device=device)
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
        flat = k == 1 and yt.ndim == 1 and yp.ndim == 1
        if not flat:  # (1-D sums are 0-d and broadcast into the (1,) state)
            yt, yp = xp.reshape(yt, (-1, k)), xp.reshape(yp, (-1, k))
        if yt.shape != yp.shape:
            raise ValueError(f"y_true and y_pred have different shapes {tuple(yt.shape)} "
                             f"and {tuple(yp.shape)}")
        n = yt.shape[0]
        if "n" in state:
            out_n = state["n"] + n
        e = yt - yp
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
            w = xp.reshape(xp.astype(w, acc, copy=False), (-1,))
            wc = w if e.ndim == 1 else xp.reshape(w, (-1, 1))
            out["sw"] = state["sw"] + xp.sum(w)

            def total(v):
                return xp.sum(wc * v, axis=0)
        for name, rows in self._terms(yt, yp, e, xp).items():
            out[name] = state[name] + total(rows)
        return out

    def _terms(self, yt, yp, e, xp):
        """Each sum's per-row terms (``e = y_true - y_pred``)."""
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
        part = xp.clip(e, min=0.0) if self.alpha >= 0.5 else xp.clip(e, max=0.0)
        return {"s_d": e, "s_part": part}  # pinball

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
        if w is not None:
            w = xp.reshape(xp.astype(w, leaf.dtype, copy=False), (-1,))
        return {"abs": xp.abs(yt - yp)}, w

    def _check_outputs(self, yt, yp):
        """The batch's shape against ``num_outputs`` (:func:`check_stream_outputs`)."""
        check_stream_outputs(yt, yp, self.num_outputs)

    def check_seen(self, n_samples):
        if self.metric == "r2" and n_samples < 2:
            warnings.warn("R^2 score is not well-defined with less than two samples.",
                          as_sklearn_too(UndefinedMetricWarning), stacklevel=3)

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
            per_output = nan_if_dropped(_median_from_buffer(state, xp=xp), state, xp=xp)
            return xp.astype(self._average(per_output, None, xp), fdt)
        sw = state["sw"]
        if m in ("r2", "explained_variance"):
            num, den = _explained_fraction_terms(state, m, xp=xp)
            scores = explained_fraction(num, den, self.force_finite, xp)
            value = self._average(scores, den, xp)
            if m == "r2":  # scikit-learn: NaN below two samples (with check_seen's warning)
                value = xp.where(state["n"] < 2, xp.full_like(value, math.nan), value)
            return xp.astype(value, fdt)
        # no weight seen: NaN (a division by NaN, not by zero: no warning)
        sw = xp.where(sw == 0, xp.full_like(sw, math.nan), sw)
        if self.statistic in ("max", "deviance", "pinball"):
            return xp.astype(self._average(self._loss(state, sw, xp), None, xp), fdt)
        name = {"mse": "s_ee", "rmse": "s_ee", "mae": "s_abs", "msle": "s_log",
                "rmsle": "s_log", "mape": "s_pct"}[m]
        per_output = mean_error_formula("root" if m in ("rmse", "rmsle") else "mean",
                                        state[name], sw, xp)
        return xp.astype(self._average(per_output, None, xp), fdt)

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


# -- formulas on the sums --------------------------------------------------------

def _explained_fraction_terms(state, metric, *, xp):
    """(numerator, denominator) of R2 (sums) or explained variance (means)."""
    sw = state["sw"]
    ss_tot = xp.clip(state["s_yy"] - safe_divide(state["s_y"] ** 2, sw, zero_value=0.0,
                                                  xp=xp), min=0.0)
    if metric == "r2":
        return state["s_ee"], ss_tot
    var_e = xp.clip(safe_divide(state["s_ee"], sw, zero_value=0.0, xp=xp)
                    - safe_divide(state["s_e"], sw, zero_value=0.0, xp=xp) ** 2, min=0.0)
    return var_e, safe_divide(ss_tot, sw, zero_value=0.0, xp=xp)


def _median_from_buffer(state, *, xp):
    """Weighted median of each column of ``buf_abs`` ("averaged inverted CDF").

    Free rows weigh nothing (their value is set to +inf so they sort last).
    Equal to ``np.median`` for unit weights.
    """
    x = state["buf_abs"]
    w = state["buf_weight"]
    k = x.shape[1]
    x = xp.where(xp.reshape(w == 0, (-1, 1)), xp.full_like(x, math.inf), x)
    order = xp.argsort(x, axis=0)
    xs = xp.take_along_axis(x, order, axis=0)
    ws = xp.take(w, xp.reshape(order, (-1,)))
    ws = xp.reshape(ws, order.shape)
    cw = xp.cumulative_sum(ws, axis=0)
    total = cw[-1:, :]
    target = 0.5 * total
    last = x.shape[0] - 1
    cdt = _ns.count_dtype(xp, _ns.device_of(x))
    i = xp.clip(xp.sum(xp.astype(cw < target, cdt), axis=0), 0, last)
    i2 = xp.reshape(i, (1, k))
    cw_i = xp.take_along_axis(cw, i2, axis=0)
    x_i = xp.take_along_axis(xs, i2, axis=0)
    j = xp.sum(xp.astype(cw <= cw_i, cdt), axis=0)
    j = xp.where(j > last, i, j)
    x_j = xp.take_along_axis(xs, xp.reshape(j, (1, k)), axis=0)
    eps = xp.finfo(x.dtype).eps
    med = xp.where(cw_i - target > eps, x_i, 0.5 * (x_i + x_j))[0, :]
    return xp.where(total[0, :] == 0, xp.full_like(med, math.nan), med)
