"""PyTorch adapter.

* ``torch.bincount`` in eager mode (one pass).
* Under ``torch.compile`` a fixed-length ``index_add`` (static output shape,
  no graph break).
* Under ``torch.use_deterministic_algorithms(True)`` on CUDA, where
  ``bincount``/``index_add`` are nondeterministic and raise, the sort-based
  count of the generic adapter (O(N) memory; never TorchMetrics' N x C one-hot).
"""

from __future__ import annotations

import functools
import itertools
import math
import operator

import numpy as np
import torch

from . import host_views as _host
from ._argmin_screen import screened_argmin
from ._calibration import calibration_accumulator_numpy
from ._generic import LANE_ROWS, GenericOps, widened_scores
from ._pair_count import (
    MAX_DISCOVERED,
    codes_or_other_numpy,
    count_chunks,
    count_declared,
    discover_and_count,
    fits_chunked_count,
    pair_bincount_declared_numpy,
    pair_bincount_discover_numpy,
    pair_bincount_numpy,
)
from .numpy import (
    add_error_sums,
    add_moment_sums,
    add_value_sums,
    binned_counts_numpy,
    binned_histogram_numpy,
    clear_rows_in_place,
    edge_confusion_numpy,
    fold_extreme,
    multilabel_adder,
    multilabel_counts_fits,
    multilabel_counts_numpy,
    multilabel_exact_numpy,
    pair_writer,
    rows_writer,
)

#: whether torch.compile is tracing (``torch.compiler.is_compiling``; older torch: never)
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)


#: dtypes handed to NumPy kernels on zero-copy CPU views (sorts, label codes)
_NUMPY_VIEWS = (torch.float64, torch.float32, torch.float16, torch.int64, torch.int32,
                torch.int16, torch.int8, torch.uint8)

#: the rows an exact buffer's in-place writer reads through NumPy views
_ROW_VIEWS = (*_NUMPY_VIEWS, torch.bool)

#: what the NumPy binned-histogram kernel takes (bool and float16 go the torch way)
_HISTOGRAM_SCORES = (torch.float32, torch.float64)
_HISTOGRAM_TARGETS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)

#: rows per block of ``fused_sums`` on CPU
_CHUNK = 1 << 16

#: the float dtypes narrower than float32 (scores of mixed-precision models)
_HALF = (torch.float16, torch.bfloat16)


