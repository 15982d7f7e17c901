"""SSD-LSSVM: sparsified subsampled-dual LSSVM (Mall & Suykens 2015), a baseline of Oliveira
(2021), Ch. 3 (Table 4: subset size floor(k sqrt(N)), k = 4)."""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from svmlab._sklearn_compat import Interval
from svmlab.estimators.lssvm._sparse_classifier import (
    SparseLSSVMClassifierBase,
    rectangular_normal_equations,
    solve_normal_equations,
)
from svmlab.kernels import rbf, rbf_blocks

__all__ = ["SSDLSSVMClassifier", "renyi_active_subset"]


def renyi_active_subset(X, size: int, gamma: float, n_iter: int, random_state):
    """Fixed-size active selection (De Brabanter et al. 2010): ``size`` rows of ``X`` of high
    quadratic Renyi entropy ``H = -log(sum_ij K(x_i, x_j) / size^2)``.

    Starts from a random subset; each iteration proposes swapping a random member for a random
    non-member and keeps the swap when the entropy increases (the within-subset kernel sum
    decreases). Cost ``O(size * d)`` per iteration, memory ``O(size)``.

    Returns ``(indices, entropy_start, entropy_end, n_accepted)``.
    """
    rng = check_random_state(random_state)
    n = X.shape[0]
    subset = rng.choice(n, size=size, replace=False)
    inside = np.zeros(n, dtype=bool)
    inside[subset] = True

    def entropy(total):
        return -math.log(total / (size * size))

    if size == n:
        total = float(sum(K.sum() for _, K in rbf_blocks(X, X, gamma)))
        return np.sort(subset), entropy(total), entropy(total), 0
    rowsum = rbf(X[subset], X[subset], gamma).sum(axis=1)  # sum_k K(s_j, s_k), O(size^2)
    total = float(rowsum.sum())
    start = entropy(total)
    accepted = 0
    for _ in range(n_iter):
        p = int(rng.randint(size))
        j = int(rng.randint(n))
        if inside[j]:
            continue
        k_out = rbf(X[subset], X[subset[p] : subset[p] + 1], gamma)[:, 0]
        k_in = rbf(X[subset], X[j : j + 1], gamma)[:, 0]
        # new sum: remove row/column of the member p, add those of j (K(x, x) = 1)
        k_in_rest = k_in.sum() - k_in[p]
        new_total = total - 2.0 * rowsum[p] + 1.0 + 2.0 * k_in_rest + 1.0
        if new_total < total:
            rowsum += k_in - k_out
            rowsum[p] = k_in_rest + 1.0
            inside[subset[p]], inside[j] = False, True
            subset[p] = j
            total = new_total
            accepted += 1
    return np.sort(subset), start, entropy(total), accepted


