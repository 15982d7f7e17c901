"""MIBoost: multi-instance boosting with bag-level weights (Xu & Frank 2004).

Boosting is run on *bags*. A bag's class log-odds is modelled as the average of its
instances' log-odds, i.e. the bag probability is the (normalised) geometric mean of the
instance probabilities. Under exponential loss this gives the following AdaBoost-like
procedure, with bag labels ``Y_I`` in {-1, +1} and bag weights ``W_I`` (initially ``1/n``):

1. every instance of bag ``I`` gets weight ``W_I / |B_I|`` and the label ``Y_I``; a weak
   learner ``h_m`` (default a decision stump) is fitted on the instances;
2. the bag error ``e_I`` is the fraction of bag ``I``'s instances that ``h_m`` misclassifies;
   stop when the weighted error ``sum_I W_I e_I >= 0.5``;
3. the step ``c_m > 0`` minimises ``sum_I W_I exp((2 e_I - 1) c)`` (a 1-D convex problem,
   solved by root-finding on its derivative; capped at ``max_step`` when every bag has
   ``e_I < 0.5`` and the minimum is at infinity);
4. ``W_I <- W_I exp((2 e_I - 1) c_m)``, renormalised.

The bag score is ``F(B) = sum_m c_m mean_{x in B} h_m(x)`` (``h_m`` in {-1, +1}); the bag is
positive when ``F(B) > 0`` and ``P(classes_[1] | B) = 1 / (1 + exp(-2 F(B)))``.

Weka's ``weka.classifiers.mi.MIBoost`` (base DecisionStump, 10 iterations, no
discretisation) is the paper's comparator (Melki (2018), Sec. 4.3). Its published
accuracies equal the majority-class rate on all 15 datasets; why is not known (the Weka
run may have stopped at the first round or used ``ZeroR``).

Reference: X. Xu, E. Frank. Logistic regression and boosting for labeled bags of instances.
PAKDD 2004, LNCS 3056, 272-281.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from scipy.optimize import brentq
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from svmlab.estimators.mil._bags import check_bag_labels, check_bags, fit_weighted, seed_estimator

__all__ = ["MIBoostClassifier"]


def _step(W, s, max_step):
    """argmin_c>0 sum_I W_I exp(s_I c) with s_I = 2 e_I - 1 (derivative root; capped)."""

    def grad(c):
        return float(np.sum(W * s * np.exp(s * c)))

    if np.all(s <= 0):
        return float(max_step)
    hi = 1.0
    while grad(hi) < 0 and hi < max_step:
        hi *= 2.0
    if grad(hi) < 0:
        return float(max_step)
    return float(brentq(grad, 0.0, hi, xtol=1e-10))


class MIBoostClassifier(ClassifierMixin, BaseEstimator):
    """Multi-instance boosting (Xu & Frank 2004): bag weights, geometric-mean bag probabilities.

    Parameters
    ----------
    estimator : classifier or None, default=None
        Weak instance learner with ``sample_weight`` support, cloned every round. ``None``
        means ``DecisionTreeClassifier(max_depth=1)`` (a decision stump, as Weka's default
        ``DecisionStump``).
    n_estimators : int, default=10
        Maximum number of boosting rounds (Weka MIBoost's ``maxIterations`` default, 10).
    max_step : float, default=10.0
        Cap on a round's step ``c_m`` when every bag is classified correctly by the
        majority of its instances (the unconstrained minimum is then at infinity); that
        round is the last one.
    random_state : int, RandomState instance or None, default=None
        Seeds the ``random_state`` of each round's weak learner.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    estimators_ : list of fitted weak learners (labels 0 / 1 = index into ``classes_``)
    estimator_weights_ : ndarray of shape (n_rounds,)
        Steps ``c_m``.
    bag_weights_ : ndarray of shape (n_bags,)
        Final bag weights ``W_I`` (sum 1).
    n_features_in_ : int
    fit_info_ : dict
        ``n_rounds``, ``stop`` ("n_estimators", "weak_error" when a learner's weighted bag
        error reached 0.5, "perfect" when every bag had ``e_I < 0.5``), ``bag_errors``
        (weighted bag error per round), ``n_bags``, ``n_instances``, ``fit_seconds``.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_step": [Interval(Real, 0.0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, estimator=None, n_estimators: int = 10, max_step: float = 10.0, random_state=None
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_step = max_step
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y):
        """Boost weak instance learners with bag-level weights.

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
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "MIBoost")
        self.n_features_in_ = X.shape[1]
        n = len(sizes)
        rng = check_random_state(self.random_state)
        y_inst = np.repeat(y_idx, sizes)
        W = np.full(n, 1.0 / n)
        self.estimators_, steps, errors = [], [], []
        stop = "n_estimators"
        for _ in range(self.n_estimators):
            # instance weights W_I / |B_I|, rescaled to mean 1 (scale-free for the learner)
            w = np.repeat(W / sizes, sizes) * X.shape[0]
            h = fit_weighted(seed_estimator(self._make(), rng), X, y_inst, w, "MIBoost")
            wrong = (np.asarray(h.predict(X)) != y_inst).astype(float)
            e = np.add.reduceat(wrong, starts) / sizes
            err = float(np.sum(W * e))
            errors.append(err)
            if err >= 0.5:
                stop = "weak_error"
                break
            s = 2.0 * e - 1.0
            c = _step(W, s, self.max_step)
            self.estimators_.append(h)
            steps.append(c)
            if np.all(s < 0):
                stop = "perfect"
                break
            W = W * np.exp(s * c)
            W /= W.sum()
        self.estimator_weights_ = np.asarray(steps, dtype=float)
        self._majority = int(np.bincount(y_idx).argmax())
        self.bag_weights_ = W
        self.fit_info_ = {
            "n_rounds": int(len(steps)),
            "stop": stop,
            "bag_errors": [float(v) for v in errors],
            "n_bags": int(n),
            "n_instances": int(X.shape[0]),
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def _make(self):
        return (
            clone(self.estimator)
            if self.estimator is not None
            else DecisionTreeClassifier(max_depth=1)
        )

    def decision_function(self, bags):
        """Bag score ``F(B) = sum_m c_m mean_x h_m(x)`` (positive: ``classes_[1]``), (n_bags,).

        With no accepted round (the first weak learner already had bag error >= 0.5) every
        score is 0 and the prediction falls back to the training majority class.
        """
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, self.n_features_in_)
        F = np.zeros(len(sizes))
        for c, h in zip(self.estimator_weights_, self.estimators_):
            pm = 2.0 * (np.asarray(h.predict(X)) == 1) - 1.0
            F += c * np.add.reduceat(pm, starts) / sizes
        return F

    def predict_proba(self, bags):
        """``P(classes_[1] | B) = 1 / (1 + exp(-2 F(B)))``; shape (n_bags, 2)."""
        p = 1.0 / (1.0 + np.exp(-2.0 * self.decision_function(bags)))
        return np.column_stack([1.0 - p, p])

    def predict(self, bags):
        """``classes_[1]`` when ``F(B) > 0``; a model without rounds predicts the majority class."""
        F = self.decision_function(bags)
        if len(self.estimators_) == 0:
            return np.full(len(F), self.classes_[int(self._majority)])
        return self.classes_[(F > 0).astype(np.intp)]
