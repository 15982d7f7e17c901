"""Diverse Density (Maron & Lozano-Perez 1998) and EM-DD (Zhang & Goldman 2001).

Both look for a target point ``t`` with per-feature scales ``s``; an instance ``x`` belongs
to the concept with probability

    p(x) = exp(-sum_k s_k^2 (x_k - t_k)^2).

**DiverseDensityClassifier** (MIDD) maximises the noisy-or diverse density

    DD(t, s) = prod_{B+} (1 - prod_j (1 - p(x_Bj)))  *  prod_{B-} prod_j (1 - p(x_Bj))

by L-BFGS-B on ``-log DD`` (analytic gradient), started from instances of the positive
bags with every scale 1; the best local optimum is kept.

**EMDDClassifier** (EM-DD) replaces the noisy-or by the *most-likely-cause* model: the E-step
picks in every bag the instance with the largest ``p``, the M-step maximises the single-
instance likelihood ``prod_{B+} p(x_B*) prod_{B-} (1 - p(x_B*))`` by L-BFGS-B, until the
most-likely-cause likelihood stops improving. Starts and selection as MIDD.

Bag prediction
--------------
``bag_rule="noisy_or"`` gives ``P(B+) = 1 - prod_j (1 - p(x_Bj))``; ``bag_rule="max"`` gives
``P(B+) = max_j p(x_Bj)`` (the most-likely instance). A bag is positive when
``P(B+) > 0.5``. Defaults: MIDD noisy-or, EM-DD max, our reading of Weka's ``MIDD`` and
``MIEMDD``; the other rule is one switch away. ``decision_function`` returns the log-odds
``log P(B+) - log P(B-)`` (computed stably; > 0 means positive).

Differences from Weka (``weka.classifiers.mi.MIDD`` / ``MIEMDD``)
------------------------------------------------------------------
* Features are standardised on the training instances (Weka's default filter for both).
* Weka starts the optimiser from *every* positive-bag instance. Here at most ``max_starts``
  starts are used, a random subset drawn with ``random_state`` (``None`` = all, Weka's
  behaviour). The optimiser is SciPy's L-BFGS-B, not Weka's own quasi-Newton routine, and
  the scales are unbounded (only ``s_k^2`` matters).

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
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from svmlab.estimators.mil._bags import (
    BagClassifierMixin,
    check_bag_labels,
    check_bags,
    feature_scaling,
)

__all__ = ["DiverseDensityClassifier", "EMDDClassifier", "dd_negative_log_likelihood"]

_MIN_DIST = 1e-12  # floor of the scaled squared distance (p <= 1 - 1e-12)
_SMALL_LSE = -23.0  # below this log(sum_j p_j) the noisy-or uses log(1 - prod(1-p)) ~ log(sum p)


def _log1m_exp_neg(d):
    """``log(1 - exp(-d))`` for ``d > 0``, accurate for small and large ``d``."""
    small = d <= np.log(2.0)
    out = np.empty_like(d)
    out[small] = np.log(-np.expm1(-d[small]))
    out[~small] = np.log1p(-np.exp(-d[~small]))
    return out


def _scaled_sq_dist(X, t, s):
    diff = X - t
    return np.maximum((diff * diff) @ (s * s), _MIN_DIST), diff


def _noisy_or_log_probs(dist, starts):
    """Per bag ``(log P(B+), log P(B-), weights)`` under the noisy-or.

    ``weights`` are, per instance, ``d log P(B+) / d dist`` (the gradient of the positive
    bag term with respect to the instance's distance, negated below where needed).
    """
    log_neg_inst = _log1m_exp_neg(dist)  # log(1 - p_j)
    log_neg = np.add.reduceat(log_neg_inst, starts)  # log prod_j (1 - p_j)
    m = np.maximum.reduceat(-dist, starts)
    sizes = np.diff(np.append(starts, len(dist)))
    bag_of = np.repeat(np.arange(len(starts)), sizes)
    ex = np.exp(-dist - m[bag_of])
    sum_ex = np.add.reduceat(ex, starts)
    lse = m + np.log(sum_ex)  # log sum_j p_j
    approx = lse < _SMALL_LSE
    minus_q = np.maximum(-log_neg, 1e-300)
    log_pos = np.where(approx, lse, np.log(-np.expm1(-minus_q)))
    # d log P(B+) / d dist_j: exact -1/expm1(-Q) / expm1(dist_j); small-p limit -softmax_j
    with np.errstate(over="ignore", divide="ignore"):
        exact = -1.0 / (np.expm1(minus_q)[bag_of] * np.expm1(dist))
    soft = -ex / sum_ex[bag_of]
    dpos = np.where(approx[bag_of], soft, exact)
    with np.errstate(over="ignore", divide="ignore"):
        dneg = 1.0 / np.expm1(dist)  # d log(1 - p_j) / d dist_j
    return log_pos, log_neg, dpos, dneg, bag_of


def dd_negative_log_likelihood(params, X, starts, positive):
    """``-log DD(t, s)`` (noisy-or) and its gradient.

    Parameters
    ----------
    params : ndarray of shape (2 * n_features,)
        ``[t, s]``.
    X : ndarray of shape (n_instances, n_features)
        Stacked instances; ``starts`` the first row of every bag.
    positive : ndarray of bool, shape (n_bags,)
        Which bags are positive.

    Returns
    -------
    value : float
    grad : ndarray of shape (2 * n_features,)
    """
    d = X.shape[1]
    t, s = params[:d], params[d:]
    dist, diff = _scaled_sq_dist(X, t, s)
    log_pos, log_neg, dpos, dneg, bag_of = _noisy_or_log_probs(dist, starts)
    value = -log_pos[positive].sum() - log_neg[~positive].sum()
    g = np.where(positive[bag_of], -dpos, -dneg)  # d value / d dist_j
    g = np.where(dist > _MIN_DIST, g, 0.0)  # the floor is flat
    grad_t = -2.0 * s * s * (g @ diff)
    grad_s = 2.0 * s * (g @ (diff * diff))
    return float(value), np.concatenate([grad_t, grad_s])


def _mlc_negative_log_likelihood(params, Xsel, positive):
    """Single-instance ``-log`` likelihood of the selected instances (EM-DD's M-step)."""
    d = Xsel.shape[1]
    t, s = params[:d], params[d:]
    dist, diff = _scaled_sq_dist(Xsel, t, s)
    value = dist[positive].sum() - _log1m_exp_neg(dist[~positive]).sum()
    with np.errstate(over="ignore", divide="ignore"):
        g = np.where(positive, 1.0, -1.0 / np.expm1(dist))
    g = np.where(dist > _MIN_DIST, g, 0.0)
    grad_t = -2.0 * s * s * (g @ diff)
    grad_s = 2.0 * s * (g @ (diff * diff))
    return float(value), np.concatenate([grad_t, grad_s])


def _bag_min_dist(dist, starts):
    return np.minimum.reduceat(dist, starts)


class _DDBase(BagClassifierMixin, ClassifierMixin, BaseEstimator):
    """Shared machinery: scaling, starts, bag scores."""

    _parameter_constraints: dict = {
        "max_starts": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "scaling": [StrOptions({"minmax", "standard", "none"})],
        "bag_rule": [StrOptions({"noisy_or", "max"})],
        "random_state": ["random_state"],
    }
    _name = "DD"

    def _prepare(self, bags, y):
        X, starts, sizes = check_bags(bags)
        self.classes_, y01 = check_bag_labels(y, len(sizes), self._name)
        self.n_features_in_ = X.shape[1]
        self._offset, self._scale = feature_scaling(X, self.scaling)
        X = (X - self._offset) / self._scale
        positive = y01 == 1
        bag_of = np.repeat(np.arange(len(sizes)), sizes)
        candidates = np.flatnonzero(positive[bag_of])
        rng = check_random_state(self.random_state)
        if self.max_starts is not None and len(candidates) > self.max_starts:
            candidates = np.sort(rng.choice(candidates, self.max_starts, replace=False))
        return X, starts, sizes, positive, candidates

    def _finish(self, params, info):
        d = self.n_features_in_
        self.target_ = params[:d].copy()
        self.scales_ = params[d:].copy()
        self.fit_info_ = info

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
        X, starts, _ = check_bags(bags, n_features=self.n_features_in_)
        X = (X - self._offset) / self._scale
        dist, _ = _scaled_sq_dist(X, self.target_, self.scales_)
        if self.bag_rule == "max":
            dmin = _bag_min_dist(dist, starts)
            return -dmin - _log1m_exp_neg(dmin)
        log_pos, log_neg, *_ = _noisy_or_log_probs(dist, starts)
        return log_pos - log_neg

    def predict_proba(self, bags):
        """``[P(B-), P(B+)]`` per bag under ``bag_rule``."""
        z = self.decision_function(bags)
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))
        return np.column_stack([1.0 - p, p])


