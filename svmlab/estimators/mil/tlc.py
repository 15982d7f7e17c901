"""TLC, the two-level classifier (Weidmann, Frank & Pfahringer 2003), and its Bagging and
Stacking ensembles (the MIRSVM paper's "TLC", "Bagging" and "Stacking" columns, Melki (2018),
Sec. 4.3, Tables 4.3-4.14; see docs/decisions/mil.md, "Comparators re-implemented").

Level 1 partitions the instance space: a decision tree is grown on the training instances,
each labelled with its bag's label and weighted ``1/|B|`` so every bag carries the same total
weight. Every tree node (or, with ``nodes="leaves"``, every leaf) is a region of instance
space. Level 2 describes each bag by how many of its instances fall in each region (a count
vector, ``counts="absolute"``, as in the paper; or the fractions, ``counts="relative"``) and
trains a single-instance classifier on those vectors.

Readings and substitutes (Weka's ``weka.classifiers.mi.TLC`` is the original):

* level 1: ``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)`` (a C4.5-like
  information-gain tree; Weka grows its own tree with C4.5-style splits);
* level 2: ``GradientBoostingClassifier(n_estimators=10, max_depth=1, learning_rate=1.0)``,
  i.e. ten rounds of additive logistic regression with decision stumps and Newton leaf
  values, the nearest scikit-learn learner to LogitBoost with DecisionStump used by
  Weidmann et al. (their attribute-selection step is not reproduced);
* :class:`TLCBaggingClassifier`: Weka ``Bagging`` defaults, 10 members, each trained on a
  bootstrap resample of the training *bags* (100 % size), probabilities averaged. The
  published Bagging column is a row-permuted copy of the TLC column (in all six MIL tables),
  so it
  cannot be matched;
* :class:`TLCStackingClassifier`: level-0 members TLC and SimpleMI (svmlab's reading),
  level-1 learner a logistic regression on the members' out-of-fold scores of
  ``classes_[1]`` from an internal bag-stratified 10-fold CV (Weka ``Stacking``'s
  ``numFolds`` default); members are then refitted on all bags.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators.mil._bags import (
    check_bag_labels,
    check_bags,
    fit_weighted,
    instance_weights,
    positive_proba,
    positive_score,
    seed_estimator,
)
from svmlab.estimators.mil.embedding import SimpleMIClassifier

__all__ = ["TLCClassifier", "TLCBaggingClassifier", "TLCStackingClassifier", "make_tlc_bagging"]


def _bag_indicator(sizes):
    """Sparse (n_bags, n_instances) matrix with a 1 where the instance belongs to the bag."""
    n_inst = int(np.sum(sizes))
    rows = np.repeat(np.arange(len(sizes)), sizes)
    return sparse.csr_matrix(
        (np.ones(n_inst), (rows, np.arange(n_inst))), shape=(len(sizes), n_inst)
    )


class TLCClassifier(ClassifierMixin, BaseEstimator):
    """Two-level classification: instance-space tree regions, then a learner on bag counts.

    Parameters
    ----------
    tree : classifier or None, default=None
        Level-1 tree, a scikit-learn tree with ``decision_path`` and ``apply`` and
        ``sample_weight`` support, cloned in ``fit``. ``None`` means
        ``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)``.
    estimator : classifier or None, default=None
        Level-2 learner on the bag count vectors, cloned in ``fit``. ``None`` means
        ``GradientBoostingClassifier(n_estimators=10, max_depth=1, learning_rate=1.0)``
        (LogitBoost with stumps).
    nodes : {"all", "leaves"}, default="all"
        Regions counted: every tree node (Weidmann et al.; the root counts the bag size) or
        only the leaves (a partition: every instance counted once).
    counts : {"absolute", "relative"}, default="absolute"
        Instance counts per region, or counts divided by the bag size.
    random_state : int, RandomState instance or None, default=None
        Seeds the ``random_state`` parameters of both levels.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    tree_ : fitted level-1 tree
    estimator_ : fitted level-2 classifier (labels 0 / 1 = index into ``classes_``)
    regions_ : ndarray of int
        Node ids of the tree used as level-2 features, in column order.
    n_features_in_ : int
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``n_tree_nodes``, ``n_leaves``, ``n_regions``,
        ``fit_seconds``.
    """

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "tree": [HasMethods(["fit", "apply", "decision_path"]), None],
        "estimator": [HasMethods(["fit", "predict"]), None],
        "nodes": [StrOptions({"all", "leaves"})],
        "counts": [StrOptions({"absolute", "relative"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        tree=None,
        estimator=None,
        nodes: str = "all",
        counts: str = "absolute",
        random_state=None,
    ):
        self.tree = tree
        self.estimator = estimator
        self.nodes = nodes
        self.counts = counts
        self.random_state = random_state

    def _bag_vectors(self, X, sizes):
        if self.nodes == "all":
            indicator = self.tree_.decision_path(
                X
            )  # (n_instances, n_nodes), 1 on the root-to-leaf path
        else:
            leaf = self.tree_.apply(X)
            n_nodes = self.tree_.tree_.node_count
            indicator = sparse.csr_matrix(
                (np.ones(len(leaf)), (np.arange(len(leaf)), leaf)), shape=(len(leaf), n_nodes)
            )
        V = np.asarray((_bag_indicator(sizes) @ indicator).todense())[:, self.regions_]
        if self.counts == "relative":
            V = V / sizes[:, None]
        return V

    def transform(self, bags):
        """Level-2 vectors: per bag, its instance count (or fraction) in every region."""
        check_is_fitted(self)
        X, _, sizes = check_bags(bags, self.n_features_in_)
        return self._bag_vectors(X, sizes)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y):
        """Grow the level-1 tree on bag-labelled instances, then fit level 2 on count vectors.

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
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "TLC")
        self.n_features_in_ = X.shape[1]
        rng = check_random_state(self.random_state)
        tree = (
            clone(self.tree)
            if self.tree is not None
            else DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)
        )
        seed_estimator(tree, rng)
        # weights 1/|B| rescaled to mean 1 so min_samples/min_weight thresholds keep their meaning
        w = instance_weights(sizes, "bag") * (X.shape[0] / len(sizes))
        self.tree_ = fit_weighted(tree, X, np.repeat(y_idx, sizes), w, "TLC")
        t = self.tree_.tree_
        leaves = np.flatnonzero(t.children_left == -1)
        self.regions_ = np.arange(t.node_count) if self.nodes == "all" else leaves
        V = self._bag_vectors(X, sizes)
        est = (
            clone(self.estimator)
            if self.estimator is not None
            else GradientBoostingClassifier(n_estimators=10, max_depth=1, learning_rate=1.0)
        )
        seed_estimator(est, rng)
        self.estimator_ = est.fit(V, y_idx)
        self.fit_info_ = {
            "n_bags": int(len(sizes)),
            "n_instances": int(X.shape[0]),
            "n_tree_nodes": int(t.node_count),
            "n_leaves": int(len(leaves)),
            "n_regions": int(len(self.regions_)),
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def predict_proba(self, bags):
        """Bag class probabilities (columns ordered as ``classes_``), shape (n_bags, 2)."""
        V = self.transform(bags)
        if hasattr(self.estimator_, "predict_proba"):
            p = positive_proba(self.estimator_, V)
        else:
            p = np.asarray(self.estimator_.predict(V), dtype=float)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, bags):
        """Score of ``classes_[1]``: the level-2 ``decision_function``, else its probability
        minus 0.5."""
        V = self.transform(bags)
        if hasattr(self.estimator_, "decision_function"):
            return np.asarray(self.estimator_.decision_function(V), dtype=float).ravel()
        return self.predict_proba(bags)[:, 1] - 0.5

    def predict(self, bags):
        """Bag labels from the level-2 classifier."""
        V = self.transform(bags)
        return self.classes_[np.asarray(self.estimator_.predict(V), dtype=np.intp)]


