"""MO-T-SVM (Mierswa 2009, §5.4): the multi-objective transductive SVM, NSGA-II over the
transductive dual (I), the labeled dual sum (II) and the unlabeled dual sum (III).

The data convention (unlabeled rows have ``y = -1``), the genome ``(alpha, alpha*, y*)`` and
the ``y_mode`` readings are described in :mod:`svmlab.estimators.evo._transductive`.
"""

from __future__ import annotations

import copy
import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.estimators.evo._fitness import posthoc_bias
from svmlab.estimators.evo._operators import (
    sparse_mutation_draws,
)
from svmlab.estimators.evo._transductive import (
    TRANSDUCTIVE_CONSTRAINTS,
    TransductiveBase,
    TransductiveCore,
    prepare_rows,
)
from svmlab.nsga2 import final_front, run_nsga2

__all__ = ["MOTSVMClassifier"]


class _TransductiveProblem:
    """MO-T-SVM for the NSGA-II engines.

    Objectives (I), (II) ``sum alpha`` and (III) ``sum alpha*``."""

    def __init__(self, core: TransductiveCore, init: str):
        self.core = core
        self.init = init
        self.derives_genes = core.y_mode == "self_label"
        self.n_var = core.L
        self.n_obj = 3
        self.lower = np.concatenate([np.zeros(core.N), -np.ones(core.n_u)])
        self.upper = np.concatenate([core.ub, np.ones(core.n_u)])

    def initial(self, P, rng):
        return self.core.initial(P, rng, self.init)

    def evaluate(self, A, derive=True):
        c = self.core
        quad = c.quad(A, derive)
        a = A[:, : c.N]
        F = np.column_stack(
            [a.sum(axis=1) - 0.5 * quad, a[:, : c.n].sum(axis=1), a[:, c.n :].sum(axis=1)]
        )
        return F, np.empty((len(A), 0))

    def derive(self, children, base, A, aux):
        return self.evaluate(children)

    def mutate_genes(self, A, rng):
        """Hybrid mutation of ``a`` and bit flips of ``y*`` (literal mode), each gene with
        probability ``1/(n + 2n*)``."""
        c = self.core
        rows, genes, u = sparse_mutation_draws(A.shape[0], c.L, rng)
        dual = genes < c.N
        r, g = rows[dual], genes[dual]
        old = A[r, g]
        A[r, g] = np.where(old > 0, 0.0, u[dual] * c.ub[g])
        if c.y_mode == "literal":
            A[rows[~dual], genes[~dual]] *= -1.0
        return A

    def mutate(self, A, aux, rng):
        M = self.mutate_genes(A.copy(), rng)
        changed = (M != A).any(axis=1)
        M = M[changed]
        F, aux_m = self.evaluate(M)
        return M, F, aux_m


