"""What EvoSVM and PsoSVM share: kernel, labels, ``C``, the post-hoc bias and prediction."""

from __future__ import annotations

import time
from abc import abstractmethod
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from svmlab.estimators.evo._fitness import DualFitness, posthoc_bias
from svmlab.kernels import (
    get_kernel,
    kernel_diagonal,
    kernel_expansion,
    kernel_matrix,
    kernel_names,
)

# constructor parameters that belong to the kernel; None means "the kernel's default"
KERNEL_PARAMS = ("gamma", "degree", "kappa", "delta", "sigma", "sigma1", "sigma2", "sigma3", "c")

_POSITIVE = Interval(Real, 0.0, None, closed="neither")
_NONNEGATIVE = Interval(Real, 0.0, None, closed="left")

COMMON_CONSTRAINTS: dict = {
    "C": [_POSITIVE, StrOptions({"auto"})],
    "kernel": [StrOptions(set(kernel_names()))],
    "gamma": [_POSITIVE, None],
    "degree": [_POSITIVE, None],
    "kappa": [Real, None],
    "delta": [Real, None],
    "sigma": [_POSITIVE, None],
    "sigma1": [_NONNEGATIVE, None],
    "sigma2": [_NONNEGATIVE, None],
    "sigma3": [_NONNEGATIVE, None],
    "c": [Real, None],
    "pop_size": [Interval(Integral, 2, None, closed="left")],
    "max_gen": [Interval(Integral, 1, None, closed="left")],
    "patience": [Interval(Integral, 0, None, closed="left"), None],
    "init": [StrOptions({"uniform", "zeros"})],
    "random_state": ["random_state"],
}


class KernelParamsMixin:
    """``kernel`` plus the parameters of :data:`KERNEL_PARAMS` as constructor arguments."""

    def _kernel_params(self) -> dict:
        """The kernel's validated parameters; an error for one the kernel does not have."""
        spec = get_kernel(self.kernel)
        given = {k: getattr(self, k) for k in KERNEL_PARAMS if getattr(self, k) is not None}
        extra = [k for k in given if k not in spec.defaults]
        if extra:
            valid = ", ".join(spec.defaults) or "none"
            raise ValueError(
                f"{type(self).__name__}: {extra[0]}={given[extra[0]]!r} is not a parameter of the "
                f"{spec.name} kernel (K = {spec.formula}); its parameters: {valid}. Leave the others unset (None)."
            )
        return spec.params(**given)


