"""The weighted majority class, as Weka's ``weka.classifiers.rules.ZeroR`` computes it.

ZeroR is the default base learner of Weka's multi-instance wrappers (``MIWrapper``,
``SimpleMI``, ``MIBoost``), and so what the MIRSVM and HyDR-MI papers' majority-rate columns
ran. It ignores the attributes: every class starts with a count of 1 (Laplace), the training
weights are added class by class in row order, the predicted class is the largest count (the
first one on a tie) and the class distribution is the counts divided by a running total of
the weights (started at the number of classes), which need not equal their sum exactly.

scikit-learn's ``DummyClassifier(strategy="prior")`` predicts the same class except where the
two classes tie up to rounding: there the +1 start and the summation order decide, e.g. inside
``MIWrapper -P 3`` on balanced folds (the max method compares ``p1`` with ``1 - p1``).
:class:`ZeroRClassifier` adds the weights in Weka's order, so it breaks such ties as Weka does.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, _check_sample_weight, _fit_context

__all__ = ["ZeroRClassifier"]


class ZeroRClassifier(ClassifierMixin, BaseEstimator):
    """Weka's ZeroR: the weighted majority class with a Laplace-smoothed class distribution.

    Parameters
    ----------
    smoothing : float, default=1.0
        Starting count of every class (Weka: 1).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    counts_ : ndarray of shape (n_classes,)
        ``smoothing`` plus the class's training weights, added in row order.
    class_distribution_ : ndarray of shape (n_classes,)
        ``counts_`` divided by Weka's running total (``n_classes * smoothing`` plus every
        weight in row order): what ``predict_proba`` returns for every row.
    n_features_in_ : int
    """

    _parameter_constraints: dict = {"smoothing": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, smoothing: float = 1.0):
        self.smoothing = smoothing

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Count the (weighted) classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Checked, otherwise unused.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        start = float(self.smoothing)
        # np.cumsum adds one value after the other, as Weka's counter does
        self.counts_ = np.array(
            [np.cumsum(np.r_[start, w[y_idx == c]])[-1] for c in range(len(self.classes_))]
        )
        # Weka divides by its own running total: n_classes * smoothing, then every weight
        total = np.cumsum(np.r_[len(self.classes_) * start, w])[-1]
        self.class_distribution_ = self.counts_ / total if total > 0 else self.counts_
        return self

    def predict_proba(self, X):
        """The training class distribution for every row; shape (n_samples, n_classes)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.tile(self.class_distribution_, (X.shape[0], 1))

    def predict(self, X):
        """The class with the largest count (the first one on ties, as Weka) for every row."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.full(X.shape[0], self.classes_[np.argmax(self.counts_)])
