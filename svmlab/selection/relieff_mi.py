"""ReliefF-MI: ReliefF feature weights for multi-instance data (Zafra, Pechenizkiy & Ventura,
"HyDR-MI", Sec. 3.2 and Listing 1; docs/decisions/hydrmi.md).

A reference bag ``R`` is compared with its ``k`` nearest bags of its own class (hits) and of the
other class (misses); a feature gains weight where misses differ from ``R`` and loses it where
hits do. Bags are compared with a Hausdorff bag distance (Sec. 3.2.1):

* ``"max"``: the classical Hausdorff distance ``max(h(A, B), h(B, A))`` with
  ``h(A, B) = max_a min_b d(a, b)``;
* ``"min"``: the distance of the closest pair of instances;
* ``"avg"``: the mean over both bags of each instance's distance to the other bag;
* ``"adapted"``: ``min`` between two positive bags, ``avg`` between two negative bags and
  ``max`` between bags of different classes.

``d`` is the Manhattan distance on range-normalised features (the sum of ReliefF's per-feature
``diff``), and the per-feature difference of two bags (``diff_bag``) is taken on the instance
pairs that realise their distance: one pair for ``min`` and ``max``, every instance and its
nearest instance in the other bag (weight ``1 / (|A| + |B|)``) for ``avg``. Summed over the
features, ``diff_bag`` is then the bag distance itself.

``diff_pairs`` takes every ``diff_bag`` on one simple distance's witness pairs instead,
whatever distance ranks the neighbours: an alternative reading of the adapted distance.
``max_witness="reference"`` takes the maximal distance's ``diff_bag`` on the reference bag's
directed pair, ``h(R, B)``'s, even where ``h(B, R)`` is the larger: an alternative reading of
the maximal distance (both in docs/decisions/hydrmi.md; measured in
svmlab/reproduce/deviations/hydrmi_adapted_diff.md).

Everything is computed from one pass over the instance distances (:func:`bag_distance_tables`):
for every instance ``a`` and bag ``B``, the distance to and the row of ``a``'s nearest
instance in ``B``. Bag distances and witness pairs are reductions of those two ``n_instances x
n_bags`` tables, so no ``n_instances x n_instances`` matrix is ever stored.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from hashlib import blake2b

import numba
import numpy as np
from sklearn.utils import check_random_state

from svmlab.bags import check_bag_labels, check_bags

__all__ = [
    "BAG_DISTANCES",
    "BagDistanceTables",
    "bag_distance_matrix",
    "bag_distance_tables",
    "ReliefFTerms",
    "range_normalise",
    "relieff_mi_terms",
    "relieff_mi_weights",
]

BAG_DISTANCES = ("min", "max", "avg", "adapted")
#: Whose witness pairs ``diff_bag`` is taken on: the bag distance's own (the paper), or those of
#: one simple distance for every pair of bags.
DIFF_PAIRS = ("distance", "min", "max", "avg")
#: The maximal distance's witness pair: that of the larger directed distance (the distance's
#: own), or always the reference bag's, ``h(R, B)``'s.
MAX_WITNESSES = ("larger", "reference")
INSTANCE_METRICS = ("cityblock", "euclidean")
SAMPLINGS = ("all", "random")


def range_normalise(X, lo=None, span=None):
    """``(X - min) / (max - min)`` per feature, a constant feature mapped to 0.

    Parameters
    ----------
    X : ndarray of shape (n_instances, n_features)
    lo, span : ndarray of shape (n_features,), optional
        The minimum and range to use (default: those of ``X``).

    Returns
    -------
    Z : ndarray of shape (n_instances, n_features)
    lo, span : ndarray of shape (n_features,)
        ``span == 0`` marks a constant feature (its column of ``Z`` is 0, so every
        difference on it is 0 and its ReliefF-MI weight is exactly 0).
    """
    if lo is None:
        lo, span = X.min(axis=0), np.ptp(X, axis=0)
    scale = np.where(span > 0, span, np.inf)
    return (X - lo) / scale, lo, span


@numba.njit(cache=True, fastmath=True)
def _nearest_l1(Z, starts, sizes):  # pragma: no cover - compiled
    """For every instance ``a`` and bag ``B``: the L1 distance to and the row of the nearest
    instance of ``B`` (the lowest row on ties). The feature loop has no early exit and no
    branch, so it vectorises (4x faster on musk2 than stopping once a partial sum exceeds the
    best so far)."""
    n_inst, d = Z.shape
    n_bags = starts.shape[0]
    M = np.empty((n_inst, n_bags))
    ARG = np.empty((n_inst, n_bags), dtype=np.int64)
    for a in range(n_inst):
        za = Z[a]
        for B in range(n_bags):
            best, arg = np.inf, -1
            for b in range(starts[B], starts[B] + sizes[B]):
                zb = Z[b]
                s = 0.0
                for f in range(d):
                    s += abs(za[f] - zb[f])
                if s < best:
                    best, arg = s, b
            M[a, B] = best
            ARG[a, B] = arg
    return M, ARG


@numba.njit(cache=True, fastmath=True)
def _nearest_l2(Z, starts, sizes):  # pragma: no cover - compiled
    """:func:`_nearest_l1` for the Euclidean distance."""
    n_inst, d = Z.shape
    n_bags = starts.shape[0]
    M = np.empty((n_inst, n_bags))
    ARG = np.empty((n_inst, n_bags), dtype=np.int64)
    for a in range(n_inst):
        za = Z[a]
        for B in range(n_bags):
            best, arg = np.inf, -1
            for b in range(starts[B], starts[B] + sizes[B]):
                zb = Z[b]
                s = 0.0
                for f in range(d):
                    t = za[f] - zb[f]
                    s += t * t
                if s < best:
                    best, arg = s, b
            M[a, B] = np.sqrt(best)
            ARG[a, B] = arg
    return M, ARG


@numba.njit(cache=True)
def _weighted_abs_diff(Z, p, q, w):  # pragma: no cover - compiled
    """``sum_i w_i |Z[p_i] - Z[q_i]|``, a vector over the features (no gathered copies)."""
    out = np.zeros(Z.shape[1])
    for i in range(p.shape[0]):
        zp, zq, wi = Z[p[i]], Z[q[i]], w[i]
        for f in range(Z.shape[1]):
            out[f] += wi * abs(zp[f] - zq[f])
    return out


@dataclass(frozen=True)
class BagDistanceTables:
    """Instance-to-bag nearest-neighbour tables and the bag distances reduced from them.

    Attributes
    ----------
    nearest_dist, nearest_row : ndarray of shape (n_instances, n_bags)
        ``d(a, nn_B(a))`` and the row of ``nn_B(a)``.
    directed, h_min, h_max, h_avg : ndarray of shape (n_bags, n_bags)
        ``h(A, B) = max_a min_b d``, and the minimal, maximal and average Hausdorff distances.
    row_of_max, row_of_min : ndarray of shape (n_bags, n_bags)
        The row of ``A`` farthest from / nearest to bag ``B`` (lowest row on ties).
    starts, sizes : ndarray of shape (n_bags,)
    """

    nearest_dist: np.ndarray
    nearest_row: np.ndarray
    directed: np.ndarray
    h_min: np.ndarray
    h_max: np.ndarray
    h_avg: np.ndarray
    row_of_max: np.ndarray
    row_of_min: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray


def bag_distance_tables(Z, starts, sizes, metric: str = "cityblock") -> BagDistanceTables:
    """Compute :class:`BagDistanceTables` for the stacked instances ``Z``.

    Parameters
    ----------
    Z : ndarray of shape (n_instances, n_features)
        Instances stacked bag after bag (normalised: :func:`range_normalise`).
    starts, sizes : ndarray of shape (n_bags,)
        First row and number of instances of every bag.
    metric : {"cityblock", "euclidean"}, default="cityblock"
        The instance distance.
    """
    if metric not in INSTANCE_METRICS:
        raise ValueError(f"instance_metric must be one of {INSTANCE_METRICS}, got {metric!r}")
    starts = np.asarray(starts, dtype=np.int64)
    sizes = np.asarray(sizes, dtype=np.int64)
    nearest = _nearest_l2 if metric == "euclidean" else _nearest_l1
    M, ARG = nearest(np.ascontiguousarray(Z, dtype=np.float64), starts, sizes)
    directed = np.maximum.reduceat(M, starts, axis=0)
    h_min = np.minimum.reduceat(M, starts, axis=0)
    total = np.add.reduceat(M, starts, axis=0)
    n = len(starts)
    row_of_max = np.empty((n, n), dtype=np.int64)
    row_of_min = np.empty((n, n), dtype=np.int64)
    for A in range(n):
        block = M[starts[A] : starts[A] + sizes[A]]
        row_of_max[A] = starts[A] + block.argmax(axis=0)
        row_of_min[A] = starts[A] + block.argmin(axis=0)
    return BagDistanceTables(
        nearest_dist=M,
        nearest_row=ARG,
        directed=directed,
        h_min=h_min,
        h_max=np.maximum(directed, directed.T),
        h_avg=(total + total.T) / (sizes[:, None] + sizes[None, :]),
        row_of_max=row_of_max,
        row_of_min=row_of_min,
        starts=starts,
        sizes=sizes,
    )


def _pair_variants(distance: str, positive: np.ndarray) -> np.ndarray:
    """The simple distance (0 min, 1 max, 2 avg) used between every pair of bags."""
    n = len(positive)
    if distance != "adapted":
        return np.full((n, n), BAG_DISTANCES.index(distance), dtype=np.int8)
    both_pos = positive[:, None] & positive[None, :]
    both_neg = ~positive[:, None] & ~positive[None, :]
    return np.where(both_pos, 0, np.where(both_neg, 2, 1)).astype(np.int8)


def bag_distance_matrix(tables: BagDistanceTables, distance: str, positive=None) -> np.ndarray:
    """The ``n_bags x n_bags`` bag distance ``distance`` (one of :data:`BAG_DISTANCES`);
    ``"adapted"`` needs ``positive`` (bool per bag)."""
    if distance not in BAG_DISTANCES:
        raise ValueError(f"distance must be one of {BAG_DISTANCES}, got {distance!r}")
    if distance == "adapted" and positive is None:
        raise ValueError("the adapted distance needs the bags' classes (positive=...)")
    simple = (tables.h_min, tables.h_max, tables.h_avg)
    if distance != "adapted":
        return simple[BAG_DISTANCES.index(distance)]
    variant = _pair_variants(distance, np.asarray(positive, dtype=bool))
    return np.choose(variant, simple)


def _witness_pairs(
    t: BagDistanceTables, i: int, js: np.ndarray, variant: int, max_witness: str = "larger"
):
    """Rows ``p``, ``q`` and weights ``w`` of the instance pairs on which ``diff_bag(R_i, B_j)``
    is taken, for all ``j`` in ``js`` at once (``variant`` 0 min, 1 max, 2 avg)."""
    if variant == 0:  # the closest pair
        p = t.row_of_min[i, js]
        return p, t.nearest_row[p, js], np.ones(len(js))
    if variant == 1:  # the pair of the larger directed distance (R -> H on ties), or R's own
        forward = (t.directed[i, js] >= t.directed[js, i]) | (max_witness == "reference")
        p = np.empty(len(js), dtype=np.int64)
        q = np.empty(len(js), dtype=np.int64)
        p[forward] = t.row_of_max[i, js[forward]]
        q[forward] = t.nearest_row[p[forward], js[forward]]
        back = js[~forward]
        q[~forward] = t.row_of_max[back, i]
        p[~forward] = t.nearest_row[q[~forward], i]
        return p, q, np.ones(len(js))
    # avg: every instance with its nearest instance in the other bag, weight 1 / (|R| + |H|)
    rows_i = np.arange(t.starts[i], t.starts[i] + t.sizes[i])
    denom = t.sizes[i] + t.sizes[js]
    p1 = np.repeat(rows_i[None, :], len(js), axis=0).ravel()
    q1 = t.nearest_row[rows_i][:, js].T.ravel()
    w1 = np.repeat(1.0 / denom, t.sizes[i])
    q2 = np.concatenate([np.arange(t.starts[j], t.starts[j] + t.sizes[j]) for j in js])
    p2 = t.nearest_row[q2, i]
    w2 = np.repeat(1.0 / denom, t.sizes[js])
    return np.concatenate([p1, p2]), np.concatenate([q1, q2]), np.concatenate([w1, w2])


def _diff_sum(Z, t, i, js, variants, max_witness: str = "larger") -> np.ndarray:
    """``sum_j diff_bag(:, R_i, B_j)`` over ``js``, a vector over the features."""
    out = np.zeros(Z.shape[1])
    for v in np.unique(variants):
        sel = js[variants == v]
        p, q, w = _witness_pairs(t, i, sel, int(v), max_witness)
        out += _weighted_abs_diff(Z, p, q, w)
    return out


def _neighbours(dist_row, i, labels, label, k):
    """The first ``k`` bags of class ``label`` by (distance, index), bag ``i`` excluded."""
    order = np.lexsort((np.arange(len(dist_row)), dist_row))
    order = order[(order != i) & (labels[order] == label)]
    return order[:k]


_CACHE: dict = {}
_CACHE_SIZE = 4
_CACHE_LOCK = threading.Lock()  # threads of one worker (dask) share the cache


def _cached_tables(Z, starts, sizes, metric) -> BagDistanceTables:
    """:func:`bag_distance_tables`, remembered for the last few inputs: a grid over distances
    and subset sizes on one training fold computes the instance distances once."""
    h = blake2b(digest_size=16)
    for a in (Z, starts, sizes):
        h.update(np.ascontiguousarray(a).tobytes())
    key = (h.hexdigest(), Z.shape, metric)
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
    tables = bag_distance_tables(Z, starts, sizes, metric)
    with _CACHE_LOCK:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = tables
    return tables


@dataclass(frozen=True)
class ReliefFTerms:
    """The two sums a ReliefF-MI weight is the difference of.

    Attributes
    ----------
    hits, misses : ndarray of shape (n_features,)
        ``sum_R mean_H diff_bag(:, R, H) / m`` over the nearest hits, and over the nearest
        misses.
    weights : ndarray of shape (n_features,)
        ``misses - hits`` (summed reference by reference, as Listing 1 updates ``W``), exactly
        0 for a constant feature.
    span : ndarray of shape (n_features,)
        The features' ranges over the training instances (0 marks a constant feature).
    """

    hits: np.ndarray
    misses: np.ndarray
    weights: np.ndarray
    span: np.ndarray


def relieff_mi_weights(
    bags,
    y,
    *,
    distance: str = "adapted",
    k: int = 80,
    m: int = 180,
    instance_metric: str = "cityblock",
    sampling: str = "all",
    diff_pairs: str = "distance",
    max_witness: str = "larger",
    random_state=None,
    return_span: bool = False,
):
    """ReliefF-MI feature weights (HyDR-MI paper, Listing 1).

    Parameters
    ----------
    bags : sequence of ndarray of shape (n_instances_I, n_features)
    y : array-like of shape (n_bags,)
        Two classes; the larger label is the positive class of the adapted distance.
    distance, k, m, instance_metric, sampling, diff_pairs, max_witness, random_state
        As in :func:`relieff_mi_terms`.
    return_span : bool, default=False
        Also return the features' ranges (0 marks a constant feature).

    Returns
    -------
    weights : ndarray of shape (n_features,)
        Exactly 0 for a feature constant over the training instances.
    span : ndarray of shape (n_features,)
        Only with ``return_span``.
    """
    terms = relieff_mi_terms(
        bags,
        y,
        distance=distance,
        k=k,
        m=m,
        instance_metric=instance_metric,
        sampling=sampling,
        diff_pairs=diff_pairs,
        max_witness=max_witness,
        random_state=random_state,
    )
    return (terms.weights, terms.span) if return_span else terms.weights


def relieff_mi_terms(
    bags,
    y,
    *,
    distance: str = "adapted",
    k: int = 80,
    m: int = 180,
    instance_metric: str = "cityblock",
    sampling: str = "all",
    diff_pairs: str = "distance",
    max_witness: str = "larger",
    random_state=None,
) -> ReliefFTerms:
    """The hit and miss sums of ReliefF-MI (HyDR-MI paper, Listing 1, line 11).

    Parameters
    ----------
    bags : sequence of ndarray of shape (n_instances_I, n_features)
    y : array-like of shape (n_bags,)
        Two classes; the larger label is the positive class of the adapted distance.
    distance : {"adapted", "min", "max", "avg"}, default="adapted"
        The bag distance (module docstring); it ranks the neighbours and, with
        ``diff_pairs="distance"``, picks the witness pairs of ``diff_bag``.
    k : int, default=80
        Nearest hits and misses per reference bag, capped at the bags available; the sums are
        divided by the number actually used.
    m : int, default=180
        The normaliser of the update (the paper's "number of times the process is repeated");
        with ``sampling="all"`` it only scales the weights.
    instance_metric : {"cityblock", "euclidean"}, default="cityblock"
        Distance of two range-normalised instances (the paper: Manhattan).
    sampling : {"all", "random"}, default="all"
        ``"all"``: every bag is the reference once (the paper's loop over the examples);
        ``"random"``: ``m`` reference bags drawn with replacement (Kononenko's ReliefF).
    diff_pairs : {"distance", "min", "max", "avg"}, default="distance"
        The witness pairs of ``diff_bag``: those of ``distance`` (the paper; for
        ``"adapted"`` chosen by the two bags' classes), or those of one simple distance for
        every pair.
    max_witness : {"larger", "reference"}, default="larger"
        The instance pair of a ``diff_bag`` taken on the maximal distance's pairs: the one
        that realises the larger directed distance, ``h(R, B)`` or ``h(B, R)`` (the classical
        Hausdorff distance's own pair), or always ``h(R, B)``'s: the reference bag's instance
        farthest from ``B`` and its nearest instance in ``B``.
    random_state : int, RandomState instance or None
        Only for ``sampling="random"``.

    Returns
    -------
    ReliefFTerms
    """
    X, starts, sizes = check_bags(bags)
    _, y_idx = check_bag_labels(y, len(sizes), "ReliefF-MI")
    _check_params(distance, k, m, instance_metric, sampling, diff_pairs, max_witness)
    Z, _, span = range_normalise(X)
    t = _cached_tables(Z, starts, sizes, instance_metric)
    positive = y_idx == 1
    H = bag_distance_matrix(t, distance, positive)
    witness = distance if diff_pairs == "distance" else diff_pairs
    variants = _pair_variants(witness, positive)
    n = len(sizes)
    refs = (
        np.arange(n)
        if sampling == "all"
        else check_random_state(random_state).randint(0, n, size=m)
    )
    W, hit_sum, miss_sum = (np.zeros(Z.shape[1]) for _ in range(3))
    for i in refs:
        # two classes: the prior factor P(C) / (1 - P(class(R))) of the misses is exactly 1
        for label, sign, total in ((y_idx[i], -1.0, hit_sum), (1 - y_idx[i], 1.0, miss_sum)):
            js = _neighbours(H[i], i, y_idx, label, k)  # the nearest hits, then misses
            if len(js):
                term = _diff_sum(Z, t, i, js, variants[i, js], max_witness) / (len(js) * m)
                W += sign * term
                total += term
    W[span == 0] = 0.0
    return ReliefFTerms(hits=hit_sum, misses=miss_sum, weights=W, span=span)


def _check_params(distance, k, m, instance_metric, sampling, diff_pairs, max_witness) -> None:
    if distance not in BAG_DISTANCES:
        raise ValueError(f"distance must be one of {BAG_DISTANCES}, got {distance!r}")
    if diff_pairs not in DIFF_PAIRS:
        raise ValueError(f"diff_pairs must be one of {DIFF_PAIRS}, got {diff_pairs!r}")
    if max_witness not in MAX_WITNESSES:
        raise ValueError(f"max_witness must be one of {MAX_WITNESSES}, got {max_witness!r}")
    if instance_metric not in INSTANCE_METRICS:
        raise ValueError(
            f"instance_metric must be one of {INSTANCE_METRICS}, got {instance_metric!r}"
        )
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}")
    for name, value in (("k", k), ("m", m)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