class SSDLSSVMClassifier(SparseLSSVMClassifierBase):
    """SSD-LSSVM: Renyi-entropy prototypes, subsampled-dual LSSVM, reweighted-L0 pruning.

    **Reconstructed from Mall & Suykens (2015), "Very sparse LSSVM reductions for large-scale
    data", IEEE TNNLS 26(5); the thesis (Oliveira 2021, Table 4) gives only the name and
    settings** (active subset of size ``floor(k sqrt(N))``, k = 4).

    Algorithm:

    1. **Active subset.** ``M = floor(k sqrt(N))`` prototype vectors by maximising the quadratic
       Renyi entropy (fixed-size LSSVM selection of De Brabanter et al. 2010; see
       :func:`renyi_active_subset`).
    2. **Subsampled dual (SD-LSSVM).** The LSSVM dual with the rectangular kernel
       ``K(X, X_S)``: every training sample is a row, the prototypes are the columns, the
       over-determined system ``[[0, 1^T], [1, K(X, X_S) + I_NS / C]] [b; a] = [0; y]`` is solved
       in the least-squares sense (normal equations built block by block).
    3. **Reweighted L0.** Repeatedly solve the same least-squares problem plus
       ``sum_j lambda_j a_j^2`` with ``lambda_j = 1 / a_j^2`` from the previous solution
       (an iterative approximation of the L0 norm), until the coefficients settle or
       ``l0_max_iter`` rounds; coefficients with ``|a_j| <= l0_tol * max|a|`` are dropped and the
       SD-LSSVM system is re-solved on the remaining prototypes (the support vectors).

    Memory ``O(M^2)`` plus one block of kernel rows; time ``O(N M^2)``: no N x N matrix, so it
    runs on the large sets (N = 50,000: M = 894).

    Assumptions (not in the thesis, and where the public description is not explicit):

    * the entropy kernel is the model's RBF kernel (the same ``gamma``), as in
      the LS-SVMlab fixed-size demos; the swap search runs ``entropy_iter`` proposals from a
      random start (seeded by ``random_state``);
    * the SD-LSSVM rows carry ``1/C`` where the row sample is a column prototype (as Eq. 3.11
      of the thesis does for CC-LSSVM); the bias row ``1^T a = 0`` is one more least-squares
      row;
    * the L0 loop starts from the unpenalised SD-LSSVM solution, uses
      ``lambda_j = 1 / max(a_j^2, 1e-24)``, stops when ``max|a_new - a| <= 1e-6 max|a|``;
      pruning uses the relative threshold ``l0_tol``, and the kept prototypes are re-solved
      without the penalty (a final unbiased least-squares fit);
    * at least one prototype is always kept.

    Parameters
    ----------
    C : float or None, default=None
        LSSVM regularisation (the thesis's gamma). None: tuned with
        :func:`~svmlab.estimators.lssvm.tuning.tune_lssvm` on the training data.
    gamma : float or None, default=None
        RBF precision, ``K(x, z) = exp(-gamma ||x - z||^2)`` (the thesis's width sigma is
        ``gamma = 1 / sigma^2``; :class:`~svmlab.estimators.lssvm.LSSVMClassifier`). None:
        tuned with ``C``.
    k : float, default=4
        Active-subset size factor: ``M = floor(k sqrt(N))`` (capped at N) (Table 4).
    entropy_iter : int, default=2000
        Swap proposals of the Renyi-entropy search.
    l0_max_iter : int, default=50
        Rounds of the reweighted-L0 loop.
    l0_tol : float, default=1e-3
        A prototype is pruned when ``|a_j| <= l0_tol * max|a|`` after the loop.
    Cs, gammas : list of float or None, default=None
        Grids of the tuning of a None ``C`` / ``gamma`` (None: spec A5).
    tune_max_samples : int or None, default=2000
        The tuning (``C``/``gamma`` None) runs on at most this many stratified training rows
        (its cost is that of the full LSSVM, ``O(n^3)`` per fold and ``gamma``); None: all rows.
    tune_random_state : int, RandomState or None, default=None
        Seeds the tuning's subsample and folds in place of ``random_state``: an int gives the
        same ``(C, gamma)`` to fits on the same training rows whatever their ``random_state``
        (Oliveira (2021), Table 7: one pair per dataset for all 20 realisations).
    memory : str, joblib.Memory or None, default=None
        Caches the ``C``/``gamma`` search (joblib.Memory): every LSSVM variant finds the same
        values on the same training rows and seed, so a study that fits several variants on one
        split searches once. ``"auto"``: svmlab's user cache; a path: a joblib cache there.
    tune_folds : int, default=10
        Folds of that search (the thesis's 10-fold grid search).
    random_state : int, RandomState instance or None, default=None
        Seeds the entropy search (and the tuning folds).

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_
        As in :class:`~svmlab.estimators.lssvm.fsa.FSALSSVMClassifier`.
    prototypes_ : ndarray of shape (floor(k sqrt(N)),)
        Training indices of the Renyi active subset, before sparsification.
    C_, gamma_ : float
    fit_info_ : dict
        ``C``, ``gamma``, ``tuned``, ``tune_samples``, ``n_support``,
        ``sparsity`` (1 - M/N),
        ``n_prototypes`` (the active-subset size), ``entropy_start``, ``entropy_end``,
        ``entropy_swaps``, ``l0_iterations``, ``l0_converged``, ``lstsq_fallback``.

    References
    ----------
    R. Mall, J. A. K. Suykens. Very sparse LSSVM reductions for large-scale data. IEEE
    Transactions on Neural Networks and Learning Systems 26(5):1086-1097, 2015.
    K. De Brabanter, J. De Brabanter, J. A. K. Suykens, B. De Moor. Optimized fixed-size kernel
    models for large data sets. Computational Statistics & Data Analysis 54(6), 2010.
    S. A. F. Oliveira. PhD thesis, UFC, 2021, Ch. 3, Table 4.
    """

    _parameter_constraints: dict = {
        **SparseLSSVMClassifierBase._parameter_constraints,
        "k": [Interval(Real, 0.0, None, closed="neither")],
        "entropy_iter": [Interval(Integral, 0, None, closed="left")],
        "l0_max_iter": [Interval(Integral, 0, None, closed="left")],
        "l0_tol": [Interval(Real, 0.0, 1.0, closed="left")],
    }

    def __init__(
        self,
        C=None,
        gamma=None,
        k=4,
        entropy_iter=2000,
        l0_max_iter=50,
        l0_tol=1e-3,
        Cs=None,
        gammas=None,
        tune_max_samples=2000,
        tune_random_state=None,
        memory=None,
        tune_folds=10,
        random_state=None,
    ):
        self.C = C
        self.gamma = gamma
        self.k = k
        self.entropy_iter = entropy_iter
        self.l0_max_iter = l0_max_iter
        self.l0_tol = l0_tol
        self.Cs = Cs
        self.gammas = gammas
        self.tune_max_samples = tune_max_samples
        self.tune_random_state = tune_random_state
        self.memory = memory
        self.tune_folds = tune_folds
        self.random_state = random_state

    def subset_size(self, n_samples: int) -> int:
        """``floor(k sqrt(N))``, at least 1 and at most N."""
        return int(min(n_samples, max(1, math.floor(self.k * math.sqrt(n_samples)))))

    def _fit_sparse(self, X, y, C, gamma):
        size = self.subset_size(X.shape[0])
        prototypes, h_start, h_end, swaps = renyi_active_subset(
            X, size, gamma, int(self.entropy_iter), self.random_state
        )
        self.prototypes_ = prototypes
        G, h = rectangular_normal_equations(X, y, prototypes, C, gamma)
        w, fallback = solve_normal_equations(G, h)
        a = w[1:]
        iterations, converged = 0, False
        while iterations < int(self.l0_max_iter):
            iterations += 1
            penalty = np.concatenate([[0.0], 1.0 / np.maximum(a * a, 1e-24)])
            w, used = solve_normal_equations(G, h, penalty)
            fallback |= used
            change = np.max(np.abs(w[1:] - a))
            a = w[1:]
            if change <= 1e-6 * max(np.max(np.abs(a)), 1e-300):
                converged = True
                break
        scale = np.max(np.abs(a)) if a.size else 0.0
        keep = np.flatnonzero(np.abs(a) > self.l0_tol * scale)
        if keep.size == 0:
            keep = np.array([int(np.argmax(np.abs(a)))])
        rows = np.concatenate([[0], 1 + keep])
        w, used = solve_normal_equations(G[np.ix_(rows, rows)], h[rows])
        fallback |= used
        if fallback:
            warnings.warn(
                "SSDLSSVMClassifier: a normal-equation system was numerically singular; "
                "solved by minimum-norm least squares instead (fit_info_['lstsq_fallback'])",
                stacklevel=3,
            )
        info = {
            "n_prototypes": int(size),
            "entropy_start": h_start,
            "entropy_end": h_end,
            "entropy_swaps": int(swaps),
            "l0_iterations": int(iterations),
            "l0_converged": bool(converged),
            "lstsq_fallback": bool(fallback),
        }
        return prototypes[keep], w[1:], w[0], info
