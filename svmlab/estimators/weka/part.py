"""PART: a decision list whose rules are read off partial C4.5 trees, as Weka 3.6 builds it.

:class:`PARTClassifier` is a general single-instance classifier (``fit(X, y,
sample_weight=None)``, ``predict``, ``predict_proba``). With its defaults it is Weka 3.6's
``weka.classifiers.rules.PART -M 2 -C 0.25 -Q 1`` on numeric attributes and a nominal class,
the base learner of the HyDR-MI study's MIWrapper(PART) and SimpleMI(PART) columns.

Reference: E. Frank, I. H. Witten. Generating accurate rule sets without global optimization.
Proc. 15th International Conference on Machine Learning (ICML), 144-151, 1998.

How the list is built (behaviour of Weka's ``MakeDecList`` and ``C45PruneableDecList``)
----------------------------------------------------------------------------------------
* Rules are made one at a time from the training instances no earlier rule covers, until none
  is left. Each rule is the path to the largest leaf of a *partial* C4.5 tree.
* Partial tree: a node picks a split (below). Its subsets are expanded in order of increasing
  class entropy (subsets weighing less than ``min_num_obj`` are never expanded); expansion
  stops at the first subset that does not end up a leaf. When every child is a leaf, the node
  is replaced by a leaf if its pessimistic error is at most the children's summed error plus
  0.1 (C4.5's subtree replacement, confidence ``confidence_factor``). A node whose subsets are
  all too light becomes a leaf. The rule follows, from every node, the child (of at least
  ``min_num_obj`` weight) that leads to the heaviest leaf.
* Split selection (Weka's ``C45ModelSelection`` / ``C45Split`` on numeric attributes): no split
  when the node weighs less than ``2 * min_num_obj`` or is pure. For every attribute, cuts lie
  between sorted neighbouring values more than ``1e-5`` apart, and each side must weigh at
  least ``clip(0.1 * W / n_classes, min_num_obj, 25)``; the cut of largest information gain
  wins (the first one unless a later one is better by more than ``1e-6``). The gain is then
  lowered by ``log2(n_cuts) / W`` (the MDL correction; ``n_cuts`` counts the admissible cuts)
  and the attribute is kept if the result is positive. Among kept attributes whose gain is at
  least the mean gain minus ``1e-3``, the largest gain ratio wins (first attribute on ties).
* The threshold is the midpoint of the two neighbouring values, then moved down to the
  largest value of that attribute in the *whole* training set that does not exceed it (Weka
  sets the split point to an actual value); ``x <= threshold`` is the left branch.
* A rule's class distribution is its leaf's weighted class counts divided by their total;
  a sample is classified by the first rule that covers it. ``predict`` takes the first class
  whose probability beats the best so far by more than ``1e-6`` (Weka's ``classifyInstance``).
  Comparisons use Weka's tolerance ``1e-6`` (``Utils.gr`` / ``Utils.sm`` / ``Utils.eq``).

Weka also accepts nominal attributes and missing values (fractional instances), reduced-error
pruning (``-R``) and binary splits (``-B``, which changes nothing on numeric attributes); this
learner has numeric attributes only, refuses missing values and implements C4.5 pruning or none
(``unpruned``, Weka's ``-U``).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import ndtri
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, _check_sample_weight, _fit_context

__all__ = ["PARTClassifier", "weka_argmax"]

_SMALL = 1e-6  # Weka's Utils.SMALL
_LN2 = math.log(2.0)


def _xlnx(v):
    """``v ln v``, 0 below ``1e-6`` (the entropy term of Weka's J48 split criteria)."""
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v >= _SMALL, v * np.log(np.maximum(v, _SMALL)), 0.0)


def _xlnx1(v: float) -> float:
    return v * math.log(v) if v >= _SMALL else 0.0


def weka_argmax(proba):
    """Row-wise index of the largest value, keeping the earlier one unless a later one is
    larger by more than ``1e-6`` (Weka's ``classifyInstance`` loop with ``Utils.gr``)."""
    proba = np.asarray(proba, dtype=np.float64)
    best = np.full(proba.shape[0], -1.0)
    idx = np.zeros(proba.shape[0], dtype=np.intp)
    for j in range(proba.shape[1]):
        better = proba[:, j] > best + _SMALL
        best[better] = proba[better, j]
        idx[better] = j
    return idx


