"""FSA-LSSVM: fast sparse approximation of the LSSVM by greedy basis selection (Jiao, Bo & Wang
2007), a baseline of Oliveira (2021), Ch. 3 (Table 4: epsilon = 0.5)."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.linalg import solve_triangular

from svmlab._sklearn_compat import Interval
from svmlab.estimators.lssvm._sparse_classifier import SparseLSSVMClassifierBase
from svmlab.kernels import rbf

__all__ = ["FSALSSVMClassifier"]


class FSALSSVMClassifier(SparseLSSVMClassifierBase):
    """FSA-LSSVM: the LSSVM dual grown one kernel basis function at a time.

    **Reconstructed from Jiao, Bo & Wang (2007), "Fast sparse approximation for least squares
    support vector machine", IEEE TNN 18(3); the thesis (Oliveira 2021, Table 4) gives only the
    name and settings** ("basis function addition at a time with an epsilon-based stop
    criterion", epsilon = 0.5).

    Algorithm (FSALS-SVM with backfitting, as publicly described):

    1. Start with no basis (``f = 0``, residual ``r = f(X) - y = -y``) and all samples as
       candidates.
    2. Stop when every candidate has ``|r_i| < epsilon`` (the epsilon-insensitive criterion),
       when no candidate is left, or when ``max_support`` bases are in.
    3. Add the candidate of largest ``r_i^2 / (K(x_i, x_i) + 1/C)`` (the decrease of the dual
       objective from moving ``alpha_i`` alone).
    4. Re-solve the LSSVM on the basis set ``P`` (backfitting):
       ``[[0, 1^T], [1, K_PP + I/C]] [b; alpha_P] = [0; y_P]``, with an incremental Cholesky
       factor of ``K_PP + I/C`` (one new row per step, ``O(|P|^2)``), and recompute ``r`` on
       every training sample (``O(N |P|)``).

    With ``epsilon -> 0`` and no ``max_support`` the basis grows to the whole training set and
    the model is the full LSSVM (Oliveira 2021, Eq. 2.5).

    Memory: the ``N x |P|`` kernel columns of the basis (never ``N x N``); time ``O(N |P|^2)``.
    The large-data experiment (N = 50,000) relies on this; on overlapping classes every
    mislabelled sample keeps ``|r_i| > 1 > epsilon`` until it enters the basis, so ``|P|`` can
    grow large: bound it with ``max_support`` (e.g. the fixed SV count of Table 6).

    Assumptions (not in the thesis, and where the public description is not explicit):

    * the LSSVM ridge is ``1/C`` (svmlab's ``(C/2) sum xi^2`` primal, spec Eq. 2.3); Jiao et al.
      write the loss without the 1/2 and get ``1/(2C)``;
    * epsilon is an absolute bound on the residuals ``|f(x_i) - y_i|`` of the samples not in
      the basis, with labels in ``{-1, +1}``;
    * the probabilistic speed-up of the paper (PFSALS-SVM: the best of a random candidate
      subset) is not used: every candidate is scored, so the fit is deterministic and
      ``random_state`` only reaches the hyper-parameter tuning (and not even that when
      ``tune_random_state`` is given);
    * a candidate whose kernel column is numerically dependent on the basis (Cholesky pivot
      below 1e-10) is skipped; the number skipped is in ``fit_info_["n_dependent"]``.

    Parameters
    ----------
    C : float or None, default=None
        LSSVM regularisation (the thesis's gamma). None: tuned with
        :func:`~svmlab.estimators.lssvm.tuning.tune_lssvm` on the training data.
    gamma : float or None, default=None
        RBF precision, ``K(x, z) = exp(-gamma ||x - z||^2)`` (the thesis's width sigma is
        ``gamma = 1 / sigma^2``; :class:`~svmlab.estimators.lssvm.LSSVMClassifier`). None:
        tuned with ``C``.
    epsilon : float, default=0.5
        Stop when every sample outside the basis has ``|f(x_i) - y_i| < epsilon`` (Table 4).
    max_support : int or None, default=None
        Upper bound on the number of basis functions. None: no bound other than memory (the
        basis stops, with a warning, when its ``N x M`` kernel columns would pass
        ``MAX_BASIS_BYTES`` = 2 GiB, i.e. M = 5,368 at N = 50,000).
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
        Seeds the tuning folds (the selection itself is deterministic).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    support_ : ndarray of shape (M,)
        Training indices of the basis functions (support vectors), ascending.
    support_vectors_ : ndarray of shape (M, n_features)
    n_support_ : ndarray of shape (2,)
        Support vectors per class (``classes_`` order); they sum to M.
    dual_coef_ : ndarray of shape (1, M)
        ``alpha`` of each support vector.
    intercept_ : ndarray of shape (1,)
    C_, gamma_ : float
        Hyper-parameters used (``gamma_`` the precision of ``svmlab.kernels.rbf``).
    selection_order_ : ndarray of shape (M,)
        Training indices in the order they entered the basis.
    fit_info_ : dict
        ``C``, ``gamma``, ``tuned``, ``tune_samples``, ``n_support``,
        ``sparsity`` (1 - M/N), ``stop_reason`` ("epsilon", "max_support", "memory" or
        "exhausted"),
        ``max_residual`` (largest ``|r_i|`` outside the basis at the stop), ``n_dependent``.

    References
    ----------
    L. Jiao, L. Bo, L. Wang. Fast sparse approximation for least squares support vector
    machine. IEEE Transactions on Neural Networks 18(3):685-697, 2007.
    S. A. F. Oliveira. PhD thesis, UFC, 2021, Ch. 3, Table 4.
    """

    #: Without ``max_support``, the basis stops growing when its ``N x M`` kernel columns would
    #: exceed this many bytes (stop reason "memory", warned).
    MAX_BASIS_BYTES = 2 * 2**30

    _parameter_constraints: dict = {
        **SparseLSSVMClassifierBase._parameter_constraints,
        "epsilon": [Interval(Real, 0.0, None, closed="left")],
        "max_support": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        C=None,
        gamma=None,
        epsilon=0.5,
        max_support=None,
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
        self.epsilon = epsilon
        self.max_support = max_support
        self.Cs = Cs
        self.gammas = gammas
        self.tune_max_samples = tune_max_samples
        self.tune_random_state = tune_random_state
        self.memory = memory
        self.tune_folds = tune_folds
        self.random_state = random_state

    def _fit_sparse(self, X, y, C, gamma):
        n = X.shape[0]
        ridge = 1.0 / C
        if self.max_support is None:
            limit = min(n, max(1, self.MAX_BASIS_BYTES // (8 * n)))
        else:
            limit = min(n, int(self.max_support))
        diag = np.ones(n) + ridge  # K(x, x) = 1 for the RBF kernel
        candidate = np.ones(n, dtype=bool)
        rows = np.empty((min(limit, 64), n))  # K(x_p, X) of the basis, grown by doubling
        L = np.zeros((min(limit, 64), min(limit, 64)))  # Cholesky factor of K_PP + I/C
        z_one, z_y = [], []  # L^-1 1 and L^-1 y_P (a new basis only appends an entry)
        basis: list[int] = []
        alpha, b = np.zeros(0), 0.0
        residual = -y.copy()
        n_dependent = 0
        stop = "exhausted"
        while candidate.any():
            worst = float(np.max(np.abs(residual[candidate])))
            if worst < self.epsilon:
                stop = "epsilon"
                break
            if len(basis) >= limit:
                stop = "max_support" if self.max_support is not None else "memory"
                break
            score = np.where(candidate, residual * residual / diag, -np.inf)
            s = int(np.argmax(score))
            candidate[s] = False
            m = len(basis)
            if m == rows.shape[0]:
                grow = min(limit, 2 * m)
                rows = np.concatenate([rows, np.empty((grow - m, n))])
                L = np.pad(L, ((0, grow - m), (0, grow - m)))
            k_s = rbf(X, X[s : s + 1], gamma)[:, 0]
            if m:
                row = solve_triangular(L[:m, :m], k_s[basis], lower=True, check_finite=False)
            else:
                row = np.zeros(0)
            pivot2 = diag[s] - row @ row
            if pivot2 <= 1e-10:
                n_dependent += 1
                continue
            pivot = np.sqrt(pivot2)
            L[m, :m], L[m, m] = row, pivot
            rows[m] = k_s
            z_one.append((1.0 - row @ np.asarray(z_one)) / pivot if m else 1.0 / pivot)
            z_y.append((y[s] - row @ np.asarray(z_y)) / pivot if m else y[s] / pivot)
            basis.append(s)
            m += 1
            # H^-1 1 and H^-1 y_P by one backward solve each; b from the KKT row 1^T alpha = 0
            z1, zy = np.asarray(z_one), np.asarray(z_y)
            eta = solve_triangular(L[:m, :m], z1, lower=True, trans="T", check_finite=False)
            nu = solve_triangular(L[:m, :m], zy, lower=True, trans="T", check_finite=False)
            b = float(z1 @ zy) / float(z1 @ z1)
            alpha = nu - b * eta
            residual = alpha @ rows[:m] + b - y  # contiguous m x N read
        if stop == "memory":
            warnings.warn(
                f"FSALSSVMClassifier: the basis reached {limit} functions, the most whose "
                f"kernel columns fit in {self.MAX_BASIS_BYTES / 2**30:.0f} GiB at N = {n}, "
                f"before every residual was below epsilon = {self.epsilon}; set max_support "
                "to choose the size (fit_info_['stop_reason'] = 'memory')",
                stacklevel=3,
            )
        if n_dependent:
            warnings.warn(
                f"FSALSSVMClassifier: {n_dependent} candidate(s) skipped because their kernel "
                "column is numerically dependent on the basis (Cholesky pivot < 1e-10)",
                stacklevel=3,
            )
        outside = residual[candidate]
        self.selection_order_ = np.asarray(basis, dtype=np.intp)
        info = {
            "stop_reason": stop,
            "max_residual": float(np.max(np.abs(outside))) if outside.size else 0.0,
            "n_dependent": n_dependent,
            "epsilon": float(self.epsilon),
        }
        return np.asarray(basis, dtype=np.intp), alpha, b, info