# ------------------------------------------------------------------------------------------
# Bagging over bags
# ------------------------------------------------------------------------------------------


class TLCBaggingClassifier(ClassifierMixin, BaseEstimator):
    """Bagging of a multi-instance classifier over bootstrap resamples of the training bags.

    Parameters
    ----------
    estimator : bag classifier or None, default=None
        Member learner with the bag API and ``predict_proba``, cloned per member. ``None``
        means ``TLCClassifier()``.
    n_estimators : int, default=10
        Members (Weka Bagging's default ``numIterations``).
    max_samples : float, default=1.0
        Size of each bootstrap resample as a fraction of the training bags (Weka's
        ``bagSizePercent`` = 100).
    random_state : int, RandomState instance or None, default=None
        Seeds the resamples and the members.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    estimators_ : list of fitted members (trained on labels 0 / 1)
    estimators_samples_ : list of ndarray
        Training-bag indices (with repeats) each member was fitted on.
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``n_estimators``, ``redraws`` (resamples drawn again
        because they held one class only), ``fit_seconds``.
    """

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [Interval(Real, 0.0, 1.0, closed="right")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, estimator=None, n_estimators: int = 10, max_samples: float = 1.0, random_state=None
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y):
        """Fit ``n_estimators`` members on bootstrap resamples of the bags.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "Bagging")
        self.n_features_in_ = X.shape[1]
        bag_list = [X[s : s + k] for s, k in zip(starts, sizes)]
        n = len(sizes)
        m = max(2, int(round(self.max_samples * n)))
        rng = check_random_state(self.random_state)
        self.estimators_, self.estimators_samples_ = [], []
        redraws = 0
        for _ in range(self.n_estimators):
            for _attempt in range(100):
                idx = rng.randint(0, n, size=m)
                if len(np.unique(y_idx[idx])) == 2:
                    break
                redraws += 1
            else:
                raise ValueError(
                    "Bagging: could not draw a bootstrap resample holding both classes"
                )
            member = clone(self.estimator) if self.estimator is not None else TLCClassifier()
            seed_estimator(member, rng)
            member.fit([bag_list[i] for i in idx], y_idx[idx])
            self.estimators_.append(member)
            self.estimators_samples_.append(idx)
        self.fit_info_ = {
            "n_bags": int(n),
            "n_instances": int(X.shape[0]),
            "n_estimators": int(self.n_estimators),
            "redraws": int(redraws),
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def predict_proba(self, bags):
        """Average of the members' class probabilities, shape (n_bags, 2)."""
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, self.n_features_in_)
        bag_list = [X[s : s + k] for s, k in zip(starts, sizes)]
        p = np.mean([m.predict_proba(bag_list)[:, 1] for m in self.estimators_], axis=0)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, bags):
        """Averaged probability of ``classes_[1]`` minus 0.5."""
        return self.predict_proba(bags)[:, 1] - 0.5

    def predict(self, bags):
        """``classes_[1]`` when the averaged probability exceeds 0.5."""
        return self.classes_[(self.predict_proba(bags)[:, 1] > 0.5).astype(np.intp)]


