"""Multi-objective EvoSVM (Mierswa 2009, §3.2): margin and training error as separate
objectives, optimised by NSGA-II; one model is chosen from the Pareto set on a hold-out
set. Readings: docs/decisions/evo.md ("MO-EvoSVM: ...")."""

from __future__ import annotations

import copy
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.estimators._kernel_params import KERNEL_CONSTRAINTS, KernelParamsMixin
from svmlab.estimators.evo._base import binary_targets
from svmlab.estimators.evo._fitness import DualFitness, posthoc_bias
from svmlab.estimators.evo._operators import sparse_mutation_draws
from svmlab.kernels import kernel_expansion, kernel_matrix
from svmlab.nsga2 import final_front, run_nsga2

__all__ = ["MOEvoSVMClassifier", "mo_objectives"]

OBJECTIVE_NAMES = ("margin", "alpha_sum", "balance")


def mo_objectives(K, y, A, balance: bool = True) -> np.ndarray:
    """The objectives of MO-EvoSVM (Corollary 3.1), all maximised, for every row of ``A``.

    (I) ``-sum_ij y_i y_j a_i a_j K_ij`` (margin; no 1/2, no ``sum a``), (II) ``sum_i a_i``
    (training error), and with ``balance`` (III) ``-|sum_i a_i y_i|`` (replaces the equality
    constraint). Returns an array of shape ``(P, 2 or 3)``.
    """
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    V = A * np.asarray(y, dtype=np.float64)
    cols = [-np.einsum("ij,ij->i", V, V @ np.asarray(K, dtype=np.float64)), A.sum(axis=1)]
    if balance:
        cols.append(-np.abs(V.sum(axis=1)))
    return np.column_stack(cols)


class _InductiveProblem:
    """Genome ``alpha`` in ``[0, U]^n``; objectives (I), (II) and optionally (III).

    Every individual carries ``Q alpha`` (its ``aux``): crossover children and hybrid
    mutants are evaluated incrementally from their parents (``DualFitness``).
    """

    derives_genes = False

    def __init__(self, fitness: DualFitness, y: np.ndarray, balance: bool, init: str):
        self.fitness = fitness
        self.y = y
        self.balance = balance
        self.init = init
        self.n_var = fitness.n
        self.n_obj = 3 if balance else 2
        self.lower = np.zeros(self.n_var)
        self.upper = np.full(self.n_var, fitness.C)

    def initial(self, P, rng):
        if self.init == "zeros":
            return np.zeros((P, self.n_var))
        return rng.random_sample((P, self.n_var)) * self.fitness.C

    def _objectives(self, A, G):
        cols = [-np.einsum("ij,ij->i", A, G), A.sum(axis=1)]
        if self.balance:
            cols.append(-np.abs(A @ self.y))
        return np.column_stack(cols)

    def evaluate(self, A, derive=True):
        G = A @ self.fitness.Q
        return self._objectives(A, G), G

    def derive(self, children, base, A, aux):
        _, G = self.fitness.evaluate_derived(children, base, aux, A)
        return self._objectives(children, G), G

    def mutate(self, A, aux, rng):
        rows, genes, u = sparse_mutation_draws(A.shape[0], self.n_var, rng)
        parents = np.unique(rows)
        M, G = A[parents], aux[parents]  # copies (fancy indexing)
        changed = self.fitness.mutate_sparse(
            M, G, np.zeros(len(parents)), np.searchsorted(parents, rows), genes, u, hybrid=True
        )
        M, G = M[changed], G[changed]
        return M, self._objectives(M, G), G

    def mutate_genes(self, A, rng):
        rows, genes, u = sparse_mutation_draws(A.shape[0], self.n_var, rng)
        old = A[rows, genes]
        A[rows, genes] = np.where(old > 0, 0.0, u * self.fitness.C)  # hybrid mutation, Fig. 3.1
        return A


