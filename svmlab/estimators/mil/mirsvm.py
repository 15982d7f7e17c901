"""MIRSVM: the Multi-Instance Representative SVM (Melki, Cano & Ventura 2018; dissertation Ch. 4).

Each bag is represented by exactly one of its instances. Starting from a random
representative per bag, MIRSVM alternates two steps until the representatives stop
changing:

1. solve the kernel SVM dual (Eq. 4.10) over the n representatives, labelled with their
   bags' labels, and compute the bias from its support vectors (Eq. 4.13);
2. re-select every bag's representative as its instance with the largest decision value
   under that hyperplane (Eq. 4.9): the most positive instance of a positive bag, the least
   negative instance of a negative bag.

A bag is predicted positive when its largest instance output is positive (the standard
multi-instance assumption, Eq. 4.12).

Readings of the source (each explained in docs/decisions/mil.md under the quoted heading);
the defaults follow the equations and prose, the literal pseudo-code is one switch away:

* "Box constraint": box ``[0, C]``; ``c_per_bag=True`` gives ``[0, C/n]`` (journal
  Eqs. 5-6).
* "Representative selection": argmax of ``f(x)`` in every bag; ``selection="max_margin"``
  takes the argmax of ``Y_I f(x)`` (Alg. 4.1 line 14; negative bags then pick their most
  negative instance).
* "Bias formula": Eq. 4.13 in kernel form; ``bias_form="gram"`` is Alg. 4.1 line 12,
  ``Y_sv - G_sv (alpha_sv * Y_sv)``.
* "Support vectors used for the bias": ``0 < alpha < C`` (all ``alpha > 0`` if none is
  free); ``bias_sv="all"`` uses ``0 < alpha <= C`` (journal; chapter figure text).
* "Convergence, cycles and the iteration cap": ``max_iter`` plus cycle detection (the paper
  has neither).

References
----------
G. Melki, A. Cano, S. Ventura. MIRSVM: Multi-instance support vector machine with bag
representatives. Pattern Recognition 79 (2018) 228-241. doi:10.1016/j.patcog.2018.02.007
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import row_norms

from svmlab.estimators.mil._bags import (
    MaxInstanceMixin,
    bag_argmax,
    bag_max,
    check_bag_labels,
    check_bags,
)
from svmlab.kernels import gamma_from_sigma, rbf, rbf_expansion
from svmlab.qp import DualSolution, solve_svm_dual

__all__ = ["MIRSVMClassifier"]


def _lowest_iterate(objectives: list[float], lowest: int) -> int:
    """1-based iteration of the lowest multi-instance objective so far (0: none yet). A new
    one must be lower by more than 1e-4 relative -- above the QP tolerance, so that the solvers
    agree on near-ties: the first of them is kept."""
    if lowest == 0 or objectives[-1] < objectives[lowest - 1] - 1e-4 * abs(objectives[lowest - 1]):
        return len(objectives)
    return lowest


def _refresh_kernel(K, X, S, changed, gamma, sq) -> None:
    """New rows / columns of the representatives' kernel ``K`` where a representative changed."""
    rows = rbf(X[S[changed]], X[S], gamma, X_sq=sq[S[changed]], Y_sq=sq[S])
    K[changed, :] = rows
    K[:, changed] = rows.T