class KernelExpansionMixin:
    """Prediction of a fitted binary kernel model ``f(x) = sum_j coef_j K(x, v_j) + b``.

    The model's expansion (vectors ``v_j``, coefficients, bias) comes from :meth:`_expansion`
    (by default ``support_vectors_``, ``dual_coef_[0]``, ``intercept_[0]``), the kernel from
    ``kernel`` and ``_kernel_kwargs``.
    """

    def _expansion(self):
        return self.support_vectors_, self.dual_coef_[0], self.intercept_[0]

    def decision_function(self, X):
        """``f(x) = sum_j coef_j K(x, v_j) + b`` over the model's expansion vectors.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Positive means ``classes_[1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        vectors, coef, intercept = self._expansion()
        return kernel_expansion(self.kernel, X, vectors, coef, intercept, **self._kernel_kwargs)

    def predict(self, X):
        """``classes_[1]`` where ``f(x) >= 0`` (ties to the +1 side, spec §1.1 item 4), else ``classes_[0]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        positive = self.decision_function(X) >= 0  # checks that the model is fitted
        return self.classes_[positive.astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


class BaseDualEvolution(KernelParamsMixin, KernelExpansionMixin, ClassifierMixin, BaseEstimator):
    """Binary kernel SVM whose dual (with ``b = 0``) is maximised by a population method.

    Subclasses implement :meth:`_optimize`, which receives the :class:`DualFitness` and a
    random state and returns the best ``alpha`` and a dict of run statistics.
    """

    _is_zero = 1e-8  # tolerance of the bias rule (RapidMiner's IS_ZERO)
    _variant = ""

    # -- fitting -----------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Maximise the dual of the binary SVM with ``b = 0``, then set the bias.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, used as it is (the thesis does no preprocessing).
        y : array-like of shape (n_samples,)
            Exactly two classes; ``classes_[1]`` is the +1 side.

        Returns
        -------
        self : object
        """
        t_start = time.perf_counter()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            k = len(self.classes_)
            raise ValueError(
                f"Only binary classification is supported. {type(self).__name__} needs exactly 2 classes in y, "
                f"got {k} class{'es' if k != 1 else ''} ({', '.join(map(repr, self.classes_.tolist()[:5]))}"
                f"{', ...' if k > 5 else ''})"
            )
        Y = np.where(y_idx == 1, 1.0, -1.0)
        n = X.shape[0]
        params = self._kernel_params()

        t0 = time.perf_counter()
        if isinstance(
            self.C, str
        ):  # "auto": SVMlight's heuristic C = n / sum_i K_ii (spec §1.1 item 5)
            trace = float(kernel_diagonal(self.kernel, X, **params).sum())
            if not (np.isfinite(trace) and trace > 0):
                raise ValueError(
                    f"C='auto' is n / trace(K), but the {self.kernel} kernel's trace is {trace!r} on this data; "
                    f"set C to a positive number"
                )
            C = n / trace
        else:
            C = float(self.C)
        K = kernel_matrix(self.kernel, X, None, **params)
        if not np.isfinite(K).all():
            raise ValueError(f"the {self.kernel} kernel matrix has non-finite values with {params}")
        fitness = DualFitness.from_kernel(K, Y, C)  # K becomes Q in place
        kernel_seconds = time.perf_counter() - t0

        t0 = time.perf_counter()
        # The generation loop multiplies a few dozen rows by Q at a time, between short Python
        # steps: one BLAS thread is as fast when the machine is idle and avoids the thread
        # wake-up stalls of a multi-threaded BLAS when it is busy (parallel runs).
        with threadpool_limits(limits=1, user_api="blas"):
            alpha, info = self._optimize(fitness, check_random_state(self.random_state))
        optimize_seconds = time.perf_counter() - t0

        g = fitness.Q @ alpha
        s = Y * g  # s_i = sum_j alpha_j y_j K(x_j, x_i)
        b = posthoc_bias(s, Y, alpha, C, self._is_zero)
        sv = alpha > 0
        self.alpha_ = alpha
        self.support_ = np.flatnonzero(sv)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (alpha * Y)[sv][None, :]
        self.intercept_ = np.array([b])
        self.n_support_ = np.array([np.sum(sv & (Y < 0)), np.sum(sv & (Y > 0))], dtype=np.int32)
        self.C_ = C
        self._kernel_kwargs = params
        free = (alpha > self._is_zero) & (alpha < C - self._is_zero)
        self.fit_info_ = {
            "variant": self._variant,
            **{k: info[k] for k in ("generations", "evaluations", "stop_reason")},
            "objective": float(alpha.sum() - 0.5 * alpha @ g),
            "eq_violation": float(abs(alpha @ Y)),
            "intercept": float(b),
            "C": float(C),
            "kernel": self.kernel,
            "kernel_params": {k: float(v) for k, v in params.items()},
            "n_samples": int(n),
            "n_sv": int(sv.sum()),
            "n_free_sv": int(free.sum()),
            "n_bounded_sv": int(np.sum(alpha >= C - self._is_zero)),
            **{
                k: v
                for k, v in info.items()
                if k not in ("generations", "evaluations", "stop_reason", "history")
            },
            "kernel_seconds": float(kernel_seconds),
            "optimize_seconds": float(optimize_seconds),
            "seconds": float(time.perf_counter() - t_start),
            "history": info["history"],
        }
        return self

    @abstractmethod
    def _optimize(self, fitness: DualFitness, rng) -> tuple[np.ndarray, dict]:
        """Best ``alpha`` found and ``{"generations", "evaluations", "stop_reason", "history", ...}``."""
