"""MIWrapper (Frank & Xu 2003): learn on instances labelled by their bags, combine back to bags.

Every training instance inherits its bag's label and a weight that depends on its bag's size
(``weighting``). A single-instance probabilistic classifier is fitted on the weighted
instances; a bag's class distribution combines its instances' distributions (``method``).
With the defaults this is Weka 3.6's ``weka.classifiers.mi.MIWrapper`` as run from its command
line (``-P 1 -A 3``), given an equivalent base learner:

* ``weighting``: ``"bag_scaled"`` (Weka ``-A 3``, default): ``N / (n_bags * |B|)`` with ``N``
  the number of training instances, so every bag totals the mean bag size and all weights sum
  to ``N``; ``"bag"`` (Weka ``-A 2``): ``1 / |B|``, every bag totals 1; ``"none"`` (Weka
  ``-A 1``): 1; ``"original"`` (Weka ``-A 0``): the bag's weight (``sample_weight``, 1 when
  not given) divided by ``|B|``. The bag-proportional schemes differ by a constant factor,
  which changes learners whose fit depends on the weights' scale (a Laplace prior, ``C`` of an
  SVM, a minimum leaf weight). Like Weka, only ``"original"`` uses the bag weights.
* ``method``: ``"arithmetic"`` (Weka ``-P 1``, default): per class, the mean of the instance
  probabilities; ``"geometric"`` (Weka ``-P 2``): per class, the geometric mean of the
  instance probabilities, each first clipped to ``[clip, 1 - clip]`` (Weka: ``clip = 0.001``);
  ``"max"`` (Weka ``-P 3``): the largest instance probability of ``classes_[1]`` (the standard
  MI assumption), the other class getting the rest. The per-class values are then normalised
  to sum to one (uniform when they sum to almost zero, below ``1e-6``, as Weka does); the
  predicted class is the most probable one, ``classes_[0]`` on a tie.

Weka's MIWrapper has no preprocessing of its own: the base learner sees the raw attribute
values. Weka's default base learner is ``ZeroR`` (the weighted majority class); the MIRSVM and
HyDR-MI papers' MIWrapper columns equal the majority rate, i.e. that default. The equivalent
here is ``estimator=ZeroRClassifier()`` (:mod:`svmlab.estimators.weka.zero_r`), which also breaks
exact ties between the classes as Weka does; ``DummyClassifier(strategy="prior")`` differs from
it only there (docs/decisions/mil.md).

Reference: E. Frank, X. Xu. Applying propositional learning algorithms to multi-instance
data. Working paper 06/03, Dept. of Computer Science, University of Waikato, 2003.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators.mil._bags import (
    check_bag_labels,
    check_bags,
    fit_weighted,
    seed_estimator,
)
from svmlab.estimators.weka.naive_bayes import PrecisionNaiveBayes
from svmlab.estimators.weka.naive_bayes_columns import NaiveBayesColumns

__all__ = ["MIWrapperClassifier", "bag_distribution", "instance_weights", "two_class_proba"]

#: Weka MIWrapper's ``-A`` code of every ``weighting``.
WEKA_WEIGHT_METHOD = {"bag_scaled": 3, "bag": 2, "none": 1, "original": 0}
#: Weka MIWrapper's ``-P`` code of every ``method``.
WEKA_TEST_METHOD = {"arithmetic": 1, "geometric": 2, "max": 3}


def instance_weights(sizes, weighting: str = "bag_scaled", bag_weights=None):
    """Training weight of every instance, stacked bag after bag.

    Parameters
    ----------
    sizes : array-like of int, shape (n_bags,)
    weighting : {"bag_scaled", "bag", "none", "original"}, default="bag_scaled"
        ``"bag_scaled"``: ``N / (n_bags * |B|)`` (Weka MIWrapper ``-A 3``); ``"bag"``:
        ``1 / |B|`` (``-A 2``); ``"none"``: 1 (``-A 1``); ``"original"``: bag weight
        ``/ |B|`` (``-A 0``).
    bag_weights : array-like of shape (n_bags,), optional
        The bags' weights, used by ``"original"`` only (default 1 per bag).

    Returns
    -------
    ndarray of shape (sum(sizes),)
    """
    sizes = np.asarray(sizes, dtype=np.intp)
    if weighting == "bag_scaled":
        return np.repeat(float(sizes.sum()) / (len(sizes) * sizes), sizes)
    if weighting == "bag":
        return np.repeat(1.0 / sizes, sizes)
    if weighting == "none":
        return np.ones(int(sizes.sum()))
    if weighting == "original":
        bw = np.ones(len(sizes)) if bag_weights is None else np.asarray(bag_weights, float)
        return np.repeat(bw / sizes, sizes)
    raise ValueError(
        f"weighting must be 'bag_scaled', 'bag', 'none' or 'original', got {weighting!r}"
    )


def two_class_proba(estimator, X):
    """Columns (index 0, index 1) of a fitted classifier's ``predict_proba`` on labels {0, 1};
    a label the classifier never saw gets probability 0. Shape (n_samples, 2)."""
    proba = np.asarray(estimator.predict_proba(X), dtype=float)
    out = np.zeros((X.shape[0], 2))
    for col, label in enumerate(estimator.classes_):
        if label in (0, 1):
            out[:, int(label)] = proba[:, col]
    return out


def _bag_sums(V, starts, sizes):
    """Per-bag column sums of ``V`` (instances stacked bag after bag), added one instance after
    the other in bag order, as Weka's MIWrapper does: exact ties between the classes (e.g. a
    bag of as many sure positives as sure negatives) then break the same way."""
    pad = np.zeros((len(sizes), int(sizes.max()), V.shape[1]))
    pad[
        np.repeat(np.arange(len(sizes)), sizes), np.arange(V.shape[0]) - np.repeat(starts, sizes)
    ] = V
    return np.cumsum(pad, axis=1)[:, -1]  # cumsum is sequential; the trailing zeros add nothing


def bag_distribution(P, starts, sizes, method: str = "arithmetic", clip: float = 0.001):
    """Bag class distributions from the instances' two-class probabilities ``P`` (stacked bag
    after bag), combined by ``method`` as in :meth:`MIWrapperClassifier.predict_proba`."""
    n_i = np.repeat(sizes, sizes)[:, None].astype(float)
    if method == "arithmetic":
        dist = _bag_sums(P / n_i, starts, sizes)
    elif method == "geometric":
        logs = np.log(np.clip(P, clip, 1.0 - clip)) / n_i
        dist = np.exp(_bag_sums(logs, starts, sizes))
    else:
        top = np.maximum.reduceat(np.maximum(P[:, 1], 0.0), starts)
        dist = np.column_stack([1.0 - top, top])
    total = dist.sum(axis=1, keepdims=True)
    flat = np.abs(total[:, 0]) < 1e-6
    dist = dist / np.where(flat[:, None], 1.0, total)
    dist[flat] = 0.5
    return dist


class MIWrapperClassifier(ClassifierMixin, BaseEstimator):
    """MIWrapper: a propositional learner on bag-labelled, bag-weighted instances.

    The defaults reproduce Weka 3.6 ``weka.classifiers.mi.MIWrapper -P 1 -A 3`` with base
    learner ``weka.classifiers.bayes.NaiveBayes`` (see the module notes).

    Parameters
    ----------
    estimator : classifier or None, default=None
        Instance-level learner with ``predict_proba`` and ``sample_weight`` support, cloned in
        ``fit``. ``None`` means :class:`~svmlab.estimators.weka.naive_bayes.PrecisionNaiveBayes`
        (Weka's NaiveBayes, one of Frank & Xu's learners). Weka's own default, ZeroR, is
        :class:`~svmlab.estimators.weka.zero_r.ZeroRClassifier`.
    method : {"arithmetic", "geometric", "max"}, default="arithmetic"
        How instance probabilities become a bag distribution (Weka ``-P 1 / 2 / 3``).
    weighting : {"bag_scaled", "bag", "none", "original"}, default="bag_scaled"
        Instance weights (Weka ``-A 3 / 2 / 1 / 0``).
    clip : float, default=0.001
        ``method="geometric"`` only: instance probabilities are clipped to
        ``[clip, 1 - clip]`` before the logarithm (Weka: 0.001; svmlab before 2026-11 used
        ``1e-12``).
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

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "method": [StrOptions({"arithmetic", "geometric", "max"})],
        "weighting": [StrOptions({"bag_scaled", "bag", "none", "original"})],
        "clip": [Interval(Real, 0, 0.5, closed="both")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        method: str = "arithmetic",
        weighting: str = "bag_scaled",
        clip: float = 0.001,
        random_state=None,
    ):
        self.estimator = estimator
        self.method = method
        self.weighting = weighting
        self.clip = clip
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y, sample_weight=None):
        """Fit the instance learner on bag-labelled, bag-weighted instances.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes.
        sample_weight : array-like of shape (n_bags,), default=None
            Bag weights. Used by ``weighting="original"`` only; the other weightings ignore
            them, as Weka's MIWrapper does.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "MIWrapper")
        self.n_features_in_ = X.shape[1]
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64).ravel()
            if sample_weight.shape != (len(sizes),) or not np.all(np.isfinite(sample_weight)):
                raise ValueError(f"sample_weight must hold {len(sizes)} finite bag weights")
            if np.any(sample_weight < 0):
                raise ValueError("sample_weight must be non-negative")
        w = instance_weights(sizes, self.weighting, sample_weight)
        est = clone(self.estimator) if self.estimator is not None else PrecisionNaiveBayes()
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
        P = two_class_proba(self.estimator_, X)
        return bag_distribution(P, starts, sizes, self.method, self.clip)

    def feature_mask_predictor(self, X, starts, y, folds):
        """Predictions of this (unfitted) classifier refitted on any feature subset, without
        refitting: a callable ``mask -> ndarray of bool (n_bags,)``, true where the bag's
        prediction is ``classes_[1]`` of ``y``, each bag predicted by the model of the fold
        that tests it; None when the base learner is not Weka's naive Bayes (its fit does not
        decompose over the features) or a fold lacks a class. Used by the genetic search of
        HyDR-MI (:class:`svmlab.selection.GeneticFeatureSelector`).

        Parameters
        ----------
        X : ndarray of shape (n_instances, n_features)
            All instances, bag after bag.
        starts : ndarray of shape (n_bags,)
            Row of ``X`` where each bag begins.
        y : ndarray of shape (n_bags,)
            Two classes.
        folds : list of (train, test) arrays of bag indices
        """
        est = self.estimator if self.estimator is not None else PrecisionNaiveBayes()
        if type(est) is not PrecisionNaiveBayes:
            return None
        return _naive_bayes_mask_predictor(self, est, X, starts, y, folds)

    def decision_function(self, bags):
        """Probability of ``classes_[1]`` per bag minus 0.5 (positive means ``classes_[1]``)."""
        return self.predict_proba(bags)[:, 1] - 0.5

    def predict(self, bags):
        """Bag labels: the most probable class, ``classes_[0]`` on a tie (as Weka)."""
        return self.classes_[np.argmax(self.predict_proba(bags), axis=1)]


def _naive_bayes_mask_predictor(wrapper, nb, X, starts, y, folds):
    """:meth:`MIWrapperClassifier.feature_mask_predictor` for the naive Bayes base learner:
    per fold, the instance weights and labels of its training bags and one
    :class:`NaiveBayesColumns` table."""
    X = np.asarray(X, dtype=np.float64)
    sizes = np.diff(np.append(starts, X.shape[0]))
    classes, y_idx = np.unique(y, return_inverse=True)
    if len(classes) != 2:
        return None
    rows = np.split(np.arange(X.shape[0]), starts[1:])
    tables = []
    for train, test in folds:
        if len(np.unique(y_idx[train])) != 2:
            return None
        w = instance_weights(sizes[train], wrapper.weighting)
        train_rows = np.concatenate([rows[i] for i in train])
        test_rows = np.concatenate([rows[i] for i in test])
        table = NaiveBayesColumns(
            X[train_rows],
            np.repeat(y_idx[train], sizes[train]),
            w,
            X[test_rows],
            default_precision=nb.default_precision,
            prior_smoothing=nb.prior_smoothing,
        )
        test_sizes = sizes[test]
        test_starts = np.concatenate([[0], np.cumsum(test_sizes)[:-1]])
        tables.append((test, table, test_starts, test_sizes))
    method, clip = wrapper.method, wrapper.clip

    def predict(mask):
        positive = np.empty(len(sizes), dtype=bool)
        for test, table, test_starts, test_sizes in tables:
            P = table.predict_proba(mask)  # classes 0, 1 as two_class_proba orders them
            dist = bag_distribution(P, test_starts, test_sizes, method, clip)
            positive[test] = np.argmax(dist, axis=1) == 1
        return positive

    return predict
