"""MIBoost: multi-instance boosting with bag-level weights (Xu & Frank 2004), as in Weka 3.6.

Boosting is run on *bags*. A bag's class log-odds is modelled as the average of its
instances' log-odds (the bag probability is the normalised geometric mean of the instance
probabilities). With ``N`` bags holding ``S`` instances in all and bag labels ``y_I``:

1. every bag starts with weight ``W_I = S / N``;
2. every instance of bag ``I`` gets weight ``W_I / |B_I|`` and the bag's label, and a weak
   learner ``h_m`` (default :class:`~svmlab.estimators.weka.decision_stump.DecisionStumpClassifier`,
   Weka's ``DecisionStump``) is fitted on the instances;
3. the bag error ``e_I`` is the (unweighted) fraction of bag ``I``'s instances that ``h_m``
   misclassifies;
4. the step ``c_m`` minimises ``sum_I W_I exp((2 e_I - 1) c)`` (root of the derivative);
5. ``W_I <- W_I exp((2 e_I - 1) c_m)``, rescaled to sum ``S``.

``stopping="weka"`` (default) stops as Weka's ``weka.classifiers.mi.MIBoost`` does: when no
bag has ``e_I > 0.5`` or no bag has ``e_I < 0.5`` (the minimum is at infinity or does not
exist), or when the step is not positive (``c_m <= 1e-6``, i.e. the weighted error is at
least 0.5). The model of that round is kept with step 1 if it is the first round and dropped
(step 0) otherwise. A bag is scored by ``r_k = sum_m c_m * (fraction of its instances h_m
assigns to class k)``, summed instance by instance and round by round as Weka does, and
``P(k | B) = exp(r_k) / sum_j exp(r_j)``; ``predict`` takes the first class of largest
probability (a tie goes to ``classes_[0]``).

``stopping="max_step"`` is svmlab's earlier reading (not Weka's): a first learner whose
weighted bag error reaches 0.5 leaves no round (the model predicts the training majority);
when every bag has ``e_I < 0.5`` the step is capped at ``max_step`` and that round is the
last; bags are scored by ``F = sum_m c_m mean_x h_m(x)`` (``h`` in {-1, +1}) and
``P(classes_[1] | B) = 1 / (1 + exp(-2 F))``.

Weka's ``-B`` (equal-width discretisation of the instances before boosting, default 0 = off)
is not implemented: only the default is reproduced.

Weka's own default base learner is ``ZeroR`` (``-W weka.classifiers.rules.ZeroR``); pass
``estimator=DummyClassifier(strategy="most_frequent")`` for that setting, which predicts the
majority class - the MIBoost column of the MIRSVM study.

Reference: X. Xu, E. Frank. Logistic regression and boosting for labeled bags of instances.
PAKDD 2004, LNCS 3056, 272-281.
"""

from __future__ import annotations

import math
import time
from numbers import Integral, Real

import numpy as np
from scipy.optimize import brentq
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators.mil._bags import check_bag_labels, check_bags, fit_weighted, seed_estimator
from svmlab.estimators.weka.decision_stump import DecisionStumpClassifier

__all__ = ["MIBoostClassifier"]

#: Weka's ``Utils.SMALL``: a step at most this large counts as "not positive".
_WEKA_SMALL = 1e-6


def _exp(a):
    """``exp`` element by element with the C library's function, as Java's ``Math.exp`` in
    Weka: NumPy's vectorised ``exp`` may differ in the last bit (it depends on the CPU),
    and the boosting weights then decide a near-tie of the next weak learner differently."""
    return np.fromiter(map(math.exp, np.ravel(a)), dtype=np.float64, count=np.size(a)).reshape(
        np.shape(a)
    )


def _step(W, s, max_step=np.inf):
    """argmin_c sum_I W_I exp(s_I c) with s_I = 2 e_I - 1 over c > 0 (root of the derivative).

    Returns 0 when the derivative at 0 is not negative (the minimum is at c <= 0) and
    ``max_step`` when it stays negative up to ``max_step`` (or for ever).
    """

    def grad(c):
        return float(np.sum(W * s * _exp(s * c)))

    if grad(0.0) >= 0:
        return 0.0
    if np.all(s <= 0):
        return float(max_step)
    hi = 1.0
    while grad(hi) < 0 and hi < max_step:
        hi *= 2.0
    if grad(hi) < 0:
        return float(max_step)
    return float(brentq(grad, 0.0, hi, xtol=1e-14, rtol=1e-15, maxiter=500))


