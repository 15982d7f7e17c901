"""Gaussian naive Bayes as Weka's ``weka.classifiers.bayes.NaiveBayes`` computes it.

Weka's NaiveBayes (default options: no kernel estimator, no discretisation; John & Langley
1995) is not scikit-learn's :class:`~sklearn.naive_bayes.GaussianNB`. Three differences decide
its predictions, and :class:`PrecisionNaiveBayes` reproduces all of them:

* **Precision.** Every numeric attribute gets a precision ``delta``: the mean gap between
  adjacent distinct training values, i.e. ``(max - min) / (n_distinct - 1)`` (``0.01`` when the
  attribute has a single value). Training and test values are rounded to the nearest multiple
  of ``delta`` (ties to even) before they are used.
* **Standard-deviation floor.** Per class, the mean and the (weighted, divide-by-``W``) standard
  deviation of the rounded values are estimated; the standard deviation is at least
  ``delta / 6`` ("at most three standard deviations per precision interval"), and it is exactly
  ``delta / 6`` when the rounded values of the class do not vary. scikit-learn instead adds
  ``var_smoothing`` times the largest feature variance to every variance, which swamps the
  attributes of small spread (the reason GaussianNB is far from Weka on mutagenesis-atoms).
* **Interval likelihood.** The likelihood of a value is the normal probability mass of its
  precision interval, ``Phi((x - mu + delta/2) / sd) - Phi((x - mu - delta/2) / sd)``, not a
  density, floored at ``1e-75`` per attribute. The class prior is Laplace-smoothed:
  ``(W_c + 1) / (W + K)``. The product over the attributes is formed in attribute order with
  Weka's underflow guard (all classes are multiplied by ``1e75`` whenever the largest running
  product drops below ``1e-75``); a class whose product underflows to zero stays at zero, as in
  Weka.

Sample weights act as Weka instance weights. One deliberate difference: rows of weight zero
are ignored entirely, whereas Weka still lets them shape the precision ``delta`` (so that a
zero weight equals removing the row, as scikit-learn's estimator contract requires).

References
----------
G. H. John, P. Langley. Estimating continuous distributions in Bayesian classifiers. In:
Eleventh Conference on Uncertainty in Artificial Intelligence, 338-345, 1995.
Weka 3.6 classes ``weka.classifiers.bayes.NaiveBayes`` and ``weka.estimators.NormalEstimator``.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import ndtr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, _check_sample_weight, _fit_context

__all__ = [
    "PrecisionNaiveBayes",
    "attribute_precision",
    "class_normals",
    "class_weight_rows",
    "interval_likelihood",
    "round_to_precision",
]

#: Weka's per-attribute likelihood floor and its underflow rescaling factor.
_FLOOR = 1e-75
_RESCALE = 1e75
#: Below this the standard deviation is taken as "no spread seen" (Weka's NormalEstimator).
_NO_SPREAD = 1e-10


def attribute_precision(X, default: float = 0.01):
    """Weka's precision of every column: the mean gap between adjacent distinct values.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    default : float, default=0.01
        Precision of a column with fewer than two distinct values.

    Returns
    -------
    ndarray of shape (n_features,)
        ``(max - min) / (n_distinct - 1)``, the gaps summed in ascending order as Weka does.
    """
    X = np.asarray(X, dtype=np.float64)
    precision = np.full(X.shape[1], float(default))
    if X.shape[0] < 2:
        return precision
    gaps = np.diff(np.sort(X, axis=0), axis=0)
    distinct = np.count_nonzero(gaps, axis=0)
    total = np.cumsum(gaps, axis=0)[-1]  # sequential, like Weka's running sum
    ok = distinct > 0
    precision[ok] = total[ok] / distinct[ok]
    return precision


def round_to_precision(X, precision):
    """Every value rounded to the nearest multiple of its column's precision (ties to even)."""
    return np.rint(X / precision) * precision


def class_weight_rows(y_idx, w, n_classes: int):
    """``(n_classes, n_samples)`` matrix holding each row's weight in its class's line."""
    onehot = np.zeros((n_classes, len(y_idx)))
    onehot[y_idx, np.arange(len(y_idx))] = w
    return onehot