def _first_max(counts) -> int:
    """Weka's ``Distribution.maxClass``: first class beating the running maximum (from 0)."""
    best, idx = 0.0, 0
    for k, c in enumerate(counts):
        if c > best + _SMALL:
            best, idx = c, k
    return idx


def _added_errors(n: float, e: float, cf: float, z: float) -> float:
    """C4.5's pessimistic extra errors for a leaf of weight ``n`` with ``e`` errors (the upper
    confidence limit of the binomial error rate, as Weka's ``Stats.addErrs``)."""
    if cf > 0.5:
        return 0.0
    if e < 1:
        base = n * (1.0 - cf ** (1.0 / n))
        if e == 0:
            return base
        return base + e * (_added_errors(n, 1.0, cf, z) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n
    )
    return r * n - e


def _chain_pick(values, start: float):
    """Index Weka's sequential scan keeps: start at ``start``, replace the best when a value
    beats it by more than ``1e-6``; -1 when none does."""
    best, pos = start, -1
    for j, v in enumerate(values):
        if v > best + _SMALL:
            best, pos = v, j
    return pos


class _Node:
    """A node of a partial tree: a leaf (``counts``) or a binary numeric split."""

    __slots__ = ("leaf", "counts", "feature", "threshold", "bags", "sons", "index")

    def __init__(self, counts):
        self.leaf = True
        self.counts = counts  # weighted class counts of the node's (or leaf's) instances
        self.sons = None
        self.index = 0

    @property
    def total(self) -> float:
        return float(self.counts.sum())