@dataclass
class _Trace:
    """What the MIRSVM alternation records for ``fit_info_``."""

    kernel_seconds: float
    qp_iterations: int = 0
    qp_seconds: float = 0.0
    max_gap: float = 0.0
    mi_objective: list[float] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    stop: str = "max_iter"
    cycle_length: int = 0

    def add_qp(self, solution: DualSolution) -> None:
        self.qp_iterations += solution.n_iter
        self.qp_seconds += solution.seconds
        self.max_gap = max(self.max_gap, solution.gap)

    def fit_info(self, *, kept: int, solution: DualSolution, gamma: float, X, n: int) -> dict:
        """``fit_info_``, with ``kept`` the 1-based iteration of the returned model."""
        return {
            "iterations": len(self.unchanged),
            "converged": self.stop == "converged",
            "stop": self.stop,
            "cycle_length": int(self.cycle_length),
            "kept_iteration": int(kept),
            "objective": float(-solution.objective),
            "mi_objective": float(self.mi_objective[kept - 1]),
            "mi_objective_per_iter": self.mi_objective,
            "qp_iterations": int(self.qp_iterations),
            "qp_seconds": float(self.qp_seconds),
            "kernel_seconds": float(self.kernel_seconds),
            "max_kkt_gap": float(self.max_gap),
            "qp_solver": solution.method,
            "gamma": float(gamma),
            "n_bags": int(n),
            "n_instances": int(X.shape[0]),
            "unchanged_per_iter": [int(u) for u in self.unchanged],
        }