def make_tlc_bagging(
    n_estimators: int = 10, random_state=None, **tlc_params
) -> TLCBaggingClassifier:
    """The paper's "Bagging" comparator: :class:`TLCBaggingClassifier` over
    ``TLCClassifier(**tlc_params)``."""
    return TLCBaggingClassifier(
        TLCClassifier(**tlc_params), n_estimators=n_estimators, random_state=random_state
    )


# ------------------------------------------------------------------------------------------
# Stacking
# ------------------------------------------------------------------------------------------


class TLCStackingClassifier(ClassifierMixin, BaseEstimator):
    """Stacking of multi-instance classifiers (default TLC + SimpleMI), bag-level meta learner.

    Parameters
    ----------
    estimators : list of (str, bag classifier) or None, default=None
        Level-0 members, cloned in ``fit``. ``None`` means
        ``[("tlc", TLCClassifier()), ("simple_mi", SimpleMIClassifier())]``.
    final_estimator : classifier or None, default=None
        Meta learner on the members' scores of ``classes_[1]`` (probability when the member
        has ``predict_proba``, else its decision value). ``None`` means
        ``LogisticRegression()``.
    cv : int, default=10
        Folds of the internal bag-stratified CV producing the out-of-fold meta features
        (reduced to the smallest class count when that is smaller).
    random_state : int, RandomState instance or None, default=None
        Seeds the internal folds and the members.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    estimators_ : list of fitted members (refitted on all bags)
    final_estimator_ : fitted meta learner
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``cv``, ``members``, ``fit_seconds``.
    """

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "estimators": [list, None],
        "final_estimator": [HasMethods(["fit", "predict"]), None],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimators=None, final_estimator=None, cv: int = 10, random_state=None):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.random_state = random_state

    def _members(self):
        if self.estimators is None:
            return [("tlc", TLCClassifier()), ("simple_mi", SimpleMIClassifier())]
        return list(self.estimators)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y):
        """Out-of-fold member scores → meta learner; members refitted on all bags.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "Stacking")
        self.n_features_in_ = X.shape[1]
        bag_list = [X[s : s + k] for s, k in zip(starts, sizes)]
        members = self._members()
        if not members:
            raise ValueError("Stacking needs at least one member in estimators")
        rng = check_random_state(self.random_state)
        n_folds = int(min(self.cv, np.bincount(y_idx).min()))
        if n_folds < 2:
            raise ValueError("Stacking needs at least 2 bags of each class for its internal CV")
        folds = StratifiedKFold(
            n_folds, shuffle=True, random_state=int(rng.randint(np.iinfo(np.int32).max))
        )
        meta = np.zeros((len(sizes), len(members)))
        for train, test in folds.split(np.zeros(len(sizes)), y_idx):
            for j, (_, est) in enumerate(members):
                m = seed_estimator(clone(est), rng).fit([bag_list[i] for i in train], y_idx[train])
                meta[test, j] = positive_score(m, [bag_list[i] for i in test])
        self.estimators_ = [
            seed_estimator(clone(est), rng).fit(bag_list, y_idx) for _, est in members
        ]
        final = (
            clone(self.final_estimator)
            if self.final_estimator is not None
            else LogisticRegression()
        )
        seed_estimator(final, rng)
        self.final_estimator_ = final.fit(meta, y_idx)
        self.fit_info_ = {
            "n_bags": int(len(sizes)),
            "n_instances": int(X.shape[0]),
            "cv": n_folds,
            "members": [name for name, _ in members],
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def transform(self, bags):
        """Meta features: every member's score of ``classes_[1]``, shape (n_bags, n_members)."""
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, self.n_features_in_)
        bag_list = [X[s : s + k] for s, k in zip(starts, sizes)]
        return np.column_stack([positive_score(m, bag_list) for m in self.estimators_])

    def predict_proba(self, bags):
        """Meta learner's class probabilities, shape (n_bags, 2)."""
        p = positive_proba(self.final_estimator_, self.transform(bags))
        return np.column_stack([1.0 - p, p])

    def decision_function(self, bags):
        """Meta learner's probability of ``classes_[1]`` minus 0.5."""
        return self.predict_proba(bags)[:, 1] - 0.5

    def predict(self, bags):
        """Meta learner's labels mapped to ``classes_``."""
        return self.classes_[
            np.asarray(self.final_estimator_.predict(self.transform(bags)), dtype=np.intp)
        ]
