"""CCIS: class-corner instance selection (Oliveira (2021), Sec. 3.1.2-3.1.4, Eqs. 3.7-3.10).

A sample is a *class corner* when many of its nearest neighbours inside a radius ``R``
carry another label, the data-set analogue of a FAST-9 image corner (16 circle pixels,
9 of them different):

* ``N_R(x) = {x_i in NN_K(x) : 0 < ||x - x_i|| <= R}`` (Eq. 3.7): the ``K`` nearest
  neighbours of ``x`` in the training set other than ``x`` itself, kept when inside the
  radius; neighbours at distance 0 (duplicates of ``x``) are dropped.
* ``Gamma(x) = #{x_i in N_R(x) : y_i != y}`` (Eq. 3.8), the neighbourhood variability.
* ``CCIS(D, P) = {x in D : Gamma(x) > P}`` (Eq. 3.9). ``CCIS(D, 0)`` are the *prototypes*
  (PS, border samples), ``CCIS(D, P)`` the *corners* (SV); ``SV`` is a subset of ``PS``.
* ``R = max_i ||x_i - NN_1(x_i)||`` (Eq. 3.10), times ``r_factor`` (the Fig. 13 study).

``threshold_mode="author_code"`` reproduces the author's Python ``class_corner_selection``
(Oliveira (2021), spec "[code]" variant): it queries ``K + 1`` neighbours *including the
query* (or a duplicate of it), counts every one with ``d <= R`` (distance 0 allowed) whose
label differs, and selects ``Gamma' > 1`` (PS) and ``Gamma' > P + 1`` (SV). The query
never counts (its own label), so this needs ``Gamma >= 2`` for PS and ``Gamma >= P + 2``
for SV; zero-distance duplicates with another label do count.

Neighbours come from ``sklearn.neighbors.NearestNeighbors`` (a KD-tree up to 20 features,
brute force above, where KD-trees stop paying off); the distances of the returned
neighbours are recomputed exactly (``||x - x_i||`` from the coordinates), so a duplicate
is at distance exactly 0 whichever search was used. Cost ``O(N K log N)`` with the tree.

Decisions (docs/decisions/lssvm_mlm.md):

* Duplicates (thesis mode). ``NN_K`` is taken first (duplicates occupy neighbour slots),
  then zero distances are dropped, as Eq. 3.7 reads. In Eq. 3.10 ``d*_i`` is the distance
  to the nearest *distinct* point (the smallest non-zero distance among the ``K``
  neighbours), so that the guarantee "every point has a neighbour inside R" survives
  duplicates; points whose ``K`` neighbours are all duplicates do not enter the maximum.
* Author-code mode uses the author's R: the second-smallest distance of the ``K + 1``
  query (0 for a duplicated point), maximised over the set.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_array, check_X_y

__all__ = [
    "THRESHOLD_MODES",
    "corner_scores",
    "ClassCornerSelector",
    "check_corner_threshold",
    "nearest_prototype_distance",
    "selection_masks",
]

#: Valid values of ``threshold_mode``.
THRESHOLD_MODES = ("thesis", "author_code")

#: Above this many features the neighbour search is brute force instead of a KD-tree.
_KD_TREE_MAX_FEATURES = 20
#: Entries of the largest temporary (rows x neighbours x features) block of coordinates.
_BLOCK_ENTRIES = 1 << 22


def _neighbour_search(X: np.ndarray, n_neighbors: int):
    """Indices of the ``n_neighbors`` nearest rows of ``X`` (the query included) and their
    exact Euclidean distances, both sorted by distance, shape ``(n, n_neighbors)``."""
    algorithm = "kd_tree" if X.shape[1] <= _KD_TREE_MAX_FEATURES else "brute"
    nn = NearestNeighbors(n_neighbors=n_neighbors, algorithm=algorithm).fit(X)
    ind = nn.kneighbors(X, return_distance=False)
    dist = np.empty(ind.shape)
    step = max(1, _BLOCK_ENTRIES // (ind.shape[1] * X.shape[1]))  # bounds the (rows, k, d) block
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        dist[rows] = np.sqrt(((X[ind[rows]] - X[rows, None, :]) ** 2).sum(axis=2))
    order = np.argsort(dist, axis=1, kind="stable")
    return np.take_along_axis(ind, order, axis=1), np.take_along_axis(dist, order, axis=1)


def _drop_self(ind: np.ndarray, dist: np.ndarray):
    """Remove the query's own column from each row (or, when a duplicate displaced it from
    the result, the last column), leaving one column fewer."""
    n, k = ind.shape
    is_self = ind == np.arange(n)[:, None]
    missing = ~is_self.any(axis=1)
    is_self[missing, k - 1] = True
    keep = ~is_self
    return ind[keep].reshape(n, k - 1), dist[keep].reshape(n, k - 1)


def _check_params(n_neighbors, radius, r_factor, threshold_mode) -> None:
    if not isinstance(n_neighbors, Integral) or isinstance(n_neighbors, bool) or n_neighbors < 1:
        raise ValueError(f"n_neighbors (K) must be an integer >= 1, got {n_neighbors!r}")
    if radius is not None and (not isinstance(radius, Real) or not radius > 0):
        raise ValueError(f"radius (R) must be None (Eq. 3.10) or a number > 0, got {radius!r}")
    if not isinstance(r_factor, Real) or not r_factor > 0:
        raise ValueError(f"r_factor must be a number > 0, got {r_factor!r}")
    if threshold_mode not in THRESHOLD_MODES:
        raise ValueError(
            f"threshold_mode must be one of {', '.join(THRESHOLD_MODES)}, got {threshold_mode!r}"
        )


def _check_data(X, y):
    X, y = check_X_y(X, y, dtype=np.float64, y_numeric=False)
    if X.shape[0] < 2:
        raise ValueError(f"CCIS needs at least 2 samples, got {X.shape[0]}")
    _, codes = np.unique(y, return_inverse=True)
    if codes.max() == 0:
        raise ValueError(f"CCIS needs at least 2 classes in y, got only {y[0]!r}")
    return X, codes


def corner_scores(
    X, y, *, n_neighbors=16, radius=None, r_factor=1.0, threshold_mode="thesis"
) -> tuple[np.ndarray, float]:
    """Neighbourhood variability ``Gamma`` of every sample and the radius used.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (any number of classes >= 2).
    n_neighbors : int, default=16
        ``K``, the neighbourhood size (16 circle pixels of FAST).
    radius : float or None, default=None
        ``R``; ``None`` estimates it by Eq. 3.10 (largest 1-NN distance).
    r_factor : float, default=1.0
        Multiplies the estimated radius (ignored when ``radius`` is given).
    threshold_mode : {"thesis", "author_code"}, default="thesis"
        ``"thesis"``: Eq. 3.8 (self and zero distances excluded). ``"author_code"``: the
        author's count ``Gamma'`` over ``K + 1`` neighbours including the query, ``d <= R``.

    Returns
    -------
    scores : ndarray of shape (n_samples,), int
        ``Gamma(x_i)`` (Eq. 3.8) or ``Gamma'(x_i)`` in author-code mode.
    radius : float
        The radius ``R`` used.

    References
    ----------
    Oliveira (2021), Eqs. 3.7-3.10.
    """
    _check_params(n_neighbors, radius, r_factor, threshold_mode)
    X, codes = _check_data(X, y)
    n = X.shape[0]
    ind, dist = _neighbour_search(X, min(n_neighbors + 1, n))
    if threshold_mode == "thesis":
        ind, dist = _drop_self(ind, dist)
        if radius is None:
            nonzero = np.where(dist > 0, dist, np.inf).min(axis=1)
            finite = nonzero[np.isfinite(nonzero)]
            radius = float(finite.max()) * r_factor if finite.size else 0.0
        inball = (dist > 0) & (dist <= radius)
    else:
        if radius is None:
            radius = float(dist[:, 1].max()) * r_factor
        inball = dist <= radius
    scores = (inball & (codes[ind] != codes[:, None])).sum(axis=1)
    return scores.astype(np.int64), float(radius)


class ClassCornerSelector(BaseEstimator):
    """Class-corner instance selection: prototypes ``CCIS(D, 0)`` and corners ``CCIS(D, P)``.

    Parameters
    ----------
    n_neighbors : int, default=16
        ``K``, the neighbourhood size.
    corner_threshold : int, default=9
        ``P``, the variability threshold, ``0 <= P < K`` (FAST-9).
    radius : float or None, default=None
        ``R``; ``None`` uses Eq. 3.10.
    r_factor : float, default=1.0
        Multiplies the estimated radius.
    threshold_mode : {"thesis", "author_code"}, default="thesis"
        See :func:`corner_scores`; in author-code mode PS is ``Gamma' > 1`` and SV is
        ``Gamma' > P + 1``.

    Attributes
    ----------
    scores_ : ndarray of shape (n_samples,), int
        ``Gamma`` of each training sample.
    radius_ : float
        The radius used.
    prototype_mask_ : ndarray of shape (n_samples,), bool
        PS = ``CCIS(D, 0)``: ``Gamma > 0`` (author code: ``Gamma' > 1``).
    corner_mask_ : ndarray of shape (n_samples,), bool
        SV = ``CCIS(D, P)``: ``Gamma > P`` (author code: ``Gamma' > P + 1``).
    prototypes_ : ndarray of int
        Indices of PS in the training set.
    corners_ : ndarray of int
        Indices of SV in the training set (a subset of ``prototypes_``).
    n_features_in_ : int

    References
    ----------
    Oliveira (2021), Sec. 3.1, Eqs. 3.7-3.10 and Alg. 8 lines 1-3.
    """

    def __init__(
        self,
        n_neighbors=16,
        corner_threshold=9,
        radius=None,
        r_factor=1.0,
        threshold_mode="thesis",
    ):
        self.n_neighbors = n_neighbors
        self.corner_threshold = corner_threshold
        self.radius = radius
        self.r_factor = r_factor
        self.threshold_mode = threshold_mode

    def fit(self, X, y):
        """Score every sample and select prototypes and corners; returns ``self``."""
        check_corner_threshold(self.corner_threshold, self.n_neighbors)
        scores, radius = corner_scores(
            X,
            y,
            n_neighbors=self.n_neighbors,
            radius=self.radius,
            r_factor=self.r_factor,
            threshold_mode=self.threshold_mode,
        )
        self.scores_ = scores
        self.radius_ = radius
        self.prototype_mask_, self.corner_mask_ = selection_masks(
            scores, self.corner_threshold, self.threshold_mode
        )
        self.prototypes_ = np.flatnonzero(self.prototype_mask_)
        self.corners_ = np.flatnonzero(self.corner_mask_)
        self.n_features_in_ = np.asarray(X).shape[1]
        return self


def selection_masks(scores, corner_threshold, threshold_mode="thesis"):
    """``(PS, SV)`` boolean masks of Eq. 3.9 from the scores ``Gamma``: ``Gamma > 0`` and
    ``Gamma > P``, or ``Gamma' > 1`` and ``Gamma' > P + 1`` in ``author_code`` mode."""
    offset = 1 if threshold_mode == "author_code" else 0
    scores = np.asarray(scores)
    return scores > offset, scores > corner_threshold + offset


def check_corner_threshold(corner_threshold, n_neighbors) -> None:
    """Refuse a ``P`` outside ``0 <= P < K`` with one line naming both."""
    if not isinstance(n_neighbors, Integral) or isinstance(n_neighbors, bool) or n_neighbors < 1:
        raise ValueError(f"n_neighbors (K) must be an integer >= 1, got {n_neighbors!r}")
    if (
        not isinstance(corner_threshold, Integral)
        or isinstance(corner_threshold, bool)
        or not 0 <= corner_threshold < n_neighbors
    ):
        raise ValueError(
            f"corner_threshold (P) must be an integer with 0 <= P < n_neighbors (K); "
            f"got P={corner_threshold!r}, K={n_neighbors!r}"
        )


def nearest_prototype_distance(X, prototypes) -> np.ndarray:
    """Distance of each row of ``X`` to the nearest row of ``prototypes`` (NCD, Eq. 5.1).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    prototypes : array-like of shape (n_prototypes, n_features)
        The reference set, e.g. the PS rows ``X[selector.prototypes_]``; at least one row.

    Returns
    -------
    ncd : ndarray of shape (n_samples,)

    References
    ----------
    Oliveira (2021), Eq. 5.1.
    """
    X = check_array(X, dtype=np.float64)
    prototypes = check_array(prototypes, dtype=np.float64, ensure_min_samples=0)
    if prototypes.shape[0] == 0:
        raise ValueError("prototypes must have at least one row (the prototype set is empty)")
    if prototypes.shape[1] != X.shape[1]:
        raise ValueError(f"prototypes have {prototypes.shape[1]} features, X has {X.shape[1]}")
    algorithm = "kd_tree" if X.shape[1] <= _KD_TREE_MAX_FEATURES else "brute"
    nn = NearestNeighbors(n_neighbors=1, algorithm=algorithm).fit(prototypes)
    ind = nn.kneighbors(X, return_distance=False)[:, 0]
    return np.sqrt(((X - prototypes[ind]) ** 2).sum(axis=1))