class Ops(GenericOps):
    name = "torch"
    # torch.sort of values costs as much as an argsort: keep the tie-group path
    value_sort_is_cheap = False
    fused_block = _CHUNK

    def _fused_rows(self, arrays):
        # CPU eager: blocks of rows; CUDA/MPS and torch.compile: one fused call
        if _compiling() or arrays[0].device.type != "cpu":
            return None
        return super()._fused_rows(arrays)

    def order_statistics(self, x, ranks, /, *, overwrite=False):
        # CPU eager: a selection per rank (torch's CPU sort is ~6x one kthvalue)
        if _compiling() or x.device.type != "cpu" or len(ranks) > 2 or x.shape[0] == 0:
            return super().order_statistics(x, ranks, overwrite=overwrite)
        return [torch.kthvalue(x, r + 1, dim=0).values for r in ranks]

    def split_sort(self, score, pos, /):
        # CPU eager: NumPy's sort on zero-copy views (~3x torch.sort on CPU);
        # bfloat16 (no NumPy dtype): counted by bit pattern (many scores), else
        # sorted as float32, which holds it exactly
        if _compiling() or score.device.type != "cpu":
            return None
        if score.dtype == torch.bfloat16:
            split = _bfloat16_split(score, pos)
            if split is not None:
                return split
            score = score.float()
        if score.dtype not in _NUMPY_VIEWS:
            return None
        from .numpy import split_sort_numpy

        q, r = split_sort_numpy(score.detach().numpy(), pos.detach().numpy(),
                                torch.get_num_threads())
        return torch.from_numpy(q), torch.from_numpy(r)

    def split_rank_sums(self, q, r, /, *, precision=True):
        # CPU eager (the tensors of split_sort): NumPy's searches on views;
        # bfloat16 (counted by split_sort): histograms of the bit patterns
        if _compiling() or q.device.type != "cpu":
            return None
        if q.dtype == torch.bfloat16:
            from ._half_ranks import histogram_rank_sums

            return histogram_rank_sums(_bits(q), _bits(r), "bfloat16", precision)
        if q.dtype not in _NUMPY_VIEWS:
            return None
        from .numpy import split_rank_sums_numpy

        return split_rank_sums_numpy(q.detach().numpy(), r.detach().numpy(), precision,
                                     torch.get_num_threads())

    def segment_top_candidates(self, values, seg, /, *, n_segments, k, skip_zeros=False):
        # CPU eager: NumPy's histogram kernel on zero-copy views
        if (_compiling() or values.device.type != "cpu" or seg.device.type != "cpu"
                or values.dtype not in _NUMPY_VIEWS or seg.dtype not in _NUMPY_VIEWS):
            return None
        from ._segment_top import segment_top_candidates_numpy

        def count(codes, minlength):
            return torch.bincount(torch.from_numpy(codes), minlength=minlength).numpy()

        idx = segment_top_candidates_numpy(values.detach().numpy(), seg.detach().numpy(),
                                           n_segments, k, skip_zeros, count=count)
        return None if idx is None else torch.from_numpy(idx)

    def lane_fits(self, x, /):
        return x.shape[0] <= LANE_ROWS or x.device.type != "cpu" or _compiling()

    def lane(self, fn, config, /, *arrays):
        # CPU eager: NumPy on zero-copy views (a NumPy op on a training-loop
        # batch costs a fraction of a torch op); results back as tensors.  A
        # lane may cap the rows it takes views for (``fn.host_view_rows``:
        # float lanes, whose casts and reductions torch's kernels do faster)
        if not _compiling() and arrays[0].shape[0] <= getattr(fn, "host_view_rows", LANE_ROWS):
            if getattr(fn, "reads_order_only", False):
                # bfloat16 has no NumPy dtype; float32 holds its values exactly
                arrays = [t.float() if t is not None and t.dtype == torch.bfloat16 else t
                          for t in arrays]
            views = _lane_views(arrays)
            if views is not None:
                lean_xp, lean_ops = _host.numpy_lane()
                return _from_numpy(fn(lean_xp, lean_ops, config, *views))
        return fn(self.xp, self, config, *arrays)

    def dot(self, a, b, /):
        return torch.dot(a, b)  # one kernel, not a product and a sum

    def count_true(self, x, dtype, /):
        # a native count (torch's sum of bool is 15x slower), then one 0-d cast
        return torch.count_nonzero(x).to(dtype)

    def sort_with_order(self, x, /):
        return torch.sort(x)  # values and indices in one kernel

    def safe_divide(self, numerator, denominator, /, *, zero_value):
        # two masked fills of a Python scalar: four kernels, where ``where`` with a
        # scalar takes six (each scalar is a tensor first)
        if not (isinstance(denominator, torch.Tensor) and isinstance(zero_value, (int, float))):
            return super().safe_divide(numerator, denominator, zero_value=zero_value)
        zero = denominator == 0
        return (numerator / denominator.masked_fill(zero, 1)).masked_fill(zero, zero_value)

    def ieee_divide(self, a, b, /):
        return a / b  # IEEE results at b == 0, no warning: one kernel

    def mid_ranks(self, x, /):
        # off the CPU: the original values are the queries (no gather of the
        # labels into sorted order: one kernel less)
        if x.device.type == "cpu":
            return super().mid_ranks(x)
        ordered = torch.sort(x).values
        ranks = torch.searchsorted(ordered, x, side="left") + torch.searchsorted(
            ordered, x, side="right")
        return ranks, None

    def take(self, x, indices, /):
        return torch.index_select(x, 0, indices)  # no negative-index fix-up kernels

    def inner_block(self, flat, /, *, n):
        # eager: one strided view instead of a reshape and two slices (compiled
        # graphs fuse views anyway, and storage offsets do not trace)
        if _compiling():
            return super().inner_block(flat, n=n)
        k = n + 2
        return torch.as_strided(flat, (n, n), (k, 1), flat.storage_offset() + k + 1)

    def bincount(self, x, /, *, length, weights=None):
        # CPU eager: torch.bincount (one pass).  CUDA / MPS and torch.compile: a
        # fixed-size index_add of the (in-range) codes: torch's CUDA bincount
        # reads the max on the host to size its output (a device sync).  Under
        # deterministic algorithms off the CPU: the sort-based count.
        cpu = x.device.type == "cpu"
        if not cpu and torch.are_deterministic_algorithms_enabled():
            return self._sorted_bincount(x, length=length, weights=weights)
        if not cpu or _compiling() or (weights is not None and weights.ndim == 2):
            return _index_count(x, length, weights)
        if x.dtype not in _COUNT_CODES:
            x = x.to(torch.int64)
        out = torch.bincount(x, weights, minlength=length)
        if out.shape[0] != length:  # a value past the end (the caller's bug): cut
            out = out[:length]
        return out if weights is None else out.to(weights.dtype)

    def binned_codes(self, score, target, /, *, n_thresholds):
        # eager: the same arithmetic on one temporary, in place (each kernel
        # launch matters at training-loop batch sizes)
        if _compiling() or (target is not None and (target.dtype.is_floating_point
                                                     or target.dtype == torch.bool)):
            return super().binned_codes(score, target, n_thresholds=n_thresholds)
        t = float(n_thresholds)
        if score.dtype in _HALF:
            score = widened_scores(score, n_thresholds, xp=self.xp)
        v = torch.mul(score, t - 1.0)
        k = v.add_(1.0).clamp_(0.0, t).nan_to_num_(0.0).to(torch.int64)  # NaN: bin 0
        return k if target is None else k.add_(target, alpha=n_thresholds + 1)

    def binned_histogram(self, hist, score, target, /, *, n_thresholds):
        # CPU eager: NumPy's kernel on zero-copy views (each torch call costs
        # more than its arithmetic at training-loop batch sizes)
        if hist.dtype == torch.int64 and hist.is_cpu:
            views = _histogram_views(score, target)
            own = None if views is None else _cpu_views(hist)
            if own is not None:
                return torch.from_numpy(binned_histogram_numpy(*own, *views, n_thresholds))
        return super().binned_histogram(hist, score, target, n_thresholds=n_thresholds)

    def counts_in_place(self) -> bool:
        return not _compiling()

    def bincount_into(self, out, x, /, *, weights=None):
        # eager: index_add_ into the caller's own array (no sync, no length-sized
        # temporary); traced: the functional sum
        if _compiling():
            return super().bincount_into(out, x, weights=weights)
        if weights is None:
            weights = torch.ones((), dtype=out.dtype, device=out.device).expand(x.shape[0])
        return out.index_add_(0, x, weights.to(out.dtype))

    def error_accumulator(self, sw, total, /, *, power):
        # CPU eager: NumPy's kernels on views of own copies (no tensor per batch)
        if not (isinstance(total, torch.Tensor) and total.is_cpu
                and total.dtype == torch.float64 and tuple(total.shape) == (1,)
                and not _compiling()):
            return None
        own_sw, own_total = torch.clone(sw), torch.clone(total)
        views = _cpu_views(own_sw, own_total)
        if views is None:
            return None

        def add(y_true, y_pred):
            inputs = _eager_cpu_views(y_true, y_pred)
            return inputs is not None and add_error_sums(*views, *inputs, power)

        return own_sw, own_total, add

    def token_nll(self, logits, index, /):
        # one fused kernel (log-softmax and the pick) instead of five passes over (..., V)
        v = logits.shape[-1]
        nll = torch.nn.functional.cross_entropy(logits.reshape(-1, v), index.reshape(-1),
                                                reduction="none")
        return nll.reshape(index.shape)

    def nll_accumulator(self, sw, s_nll, /, *, ignore_index):
        # CPU eager: one log-softmax and one NLL sum per batch, added into views of own
        # copies (a CPU tensor's value is read without a device sync)
        if not all(isinstance(v, torch.Tensor) and v.is_cpu and v.dtype == torch.float64
                   and v.ndim == 0 for v in (sw, s_nll)) or _compiling():
            return None
        own_sw, own_nll = torch.clone(sw), torch.clone(s_nll)
        views = _cpu_views(own_sw, own_nll)
        if views is None:
            return None
        return own_sw, own_nll, _nll_adder(*views, ignore_index)

    def rows_accumulator(self, buffers, count, /, *, copy=True, pair=None):
        # eager: rows copied into slices of own buffers (O(batch), not O(capacity));
        # on CPU through NumPy views (less per-call overhead than torch's indexing)
        leaves = (*buffers.values(), count)
        if (_compiling() or not all(isinstance(v, torch.Tensor) for v in leaves)
                or count.dtype != torch.int64
                or len({v.device for v in leaves}) != 1):
            return None
        own = ({k: torch.clone(v, memory_format=torch.contiguous_format)
                for k, v in buffers.items()} if copy else dict(buffers))
        own_count = torch.clone(count) if copy else count
        if count.is_cpu and all(v.dtype in _NUMPY_VIEWS for v in leaves):
            views = _cpu_views(*own.values(), own_count)
            if views is not None:
                view_of, count_view = dict(zip(own, views[:-1])), views[-1]
                return (own, own_count, _cpu_rows_writer(view_of, count_view),
                        functools.partial(clear_rows_in_place, view_of, count_view),
                        None if pair is None else pair_writer(view_of, count_view, pair,
                                                             torch.Tensor, _compiling))
        device = count.device

        def write(values, weight, start):
            rows = (*values.values(), weight) if weight is not None else values.values()
            if _compiling() or not all(isinstance(v, torch.Tensor) and v.device == device
                                       and not v.is_complex() for v in rows):
                return False
            n = next(iter(values.values())).shape[0] if values else weight.shape[0]
            dst_weight = own["buf_weight"]
            if start + n > dst_weight.shape[0] or (weight is not None and weight.shape != (n,)):
                return False
            for name, v in values.items():
                dst = own["buf_" + name]
                if v.shape[0] != n or v.numel() != n * math.prod(dst.shape[1:]):
                    return False
            with torch.no_grad():  # (no reshape, no row select: kernels on an accelerator)
                for name, v in values.items():
                    dst = own["buf_" + name]
                    rows = (n,) + dst.shape[1:]
                    dst[start:start + n].copy_(v if v.shape == rows else v.reshape(rows))
                if weight is None:
                    dst_weight[start:start + n].fill_(1.0)
                else:
                    dst_weight[start:start + n].copy_(weight)
                own_count.add_(n)
            return True

        def clear(rows):
            with torch.no_grad():
                for v in own.values():
                    v[:rows].zero_()
                own_count.zero_()
            return True

        return own, own_count, write, clear, None

    def moment_accumulator(self, sw, s_x, s_xx, hi, lo, /):
        # CPU eager: NumPy's kernels on views of own copies (no tensor per batch)
        state = (sw, s_x, s_xx, hi, lo)
        if not all(isinstance(v, torch.Tensor) and v.is_cpu and v.dtype == torch.float64
                   for v in state) or _compiling():
            return None
        own = tuple(torch.clone(v, memory_format=torch.contiguous_format) for v in state)
        views = _cpu_views(*own)
        if views is None:
            return None

        def add(y_true, y_pred):
            inputs = _eager_cpu_views(y_true, y_pred)
            return inputs is not None and add_moment_sums(*views, *inputs)

        return own, add

    def sum_accumulator(self, total, count=None, /):
        # CPU eager: NumPy's sums on views of own copies (no tensor per batch)
        if not all(isinstance(v, torch.Tensor) and v.is_cpu and v.dtype == torch.float64
                   and v.ndim == 0 for v in (total, count) if v is not None) or _compiling():
            return None
        own_total = torch.clone(total)
        own_count = None if count is None else torch.clone(count)
        views = _cpu_views(own_total) if own_count is None else _cpu_views(own_total,
                                                                          own_count)
        if views is None:
            return None
        total_view, count_view = views if own_count is not None else (views[0], None)

        def add(value, weight=None):
            v = _eager_view(value)
            if v is None:
                return False
            if weight is None or isinstance(weight, (int, float)):  # (a batch's size)
                return add_value_sums(total_view, count_view, v, weight)
            w = _eager_view(weight)
            return w is not None and add_value_sums(total_view, count_view, v, w)

        return own_total, own_count, add

    def extreme_accumulator(self, current, /, *, kind):
        # CPU eager: NumPy's extreme on views, folded into a view of an own copy
        if not (isinstance(current, torch.Tensor) and current.is_cpu and current.ndim == 0
                and current.dtype == torch.float64) or _compiling():
            return None
        own = torch.clone(current)
        own_view = own.numpy()

        def add(value):
            v = _eager_view(value)
            return v is not None and fold_extreme(own_view, v, kind)

        return own, add

    def calibration_accumulator(self, hist, /, *, edges, multiclass):
        # CPU eager: NumPy's kernels on zero-copy views, added into a view of an
        # own copy (each torch call costs more than its arithmetic here)
        if not (isinstance(hist, torch.Tensor) and hist.dtype == torch.float64 and hist.is_cpu
                and not _compiling()):
            return None
        own = torch.clone(hist, memory_format=torch.contiguous_format)

        def views(y, p):
            y, p = _eager_view(y), _eager_view(p)
            return None if y is None or p is None else (y, p)

        _, add = calibration_accumulator_numpy(own.numpy(), views, edges, multiclass,
                                               copy=False)
        return own, add

    def multilabel_accumulator(self, counts, /, *, threshold, num_labels):
        # CPU eager: NumPy's one bincount on views of the batch, added into views of
        # own copies (no tensor per batch)
        if not all(isinstance(v, torch.Tensor) and v.dtype == torch.int64 and v.is_cpu
                   for v in counts.values()) or _compiling():
            return None
        own = {k: torch.clone(v, memory_format=torch.contiguous_format)
               for k, v in counts.items()}

        def views(y_true, y_pred):
            t, p = _eager_view(y_true), _eager_view(y_pred)
            return None if t is None or p is None else (t, p)

        return own, multilabel_adder({k: v.numpy() for k, v in own.items()}, views,
                                     threshold, num_labels)

    def binned_accumulator(self, hist, /, *, n_thresholds):
        # CPU eager: NumPy's kernel added into a view of an own copy (no new
        # tensor per batch: the wrappers' training-loop case)
        if not (isinstance(hist, torch.Tensor) and hist.dtype == torch.int64 and hist.is_cpu
                and not _compiling()):
            return None
        own = torch.clone(hist, memory_format=torch.contiguous_format)
        flat = own.numpy().reshape(-1)

        def add(target, score):
            views = _histogram_views(score, target)
            if views is None:
                return False
            np.add(flat, binned_counts_numpy(*views, n_thresholds), out=flat)
            return True

        return own, add

    def pair_bincount(self, a, b, /, *, size, weights=None):
        # CPU eager: the chunked count (a fresh N-sized int64 temporary costs
        # more, in page faults, than the count): int64 labels with torch's own
        # ops, narrower ones with NumPy's kernel on zero-copy views, on one
        # thread (Python threads lose their cores to torch's spinning OpenMP workers)
        if weights is None and _chunked(a, b, size):
            return count_chunks(a, b, size, TorchKernel)
        views = None if weights is not None else _int_views(a, b)
        flat = None if views is None else pair_bincount_numpy(*views, size, threads=1)
        if flat is not None:
            return torch.from_numpy(flat)
        if weights is not None or _compiling():
            return super().pair_bincount(a, b, size=size, weights=weights)
        return self.bincount(torch.add(b, a, alpha=size), length=size * size)  # one temporary

    def codes_or_other(self, y, n, /):
        # CPU eager: NumPy's one-pass unsigned minimum on a zero-copy view
        if _compiling() or y.device.type != "cpu" or y.dtype not in _LABELS:
            return super().codes_or_other(y, n)
        return torch.from_numpy(codes_or_other_numpy(y.numpy(), n))

    def count_labels(self, x, /):
        # torch has int64 on every device: no device or dtype lookup per batch
        return x if x.dtype == torch.int64 else x.to(torch.int64)

    def edge_cells(self, a, b, /, *, n, clip=True):
        # eager: in place on one fresh temporary (allocations cost at batch sizes)
        if _compiling():
            return super().edge_cells(a, b, n=n, clip=clip)
        a, b = self.count_labels(a), self.count_labels(b)
        if clip:
            return torch.clamp(b, -1, n).add_(torch.clamp(a, -1, n), alpha=n + 2).add_(n + 3)
        return torch.add(b, a, alpha=n + 2).add_(n + 3)

    def edge_confusion(self, cm, a, b, /, *, n, clip=True):
        # CPU eager: NumPy's kernel on zero-copy views, as binned_histogram
        if (a.dtype in _LABELS and b.dtype in _LABELS and cm.dtype == torch.int64
                and a.is_cpu and b.is_cpu and cm.is_cpu and a.ndim == 1
                and a.shape == b.shape and not _compiling()):
            views = _cpu_views(cm, a, b)
            if views is not None:
                return torch.from_numpy(edge_confusion_numpy(*views, n, clip))
        return super().edge_confusion(cm, a, b, n=n, clip=clip)

    def multilabel_counts(self, y_true, y_pred, /, *, threshold):
        # CPU eager: NumPy's one bincount of the label codes on zero-copy views
        # (a few microseconds against a dozen torch kernels at training-loop sizes)
        if y_true.is_cpu and y_pred.is_cpu and not _compiling():
            try:
                views = _cpu_views(y_true, y_pred)
            except TypeError:  # no NumPy dtype (bfloat16)
                views = None
            if views is not None and multilabel_counts_fits(*views):
                return tuple(map(torch.from_numpy, multilabel_counts_numpy(*views, threshold)))
        return super().multilabel_counts(y_true, y_pred, threshold=threshold)

    def multilabel_exact(self, y_true, y_pred, /, *, threshold):
        # CPU eager: NumPy on zero-copy views, as multilabel_counts
        if y_true.is_cpu and y_pred.is_cpu and not _compiling():
            try:
                views = _cpu_views(y_true, y_pred)
            except TypeError:  # no NumPy dtype (bfloat16)
                views = None
            if views is not None and multilabel_counts_fits(*views):
                return torch.from_numpy(multilabel_exact_numpy(*views, threshold))
        return super().multilabel_exact(y_true, y_pred, threshold=threshold)

    def pair_bincount_declared(self, a, b, /, *, n, first=0):
        # CPU eager: the chunked count, as pair_bincount (label maps flattened)
        if not a.is_cpu or _compiling():
            return None
        if a.ndim != 1:
            a, b = a.reshape(-1), b.reshape(-1)
        if first:  # shifted in int64: a narrow label below ``first`` would wrap
            if a.is_floating_point() or b.is_floating_point():
                return None
            a, b = a.to(torch.int64) - first, b.to(torch.int64) - first
        if _chunked(a, b, n + 1):
            return count_declared(a, b, n, TorchKernel)
        views = _int_views(a, b)
        flat = None if views is None else pair_bincount_declared_numpy(*views, n, threads=1)
        return None if flat is None else torch.from_numpy(flat)

    def pair_bincount_discover(self, a, b, /, *, max_size):
        # CPU eager: the chunked count, as pair_bincount_declared
        if _chunked(a, b, 1):
            return discover_and_count(a, b, min(max_size, MAX_DISCOVERED), TorchKernel)
        views = _int_views(a, b)
        found = None if views is None else pair_bincount_discover_numpy(*views, max_size,
                                                                        threads=1)
        return None if found is None else (torch.from_numpy(found[0]), found[1])

    def minmax(self, x, /):
        if x.dtype == torch.bool:
            x = x.to(torch.uint8)
        view = self.host_view(x) if 0 < x.numel() <= LANE_ROWS else None
        if view is not None:  # a training-loop batch: NumPy's reductions cost less
            return view.min(), view.max()
        return torch.aminmax(x)  # one pass

    def host_view(self, x, /):
        # eager CPU tensors: a zero-copy NumPy view (Tensor.numpy refuses the
        # rest: off the CPU, grad, no NumPy dtype)
        if _compiling() or not x.is_cpu:
            return None
        try:
            return x.numpy()
        except (TypeError, RuntimeError):
            return None

    def unique_counts(self, x, /):
        return torch.unique(x, sorted=True, return_counts=True)

    def gammaln(self, x, /):
        return torch.lgamma(x)

    def expansion_distances(self, xb, yt, sq_x, sq_y, /, *, squared=False, dtype=None):
        if _compiling() or xb.requires_grad or yt.requires_grad:
            return super().expansion_distances(xb, yt, sq_x, sq_y, squared=squared,
                                               dtype=dtype)
        # eager: one B x N temporary, added, clipped and rooted in place (the
        # out-of-place chain allocates four and is about 3x slower on CPU)
        d2 = torch.addmm(sq_x[:, None], xb, yt)
        d2.add_(sq_y[None, :])
        if dtype is not None and d2.dtype != dtype:
            d2 = d2.to(dtype)
        d2.clamp_min_(0.0)
        return d2 if squared else d2.sqrt_()

    def assemble_rows(self, blocks, /, *, symmetric=False):
        blocks = iter(blocks)
        first = next(blocks)
        b = first[2]
        if not symmetric or _compiling() or b.requires_grad:
            return super().assemble_rows(itertools.chain([first], blocks), symmetric=symmetric)
        n = b.shape[1]
        if self.host_view(b) is not None:
            # CPU: NumPy's matrix and copies (its transposed copies, and its fresh
            # pages, are about 3x faster than torch's here)
            from .numpy import Ops as NumpyOps

            return torch.from_numpy(NumpyOps.assemble_symmetric(
                (start, stop, self.host_view(b)) for start, stop, b in
                itertools.chain([first], blocks)))
        out = torch.empty((n, n), dtype=b.dtype, device=b.device)
        for start, stop, b in itertools.chain([first], blocks):
            out[start:stop, start:] = b
            out[stop:, start:stop] = b[:, stop - start:].T
        return out

    def scaled_exp(self, k, scale, /):
        if _compiling() or k.requires_grad:
            return super().scaled_exp(k, scale)
        return k.mul_(scale).exp_()

    def zero_diagonal(self, d, offset, /):
        if _compiling() or d.requires_grad:
            return super().zero_diagonal(d, offset)
        d.diagonal(offset).zero_()  # the caller's fresh block
        return d

    def expansion_surrogate(self, xb, yt, sq_y, /):
        # one fused matmul-add (addmm) instead of a product and a sum
        return torch.addmm(sq_y[None, :], xb, yt)

    def expansion_argmin(self, xb, yt, sq_y, /):
        views = [self.host_view(a) for a in (xb, yt, sq_y)]
        if (any(v is None for v in views) or xb.requires_grad or yt.requires_grad
                or not _ieee_float32_matmul()):
            return super().expansion_argmin(xb, yt, sq_y)
        # eager CPU: NumPy's float32 screen on views (a float32 GEMM instead of
        # a float64 one; float64 rows only where the screen cannot separate)
        found = screened_argmin(*views, plus_row=_host_addmm)
        if found is None:
            return super().expansion_argmin(xb, yt, sq_y)
        return torch.from_numpy(found[0]), torch.from_numpy(found[1])

    def row_argmin_min(self, d, /):
        if _compiling():
            return super().row_argmin_min(d)
        v = self.host_view(d)
        if v is not None and not d.requires_grad:
            # eager CPU: NumPy's vectorised argmin (torch.min(dim=1) is about 5x
            # slower on float32 rows), the first index on ties
            idx = np.argmin(v, axis=1)
            return (torch.from_numpy(idx),
                    torch.from_numpy(np.take_along_axis(v, idx[:, None], axis=1)[:, 0]))
        values, indices = torch.min(d, dim=1)  # one pass, the first index on ties
        return indices, values

    def unique_inverse(self, x, /):
        if (not _compiling() and x.device.type == "cpu" and x.dtype in _NUMPY_VIEWS
                and not x.dtype.is_floating_point):
            # CPU eager: NumPy's sort-free encoding of narrow integer ranges
            from .numpy import unique_inverse_dense

            dense = unique_inverse_dense(x.detach().numpy())
            if dense is not None:
                return tuple(torch.from_numpy(a) for a in dense)
        values, inverse = torch.unique(x, sorted=True, return_inverse=True)
        return values, inverse.reshape(-1)