def class_normals(onehot, R, precision):
    """Per-class weighted mean and floored standard deviation of the rounded values ``R``
    (Weka's NormalEstimator): ``(theta, sigma)``, each of shape (n_classes, n_features)."""
    W = onehot.sum(axis=1)
    s1, s2 = onehot @ R, onehot @ (R * R)
    safe = np.where(W > 0, W, 1.0)[:, None]
    mean = np.where(W[:, None] > 0, s1 / safe, 0.0)
    std = np.sqrt(np.abs(s2 - mean * s1) / safe)
    floor = np.broadcast_to(precision / 6.0, std.shape)
    return mean, np.where(std > _NO_SPREAD, np.maximum(floor, std), floor)


def interval_likelihood(r, theta, sigma, half):
    """Normal probability mass of the precision interval ``r +- half`` (floored at Weka's
    ``1e-75``); the arguments broadcast together."""
    lower = ndtr((r - theta - half) / sigma)
    upper = ndtr((r - theta + half) / sigma)
    return np.maximum(_FLOOR, upper - lower)


class PrecisionNaiveBayes(ClassifierMixin, BaseEstimator):
    """Gaussian naive Bayes with Weka's precision rounding, sd floor and interval likelihood.

    Equivalent to Weka 3.6 ``weka.classifiers.bayes.NaiveBayes`` with its default options
    (numeric attributes; see the module notes for the three differences from
    :class:`~sklearn.naive_bayes.GaussianNB`). A general single-instance learner; the
    multi-instance wrappers (:class:`~svmlab.estimators.mil.MIWrapperClassifier`,
    :class:`~svmlab.estimators.mil.SimpleMIClassifier`) use it as Weka's NaiveBayes base.

    Parameters
    ----------
    default_precision : float, default=0.01
        Precision of an attribute with a single distinct training value (Weka's constant).
    prior_smoothing : float, default=1.0
        Added to every class's total weight in the class prior (Weka: Laplace, 1).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
        ``(W_c + prior_smoothing) / (W + n_classes * prior_smoothing)``.
    precision_ : ndarray of shape (n_features,)
        The rounding precision ``delta`` of every attribute.
    theta_ : ndarray of shape (n_classes, n_features)
        Weighted mean of the rounded values per class.
    sigma_ : ndarray of shape (n_classes, n_features)
        Standard deviation per class after the ``delta / 6`` floor.
    n_features_in_ : int
    """

    _parameter_constraints: dict = {
        "default_precision": [Interval(Real, 0, None, closed="neither")],
        "prior_smoothing": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, default_precision: float = 0.01, prior_smoothing: float = 1.0):
        self.default_precision = default_precision
        self.prior_smoothing = prior_smoothing

    def _round(self, X):
        return round_to_precision(X, self.precision_)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Estimate the precisions, the per-class normal distributions and the class prior.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Instance weights (Weka's instance weights); rows of weight zero are ignored.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        keep = w > 0
        self.precision_ = attribute_precision(X[keep], self.default_precision)
        R = self._round(X[keep])
        w, y_idx = w[keep], y_idx[keep]
        onehot = class_weight_rows(y_idx, w, len(self.classes_))
        W = onehot.sum(axis=1)
        self.theta_, self.sigma_ = class_normals(onehot, R, self.precision_)
        k = len(self.classes_)
        self.class_prior_ = (W + self.prior_smoothing) / (W.sum() + k * self.prior_smoothing)
        return self

    def predict_proba(self, X):
        """Class probabilities, columns ordered as ``classes_``; shape (n_samples, n_classes)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        R = self._round(X)
        half = self.precision_ / 2.0
        probs = np.tile(self.class_prior_, (X.shape[0], 1))
        for j in range(X.shape[1]):
            probs *= interval_likelihood(
                R[:, j, None], self.theta_[:, j], self.sigma_[:, j], half[j]
            )
            top = probs.max(axis=1)
            low = (top > 0) & (top < _FLOOR)
            if low.any():
                probs[low] *= _RESCALE
        return probs / probs.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The most probable class (the first one on ties, as Weka)."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
