"""Modified Diverse Density (Xu 2003), as Weka 3.6's ``MDD``: diverse density under the
collective assumption.

As in :class:`~svmlab.estimators.mil.diverse_density.DiverseDensityClassifier` (MIDD) an
instance ``x`` belongs to the concept with probability

    p(x) = exp(-sum_k (x_k - t_k)^2 / sigma_k^2),

but a bag's probability is the *mean* of its instances' (every instance is responsible for the
bag's label, Xu's collective assumption): ``P(B+) = mean_j p_Bj``, ``P(B-) = mean_j (1 - p_Bj)``.
The defaults reproduce ``weka.classifiers.mi.MDD`` with its default option ``-N 1``;
``docs/decisions/mil.md`` ("MILR and MDD") records the reading of Weka's code:

* **Filter, starts, optimiser, choice of the optimum** are MIDD's: Weka's ``-N`` filter on the
  pooled training instances, one run of :class:`WekaQuasiNewton` from every instance of the
  largest positive bag(s) with every ``sigma`` 1, the strictly lowest objective wins. The
  optimiser keeps Weka's ``L D L'`` factors (``update="ldl"``), which follows Weka's path
  much more closely than MIDD's inverse update (docs/decisions/mil.md).
* **Objective.** ``-sum_B log max(P(y_B | B), z)`` with ``z = sqrt(2^-52)`` (Weka's
  ``m_Zero``), over the interleaved parameters ``[t_1, sigma_1, t_2, sigma_2, ...]`` (Weka's
  layout, which fixes the arithmetic of the optimiser).
* **Gradient.** Weka's expression: the ``t`` part is the derivative of the objective, the
  ``sigma`` part is half of it (Weka's ``d p / d sigma`` lacks the factor 2), and each bag's
  sum ``sum_j p_j`` (or ``sum_j (1 - p_j)``) is floored at ``z`` as a sum, where the objective
  floors the mean. It vanishes where the derivative does, so the optima are the same; the
  path of the optimiser (and the optimum it stops at) follows Weka's.
* **Prediction.** ``classes_[1]`` when ``P(B+) > P(B-)`` (Weka's arg-max, class 0 on ties).

References
----------
X. Xu. Statistical learning in multiple instance problems. MSc thesis, University of Waikato
(2003), Sec. 4.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import _fit_context
from svmlab.estimators.mil._bags import OVER_SQUARE, weighted_moments, weighted_sq_dist
from svmlab.estimators.mil.diverse_density import DiverseDensityClassifier
from svmlab.estimators.weka.optimization import WEKA_ZERO

__all__ = ["MDDClassifier", "mdd_negative_log_likelihood"]


def mdd_negative_log_likelihood(params, X, starts, positive):
    """Weka MDD's collective ``-log`` likelihood and its gradient.

    Parameters
    ----------
    params : ndarray of shape (2 * n_features,)
        ``[t_1, sigma_1, t_2, sigma_2, ...]`` (Weka's order).
    X : ndarray of shape (n_instances, n_features)
        Stacked (filtered) instances; ``starts`` the first row of every bag.
    starts : ndarray of shape (n_bags,)
    positive : ndarray of bool, shape (n_bags,)

    Returns
    -------
    value : float
        ``-sum_{B+} log max(mean_j p_j, z) - sum_{B-} log max(mean_j (1 - p_j), z)``.
    grad : ndarray of shape (2 * n_features,)
        Weka's gradient (module docstring): ``sum_B c_B / max(S_B, z) sum_j p_j g_j`` with
        ``S_B`` the bag's sum of ``p`` (positive) or ``1 - p`` (negative), ``c_B = -1`` / ``+1``,
        and ``g_j = (d dist_j / d t, 1/2 d dist_j / d sigma)``.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    t, sigma = np.ascontiguousarray(params[0::2]), params[1::2]
    inv_var = 1.0 / (sigma * sigma)
    p = np.exp(-weighted_sq_dist(X, t, np.ascontiguousarray(sigma), OVER_SQUARE))
    sizes = np.diff(np.append(starts, len(p)))
    pos_inst = np.repeat(positive, sizes)
    lik_sum = np.add.reduceat(np.where(pos_inst, p, 1.0 - p), starts)
    value = -np.log(np.maximum(lik_sum / sizes, WEKA_ZERO)).sum()
    coef = p * np.repeat(np.where(positive, -1.0, 1.0) / np.maximum(lik_sum, WEKA_ZERO), sizes)
    m1, m2 = weighted_moments(X, t, coef)
    grad = np.empty_like(params)
    grad[0::2] = 2.0 * inv_var * m1
    grad[1::2] = inv_var / sigma * m2
    return float(value), grad


class MDDClassifier(DiverseDensityClassifier):
    """MDD: modified (collective) diverse density, Weka 3.6's ``weka.classifiers.mi.MDD``.

    Parameters
    ----------
    start_from : {"largest_positive_bags", "positive_bags"}, default="largest_positive_bags"
        Starting instances (every ``sigma`` 1): every instance of the positive bag(s) with the
        most instances (Weka), or of every positive bag.
    max_starts : int or None, default=None
        Cap on the starting instances (a random subset drawn with ``random_state``);
        ``None``: all (Weka).
    optimizer : {"weka", "lbfgsb"}, default="weka"
        ``"weka"``: :class:`WekaQuasiNewton` (Weka's optimiser); ``"lbfgsb"``: SciPy's
        L-BFGS-B, a faster shortcut.
    max_iter : int or None, default=None
        Optimiser iterations per start; ``None``: to convergence (Weka).
    tol : float, default=1.49e-8
        L-BFGS-B only (as :class:`DiverseDensityClassifier`).
    scaling : {"standard", "minmax", "none"}, default="standard"
        Weka's ``-N 1`` / ``-N 0`` / ``-N 2`` filter on the training instances.
    random_state : int, RandomState instance or None, default=None
        Seeds the subset of starts (only with ``max_starts``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    target_ : ndarray of shape (n_features,)
        The concept point ``t`` (in filtered feature space).
    scales_ : ndarray of shape (n_features,)
        ``1 / |sigma|``, so that ``p = exp(-sum scales_^2 (x - t)^2)`` as in MIDD.
    fit_info_ : dict
        ``n_starts``, ``start_rows``, ``start_values``, ``final_values``, ``best_start``
        (instance row), ``neg_log_likelihood`` (best), ``sigma`` (its widths),
        ``optimizer_iterations``, ``seconds``.
    """

    _name = "MDD"
    _weka_update = "ldl"  # Weka's factor updates in WekaQuasiNewton

    def __init__(
        self,
        start_from: str = "largest_positive_bags",
        max_starts: int | None = None,
        optimizer: str = "weka",
        max_iter: int | None = None,
        tol: float = WEKA_ZERO,
        scaling: str = "standard",
        random_state=None,
    ):
        self.start_from = start_from
        self.max_starts = max_starts
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.scaling = scaling
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Minimise Weka's MDD objective from each start and keep the lowest optimum.

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
        args = (X, starts, positive)
        best, best_val, best_start = None, np.inf, -1
        start_vals, final_vals, iters = [], [], []
        for row in rows:
            x0 = np.ones(2 * X.shape[1])
            x0[0::2] = X[row]
            start_vals.append(mdd_negative_log_likelihood(x0, *args)[0])
            x, value, nit = self._minimize(mdd_negative_log_likelihood, x0, args)
            final_vals.append(value)
            iters.append(nit)
            if value < best_val:  # strict: the first of equal optima, as Weka
                best, best_val, best_start = x, value, int(row)
        with np.errstate(divide="ignore"):
            self._finish(
                np.concatenate([best[0::2], 1.0 / np.abs(best[1::2])]),
                {
                    "n_starts": len(rows),
                    "start_rows": np.asarray(rows),
                    "start_values": np.array(start_vals),
                    "final_values": np.array(final_vals),
                    "best_start": best_start,
                    "neg_log_likelihood": best_val,
                    "sigma": best[1::2].copy(),
                    "optimizer_iterations": np.array(iters),
                    "seconds": time.perf_counter() - t0,
                },
            )
        return self

    def _bag_means(self, bags):
        """``(mean_j p_j, mean_j (1 - p_j))`` of every bag."""
        check_is_fitted(self)
        dist, starts = self._filtered_dist(bags)
        sizes = np.diff(np.append(starts, len(dist)))
        pos = np.add.reduceat(np.exp(-dist), starts) / sizes
        neg = np.add.reduceat(-np.expm1(-dist), starts) / sizes
        return pos, neg

    def decision_function(self, bags):
        """Log-odds ``log P(B+) - log P(B-)`` with ``P(B+)`` the mean instance probability.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        scores : ndarray of shape (n_bags,)
            > 0 means ``classes_[1]``.
        """
        pos, neg = self._bag_means(bags)
        with np.errstate(divide="ignore"):
            return np.log(pos) - np.log(neg)

    def predict_proba(self, bags):
        """``[P(B-), P(B+)]`` per bag: the mean instance probabilities.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags, 2)
        """
        pos, neg = self._bag_means(bags)
        return np.column_stack([neg, pos])