class DiverseDensityClassifier(_DDBase):
    """MIDD: noisy-or diverse density maximised by gradient ascent from positive instances.

    Parameters
    ----------
    max_starts : int or None, default=50
        Cap on the number of starting points (each a positive-bag instance, scales 1).
        When there are more candidates a random subset is drawn with ``random_state``;
        ``None`` uses every positive instance as Weka does.
    max_iter : int, default=200
        L-BFGS-B iterations per start.
    tol : float, default=1e-6
        L-BFGS-B ``ftol``.
    scaling : {"standard", "minmax", "none"}, default="standard"
        Feature scaling on the training instances (Weka MIDD standardises by default).
    bag_rule : {"noisy_or", "max"}, default="noisy_or"
        How instance probabilities make the bag probability (module docstring).
    random_state : int, RandomState instance or None, default=None
        Seeds the subset of starts.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    target_ : ndarray of shape (n_features,)
        The concept point ``t`` (in scaled feature space).
    scales_ : ndarray of shape (n_features,)
        The feature scales ``s`` (only ``s**2`` matters).
    fit_info_ : dict
        ``n_starts``, ``start_values`` (``-log DD`` at each start), ``final_values``,
        ``best_start`` (instance row), ``neg_log_dd`` (best), ``optimizer_iterations``,
        ``seconds``.
    """

    _name = "MIDD"

    def __init__(
        self,
        max_starts: int | None = 50,
        max_iter: int = 200,
        tol: float = 1e-6,
        scaling: str = "standard",
        bag_rule: str = "noisy_or",
        random_state=None,
    ):
        self.max_starts = max_starts
        self.max_iter = max_iter
        self.tol = tol
        self.scaling = scaling
        self.bag_rule = bag_rule
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Maximise the diverse density from each start and keep the best optimum.

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
        X, starts, _, positive, candidates = self._prepare(bags, y)
        d = X.shape[1]
        best, best_val, best_start = None, np.inf, -1
        start_vals, final_vals, iters = [], [], []
        for row in candidates:
            x0 = np.concatenate([X[row], np.ones(d)])
            start_vals.append(dd_negative_log_likelihood(x0, X, starts, positive)[0])
            res = minimize(
                dd_negative_log_likelihood,
                x0,
                args=(X, starts, positive),
                jac=True,
                method="L-BFGS-B",
                options={"maxiter": self.max_iter, "ftol": self.tol},
            )
            final_vals.append(float(res.fun))
            iters.append(int(res.nit))
            if res.fun < best_val:
                best, best_val, best_start = res.x, float(res.fun), int(row)
        self._finish(
            best,
            {
                "n_starts": len(candidates),
                "start_values": np.array(start_vals),
                "final_values": np.array(final_vals),
                "best_start": best_start,
                "neg_log_dd": best_val,
                "optimizer_iterations": np.array(iters),
                "seconds": time.perf_counter() - t0,
            },
        )
        return self


