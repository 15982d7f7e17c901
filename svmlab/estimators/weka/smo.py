"""Weka 3.6's linear SMO (``weka.classifiers.functions.SMO``), iterate for iterate.

:class:`WekaSMOClassifier` re-implements Weka 3.6.14's support vector classifier with its
default options ``-C 1.0 -L 0.001 -P 1.0E-12 -N 0 -V -1 -W 1 -K
"weka.classifiers.functions.supportVector.PolyKernel -C 250007 -E 1.0"``: the linear kernel,
every attribute rescaled to [0, 1] on the training data, no logistic calibration (no ``-M``).
It is the base learner of the HyDR-MI study's "MIWrapper (SMO)" column
(``MIWrapperClassifier(estimator=WekaSMOClassifier())``).

What is reproduced (read from the 3.6.14 jar's classes ``SMO``, ``SMO$BinarySMO``, ``SMOset``,
``PolyKernel``, ``Normalize`` and ``Instances.randomize``; docs/decisions/mil.md, "SMO as a
base learner"):

* **Instance weights.** SMO is a ``WeightedInstancesHandler``: a row of weight ``w_i`` gets
  the box ``0 <= alpha_i <= C w_i``; rows of weight 0 are dropped before anything else
  (also before the scaling range is taken). Weka's ``MIWrapper`` hands its weighted instances
  to SMO as they are (it never resamples), so ``MIWrapperClassifier`` passing
  ``sample_weight`` is exactly Weka's route.
* **Scaling** (``-N 0``, ``Normalize``): ``(x - min) / (max - min)`` per feature with the
  training minimum and maximum, computed with a division as Weka does; a feature constant in
  training is 0 for every row. ``scaling="none"`` is ``-N 2``.
* **Solver.** Platt's SMO with Keerthi et al.'s (2001) two thresholds ("modification 2"),
  in Weka's arrangement: per class pair, the rows of the first class then those of the
  second (each in input order), shuffled by ``Instances.randomize`` with one
  ``java.util.Random(-W)`` shared by all pairs; alternating sweeps over all rows and over the
  unbounded ones; Weka's pair step (``eta``, the ``-P`` round-off test, snapping to the bounds
  with ``4.94e-321``), the error cache of the unbounded rows, the linked-list order in which
  Weka's ``SMOset`` visits them, the incrementally updated weight vector of the linear
  machine, and every floating-point operation in Weka's order. Stopping: no violation larger
  than ``2 L`` (``-L``). The bias is ``(b_low + b_up) / 2``.
* **Prediction.** Output ``<w, x> - b`` (a sequential sum, as Weka); a pair votes for its
  second class when the output is > 0. Without ``-M`` Weka's class distribution is the vote
  share, so for two classes ``predict_proba`` is a hard 0/1 row. With a single training
  class Weka's machine predicts that class.

Kept parallel: :mod:`svmlab.estimators.weka.kernel_smo` (MISMO's ``BinaryMISMO``) repeats
this module's ``_take_step``, ``_examine`` and ``_binary_smo`` with a cached bag-kernel matrix
and a support-vector list in place of ``X`` and ``w``. The two share the set-membership
tests, the ``eta >= 0`` end choice (``_end_choice``) and the start (``_first_thresholds``); the
per-step code stays written out in each, since the shared segment, snapping, threshold and
partner helpers measured 2-7 % more CPU per fit (with the same iterates) as numba calls and
inlined alike.

Not offered: ``-M`` (logistic calibration), ``-N 1`` (standardisation), non-linear kernels,
nominal attributes and missing values (``ReplaceMissingValues`` / ``NominalToBinary``; svmlab
passes numeric matrices without missing values).

References
----------
J. Platt. Fast training of support vector machines using sequential minimal optimization.
In Advances in Kernel Methods - Support Vector Learning, MIT Press, 1998.
S. S. Keerthi, S. K. Shevade, C. Bhattacharyya, K. R. K. Murthy. Improvements to Platt's SMO
algorithm for SVM classifier design. Neural Computation 13(3), 637-649, 2001.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _check_sample_weight, _fit_context
from svmlab.estimators.weka.java_random import JavaRandom

__all__ = ["WekaSMOClassifier", "weka_normalize"]

#: ``njit`` without numba's reference counting, for the step helpers of the SMO loops (they
#: allocate nothing). With it every array argument of a call costs two atomic counter
#: updates: MISMO's step (:mod:`svmlab.estimators.weka.kernel_smo`) ran about 4x slower with
#: the same iterates. numba's own sorts compile with the same flag.
loop_njit = njit(cache=True, _nrt=False)

#: Weka's ``SMO.m_Del``: an alpha within this fraction of a bound is put on the bound.
_DEL = 4.94e-321


def weka_normalize(X_train):
    """Weka's ``Normalize`` (``-N 0``) fitted on ``X_train``: ``(low, span)`` per feature.

    Apply with :func:`_apply_normalize`: ``(x - low) / span``, and 0 where ``span == 0``.
    Weka divides by the range; :func:`svmlab.estimators.mil._bags.minmax_scaler` multiplies by
    its reciprocal, which can differ in the last bit and would move the SMO iterate.
    """
    low = X_train.min(axis=0)
    return low, X_train.max(axis=0) - low


def _apply_normalize(X, low, span):
    out = np.zeros_like(X, dtype=np.float64)
    keep = span != 0
    out[:, keep] = (X[:, keep] - low[keep]) / span[keep]
    return out


# --------------------------------------------------------------------------------------
# Weka's BinarySMO for the linear machine (numba); X holds the rows in Weka's order
# --------------------------------------------------------------------------------------


@njit(cache=True)
def _dot(X, i, j):
    s = 0.0
    for k in range(X.shape[1]):
        s += X[i, k] * X[j, k]
    return s


@njit(cache=True)
def _output(w, X, i, b):
    s = 0.0
    for k in range(X.shape[1]):
        s += w[k] * X[i, k]
    return s - b


@loop_njit
def _list_insert(i, state, nxt, prv, member):
    # state[0]: first element of the I0 list (-1 when empty); insertion at the head
    if member[i]:
        return
    first = state[0]
    nxt[i] = first
    if first != -1:
        prv[first] = i
    prv[i] = -1
    state[0] = i
    member[i] = True


@loop_njit
def _list_delete(i, state, nxt, prv, member):
    if not member[i]:
        return
    if state[0] == i:
        state[0] = nxt[i]
    else:
        nxt[prv[i]] = nxt[i]
    if nxt[i] != -1:
        prv[nxt[i]] = prv[i]
    member[i] = False


@loop_njit
def _up_set(i, y, alpha, box, member):
    """I1 or I2 (outside I0): alpha may grow along y."""
    if member[i]:
        return False
    return (y[i] > 0 and alpha[i] == 0.0) or (y[i] < 0 and alpha[i] == box[i])


@loop_njit
def _low_set(i, y, alpha, box, member):
    """I3 or I4 (outside I0): alpha may shrink along y."""
    if member[i]:
        return False
    return (y[i] > 0 and alpha[i] == box[i]) or (y[i] < 0 and alpha[i] == 0.0)


@loop_njit
def _end_choice(alph1, alph2, y1, y2, k11, k12, k22, v1, v2, L, H, eps):
    """``takeStep``'s new ``alpha[i2]`` when ``eta >= 0``: the end of [L, H] whose objective
    is larger by more than ``eps``, else ``alph2`` (``v1``, ``v2``: the two rows' outputs
    without the pair's terms). Shared with :mod:`svmlab.estimators.weka.kernel_smo`."""
    s = y1 * y2
    g = alph1 + s * alph2
    gL = g - s * L
    gH = g - s * H
    Lobj = (
        gL + L - 0.5 * k11 * gL * gL - 0.5 * k22 * L * L - s * k12 * gL * L
        - y1 * gL * v1 - y2 * L * v2
    )  # fmt: skip
    Hobj = (
        gH + H - 0.5 * k11 * gH * gH - 0.5 * k22 * H * H - s * k12 * gH * H
        - y1 * gH * v1 - y2 * H * v2
    )  # fmt: skip
    if Lobj > Hobj + eps:
        return L
    if Lobj < Hobj - eps:
        return H
    return alph2


@njit(cache=True)
def _first_thresholds(y, errors):
    """``buildClassifier``'s start: the last row of each class as ``i_up`` (y = +1, error -1)
    and ``i_low`` (y = -1, error +1). Returns ``(i_up, i_low)``."""
    i_up, i_low = -1, -1
    for i in range(y.shape[0]):
        if y[i] > 0:
            i_up = i
        else:
            i_low = i
    errors[i_low] = 1.0
    errors[i_up] = -1.0
    return i_up, i_low


@njit(cache=True)
def _take_step(i1, i2, F2, X, y, box, alpha, errors, w, th, ti, state, nxt, prv, member, eps):
    """Weka's ``SMO$BinarySMO.takeStep``: the joint update of ``alpha[i1]`` and ``alpha[i2]``,
    then the error cache, the weight vector and the thresholds; True if the pair moved.

    Kept whole: it follows Weka 3.6.14's ``takeStep`` line for line (every floating-point
    operation in Weka's order, module docstring) as one numba-compiled function; split, it
    could no longer be read beside Weka's method, and the compiled arithmetic could change.
    """
    # th = [b_up, b_low, b]; ti = [i_up, i_low, n_steps]
    C1, C2 = box[i1], box[i2]
    if i1 == i2:
        return False
    alph1, alph2 = alpha[i1], alpha[i2]
    y1, y2 = y[i1], y[i2]
    F1 = errors[i1]
    s = y1 * y2
    if y1 != y2:
        L = max(0.0, alph2 - alph1)
        H = min(C2, C1 + alph2 - alph1)
    else:
        L = max(0.0, alph1 + alph2 - C1)
        H = min(C2, alph1 + alph2)
    if L >= H:
        return False
    k11 = _dot(X, i1, i1)
    k12 = _dot(X, i1, i2)
    k22 = _dot(X, i2, i2)
    eta = 2.0 * k12 - k11 - k22
    if eta < 0.0:
        a2 = alph2 - y2 * (F1 - F2) / eta
        if a2 < L:
            a2 = L
        elif a2 > H:
            a2 = H
    else:  # Weka's outputs inside v1, v2: (<w, x> - b) + b
        b = th[2]
        f1 = _output(w, X, i1, b)
        f2 = _output(w, X, i2, b)
        v1 = f1 + b - y1 * alph1 * k11 - y2 * alph2 * k12
        v2 = f2 + b - y1 * alph1 * k12 - y2 * alph2 * k22
        a2 = _end_choice(alph1, alph2, y1, y2, k11, k12, k22, v1, v2, L, H, eps)
    if abs(a2 - alph2) < eps * (a2 + alph2 + eps):
        return False
    if a2 > C2 - _DEL * C2:
        a2 = C2
    elif a2 <= _DEL * C2:
        a2 = 0.0
    a1 = alph1 + s * (alph2 - a2)
    if a1 > C1 - _DEL * C1:
        a1 = C1
    elif a1 <= _DEL * C1:
        a1 = 0.0
    # I0 membership (Weka updates its sets for i1, then for i2)
    if a1 > 0.0 and a1 < C1:
        _list_insert(i1, state, nxt, prv, member)
    else:
        _list_delete(i1, state, nxt, prv, member)
    if a2 > 0.0 and a2 < C2:
        _list_insert(i2, state, nxt, prv, member)
    else:
        _list_delete(i2, state, nxt, prv, member)
    # the linear machine's weight vector
    d1 = y1 * (a1 - alph1)
    d2 = y2 * (a2 - alph2)
    for k in range(X.shape[1]):
        w[k] += d1 * X[i1, k]
    for k in range(X.shape[1]):
        w[k] += d2 * X[i2, k]
    # error cache of the unbounded rows
    i = state[0]
    while i != -1:
        if i != i1 and i != i2:
            errors[i] += d1 * _dot(X, i1, i) + d2 * _dot(X, i2, i)
        i = nxt[i]
    errors[i1] += d1 * k11 + d2 * k12
    errors[i2] += d1 * k12 + d2 * k22
    alpha[i1] = a1
    alpha[i2] = a2
    # thresholds from the unbounded rows (in the list's order) and i1, i2
    b_up = 1.7976931348623157e308
    b_low = -1.7976931348623157e308
    i_up, i_low = -1, -1
    i = state[0]
    while i != -1:
        if errors[i] < b_up:
            b_up = errors[i]
            i_up = i
        if errors[i] > b_low:
            b_low = errors[i]
            i_low = i
        i = nxt[i]
    for side in range(2):
        j = i1 if side == 0 else i2
        if not member[j]:
            if _low_set(j, y, alpha, box, member):
                if errors[j] > b_low:
                    b_low = errors[j]
                    i_low = j
            elif errors[j] < b_up:
                b_up = errors[j]
                i_up = j
    if i_low == -1 or i_up == -1:
        raise RuntimeError("Weka SMO: no threshold index (Weka fails here too)")
    th[0], th[1] = b_up, b_low
    ti[0], ti[1] = i_up, i_low
    ti[2] += 1
    return True


@njit(cache=True)
def _examine(i2, X, y, box, alpha, errors, w, th, ti, state, nxt, prv, member, tol, eps):
    y2 = y[i2]
    if member[i2]:
        F2 = errors[i2]
    else:
        F2 = _output(w, X, i2, th[2]) + th[2] - y2
        errors[i2] = F2
        if _up_set(i2, y, alpha, box, member) and F2 < th[0]:
            th[0] = F2
            ti[0] = i2
        elif _low_set(i2, y, alpha, box, member) and F2 > th[1]:
            th[1] = F2
            ti[1] = i2
    optimal = True
    i1 = -1
    if (member[i2] or _up_set(i2, y, alpha, box, member)) and th[1] - F2 > 2.0 * tol:
        optimal = False
        i1 = ti[1]
    if (member[i2] or _low_set(i2, y, alpha, box, member)) and F2 - th[0] > 2.0 * tol:
        optimal = False
        i1 = ti[0]
    if optimal:
        return False
    if member[i2]:
        i1 = ti[1] if th[1] - F2 > F2 - th[0] else ti[0]
    if i1 == -1:
        raise RuntimeError("Weka SMO: no partner row (Weka fails here too)")
    return _take_step(i1, i2, F2, X, y, box, alpha, errors, w, th, ti, state, nxt, prv, member, eps)


@njit(cache=True)
def _binary_smo(X, y, box, tol, eps):
    """Weka's ``BinarySMO.buildClassifier`` on rows already in Weka's order; y in {-1, +1}
    (both present). Returns ``(w, b, alpha, n_steps, n_sweeps)``."""
    n = X.shape[0]
    alpha = np.zeros(n)
    errors = np.zeros(n)
    w = np.zeros(X.shape[1])
    i_up, i_low = _first_thresholds(y, errors)
    th = np.array([-1.0, 1.0, 0.0])  # b_up, b_low, b
    ti = np.array([i_up, i_low, 0])  # i_up, i_low, successful pair steps
    state = np.array([-1])
    nxt = np.full(n, -1)
    prv = np.full(n, -1)
    member = np.zeros(n, dtype=np.bool_)
    n_changed = 0
    examine_all = True
    sweeps = 0
    while n_changed > 0 or examine_all:
        n_changed = 0
        sweeps += 1
        for i in range(n):
            if not examine_all and not (alpha[i] > 0.0 and alpha[i] < box[i]):
                continue
            if _examine(i, X, y, box, alpha, errors, w, th, ti, state, nxt, prv, member, tol, eps):
                n_changed += 1
            if not examine_all and th[0] > th[1] - 2.0 * tol:
                n_changed = 0
                break
        if examine_all:
            examine_all = False
        elif n_changed == 0:
            examine_all = True
    b = (th[1] + th[0]) / 2.0
    return w, b, alpha, ti[2], sweeps


@njit(cache=True)
def _outputs(X, coef, b):
    """``<coef, x> - b`` for every row, summed feature by feature as Weka does."""
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        s = 0.0
        for k in range(X.shape[1]):
            s += X[i, k] * coef[k]
        out[i] = s - b
    return out


# --------------------------------------------------------------------------------------
# the estimator
# --------------------------------------------------------------------------------------


class WekaSMOClassifier(ClassifierMixin, BaseEstimator):
    """Weka 3.6's ``weka.classifiers.functions.SMO`` with the linear kernel (no ``-M``).

    Linear soft-margin SVM trained by Weka's own SMO iterate (see the module notes): with the
    defaults it reproduces ``SMO -C 1.0 -L 0.001 -P 1.0E-12 -N 0 -V -1 -W 1 -K
    "weka.classifiers.functions.supportVector.PolyKernel -C 250007 -E 1.0"`` of Weka 3.6.14.
    More than two classes are handled as Weka does: one machine per class pair, majority vote.

    Parameters
    ----------
    C : float, default=1.0
        Complexity constant (Weka ``-C``); row ``i`` gets the box ``C * sample_weight[i]``.
    tol : float, default=1e-3
        Weka's tolerance ``-L``: stop when no KKT violation exceeds ``2 * tol``.
    epsilon : float, default=1e-12
        Weka's round-off epsilon ``-P``: a pair step smaller than this (relatively) is no step.
    scaling : {"minmax", "none"}, default="minmax"
        ``"minmax"``: Weka's ``-N 0`` (each feature mapped to [0, 1] by its training range; a
        feature constant in training becomes 0). ``"none"``: ``-N 2``.
    seed : int, default=1
        Weka's ``-W``: seed of the ``java.util.Random`` that shuffles each class pair's rows.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted labels; a label's index is its Weka class index.
    coef_ : ndarray of shape (n_pairs, n_features)
        Weight vector of each class pair's machine (pairs ``(i, j)``, ``i < j``, in Weka's
        order), in the scaled feature space.
    intercept_ : ndarray of shape (n_pairs,)
        ``-b`` of each machine: the output is ``<coef_, scaled x> + intercept_``.
    pairs_ : ndarray of shape (n_pairs, 2)
        The class indices ``(i, j)`` of each machine; output > 0 votes for ``j``. A single
        training class gets one machine ``(0, 0)`` that always votes for it (Weka's bias -1).
    n_features_in_ : int
    fit_info_ : dict
        ``n_train`` (rows of positive weight), per-pair lists ``n_steps`` (successful pair
        updates), ``n_sweeps`` and ``n_support`` (rows with alpha > 0), ``fit_seconds``.

    Notes
    -----
    Weka 3.6 SMO implements ``WeightedInstancesHandler``; instance weights scale each row's
    box constraint. Zero-weight rows are removed before scaling, as in Weka.

    References
    ----------
    Weka 3.6.14, ``weka.classifiers.functions.SMO`` (Platt 1998; Keerthi et al. 2001).
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "epsilon": [Interval(Real, 0.0, None, closed="neither")],
        "scaling": [StrOptions({"minmax", "none"})],
        "seed": [Interval(Integral, None, None, closed="neither")],
    }

    def __init__(
        self,
        C: float = 1.0,
        tol: float = 1e-3,
        epsilon: float = 1e-12,
        scaling: str = "minmax",
        seed: int = 1,
    ):
        self.C = C
        self.tol = tol
        self.epsilon = epsilon
        self.scaling = scaling
        self.seed = seed

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Train one Weka SMO machine per class pair.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weka instance weights (default 1); non-negative, rows of weight 0 are dropped.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if np.any(sample_weight < 0):
            raise ValueError("sample_weight must be non-negative")
        keep = sample_weight > 0  # (an all-zero sample_weight is refused above)
        X, y, sample_weight = X[keep], y[keep], sample_weight[keep]
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if self.scaling == "minmax":
            self._low, self._span = weka_normalize(X)
            X = _apply_normalize(X, self._low, self._span)
        box = float(self.C) * sample_weight
        rng = JavaRandom(int(self.seed))
        k = len(self.classes_)
        members = [np.flatnonzero(y_idx == c) for c in range(k)]
        pairs, coefs, biases = [], [], []
        info = {"n_steps": [], "n_sweeps": [], "n_support": []}
        for i in range(k):
            for j in range(i + 1, k):
                rows = np.concatenate([members[i], members[j]])
                rows = rows[rng.shuffled(len(rows))]
                yy = np.where(y_idx[rows] == j, 1.0, -1.0)
                Xp = np.ascontiguousarray(X[rows])
                w, b, alpha, steps, sweeps = _binary_smo(
                    Xp, yy, box[rows], float(self.tol), float(self.epsilon)
                )
                pairs.append((i, j))
                coefs.append(w)
                biases.append(b)
                info["n_steps"].append(int(steps))
                info["n_sweeps"].append(int(sweeps))
                info["n_support"].append(int(np.sum(alpha > 0)))
        if k == 1:  # Weka's machine for a lone class: zero weights, bias -1 (votes for it)
            pairs, coefs, biases = [(0, 0)], [np.zeros(X.shape[1])], [-1.0]
        self.pairs_ = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        self.coef_ = np.asarray(coefs, dtype=np.float64).reshape(-1, X.shape[1])
        self._b = np.asarray(biases, dtype=np.float64)
        self.intercept_ = -self._b
        self.fit_info_ = {"n_train": int(X.shape[0]), **info}
        self.fit_info_["fit_seconds"] = time.perf_counter() - t0
        return self

    def _scaled(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.scaling == "minmax":
            X = _apply_normalize(X, self._low, self._span)
        return np.ascontiguousarray(X)

    def _pair_outputs(self, X):
        Z = self._scaled(X)
        return np.column_stack([_outputs(Z, c, b) for c, b in zip(self.coef_, self._b)])

    def _votes(self, out):
        votes = np.zeros((out.shape[0], len(self.classes_)))
        rows = np.arange(out.shape[0])
        for p, (i, j) in enumerate(self.pairs_):
            np.add.at(votes, (rows, np.where(out[:, p] > 0, j, i)), 1.0)
        return votes

    def decision_function(self, X):
        """Weka's SVM output ``<w, x> - b`` (two classes) or the pairwise votes (more).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: the machine's output, positive means ``classes_[1]``. More classes:
            each class's number of pairwise votes (the first maximum is the prediction).
        """
        out = self._pair_outputs(X)
        if len(self.classes_) > 2:
            return self._votes(out)
        return out[:, 0]

    def predict_proba(self, X):
        """Weka's class distribution without ``-M``: each machine's vote, normalised.

        For two classes every row is a hard ``[1, 0]`` or ``[0, 1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        votes = self._votes(self._pair_outputs(X))
        return votes / votes.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The most voted class (the first one on a tie, as Weka's ``Utils.maxIndex``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        votes = self._votes(self._pair_outputs(X))
        return self.classes_[np.argmax(votes, axis=1)]
