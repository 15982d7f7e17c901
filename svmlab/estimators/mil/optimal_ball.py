"""MIOptimalBall (Auer & Ortner 2004): the single ball that best separates the bags.

A hypothesis is a ball with centre ``c`` and radius ``r``: a bag is positive when at least
one of its instances lies inside, i.e. when ``min_j ||x_Bj - c|| < r``. The centre is chosen
among the instances of the positive training bags; for each candidate the bags are sorted by
their distance ``min_j ||x_Bj - c||`` and the radius that maximises the (bag-weighted)
training accuracy is found in one pass over the cumulative weights. The best (centre,
radius) over all candidates is kept. This is the weak learner of Auer & Ortner's boosting
approach; ``sample_weight`` lets a booster reweight the bags.

Weka semantics (``weka.classifiers.mi.MIOptimalBall``) and our choices
----------------------------------------------------------------------
* Features are min-max normalised on the training instances (Weka's default filter);
  Euclidean distance.
* Candidate centres: every instance of every positive bag (no cap: the search is one
  distance matrix, ``n_pos_instances x n_instances``, computed block-wise).
* Radius: the midpoint between the last bag inside and the first bag outside (our choice;
  Weka's exact placement may differ). The ball always contains the centre's own bag.
* Ties (equal accuracy): the first centre in training order, then the smallest radius.
* ``decision_function`` is ``r - min_j ||x_Bj - c||`` (> 0 inside the ball = positive).

Reference
---------
P. Auer, R. Ortner. A boosting approach to multiple instance learning. ECML 2004,
LNAI 3201, 63-74.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from svmlab.estimators.mil._bags import (
    BagClassifierMixin,
    check_bag_labels,
    check_bags,
    feature_scaling,
)

__all__ = ["MIOptimalBallClassifier"]

_BLOCK_ELEMENTS = 4_000_000


class MIOptimalBallClassifier(BagClassifierMixin, ClassifierMixin, BaseEstimator):
    """One ball around a positive-bag instance, radius chosen for the best bag accuracy.

    Parameters
    ----------
    scaling : {"minmax", "standard", "none"}, default="minmax"
        Feature scaling on the training instances (Weka normalises by default).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is positive.
    center_ : ndarray of shape (n_features,)
        Ball centre, in the original (unscaled) feature space.
    radius_ : float
        Radius in the scaled space.
    fit_info_ : dict
        ``n_candidates``, ``center_row`` (stacked training instance), ``train_accuracy``
        (weighted), ``n_inside`` (training bags inside), ``seconds``.
    """

    _parameter_constraints: dict = {"scaling": [StrOptions({"minmax", "standard", "none"})]}

    def __init__(self, scaling: str = "minmax"):
        self.scaling = scaling

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y, sample_weight=None):
        """Search every positive-bag instance as centre and every separating radius.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` is positive.
        sample_weight : array-like of shape (n_bags,), optional
            Non-negative bag weights (uniform by default).

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        n = len(sizes)
        self.classes_, y01 = check_bag_labels(y, n, "MIOptimalBall")
        if sample_weight is None:
            w = np.full(n, 1.0 / n)
        else:
            w = np.asarray(sample_weight, dtype=np.float64).ravel()
            if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
                raise ValueError(
                    "sample_weight must hold one finite non-negative weight per bag, not all zero"
                )
            w = w / w.sum()
        self.n_features_in_ = X.shape[1]
        self._offset, self._scale = feature_scaling(X, self.scaling)
        Xs = (X - self._offset) / self._scale
        positive = y01 == 1
        bag_of = np.repeat(np.arange(n), sizes)
        candidates = np.flatnonzero(positive[bag_of])
        w_pos = np.where(positive, w, 0.0)
        w_neg = np.where(positive, 0.0, w)
        total_neg = w_neg.sum()
        best = (-np.inf, -1, np.nan, 0)  # (accuracy, centre row, radius, bags inside)
        rows_per_block = max(1, _BLOCK_ELEMENTS // Xs.shape[0])
        for b0 in range(0, len(candidates), rows_per_block):
            rows = candidates[b0 : b0 + rows_per_block]
            D = np.sqrt(np.minimum.reduceat(cdist(Xs[rows], Xs, "sqeuclidean"), starts, axis=1))
            order = np.argsort(D, axis=1, kind="stable")
            Ds = np.take_along_axis(D, order, axis=1)
            # accuracy with the first k sorted bags inside: positives inside + negatives outside
            acc = np.cumsum(w_pos[order], axis=1) + total_neg - np.cumsum(w_neg[order], axis=1)
            # a radius can only fall between two distinct distances (or after the last bag)
            valid = np.ones_like(acc, dtype=bool)
            valid[:, :-1] = Ds[:, 1:] > Ds[:, :-1]
            acc = np.where(valid, acc, -np.inf)
            k = np.argmax(acc, axis=1)  # first maximum = smallest radius
            a = acc[np.arange(len(rows)), k]
            c = int(np.argmax(a))  # first centre on ties
            if a[c] > best[0] + 1e-12:
                kk = k[c]
                inner = Ds[c, kk]
                outer = Ds[c, kk + 1] if kk + 1 < n else 2.0 * inner + 1.0
                best = (float(a[c]), int(rows[c]), 0.5 * (inner + outer), int(kk + 1))
        self.radius_ = float(best[2])
        self._center_scaled = Xs[best[1]].copy()
        self.center_ = X[best[1]].copy()
        self.fit_info_ = {
            "n_candidates": int(len(candidates)),
            "center_row": best[1],
            "train_accuracy": best[0],
            "n_inside": best[3],
            "seconds": time.perf_counter() - t0,
        }
        return self

    def decision_function(self, bags):
        """``radius_ - min_j ||x_Bj - center||`` (scaled space); > 0 means ``classes_[1]``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        scores : ndarray of shape (n_bags,)
        """
        check_is_fitted(self)
        X, starts, _ = check_bags(bags, n_features=self.n_features_in_)
        Xs = (X - self._offset) / self._scale
        d = np.sqrt(((Xs - self._center_scaled) ** 2).sum(axis=1))
        return self.radius_ - np.minimum.reduceat(d, starts)