class MOTSVMClassifier(TransductiveBase):
    """MO-T-SVM: the multi-objective transductive SVM (thesis §5.4, Corollary 5.2).

    The genome is that of :class:`EvoTSVMClassifier`, ``(alpha, alpha*, y*)`` with both
    duals in ``[0, alpha_max]``; NSGA-II maximises

    * (I) the transductive SVM dual ``sum a - 1/2 sum_ij a_i a_j Y_i Y_j K_ij`` over labeled
      and unlabeled rows (with the ``sum`` and ``1/2`` terms, unlike MO-EvoSVM's (I)),
    * (II) ``sum_i alpha_i`` -- the training error, and
    * (III) ``sum_k alpha*_k`` -- the error on the unlabeled ("test") rows,

    without equality constraint or balance objective. Initial duals 0, hybrid mutation of
    the duals and bit flips of ``y*`` (each gene with probability ``1/(n + 2n*)``), uniform
    crossover (docs/decisions/evo.md, "Transductive SVMs: unstated settings"). Without
    labeled rows (every ``y = -1``) it is a clustering method (Mierswa (2009), Sec. 5.4.2):
    ``classes_`` is then ``[0, 1]`` (cluster ids) -- see
    :func:`pareto_clustering`.

    Parameters
    ----------
    kernel : str, default="rbf"
    gamma, degree, kappa, delta, sigma1, sigma2, sigma3, shift : float or None, default=None
        The kernel and its parameters (see :class:`EvoTSVMClassifier`).
    alpha_max : float, default=1000.0
        Box of every dual (as MO-EvoSVM; not stated in the thesis).
    y_mode : {"self_label", "literal"}, default="self_label"
        See :mod:`~svmlab.estimators.evo._transductive`; ``"minmax"`` has no multi-objective
        counterpart.
    population_size : int, default=100
        Population size (thesis: 30 for 4-Clusters, 150 for 3-Clusters, 200 for 2-Moons).
    max_generations : int, default=1000
        Generations (as MO-EvoSVM; not stated in the thesis).
    crossover_rate : float, default=0.9
    init : {"zeros", "uniform"}, default="zeros"
    engine : {"rm", "pymoo"}, default="rm"
    crowding : {"raw", "normalized"}, default="raw"
        As in :class:`MOEvoSVMClassifier`.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    pareto_front_ : ndarray of shape (n_members, 3)
        (I), (II), (III) of the distinct rank-1 members (maximised), ordered by (I)
        descending.
    pareto_alpha_ : ndarray of shape (n_members, n_samples)
        Duals in training-row order.
    pareto_unlabeled_labels_ : ndarray of shape (n_members, n_unlabeled)
        Each member's ``y*`` in {-1, +1} (+1 is ``classes_[1]``).
    pareto_intercept_ : ndarray of shape (n_members,)
    pareto_train_error_ : ndarray of shape (n_members,)
        0/1 error of each member on the labeled rows (0 without labeled rows).
    selected_ : int
        The member used by ``predict``: of the members with the fewest labeled errors, the
        one with the largest (I) -- fit the labels, then maximise the margin. The thesis
        names no rule for MO-T-SVM; :meth:`member` gives any other.
    unlabeled_indices_, unlabeled_labels_, transduction_, alpha_, support_, support_vectors_,
    dual_coef_, intercept_, n_support_
        As in :class:`EvoTSVMClassifier`, for the selected member.
    fit_info_ : dict
        ``y_mode``, ``engine``, ``generations``, ``evaluations``, ``front_size``,
        ``objective_names``, ``n_labeled``, ``n_unlabeled``, ``alpha_max``, ``kernel``,
        ``kernel_params``, ``seconds`` and ``front`` (one dict per member: ``obj_I``,
        ``obj_II``, ``obj_III``, ``n_unlabeled_positive``).
    """

    _parameter_constraints: dict = {
        **TRANSDUCTIVE_CONSTRAINTS,
        "alpha_max": [Interval(Real, 0.0, None, closed="neither")],
        "y_mode": [StrOptions({"self_label", "literal"})],
        "max_generations": [Interval(Integral, 0, None, closed="left")],
        "engine": [StrOptions({"rm", "pymoo"})],
        "crowding": [StrOptions({"raw", "normalized"})],
    }

    def __init__(
        self,
        kernel="rbf",
        gamma=None,
        degree=None,
        kappa=None,
        delta=None,
        sigma1=None,
        sigma2=None,
        sigma3=None,
        shift=None,
        alpha_max=1000.0,
        y_mode="self_label",
        population_size=100,
        max_generations=1000,
        crossover_rate=0.9,
        init="zeros",
        engine="rm",
        crowding="raw",
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.kappa = kappa
        self.delta = delta
        self.sigma1 = sigma1
        self.sigma2 = sigma2
        self.sigma3 = sigma3
        self.shift = shift
        self.alpha_max = alpha_max
        self.y_mode = y_mode
        self.population_size = population_size
        self.max_generations = max_generations
        self.crossover_rate = crossover_rate
        self.init = init
        self.engine = engine
        self.crowding = crowding
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Run NSGA-II over labeled and unlabeled rows (``y = -1``) together.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two class labels (other than -1) on the labeled rows, -1 on the unlabeled
            rows. At least one unlabeled row; no labeled row at all means clustering.

        Returns
        -------
        self : object
        """
        t_start = time.perf_counter()
        X, classes, lab, Y, order, Xo, K, params, kernel_seconds = prepare_rows(
            self, X, y, allow_no_labels=True
        )
        self.classes_ = classes
        n, n_u = len(Y), int((~lab).sum())
        U = float(self.alpha_max)
        core = TransductiveCore(K, Y, n_u, np.full(n + n_u, U), self.y_mode)
        problem = _TransductiveProblem(core, self.init)
        rng = check_random_state(self.random_state)
        t0 = time.perf_counter()
        with threadpool_limits(limits=1, user_api="blas"):
            A, evaluations = run_nsga2(
                problem,
                population_size=int(self.population_size),
                max_generations=int(self.max_generations),
                crossover_rate=float(self.crossover_rate),
                engine=self.engine,
                crowding=self.crowding,
                rng=rng,
            )
            A, F = final_front(problem, A)
        optimize_seconds = time.perf_counter() - t0
        rank = np.lexsort((np.arange(len(F)), -F[:, 0]))
        A, F = A[rank], F[rank]
        b, lab_err = self._score_members(core, A)
        alpha = np.empty((len(A), len(order)))
        alpha[:, order] = A[:, : core.N]
        self.pareto_front_ = F
        self.pareto_alpha_ = alpha
        self.pareto_unlabeled_labels_ = A[:, core.N :].astype(np.int8)
        self.pareto_intercept_ = b
        self.pareto_train_error_ = lab_err
        self.selected_ = int(np.argmin(lab_err))  # first minimum = largest (I) among them
        self._order, self._Xo, self._K_Y = order, Xo, Y
        self._n_lab = n
        self._kernel_kwargs = params
        self.unlabeled_indices_ = order[n:]
        self._y_train = np.asarray(y)
        self._lab = lab
        self._X_u = X[self.unlabeled_indices_]
        self._set_member(self.selected_)
        self.fit_info_ = {
            "y_mode": self.y_mode,
            "engine": self.engine,
            "generations": int(self.max_generations),
            "evaluations": int(evaluations),
            "front_size": int(len(A)),
            "objective_names": ["margin", "labeled_alpha_sum", "unlabeled_alpha_sum"],
            "n_labeled": int(n),
            "n_unlabeled": int(n_u),
            "alpha_max": U,
            "kernel": self.kernel,
            "kernel_params": {k: float(v) for k, v in params.items()},
            "kernel_seconds": float(kernel_seconds),
            "optimize_seconds": float(optimize_seconds),
            "seconds": float(time.perf_counter() - t_start),
            "front": self._front_info(),
        }
        return self

    def _front_info(self) -> list[dict]:
        """One ``fit_info_["front"]`` entry per Pareto member."""
        return [
            {
                "obj_I": float(f[0]),
                "obj_II": float(f[1]),
                "obj_III": float(f[2]),
                "n_unlabeled_positive": int(np.sum(s > 0)),
            }
            for f, s in zip(self.pareto_front_, self.pareto_unlabeled_labels_)
        ]

    def _score_members(self, core: TransductiveCore, A):
        """Every member's post-hoc bias (over all rows, under its own labels ``y*``) and its 0/1
        error on the labeled rows (zeros without labeled rows)."""
        Yj_all = core.joint_labels(A)
        V = A[:, : core.N] * Yj_all
        S = V @ core.K  # S[p, i] = sum_j a_pj Y_pj K(x_j, x_i)
        b = np.array(
            [
                posthoc_bias(S[p], Yj_all[p], A[p, : core.N], core.ub, self._is_zero)
                for p in range(len(A))
            ]
        )
        # the chosen member (selected_): fewest labeled errors, then the largest (I)
        n = core.n
        lab_err = (
            np.mean(np.where(S[:, :n] + b[:, None] >= 0, 1.0, -1.0) != core.y_lab, axis=1)
            if n
            else np.zeros(len(A))
        )
        return b, lab_err

    def _set_member(self, i):
        order, n = self._order, self._n_lab
        a = self.pareto_alpha_[i][order]
        ys = self.pareto_unlabeled_labels_[i].astype(np.float64)
        Yj = np.concatenate([self._K_Y, ys])
        self._store_model(order, self._Xo, a, Yj, self.pareto_intercept_[i], n, len(order))
        self.alpha_ = self.pareto_alpha_[i]
        self.unlabeled_labels_ = self.classes_[(ys > 0).astype(np.intp)]
        lab = self._lab
        self.transduction_ = np.empty(len(lab), dtype=self.classes_.dtype)
        self.transduction_[lab] = self._y_train[lab]
        self.transduction_[self.unlabeled_indices_] = self.predict(self._X_u)

    def member(self, i: int) -> MOTSVMClassifier:
        """A fitted copy whose model is Pareto member ``i``."""
        check_is_fitted(self)
        m = len(self.pareto_front_)
        if not isinstance(i, (Integral, np.integer)) or not -m <= i < m:
            raise IndexError(f"member must be an integer in [-{m}, {m}), got {i!r}")
        clone = copy.copy(self)
        clone.selected_ = int(i) % m
        clone._set_member(clone.selected_)
        return clone
