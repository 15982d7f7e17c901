"""A one-split decision tree that chooses and applies its split exactly as Weka's DecisionStump.

:class:`DecisionStumpClassifier` is a general single-instance classifier (``fit(X, y,
sample_weight=None)``, ``predict``, ``predict_proba``). With its defaults it is the learner of
Weka 3.6's ``weka.classifiers.trees.DecisionStump`` on numeric attributes and a nominal class,
the base learner MIBoost is usually run with (``conf/solver/miboost.yaml``).

How the split is found (Weka's rules)
-------------------------------------
* Every feature is tried in column order. Its instances are sorted by value; a cut is possible
  between two neighbouring *distinct* values and is placed at their midpoint. Left is
  ``x <= cut``.
* A cut is scored by the weighted class entropy of the two sides, ``sum_side W_side H(side)
  / W`` (``criterion="entropy"``, Weka's ``entropyConditionedOnRows``) or by the weighted
  Gini impurity (``criterion="gini"``, an svmlab extension, not a Weka mode).
* Ties: within a feature the smallest cut wins, across features the first feature wins (a
  later candidate must be strictly better). A feature without any cut (constant) scores
  ``inf``; when every feature is constant the stump predicts the weighted class distribution.
* Class weights are summed in sorted order and the right side is the total minus the running
  left sum, as Weka does, so that equal scores stay equal in floating point.
* Each side predicts its weighted class distribution (an empty side predicts the whole
  training distribution); ``predict`` takes the first class of largest probability.

Weka also treats a missing value as a third branch; this learner refuses missing values.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _check_sample_weight, _fit_context

__all__ = ["DecisionStumpClassifier"]

_LN2 = float(np.log(2.0))


def _xlogx(v):
    """``v ln v`` with 0 for ``v <= 0`` (Weka's ``lnFunc``)."""
    out = np.zeros_like(v)
    pos = v > 0
    out[pos] = v[pos] * np.log(v[pos])
    return out


def _entropy_score(left, right):
    """Weka's ``entropyConditionedOnRows`` of the rows ``left`` and ``right`` (shape (..., K)),
    evaluated in Weka's order of operations."""
    acc = np.zeros(left.shape[:-1])
    total = np.zeros(left.shape[:-1])
    for side in (left, right):
        row = np.zeros(side.shape[:-1])
        for k in range(side.shape[-1]):
            acc = acc + _xlogx(side[..., k])
            row = row + side[..., k]
        acc = acc - _xlogx(row)
        total = total + row
    with np.errstate(invalid="ignore", divide="ignore"):
        score = -acc / (total * _LN2)
    return np.where(np.abs(total) < 1e-6, 0.0, score)


def _gini_score(left, right):
    """Weighted Gini impurity of the two sides, divided by the total weight."""
    score = np.zeros(left.shape[:-1])
    total = np.zeros(left.shape[:-1])
    for side in (left, right):
        row = side.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            gini = np.where(row > 0, row - (side**2).sum(axis=-1) / row, 0.0)
        score = score + gini
        total = total + row
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, score / total, 0.0)


class DecisionStumpClassifier(ClassifierMixin, BaseEstimator):
    """One axis-parallel split, chosen and applied as by Weka 3.6's ``DecisionStump``.

    Parameters
    ----------
    criterion : {"entropy", "gini"}, default="entropy"
        Split score: Weka's weighted conditional class entropy, or the weighted Gini
        impurity (svmlab extension; not a Weka option).
    block_features : int, default=256
        Features scored together in one vectorised block (memory ``n_samples x
        block_features x n_classes`` floats); does not change the result.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_ : int
        Column of the split (0 when every feature is constant).
    threshold_ : float
        Cut point: ``x[feature_] <= threshold_`` goes left (``inf`` when there is no cut).
    distributions_ : ndarray of shape (2, n_classes)
        Class distribution predicted on the left and on the right side.
    score_ : float
        Criterion value of the chosen split (``inf`` when there is no cut).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.estimators.weka.decision_stump import DecisionStumpClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> stump = DecisionStumpClassifier().fit(X, [0, 0, 1, 1])
    >>> float(stump.threshold_), stump.predict([[0.4], [2.6]]).tolist()
    (1.5, [0, 1])
    """

    _parameter_constraints: dict = {
        "criterion": [StrOptions({"entropy", "gini"})],
        "block_features": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, criterion: str = "entropy", block_features: int = 256):
        self.criterion = criterion
        self.block_features = block_features

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Find the best single split.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative instance weights (Weka instance weights); uniform by default.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        n, d = X.shape
        K = len(self.classes_)
        onehot = np.zeros((n, K))
        onehot[np.arange(n), y_idx] = w
        # class totals summed in instance order, as Weka accumulates them
        totals = np.cumsum(onehot, axis=0)[-1]
        score_fn = _entropy_score if self.criterion == "entropy" else _gini_score
        best = (np.inf, 0, np.inf, None)  # score, feature, threshold, (left, right) weights
        for f0 in range(0, d if n > 1 else 0, self.block_features):
            cols = np.ascontiguousarray(X[:, f0 : f0 + self.block_features].T)  # (b, n)
            b = cols.shape[0]
            order = np.argsort(cols, axis=1, kind="stable")
            vals = np.take_along_axis(cols, order, axis=1)
            left = np.empty((b, n - 1, K))
            right = np.empty((b, n - 1, K))
            for k in range(K):
                wk = onehot[:, k][order[:, :-1]]  # (b, n - 1), sorted per feature
                left[:, :, k] = np.cumsum(wk, axis=1)  # column i: the first i + 1 instances
                # the right side starts at the total and loses one instance at a time
                steps = np.concatenate([np.full((b, 1), totals[k]), -wk], axis=1)
                right[:, :, k] = np.cumsum(steps, axis=1)[:, 1:]
            fs, cs = np.nonzero(vals[:, 1:] > vals[:, :-1])  # cuts between distinct values
            score = np.full((b, n - 1), np.inf)
            score[fs, cs] = score_fn(left[fs, cs], right[fs, cs])
            pos = np.argmin(score, axis=1)  # first minimum: the smallest cut
            feat_scores = score[np.arange(b), pos]
            j = int(np.argmin(feat_scores))  # the first feature on ties
            if feat_scores[j] < best[0]:
                i = pos[j]
                cut = (vals[j, i] + vals[j, i + 1]) / 2.0
                sides = np.vstack([left[j, i], right[j, i]])
                best = (float(feat_scores[j]), f0 + j, float(cut), sides)
        self.score_, self.feature_, self.threshold_, dist = best
        if dist is None:  # no cut anywhere: one distribution for every instance
            dist = np.vstack([totals, totals])
        for side in range(2):
            s = dist[side].sum()
            dist[side] = dist[side] / s if s > 0 else self._prior(totals)
        self.distributions_ = dist
        return self

    @staticmethod
    def _prior(totals):
        s = totals.sum()
        return totals / s if s > 0 else np.full(len(totals), 1.0 / len(totals))

    def predict_proba(self, X):
        """Class distribution of the side each sample falls on, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        right = X[:, self.feature_] > self.threshold_
        return self.distributions_[right.astype(np.intp)]

    def predict(self, X):
        """The first class of largest probability (Weka's ``maxIndex``)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