def _ieee_float32_matmul() -> bool:
    """Whether float32 products are IEEE float32 (not TF32 / bfloat16: the float32
    screen's error bound assumes float32 rounding)."""
    mkldnn = getattr(getattr(torch.backends, "mkldnn", None), "matmul", None)
    return (torch.get_float32_matmul_precision() == "highest"
            and getattr(mkldnn, "fp32_precision", "none") in ("none", "ieee"))


def _host_addmm(a, b, c):
    """``a @ b + c[None, :]`` of NumPy arrays through torch's ``addmm`` (its BLAS,
    its intra-op threads; the row added in the GEMM's own pass)."""
    out = np.empty((a.shape[0], b.shape[1]), dtype=a.dtype)  # NumPy's allocator
    torch.addmm(torch.from_numpy(c)[None, :], torch.from_numpy(a), torch.from_numpy(b),
                out=torch.from_numpy(out))
    return out


_COUNT_CODES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)
#: label dtypes NumPy's label kernels take on views (integers and bool)
_LABELS = frozenset(_COUNT_CODES + (torch.bool,))
_ONES: dict = {}


def _index_count(x, length, weights):
    """``bincount`` as one fixed-size ``index_add`` (no host read of the codes).

    Unweighted counts add a cached 0-d int64 one, expanded (a view, no fill).
    """
    if x.dtype != torch.int64:
        x = x.to(torch.int64)
    if weights is None:
        key = x.device
        one = _ONES.get(key)
        if one is None or _compiling():
            one = torch.ones((), dtype=torch.int64, device=x.device)
            if not _compiling():
                _ONES[key] = one
        weights = one.expand(x.shape)
    out = torch.zeros((length,) + tuple(weights.shape[1:]), dtype=weights.dtype,
                      device=x.device)
    if _compiling():
        return out.index_add(0, x, weights)
    return out.index_add_(0, x, weights)


