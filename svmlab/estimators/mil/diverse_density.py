"""Diverse Density (Maron & Lozano-Perez 1998) and EM-DD (Zhang & Goldman 2001), as Weka 3.6.

Both look for a target point ``t`` with per-feature scales ``s``; an instance ``x`` belongs
to the concept with probability

    p(x) = exp(-sum_k s_k^2 (x_k - t_k)^2).

The defaults reproduce Weka 3.6.14's ``weka.classifiers.mi.MIDD`` and ``MIEMDD`` with their
default options (``-N 1``, and ``-S 1`` for MIEMDD); ``docs/decisions/mil.md`` records the
reading of Weka's code this follows.

**DiverseDensityClassifier** (MIDD) minimises the noisy-or ``-log DD``

    -sum_{B+} log max(1 - prod_j (1 - p_Bj), z) - sum_{B-} sum_j log max(1 - p_Bj, z)

over ``(t, s)`` with ``z = sqrt(2^-52)`` (Weka's ``m_Zero``: every probability is floored
there, so far-away positive bags and near-hit negative instances stop pulling), once from
every instance of the largest positive bag(s) with every scale 1; the lowest value wins.
The gradient is Weka's expression (the floors enter it as Weka writes them).

**EMDDClassifier** (EM-DD) draws ``n_start_bags`` = 3 positive bags with Java's
``java.util.Random(random_state)`` exactly as Weka does and starts from every instance of
them. EM: the E-step picks in every bag the instance with the largest ``p`` (the first on
ties); the M-step minimises the single-instance ``-log`` likelihood of the picked instances,
``-sum_{B+} log max(p, z) - sum_{B-} log max(1 - p, z)``. EM repeats while the M-step optimum
falls, at most ``max_em_iter`` = 10 rounds; when the last round rose, its predecessor is kept.
Of all starts, the hypothesis with the fewest training errors (bags with ``P(B+) >= 0.5``
counted positive) wins, the first on ties.

Bag prediction
--------------
``bag_rule="noisy_or"`` gives ``P(B+) = 1 - prod_j (1 - p_Bj)`` (MIDD); ``bag_rule="max"``
gives ``P(B+) = max_j p_Bj`` (the most-likely instance, MIEMDD). A bag is positive when
``P(B+) > 0.5`` (Weka: the larger of ``P(B-)``, ``P(B+)``, class 0 on ties).
``decision_function`` returns the log-odds ``log P(B+) - log P(B-)`` (computed stably).

Differences from Weka
---------------------
* The optimiser (``optimizer="weka"``) is
  :class:`~svmlab.estimators.weka.optimization.WekaQuasiNewton`, our re-implementation of
  Weka's BFGS with its line search and stopping rules, for unbounded problems (Weka's bounds
  are all NaN here). It keeps the inverse Hessian by Sherman-Morrison instead of
  Weka's Cholesky factor updates, so rounding differs and a run may end in another local
  optimum. ``optimizer="lbfgsb"`` (SciPy) is a faster shortcut.
* Shortcuts, off by default: ``max_starts`` caps the starting instances (a random subset
  drawn with ``random_state``); MIDD's ``start_from="positive_bags"`` starts from every
  positive-bag instance; EM-DD's ``n_start_bags`` changes Weka's three bags.
* Missing values are rejected (Weka replaces them by the mean).

References
----------
O. Maron, T. Lozano-Perez. A framework for multiple-instance learning. NIPS 10 (1998).
Q. Zhang, S. A. Goldman. EM-DD: an improved multiple-instance learning technique.
NIPS 14 (2001).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.estimators.mil._bags import (
    TIMES_SQUARE,
    BagClassifierMixin,
    check_bag_labels,
    check_bags,
    weighted_moments,
    weighted_sq_dist,
)
from svmlab.estimators.weka.java_random import JavaRandom
from svmlab.estimators.weka.optimization import WEKA_ZERO, WekaQuasiNewton

__all__ = [
    "DiverseDensityClassifier",
    "EMDDClassifier",
    "dd_negative_log_likelihood",
    "emdd_negative_log_likelihood",
    "weka_emdd_start_bags",
    "weka_filter",
]

_NO_CAP = 15000  # "max_iter=None": Weka reruns its optimiser until it converges


def weka_filter(X, kind: str):
    """Per-feature ``(offset, scale)`` of Weka 3.6's ``-N`` filter, fitted on ``X``.

    ``"standard"`` (``-N 1``, Weka's ``Standardize``): mean and *sample* standard deviation
    (``n - 1``); a constant feature is only centred. ``"minmax"`` (``-N 0``, ``Normalize``):
    ``(x - min) / (max - min)``; a constant feature becomes 0. ``"none"`` (``-N 2``).
    ``(X - offset) / scale`` is the filtered data.
    """
    d = X.shape[1]
    if kind == "none":
        return np.zeros(d), np.ones(d)
    if kind == "minmax":
        offset = X.min(axis=0)
        scale = X.max(axis=0) - offset
        return offset, np.where(scale > 0, scale, np.inf)
    offset = X.mean(axis=0)
    scale = X.std(axis=0, ddof=1) if len(X) > 1 else np.zeros(d)
    return offset, np.where(scale > 0, scale, 1.0)


def _scaled_sq_dist(X, t, s):
    """Scaled squared distances of the rows of ``X`` to ``t``, with what :func:`_gradient`
    needs (``(X, t)``)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    t = np.ascontiguousarray(t, dtype=np.float64)
    s = np.ascontiguousarray(s, dtype=np.float64)
    return weighted_sq_dist(X, t, s, TIMES_SQUARE), (X, t)


def _gradient(coef, parts, s):
    """Gradient in ``[t, s]`` of ``sum_j coef_j * dist_j`` (``dist`` the scaled distance)."""
    m1, m2 = weighted_moments(*parts, np.ascontiguousarray(coef, dtype=np.float64))
    return np.concatenate([-2.0 * s * s * m1, 2.0 * s * m2])


def dd_negative_log_likelihood(params, X, starts, positive):
    """Weka MIDD's noisy-or ``-log DD(t, s)`` and its gradient.

    Parameters
    ----------
    params : ndarray of shape (2 * n_features,)
        ``[t, s]``.
    X : ndarray of shape (n_instances, n_features)
        Stacked instances; ``starts`` the first row of every bag.
    starts : ndarray of shape (n_bags,)
    positive : ndarray of bool, shape (n_bags,)
        Which bags are positive.

    Returns
    -------
    value : float
        ``-sum_{B+} log max(1 - prod_j q_j, z) - sum_{B-} sum_j log max(q_j, z)`` with
        ``q_j = 1 - p_j`` and ``z`` = :data:`WEKA_ZERO`.
    grad : ndarray of shape (2 * n_features,)
        Weka's gradient: ``sum_j c_B (1 - q'_j) / q'_j * d dist_j`` with ``q'_j = max(q_j, z)``
        and ``c_B = -1`` for negative bags, ``(1 - P'_B) / P'_B`` for positive ones
        (``P'_B = max(1 - prod_j q_j, z)``); it is the exact gradient where nothing is floored.
    """
    d = X.shape[1]
    t, s = params[:d], params[d:]
    dist, parts = _scaled_sq_dist(X, t, s)
    q = -np.expm1(-dist)  # 1 - p
    sizes = np.diff(np.append(starts, len(dist)))
    pos_inst = np.repeat(positive, sizes)
    qf = np.maximum(q, WEKA_ZERO)
    with np.errstate(divide="ignore"):
        log_q = np.log(q)
    bag_pos = -np.expm1(np.add.reduceat(log_q, starts))  # 1 - prod_j q_j
    bag_pos = np.maximum(bag_pos, WEKA_ZERO)
    value = -np.log(bag_pos[positive]).sum() - np.log(qf[~pos_inst]).sum()
    c_bag = np.where(positive, (1.0 - bag_pos) / bag_pos, -1.0)
    coef = np.repeat(c_bag, sizes) * (1.0 - qf) / qf  # d value / d dist_j, Weka's way
    return float(value), _gradient(coef, parts, s)


def emdd_negative_log_likelihood(params, Xsel, positive):
    """Weka MIEMDD's M-step objective and gradient on one selected instance per bag.

    ``-sum_{B+} log max(p, z) - sum_{B-} log max(1 - p, z)`` with ``z`` = :data:`WEKA_ZERO`;
    Weka's gradient ``sum_{B+} d dist - sum_{B-} p / (1 - p) d dist`` (unfloored).
    """
    d = Xsel.shape[1]
    t, s = params[:d], params[d:]
    dist, parts = _scaled_sq_dist(Xsel, t, s)
    p = np.exp(-dist)
    q = -np.expm1(-dist)
    value = -np.log(np.maximum(p[positive], WEKA_ZERO)).sum()
    value -= np.log(np.maximum(q[~positive], WEKA_ZERO)).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = np.where(q > 0, p / np.where(q > 0, q, 1.0), 1.0 / np.finfo(float).eps)
    coef = np.where(positive, 1.0, -odds)
    return float(value), _gradient(coef, parts, s)


class _DDBase(BagClassifierMixin, ClassifierMixin, BaseEstimator):
    """Shared machinery: Weka's filter, the optimiser, bag scores."""

    _parameter_constraints: dict = {
        "max_starts": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "scaling": [StrOptions({"minmax", "standard", "none"})],
        "bag_rule": [StrOptions({"noisy_or", "max"})],
        "optimizer": [StrOptions({"weka", "lbfgsb"})],
    }
    _name = "DD"
    _weka_update = "inverse"  # how WekaQuasiNewton carries the Hessian (its ``update``)

    def _prepare(self, bags, y):
        X, starts, sizes = check_bags(bags)
        self.classes_, y01 = check_bag_labels(y, len(sizes), self._name)
        self.n_features_in_ = X.shape[1]
        self._offset, self._scale = weka_filter(X, self.scaling)
        X = (X - self._offset) / self._scale
        return X, starts, sizes, y01 == 1

    def _cap(self, candidates, seed):
        if self.max_starts is not None and len(candidates) > self.max_starts:
            rng = check_random_state(seed)
            candidates = np.sort(rng.choice(candidates, self.max_starts, replace=False))
        return candidates

    def _minimize(self, fun, x0, args):
        """Minimise ``fun`` from ``x0`` with ``optimizer``; returns ``(x, value, iterations)``."""
        if self.optimizer == "weka":
            cap = 100 * WekaQuasiNewton.MAXITS if self.max_iter is None else self.max_iter
            opt = WekaQuasiNewton(lambda x: fun(x, *args), max_iter=cap, update=self._weka_update)
            x, value, _ = opt.minimize(x0)
            return x, float(value), opt.nit
        f0 = fun(x0, *args)[0]
        maxiter = _NO_CAP if self.max_iter is None else self.max_iter
        res = minimize(
            fun,
            x0,
            args=args,
            jac=True,
            method="L-BFGS-B",
            options={
                "maxiter": maxiter,
                "maxfun": 20 * maxiter,
                "ftol": self.tol * 1e-3,
                "gtol": self.tol * max(1.0, abs(f0)),
            },
        )
        return res.x, float(res.fun), int(res.nit)

    def _finish(self, params, info):
        d = self.n_features_in_
        self.target_ = params[:d].copy()
        self.scales_ = params[d:].copy()
        self.fit_info_ = info

    def _filtered_dist(self, bags):
        X, starts, _ = check_bags(bags, n_features=self.n_features_in_)
        X = (X - self._offset) / self._scale
        return _scaled_sq_dist(X, self.target_, self.scales_)[0], starts

    def decision_function(self, bags):
        """Log-odds ``log P(B+) - log P(B-)`` of every bag under ``bag_rule``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        scores : ndarray of shape (n_bags,)
            > 0 means ``classes_[1]``.
        """
        check_is_fitted(self)
        dist, starts = self._filtered_dist(bags)
        if self.bag_rule == "max":
            dmin = np.minimum.reduceat(dist, starts)
            log_pos = -dmin
            log_neg = _log1m_exp_neg(dmin)
        else:
            log_neg = np.add.reduceat(_log1m_exp_neg(dist), starts)  # log prod_j (1 - p_j)
            log_pos = _log1m_exp_neg(-log_neg)
        return log_pos - log_neg

    def predict_proba(self, bags):
        """``[P(B-), P(B+)]`` per bag under ``bag_rule``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags, 2)
        """
        z = self.decision_function(bags)
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))
        return np.column_stack([1.0 - p, p])


