"""A decision tree grown and pruned exactly as Weka's REPTree, for numeric attributes.

:class:`REPTreeClassifier` is a general single-instance classifier (``fit(X, y,
sample_weight=None)``, ``predict``, ``predict_proba``). With its defaults it is the learner of
Weka 3.6's ``weka.classifiers.trees.REPTree -M 2 -V 0.001 -N 3 -S 1 -L -1`` on numeric
attributes and a nominal class, e.g. the base learner of ``MIBoost(REPTree)``.

What Weka's REPTree does (and this class reproduces)
----------------------------------------------------
* **Hold-out split.** The rows are shuffled with ``java.util.Random(seed)`` (Weka's
  ``Instances.randomize``: from the last row down, swap row ``j`` with row ``nextInt(j + 1)``),
  grouped by class (Weka's ``Instances.stratify``: a swap pass that gathers the rows of each
  class, then every ``num_folds``-th row is dealt into fold order). The first fold (``n //
  num_folds`` rows, one more when the division leaves a remainder) is the pruning set; the
  other rows form the growing set, which the same generator shuffles once more.
* **Growing.** Every attribute is sorted once, with Weka's (unstable) quicksort, so that rows
  of equal value are met in Weka's order. At a node every attribute is scanned in that order;
  a cut is possible between two neighbouring distinct values and lies at their midpoint (the
  upper value if the midpoint rounds down onto the lower one); rows with ``x < cut`` go left.
  The cut of an attribute is its first one of largest information gain (class entropy of the
  node minus the weighted entropy of the two sides, Weka's ``ContingencyTables``); the node
  splits on the first attribute of largest gain, provided that gain exceeds ``1e-6`` and both
  sides of *that* split weigh at least ``min_num``; otherwise the node is a leaf (no other
  attribute is tried). A node is a leaf anyway when it weighs less than ``2 * min_num``, is
  pure, or has reached ``max_depth``. Class counts are summed row by row in the sort order,
  as Weka sums them, so that equal gains stay equal in floating point.
* **Reduced-error pruning.** The pruning rows are passed down the tree; each node counts the
  weight of those that reach it and of those its own majority class (the first class of
  largest training weight) misclassifies. Bottom-up, a subtree whose leaves misclassify at
  least as much hold-out weight as the node itself is replaced by a leaf.
* **Backfitting.** Every remaining node's class distribution becomes its training class
  weights plus its hold-out class weights, normalised; ``predict_proba`` returns the
  distribution of the leaf a sample reaches (an empty leaf, one that saw no rows at all, uses
  its parent's).

Deviations: the learner refuses missing values (Weka splits such rows fractionally), has no
regression mode (Weka's variance reduction for a numeric class), and with fewer rows than
``num_folds`` it grows an unpruned tree on all rows (Weka refuses such data).

Reference: Weka 3.6 class ``weka.classifiers.trees.REPTree`` (E. Frank), with
``weka.core.Instances`` (randomize, stratify, trainCV, testCV) and ``weka.core.Utils.sort``;
I. H. Witten, E. Frank. Data Mining: Practical Machine Learning Tools and Techniques, 2nd ed.,
Morgan Kaufmann, 2005 (Sec. 6.1, reduced-error pruning).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, _check_sample_weight, _fit_context
from svmlab.estimators.weka.decision_stump import _entropy_score, _xlogx
from svmlab.estimators.weka.java_random import JavaRandom

__all__ = ["REPTreeClassifier", "weka_holdout_split", "weka_sort_columns", "weka_sort_order"]

_LN2 = float(np.log(2.0))
#: Weka's ``Utils.SMALL``.
_SMALL = 1e-6


# ------------------------------------------------------------------------------------------
# Weka's quicksort (weka.core.Utils.sort): the order of equal values is part of the result
# ------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _weka_sort_rows(A):
    """Indices that sort each row of ``A`` ascending, in the order Weka 3.6's ``Utils.sort``
    leaves them: median-of-three quicksort, explicit sorts of ranges of up to three elements,
    not stable. The compare-and-swap steps are written out (one compiled function)."""
    m, n = A.shape
    out = np.empty((m, n), dtype=np.int64)
    stack = np.empty((n + 2, 2), dtype=np.int64)
    # the compare-and-swap pairs of a range (lo, hi): (lo, mid), (lo, hi), (mid, hi), where
    # mid = lo + 1 for three elements and the centre otherwise
    for r in range(m):
        a = A[r]
        idx = np.arange(n)
        top = 0
        if n > 1:
            stack[0, 0] = 0
            stack[0, 1] = n - 1
            top = 1
        while top > 0:
            top -= 1
            lo = stack[top, 0]
            hi = stack[top, 1]
            diff = hi - lo
            if diff <= 0:
                continue
            if diff == 1:
                if a[idx[lo]] > a[idx[hi]]:
                    idx[lo], idx[hi] = idx[hi], idx[lo]
                continue
            mid = lo + 1 if diff == 2 else (lo + hi) // 2
            if a[idx[lo]] > a[idx[mid]]:
                idx[lo], idx[mid] = idx[mid], idx[lo]
            if a[idx[lo]] > a[idx[hi]]:
                idx[lo], idx[hi] = idx[hi], idx[lo]
            if a[idx[mid]] > a[idx[hi]]:
                idx[mid], idx[hi] = idx[hi], idx[mid]
            if diff == 2:
                continue
            # the median goes next to the end and is the pivot of the partition
            idx[mid], idx[hi - 1] = idx[hi - 1], idx[mid]
            pivot = a[idx[hi - 1]]
            left = lo
            right = hi - 1
            while True:
                left += 1
                while a[idx[left]] < pivot:
                    left += 1
                right -= 1
                while a[idx[right]] > pivot:
                    right -= 1
                if left >= right:
                    break
                idx[left], idx[right] = idx[right], idx[left]
            idx[left], idx[hi - 1] = idx[hi - 1], idx[left]
            # the two parts are disjoint: the order they are sorted in does not matter
            stack[top, 0] = lo
            stack[top, 1] = left - 1
            stack[top + 1, 0] = left + 1
            stack[top + 1, 1] = hi
            top += 2
        out[r] = idx
    return out


def weka_sort_order(keys) -> np.ndarray:
    """The permutation Weka 3.6's ``Utils.sort`` (``sortWithNoMissingValues``) returns for
    one vector of keys without missing values (:func:`_weka_sort_rows` of one row)."""
    return _weka_sort_rows(np.asarray(keys, dtype=np.float64).reshape(1, -1))[0]


def weka_sort_columns(X, y=None, sample_weight=None) -> np.ndarray:
    """Row order of every column of ``X`` (shape (d, n)) as Weka 3.6's ``Utils.sort`` sorts it
    (values ascending; equal values in the order Weka's quicksort leaves them).

    With class indices ``y`` and weights ``sample_weight``, a column whose equal values never
    pair two rows of the same class and different weights is sorted stably instead: there
    the order of equal values cannot change any sum REPTree forms. The quicksort is one numba
    function, compiled once per installation and cached on disk.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    order = np.argsort(X, axis=0, kind="stable").T.copy()
    if y is None or sample_weight is None:
        need = np.ones(d, dtype=bool)
    else:
        y = np.asarray(y)
        w = np.asarray(sample_weight, dtype=np.float64)
        need = np.zeros(d, dtype=bool)
        if n > 1 and np.ptp(w) > 0:
            for j in range(d):
                o = np.lexsort((w, y, X[:, j]))
                v, c, ww = X[o, j], y[o], w[o]
                same = (v[1:] == v[:-1]) & (c[1:] == c[:-1])
                need[j] = bool(np.any(same & (ww[1:] != ww[:-1])))
    cols = np.nonzero(need)[0]
    if len(cols) == 0:
        return order
    order[cols] = _weka_sort_rows(np.ascontiguousarray(X[:, cols].T))
    return order


# ------------------------------------------------------------------------------------------
# Weka's hold-out split (Instances.randomize / stratify / trainCV / testCV)
# ------------------------------------------------------------------------------------------


def _shuffle(order: list, rng: JavaRandom) -> None:
    for j in range(len(order) - 1, 0, -1):
        k = rng.next_int(j + 1)
        order[j], order[k] = order[k], order[j]


def weka_holdout_split(y_idx, num_folds: int, rng: JavaRandom, split: bool = True):
    """Rows of the growing and the pruning set, in Weka's order.

    Reproduces ``data.randomize(rng); data.stratify(num_folds); data.trainCV(num_folds, 0,
    rng); data.testCV(num_folds, 0)`` of Weka 3.6 for class indices ``y_idx``. With
    ``split=False`` only the first two steps run: every row grows, in the stratified order
    (Weka's REPTree without pruning).

    Returns
    -------
    grow, prune : ndarray of int
        Row indices (into ``y_idx``) of the growing and of the pruning set, in Weka's order.
    """
    y_idx = np.asarray(y_idx)
    n = len(y_idx)
    order = list(range(n))
    _shuffle(order, rng)
    # gather the rows of each class with Weka's swap pass, then deal them into folds
    index = 1
    while index < n:
        first = y_idx[order[index - 1]]
        for j in range(index, n):
            if y_idx[order[j]] == first:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    order = [r for start in range(num_folds) for r in order[start::num_folds]]
    if not split:
        return np.asarray(order, dtype=np.intp), np.arange(0)
    n_test = n // num_folds + (1 if n % num_folds > 0 else 0)
    prune, grow = order[:n_test], order[n_test:]
    _shuffle(grow, rng)
    return np.asarray(grow, dtype=np.intp), np.asarray(prune, dtype=np.intp)


# ------------------------------------------------------------------------------------------
# helpers evaluated in Weka's order of floating-point operations
# ------------------------------------------------------------------------------------------


def _seq_sum(v, axis=-1):
    """Left-to-right sum (Java's loop), not numpy's pairwise sum."""
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 1 and v.shape[0] <= 16:  # a class distribution: a plain loop is faster
        s = 0.0
        for x in v.tolist():
            s += x
        return s
    if v.shape[axis] == 0:
        return np.sum(v, axis=axis)
    return np.take(np.cumsum(v, axis=axis), -1, axis=axis)


def _entropy_over_columns(totals):
    """Weka's ``entropyOverColumns`` of a table whose column sums are ``totals`` (shape (...,
    K)): the class entropy before the split."""
    acc = np.zeros(totals.shape[:-1])
    total = np.zeros(totals.shape[:-1])
    for k in range(totals.shape[-1]):
        acc = acc - _xlogx(totals[..., k])
        total = total + totals[..., k]
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (acc + _xlogx(total)) / (total * _LN2)
    return np.where(np.abs(total) < _SMALL, 0.0, value)


def _normalised(dist):
    s = float(_seq_sum(dist))
    return dist / s if s > 0 else None


class _Node:
    __slots__ = (
        "feature",
        "threshold",
        "children",
        "dist",
        "probs",
        "holdout",
        "holdout_error",
    )

    def __init__(self, n_classes):
        self.feature = -1
        self.threshold = np.nan
        self.children = None
        self.dist = np.zeros(n_classes)  # training class weights
        self.probs = None  # normalised class distribution (None: node saw no rows)
        self.holdout = np.zeros(n_classes)
        self.holdout_error = 0.0


class REPTreeClassifier(ClassifierMixin, BaseEstimator):
    """Fast decision tree with reduced-error pruning, as Weka 3.6's ``REPTree``.

    Parameters
    ----------
    min_num : float, default=2.0
        Minimum total weight of each side of a split (Weka ``-M``).
    num_folds : int, default=3
        The data are split into this many stratified folds; one prunes, the rest grow the tree
        (Weka ``-N``).
    seed : int, default=1
        Seed of the ``java.util.Random`` that shuffles the rows (Weka ``-S``). Deliberately not
        called ``random_state``: Weka's meta learners that do not reseed their base learner
        (e.g. MIBoost) leave it at 1, and so do svmlab's; Weka's Bagging sets it per member.
    pruning : bool, default=True
        ``False`` grows on all rows and skips pruning and backfitting (Weka ``-P``).
    max_depth : int or None, default=None
        Maximum depth (the root is depth 0); ``None`` is unlimited (Weka ``-L -1``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    tree_ : dict of ndarray
        The pruned tree as arrays over nodes (root 0): ``feature`` (-1 at a leaf),
        ``threshold`` (``x < threshold`` goes to ``left``), ``left``, ``right`` and ``value``
        (class distribution predicted at the node).
    fit_info_ : dict
        ``n_nodes``, ``n_leaves``, ``depth``, ``n_grow`` and ``n_prune`` (rows of the two
        sets), ``fit_seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.estimators.weka.rep_tree import REPTreeClassifier
    >>> X = np.arange(12.0).reshape(-1, 1)
    >>> y = [0] * 6 + [1] * 6
    >>> tree = REPTreeClassifier().fit(X, y)
    >>> tree.predict([[1.0], [10.0]]).tolist()
    [0, 1]
    """

    _parameter_constraints: dict = {
        "min_num": [Interval(Real, 0.0, None, closed="left")],
        "num_folds": [Interval(Integral, 2, None, closed="left")],
        "seed": [Interval(Integral, None, None, closed="neither")],
        "pruning": ["boolean"],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
    }

    #: Weka's Bagging reseeds members of Randomizable classes (``seed`` is Weka's ``-S``).
    _weka_randomizable = True

    def __init__(
        self,
        min_num: float = 2.0,
        num_folds: int = 3,
        seed: int = 1,
        pruning: bool = True,
        max_depth: int | None = None,
    ):
        self.min_num = min_num
        self.num_folds = num_folds
        self.seed = seed
        self.pruning = pruning
        self.max_depth = max_depth

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on the growing folds, prune and backfit it with the pruning fold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative instance weights (Weka instance weights); uniform by default.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        K = len(self.classes_)
        n = X.shape[0]
        rng = JavaRandom(self.seed)
        prune_rows = self.pruning and n >= self.num_folds
        grow, prune = weka_holdout_split(y_idx, self.num_folds, rng, split=prune_rows)
        Xg, yg, wg = X[grow], y_idx[grow], w[grow]
        self._K = K
        self._X, self._y, self._w = Xg, yg, wg
        self._max_depth = -1 if self.max_depth is None else int(self.max_depth)
        # class weights and total weight of the root, summed row by row
        onehot = np.zeros((len(grow), K))
        onehot[np.arange(len(grow)), yg] = wg
        root_dist = _seq_sum(onehot, axis=0) if len(grow) else np.zeros(K)
        total = float(_seq_sum(wg)) if len(grow) else 0.0
        sorted_rows = weka_sort_columns(Xg, yg, wg)
        root = self._grow(sorted_rows, root_dist, total, 0)
        del self._X, self._y, self._w
        if prune_rows:
            self._insert_holdout(root, None, X[prune], y_idx[prune], w[prune])
            self._prune(root)
            self._backfit(root)
        self.tree_ = self._flatten(root)
        leaves = self.tree_["feature"] < 0
        self.fit_info_ = {
            "n_nodes": int(len(leaves)),
            "n_leaves": int(leaves.sum()),
            "depth": int(self._depth(root)),
            "n_grow": int(len(grow)),
            "n_prune": int(len(prune)),
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    # -- growing ---------------------------------------------------------------------------

    def _grow(self, rows, class_dist, total_weight, depth):
        """Build the node holding the growing rows ``rows`` (shape (d, m): the node's rows in
        each attribute's sort order)."""
        K = self._K
        node = _Node(K)
        d, m = rows.shape
        if m == 0:  # no rows reached this node: it predicts its parent's distribution
            return node
        node.dist = class_dist.copy()
        node.probs = _normalised(class_dist)
        pure = abs(class_dist.max() - float(_seq_sum(class_dist))) < _SMALL
        if (
            total_weight < 2 * self.min_num
            or pure
            or (self._max_depth >= 0 and depth >= self._max_depth)
        ):
            return node
        best = self._best_split(rows)
        if best is None:
            return node
        feature, cut, left_dist, right_dist = best
        node.feature, node.threshold = feature, cut
        goes_left = self._X[:, feature] < cut
        sel = goes_left[rows]
        m_left = int(sel[0].sum())
        left_rows = rows[sel].reshape(d, m_left)
        right_rows = rows[~sel].reshape(d, m - m_left)
        node.children = [
            self._grow(left_rows, left_dist, float(_seq_sum(left_dist)), depth + 1),
            self._grow(right_rows, right_dist, float(_seq_sum(right_dist)), depth + 1),
        ]
        return node

    def _best_split(self, rows):
        """The split Weka chooses at a node, or None when the node stays a leaf."""
        K = self._K
        d, m = rows.shape
        vals = np.take_along_axis(self._X.T, rows, axis=1)  # (d, m), sorted per attribute
        onehot = np.zeros((d, m, K))
        cls = self._y[rows]
        wts = self._w[rows]
        for k in range(K):
            onehot[:, :, k] = np.where(cls == k, wts, 0.0)
        left = np.cumsum(onehot, axis=1)  # [:, i]: the first i + 1 rows
        totals = left[:, -1, :]  # per attribute, summed in its own sort order
        right = np.cumsum(np.concatenate([totals[:, None, :], -onehot], axis=1), axis=1)
        prior = _entropy_over_columns(totals)  # (d,)
        # a cut before sorted position i (1 <= i < m) between distinct values
        fs, pos = np.nonzero(vals[:, 1:] > vals[:, :-1])
        pos = pos + 1
        gains = np.full((d, m), -np.inf)
        gains[fs, pos] = prior[fs] - _entropy_score(left[fs, pos - 1], right[fs, pos])
        best_pos = np.argmax(gains, axis=1)  # the first cut of largest gain
        has_cut = np.isfinite(gains[np.arange(d), best_pos])
        # the table of each attribute's chosen cut; an attribute without any cut keeps its
        # initial table (nothing, everything)
        att = np.arange(d)
        best_left = np.where(has_cut[:, None], left[att, best_pos - 1], 0.0)
        best_right = np.where(has_cut[:, None], right[att, np.maximum(best_pos, 0)], totals)
        # attributes are compared by the gain recomputed from that table, whose column sums
        # (left + right) can differ from the node totals by rounding (as in Weka)
        att_gain = _entropy_over_columns(best_left + best_right) - _entropy_score(
            best_left, best_right
        )
        a = int(np.argmax(att_gain))  # the first attribute of largest gain
        if not att_gain[a] - 0.0 > _SMALL or not has_cut[a]:
            return None
        i = int(best_pos[a])
        left_dist, right_dist = left[a, i - 1].copy(), right[a, i].copy()
        if not (
            float(_seq_sum(left_dist)) >= self.min_num
            and float(_seq_sum(right_dist)) >= self.min_num
        ):
            return None
        lo, hi = float(vals[a, i - 1]), float(vals[a, i])
        cut = (lo + hi) / 2.0
        if cut <= lo:  # the midpoint rounded onto the lower value
            cut = hi
        return a, cut, left_dist, right_dist

    # -- pruning ---------------------------------------------------------------------------

    def _insert_holdout(self, node, parent, X, y, w):
        """Pass the pruning rows (in Weka's order) down the tree, counting at every node."""
        K = self._K
        onehot = np.zeros((len(y), K))
        onehot[np.arange(len(y)), y] = w
        node.holdout = _seq_sum(onehot, axis=0) if len(y) else np.zeros(K)
        probs = node.probs if node.probs is not None else parent.probs
        if probs is None:  # no training weight here nor at the parent (zero weights)
            probs = np.zeros(K)
        wrong = np.where(y != int(np.argmax(probs)), w, 0.0)
        node.holdout_error = float(_seq_sum(wrong)) if len(y) else 0.0
        if node.children is not None:
            left = X[:, node.feature] < node.threshold
            self._insert_holdout(node.children[0], node, X[left], y[left], w[left])
            self._insert_holdout(node.children[1], node, X[~left], y[~left], w[~left])

    def _prune(self, node):
        """Bottom-up reduced-error pruning; returns the hold-out error of the (pruned) subtree."""
        if node.children is None:
            return node.holdout_error
        subtree = 0.0
        for child in node.children:
            subtree += self._prune(child)
        if subtree >= node.holdout_error:
            node.feature, node.threshold, node.children = -1, np.nan, None
            return node.holdout_error
        return subtree

    def _backfit(self, node):
        node.probs = _normalised(node.dist + node.holdout)
        if node.children is not None:
            for child in node.children:
                self._backfit(child)

    # -- storage and prediction ------------------------------------------------------------

    def _depth(self, node):
        if node.children is None:
            return 0
        return 1 + max(self._depth(c) for c in node.children)

    def _flatten(self, root):
        feature, threshold, left, right, value = [], [], [], [], []
        uniform = np.full(self._K, 1.0 / self._K)

        def add(node, parent_value):
            k = len(feature)
            own = node.probs if node.probs is not None else parent_value
            feature.append(node.feature)
            threshold.append(node.threshold)
            left.append(-1)
            right.append(-1)
            value.append(own)
            if node.children is not None:
                left[k] = add(node.children[0], own)
                right[k] = add(node.children[1], own)
            return k

        add(root, uniform)
        return {
            "feature": np.asarray(feature, dtype=np.intp),
            "threshold": np.asarray(threshold, dtype=np.float64),
            "left": np.asarray(left, dtype=np.intp),
            "right": np.asarray(right, dtype=np.intp),
            "value": np.asarray(value, dtype=np.float64).reshape(len(feature), self._K),
        }

    def apply(self, X):
        """Index (into ``tree_`` arrays) of the leaf each sample reaches."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        t = self.tree_
        node = np.zeros(X.shape[0], dtype=np.intp)
        active = t["feature"][node] >= 0
        while np.any(active):
            idx = np.nonzero(active)[0]
            cur = node[idx]
            go_left = X[idx, t["feature"][cur]] < t["threshold"][cur]
            node[idx] = np.where(go_left, t["left"][cur], t["right"][cur])
            active[idx] = t["feature"][node[idx]] >= 0
        return node

    def predict_proba(self, X):
        """Class distribution of the leaf each sample reaches, shape (n_samples, n_classes)."""
        leaves = self.apply(X)
        return self.tree_["value"][leaves]

    def predict(self, X):
        """The first class of largest probability (Weka's ``maxIndex``)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