class TorchKernel:
    """The pair count's array calls on eager CPU int64 tensors.

    torch's own ops, not NumPy's kernel on views: each runs on torch's OpenMP
    threads (``torch.set_num_threads``), ``torch.add(y, x, alpha=size)`` makes
    a chunk's codes in one pass, and ``torch.bincount`` is ~25% faster than
    ``np.bincount``.  (NumPy's kernel on Python threads loses its second core
    to torch's OpenMP workers, which spin for a while after every torch op.)
    Chunks are larger than NumPy's: each op pays a fixed dispatch cost.
    """

    chunk = 1 << 18

    @staticmethod
    def zeros(n):
        return torch.zeros(n, dtype=torch.int64)

    @staticmethod
    def empty(n, dtype):
        return torch.empty(n, dtype=dtype)

    @staticmethod
    def code_dtype(dtype, cells):
        # codes in int32 (the chunked count's codes are under 2**14): torch's
        # int32 multiply-add is vectorised, its int64 one is not, and int32
        # codes bincount faster
        return torch.int32

    @staticmethod
    def codes(x, y, size, out):
        return torch.add(y, x, alpha=size, out=out)

    @staticmethod
    def bincount(codes, minlength):
        return torch.bincount(codes, minlength=minlength)

    @staticmethod
    def unsigned_max(x):
        lo, hi = torch.aminmax(x)
        return 1 << 64 if int(lo) < 0 else int(hi)

    @staticmethod
    def other(x, n, out):
        return torch.where((x >= 0) & (x < n), x, x.new_tensor(n), out=out)


