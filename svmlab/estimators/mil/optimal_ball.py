"""MIOptimalBall (Auer & Ortner 2004): the single ball that best separates the bags.

A hypothesis is a ball with centre ``c`` and radius ``r``: a bag is positive when at least
one of its instances lies inside, i.e. when ``min_j ||x_Bj - c|| <= r``. This is the weak
learner of Auer & Ortner's boosting approach; ``sample_weight`` lets a booster reweight bags.

The search, as Weka 3.6's ``weka.classifiers.mi.MIOptimalBall`` does it
------------------------------------------------------------------------
* Weka turns the bags into instances with weight ``S / (N |B|)`` (``S`` training instances,
  ``N`` bags; Weka's ``MultiInstanceToPropositional`` default, which ignores bag weights) and
  back into bags whose weight is the sum of those ``|B|`` instance weights, added one by one
  (about ``S / N``, the mean bag size).
* The training instances are rescaled (``scaling``, Weka ``-N``): ``"minmax"`` (``-N 0``,
  the default) maps every feature to [0, 1] with the training minimum and maximum (a constant
  feature becomes 0, for test instances too); ``"standard"`` (``-N 1``) subtracts the mean and
  divides by the standard deviation, both weighted by those instance weights, with the
  denominator ``sum w - 1`` (Weka's ``Standardize``; a feature without spread is only
  centred); ``"none"`` (``-N 2``) keeps the data. Test instances are rescaled with the
  training statistics, without clipping.
* Candidate centres: every instance of every positive training bag, in training order.
* For a centre, the distances ``d_B = min_j ||x_Bj - c||`` of the ``n`` training bags (0 for
  the centre's own bag) are sorted, ``d_(0) <= ... <= d_(n-1)``, and the candidate radii are
  ``d_(k) - (d_(k) - d_(k-1)) / 2`` for ``k = 1 .. n-1``: the midpoints, and a tied distance
  itself when two distances are equal. So the centre's own bag is always inside and the
  farthest bag always outside (unless tied).
* A (centre, radius) scores the training bags it classifies correctly (inside = positive).
  ``counting="weka"`` (default) adds the weights of the correctly classified bags, in
  training bag order, into an *integer*, truncating after every addition, as Weka's code does:
  every correct bag adds ``floor(weight)``, i.e. about ``floor(S / N)``. It cannot take
  ``sample_weight`` (Weka ignores bag weights). ``counting="weighted"`` sums the bag weights
  (``sample_weight``, 1 by default) as reals (svmlab's choice, not Weka's).
* The best score wins; among equal scores ``ties="largest_radius"`` (Weka) keeps the largest
  radius, then the first centre; ``ties="smallest_radius"`` (svmlab's earlier choice) keeps
  the first centre in training order and its smallest radius.
* Prediction: a bag is positive when one of its (rescaled) instances has squared distance at
  most ``radius_ ** 2`` from the centre. ``decision_function`` is ``r - min_j ||x_Bj - c||``.

Reference
---------
P. Auer, R. Ortner. A boosting approach to multiple instance learning. ECML 2004,
LNAI 3201, 63-74.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import StrOptions, _fit_context
from svmlab.estimators.mil._bags import BagClassifierMixin, check_bag_labels, check_bags

__all__ = ["MIOptimalBallClassifier"]

_BLOCK_ELEMENTS = 2_000_000


def _weka_scaling(X, inst_weights, kind):
    """``(offset, scale)`` so that ``(X - offset) / scale`` is Weka's rescaled data (a zero
    ``scale`` marks a feature Weka maps to 0, see :func:`_apply_scaling`)."""
    d = X.shape[1]
    if kind == "none":
        return np.zeros(d), np.ones(d)
    if kind == "minmax":
        lo, hi = X.min(axis=0), X.max(axis=0)
        return lo, np.where(hi == lo, 0.0, hi - lo)
    w = inst_weights[:, None]
    sw = float(np.sum(w))
    mean = np.sum(w * X, axis=0) / sw
    var = (np.sum(w * X * X, axis=0) - np.sum(w * X, axis=0) ** 2 / sw) / (sw - 1.0)
    var = np.where((sw <= 1.0) | (var < 0), 0.0, var)
    std = np.sqrt(var)
    return mean, np.where(std > 0, std, 1.0)


def _apply_scaling(X, offset, scale):
    out = np.zeros_like(X)
    keep = scale != 0
    out[:, keep] = (X[:, keep] - offset[keep]) / scale[keep]
    return out


class MIOptimalBallClassifier(BagClassifierMixin, ClassifierMixin, BaseEstimator):
    """One ball around a positive-bag instance, radius chosen for the best bag accuracy.

    The defaults reproduce Weka 3.6's ``weka.classifiers.mi.MIOptimalBall -N 0``.

    Parameters
    ----------
    scaling : {"minmax", "standard", "none"}, default="minmax"
        Feature rescaling on the training instances (Weka ``-N 0 / 1 / 2``).
    ties : {"largest_radius", "smallest_radius"}, default="largest_radius"
        Among equally scored balls keep the largest radius (Weka) or the first centre's
        smallest radius (svmlab's earlier rule).
    counting : {"weka", "weighted"}, default="weka"
        Score of a ball: Weka's integer, truncated sum of the correctly classified bags'
        Weka weights (no ``sample_weight``), or the real-valued sum of their ``sample_weight``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is positive.
    center_ : ndarray of shape (n_features,)
        Ball centre, in the original (unscaled) feature space.
    radius_ : float
        Radius in the scaled space.
    fit_info_ : dict
        ``n_candidates``, ``center_row`` (stacked training instance), ``train_score`` (the
        winning score), ``n_inside`` (training bags inside), ``seconds``.
    """

    _parameter_constraints: dict = {
        "scaling": [StrOptions({"minmax", "standard", "none"})],
        "ties": [StrOptions({"largest_radius", "smallest_radius"})],
        "counting": [StrOptions({"weka", "weighted"})],
    }

    def __init__(
        self, scaling: str = "minmax", ties: str = "largest_radius", counting: str = "weka"
    ):
        self.scaling = scaling
        self.ties = ties
        self.counting = counting

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y, sample_weight=None):
        """Search every positive-bag instance as centre and every candidate radius.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` is positive.
        sample_weight : array-like of shape (n_bags,), optional
            Non-negative bag weights (1 for every bag by default); only with
            ``counting="weighted"``.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        n = len(sizes)
        self.classes_, y01 = check_bag_labels(y, n, "MIOptimalBall")
        bw = self._bag_weights(sample_weight, n)
        self.n_features_in_ = X.shape[1]
        # Weka's instance weights S / (N |B|), and each bag's weight after the round trip
        inst_w = np.repeat(X.shape[0] / (n * sizes.astype(np.float64)), sizes)
        self._offset, self._scale = _weka_scaling(X, inst_w, self.scaling)
        Xs = _apply_scaling(X, self._offset, self._scale)
        if self.counting == "weka":
            w = np.array([np.cumsum(inst_w[a : a + s])[-1] for a, s in zip(starts, sizes)])
        else:
            w = bw
        positive = y01 == 1
        best, n_candidates = self._best_ball(Xs, starts, sizes, positive, w)
        self.radius_ = best[1]
        self._center_scaled = Xs[best[2]].copy()
        self.center_ = X[best[2]].copy()
        self.fit_info_ = {
            "n_candidates": n_candidates,
            "center_row": best[2],
            "train_score": best[0],
            "n_inside": best[3],
            "seconds": time.perf_counter() - t0,
        }
        return self

    def _bag_weights(self, sample_weight, n: int) -> np.ndarray:
        """The checked bag weights (1 for every bag by default)."""
        if sample_weight is None:
            bw = np.ones(n)
        else:
            bw = np.asarray(sample_weight, dtype=np.float64).ravel()
            if bw.shape != (n,) or not np.all(np.isfinite(bw)) or np.any(bw < 0) or bw.sum() <= 0:
                raise ValueError(
                    "sample_weight must hold one finite non-negative weight per bag, not all zero"
                )
        if self.counting == "weka" and sample_weight is not None:
            raise ValueError(
                "sample_weight needs counting='weighted': Weka's MIOptimalBall (counting='weka') "
                "ignores bag weights"
            )
        return bw

    def _best_ball(self, Xs, starts, sizes, positive, w):
        """Every positive-bag instance as centre, every radius halfway between two sorted bag
        distances: the ball with the best (weighted) count of bags on the right side, ties as
        ``ties`` says. Returns ``((score, radius, centre row, bags inside), n_candidates)``."""
        n = len(sizes)
        bag_of = np.repeat(np.arange(n), sizes)
        candidates = np.flatnonzero(positive[bag_of])
        best = None  # (score, radius, centre row, bags inside)
        rows_per_block = max(1, _BLOCK_ELEMENTS // (n * n))
        for b0 in range(0, len(candidates), rows_per_block):
            rows = candidates[b0 : b0 + rows_per_block]
            D = np.sqrt(np.minimum.reduceat(cdist(Xs[rows], Xs, "sqeuclidean"), starts, axis=1))
            D[np.arange(len(rows)), bag_of[rows]] = 0.0
            Ds = np.sort(D, axis=1)
            radii = Ds[:, 1:] - (Ds[:, 1:] - Ds[:, :-1]) / 2.0  # (rows, n - 1)
            score = np.zeros(radii.shape)
            for k in range(n):  # training bag order, as Weka counts
                inside = D[:, k : k + 1] <= radii
                correct = inside if positive[k] else ~inside
                score = score + w[k] * correct
                if self.counting == "weka":
                    score = np.trunc(score)
            top = score.max()
            if best is not None and top < best[0]:
                continue
            r_idx, k_idx = np.nonzero(score == top)  # row-major: centre order, then radius
            if self.ties == "largest_radius":
                pick = int(np.argmax(radii[r_idx, k_idx]))  # first of the largest
                better = best is None or top > best[0] or radii[r_idx, k_idx][pick] > best[1]
            else:
                pick = 0
                better = best is None or top > best[0]
            if better:
                r, k = int(r_idx[pick]), int(k_idx[pick])
                radius = float(radii[r, k])
                best = (float(top), radius, int(rows[r]), int(np.sum(D[r] <= radius)))
        return best, int(len(candidates))

    def _sq_distances(self, bags):
        check_is_fitted(self)
        X, starts, _ = check_bags(bags, n_features=self.n_features_in_)
        Xs = _apply_scaling(X, self._offset, self._scale)
        return np.minimum.reduceat(((Xs - self._center_scaled) ** 2).sum(axis=1), starts)

    def decision_function(self, bags):
        """``radius_ - min_j ||x_Bj - center||`` (scaled space); >= 0 means ``classes_[1]``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        scores : ndarray of shape (n_bags,)
        """
        return self.radius_ - np.sqrt(self._sq_distances(bags))

    def predict(self, bags):
        """``classes_[1]`` when an instance lies inside the ball (squared distance at most
        ``radius_ ** 2``, Weka's test), else ``classes_[0]``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        labels : ndarray of shape (n_bags,)
        """
        inside = self._sq_distances(bags) <= self.radius_ * self.radius_
        return self.classes_[inside.astype(np.intp)]
