"""MIWrapper (Frank & Xu 2003): learn on instances labelled by their bags, average back to bags.

Every training instance inherits its bag's label. Instances are weighted so that every bag
carries the same total weight (``1 / |B|`` per instance, so each bag sums to 1): large bags do
not dominate. A single-instance probabilistic classifier is fitted on the weighted instances;
a bag's class probability is an aggregate of its instances' probabilities:

* ``"arithmetic"`` (default): mean of the instance probabilities;
* ``"geometric"``: per class, the geometric mean of the instance probabilities, renormalised
  over the two classes (equivalently, the bag log-odds is the mean instance log-odds);
* ``"max"``: the largest instance probability of ``classes_[1]`` (the standard MI assumption).

Weka's ``weka.classifiers.mi.MIWrapper`` is the paper's comparator (Melki (2018), Sec. 4.3).
The published MIWrapper accuracies equal the majority-class rate on all 15 datasets
(Weka's default base learner is ``ZeroR``); use ``estimator=DummyClassifier()`` to mimic them.

Reference: E. Frank, X. Xu. Applying propositional learning algorithms to multi-instance
data. Working paper 06/03, Dept. of Computer Science, University of Waikato, 2003.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.naive_bayes import GaussianNB
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import check_is_fitted

from svmlab.estimators.mil._bags import (
    check_bag_labels,
    check_bags,
    fit_weighted,
    instance_weights,
    positive_proba,
    seed_estimator,
)

__all__ = ["MIWrapperClassifier", "instance_weights"]

_EPS = 1e-12


class MIWrapperClassifier(ClassifierMixin, BaseEstimator):
    """MIWrapper: a propositional learner on bag-labelled, bag-weighted instances.

    Parameters
    ----------
    estimator : classifier or None, default=None
        Instance-level learner with ``predict_proba`` and ``sample_weight`` support, cloned
        in ``fit``. ``None`` means ``GaussianNB()`` (Weka's NaiveBayes, one of Frank & Xu's
        learners; scale-free, so no preprocessing is needed).
    method : {"arithmetic", "geometric", "max"}, default="arithmetic"
        How instance probabilities become a bag probability (see the module notes).
    weighting : {"bag", "none"}, default="bag"
        ``"bag"``: instance weight ``1/|B|`` so every bag totals 1 (Frank & Xu). ``"none"``:
        unit weights.
    random_state : int, RandomState instance or None, default=None
        Seeds every ``random_state`` of the (cloned) base estimator.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    estimator_ : classifier
        The fitted instance learner (labels 0 / 1 = index into ``classes_``).
    n_features_in_ : int
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``method``, ``weighting``, ``bag_weight_min`` /
        ``bag_weight_max`` (total instance weight per bag), ``fit_seconds``.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "method": [StrOptions({"arithmetic", "geometric", "max"})],
        "weighting": [StrOptions({"bag", "none"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self, estimator=None, method: str = "arithmetic", weighting: str = "bag", random_state=None
    ):
        self.estimator = estimator
        self.method = method
        self.weighting = weighting
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y):
        """Fit the instance learner on bag-labelled, bag-weighted instances.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "MIWrapper")
        self.n_features_in_ = X.shape[1]
        w = instance_weights(sizes, self.weighting)
        est = clone(self.estimator) if self.estimator is not None else GaussianNB()
        seed_estimator(est, check_random_state(self.random_state))
        self.estimator_ = fit_weighted(est, X, np.repeat(y_idx, sizes), w, "MIWrapper")
        per_bag = np.add.reduceat(w, starts)
        self.fit_info_ = {
            "n_bags": int(len(sizes)),
            "n_instances": int(X.shape[0]),
            "method": self.method,
            "weighting": self.weighting,
            "bag_weight_min": float(per_bag.min()),
            "bag_weight_max": float(per_bag.max()),
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def predict_proba(self, bags):
        """Bag class probabilities (columns ordered as ``classes_``), shape (n_bags, 2)."""
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, self.n_features_in_)
        p = np.clip(positive_proba(self.estimator_, X), 0.0, 1.0)
        if self.method == "arithmetic":
            pos = np.add.reduceat(p, starts) / sizes
        elif self.method == "max":
            pos = np.maximum.reduceat(p, starts)
        else:  # normalised geometric mean over the two classes, in log space
            lp = np.add.reduceat(np.log(np.maximum(p, _EPS)), starts) / sizes
            ln = np.add.reduceat(np.log(np.maximum(1.0 - p, _EPS)), starts) / sizes
            pos = 1.0 / (1.0 + np.exp(ln - lp))
        return np.column_stack([1.0 - pos, pos])

    def decision_function(self, bags):
        """Probability of ``classes_[1]`` per bag minus 0.5 (positive means ``classes_[1]``)."""
        return self.predict_proba(bags)[:, 1] - 0.5

    def predict(self, bags):
        """Bag labels: ``classes_[1]`` when its bag probability exceeds 0.5."""
        return self.classes_[(self.predict_proba(bags)[:, 1] > 0.5).astype(np.intp)]