def _lane_views(arrays):
    """Zero-copy NumPy views of CPU tensors for :meth:`Ops.lane` (None entries
    stay None), or None where one is off the CPU, needs grad or has no NumPy
    dtype (``Tensor.numpy`` refuses each; a device tensor is turned away first,
    by ``is_cpu``: the error costs ~9 us, a GPU call's hot path)."""
    if not arrays[0].is_cpu:
        return None
    try:
        return [None if t is None else t.numpy() for t in arrays]
    except (TypeError, RuntimeError):
        return None


def _from_numpy(out):
    if type(out) is np.ndarray:  # one result, an array (a 0-d one too)
        return torch.from_numpy(out)
    if isinstance(out, tuple):
        return tuple(None if v is None else torch.from_numpy(np.asarray(v)) for v in out)
    return torch.from_numpy(np.asarray(out))


# the host views (:mod:`metrix.backends.host_views`): never while torch.compile
# traces; ``is_cpu`` turns device tensors away first (Tensor.numpy's error
# costs ~9 us, a GPU call's hot path); Tensor.numpy refuses the rest (grad,
# no NumPy dtype).  C calls but the compile test: the host entry's checks
# run inline in its one frame
_host.register(torch.Tensor, _compiling, operator.attrgetter("is_cpu"), torch.Tensor.numpy,
               torch.from_numpy, _from_numpy)


