"""Conformance rows: the clustering metrics, supervised and unsupervised.

Supervised metrics compare two labelings through one contingency table; the
rows cover permuted and identical labelings, one cluster, all singletons,
cluster ids that are not ``0..K-1`` (negative, sparse, strings), many
clusters, one and two samples.  Unsupervised rows score features ``X`` against
labels: every common ``metric=`` string, duplicates, singletons and the
subsampled silhouette (``sample_size`` with ``random_state``, the same draw
as scikit-learn's).
"""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20261205)

N = 90
A = rng.integers(0, 4, N)
B = np.where(rng.random(N) < 0.6, A, rng.integers(0, 5, N))
PERMUTED = np.array([2, 0, 3, 1])[A]              # the same partition, renamed
ONE = np.zeros(N, dtype=np.int64)
SINGLETONS = np.arange(N)
SPARSE_IDS = A * 1000 - 7                         # negative and far-apart ids
STR = np.array(["ant", "bee", "cat", "dog", "eel"])
MANY_A = rng.integers(0, 400, 3000)
MANY_B = np.where(rng.random(3000) < 0.5, MANY_A, rng.integers(0, 400, 3000))

PAIRS = {
    "random": (A, B),
    "identical": (A, A),
    "permuted": (A, PERMUTED),
    "one-cluster-pred": (A, ONE),
    "one-cluster-both": (ONE, ONE),
    "singletons": (A, SINGLETONS),
    "sparse-ids": (SPARSE_IDS, B),
    "strings": (STR[A], STR[B]),
    "many-clusters": (MANY_A, MANY_B),
    "one-sample": (np.array([3]), np.array([5])),
    "two-samples": (np.array([0, 0]), np.array([0, 1])),
}

SUPERVISED = ("adjusted_rand_score", "rand_score", "mutual_info_score",
              "normalized_mutual_info_score", "adjusted_mutual_info_score",
              "homogeneity_score", "completeness_score", "v_measure_score",
              "fowlkes_mallows_score", "homogeneity_completeness_v_measure",
              "pair_confusion_matrix")

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


#: float32 cannot hold the expected mutual information of hundreds of clusters (a sum
#: of many terms that nearly cancel) to the float32 tolerance: those combos run the
#: "-f32" rows below, with an absolute tolerance of 3e-3 (measured: 1.5e-3 at 400
#: clusters, 3,000 samples: log-gamma of n ~ 2e4 in float32 is off by ~1e-3)
F32_ONLY = {"jax-cpu-f32": "float32 only: see the -f32 row",
            "strict-nofloat64-f32": "float32 only: see the -f32 row",
            "jax-gpu-f32": "float32 only: see the -f32 row",
            "torch-mps-f32": "float32 only: see the -f32 row"}

for name in SUPERVISED:
    for pid, pair in PAIRS.items():
        skip = F32_ONLY if (name == "adjusted_mutual_info_score"
                            and pid in ("many-clusters", "singletons")) else {}
        add(name, getattr(skm, name), pair, id=pid, skip=skip)
for pid in ("many-clusters", "singletons"):
    add("adjusted_mutual_info_score", skm.adjusted_mutual_info_score, PAIRS[pid],
        id=f"{pid}-f32", atol=3e-3)

for method in ("min", "geometric", "arithmetic", "max"):
    for name in ("normalized_mutual_info_score", "adjusted_mutual_info_score"):
        add(name, getattr(skm, name), (A, B), {"average_method": method}, id=f"avg-{method}")
for beta in (0.5, 2.0):
    add("v_measure_score", skm.v_measure_score, (A, B), {"beta": beta}, id=f"beta-{beta}")
add("contingency_matrix", skm.cluster.contingency_matrix, (A, B), id="dense")
add("contingency_matrix", skm.cluster.contingency_matrix, (SPARSE_IDS, B), id="sparse-ids")
add("contingency_matrix", skm.cluster.contingency_matrix, (A, B), {"eps": 0.5}, id="eps")
add("adjusted_rand_score", skm.adjusted_rand_score, (A, B[:-1]), id="length-mismatch")
add("mutual_info_score", skm.mutual_info_score, (A[:, None], B), id="2d-error")

# -- unsupervised --------------------------------------------------------------
X = rng.normal(size=(N, 5)) + A[:, None]          # clusters along the diagonal
X_DUP = np.repeat(X[:30], 3, axis=0)              # every point three times
LAB_DUP = np.repeat(A[:30], 3)
LAB_SINGLE = np.where(np.arange(N) < 3, 10 + np.arange(N), A)  # three singletons

# scikit-learn computes the SciPy metrics (and Calinski-Harabasz, Davies-Bouldin) in
# float64 whatever X's dtype, and so does metrix: no float32 result to check there
for metric in ("euclidean", "sqeuclidean", "manhattan", "cosine", "chebyshev"):
    add("silhouette_score", skm.silhouette_score, (X, A), {"metric": metric},
        id=f"metric-{metric}", check_dtype=metric in ("euclidean", "cosine"))
add("silhouette_samples", skm.silhouette_samples, (X, A), id="samples")
add("silhouette_samples", skm.silhouette_samples, (X, LAB_SINGLE), id="singletons")
# distances of identical points by the expansion |x|^2 + |y|^2 - 2 x.y: rounding
# noise about 1e-9 relative, in another order than scikit-learn's
add("silhouette_score", skm.silhouette_score, (X_DUP, LAB_DUP), id="duplicates", rtol=1e-8)
add("silhouette_score", skm.silhouette_score, (X, STR[A]), id="strings")
add("silhouette_score", skm.silhouette_score, (X, A), {"sample_size": 40, "random_state": 3},
    id="sample-size")
add("silhouette_score", skm.silhouette_score, (X, ONE), id="one-cluster-error")
for name in ("calinski_harabasz_score", "davies_bouldin_score"):
    ref = getattr(skm, name)
    for cid, args in (("clusters", (X, A)), ("sparse-ids", (X, SPARSE_IDS)),
                      ("duplicates", (X_DUP, LAB_DUP)), ("singletons", (X, LAB_SINGLE)),
                      ("one-cluster-error", (X, ONE))):
        add(name, ref, args, id=cid, check_dtype=False, rtol=1e-8)
