"""The calibration kernel's bin table (``bin_table``: a bin per float's top 16 bits
and one comparison) against ``np.searchsorted`` of the metric's edges, on every
edge, its neighbours, special values and random bit patterns."""

from __future__ import annotations

import numpy as np
import pytest

from metrix.backends._calibration import _table_codes, bin_table
from metrix.classification.calibration import bin_edges

RNG = np.random.default_rng(47)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_bins", [1, 2, 3, 10, 15, 32, 33, 100, 256, 300])
def test_table_bins_equal_the_binary_search(dtype, n_bins):
    edges = np.asarray(bin_edges(n_bins, dtype == np.float32), dtype=dtype)
    table = bin_table(edges)
    # the cells resolve float32 up to 256 bins, float64 up to 32: None past that
    resolves = n_bins <= (256 if dtype == np.float32 else 32)
    if table is None:
        assert not resolves
        return
    uint = np.uint32 if dtype == np.float32 else np.uint64
    bits = RNG.integers(0, np.iinfo(uint).max, 200_000, dtype=uint, endpoint=True).view(dtype)
    x = np.concatenate([
        edges, np.nextafter(edges, dtype(np.inf)), np.nextafter(edges, dtype(-np.inf)),
        np.array([0.0, -0.0, 1.0, -1.0, 2.0, np.inf, -np.inf], dtype=dtype),
        np.array([np.finfo(dtype).smallest_subnormal, -np.finfo(dtype).smallest_subnormal],
                 dtype=dtype),
        RNG.random(100_000).astype(dtype), bits[~np.isnan(bits)]]).astype(dtype)
    codes = np.searchsorted(edges, x, "right")
    np.testing.assert_array_equal(_table_codes(x, table), codes)
    # folded: the bin itself (code - 1 clipped to [0, n_bins]), NaN in some bin
    folded = _table_codes(x, bin_table(edges, folded=True))
    np.testing.assert_array_equal(folded, np.clip(codes - 1, 0, n_bins))
    nan = np.array([np.nan, -np.nan], dtype=dtype)
    assert ((_table_codes(nan, bin_table(edges, folded=True)) >= 0)
            & (_table_codes(nan, bin_table(edges, folded=True)) <= n_bins)).all()