def _chunked(a, b, size) -> bool:
    """Whether eager CPU int64 labels take the chunked count of ``TorchKernel``."""
    return (a.dtype == torch.int64 and b.dtype == torch.int64 and a.is_cpu and b.is_cpu
            and a.shape == b.shape and not _compiling() and not a.requires_grad
            and fits_chunked_count(a, size))


def _bits(x):
    """The uint16 bit patterns of a CPU bfloat16 tensor (a zero-copy view)."""
    return x.detach().view(torch.int16).numpy().view(np.uint16)


def _bfloat16_split(score, pos):
    """:meth:`Ops.split_sort` of many CPU bfloat16 scores by counting their bit
    patterns (bfloat16 tensors back), or None (few scores, a NaN)."""
    from ._half_ranks import HALF_MIN_ROWS, counting_split_sort

    if score.shape[0] < HALF_MIN_ROWS or pos.dtype not in _LABELS:
        return None
    pos = pos.detach().numpy()
    split = counting_split_sort(_bits(score), pos if pos.dtype == np.bool_ else pos != 0,
                                "bfloat16")
    if split is None:
        return None
    return tuple(torch.from_numpy(s.view(np.int16)).view(torch.bfloat16) for s in split)


def _int_views(*tensors):
    """Zero-copy NumPy views of eager CPU integer tensors (labels), or None."""
    if _compiling() or not all(t.device.type == "cpu" and t.dtype in _LABELS
                               for t in tensors):
        return None
    return _cpu_views(*tensors)


