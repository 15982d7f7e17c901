"""Citation-kNN (Wang & Zucker 2000): nearest-neighbour multi-instance classification.

Bags are compared with a (ranked) Hausdorff distance. A bag ``b`` is labelled by a vote of

* its ``R`` nearest training bags, the *references*, and
* the training bags that have ``b`` among their own ``C`` nearest neighbours (the other
  training bags plus ``b``), the *citers*.

With ``p`` positive and ``n`` negative voters the bag is positive when ``p > n``; a tie is
negative (the paper's rule).

Distances
---------
``h_k(A, B)`` is the ``k``-th smallest of ``{min_b ||a - b|| : a in A}`` (``k`` clipped to
``|A|``), and ``H_k(A, B) = max(h_k(A, B), h_k(B, A))``. ``k = 1`` is the *minimal*
Hausdorff distance ``min_{a, b} ||a - b||`` that Wang & Zucker recommend; a ``k`` at least as
large as every bag gives the classical Hausdorff distance. Distances are computed block-wise
over the stacked instances (one ``cdist`` per block of query bags), never per bag pair.

Differences from Weka's ``weka.classifiers.mi.CitationKNN``
-----------------------------------------------------------
The defaults are Weka's (``-R 1 -C 1 -H 1``) and, like Weka, the features are min-max scaled
on the training instances (``scaling="minmax"``). Tie handling inside the neighbour lists is
ours: references are the ``R`` closest training bags in a stable sort (ties by training
order); ``B`` cites ``b`` when fewer than ``C`` other training bags are strictly closer to
``B`` than ``b`` is (ties favour citing).

References
----------
J. Wang, J.-D. Zucker. Solving the multiple-instance problem: a lazy learning approach.
ICML 2000, 1119-1126.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from svmlab.estimators.mil._bags import check_bag_labels, check_bags, feature_scaling

__all__ = ["CitationKNNClassifier", "hausdorff_distances"]

_BLOCK_ELEMENTS = 4_000_000  # entries of one instance-distance block (32 MB in float64)


def hausdorff_distances(XA, startsA, sizesA, XB, startsB, sizesB, rank: int = 1):
    """Ranked Hausdorff distances between every bag of A and every bag of B.

    Parameters
    ----------
    XA, XB : ndarray of shape (n_instances, n_features)
        Stacked instances (as returned by :func:`check_bags`).
    startsA, sizesA, startsB, sizesB : ndarray of int
        First row and size of every bag.
    rank : int, default=1
        ``k`` of ``H_k`` (module docstring); 1 is the minimal Hausdorff distance.

    Returns
    -------
    H : ndarray of shape (n_bags_A, n_bags_B)
        Euclidean ``H_k(A_i, B_j)``.
    """
    nA, nB = len(sizesA), len(sizesB)
    H = np.empty((nA, nB))
    max_rows = max(1, _BLOCK_ELEMENTS // max(1, XB.shape[0]))
    i = 0
    while i < nA:
        j, rows = i, 0
        while j < nA and (j == i or rows + sizesA[j] <= max_rows):
            rows += sizesA[j]
            j += 1
        r0 = startsA[i]
        r1 = startsA[j - 1] + sizesA[j - 1]
        D = cdist(XA[r0:r1], XB, "sqeuclidean")
        local = startsA[i:j] - r0
        to_bag_b = np.minimum.reduceat(D, startsB, axis=1)  # A-instance -> nearest in each B bag
        if rank == 1:
            H[i:j] = np.minimum.reduceat(to_bag_b, local, axis=0)
        else:
            to_bag_a = np.minimum.reduceat(D, local, axis=0)  # B-instance -> nearest in each A bag
            h_ab = np.empty((j - i, nB))
            h_ba = np.empty((j - i, nB))
            for a in range(j - i):
                block = to_bag_b[local[a] : local[a] + sizesA[i + a]]
                k = min(rank, block.shape[0]) - 1
                h_ab[a] = np.partition(block, k, axis=0)[k]
            for b in range(nB):
                block = to_bag_a[:, startsB[b] : startsB[b] + sizesB[b]]
                k = min(rank, block.shape[1]) - 1
                h_ba[:, b] = np.partition(block, k, axis=1)[:, k]
            H[i:j] = np.maximum(h_ab, h_ba)
        i = j
    return np.sqrt(np.maximum(H, 0.0))


# ------------------------------------------------------------------------------------------


class CitationKNNClassifier(ClassifierMixin, BaseEstimator):
    """Citation-kNN: vote of the ``R`` nearest references and the ``C``-nearest citers.

    Parameters
    ----------
    n_references : int, default=1
        ``R``, the number of nearest training bags that vote (Weka ``-R``, default 1).
    n_citers : int, default=1
        ``C``: a training bag cites the query when the query is among its ``C`` nearest
        neighbours (Weka ``-C``, default 1). 0 disables citers (plain Hausdorff kNN).
    hausdorff_rank : int, default=1
        ``k`` of the ranked Hausdorff distance ``H_k`` (Weka ``-H``, default 1 = minimal
        Hausdorff distance). A value at least as large as every bag gives the classical
        (maximal) Hausdorff distance.
    scaling : {"minmax", "standard", "none"}, default="minmax"
        Feature scaling fitted on the pooled training instances (Weka normalises).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    citation_radius_ : ndarray of shape (n_train_bags,)
        For every training bag, the distance to its ``C``-th nearest other training bag: a
        query at most this far away is cited by it (``inf`` when ``C`` exceeds the others).
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``distance_seconds`` (training distance matrix).

    Notes
    -----
    ``decision_function`` is ``(p - n) / (p + n)`` over the voters, so ``predict`` gives the
    positive class exactly when it is ``> 0`` (ties negative). Prediction is lazy: the cost
    is a Hausdorff matrix between the query and the training bags.
    """

    _parameter_constraints: dict = {
        "n_references": [Interval(Integral, 1, None, closed="left")],
        "n_citers": [Interval(Integral, 0, None, closed="left")],
        "hausdorff_rank": [Interval(Integral, 1, None, closed="left")],
        "scaling": [StrOptions({"minmax", "standard", "none"})],
    }

    def __init__(
        self,
        n_references: int = 1,
        n_citers: int = 1,
        hausdorff_rank: int = 1,
        scaling: str = "minmax",
    ):
        self.n_references = n_references
        self.n_citers = n_citers
        self.hausdorff_rank = hausdorff_rank
        self.scaling = scaling

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Store the (scaled) training bags and each one's citation radius.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
            Training bags.
        y : array-like of shape (n_bags,)
            Bag labels, exactly two classes; ``classes_[1]`` is positive.

        Returns
        -------
        self : object
        """
        X, starts, sizes = check_bags(bags)
        n = len(sizes)
        self.classes_, self._y = check_bag_labels(y, n, "CitationKNN")
        self.n_features_in_ = X.shape[1]
        self._offset, self._scale = feature_scaling(X, self.scaling)
        self._X = (X - self._offset) / self._scale
        self._starts, self._sizes = starts, sizes
        t0 = time.perf_counter()
        H = hausdorff_distances(self._X, starts, sizes, self._X, starts, sizes, self.hausdorff_rank)
        seconds = time.perf_counter() - t0
        C = self.n_citers
        if C == 0:
            radius = np.full(n, -np.inf)
        elif C > n - 1:
            radius = np.full(n, np.inf)
        else:
            others = H.copy()
            np.fill_diagonal(others, np.inf)
            radius = np.partition(others, C - 1, axis=1)[:, C - 1]
        self.citation_radius_ = radius
        self.fit_info_ = {"n_bags": n, "n_instances": int(X.shape[0]), "distance_seconds": seconds}
        return self

    def _votes(self, bags):
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, n_features=self.n_features_in_)
        X = (X - self._offset) / self._scale
        H = hausdorff_distances(
            X, starts, sizes, self._X, self._starts, self._sizes, self.hausdorff_rank
        )
        R = min(self.n_references, H.shape[1])
        refs = np.argsort(H, axis=1, kind="stable")[:, :R]
        positive = (self._y[refs] == 1).sum(axis=1)
        negative = R - positive
        citers = H <= self.citation_radius_[None, :]
        positive = positive + citers[:, self._y == 1].sum(axis=1)
        negative = negative + citers[:, self._y == 0].sum(axis=1)
        return positive, negative

    def decision_function(self, bags):
        """``(p - n) / (p + n)`` over references and citers; > 0 means ``classes_[1]``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        scores : ndarray of shape (n_bags,)
        """
        p, n = self._votes(bags)
        return (p - n) / (p + n)

    def predict(self, bags):
        """Majority of references and citers; a tie is negative (Wang & Zucker).

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        labels : ndarray of shape (n_bags,)
        """
        p, n = self._votes(bags)
        return self.classes_[(p > n).astype(np.intp)]