class MOEvoSVMClassifier(KernelParamsMixin, ClassifierMixin, BaseEstimator):
    """Multi-objective EvoSVM: the Pareto set between margin and training error (NSGA-II).

    The regularised risk is split into its two parts (thesis §3.2, Corollary 3.1). Every
    individual is a dual vector ``alpha`` in the box ``[0, alpha_max]^n``, and NSGA-II
    maximises at once

    * (I) ``-sum_ij alpha_i alpha_j y_i y_j K_ij`` -- the margin,
    * (II) ``sum_i alpha_i`` -- the training error, and
    * (III, ``use_balance_objective``) ``-|sum_i alpha_i y_i|`` -- in place of the equality
      constraint.

    Each member of the final Pareto set is a classifier: its bias is set afterwards by
    mySVM's rule (as for EvoSVM, with ``alpha_max`` as the box bound). Before the run a
    random ``holdout_size`` share of the training data is held out; the final model is the
    Pareto member with the smallest hold-out error, of equal ones the member with the larger
    training error (thesis §3.2.6 option b; docs/decisions/evo.md, "MO-EvoSVM: choosing one
    model from the front"). Every member stays available
    (:attr:`pareto_front_`, :meth:`member`, ``decision_function(X, member=i)``).

    Parameters
    ----------
    kernel : str, default="rbf"
        A kernel of :mod:`svmlab.kernels` ("linear", "polynomial", "rbf", "sigmoid",
        "epanechnikov", "gaussian_combination", "multiquadric").
    gamma, degree, kappa, delta, sigma1, sigma2, sigma3, shift : float or None, default=None
        Parameters of the chosen kernel (``None``: its default). ``rbf`` is
        ``exp(-gamma ||x - y||^2)``: Table 3.5's "sigma" values are these ``gamma``
        (docs/decisions/evo.md, "RBF 'sigma' in the tables is gamma").
    alpha_max : float, default=1000.0
        Upper bound of every gene. The theory has none, but without it the front is one ray
        (both objectives are homogeneous in ``alpha``); RapidMiner uses 1000
        (docs/decisions/evo.md, "MO-EvoSVM: gene box and objectives").
    use_balance_objective : bool, default=True
        Add objective (III) (RapidMiner always does; the thesis calls it optional).
    population_size : int, default=100
        Population size ``mu`` (>= 2; thesis: 100).
    max_generations : int, default=1000
        Number of generations (thesis: 1000, no early stop).
    crossover_rate : float, default=0.9
        Crossover probability of a pair (uniform crossover: every gene swapped with
        probability 1/2).
    init : {"zeros", "uniform"}, default="zeros"
        Initial genes: all 0 ("to further support sparsity", thesis) or uniform in
        ``[0, alpha_max]``. Mutation is always the hybrid one (Fig. 3.1): each gene with
        probability ``1/n``, a non-zero gene becomes 0 and a zero gene uniform in
        ``[0, alpha_max]``.
    engine : {"rm", "pymoo"}, default="rm"
        ``"rm"``: the generation scheme of the thesis's runs (RapidMiner): random pairing,
        crossover children and mutants kept as separate individuals, plus-selection by
        non-dominated sorting and crowding distance over parents, children and mutants.
        ``"pymoo"``: :class:`pymoo.algorithms.moo.nsga2.NSGA2` (Deb's original algorithm)
        with the thesis's initialisation, crossover and mutation plugged in; it selects
        parents by binary tournaments (domination, then crowding distance) and makes
        ``population_size`` offspring per generation, each crossed and mutated, and normalises the
        crowding distance (see :mod:`svmlab.nsga2`). On Sonar both give
        fronts of the same range and similar hold-out choices; "rm" evaluates twice as many
        individuals per generation and is still 2-3 times faster (incremental evaluation).
    crowding : {"raw", "normalized"}, default="raw"
        Crowding distance of the ``"rm"`` engine: RapidMiner's sum of unnormalised neighbour
        gaps, or Deb's normalised one (pymoo always normalises).
    selection : {"holdout", "max_dual"}, default="holdout"
        How the final model is chosen. ``"holdout"``: smallest hold-out error (thesis option
        b). ``"max_dual"``: the member with the largest SVM dual ``(II) + (I)/2`` (option a,
        "often not the desired one"); then no data are held out.
    holdout_size : float, default=0.2
        Share of the training rows held out for ``selection="holdout"`` (thesis: 20 %),
        in (0, 1); at least one row, and the rest must hold both classes.
    holdout_seed : int or None, default=None
        Seed of the random hold-out split (RapidMiner: a fixed seed); ``None`` draws it from
        ``random_state``.
    random_state : int, RandomState instance or None, default=None
        Seeds the whole run (split and evolution): the same seed gives the same model.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the +1 side.
    pareto_front_ : ndarray of shape (n_members, n_objectives)
        Objective values (I), (II)[, (III)] of the distinct rank-1 members of the final
        population (maximised; recomputed from scratch), **ordered by training error,
        largest first** (ties: smaller ``sum alpha`` first) -- the thesis's plotting order,
        from the large-margin end to the zero-training-error end.
    pareto_alpha_ : ndarray of shape (n_members, n_fit)
        Each member's ``alpha`` over the fitting rows (``fit_indices_``).
    pareto_intercept_ : ndarray of shape (n_members,)
        Each member's post-hoc bias.
    pareto_train_error_ : ndarray of shape (n_members,)
        0/1 error of each member on the fitting rows.
    pareto_holdout_error_ : ndarray of shape (n_members,) or None
        0/1 error on the hold-out rows (``None`` with ``selection="max_dual"``).
    selected_ : int
        Index of the chosen member (its row in the arrays above).
    fit_indices_, holdout_indices_ : ndarray of int
        Rows of the training ``X`` used for fitting and held out.
    alpha_, support_, support_vectors_, dual_coef_, intercept_, n_support_
        The chosen member as a kernel SVM (``support_`` indexes the training ``X``).
    C_ : float
        ``alpha_max``, the box bound used by the bias rule.
    fit_info_ : dict
        JSON-serialisable: ``engine``, ``generations``, ``evaluations``, ``front_size``,
        ``selected``, ``selection``, ``objective_names``, ``objectives`` (the chosen
        member's), ``train_error``, ``holdout_error``, ``n_fit``, ``n_holdout``,
        ``n_sv``, ``eq_violation``, ``intercept``, ``alpha_max``, ``kernel``,
        ``kernel_params``, ``kernel_seconds``, ``optimize_seconds``, ``seconds`` and
        ``front``: one dict per member (``counter``, ``obj_I``, ``obj_II`` [, ``obj_III``],
        ``train_err``, ``holdout_err``, ``n_sv``, ``selected``), in the order above.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    EvoSVMClassifier : the single-objective EvoSVM with a fixed ``C``.

    Notes
    -----
    **Why the box matters.** (I) scales with ``s^2`` and (II) with ``s`` when ``alpha`` is
    scaled by ``s``, so without an upper bound every Pareto-optimal vector is a multiple of
    one direction. The box bends the front: it then holds rescaled C-SVM solutions for a
    range of ``C``, and the models differ because the bias is computed with the functional
    margin fixed at 1 -- from the default classifier (tiny ``alpha``: the bias decides) to
    memorisation.

    **Speed.** The kernel matrix of the fitting rows is computed once; a population is
    evaluated with one matrix product (``G = A Q``), and with ``engine="rm"`` crossover
    children and hybrid mutants (about one changed gene) are updated from their parents'
    ``Q alpha`` in ``O(n)`` per changed gene. The loop runs with one BLAS thread.

    References
    ----------
    I. Mierswa, *Non-Convex and Multi-Objective Optimization in Data Mining*, PhD thesis,
    TU Dortmund, 2009, §3.2. K. Deb, A. Pratap, S. Agarwal, T. Meyarivan, A fast and elitist
    multiobjective genetic algorithm: NSGA-II, IEEE TEC 6(2), 2002.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from svmlab.estimators.evo import MOEvoSVMClassifier
    >>> X, y = make_blobs(80, centers=2, random_state=0)
    >>> clf = MOEvoSVMClassifier(gamma=0.5, population_size=20, max_generations=100,
    ...                          random_state=0).fit(X, y)
    >>> clf.pareto_front_.shape[1]
    3
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **KERNEL_CONSTRAINTS,
        "alpha_max": [Interval(Real, 0.0, None, closed="neither")],
        "use_balance_objective": ["boolean"],
        "population_size": [Interval(Integral, 2, None, closed="left")],
        "max_generations": [Interval(Integral, 0, None, closed="left")],
        "crossover_rate": [Interval(Real, 0.0, 1.0, closed="both")],
        "init": [StrOptions({"zeros", "uniform"})],
        "engine": [StrOptions({"rm", "pymoo"})],
        "crowding": [StrOptions({"raw", "normalized"})],
        "selection": [StrOptions({"holdout", "max_dual"})],
        "holdout_size": [Interval(Real, 0.0, 1.0, closed="neither")],
        "holdout_seed": [Interval(Integral, 0, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    _is_zero = 1e-8

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
        use_balance_objective=True,
        population_size=100,
        max_generations=1000,
        crossover_rate=0.9,
        init="zeros",
        engine="rm",
        crowding="raw",
        selection="holdout",
        holdout_size=0.2,
        holdout_seed=None,
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
        self.use_balance_objective = use_balance_objective
        self.population_size = population_size
        self.max_generations = max_generations
        self.crossover_rate = crossover_rate
        self.init = init
        self.engine = engine
        self.crowding = crowding
        self.selection = selection
        self.holdout_size = holdout_size
        self.holdout_seed = holdout_seed
        self.random_state = random_state

    # -- fitting -----------------------------------------------------------------------------

    def _split(self, Y, rng):
        n = len(Y)
        if self.selection != "holdout":
            return np.arange(n), np.empty(0, dtype=np.intp)
        seed = self.holdout_seed if self.holdout_seed is not None else rng.randint(2**31 - 1)
        perm = np.random.RandomState(seed).permutation(n)
        n_hold = int(round(self.holdout_size * n))
        n_hold = min(max(n_hold, 1), n - 2)
        hold, fit = np.sort(perm[:n_hold]), np.sort(perm[n_hold:])
        if n_hold < 1 or len(np.unique(Y[fit])) < 2:
            raise ValueError(
                f"the random {self.holdout_size:g} hold-out split of {n} rows leaves fewer than "
                f"two classes to fit on; give more data, a smaller holdout_size, another "
                f"holdout_seed, or selection='max_dual'"
            )
        return fit, hold

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Hold out part of the data, run NSGA-II on the rest, choose a Pareto member.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, used as it is (no preprocessing, as in the thesis).
        y : array-like of shape (n_samples,)
            Exactly two classes; ``classes_[1]`` is the +1 side.

        Returns
        -------
        self : object
        """
        t_start = time.perf_counter()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.classes_, Y = binary_targets(y, type(self).__name__)
        params = self._kernel_params()
        rng = check_random_state(self.random_state)
        fit_idx, hold_idx = self._split(Y, rng)
        Xf, Yf = X[fit_idx], Y[fit_idx]
        U = float(self.alpha_max)

        t0 = time.perf_counter()
        K = kernel_matrix(self.kernel, Xf, None, **params)
        if not np.isfinite(K).all():
            raise ValueError(f"the {self.kernel} kernel matrix has non-finite values with {params}")
        fitness = DualFitness.from_kernel(K, Yf, U)  # K becomes Q in place
        kernel_seconds = time.perf_counter() - t0

        problem = _InductiveProblem(fitness, Yf, bool(self.use_balance_objective), self.init)
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

        b, train_err, hold_err, order, chosen = self._score_members(
            A, F, fitness.Q, X, Y, fit_idx, hold_idx, params
        )
        self.pareto_front_ = F[order]
        self.pareto_alpha_ = A[order]
        self.pareto_intercept_ = b[order]
        self.pareto_train_error_ = train_err[order]
        self.pareto_holdout_error_ = hold_err[order] if hold_err is not None else None
        self.selected_ = int(np.flatnonzero(order == chosen)[0])
        self.fit_indices_ = fit_idx
        self.holdout_indices_ = hold_idx
        self._Y_fit = Yf
        self._X_fit = Xf
        self._kernel_kwargs = params
        self.C_ = U
        self._set_member(self.selected_)
        self.fit_info_ = {
            **self._run_info(evaluations, F.shape[1], params),
            "kernel_seconds": float(kernel_seconds),
            "optimize_seconds": float(optimize_seconds),
            "seconds": float(time.perf_counter() - t_start),
            "front": self._front_info(F.shape[1]),
        }
        return self

    def _score_members(self, A, F, Q, X, Y, fit_idx, hold_idx, params):
        """Every Pareto member as a classifier: its post-hoc bias, training and hold-out errors,
        the members' order and the chosen one (hold-out rule, or the largest dual)."""
        Yf, U = Y[fit_idx], float(self.alpha_max)
        S = (A @ Q) * Yf  # S[p, i] = sum_j alpha_pj y_j K(x_j, x_i)
        b = np.array([posthoc_bias(S[p], Yf, A[p], U, self._is_zero) for p in range(len(A))])
        train_err = np.mean(np.where(S + b[:, None] >= 0, 1.0, -1.0) != Yf, axis=1)
        if len(hold_idx):
            K_hold = kernel_matrix(self.kernel, X[hold_idx], X[fit_idx], **params)
            Dh = (A * Yf) @ K_hold.T + b[:, None]
            hold_err = np.mean(np.where(Dh >= 0, 1.0, -1.0) != Y[hold_idx], axis=1)
            order, chosen = holdout_choice(train_err, hold_err, F[:, 1])
        else:
            hold_err = None
            order, _ = holdout_choice(train_err, np.zeros(len(A)), F[:, 1])
            dual = F[:, 1] + 0.5 * F[:, 0]  # sum(alpha) - 1/2 alpha^T Q alpha
            chosen = int(order[np.argmax(dual[order])])
        return b, train_err, hold_err, order, chosen

    def _run_info(self, evaluations, n_obj, params) -> dict:
        """The ``fit_info_`` entries of the run and the selected member (no timings, no front)."""
        a = self.pareto_alpha_[self.selected_]
        holdout = self.pareto_holdout_error_
        return {
            "engine": self.engine,
            "crowding": self.crowding if self.engine == "rm" else "normalized",
            "generations": int(self.max_generations),
            "evaluations": int(evaluations),
            "front_size": int(len(self.pareto_alpha_)),
            "selected": self.selected_,
            "selection": self.selection,
            "objective_names": list(OBJECTIVE_NAMES[:n_obj]),
            "objectives": [float(v) for v in self.pareto_front_[self.selected_]],
            "train_error": float(self.pareto_train_error_[self.selected_]),
            "holdout_error": None if holdout is None else float(holdout[self.selected_]),
            "n_fit": int(len(self.fit_indices_)),
            "n_holdout": int(len(self.holdout_indices_)),
            "n_sv": int(np.sum(a > 0)),
            "eq_violation": float(abs(a @ self._Y_fit)),
            "intercept": float(self.intercept_[0]),
            "alpha_max": float(self.alpha_max),
            "kernel": self.kernel,
            "kernel_params": {k: float(v) for k, v in params.items()},
        }

    def _front_info(self, n_obj) -> list[dict]:
        """One ``fit_info_["front"]`` entry per Pareto member."""
        names = ["obj_I", "obj_II", "obj_III"][:n_obj]
        holdout = self.pareto_holdout_error_
        return [
            {
                "counter": i,
                **{nm: float(v) for nm, v in zip(names, self.pareto_front_[i])},
                "train_err": float(self.pareto_train_error_[i]),
                "holdout_err": None if holdout is None else float(holdout[i]),
                "n_sv": int(np.sum(self.pareto_alpha_[i] > 0)),
                "selected": i == self.selected_,
            }
            for i in range(len(self.pareto_alpha_))
        ]

    def _set_member(self, i: int) -> None:
        a = self.pareto_alpha_[i]
        Yf = self._Y_fit
        sv = a > 0
        self.alpha_ = a
        self.support_ = self.fit_indices_[sv]
        self.support_vectors_ = self._X_fit[sv]
        self.dual_coef_ = (a * Yf)[sv][None, :]
        self.intercept_ = np.array([self.pareto_intercept_[i]])
        self.n_support_ = np.array([np.sum(sv & (Yf < 0)), np.sum(sv & (Yf > 0))], dtype=np.int32)

    # -- the Pareto set ------------------------------------------------------------------------

    def _member_index(self, member) -> int:
        check_is_fitted(self)
        if member is None:
            return self.selected_
        m = len(self.pareto_front_)
        if not isinstance(member, (Integral, np.integer)) or not -m <= member < m:
            raise IndexError(f"member must be an integer in [-{m}, {m}), got {member!r}")
        return int(member) % m

    def member(self, i: int) -> MOEvoSVMClassifier:
        """A fitted copy whose model is Pareto member ``i`` (``selected_ = i``).

        The Pareto arrays are shared with ``self``; ``predict``, ``decision_function`` and
        ``score`` of the copy use member ``i``.
        """
        i = self._member_index(i)
        clone = copy.copy(self)
        clone.selected_ = i
        clone._set_member(i)
        return clone

    def pareto_decision_function(self, X) -> np.ndarray:
        """Decision values of **every** Pareto member, shape ``(n_samples, n_members)``."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        used = np.flatnonzero((self.pareto_alpha_ > 0).any(axis=0))
        coef = (self.pareto_alpha_[:, used] * self._Y_fit[used]).T  # (n_used, n_members)
        out = np.tile(self.pareto_intercept_, (X.shape[0], 1))
        if len(used):
            out += kernel_matrix(self.kernel, X, self._X_fit[used], **self._kernel_kwargs) @ coef
        return out

    # -- prediction --------------------------------------------------------------------------

    def decision_function(self, X, member=None):
        """``f(x) = sum_i alpha_i y_i K(x_i, x) + b`` of the chosen (or the given) member.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        member : int or None, default=None
            Row of :attr:`pareto_front_`; ``None`` is :attr:`selected_`.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Positive means ``classes_[1]``.
        """
        i = self._member_index(member)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        a = self.pareto_alpha_[i]
        sv = a > 0
        return kernel_expansion(
            self.kernel,
            X,
            self._X_fit[sv],
            (a * self._Y_fit)[sv],
            self.pareto_intercept_[i],
            **self._kernel_kwargs,
        )

    def predict(self, X, member=None):
        """``classes_[1]`` where ``f(x) >= 0``, else ``classes_[0]`` (chosen or given member).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        member : int or None, default=None
            Row of :attr:`pareto_front_`; ``None`` is :attr:`selected_`.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        positive = self.decision_function(X, member=member) >= 0
        return self.classes_[positive.astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


# -- choosing one member of the front ----------------------------------------------------------


def holdout_choice(train_error, holdout_error, alpha_sum) -> tuple[np.ndarray, int]:
    """The thesis's hold-out rule (Mierswa (2009), Sec. 3.2.6, option b) on a Pareto set.

    The members are ordered by training error **descending** (the simple, large-margin end
    first), ties by ``alpha_sum`` ascending (the smaller dual sum is the simpler model),
    then by position. The chosen member is the first in that order whose hold-out error is
    minimal -- so of several members with the same hold-out error the one with the larger
    training error wins (RapidMiner's strict ``<`` scan).

    Returns
    -------
    order : ndarray of int
        The members in the order above.
    chosen : int
        Index (into the inputs) of the chosen member.
    """
    train_error = np.asarray(train_error, dtype=np.float64)
    holdout_error = np.asarray(holdout_error, dtype=np.float64)
    alpha_sum = np.asarray(alpha_sum, dtype=np.float64)
    order = np.lexsort((np.arange(len(train_error)), alpha_sum, -train_error))
    best = order[0]
    for i in order[1:]:
        if holdout_error[i] < holdout_error[best]:
            best = i
    return order, int(best)
