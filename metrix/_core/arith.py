"""Small arithmetic helpers shared by every family (no in-place writes, no syncs)."""

from __future__ import annotations

from ..backends import ops


def safe_divide(numerator, denominator, *, zero_value, xp):
    """``numerator / denominator`` where the denominator is non-zero, else ``zero_value``.

    No masked write, no ``xp.any``, and no 0/0 evaluated (NumPy would warn):
    the adapter's ``safe_divide`` (STYLE.md, rule 4).  ``zero_value`` is a
    Python float (may be nan) or an array broadcastable to the result.
    """
    return ops(xp).safe_divide(numerator, denominator, zero_value=zero_value)


def nan_divide(numerator, denominator, *, xp):
    """``numerator / denominator``, NaN where the denominator is 0 (an undefined
    ratio), without evaluating 0 / 0 (NumPy would warn).  Three kernels."""
    return numerator / xp.where(denominator == 0, float("nan"), denominator)


def nanaverage(a, *, weights=None, xp):
    """Weighted mean of ``a`` over its last axis ignoring NaNs, as scikit-learn's
    ``_nanaverage`` (leading axes are a batch: the bootstrap's resamples).

    All-NaN (or empty) gives NaN; all-zero weights fall back to the plain mean.
    Returns a 0-d array for 1-D ``a``.
    """
    nan = xp.isnan(a)
    a0 = xp.where(nan, xp.zeros_like(a), a)
    keep = xp.astype(~nan, a.dtype)
    count = xp.sum(keep, axis=-1)
    plain = safe_divide(xp.sum(a0, axis=-1), count, zero_value=float("nan"), xp=xp)
    if weights is None:
        return plain
    w = xp.astype(weights, a.dtype) * keep
    wsum = xp.sum(w, axis=-1)
    weighted = safe_divide(xp.sum(w * a0, axis=-1), wsum, zero_value=float("nan"), xp=xp)
    return xp.where(wsum == 0, plain, weighted)