def _histogram_views(score, target):
    """Zero-copy NumPy views of a 1-D CPU ``(score, target)`` pair that NumPy's
    histogram kernel takes (eager only), or None."""
    if (isinstance(score, torch.Tensor) and isinstance(target, torch.Tensor)
            and score.dtype in _HISTOGRAM_SCORES and target.dtype in _HISTOGRAM_TARGETS
            and score.is_cpu and target.is_cpu and score.ndim == 1
            and score.shape == target.shape and not _compiling()):
        return _cpu_views(score, target)
    return None


def _cpu_rows_writer(views, count_view):
    """``write(values, weight, start)`` of ``rows_accumulator`` on CPU: NumPy views of
    the rows written into the NumPy views of the buffers (False: not taken).  Per
    batch this is the whole cost of an update at training-loop sizes: no list,
    no dict, no call that is not needed."""
    rows = rows_writer(views, count_view)
    # the training-loop batch: CPU tensors of NumPy dtypes, each viewed as it is
    # checked (TypeError for anything else: no tensor, not on the CPU, no NumPy dtype)
    fast = rows_writer(views, count_view, torch.Tensor.numpy)

    def write(values, weight, start):
        if _compiling():
            return False
        try:
            return fast(values, weight, start)
        except (TypeError, RuntimeError):  # another kind, needs grad, functorch
            return write_checked(values, weight, start)

    def write_checked(values, weight, start):
        arrays = {}
        for name, v in values.items():
            if not (isinstance(v, torch.Tensor) and v.is_cpu and v.dtype in _ROW_VIEWS):
                return False
            arrays[name] = v
        if weight is not None and not (isinstance(weight, torch.Tensor) and weight.is_cpu
                                       and weight.dtype in _ROW_VIEWS):
            return False
        if _compiling():
            return False
        try:  # the common case first (as _cpu_views)
            for name, v in arrays.items():
                arrays[name] = v.numpy()
            if weight is not None:
                weight = weight.numpy()
        except RuntimeError:  # needs grad, or a functorch wrapper
            try:
                for name, v in values.items():
                    arrays[name] = v.detach().numpy()
                if weight is not None:
                    weight = weight.detach().numpy()
            except RuntimeError:
                return False
        return rows(arrays, weight, start)

    return write