def _log1m_exp_neg(d):
    """``log(1 - exp(-d))`` for ``d >= 0`` (``-inf`` at 0), accurate for small and large ``d``."""
    d = np.asarray(d, dtype=float)
    small = d <= np.log(2.0)
    out = np.empty_like(d)
    with np.errstate(divide="ignore"):
        out[small] = np.log(-np.expm1(-d[small]))
    out[~small] = np.log1p(-np.exp(-d[~small]))
    return out


class DiverseDensityClassifier(_DDBase):
    """MIDD: noisy-or diverse density, Weka 3.6's ``weka.classifiers.mi.MIDD``.

    Parameters
    ----------
    start_from : {"largest_positive_bags", "positive_bags"}, default="largest_positive_bags"
        Starting instances (scales 1): every instance of the positive bag(s) with the most
        instances (Weka), or of every positive bag (a slower variant).
    max_starts : int or None, default=None
        Cap on the starting instances; a random subset drawn with ``random_state`` when there
        are more. ``None``: all (Weka).
    optimizer : {"weka", "lbfgsb"}, default="weka"
        ``"weka"``: :class:`WekaQuasiNewton`, Weka's BFGS and line search. ``"lbfgsb"``:
        SciPy's L-BFGS-B (faster; it stops at once where Weka's floors make ``-log DD`` flat
        around the start, which Weka's expanding line search crosses).
    max_iter : int or None, default=None
        Optimiser iterations per start; ``None``: to convergence (Weka; at most 20000 for
        ``"weka"``, 15000 for ``"lbfgsb"``).
    tol : float, default=1.49e-8
        L-BFGS-B only: it stops when the largest gradient entry is below
        ``tol * max(1, |f(start)|)`` or the relative decrease of ``f`` below ``tol / 1000``.
        Weka's own tests use the fixed ``sqrt(2^-52)``.
    scaling : {"standard", "minmax", "none"}, default="standard"
        Weka's ``-N`` filter on the training instances (:func:`weka_filter`).
    bag_rule : {"noisy_or", "max"}, default="noisy_or"
        How instance probabilities make the bag probability (module docstring).
    random_state : int, RandomState instance or None, default=None
        Seeds the subset of starts (only with ``max_starts``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    target_ : ndarray of shape (n_features,)
        The concept point ``t`` (in filtered feature space).
    scales_ : ndarray of shape (n_features,)
        The feature scales ``s`` (only ``s**2`` matters).
    fit_info_ : dict
        ``n_starts``, ``start_rows``, ``start_values`` (``-log DD`` at each start),
        ``final_values``, ``best_start`` (instance row), ``neg_log_dd`` (best),
        ``optimizer_iterations``, ``seconds``.
    """

    _name = "MIDD"
    _parameter_constraints: dict = {
        **_DDBase._parameter_constraints,
        "start_from": [StrOptions({"largest_positive_bags", "positive_bags"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        start_from: str = "largest_positive_bags",
        max_starts: int | None = None,
        optimizer: str = "weka",
        max_iter: int | None = None,
        tol: float = WEKA_ZERO,
        scaling: str = "standard",
        bag_rule: str = "noisy_or",
        random_state=None,
    ):
        self.start_from = start_from
        self.max_starts = max_starts
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.scaling = scaling
        self.bag_rule = bag_rule
        self.random_state = random_state

    def _starts(self, starts, sizes, positive):
        use = positive.copy()
        if self.start_from == "largest_positive_bags":
            use &= sizes == sizes[positive].max()
        rows = np.concatenate([starts[b] + np.arange(sizes[b]) for b in np.flatnonzero(use)])
        return self._cap(rows, self.random_state)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Minimise ``-log DD`` from each start and keep the lowest optimum.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` is positive.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes, positive = self._prepare(bags, y)
        rows = self._starts(starts, sizes, positive)
        d = X.shape[1]
        best, best_val, best_start = None, np.inf, -1
        start_vals, final_vals, iters = [], [], []
        for row in rows:
            x0 = np.concatenate([X[row], np.ones(d)])
            start_vals.append(dd_negative_log_likelihood(x0, X, starts, positive)[0])
            x, value, nit = self._minimize(dd_negative_log_likelihood, x0, (X, starts, positive))
            final_vals.append(value)
            iters.append(nit)
            if value < best_val:  # strict: the first of equal optima, as Weka
                best, best_val, best_start = x, value, int(row)
        self._finish(
            best,
            {
                "n_starts": len(rows),
                "start_rows": np.asarray(rows),
                "start_values": np.array(start_vals),
                "final_values": np.array(final_vals),
                "best_start": best_start,
                "neg_log_dd": best_val,
                "optimizer_iterations": np.array(iters),
                "seconds": time.perf_counter() - t0,
            },
        )
        return self


def weka_emdd_start_bags(positive, n_bags_to_draw: int, seed: int):
    """The positive bags Weka 3.6's MIEMDD starts from.

    Weka draws ``java.util.Random(seed).nextInt(n_bags - 1)`` until it has three distinct
    positive bags (so the last bag is never drawn). Here ``n_bags_to_draw`` bags are drawn
    the same way; when fewer positive bags can be drawn (Weka would loop forever), every
    positive bag is used.

    Parameters
    ----------
    positive : ndarray of bool, shape (n_bags,)
    n_bags_to_draw : int
    seed : int

    Returns
    -------
    list of int
        Bag indices in the order drawn.
    """
    drawable = np.flatnonzero(positive[:-1])
    if len(drawable) < n_bags_to_draw or len(positive) < 2:
        return [int(b) for b in np.flatnonzero(positive)]
    rng = JavaRandom(seed)
    chosen: list[int] = []
    while len(chosen) < n_bags_to_draw:
        b = rng.next_int(len(positive) - 1)
        if positive[b] and b not in chosen:
            chosen.append(b)
    return chosen


class EMDDClassifier(_DDBase):
    """EM-DD: most-likely-cause diverse density fitted by EM, Weka 3.6's ``MIEMDD``.

    Parameters
    ----------
    n_start_bags : int or None, default=3
        Positive bags whose instances are the starts (scales 1), drawn with
        ``java.util.Random(random_state)`` as Weka does (:func:`weka_emdd_start_bags`);
        ``None``: every positive bag.
    max_starts : int or None, default=None
        Cap on the starting instances (a random subset, seeded by ``random_state``);
        ``None``: all (Weka).
    optimizer : {"weka", "lbfgsb"}, default="weka"
        As :class:`DiverseDensityClassifier`.
    max_iter : int or None, default=None
        Optimiser iterations per M-step; ``None``: to convergence (Weka).
    max_em_iter : int, default=10
        EM rounds per start (Weka: 10).
    tol : float, default=1.49e-8
        L-BFGS-B's threshold, as :class:`DiverseDensityClassifier`.
    scaling : {"standard", "minmax", "none"}, default="standard"
        Weka's ``-N`` filter (:func:`weka_filter`).
    bag_rule : {"max", "noisy_or"}, default="max"
        Bag probability: the most-likely instance's ``p`` (Weka) or noisy-or.
    random_state : int, default=1
        Weka's ``-S``: the seed of the Java generator that draws the start bags (and of the
        subset of starts with ``max_starts``).

    Attributes
    ----------
    classes_, target_, scales_ : as :class:`DiverseDensityClassifier`
    fit_info_ : dict
        ``start_bags``, ``n_starts``, ``start_values`` (M-step objective at each start, on its
        first E-step's instances), ``final_values`` (M-step optimum of the kept hypothesis),
        ``training_errors``, ``em_iterations``, ``best_start``, ``training_error`` (best),
        ``neg_log_likelihood`` (its value), ``seconds``.
    """

    _name = "EM-DD"
    _parameter_constraints: dict = {
        **_DDBase._parameter_constraints,
        "n_start_bags": [Interval(Integral, 1, None, closed="left"), None],
        "max_em_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": [Interval(Integral, None, None, closed="neither")],
    }

    def __init__(
        self,
        n_start_bags: int | None = 3,
        max_starts: int | None = None,
        optimizer: str = "weka",
        max_iter: int | None = None,
        max_em_iter: int = 10,
        tol: float = WEKA_ZERO,
        scaling: str = "standard",
        bag_rule: str = "max",
        random_state: int = 1,
    ):
        self.n_start_bags = n_start_bags
        self.max_starts = max_starts
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.max_em_iter = max_em_iter
        self.tol = tol
        self.scaling = scaling
        self.bag_rule = bag_rule
        self.random_state = random_state

    @staticmethod
    def _select(params, X, starts, sizes):
        """Each bag's most likely instance (the first on ties): Weka's E-step."""
        d = X.shape[1]
        dist, _ = _scaled_sq_dist(X, params[:d], params[d:])
        dmin = np.minimum.reduceat(dist, starts)
        bag_of = np.repeat(np.arange(len(starts)), sizes)
        hits = np.flatnonzero(dist == dmin[bag_of])
        _, first = np.unique(bag_of[hits], return_index=True)
        return hits[first], dmin

    def _training_errors(self, params, X, starts, sizes, positive):
        """Weka's count: a bag is called positive when ``P(B+) >= 0.5``."""
        d = X.shape[1]
        dist, _ = _scaled_sq_dist(X, params[:d], params[d:])
        if self.bag_rule == "max":
            log_pos = -np.minimum.reduceat(dist, starts)
        else:
            log_pos = _log1m_exp_neg(-np.add.reduceat(_log1m_exp_neg(dist), starts))
        called = log_pos >= np.log(0.5)
        return int(np.sum(called != positive))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Run EM from each start and keep the hypothesis with the fewest training errors.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` is positive.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes, positive = self._prepare(bags, y)
        if self.n_start_bags is None:
            start_bags = [int(b) for b in np.flatnonzero(positive)]
        else:
            start_bags = weka_emdd_start_bags(positive, self.n_start_bags, self.random_state)
        rows = np.concatenate([starts[b] + np.arange(sizes[b]) for b in start_bags])
        rows = self._cap(rows, self.random_state)
        d = X.shape[1]
        best, best_err, best_val, best_start = None, np.inf, np.inf, -1
        start_vals, final_vals, errors, em_iters = [], [], [], []
        for row in rows:
            x = np.concatenate([X[row], np.ones(d)])
            pre_x, pre_nll, nll, n_em = x, np.inf, np.finfo(float).max / 10.0, 0
            while nll < pre_nll and n_em < self.max_em_iter:
                n_em += 1
                pre_nll = nll
                sel, _ = self._select(x, X, starts, sizes)
                if n_em == 1:
                    start_vals.append(emdd_negative_log_likelihood(x, X[sel], positive)[0])
                new_x, nll, _ = self._minimize(emdd_negative_log_likelihood, x, (X[sel], positive))
                pre_x, x = x, new_x
            h, h_nll = (pre_x, pre_nll) if nll > pre_nll else (x, nll)
            err = self._training_errors(h, X, starts, sizes, positive)
            final_vals.append(h_nll)
            errors.append(err)
            em_iters.append(n_em)
            if err < best_err:  # strict: the first hypothesis with the fewest errors
                best, best_err, best_val, best_start = h, err, h_nll, int(row)
        self._finish(
            best,
            {
                "start_bags": start_bags,
                "n_starts": len(rows),
                "start_values": np.array(start_vals),
                "final_values": np.array(final_vals),
                "training_errors": np.array(errors),
                "em_iterations": np.array(em_iters),
                "best_start": best_start,
                "training_error": best_err,
                "neg_log_likelihood": best_val,
                "seconds": time.perf_counter() - t0,
            },
        )
        return self
