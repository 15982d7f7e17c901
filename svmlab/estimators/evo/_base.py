"""What the evolutionary SVMs share: the population-method base of EvoSVM and PsoSVM (kernel,
labels, ``C``, the post-hoc bias), prediction from a kernel expansion, binary and
semi-supervised targets (the ``y = -1`` convention of the transductive SVMs) and an exact
box-constrained dual solver."""

from __future__ import annotations

import time
from abc import abstractmethod
from numbers import Integral, Real

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract, RowValue
from svmlab.estimators._kernel_params import KERNEL_CONSTRAINTS, KernelParamsMixin
from svmlab.estimators.evo._fitness import DualFitness, posthoc_bias
from svmlab.kernels import kernel_diagonal, kernel_expansion, kernel_matrix

COMMON_CONSTRAINTS: dict = {
    "C": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
    **KERNEL_CONSTRAINTS,
    "population_size": [Interval(Integral, 2, None, closed="left")],
    "max_generations": [Interval(Integral, 1, None, closed="left")],
    "patience": [Interval(Integral, 0, None, closed="left"), None],
    "init": [StrOptions({"uniform", "zeros"})],
    "random_state": ["random_state"],
}


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
        """``classes_[1]`` where ``f(x) >= 0`` (ties to the +1 side), else ``classes_[0]``.

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

    svmlab_contract = Contract(row_values={"dual_objective": RowValue("objective", "max")})

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
            shown = ", ".join(map(repr, self.classes_.tolist()[:5]))
            raise ValueError(
                f"Only binary classification is supported. {type(self).__name__} needs exactly "
                f"2 classes in y, got {k} class{'es' if k != 1 else ''} ({shown}"
                f"{', ...' if k > 5 else ''})"
            )
        Y = np.where(y_idx == 1, 1.0, -1.0)
        params = self._kernel_params()

        t0 = time.perf_counter()
        C = self._resolve_C(X, params)
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
        b = self._store_model(X, Y, alpha, g, C, params)
        self.fit_info_ = {
            **self._solution_info(Y, alpha, g, b, C, params, info),
            "kernel_seconds": float(kernel_seconds),
            "optimize_seconds": float(optimize_seconds),
            "seconds": float(time.perf_counter() - t_start),
            "history": info["history"],
        }
        return self

    def _resolve_C(self, X, params) -> float:
        """``C``; ``"auto"`` is SVMlight's heuristic ``n / sum_i K_ii`` (docs/decisions/evo.md)."""
        if not isinstance(self.C, str):
            return float(self.C)
        trace = float(kernel_diagonal(self.kernel, X, **params).sum())
        if not (np.isfinite(trace) and trace > 0):
            raise ValueError(
                f"C='auto' is n / trace(K), but the {self.kernel} kernel's trace is {trace!r} "
                f"on this data; set C to a positive number"
            )
        return X.shape[0] / trace

    def _store_model(self, X, Y, alpha, g, C, params) -> float:
        """Set the fitted attributes from the best ``alpha`` (``g = Q alpha``); return the bias."""
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
        return b

    def _solution_info(self, Y, alpha, g, b, C, params, info) -> dict:
        """The ``fit_info_`` entries that describe the solution and the run (no timings)."""
        free = (alpha > self._is_zero) & (alpha < C - self._is_zero)
        return {
            "variant": self._variant,
            **{k: info[k] for k in ("generations", "evaluations", "stop_reason")},
            "objective": float(alpha.sum() - 0.5 * alpha @ g),
            "eq_violation": float(abs(alpha @ Y)),
            "intercept": float(b),
            "C": float(C),
            "kernel": self.kernel,
            "kernel_params": {k: float(v) for k, v in params.items()},
            "n_samples": int(len(Y)),
            "n_sv": int(np.sum(alpha > 0)),
            "n_free_sv": int(free.sum()),
            "n_bounded_sv": int(np.sum(alpha >= C - self._is_zero)),
            **{
                k: v
                for k, v in info.items()
                if k not in ("generations", "evaluations", "stop_reason", "history")
            },
        }

    @abstractmethod
    def _optimize(self, fitness: DualFitness, rng) -> tuple[np.ndarray, dict]:
        """Best ``alpha`` found, and ``{"generations", "evaluations", "stop_reason", "history",
        ...}``."""


