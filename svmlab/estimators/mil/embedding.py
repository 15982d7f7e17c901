"""SimpleMI: embed every bag as one feature vector, then use a single-instance classifier.

Weka's ``weka.classifiers.mi.SimpleMI`` (the MIRSVM paper's "SimpleMI" column, Melki (2018),
Sec. 4.3; HyDR-MI's "MISimple") turns a bag into one instance and hands the result to any
propositional learner. The three embeddings are Weka 3.6's ``-M`` options:

* ``method="mean"`` (Weka ``-M 1``, "arithmetic average", default): the per-feature mean of the
  bag's instances;
* ``method="center"`` (Weka ``-M 2``, "geometric centre"): the per-feature midpoint
  ``(min + max) / 2`` of the bag's bounding box (not a geometric mean);
* ``method="minmax"`` (Weka ``-M 3``, "minimax"): the per-feature minimum and maximum
  concatenated, ``2 d`` features (minima first).

Weka's SimpleMI has no preprocessing of its own: the base learner sees the raw embedded
values. With ``estimator=PrecisionNaiveBayes()`` this is ``SimpleMI -W
weka.classifiers.bayes.NaiveBayes``.

Note on the paper's numbers: the published SimpleMI, MIWrapper and MIBoost accuracies equal
the majority-class rate on all 15 datasets (e.g. musk1 0.5109 = 47/92), i.e. those Weka runs
behaved like a constant classifier (Weka's ``SingleClassifierEnhancer`` default base learner
is ``ZeroR``). This implementation defaults to a real learner; pass
``estimator=ZeroRClassifier()`` (:mod:`svmlab.estimators.weka.zero_r`, Weka's ZeroR) to mimic the
published column.

This module also holds small helpers shared by the other multi-instance ensembles
(label checking, seeding and weighted fitting of inner scikit-learn estimators).
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.svm import SVC
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import HasMethods, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators.mil._bags import check_bag_labels, check_bags, positive_proba, seed_estimator

__all__ = ["SimpleMIClassifier", "embed_bags"]


def _estimator_has(name):
    def check(self):
        est = getattr(self, "estimator_", None)
        if est is None:
            est = self.estimator if self.estimator is not None else self._default_estimator()
        return hasattr(est, name)

    return check


# ------------------------------------------------------------------------------------------
# SimpleMI
# ------------------------------------------------------------------------------------------


def embed_bags(bags, method: str = "mean", n_features: int | None = None):
    """One vector per bag.

    Parameters
    ----------
    bags : sequence of array-like of shape (n_instances_I, n_features)
    method : {"mean", "center", "minmax"}
        ``"mean"``: per-feature average (``d`` columns, Weka ``-M 1``). ``"center"``:
        per-feature ``(min + max) / 2`` (``d`` columns, Weka ``-M 2``). ``"minmax"``:
        per-feature minimum then per-feature maximum (``2 d`` columns, Weka ``-M 3``).
    n_features : int, optional
        Required feature count (checked by :func:`check_bags`).

    Returns
    -------
    ndarray of shape (n_bags, d) or (n_bags, 2 d)
    """
    X, starts, sizes = check_bags(bags, n_features)
    if method == "mean":
        return np.add.reduceat(X, starts, axis=0) / sizes[:, None]
    if method in ("center", "minmax"):
        lo, hi = np.minimum.reduceat(X, starts, axis=0), np.maximum.reduceat(X, starts, axis=0)
        return (lo + hi) / 2.0 if method == "center" else np.hstack([lo, hi])
    raise ValueError(f"method must be 'mean', 'center' or 'minmax', got {method!r}")


class SimpleMIClassifier(ClassifierMixin, BaseEstimator):
    """SimpleMI: bag embedding (mean, centre or min/max) followed by a single-instance classifier.

    With ``estimator=PrecisionNaiveBayes()`` and the default ``method`` this is Weka 3.6
    ``weka.classifiers.mi.SimpleMI -M 1 -W weka.classifiers.bayes.NaiveBayes``.

    Parameters
    ----------
    estimator : classifier or None, default=None
        The propositional learner on the bag vectors, cloned in ``fit``. ``None`` means
        ``SVC(kernel="rbf", C=1.0, gamma="scale")`` (the nearest scikit-learn learner to
        Weka's SMO; note Weka's own SimpleMI default is ``ZeroR``, see the module notes).
    method : {"mean", "center", "minmax"}, default="mean"
        Bag embedding (Weka ``-M 1 / 2 / 3``): per-feature arithmetic average (Weka's
        default), per-feature ``(min + max) / 2``, or per-feature minimum and maximum
        concatenated (``2 d`` features).
    random_state : int, RandomState instance or None, default=None
        Seeds every ``random_state`` of the (cloned) base estimator.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    estimator_ : classifier
        The fitted base learner (trained on labels 0 / 1 = index into ``classes_``).
    n_features_in_ : int
        Features per instance.
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``n_embedded_features``, ``method``, ``fit_seconds``.
    """

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "method": [StrOptions({"mean", "center", "minmax"})],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, method: str = "mean", random_state=None):
        self.estimator = estimator
        self.method = method
        self.random_state = random_state

    @staticmethod
    def _default_estimator():
        return SVC(kernel="rbf", C=1.0, gamma="scale")

    def transform(self, bags):
        """The bag vectors the base learner sees, shape (n_bags, d) or (n_bags, 2 d) (minmax)."""
        check_is_fitted(self)
        return embed_bags(bags, self.method, self.n_features_in_)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y, sample_weight=None):
        """Embed the training bags and fit the base classifier.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes.
        sample_weight : array-like of shape (n_bags,), default=None
            Bag weights: accepted and ignored, as Weka's SimpleMI ignores them (its embedded
            instances all weigh 1).

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "SimpleMI")
        self.n_features_in_ = X.shape[1]
        Z = embed_bags(bags, self.method, self.n_features_in_)
        est = clone(self.estimator) if self.estimator is not None else self._default_estimator()
        seed_estimator(est, check_random_state(self.random_state))
        self.estimator_ = est.fit(Z, y_idx)
        self.fit_info_ = {
            "n_bags": int(len(sizes)),
            "n_instances": int(X.shape[0]),
            "n_embedded_features": int(Z.shape[1]),
            "method": self.method,
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def decision_function(self, bags):
        """Score of ``classes_[1]`` per bag: the base learner's ``decision_function``, else
        its probability of ``classes_[1]``. Returns ndarray of shape (n_bags,)."""
        Z = self.transform(bags)
        if hasattr(self.estimator_, "decision_function"):
            return np.asarray(self.estimator_.decision_function(Z), dtype=float).ravel()
        return positive_proba(self.estimator_, Z)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, bags):
        """Class probabilities per bag, columns ordered as ``classes_``; shape (n_bags, 2)."""
        p = positive_proba(self.estimator_, self.transform(bags))
        return np.column_stack([1.0 - p, p])

    def predict(self, bags):
        """Bag labels (the base learner's prediction mapped back to ``classes_``)."""
        Z = self.transform(bags)
        return self.classes_[np.asarray(self.estimator_.predict(Z), dtype=np.intp)]
