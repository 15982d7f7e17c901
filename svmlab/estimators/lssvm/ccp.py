"""CCP-LSSVM: compressive-sampling pruning of the LSSVM (Yang et al. 2014), a baseline of
Oliveira (2021), Ch. 3 (Table 4: M = 0.3N, random Gaussian matrix, OMP)."""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.linear_model import orthogonal_mp
from sklearn.utils import check_random_state

from svmlab._sklearn_compat import Interval
from svmlab.estimators.lssvm._kkt import solve_kkt
from svmlab.estimators.lssvm._sparse_classifier import (
    SparseLSSVMClassifierBase,
    rectangular_normal_equations,
    solve_normal_equations,
)
from svmlab.kernels import rbf

__all__ = ["CCPLSSVMClassifier"]


class CCPLSSVMClassifier(SparseLSSVMClassifierBase):
    """CCP-LSSVM: the full LSSVM compressed by a random Gaussian matrix, its support recovered
    by orthogonal matching pursuit (OMP) and the pruned model refitted.

    **Reconstructed from Yang et al. (2014), "Sparse least square support vector machine via
    coupled compressive pruning", Neurocomputing 131; the thesis (Oliveira 2021, Table 4) gives
    only the name and settings** (sampling ratio M = 0.3N, sparse approximation by OMP,
    compressive sampling by a random Gaussian matrix).

    Algorithm:

    1. Train the full LSSVM (Oliveira 2021, Eq. 2.5): ``alpha``, ``b`` from the N x N system.
    2. Compressive sampling: ``Phi`` is an ``M x N`` matrix of i.i.d. ``N(0, 1/M)`` entries,
       ``M = ceil(ratio * N)``; the kernel part of the full model's training outputs,
       ``s = K alpha``, is measured as ``z = Phi s`` with the compressed dictionary
       ``D = Phi K`` (one atom per training sample).
    3. OMP recovers an ``M``-sparse ``a`` with ``D a ~ z``; its support are the SVs.
    4. Pruning (``refit=True``): the LSSVM system restricted to the SV columns, with every
       training sample a row, is solved by least squares for ``a`` and ``b`` (the coupling of
       the compressed selection with the original system). ``refit=False`` keeps the OMP
       coefficients and the full model's ``b``.

    The sampling ratio fixes the model size: with ``M`` measurements OMP reaches a zero residual
    at ``M`` atoms, so about ``ceil(ratio * N)`` SVs are kept (fewer only when the atoms become
    linearly dependent), as the thesis observed ("although we set its sampling ratio to 30%,
    its sparse approximation could not get rid of more SVs").

    **Memory.** The full LSSVM needs the N x N kernel (8 N^2 bytes) and ``Phi K`` another
    ``8 M N``; fitting refuses ``N > max_samples`` (default 20,000, about 3.2 GB for the kernel)
    with a message naming ``max_samples``. The thesis also left CCP-LSSVM out of its large-data
    experiment for this reason.

    Assumptions (not in the thesis, and where the public description is not explicit):

    * the measured signal is the kernel part of the full LSSVM's outputs on the training set
      (``K alpha``), the dictionary its kernel matrix; the bias is kept out of the compression;
    * ``Phi`` has ``N(0, 1/M)`` entries, drawn from ``random_state``; OMP runs on column-
      normalised atoms for ``M`` steps (no residual tolerance);
    * "coupled pruning" is read as the least-squares refit of the selected columns over all
      training rows (``refit=True``), the system of Oliveira's Eq. 3.11 with PS = D;
    * the full LSSVM is solved by Cholesky of ``K + I/C`` (Suykens' bias elimination,
      :func:`~svmlab.estimators.lssvm._kkt.solve_kkt`).

    Parameters
    ----------
    C : float or None, default=None
        LSSVM regularisation (the thesis's gamma). None: tuned with
        :func:`~svmlab.estimators.lssvm.tuning.tune_lssvm` on the training data.
    gamma : float or None, default=None
        RBF precision, ``K(x, z) = exp(-gamma ||x - z||^2)`` (the thesis's width sigma is
        ``gamma = 1 / sigma^2``; :class:`~svmlab.estimators.lssvm.LSSVMClassifier`). None:
        tuned with ``C``.
    ratio : float, default=0.3
        Sampling ratio: ``M = ceil(ratio * N)`` measurements and OMP atoms (Table 4).
    refit : bool, default=True
        Re-solve the pruned LSSVM on the selected SVs (see above).
    max_samples : int, default=20000
        Largest N accepted (the N x N kernel); raise it to fit larger sets.
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
        Seeds the Gaussian measurement matrix (and the tuning folds).

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_
        As in :class:`~svmlab.estimators.lssvm.fsa.FSALSSVMClassifier`.
    C_, gamma_ : float
    fit_info_ : dict
        ``C``, ``gamma``, ``tuned``, ``tune_samples``, ``n_support``,
        ``sparsity`` (1 - M/N),
        ``n_measurements`` (M), ``full_solver`` ("cholesky" or "lstsq"), ``refit``,
        ``omp_premature`` (OMP stopped before M atoms), ``lstsq_fallback``.

    References
    ----------
    L. Yang, S. Yang, R. Zhang, H. Jin. Sparse least square support vector machine via coupled
    compressive pruning. Neurocomputing 131:77-86, 2014.
    S. A. F. Oliveira. PhD thesis, UFC, 2021, Ch. 3, Table 4.
    """

    _parameter_constraints: dict = {
        **SparseLSSVMClassifierBase._parameter_constraints,
        "ratio": [Interval(Real, 0.0, 1.0, closed="right")],
        "refit": ["boolean"],
        "max_samples": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        C=None,
        gamma=None,
        ratio=0.3,
        refit=True,
        max_samples=20000,
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
        self.ratio = ratio
        self.refit = refit
        self.max_samples = max_samples
        self.Cs = Cs
        self.gammas = gammas
        self.tune_max_samples = tune_max_samples
        self.tune_random_state = tune_random_state
        self.memory = memory
        self.tune_folds = tune_folds
        self.random_state = random_state

    def _check_size(self, n: int) -> None:
        if n > self.max_samples:
            gb = 8.0 * n * n / 1e9
            raise ValueError(
                f"CCPLSSVMClassifier needs the full N x N kernel (N = {n}, about {gb:.3g} GB) "
                f"and refuses N > max_samples = {self.max_samples}; set max_samples >= {n} "
                "to fit anyway"
            )

    def _fit_sparse(self, X, y, C, gamma):
        n = X.shape[0]
        self._check_size(n)
        K = rbf(X, X, gamma)
        alpha, b, method = solve_kkt(K, y, C)
        if method != "cholesky":
            warnings.warn(
                "CCPLSSVMClassifier: K + I/C could not be Cholesky-factorised; the full LSSVM "
                "was solved by least squares (fit_info_['full_solver'])",
                stacklevel=3,
            )
        m = min(n, max(1, math.ceil(self.ratio * n)))
        rng = check_random_state(self.random_state)
        phi = rng.standard_normal((m, n)) / math.sqrt(m)
        D = phi @ K
        del K
        z = D @ alpha
        norms = np.linalg.norm(D, axis=0)
        norms[norms == 0] = 1.0
        D /= norms
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            coef = orthogonal_mp(D, z, n_nonzero_coefs=m) / norms
        premature = any("prematurely" in str(w.message) for w in caught)
        if premature:
            warnings.warn(
                "CCPLSSVMClassifier: OMP stopped before M atoms (linearly dependent atoms); "
                "fewer SVs are kept (fit_info_['omp_premature'])",
                stacklevel=3,
            )
        support = np.flatnonzero(coef)
        if support.size == 0:
            support = np.array([int(np.argmax(np.abs(alpha)))])
            coef = np.zeros(n)
            premature = True
        fallback = False
        if self.refit:
            G, h = rectangular_normal_equations(X, y, support, C, gamma)
            w, fallback = solve_normal_equations(G, h)
            if fallback:
                warnings.warn(
                    "CCPLSSVMClassifier: the refit system was numerically singular; solved by "
                    "minimum-norm least squares instead (fit_info_['lstsq_fallback'])",
                    stacklevel=3,
                )
            a, b = w[1:], w[0]
        else:
            a = coef[support]
        info = {
            "n_measurements": int(m),
            "full_solver": method,
            "refit": bool(self.refit),
            "omp_premature": bool(premature),
            "lstsq_fallback": bool(fallback),
        }
        return support, a, b, info
