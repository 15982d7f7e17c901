"""Bootstrap aggregation drawn exactly as Weka 3.6's ``weka.classifiers.meta.Bagging``.

:class:`WekaBaggingClassifier` is a general single-instance classifier. With its defaults it is
Weka's ``Bagging -P 100 -S 1 -I 10 -W weka.classifiers.trees.REPTree`` (Breiman 1996); any
scikit-learn classifier can be the member (the HyDR-MI study uses PART inside MIWrapper).

What Weka's Bagging does (and this class reproduces)
----------------------------------------------------
* One ``java.util.Random(seed)`` drives everything, member after member.
* Member ``j``'s sample has as many rows as the data and is drawn with replacement in
  proportion to the instance weights (``sample_weight``), by Walker's alias method as Weka's
  ``Instances.resampleWithWeights`` builds it: the alias table is set up from the normalised
  weights, then every row costs one ``nextDouble()``. Drawn rows carry weight 1, in the order
  drawn. When ``bag_size_percent < 100`` the sample is then shuffled with the same generator
  (``Instances.randomize``) and cut to ``n * bag_size_percent // 100`` rows.
* A member of a class Weka calls *Randomizable* then gets the seed ``nextInt()`` (a signed
  32-bit int) before it is trained. Here that is a member with ``_weka_randomizable = True``
  (e.g. :class:`~svmlab.estimators.weka.rep_tree.REPTreeClassifier`), whose ``seed`` parameter is
  set, or, for other scikit-learn estimators, one with a ``random_state`` parameter, which gets
  the draw's lower 31 bits. A member with ``_weka_randomizable = False`` (a re-implemented Weka
  class that is not Randomizable in Weka 3.6, such as PART, even with a ``seed`` option) and
  one with neither parameter consume no draw.
* ``predict_proba`` sums the members' class distributions member by member and normalises the
  sum (all members count equally); ``predict`` takes the first class of largest probability.

Members are trained on class indices ``0..K-1``; a member whose sample missed a class gives it
probability 0. Weka's out-of-bag error (``-O``) and its numeric-class mode are not reproduced.

References
----------
L. Breiman. Bagging predictors. Machine Learning 24(2):123-140, 1996.
B. D. Ripley. Stochastic Simulation. Wiley, 1987, p. 232 (Walker's alias method).
Weka 3.6 classes ``weka.classifiers.meta.Bagging``,
``weka.classifiers.RandomizableIteratedSingleClassifierEnhancer`` and
``weka.core.Instances.resampleWithWeights``.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import HasMethods, Interval, _check_sample_weight, _fit_context
from svmlab.estimators.weka.java_random import JavaRandom
from svmlab.estimators.weka.rep_tree import REPTreeClassifier

__all__ = ["WekaBaggingClassifier", "weka_resample_with_weights"]


def _seq_sum(values) -> float:
    s = 0.0
    for v in values:
        s += v
    return s


def weka_resample_with_weights(weights, rng: JavaRandom) -> np.ndarray:
    """Rows of one weighted bootstrap sample, drawn as Weka 3.6's
    ``Instances.resampleWithWeights(Random, double[])`` draws them.

    Parameters
    ----------
    weights : array-like of shape (n,)
        Non-negative weights, not all zero.
    rng : JavaRandom
        Advanced by ``n`` calls of ``nextDouble()``.

    Returns
    -------
    rows : ndarray of shape (n,), int
        The drawn row indices, in the order drawn.
    """
    w = [float(v) for v in np.asarray(weights, dtype=np.float64)]
    M = len(w)
    if M == 0:
        return np.zeros(0, dtype=np.intp)
    total = _seq_sum(w)
    P = [v / total for v in w]
    Q = [0.0] * M
    A = [0] * M
    W = [0] * M
    NN, NP = -1, M
    # Walker's alias table: the small-probability rows fill W from the front, the others
    # from the back
    for i in range(M):
        Q[i] = M * P[i]
        if Q[i] < 1.0:
            NN += 1
            W[NN] = i
        else:
            NP -= 1
            W[NP] = i
    if NN > -1 and NP < M:
        for s in range(M - 1):
            i, j = W[s], W[NP]
            A[i] = j
            Q[j] += Q[i] - 1.0
            if Q[j] < 1.0:
                NP += 1
            if NP >= M:
                break
    for i in range(M):
        Q[i] += i
    rows = np.empty(M, dtype=np.intp)
    for k in range(M):
        u = M * rng.next_double()
        i = int(u)
        rows[k] = i if u < Q[i] else A[i]
    return rows


def _reseed(estimator, rng: JavaRandom):
    """Give ``estimator`` the seed Weka's Bagging gives a Randomizable member (one draw of
    ``nextInt()``), or nothing (no draw) for a member that is not randomisable."""
    marker = getattr(estimator, "_weka_randomizable", None)
    params = estimator.get_params(deep=False)
    if marker is True and "seed" in params:
        estimator.set_params(seed=rng.next_int_unbounded())
    elif marker is None and "random_state" in params:
        estimator.set_params(random_state=rng.next_int_unbounded() & 0x7FFFFFFF)
    return estimator


class WekaBaggingClassifier(ClassifierMixin, BaseEstimator):
    """Bagging with Weka 3.6's bootstrap draws (``weka.classifiers.meta.Bagging``).

    Parameters
    ----------
    estimator : classifier or None, default=None
        Member classifier, cloned for every member. ``None`` means
        :class:`~svmlab.estimators.weka.rep_tree.REPTreeClassifier` (Weka's default member,
        ``REPTree``).
    n_estimators : int, default=10
        Number of members (Weka ``-I``).
    bag_size_percent : int, default=100
        Size of each sample as a percentage of the training rows (Weka ``-P``).
    seed : int, default=1
        Seed of the ``java.util.Random`` behind the samples and the member seeds (Weka ``-S``).
        Not called ``random_state``, so that meta learners which do not reseed their base
        learner in Weka leave it alone here too.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    estimators_ : list of fitted members (trained on class indices ``0..n_classes-1``)
    estimators_samples_ : list of ndarray
        Training rows of each member, in the order Weka draws them.
    fit_info_ : dict
        ``n_estimators``, ``sample_size``, ``member_seeds`` (None for members that got no
        seed), ``fit_seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.estimators.weka.bagging import WekaBaggingClassifier
    >>> X = np.arange(40.0).reshape(-1, 1)
    >>> y = (X[:, 0] >= 20).astype(int)
    >>> WekaBaggingClassifier().fit(X, y).predict([[3.0], [35.0]]).tolist()
    [0, 1]
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "bag_size_percent": [Interval(Integral, 1, 100, closed="both")],
        "seed": [Interval(Integral, None, None, closed="neither")],
    }

    def __init__(
        self,
        estimator=None,
        n_estimators: int = 10,
        bag_size_percent: int = 100,
        seed: int = 1,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.bag_size_percent = bag_size_percent
        self.seed = seed

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Train the members on Weka's bootstrap samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative instance weights: a row is drawn in proportion to its weight (Weka
            instance weights); uniform by default. The members see unweighted rows.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if not w.sum() > 0:
            raise ValueError("sample_weight must have a positive sum")
        n = X.shape[0]
        size = n * self.bag_size_percent // 100
        if size < 1:
            raise ValueError(
                f"bag_size_percent={self.bag_size_percent} leaves no row of the {n} to train on"
            )
        base = REPTreeClassifier() if self.estimator is None else self.estimator
        rng = JavaRandom(self.seed)
        self.estimators_, self.estimators_samples_, seeds = [], [], []
        for _ in range(self.n_estimators):
            rows = weka_resample_with_weights(w, rng)
            if size < n:
                order = list(rows)
                for j in range(n - 1, 0, -1):  # Weka's Instances.randomize
                    k = rng.next_int(j + 1)
                    order[j], order[k] = order[k], order[j]
                rows = np.asarray(order[:size], dtype=np.intp)
            member = _reseed(clone(base), rng)
            params = member.get_params(deep=False)
            seeds.append(params.get("seed", params.get("random_state")))
            member.fit(X[rows], y_idx[rows])
            self.estimators_.append(member)
            self.estimators_samples_.append(rows)
        self.fit_info_ = {
            "n_estimators": self.n_estimators,
            "sample_size": int(size),
            "member_seeds": seeds,
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def predict_proba(self, X):
        """Normalised sum of the members' class distributions, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        K = len(self.classes_)
        sums = np.zeros((X.shape[0], K))
        for member in self.estimators_:
            cols = np.asarray(member.classes_, dtype=np.intp)
            part = np.zeros((X.shape[0], K))
            part[:, cols] = member.predict_proba(X)
            sums += part  # member by member, as Weka adds them
        total = np.zeros(X.shape[0])
        for k in range(K):
            total = total + sums[:, k]
        out = sums.copy()
        ok = np.abs(total) >= 1e-6  # Weka leaves an (almost) all-zero sum as it is
        out[ok] = sums[ok] / total[ok, None]
        return out

    def predict(self, X):
        """The first class of largest probability (Weka's ``maxIndex``)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