class MIBoostClassifier(ClassifierMixin, BaseEstimator):
    """Multi-instance boosting (Xu & Frank 2004), by default exactly as Weka 3.6's MIBoost.

    Parameters
    ----------
    estimator : classifier or None, default=None
        Weak instance learner with ``sample_weight`` support, cloned every round. ``None``
        means :class:`~svmlab.estimators.weka.decision_stump.DecisionStumpClassifier` (Weka's
        ``DecisionStump``). Weka's own default is ``ZeroR``
        (``sklearn.dummy.DummyClassifier(strategy="most_frequent")``).
    n_estimators : int, default=10
        Maximum number of boosting rounds (Weka ``-R``, default 10).
    stopping : {"weka", "max_step"}, default="weka"
        Stopping rule, step and bag score: Weka's (module docstring), or svmlab's earlier
        reading with a capped step.
    max_step : float, default=10.0
        Cap on a round's step under ``stopping="max_step"``; unused with ``"weka"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the ``random_state`` of each round's weak learner (if it has one).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    estimators_ : list of fitted weak learners (labels 0 / 1 = index into ``classes_``)
    estimator_weights_ : ndarray of shape (n_rounds,)
        Steps ``c_m`` of the kept rounds.
    bag_weights_ : ndarray of shape (n_bags,)
        Final bag weights ``W_I``, rescaled to sum 1.
    n_features_in_ : int
    fit_info_ : dict
        ``n_rounds`` (kept rounds), ``stop`` ("n_estimators"; "separable" when no bag had
        ``e_I > 0.5`` (under "max_step": every bag ``e_I < 0.5``, called "perfect");
        "too_wrong" when no bag had ``e_I < 0.5``; "weak_error" when the step was not
        positive), ``bag_errors`` (weighted bag error ``sum W_I e_I / sum W_I`` per round),
        ``n_bags``, ``n_instances``, ``fit_seconds``.
    """

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "stopping": [StrOptions({"weka", "max_step"})],
        "max_step": [Interval(Real, 0.0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        n_estimators: int = 10,
        stopping: str = "weka",
        max_step: float = 10.0,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.stopping = stopping
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
        total = float(X.shape[0])  # Weka: bag weights sum to the number of instances
        W = np.full(n, total / n)
        self.estimators_, steps, errors = [], [], []
        stop = "n_estimators"
        weka = self.stopping == "weka"
        for m in range(self.n_estimators):
            w = np.repeat(W / sizes, sizes)
            h = fit_weighted(seed_estimator(self._make(), rng), X, y_inst, w, "MIBoost")
            wrong = (np.asarray(h.predict(X)) != y_inst).astype(float)
            e = np.add.reduceat(wrong, starts) / sizes
            errors.append(float(np.sum(W * e) / np.sum(W)))
            s = 2.0 * e - 1.0
            if weka:
                if np.all(e <= 0.5) or np.all(e >= 0.5):
                    stop = "separable" if np.all(e <= 0.5) else "too_wrong"
                    c = 0.0
                else:
                    c = _step(W, s)
                    stop = "weak_error" if c <= _WEKA_SMALL else stop
                if stop != "n_estimators":
                    if m == 0:  # Weka keeps the first model with step 1
                        self.estimators_.append(h)
                        steps.append(1.0)
                    break
            else:
                if errors[-1] >= 0.5:
                    stop = "weak_error"
                    break
                c = _step(W, s, self.max_step)
                if np.all(s < 0):
                    self.estimators_.append(h)
                    steps.append(c)
                    stop = "perfect"
                    break
            self.estimators_.append(h)
            steps.append(c)
            W = W * _exp(s * c)
            W = total * W / W.sum()
        self.estimator_weights_ = np.asarray(steps, dtype=float)
        self._majority = int(np.bincount(y_idx).argmax())
        self.bag_weights_ = W / W.sum()
        self.fit_info_ = {
            "n_rounds": int(len(steps)),
            "stop": stop,
            "bag_errors": errors,
            "n_bags": int(n),
            "n_instances": int(X.shape[0]),
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def _make(self):
        return clone(self.estimator) if self.estimator is not None else DecisionStumpClassifier()

    def _class_scores(self, bags):
        """Weka's per-bag class scores ``r`` (n_bags, 2), accumulated in Weka's order."""
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, self.n_features_in_)
        n_rounds = len(self.estimators_)
        if n_rounds == 0:
            return np.zeros((len(sizes), 2)), starts, sizes
        P = np.column_stack([np.asarray(h.predict(X)) == 1 for h in self.estimators_])
        r = np.zeros((len(sizes), 2))
        for b, (st, nb) in enumerate(zip(starts, sizes)):
            step = np.broadcast_to(self.estimator_weights_ / float(nb), (nb, n_rounds)).ravel()
            pos = P[st : st + nb].ravel()  # instance by instance, round by round
            r[b, 1] = np.cumsum(np.where(pos, step, 0.0))[-1]
            r[b, 0] = np.cumsum(np.where(pos, 0.0, step))[-1]
        return r, starts, sizes

    def decision_function(self, bags):
        """Bag score, > 0 for ``classes_[1]``; shape (n_bags,).

        ``stopping="weka"``: ``r_1 - r_0`` (the log-odds of :meth:`predict_proba`);
        ``"max_step"``: ``F(B) = sum_m c_m mean_x h_m(x)``.
        """
        r, _, _ = self._class_scores(bags)
        return r[:, 1] - r[:, 0]

    def predict_proba(self, bags):
        """Class probabilities, shape (n_bags, 2).

        ``stopping="weka"``: ``exp(r_k) / sum_j exp(r_j)`` (Weka's distribution);
        ``"max_step"``: ``P(classes_[1]) = 1 / (1 + exp(-2 F))``.
        """
        r, _, _ = self._class_scores(bags)
        if self.stopping == "weka":
            p = np.exp(r)
            return p / p.sum(axis=1, keepdims=True)
        p = 1.0 / (1.0 + np.exp(-2.0 * (r[:, 1] - r[:, 0])))
        return np.column_stack([1.0 - p, p])

    def predict(self, bags):
        """The class of largest probability (first class on ties); under ``"max_step"`` a
        model without rounds predicts the training majority class."""
        if self.stopping == "max_step" and len(self.estimators_) == 0:
            check_is_fitted(self)
            _, _, sizes = check_bags(bags, self.n_features_in_)
            return np.full(len(sizes), self.classes_[int(self._majority)])
        proba = self.predict_proba(bags)
        return self.classes_[np.argmax(proba, axis=1)]
