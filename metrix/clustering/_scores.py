"""The formulas of the supervised clustering scores, read off one
:class:`~metrix.clustering._contingency.Table` (no host read, fixed shapes).

Notation: cells ``n_ij``, row marginals ``a_i``, column marginals ``b_j``,
``N = sum n_ij``.  Each function mirrors scikit-learn's arithmetic (the same
terms in the same order), so values agree to rounding.
"""

from __future__ import annotations

from .._core.arith import safe_divide


def masked_sum(mask, v, xp):
    """``sum(v[mask])`` without a boolean-mask index (``v`` broadcast to ``mask``)."""
    return xp.sum(xp.where(mask, v, xp.zeros_like(v)))


def _f(x, fdt, xp):
    return xp.astype(x, fdt)


def n_classes(tab, xp):
    """The number of rows and of columns (0-d counts)."""
    return xp.sum(xp.astype(tab.a_on, tab.total.dtype)), \
        xp.sum(xp.astype(tab.b_on, tab.total.dtype))


def square_sums(tab, xp):
    """``(sum n_ij^2, sum a_i^2, sum b_j^2)`` as counts."""
    return (masked_sum(tab.n_on, tab.n * tab.n, xp), masked_sum(tab.a_on, tab.a * tab.a, xp),
            masked_sum(tab.b_on, tab.b * tab.b, xp))


def pair_confusion(tab, xp):
    """The 2 x 2 pair confusion matrix (counts) of Hubert & Arabie (1985)."""
    ss, sa, sb = square_sums(tab, xp)
    n = tab.total
    c11 = ss - n
    c01 = sb - ss
    c10 = sa - ss
    c00 = n * n - c01 - c10 - ss
    return xp.reshape(xp.stack([c00, c01, c10, c11]), (2, 2))


def rand_index(tab, fdt, xp):
    """``(C00 + C11) / (N^2 - N)``; 1 where every pair agrees or there is no pair."""
    c = pair_confusion(tab, xp)
    num = c[0, 0] + c[1, 1]
    den = xp.sum(c)
    value = safe_divide(_f(num, fdt, xp), _f(den, fdt, xp), zero_value=1.0, xp=xp)
    return xp.where(num == den, xp.ones_like(value), value)


def adjusted_rand(tab, fdt, xp):
    """``2 (tp tn - fn fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn))``."""
    c = _f(pair_confusion(tab, xp), fdt, xp)
    tn, fp, fn, tp = c[0, 0], c[0, 1], c[1, 0], c[1, 1]
    num = 2.0 * (tp * tn - fn * fp)
    den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
    value = safe_divide(num, den, zero_value=1.0, xp=xp)
    return xp.where((fn == 0) & (fp == 0), xp.ones_like(value), value)


def mutual_info(tab, fdt, xp):
    r"""``MI = sum n_ij / N log(N n_ij / (a_i b_j))``, cells below eps set to 0,
    clipped at 0; 0 with a single row or column."""
    eps = xp.finfo(fdt).eps
    on = tab.n_on
    total = _f(tab.total, fdt, xp)
    nz = _f(xp.where(on, tab.n, xp.ones_like(tab.n)), fdt, xp)
    outer = _f(tab.a_n, fdt, xp) * _f(tab.b_n, fdt, xp)
    outer = xp.where(on, outer, xp.ones_like(outer))
    log_total = xp.log(total)
    c_nm = nz / total
    log_outer = -xp.log(outer) + log_total + log_total
    mi = c_nm * (xp.log(nz) - log_total) + c_nm * log_outer
    mi = xp.where(xp.abs(mi) < eps, xp.zeros_like(mi), mi)
    mi = xp.clip(masked_sum(on, mi, xp), 0.0, None)
    rows, cols = n_classes(tab, xp)
    return xp.where((rows == 1) | (cols == 1), xp.zeros_like(mi), mi)


def entropy(counts, on, total, fdt, xp):
    """``H = -sum p log p`` of the class sizes ``counts`` (masked by ``on``);
    0 for a single class."""
    pi = _f(xp.where(on, counts, xp.ones_like(counts)), fdt, xp)
    tot = _f(total, fdt, xp)
    h = -masked_sum(on, pi / tot * (xp.log(pi) - xp.log(tot)), xp)
    single = xp.sum(xp.astype(on, total.dtype)) == 1
    return xp.where(single, xp.zeros_like(h), h)


def entropies(tab, fdt, xp):
    """``(H(labels_true), H(labels_pred))``."""
    return (entropy(tab.a, tab.a_on, tab.total, fdt, xp),
            entropy(tab.b, tab.b_on, tab.total, fdt, xp))


def homogeneity_completeness(tab, beta, fdt, xp):
    """``(h, c, v)``: ``h = MI / H(C)``, ``c = MI / H(K)`` (1 where the entropy is
    0), ``v = (1 + beta) h c / (beta h + c)`` (0 where ``h + c = 0``)."""
    mi = mutual_info(tab, fdt, xp)
    h_c, h_k = entropies(tab, fdt, xp)
    h = safe_divide(mi, h_c, zero_value=1.0, xp=xp)
    c = safe_divide(mi, h_k, zero_value=1.0, xp=xp)
    v = safe_divide((1 + beta) * h * c, beta * h + c, zero_value=float("nan"), xp=xp)
    v = xp.where(h + c == 0, xp.zeros_like(v), v)
    return h, c, v


def generalized_average(u, v, method, xp):
    """scikit-learn's ``_generalized_average`` of two 0-d entropies."""
    if method == "min":
        return xp.minimum(u, v)
    if method == "geometric":
        return xp.sqrt(u * v)
    if method == "arithmetic":
        return (u + v) / 2
    return xp.maximum(u, v)


def normalized_mutual_info(tab, fdt, xp, *, method):
    """``MI / mean(H(C), H(K))``; 1 for one class and one cluster, 0 where MI is 0."""
    mi = mutual_info(tab, fdt, xp)
    h_c, h_k = entropies(tab, fdt, xp)
    value = safe_divide(mi, generalized_average(h_c, h_k, method, xp), zero_value=0.0, xp=xp)
    value = xp.where(mi == 0, xp.zeros_like(value), value)
    rows, cols = n_classes(tab, xp)
    return xp.where((rows == 1) & (cols == 1), xp.ones_like(value), value)


def fowlkes_mallows(tab, fdt, xp):
    """``tk / sqrt(pk qk)`` with ``tk = sum n_ij^2 - N``, ``pk = sum b_j^2 - N``,
    ``qk = sum a_i^2 - N``; 0 where ``tk = 0``."""
    ss, sa, sb = (_f(s - tab.total, fdt, xp) for s in square_sums(tab, xp))
    value = xp.sqrt(safe_divide(ss, sb, zero_value=0.0, xp=xp)) * xp.sqrt(
        safe_divide(ss, sa, zero_value=0.0, xp=xp))
    return xp.where(ss != 0, value, xp.zeros_like(value))
