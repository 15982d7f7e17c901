"""AdaBoost.M1 by reweighting, as Weka 3.6's ``weka.classifiers.meta.AdaBoostM1`` runs it.

:class:`AdaBoostM1Classifier` is a general single-instance classifier (``fit(X, y,
sample_weight=None)``, ``predict``, ``predict_proba``). With its defaults it is Weka 3.6's
``AdaBoostM1 -P 100 -S 1 -I 10 -W weka.classifiers.rules.PART`` (Weka's own default base
learner is DecisionStump; here it is :class:`~svmlab.estimators.weka.part.PARTClassifier`), the
"AdaBoost&PART" base learner of the HyDR-MI study's MIWrapper and SimpleMI columns.

Reference: Y. Freund, R. E. Schapire. Experiments with a new boosting algorithm. Proc. 13th
International Conference on Machine Learning (ICML), 148-156, 1996.

The boosting loop (Weka's reweighting mode)
-------------------------------------------
* Every iteration fits a fresh clone of ``estimator`` on the training instances with the
  current weights (starting at ``sample_weight``, 1 by default). With ``weight_threshold <
  100`` only the heaviest instances holding that percentage of the weight are used (Weka
  ``-P``; the cut only falls between different weights).
* The weighted training error ``err`` counts every training instance (all of them, whatever
  ``weight_threshold``) whose predicted class, the first class of strictly largest
  probability, is wrong; an instance whose distribution is all zeros counts as unclassified,
  not wrong (Weka's ``Evaluation``).
* If ``err >= 0.5`` or ``err == 0`` (up to ``1e-6``), boosting stops and the model is dropped,
  except in the first iteration, where it is kept as the only member. Otherwise it joins with
  vote weight ``log((1 - err) / err) = log(1 / beta)``, ``beta = err / (1 - err)``; the weights
  of the instances it misclassifies (its ``predict``) are multiplied by ``1 / beta`` and all
  weights are rescaled to their previous sum.
* A single member predicts its own class distribution; several members vote their weights on
  their predicted classes and the distribution is ``exp(votes - max) / sum`` (Weka's
  ``logs2probs``); ``predict`` takes the first class of largest probability.

Weka resamples instead when asked to (``-Q``) or when the base learner cannot take instance
weights; this estimator requires a base learner whose ``fit`` accepts ``sample_weight``.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from svmlab._sklearn_compat import HasMethods, Interval, _check_sample_weight, _fit_context
from svmlab.estimators.mil._bags import seed_estimator
from svmlab.estimators.weka.part import PARTClassifier

__all__ = ["AdaBoostM1Classifier"]

_SMALL = 1e-6  # Weka's Utils.SMALL


def heaviest_instances(weights, quantile: float):
    """Indices of the heaviest instances holding ``quantile`` of the total weight, heaviest
    first; the cut is made only between different weights (Weka's
    ``AdaBoostM1.selectWeightQuantile``)."""
    weights = np.asarray(weights, dtype=np.float64)
    mass = float(np.cumsum(weights)[-1]) * quantile
    desc = np.argsort(weights, kind="stable")[::-1]
    w = weights[desc]
    cum = np.cumsum(w)
    stop = (cum[:-1] > mass) & (w[:-1] != w[1:])
    hit = np.flatnonzero(stop)
    return desc if hit.size == 0 else desc[: hit[0] + 1]


class AdaBoostM1Classifier(ClassifierMixin, BaseEstimator):
    """Weka 3.6's AdaBoostM1 (reweighting), by default boosting PART.

    Parameters
    ----------
    estimator : classifier or None, default=None
        Base learner; its ``fit`` must accept ``sample_weight``. None means
        ``PARTClassifier()`` (Weka ``-W weka.classifiers.rules.PART``).
    n_iterations : int, default=10
        Maximum number of boosting iterations (Weka ``-I``).
    weight_threshold : int, default=100
        Percentage of the weight mass each iteration trains on (Weka ``-P``).
    random_state : int, RandomState instance or None, default=None
        Seeds every ``random_state`` of each iteration's base learner (the role of Weka's
        ``-S`` for randomizable base learners; PART draws no random numbers).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    estimators_ : list of classifier
        The members, fitted on class indices ``0 .. n_classes - 1``.
    estimator_weights_ : ndarray of shape (n_members,)
        Vote weights ``log((1 - err) / err)`` (0 for a lone first member kept despite an error
        of 0 or at least 0.5).
    errors_ : ndarray of shape (n_fitted,)
        Weighted training error of every fitted model, the discarded last one included.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.estimators.weka.adaboost_m1 import AdaBoostM1Classifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> boost = AdaBoostM1Classifier().fit(X, [0, 0, 0, 1, 1, 1])
    >>> len(boost.estimators_), boost.predict([[0.5], [4.5]]).tolist()
    (1, [0, 1])
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_iterations": [Interval(Integral, 1, None, closed="left")],
        "weight_threshold": [Interval(Integral, 0, 100, closed="both")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        n_iterations: int = 10,
        weight_threshold: int = 100,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_iterations = n_iterations
        self.weight_threshold = weight_threshold
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Boost the base learner.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative starting instance weights (Weka instance weights); 1 by default.

        Returns
        -------
        self : object
        """
        base = self.estimator if self.estimator is not None else PARTClassifier()
        if not has_fit_parameter(base, "sample_weight"):
            raise ValueError(
                f"AdaBoostM1Classifier: estimator {type(base).__name__} does not accept "
                "sample_weight; boosting by reweighting needs a base learner that does"
            )
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64, copy=True)
        rng = check_random_state(self.random_state)
        members, betas, errors = [], [], []
        for it in range(self.n_iterations):
            if self.weight_threshold < 100:
                rows = heaviest_instances(weights, self.weight_threshold / 100.0)
            else:
                rows = slice(None)
            est = seed_estimator(clone(base), rng)
            est.fit(X[rows], y_idx[rows], sample_weight=weights[rows])
            # Weka's Evaluation: strictly largest probability, all-zero rows unclassified
            dist = self._member_distribution(est, X)
            best = np.zeros(len(y_idx))
            guess = np.full(len(y_idx), -1)
            for k in range(dist.shape[1]):
                better = dist[:, k] > best
                best[better] = dist[better, k]
                guess[better] = k
            wrong = (guess >= 0) & (guess != y_idx)
            err = float(np.cumsum(np.where(wrong, weights, 0.0))[-1] / np.cumsum(weights)[-1])
            errors.append(err)
            if err >= 0.5 - _SMALL or abs(err) < _SMALL:
                if it == 0:  # the first model is kept whatever its error
                    members.append(est)
                    betas.append(0.0)
                break
            reweight = (1.0 - err) / err
            members.append(est)
            betas.append(math.log(reweight))
            if it == self.n_iterations - 1:
                break  # the weights are not used again
            missed = self._member_classes(est, X) != y_idx
            old = float(np.cumsum(weights)[-1])
            weights[missed] *= reweight
            weights = weights * old / float(np.cumsum(weights)[-1])
        self.estimators_ = members
        self.estimator_weights_ = np.asarray(betas)
        self.errors_ = np.asarray(errors)
        return self

    def _member_distribution(self, est, X):
        """A member's class distribution over all classes (Weka's ``distributionForInstance``,
        all zeros where PART's covering rule weighs nothing)."""
        if hasattr(est, "_weka_distribution"):
            proba = est._weka_distribution(X)
        else:
            proba = est.predict_proba(X)
        out = np.zeros((X.shape[0], len(self.classes_)))
        out[:, np.asarray(est.classes_, dtype=np.intp)] = proba
        return out

    @staticmethod
    def _member_classes(est, X):
        """A member's predicted class indices (Weka's ``classifyInstance``)."""
        return np.asarray(est.predict(X), dtype=np.intp)

    def _distribution(self, X):
        if len(self.estimators_) == 1:
            return self._member_distribution(self.estimators_[0], X)
        votes = np.zeros((X.shape[0], len(self.classes_)))
        rows = np.arange(X.shape[0])
        for est, beta in zip(self.estimators_, self.estimator_weights_):
            votes[rows, self._member_classes(est, X)] += beta
        proba = np.exp(votes - votes.max(axis=1, keepdims=True))
        return proba / proba.sum(axis=1, keepdims=True)

    def predict_proba(self, X):
        """Weka's ``distributionForInstance`` of AdaBoostM1, shape (n_samples, n_classes); an
        all-zero distribution of a lone member becomes uniform."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        proba = self._distribution(X)
        empty = proba.sum(axis=1) <= 0
        proba[empty] = 1.0 / len(self.classes_)
        return proba

    def predict(self, X):
        """The first class of largest probability (Weka's ``classifyInstance``)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.classes_[np.argmax(self._distribution(X), axis=1)]
