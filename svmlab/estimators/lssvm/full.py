"""The full (dense) LSSVM classifier and regressor (Oliveira (2021), Sec. 2.1.2, Algs. 3-4,
Eqs. 2.3-2.8), solved by the Cholesky trick of :mod:`svmlab.estimators.lssvm._kkt`.

Every training sample is a support vector (Eq. 2.7, ``alpha_i = C xi_i``), and the ``N x N``
kernel matrix is inherent: meant for N up to about 10,000 (800 MB of kernel).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from svmlab._sklearn_compat import _fit_context
from svmlab.estimators.lssvm._expansion import BinaryKernelExpansionMixin, kernel_expansion
from svmlab.estimators.lssvm._kkt import solve_kkt
from svmlab.estimators.lssvm._params import LSSVM_CONSTRAINTS
from svmlab.estimators.lssvm.tuning import TunedCGammaMixin
from svmlab.kernels import rbf

__all__ = ["LSSVMClassifier", "LSSVMRegressor", "binary_targets"]


def binary_targets(owner: str, y):
    """``(classes, t)``: the two sorted labels and ``t = +1`` for ``classes[1]``, else ``-1``;
    a clear error for any other number of classes."""
    check_classification_targets(y)
    classes, index = np.unique(y, return_inverse=True)
    if len(classes) != 2:
        raise ValueError(
            f"Only binary classification is supported. {owner}: y has {len(classes)} class(es) "
            f"({list(classes)[:5]}); wrap it in sklearn.multiclass.OneVsOneClassifier or "
            "OneVsRestClassifier for more than two classes"
        )
    return classes, np.where(index == 1, 1.0, -1.0)


class _FullLSSVM(TunedCGammaMixin, BaseEstimator):
    """Shared fit of the full LSSVM: Eq. 2.5 on all samples, ``C``/``gamma`` given or tuned
    (:class:`~svmlab.estimators.lssvm.tuning.TunedCGammaMixin`)."""

    _task = "regression"
    _parameter_constraints: dict = dict(LSSVM_CONSTRAINTS)

    def __init__(
        self,
        C=1.0,
        gamma=1.0,
        Cs=None,
        gammas=None,
        tune_folds=10,
        tune_max_samples=2000,
        tune_random_state=None,
        memory=None,
        random_state=None,
    ):
        self.C = C
        self.gamma = gamma
        self.Cs = Cs
        self.gammas = gammas
        self.tune_folds = tune_folds
        self.tune_max_samples = tune_max_samples
        self.tune_random_state = tune_random_state
        self.memory = memory
        self.random_state = random_state

    def _solve(self, X, t):
        owner = type(self).__name__
        C, gamma, tuned, n_tune = self._c_gamma(X, t, self._task)
        self.C_, self.gamma_ = C, gamma
        alpha, b, method = solve_kkt(rbf(X, X, gamma), t, C)
        if method != "cholesky":
            warnings.warn(
                f"{owner}: Omega + I/C is not numerically positive definite (C={C}, "
                f"gamma={gamma}); Eq. 2.5 was solved by least squares instead",
                RuntimeWarning,
                stacklevel=3,
            )
        self.support_ = np.arange(X.shape[0])
        self.support_vectors_ = X
        self.dual_coef_ = alpha.reshape(1, -1)
        self.intercept_ = np.array([b])
        self.fit_info_ = {
            **self._tuning_record(C, gamma, tuned, n_tune),
            "solver": method,
            "n_support": int(X.shape[0]),
        }


class LSSVMClassifier(BinaryKernelExpansionMixin, ClassifierMixin, _FullLSSVM):
    """Least-squares SVM classifier (Suykens & Vandewalle 1999), binary, RBF kernel.

    Solves Eq. 2.5 ``[[0, 1^T], [1, Omega + I/C]] [b; alpha] = [0; y]`` with ``y`` in
    ``{-1, +1}`` by the Cholesky trick (``H eta = 1``, ``H nu = y``, ``b = 1^T nu / 1^T eta``,
    ``alpha = nu - b eta``) and predicts ``sign(sum_i alpha_i K(x, x_i) + b)`` (Eq. 2.8).

    Parameters
    ----------
    C : float or None, default=1.0
        Regularisation ``gamma`` of the thesis (Eq. 2.3); > 0. None: tuned with
        :func:`~svmlab.estimators.lssvm.tuning.tune_lssvm` on the training data (with
        ``gamma`` when that is None too), exactly as the sparse LSSVM variants tune, so that
        all of them arrive at the same values on the same data (Oliveira (2021), Sec. 3.3.1).
    gamma : float or None, default=1.0
        RBF precision, ``K(x, z) = exp(-gamma ||x - z||^2)``; > 0. The thesis's width sigma
        (spec A4, ``exp(-||x - z||^2 / sigma^2)``) is ``gamma = 1 / sigma^2``; LS-SVMlab's
        ``sig2`` is ``gamma = 1 / (2 sig2)``. None: tuned.
    Cs, gammas : list of float or None, default=None
        Grids of the tuning (None: spec A5, ``C`` in ``2^{-5,-3,...,15}``, the thesis's
        ``sigma^2`` in ``2^{-7,-5,...,9}`` as ``gamma = 1 / sigma^2``); unused when ``C`` and
        ``gamma`` are given.
    tune_folds : int, default=10
        Folds of the tuning (the thesis's 10-fold grid search).
    tune_max_samples : int or None, default=2000
        Tune on a stratified subsample of this many rows when N is larger (None: all rows).
    tune_random_state : int, RandomState or None, default=None
        Seeds the tuning's subsample and folds in place of ``random_state``: an int gives the
        same ``(C, gamma)`` to fits on the same training rows whatever their ``random_state``
        (Oliveira (2021), Table 7: one pair per dataset for all 20 realisations).
    memory : str, joblib.Memory or None, default=None
        Caches the ``C``/``gamma`` search (joblib.Memory): every LSSVM variant finds the same
        values on the same training rows and seed, so a study that fits several variants on one
        split searches once. ``"auto"``: svmlab's user cache; a path: a joblib cache there.
    random_state : int, RandomState instance or None, default=None
        Seeds the tuning's subsample and folds.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the ``+1`` side.
    support_ : ndarray of shape (n_samples,)
        All training indices (LSSVM is not sparse).
    support_vectors_ : ndarray of shape (n_samples, n_features)
    n_support_ : ndarray of shape (2,)
        Samples of ``classes_[0]`` and ``classes_[1]``.
    dual_coef_ : ndarray of shape (1, n_samples)
        ``alpha``.
    intercept_ : ndarray of shape (1,)
        ``b``.
    C_, gamma_ : float
        The hyper-parameters used (given or tuned); ``gamma_`` is the precision of
        :func:`svmlab.kernels.rbf`.
    fit_info_ : dict
        ``C``, ``gamma``, ``tuned`` (whether ``tune_lssvm`` ran),
        ``tune_samples`` (rows it ran on; 0 if not), ``solver`` ("cholesky" or "lstsq"),
        ``n_support``.
    n_features_in_ : int

    References
    ----------
    Oliveira (2021), Sec. 2.1.2, Eqs. 2.3-2.8, Algs. 3-4; Sec. 3.3.1 (tuning).
    """

    _task = "classification"

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit on a two-class training set; returns ``self``."""
        self._check_grids()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        self.classes_, t = binary_targets(type(self).__name__, y)
        self._solve(X, t)
        self.n_support_ = np.array([np.sum(t < 0), np.sum(t > 0)], dtype=np.intp)
        return self


class LSSVMRegressor(RegressorMixin, _FullLSSVM):
    """Least-squares SVM regressor (function estimation form of Eq. 2.3), RBF kernel.

    The same system as :class:`LSSVMClassifier` with real targets; ``predict`` returns
    ``sum_i alpha_i K(x, x_i) + b``.

    Parameters
    ----------
    C, gamma, Cs, gammas, tune_folds, tune_max_samples, tune_random_state, memory, \
random_state
        As in :class:`LSSVMClassifier` (the tuning minimises the cross-validated MSE; its
        subsample is not stratified).

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, C_, gamma_, fit_info_, \
n_features_in_
        As in :class:`LSSVMClassifier`.
    n_support_ : ndarray of shape (1,)
        ``n_samples``.

    References
    ----------
    Oliveira (2021), Sec. 2.1.2, Eqs. 2.3-2.8; Suykens et al. (2002).
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit on real targets; returns ``self``."""
        self._check_grids()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self._solve(X, y)
        self.n_support_ = np.array([X.shape[0]], dtype=np.intp)
        return self

    def predict(self, X):
        """``sum_i alpha_i K(x, x_i) + b`` for every row of ``X``."""
        return kernel_expansion(self, X)