class EMDDClassifier(_DDBase):
    """EM-DD: diverse density with the most-likely-cause model, fitted by EM.

    Parameters
    ----------
    max_starts : int or None, default=50
        Cap on the starting points (positive-bag instances, scales 1); a random subset drawn
        with ``random_state`` when there are more, ``None`` for all.
    max_iter : int, default=200
        L-BFGS-B iterations per M-step.
    max_em_iter : int, default=20
        Cap on the EM iterations per start.
    tol : float, default=1e-6
        L-BFGS-B ``ftol``; EM stops when the most-likely-cause ``-log`` likelihood improves by
        less than ``tol`` (relative) or the selected instances stop changing.
    scaling : {"standard", "minmax", "none"}, default="standard"
        Feature scaling (Weka MIEMDD standardises by default).
    bag_rule : {"max", "noisy_or"}, default="max"
        Bag probability: the most-likely instance's ``p`` (EM-DD's model) or noisy-or.
    random_state : int, RandomState instance or None, default=None
        Seeds the subset of starts.

    Attributes
    ----------
    classes_, target_, scales_ : as :class:`DiverseDensityClassifier`
    fit_info_ : dict
        ``n_starts``, ``start_values`` / ``final_values`` (most-likely-cause ``-log``
        likelihood), ``em_iterations``, ``best_start``, ``neg_log_likelihood``, ``seconds``.
    """

    _name = "EM-DD"
    _parameter_constraints: dict = {
        **_DDBase._parameter_constraints,
        "max_em_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        max_starts: int | None = 50,
        max_iter: int = 200,
        max_em_iter: int = 20,
        tol: float = 1e-6,
        scaling: str = "standard",
        bag_rule: str = "max",
        random_state=None,
    ):
        self.max_starts = max_starts
        self.max_iter = max_iter
        self.max_em_iter = max_em_iter
        self.tol = tol
        self.scaling = scaling
        self.bag_rule = bag_rule
        self.random_state = random_state

    @staticmethod
    def _mlc(params, X, starts, positive):
        """Most-likely-cause ``-log`` likelihood and each bag's most likely instance row."""
        d = X.shape[1]
        dist, _ = _scaled_sq_dist(X, params[:d], params[d:])
        dmin = _bag_min_dist(dist, starts)
        sizes = np.diff(np.append(starts, len(dist)))
        bag_of = np.repeat(np.arange(len(starts)), sizes)
        hits = np.flatnonzero(dist == dmin[bag_of])
        _, first = np.unique(bag_of[hits], return_index=True)
        value = dmin[positive].sum() - _log1m_exp_neg(dmin[~positive]).sum()
        return float(value), hits[first]

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Run EM from each start and keep the hypothesis with the best likelihood.

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
        X, starts, _, positive, candidates = self._prepare(bags, y)
        d = X.shape[1]
        best, best_val, best_start = None, np.inf, -1
        start_vals, final_vals, em_iters = [], [], []
        for row in candidates:
            h = np.concatenate([X[row], np.ones(d)])
            val, sel = self._mlc(h, X, starts, positive)
            start_vals.append(val)
            n_em = 0
            for _ in range(self.max_em_iter):
                n_em += 1
                res = minimize(
                    _mlc_negative_log_likelihood,
                    h,
                    args=(X[sel], positive),
                    jac=True,
                    method="L-BFGS-B",
                    options={"maxiter": self.max_iter, "ftol": self.tol},
                )
                new_val, new_sel = self._mlc(res.x, X, starts, positive)
                if new_val >= val - self.tol * max(1.0, abs(val)):
                    if new_val < val:
                        h, val = res.x, new_val
                    break
                h, val = res.x, new_val
                if np.array_equal(new_sel, sel):
                    break
                sel = new_sel
            final_vals.append(val)
            em_iters.append(n_em)
            if val < best_val:
                best, best_val, best_start = h, val, int(row)
        self._finish(
            best,
            {
                "n_starts": len(candidates),
                "start_values": np.array(start_vals),
                "final_values": np.array(final_vals),
                "em_iterations": np.array(em_iters),
                "best_start": best_start,
                "neg_log_likelihood": best_val,
                "seconds": time.perf_counter() - t0,
            },
        )
        return self