class MIRSVMClassifier(MaxInstanceMixin, ClassifierMixin, BaseEstimator):
    """Multi-Instance Representative SVM: one representative instance per bag.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the hinge loss; > 0. The paper searches {0.1, 1, 10, 100, 1e3, 1e4}.
    sigma : float, default=1.0
        Width of the Gaussian kernel ``K(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``
        (Eq. 4.11), as the paper parameterises it: ``gamma = 1 / (2 sigma^2)``. The paper
        searches {0.1, 0.5, 1, 2, 5, 10}.
    gamma : float or None, default=None
        The same kernel in the LIBSVM parameterisation ``exp(-gamma ||x - x'||^2)``. When
        set it is used and ``sigma`` is ignored.
    max_iter : int, default=100
        Cap on the number of representative updates (QPs solved). The paper iterates until
        the representatives stop changing, without a cap.
    tol : float, default=1e-5
        Optimality tolerance of each QP: the maximal KKT violation (see :mod:`svmlab.qp`).
    qp_solver : {"smo", "osqp", "libsvm"}, default="smo"
        QP solver: svmlab's SMO (:func:`svmlab.qp.solve_svm_dual`, numba), OSQP (a general
        QP solver like the paper's MATLAB ``quadprog``, polished and finished by SMO), or
        LIBSVM through ``sklearn.svm.SVC(kernel="precomputed")``. All solve the same dual
        to ``tol``; SMO and OSQP are warm-started across iterations.
    warm_start : bool, default=True
        Start each QP from the previous iteration's ``alpha`` (always feasible: the bag
        labels and ``C`` do not change). ``False`` solves every QP from scratch.
    selection : {"max_output", "max_margin"}, default="max_output"
        Representative rule. ``"max_output"``: argmax over the bag's instances of the
        decision value ``f(x)`` for every bag (Eqs. 4.3, 4.9 and the prose).
        ``"max_margin"``: argmax of ``Y_I f(x)``, the literal Alg. 4.1 line 14, which
        makes negative bags choose their most negative instance (docs/decisions/mil.md,
        "Representative selection").
    bias_sv : {"free", "all"}, default="free"
        Support vectors averaged in the bias: free ones ``0 < alpha < C`` (chapter
        Alg. 4.1; all ``alpha > 0`` when none is free) or all ``0 < alpha <= C`` (journal
        and the chapter's figure text) (docs/decisions/mil.md, "Support vectors used for the
        bias").
    bias_form : {"kernel", "gram"}, default="kernel"
        ``"kernel"``: Eq. 4.13, ``b = mean_{I in sv} (Y_I - sum_K alpha_K Y_K K(x_I, x_K))``
        with the sum over every support vector, so free SVs lie exactly on the margin.
        ``"gram"``: the literal Alg. 4.1 line 12, ``mean(Y_sv - G_sv (alpha_sv * Y_sv))``
        with ``G = (Y Y^T) * K`` and the sum restricted to the same SV set
        (docs/decisions/mil.md, "Bias formula").
    keep : {"best", "last"}, default="best"
        Which iterate is returned when the loop stops without converging (a cycle or
        ``max_iter``). ``"best"``: the one with the smallest multi-instance objective
        ``1/2 ||w||^2 + C sum_I max(0, 1 - Y_I max_{i in I} f(x_i))`` -- the SVM primal with
        every bag scored by its best instance, which is what the representatives stand
        for (an iterate must improve on the best so far by more than 1e-4 relative, so
        near-ties keep the earlier one); ``"last"``: the final iterate. At convergence
        both return the fixed point.
    patience : int or None, default=None
        Stop after this many consecutive iterations without a lower multi-instance
        objective (``stop="patience"``). ``None`` iterates until convergence, a cycle or
        ``max_iter``, as the paper does.
    c_per_bag : bool, default=False
        Use the box ``[0, C / n]`` of the journal's Eqs. 5-6 instead of ``[0, C]``
        (docs/decisions/mil.md, "Box constraint").
    random_state : int, RandomState instance or None, default=None
        Seeds the random initial representatives.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class (a bag with a positive instance).
    representatives_ : ndarray of shape (n_bags,)
        Index, within its bag, of each training bag's representative in the final model.
    support_ : ndarray of shape (n_SV,)
        Indices of the training bags whose representative is a support vector.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Those representatives.
    dual_coef_ : ndarray of shape (n_SV,)
        ``alpha_I * Y_I`` of the support vectors.
    intercept_ : float
        Bias ``b`` (Eq. 4.13).
    n_support_ : ndarray of shape (2,)
        Support vectors per class (negative, positive); at most one per bag.
    n_iter_ : int
        QPs solved (representative updates).
    unchanged_per_iter_ : ndarray of shape (n_iter_,)
        After each QP, how many bags kept their representative (the paper's Fig. 4.2);
        equal to the number of bags at convergence.
    fit_info_ : dict
        ``iterations``, ``converged``, ``stop`` ("converged", "cycle", "patience" or
        ``"max_iter"``), ``cycle_length``, ``kept_iteration`` (1-based iterate returned),
        ``objective`` (its dual objective, maximised form), ``mi_objective`` (its
        multi-instance primal objective, see ``keep``; one value per iteration in
        ``mi_objective_per_iter``),
        ``qp_iterations``, ``qp_seconds``, ``kernel_seconds``, ``max_kkt_gap``, ``gamma``,
        ``n_bags``, ``n_instances``, ``unchanged_per_iter``.

    Notes
    -----
    The representative set can revisit an earlier state; the loop then stops with
    ``stop="cycle"`` (docs/decisions/mil.md, "Convergence, cycles and the iteration cap") and
    keeps the iterate chosen by ``keep``. Hitting ``max_iter`` raises a
    ``ConvergenceWarning``. ``sign(0)`` is read as negative.
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "sigma": [Interval(Real, 0.0, None, closed="neither")],
        "gamma": [Interval(Real, 0.0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "qp_solver": [StrOptions({"smo", "osqp", "libsvm"})],
        "warm_start": ["boolean"],
        "selection": [StrOptions({"max_output", "max_margin"})],
        "bias_sv": [StrOptions({"free", "all"})],
        "bias_form": [StrOptions({"kernel", "gram"})],
        "keep": [StrOptions({"best", "last"})],
        "patience": [Interval(Integral, 1, None, closed="left"), None],
        "c_per_bag": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        C: float = 1.0,
        sigma: float = 1.0,
        gamma: float | None = None,
        max_iter: int = 100,
        tol: float = 1e-5,
        qp_solver: str = "smo",
        warm_start: bool = True,
        selection: str = "max_output",
        bias_sv: str = "free",
        bias_form: str = "kernel",
        keep: str = "best",
        patience: int | None = None,
        c_per_bag: bool = False,
        random_state=None,
    ):
        self.C = C
        self.sigma = sigma
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.qp_solver = qp_solver
        self.warm_start = warm_start
        self.selection = selection
        self.bias_sv = bias_sv
        self.bias_form = bias_form
        self.keep = keep
        self.patience = patience
        self.c_per_bag = c_per_bag
        self.random_state = random_state

    # -- fitting ---------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Fit MIRSVM (Alg. 4.1).

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
            Training bags.
        y : array-like of shape (n_bags,)
            Bag labels, exactly two classes; the larger (``classes_[1]``) is positive.

        Returns
        -------
        self : object
        """
        X, starts, sizes = check_bags(bags)
        n = len(sizes)
        self.classes_, y_idx = check_bag_labels(y, n, "MIRSVM")
        Y = np.where(y_idx == 1, 1.0, -1.0)
        self.n_features_in_ = X.shape[1]
        gamma = float(self.gamma) if self.gamma is not None else gamma_from_sigma(self.sigma)
        box = self.C / n if self.c_per_bag else float(self.C)
        sq = row_norms(X, squared=True)

        # random initial representative in every bag (Alg. 4.1 lines 1-3)
        rng = check_random_state(self.random_state)
        S = starts + np.minimum((rng.random_sample(n) * sizes).astype(np.intp), sizes - 1)

        t0 = time.perf_counter()
        K = rbf(X[S], X[S], gamma, X_sq=sq[S], Y_sq=sq[S])
        trace = _Trace(kernel_seconds=time.perf_counter() - t0)
        history = [S.tobytes()]  # the representative sets so far
        previous = None
        best = None  # (objective, iteration, S, alpha, sv, b, solution) of the kept iterate
        lowest = 0  # 1-based iteration of the lowest multi-instance objective so far
        for _ in range(self.max_iter):
            sol, sv, b, out, objective, seconds = self._iterate(
                K, Y, box, previous, X, S, starts, gamma
            )
            previous = sol
            trace.add_qp(sol)
            alpha = sol.alpha
            trace.mi_objective.append(objective)
            trace.kernel_seconds += seconds  # the outputs of every instance
            t0 = time.perf_counter()
            lowest = _lowest_iterate(trace.mi_objective, lowest)
            if self.keep == "last" or lowest == len(trace.mi_objective):
                best = (objective, len(trace.mi_objective), S.copy(), alpha, sv, b, sol)
            if self.selection == "max_margin":  # Alg. 4.1 line 14 taken literally
                out = out * np.repeat(Y, sizes)
            S_new = bag_argmax(out, starts, sizes)
            trace.kernel_seconds += time.perf_counter() - t0
            changed = np.flatnonzero(S_new != S)
            trace.unchanged.append(int(n - len(changed)))
            key = S_new.tobytes()
            if self._stops(trace, changed, lowest, key, history):
                break
            history.append(key)
            t0 = time.perf_counter()
            S = S_new
            _refresh_kernel(K, X, S, changed, gamma, sq)
            trace.kernel_seconds += time.perf_counter() - t0

        if trace.stop == "max_iter":
            warnings.warn(  # noqa: B028 (about this fit, not the caller's line)
                f"MIRSVM: the representatives still changed after max_iter={self.max_iter} "
                "iterations",
                ConvergenceWarning,
            )
        if trace.stop == "converged":  # the fixed point is returned whatever its objective
            best = (trace.mi_objective[-1], len(trace.mi_objective), S, alpha, sv, b, sol)
        self._store_model(X, starts, Y, gamma, best)
        self.n_iter_ = len(trace.unchanged)
        self.unchanged_per_iter_ = np.asarray(trace.unchanged, dtype=np.intp)
        self.fit_info_ = trace.fit_info(kept=best[1], solution=best[6], gamma=gamma, X=X, n=n)
        return self

    def _stops(self, trace: _Trace, changed, lowest: int, key: bytes, history: list) -> bool:
        """Whether the alternation ends after this iterate (``trace.stop`` says why): the
        representatives did not change, ``patience`` iterations without a lower objective, an
        earlier representative set is back (a cycle), or ``max_iter`` -- then the model stays
        consistent with the representatives it was fitted on."""
        if len(changed) == 0:
            trace.stop = "converged"
            return True
        if self.patience is not None and len(trace.mi_objective) - lowest >= self.patience:
            trace.stop = "patience"
            return True
        if key in history:
            trace.stop, trace.cycle_length = "cycle", len(history) - history.index(key)
            return True
        return len(trace.unchanged) == self.max_iter

    def _iterate(self, K, Y, box, previous, X, S, starts, gamma):
        """One pass of Alg. 4.1 over the representatives ``S``: the QP and its bias, the outputs
        of every training instance (Eqs. 4.9 / 4.12) and the iterate's multi-instance primal
        objective ``1/2 ||w||^2 + C sum_I hinge(Y_I max f)``.

        Returns ``(solution, sv, b, outputs, objective, seconds of the outputs)``.
        """
        sol = self._solve_qp(K, Y, box, previous if self.warm_start else None)
        alpha = sol.alpha
        sv = alpha > 1e-8 * box
        b = self._bias(K, Y, alpha, sv, box)
        t0 = time.perf_counter()
        out = rbf_expansion(X, X[S[sv]], (alpha * Y)[sv], b, gamma)
        v = (alpha * Y)[sv]
        hinge = np.maximum(0.0, 1.0 - Y * bag_max(out, starts))
        objective = float(0.5 * v @ K[np.ix_(sv, sv)] @ v + box * hinge.sum())
        return sol, sv, b, out, objective, time.perf_counter() - t0

    def _store_model(self, X, starts, Y, gamma, kept) -> None:
        """The fitted attributes from the kept iterate ``(objective, iteration, S, alpha, sv, b,
        solution)``."""
        _, _, S, alpha, sv, b, _ = kept
        self._gamma = gamma
        self.representatives_ = (S - starts).astype(np.intp)
        self.support_ = np.flatnonzero(sv)
        self.support_vectors_ = X[S[sv]]
        self.dual_coef_ = (alpha * Y)[sv]
        self.intercept_ = float(b)
        self.n_support_ = np.array([np.sum(sv & (Y < 0)), np.sum(sv & (Y > 0))], dtype=np.int32)

    def _solve_qp(self, K, Y, box, previous: DualSolution | None) -> DualSolution:
        """The kernelised dual over the representatives (Eq. 4.10)."""
        if self.qp_solver != "libsvm":
            return solve_svm_dual(
                K, Y, box, warm_start=previous, tol=self.tol, method=self.qp_solver
            )
        from sklearn.svm import SVC

        t0 = time.perf_counter()
        svc = SVC(kernel="precomputed", C=box, tol=self.tol, shrinking=True).fit(K, Y)
        alpha = np.zeros(len(Y))
        alpha[svc.support_] = np.abs(svc.dual_coef_[0])
        np.minimum(alpha, box, out=alpha)
        v = alpha * Y
        obj = float(0.5 * v @ (K @ v) - alpha.sum())
        return DualSolution(
            alpha,
            float(svc.intercept_[0]),
            obj,
            0.0,
            int(svc.n_iter_[0]),
            True,
            "libsvm",
            time.perf_counter() - t0,
        )

    def _bias(self, K, Y, alpha, sv, box) -> float:
        """Eq. 4.13 (or Alg. 4.1 line 12 with ``bias_form="gram"``)."""
        use = sv
        if self.bias_sv == "free":
            free = sv & (alpha < box - 1e-8 * box)
            if free.any():
                use = free
        if not use.any():
            return 0.0
        if self.bias_form == "kernel":
            f = K[np.ix_(use, sv)] @ (alpha * Y)[sv]
        else:  # G_sv (alpha_sv * Y_sv) = Y_sv * (K_sv alpha_sv), over the bias set only
            f = Y[use] * (K[np.ix_(use, use)] @ alpha[use])
        return float(np.mean(Y[use] - f))

    def _instance_scores(self, X):
        """``f(x) = sum_I alpha_I Y_I K(x_{s_I}, x) + b`` (Eq. 4.12) of stacked instances."""
        return rbf_expansion(
            X, self.support_vectors_, self.dual_coef_, self.intercept_, self._gamma
        )
