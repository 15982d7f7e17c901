"""Citation-kNN (Wang & Zucker 2000): nearest-neighbour multi-instance classification.

Bags are compared with a (ranked) Hausdorff distance. A bag ``b`` is labelled by a vote of

* its ``R`` nearest training bags, the *references* (every training bag tied with the
  ``R``-th nearest votes too), and
* the training bags ``B`` that have ``b`` within their own ``C`` nearest neighbours: ``b``
  is at most as far from ``B`` as ``B``'s ``C``-th nearest other training bag (the
  *citers*).

With ``p`` positive and ``n`` negative voters the bag is positive when ``p > n``; a tie goes
to ``classes_[0]`` (Weka's first class; the negative one for 0/1 labels).

Distances
---------
``h_k(A, B)`` is the ``k``-th smallest of ``{min_b ||a - b|| : a in A}`` (``k`` clipped to
``|A|``). ``hausdorff="directed"`` (Weka) uses ``h_k(A, B)`` with ``A`` the bag whose
neighbours are sought (the query for references and citers, the citing training bag for the
citation lists); ``hausdorff="symmetric"`` uses ``H_k(A, B) = max(h_k(A, B), h_k(B, A))``
(Wang & Zucker's definition). With ``k = 1`` (the default) both are the *minimal* Hausdorff
distance ``min_{a, b} ||a - b||``. Distances are computed block-wise over the stacked
instances, never per bag pair.

Weka 3.6's ``weka.classifiers.mi.CitationKNN`` (``-R 1 -C 1 -H 1``) and the options here
--------------------------------------------------------------------------------------
``scaling="weka"`` (default) rescales as Weka's CitationKNN does: every feature ``x`` becomes
``(x - 0.95 lo) / (1.05 hi - 0.95 lo)`` with ``lo``, ``hi`` the training minimum and
maximum; and before each test bag is classified, ``lo`` and ``hi`` are widened to include
that bag (Weka's ``updateNormalization``), so within one ``predict`` call a bag's
prediction depends on the bags before it. The training citation lists keep the training
rescaling, as in Weka.

A feature with ``1.05 hi - 0.95 lo = 0`` (a feature that is 0 on every training instance,
e.g. 120 of elephant's 230) has zero range. Weka divides by it without a guard: every
instance distance is NaN, every bag distance stays at ``Double.MAX_VALUE``, all training bags
tie as references and as citers, and Weka predicts the training majority (``classes_[0]`` on
a balanced training set) - 50% accuracy on elephant, fox and tiger. ``zero_range="ignore"``
(default) lets such a feature contribute 0 to distances, which gives sensible results;
``zero_range="nan"`` reproduces Weka's failure. ``zero_range`` applies to ``scaling="weka"``
only (the other scalings give a constant feature range 1).

Other differences from Weka: ``n_citers=0`` means no citers (Weka's ``-C 0`` behaves like
``-C 1``) and ``n_citers`` at least the number of training bags means every training bag
cites (Weka refuses it).

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
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators.mil._bags import check_bag_labels, check_bags, feature_scaling

__all__ = ["CitationKNNClassifier", "hausdorff_distances"]

_BLOCK_ELEMENTS = 4_000_000  # entries of one instance-distance block (32 MB in float64)
#: Weka's bag distance when every instance distance is NaN (``Double.MAX_VALUE``).
_WEKA_MAX = float(np.finfo(np.float64).max)
_LO, _HI = 0.95, 1.05  # Weka CitationKNN's m_MinNorm, m_MaxNorm


def hausdorff_distances(XA, startsA, sizesA, XB, startsB, sizesB, rank: int = 1, directed=False):
    """Ranked Hausdorff distances between every bag of A and every bag of B.

    Parameters
    ----------
    XA, XB : ndarray of shape (n_instances, n_features)
        Stacked instances (as returned by :func:`check_bags`).
    startsA, sizesA, startsB, sizesB : ndarray of int
        First row and size of every bag.
    rank : int, default=1
        ``k`` of ``h_k`` / ``H_k`` (module docstring); 1 is the minimal Hausdorff distance.
    directed : bool, default=False
        Return ``h_k(A_i, B_j)`` (ranked over ``A_i``'s instances) instead of the symmetric
        ``H_k(A_i, B_j) = max(h_k(A_i, B_j), h_k(B_j, A_i))``.

    Returns
    -------
    H : ndarray of shape (n_bags_A, n_bags_B)
        Euclidean distances.
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
            h_ab = np.empty((j - i, nB))
            for a in range(j - i):
                block = to_bag_b[local[a] : local[a] + sizesA[i + a]]
                k = min(rank, block.shape[0]) - 1
                h_ab[a] = np.partition(block, k, axis=0)[k]
            if directed:
                H[i:j] = h_ab
            else:
                to_bag_a = np.minimum.reduceat(D, local, axis=0)  # B-instance -> nearest A bag
                h_ba = np.empty((j - i, nB))
                for b in range(nB):
                    block = to_bag_a[:, startsB[b] : startsB[b] + sizesB[b]]
                    k = min(rank, block.shape[1]) - 1
                    h_ba[:, b] = np.partition(block, k, axis=1)[:, k]
                H[i:j] = np.maximum(h_ab, h_ba)
        i = j
    return np.sqrt(np.maximum(H, 0.0))


def _weka_rescale(X, lo, diff, zero_range):
    """Weka's ``(x - lo) / diff``; zero-range columns are set to 0 (``"ignore"``).

    Returns the rescaled data and whether Weka's distances would be NaN (``"nan"`` with a
    zero-range column)."""
    zero = diff == 0
    Z = np.zeros_like(X)
    Z[:, ~zero] = (X[:, ~zero] - lo[~zero]) / diff[~zero]
    return Z, bool(zero_range == "nan" and np.any(zero))


# ------------------------------------------------------------------------------------------


class CitationKNNClassifier(ClassifierMixin, BaseEstimator):
    """Citation-kNN: vote of the ``R`` nearest references and the ``C``-nearest citers.

    The defaults reproduce Weka 3.6's ``weka.classifiers.mi.CitationKNN -R 1 -C 1 -H 1``
    except on features of zero range, where Weka fails (``zero_range``).

    Parameters
    ----------
    n_references : int, default=1
        ``R``, the number of nearest training bags that vote (Weka ``-R``, default 1); all
        bags tied with the ``R``-th nearest vote too.
    n_citers : int, default=1
        ``C``: a training bag cites the query when the query is at most as far as its
        ``C``-th nearest other training bag (Weka ``-C``, default 1). 0 disables citers.
    hausdorff_rank : int, default=1
        ``k`` of the ranked Hausdorff distance (Weka ``-H``, default 1 = minimal Hausdorff
        distance). A value at least as large as every bag gives the classical (maximal)
        Hausdorff distance.
    hausdorff : {"directed", "symmetric"}, default="directed"
        Ranked over the searching bag's instances only (Weka) or the larger of both
        directions (Wang & Zucker); identical for ``hausdorff_rank=1``.
    scaling : {"weka", "minmax", "standard", "none"}, default="weka"
        ``"weka"``: Weka's 0.95 / 1.05 widened range, extended by every test bag (module
        docstring); ``"minmax"``: [0, 1] on the training instances; ``"standard"``: zero
        mean, unit variance; ``"none"``.
    zero_range : {"ignore", "nan"}, default="ignore"
        With ``scaling="weka"``: a feature of zero range contributes 0 to distances
        (``"ignore"``) or makes every distance undefined as in Weka (``"nan"``: Weka's
        majority-class failure).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    citation_radius_ : ndarray of shape (n_train_bags,)
        For every training bag, the distance to its ``C``-th nearest other training bag: a
        query at most this far away is cited by it (``inf`` when ``C`` exceeds the others).
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``distance_seconds`` (training distance matrix),
        ``zero_range_features`` (how many, under ``scaling="weka"``).

    Notes
    -----
    ``decision_function`` is ``(p - n) / (p + n)`` over the voters, so ``predict`` gives
    ``classes_[1]`` exactly when it is ``> 0``. Prediction is lazy: the cost is a Hausdorff
    matrix between the query and the training bags.
    """

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "n_references": [Interval(Integral, 1, None, closed="left")],
        "n_citers": [Interval(Integral, 0, None, closed="left")],
        "hausdorff_rank": [Interval(Integral, 1, None, closed="left")],
        "hausdorff": [StrOptions({"directed", "symmetric"})],
        "scaling": [StrOptions({"weka", "minmax", "standard", "none"})],
        "zero_range": [StrOptions({"ignore", "nan"})],
    }

    def __init__(
        self,
        n_references: int = 1,
        n_citers: int = 1,
        hausdorff_rank: int = 1,
        hausdorff: str = "directed",
        scaling: str = "weka",
        zero_range: str = "ignore",
    ):
        self.n_references = n_references
        self.n_citers = n_citers
        self.hausdorff_rank = hausdorff_rank
        self.hausdorff = hausdorff
        self.scaling = scaling
        self.zero_range = zero_range

    def _distances(self, XA, sA, nA, XB, sB, nB):
        return hausdorff_distances(
            XA, sA, nA, XB, sB, nB, self.hausdorff_rank, directed=self.hausdorff == "directed"
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Store the training bags and each one's citation radius.

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
        self._X_raw = X
        self._starts, self._sizes = starts, sizes
        undefined = False
        if self.scaling == "weka":
            lo, hi = X.min(axis=0), X.max(axis=0)
            self._weka_range = (lo * _LO, hi * _HI, hi * _HI - lo * _LO)
            self._X, undefined = _weka_rescale(
                X, self._weka_range[0], self._weka_range[2], self.zero_range
            )
        else:
            self._offset, self._scale = feature_scaling(X, self.scaling)
            self._X = (X - self._offset) / self._scale
        t0 = time.perf_counter()
        H = self._distances(self._X, starts, sizes, self._X, starts, sizes)
        if undefined:
            H[:] = _WEKA_MAX
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
        self.fit_info_ = {
            "n_bags": n,
            "n_instances": int(X.shape[0]),
            "distance_seconds": seconds,
            "zero_range_features": int(np.sum(self._weka_range[2] == 0))
            if self.scaling == "weka"
            else 0,
        }
        return self

    def _query_distances(self, bags):
        """Distances from every query bag to every training bag, (n_query, n_train)."""
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, n_features=self.n_features_in_)
        if self.scaling != "weka":
            X = (X - self._offset) / self._scale
            return self._distances(X, starts, sizes, self._X, self._starts, self._sizes)
        lo, hi, _ = self._weka_range
        H = np.empty((len(sizes), len(self._sizes)))
        one = np.array([0])
        for b, (st, nb) in enumerate(zip(starts, sizes)):
            bag = X[st : st + nb]
            # Weka's updateNormalization: recover the range, widen it by this bag, store it
            raw_lo = np.minimum(lo / _LO, bag.min(axis=0))
            raw_hi = np.maximum(hi / _HI, bag.max(axis=0))
            lo, hi, diff = raw_lo * _LO, raw_hi * _HI, raw_hi * _HI - raw_lo * _LO
            Zt, undefined = _weka_rescale(self._X_raw, lo, diff, self.zero_range)
            Zb, _ = _weka_rescale(bag, lo, diff, self.zero_range)
            if undefined:
                H[b] = _WEKA_MAX
            else:
                H[b] = self._distances(Zb, one, np.array([nb]), Zt, self._starts, self._sizes)[0]
        return H

    def _votes(self, bags):
        H = self._query_distances(bags)
        n_train = H.shape[1]
        R = n_train - 1 if n_train < self.n_references else self.n_references
        if R > 0:
            kth = np.partition(H, R - 1, axis=1)[:, R - 1 : R]
            refs = H <= kth  # every bag tied with the R-th nearest votes (Weka)
        else:
            refs = np.zeros_like(H, dtype=bool)
        citers = H <= self.citation_radius_[None, :]
        pos = self._y == 1
        positive = refs[:, pos].sum(axis=1) + citers[:, pos].sum(axis=1)
        negative = refs[:, ~pos].sum(axis=1) + citers[:, ~pos].sum(axis=1)
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
        return (p - n) / np.maximum(p + n, 1)

    def predict(self, bags):
        """Majority of references and citers; a tie goes to ``classes_[0]`` (as in Weka).

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        labels : ndarray of shape (n_bags,)
        """
        p, n = self._votes(bags)
        return self.classes_[(p > n).astype(np.intp)]