# -- targets: binary labels and the semi-supervised y = -1 convention --------------------------

UNLABELED = -1  # scikit-learn's semi-supervised marker (LabelSpreading, SelfTrainingClassifier)


def _class_error(name: str, classes) -> ValueError:
    k = len(classes)
    shown = ", ".join(map(repr, list(classes)[:5]))
    return ValueError(
        f"Only binary classification is supported. {name} needs exactly 2 classes in y, "
        f"got {k} class{'es' if k != 1 else ''} ({shown}{', ...' if k > 5 else ''})"
    )


def binary_targets(y, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``classes_`` (2 labels, sorted) and ``Y`` in {-1, +1} (``classes_[1]`` is +1)."""
    classes, idx = np.unique(y, return_inverse=True)
    if len(classes) != 2:
        raise _class_error(name, classes)
    return classes, np.where(idx == 1, 1.0, -1.0)


def split_unlabeled(
    y, name: str, *, allow_no_labels: bool = False, allow_no_unlabeled: bool = False
):
    """Split semi-supervised targets: rows with ``y == -1`` are unlabeled.

    Returns ``(classes, labeled_mask, Y_labeled)`` with ``Y_labeled`` in {-1, +1}. The labeled
    rows must hold exactly two classes (other than -1); with ``allow_no_labels`` there may
    be none at all (clustering), and then ``classes`` is ``[0, 1]``.
    """
    y = np.asarray(y)
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise ValueError(f"{name}: y contains NaN or infinity; mark unlabeled rows with -1")
    unl = (
        np.asarray(y == UNLABELED, dtype=bool)
        if y.dtype.kind in "iufcbO"
        else np.zeros(len(y), dtype=bool)
    )
    if not unl.any() and not allow_no_unlabeled:
        raise ValueError(
            f"{name} is transductive: it needs unlabeled rows, marked y = -1 (scikit-learn's "
            f"semi-supervised convention), but every row of y is labeled"
        )
    lab = ~unl
    if not lab.any():
        if allow_no_labels:
            return np.array([0, 1]), lab, np.empty(0)
        raise ValueError(
            f"{name} needs labeled rows of both classes; every row of y is -1 (unlabeled)"
        )
    classes, Y = binary_targets(y[lab], name)
    return classes, lab, Y


@njit(cache=True, nogil=True)
def _coordinate_ascent(Q, ub, tol, max_sweeps):
    n = Q.shape[0]
    a = np.zeros(n)
    g = np.zeros(n)  # Q a
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):  # noqa: B007 (returned after the loop)
        moved = 0.0
        for i in range(n):
            qii = Q[i, i]
            if qii > 0.0:
                new = a[i] + (1.0 - g[i]) / qii
            else:  # flat or convex along this axis: the better end of the box
                up = ub[i] - a[i]
                down = -a[i]
                gain_up = up * (1.0 - g[i]) - 0.5 * qii * up * up
                gain_down = down * (1.0 - g[i]) - 0.5 * qii * down * down
                new = ub[i] if gain_up > gain_down else 0.0
            if new < 0.0:
                new = 0.0
            elif new > ub[i]:
                new = ub[i]
            d = new - a[i]
            if d != 0.0:
                for j in range(n):
                    g[j] += d * Q[i, j]
                a[i] = new
                if abs(d) > moved:
                    moved = abs(d)
        if moved <= tol:
            break
    return a, g, sweeps


def box_dual_ascent(Q: np.ndarray, ub: np.ndarray, tol: float = 1e-10, max_sweeps: int = 10_000):
    """Maximise ``1^T a - 1/2 a^T Q a`` over the box ``0 <= a <= ub`` by exact coordinate ascent.

    This is the b = 0 SVM dual (no equality constraint). For a positive semi-definite ``Q``
    the problem is concave and the ascent converges to the global maximum; for an indefinite
    one it stops at a coordinate-wise maximum. Returns ``(a, W, sweeps)``.
    """
    Q = np.ascontiguousarray(Q, dtype=np.float64)
    ub = np.ascontiguousarray(np.broadcast_to(np.asarray(ub, dtype=np.float64), (Q.shape[0],)))
    a, g, sweeps = _coordinate_ascent(Q, ub, float(tol), int(max_sweeps))
    return a, float(a.sum() - 0.5 * a @ g), int(sweeps)
