"""Sharding an evaluation set across ranks without padding: each sample counted once.

``torch.utils.data.DistributedSampler`` gives every rank the same number of
samples by repeating some (PyTorch #25162), so a metric synced over the ranks
counts them twice.  metrix's metrics need no equal shards: a rank's state is a
sum whatever its data (a rank with no batch syncs zeros), so the shards may
differ by one sample.  Lightning's ``UnrepeatedDistributedSampler`` does the
same for prediction, inside Lightning.
"""

from __future__ import annotations

import torch
from torch.utils.data import DistributedSampler


class UnpaddedDistributedSampler(DistributedSampler):
    """``DistributedSampler`` for evaluation: rank ``r`` of ``R`` gets samples
    ``r, r + R, r + 2R, ...`` of the (optionally shuffled) order, never a repeat,
    so the shards' sizes differ by at most one and together hold each sample once.

    Same arguments as ``torch.utils.data.DistributedSampler`` (``num_replicas`` and
    ``rank`` default to the process group's; ``shuffle=False`` by default here, an
    evaluation's order does not matter; ``set_epoch`` reshuffles with
    ``shuffle=True``), except ``drop_last``, which has no use without padding.

    Only sync at the end (``compute()``, ``log_dict`` of computed values at the
    epoch's end): the ranks may run different numbers of batches, so a
    collective per step (``self.log(..., sync_dist=True)`` in a step) would
    wait for a batch that one rank never has.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=False, seed=0):
        super().__init__(dataset, num_replicas=num_replicas, rank=rank, shuffle=shuffle,
                         seed=seed, drop_last=False)
        self.total_size = len(self.dataset)
        self.num_samples = len(range(self.rank, self.total_size, self.num_replicas))

    def __iter__(self):
        return iter(self._order()[self.rank:self.total_size:self.num_replicas])

    def _order(self):
        """Every index, in the epoch's shuffled order (``shuffle=True``) or in order."""
        if not self.shuffle:
            return list(range(self.total_size))
        g = torch.Generator()  # the seed and epoch DistributedSampler's shuffle uses
        g.manual_seed(self.seed + self.epoch)
        return torch.randperm(self.total_size, generator=g).tolist()