class PARTClassifier(ClassifierMixin, BaseEstimator):
    """Weka 3.6's PART decision list (numeric attributes).

    Parameters
    ----------
    confidence_factor : float, default=0.25
        C4.5 pruning confidence (Weka ``-C``), in ``(0, 1)``; stored as a 32-bit float as
        Weka does. Values above 0.5 disable the pessimistic correction (Weka warns likewise).
    min_num_obj : int, default=2
        Minimum total weight of a branch (Weka ``-M``).
    unpruned : bool, default=False
        Build the rules from unpruned partial trees (Weka ``-U``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    rules_ : list of tuple
        ``(conditions, counts)`` per rule in order: ``conditions`` is a list of
        ``(feature, is_left, threshold)`` (``x[feature] <= threshold`` when ``is_left``, else
        ``>``; empty for the default rule), ``counts`` the leaf's weighted class counts.
    n_rules_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.estimators.weka.part import PARTClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> part = PARTClassifier().fit(X, [0, 0, 0, 1, 1, 1])
    >>> part.n_rules_, part.predict([[0.5], [4.5]]).tolist()
    (2, [0, 1])
    """

    _parameter_constraints: dict = {
        "confidence_factor": [Interval(Real, 0, 1, closed="neither")],
        "min_num_obj": [Interval(Integral, 1, None, closed="left")],
        "unpruned": ["boolean"],
    }

    def __init__(
        self, confidence_factor: float = 0.25, min_num_obj: int = 2, unpruned: bool = False
    ):
        self.confidence_factor = confidence_factor
        self.min_num_obj = min_num_obj
        self.unpruned = unpruned

    # ------------------------------------------------------------------ fitting
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Build the decision list.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric attributes; missing values (NaN) are refused.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative instance weights (Weka instance weights); 1 by default.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self._X, self._y, self._w = X, y_idx.astype(np.intp), w
        self._K = len(self.classes_)
        self._cf = float(np.float32(self.confidence_factor))
        self._z = float(ndtri(1.0 - self._cf))
        self._XT = np.ascontiguousarray(X.T)
        order = np.argsort(self._XT, axis=1, kind="stable")  # (d, N) presorted columns
        # every attribute's training values in order, for moving a cut to an actual value
        self._all_sorted = np.take_along_axis(self._XT, order, axis=1)
        remaining = np.arange(X.shape[0])
        rules = []
        try:
            while remaining.size:
                mask = np.zeros(X.shape[0], dtype=bool)
                mask[remaining] = True
                sub = order[mask[order]].reshape(X.shape[1], remaining.size)
                root = self._build(sub, leaf=False)
                rule = self._path(root)
                covered = self._covers(rule[0], X[remaining])
                if not covered.any():  # cannot happen with positive min_num_obj
                    raise RuntimeError("PART: a rule covers no training instance")
                rules.append(rule)
                remaining = remaining[~covered]
        finally:
            del self._X, self._XT, self._y, self._w, self._all_sorted
        self.rules_ = rules
        self.n_rules_ = len(rules)
        return self

    def _counts(self, idx):
        return np.bincount(self._y[idx], weights=self._w[idx], minlength=self._K)

    def _min_split(self, counts, n: int) -> float | None:
        """The least weight on each side of a cut in Weka's C45ModelSelection (``0.1 total /
        K`` clipped to [min_num_obj, 25]), or None when the node of ``n`` instances with class
        weights ``counts`` is not split (too small, or one class only)."""
        m = self.min_num_obj
        total = float(counts.sum())
        if total < 2 * m - _SMALL or abs(total - counts[_first_max(counts)]) < _SMALL:
            return None
        min_split = 0.1 * total / self._K
        if min_split <= m + _SMALL:
            min_split = float(m)
        elif min_split > 25 + _SMALL:
            min_split = 25.0
        if n < 2 * min_split - _SMALL or n < 2:
            return None
        return min_split

    def _select(self, order, counts):
        """The split Weka's C45ModelSelection picks for the node holding ``order`` (its
        instances sorted along every attribute), or None: C45Split's best cut of every
        attribute (gain with the MDL correction), then the best gain ratio among the
        attributes of at least average gain, vectorised over the attributes."""
        n = order.shape[1]
        min_split = self._min_split(counts, n)
        if min_split is None:
            return None
        K = self._K
        total = float(counts.sum())
        vals = np.take_along_axis(self._XT, order, axis=1)  # (d, n)
        ws = self._w[order]
        ys = self._y[order]
        cum = np.cumsum(ws, axis=1)
        tot_f = cum[:, -1:]
        left_w = cum[:, :-1]
        right_w = tot_f - left_w
        ok = (vals[:, :-1] + 1e-5 < vals[:, 1:]) & (left_w >= min_split - _SMALL)
        ok &= right_w >= min_split - _SMALL
        n_cuts = ok.sum(axis=1)
        rows = np.nonzero(n_cuts)[0]
        if rows.size == 0:
            return None
        ok, left_w, right_w, tot_f = ok[rows], left_w[rows], right_w[rows], tot_f[rows]
        rr, cc = np.nonzero(ok)  # entropies at the admissible cuts only
        acc = -_xlnx(left_w[rr, cc]) - _xlnx(right_w[rr, cc])
        lefts = []
        ws, ys = ws[rows], ys[rows]
        for k in range(K):
            ck = np.cumsum(np.where(ys == k, ws, 0.0), axis=1)
            lk = ck[:, :-1]
            lefts.append(lk)
            lkc = lk[rr, cc]
            acc += _xlnx(lkc) + _xlnx(ck[rr, -1] - lkc)
        new_ent = -acc / _LN2
        old_ent = (_xlnx1(total) - float(_xlnx(counts).sum())) / _LN2
        num = old_ent - new_ent
        gain = np.full(ok.shape, -np.inf)
        with np.errstate(invalid="ignore", divide="ignore"):
            gain[rr, cc] = np.where(np.abs(num) < _SMALL, 0.0, num / tot_f[rr, 0])
        # Weka's scan keeps a cut unless a later one beats it by more than 1e-6; that is the
        # first maximum unless some other gain lies within 1e-6 below it (then scan as Weka)
        best = gain.max(axis=1)
        pos = gain.argmax(axis=1)
        near = ((gain >= best[:, None] - _SMALL) & (gain < best[:, None])).any(axis=1)
        for r in np.nonzero(near)[0]:
            pos[r] = _chain_pick(gain[r], 0.0)
        valid = best > _SMALL
        info = np.zeros(rows.size)
        ratio = np.zeros(rows.size)
        for r in np.nonzero(valid)[0]:
            p = pos[r]
            ig = gain[r, p]
            ig -= math.log2(n_cuts[rows[r]]) / total  # MDL correction (Weka's default)
            if ig <= _SMALL:
                valid[r] = False
                continue
            pb0, pb1, tf = left_w[r, p], right_w[r, p], tot_f[r, 0]
            split_ent = 0.0
            if tf > _SMALL:
                split_ent = (-_xlnx1(pb0) - _xlnx1(pb1) - _xlnx1(total - tf) + _xlnx1(total)) / _LN2
            info[r] = ig
            ratio[r] = 0.0 if abs(split_ent) < _SMALL else ig / (split_ent / total)
        if not valid.any():
            return None
        mean_gain = math.fsum(info[valid]) / int(valid.sum())
        best_r, min_result = -1, 0.0
        for r in np.nonzero(valid)[0]:
            if info[r] >= mean_gain - 1e-3 and ratio[r] > min_result + _SMALL:
                best_r, min_result = r, ratio[r]
        if best_r < 0 or abs(min_result) < _SMALL:
            return None
        f, p = int(rows[best_r]), int(pos[best_r])
        threshold = self._split_point(f, vals[f, p], vals[f, p + 1])
        bag0 = np.array([lk[best_r, p] for lk in lefts])
        bags = np.vstack([bag0, counts - bag0])
        return f, threshold, bags

    def _split_point(self, f: int, below, above) -> float:
        """Weka's C45Split.setSplitPoint: the largest training value of attribute ``f`` at
        most the midpoint of the two values ``below`` and ``above`` the cut."""
        mid = (below + above) / 2.0
        if mid == above:
            mid = below
        col = self._all_sorted[f]
        return float(col[np.searchsorted(col, mid, side="right") - 1])

    def _build(self, order, leaf: bool):
        """One node of a partial tree (Weka's ``C45PruneableDecList.buildDecList``)."""
        counts = self._counts(order[0])
        node = _Node(counts)
        split = None if leaf else self._select(order, counts)
        if split is None:
            return node
        f, thr, bags = split
        idx = order[0]
        go_left = np.zeros(self._X.shape[0], dtype=bool)
        go_left[idx[self._X[idx, f] <= thr]] = True
        member = go_left[order]
        n_left = int(member[0].sum())
        d = order.shape[0]
        subsets = [
            order[member].reshape(d, n_left),
            order[~member].reshape(d, order.shape[1] - n_left),
        ]
        sons = [None, None]
        i = 0
        while True:
            i += 1
            ind = self._choose_index(sons, bags)
            if ind == -1:
                for j in range(2):
                    if sons[j] is None:
                        sons[j] = self._build(subsets[j], leaf=True)
                if i < 2:
                    return node  # no subset heavy enough: the node stays a leaf
                break
            sons[ind] = self._build(subsets[ind], leaf=False)
            if not (i < 2 and sons[ind].leaf):
                break
        node.leaf = False
        node.feature, node.threshold, node.bags, node.sons = f, thr, bags, sons
        if not self.unpruned and all(s is not None and s.leaf for s in sons):
            if self._prune_end(node):
                return node
        node.index = self._choose_last_index(node)
        return node

    def _leaf_errors(self, counts) -> float:
        total = float(counts.sum())
        errors = total - float(counts[_first_max(counts)])
        return errors + _added_errors(total, errors, self._cf, self._z)

    def _prune_end(self, node) -> bool:
        """Subtree replacement of a node whose children are all leaves."""
        tree = sum(self._leaf_errors(s.counts) for s in node.sons if abs(s.total) >= _SMALL)
        merged = node.bags.sum(axis=0)
        if self._leaf_errors(merged) <= tree + 0.1 + _SMALL:  # +0.1 as in C4.5
            node.leaf, node.sons, node.counts = True, None, merged
            return True
        return False

    def _choose_index(self, sons, bags) -> int:
        """The unexpanded subset of lowest class entropy (heavy enough), -1 if none."""
        min_index, min_value = -1, np.finfo(np.float64).max
        for i in range(2):
            if sons[i] is not None:
                continue
            pb = float(bags[i].sum())
            if pb < self.min_num_obj - _SMALL:
                est = np.finfo(np.float64).max
            else:
                est = (-float(_xlnx(bags[i]).sum()) + _xlnx1(pb)) / (pb * _LN2)
            if est <= _SMALL:
                return i
            if est < min_value - _SMALL:
                min_value, min_index = est, i
        return min_index

    def _choose_last_index(self, node) -> int:
        """The heavy-enough child leading to the heaviest leaf (the rule's branch)."""
        min_index, min_value = 0, np.finfo(np.float64).max
        for i, son in enumerate(node.sons):
            if son is not None and float(node.bags[i].sum()) >= self.min_num_obj - _SMALL:
                size = -self._branch_leaf(son).total
                if size < min_value - _SMALL:
                    min_value, min_index = size, i
        return min_index

    @staticmethod
    def _branch_leaf(node):
        while not node.leaf:
            node = node.sons[node.index]
        return node

    @staticmethod
    def _path(root):
        conditions = []
        node = root
        while not node.leaf:
            conditions.append((node.feature, node.index == 0, node.threshold))
            node = node.sons[node.index]
        return conditions, node.counts

    @staticmethod
    def _covers(conditions, X):
        covered = np.ones(X.shape[0], dtype=bool)
        for f, is_left, thr in conditions:
            covered &= (X[:, f] <= thr) if is_left else (X[:, f] > thr)
        return covered

    # --------------------------------------------------------------- prediction
    def _weka_distribution(self, X):
        """Weka's ``distributionForInstance``: the covering rule's class distribution (all
        zeros for a rule whose leaf weighs nothing)."""
        out = np.zeros((X.shape[0], len(self.classes_)))
        todo = np.ones(X.shape[0], dtype=bool)
        for conditions, counts in self.rules_:
            hit = todo & self._covers(conditions, X)
            total = float(counts.sum())
            if abs(total) >= _SMALL:
                out[hit] = counts / total
            todo &= ~hit
            if not todo.any():
                break
        return out

    def predict_proba(self, X):
        """Class distribution of the first rule covering each sample, shape (n_samples,
        n_classes); a rule whose leaf has no weight gives the uniform distribution."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        proba = self._weka_distribution(X)
        empty = proba.sum(axis=1) <= 0
        proba[empty] = 1.0 / len(self.classes_)
        return proba

    def predict(self, X):
        """Weka's ``classifyInstance``: the first class of largest probability (a later class
        must be larger by more than ``1e-6``)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.classes_[weka_argmax(self._weka_distribution(X))]

    def export_text(self, feature_names=None) -> str:
        """The rules in the layout of Weka's PART model output: ``name <= t AND`` ... ``:
        class (weight/errors)``, thresholds to 6 decimals, weights to 2."""
        check_is_fitted(self)
        names = feature_names or [f"x{j}" for j in range(self.n_features_in_)]
        lines = []
        for conditions, counts in self.rules_:
            terms = [
                f"{names[f]} {'<=' if left else '>'} {_fixed(t, 6)}" for f, left, t in conditions
            ]
            k = _first_max(counts)
            tot = float(counts.sum())
            err = tot - float(counts[k])
            label = f"{self.classes_[k]} ({_round2(tot)!r}"
            label += f"/{_round2(err)!r})" if err > 0 else ")"
            lines.append(" AND\n".join(terms) + ": " + label)
        return "\n\n".join(lines) + f"\n\nNumber of Rules  : \t{self.n_rules_}\n"


def _fixed(value: float, digits: int) -> str:
    """``value`` rounded to ``digits`` decimals without trailing zeros (Weka's
    ``Utils.doubleToString``)."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _round2(value: float) -> float:
    """Half-up rounding to 2 decimals (Weka's ``Utils.roundDouble``)."""
    return math.floor(value * 100 + 0.5) / 100