def _eager_cpu_views(*arrays):
    """:func:`_cpu_views` of a batch's torch CPU tensors of NumPy dtypes, outside a
    compiled step; None for anything else (the accumulators' batch check)."""
    if not all(isinstance(a, torch.Tensor) and a.is_cpu and a.dtype in _NUMPY_VIEWS
               for a in arrays) or _compiling():
        return None
    return _cpu_views(*arrays)


def _eager_view(tensor):
    """The zero-copy NumPy view of one eager CPU tensor (detached where it needs
    grad), or None (another device or type, a dtype NumPy lacks, a functorch
    wrapper, a compiled step): the aggregators' per-batch check, its common case
    (a plain tensor) first, as each check costs at training-loop sizes."""
    if type(tensor) is torch.Tensor or isinstance(tensor, torch.Tensor):
        if not tensor.is_cpu or _compiling():
            return None
        try:
            return tensor.numpy()
        except (RuntimeError, TypeError):  # needs grad, a functorch wrapper; bfloat16
            pass
        try:
            return tensor.detach().numpy()
        except (RuntimeError, TypeError):
            return None
    return None


#: the NLL sum's token count is a float of the logits' dtype: exact up to 2**24 in float32
_NLL_EXACT_COUNT = {torch.float32: 2 ** 24, torch.float64: 2 ** 53}


def _nll_adder(sw_view, nll_view, ignore_index):
    """Perplexity's in-place ``add(y_true, logits)`` (``nll_accumulator``): one
    log-softmax and one ``nll_loss_forward``, whose ``(sum, total_weight)`` are the
    batch's summed NLL and its number of counted tokens, and whose own bounds check
    (an ``IndexError`` for a counted target outside ``0..V-1``) is the target check:
    no pass over the ids.  Without ``ignore_index`` the kernel skips a sentinel
    (-100), so a batch holding it counts fewer tokens than it has: NaN, as any
    other target that is no token id."""
    nll_forward = torch.ops.aten.nll_loss_forward.default  # -> (loss, total_weight)
    skip = -100 if ignore_index is None else ignore_index
    exact, tensor, int64 = _NLL_EXACT_COUNT, torch.Tensor, torch.int64

    def add(y_true, logits):
        if not (isinstance(y_true, tensor) and isinstance(logits, tensor)
                and y_true.dtype == int64 and logits.dtype in exact
                and y_true.is_cpu and logits.is_cpu and logits.ndim == 3
                and y_true.shape == logits.shape[:2]) or _compiling():
            return False
        n, v = y_true.numel(), logits.shape[2]
        if n > exact[logits.dtype] or v == 0:  # (no vocabulary: the update raises)
            return False
        if logits.requires_grad:  # (a value, no graph: cheaper than no_grad)
            logits = logits.detach()
        try:
            total, counted = nll_forward(logits.reshape(n, v).log_softmax(-1),
                                         y_true.ravel(), None, 2, skip)  # 2: a sum
            total, counted = float(total), float(counted)
        except IndexError:  # a counted target that is no token id: NaN, as the update
            total, counted = math.nan, float(torch.count_nonzero(y_true != skip))
        except RuntimeError:  # no value to read (a functorch wrapper): the update
            return False
        if ignore_index is None and counted != n:  # the sentinel: no token id either
            total, counted = math.nan, n
        nll_view[()] += total  # (0-d: an out= ufunc costs more than the sum)
        sw_view[()] += counted
        return True

    return add


def _cpu_views(*tensors):
    """Zero-copy NumPy views of CPU tensors (detached where they need grad), or
    None where one has none (functorch wrappers)."""
    try:  # the common case first: per-batch overhead counts at training-loop sizes
        return tuple(map(torch.Tensor.numpy, tensors))
    except RuntimeError:  # needs grad, or a functorch wrapper
        pass
    try:
        return tuple(t.detach().numpy() for t in tensors)
    except RuntimeError:
        return None
