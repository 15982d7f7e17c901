"""Transductive evolutionary SVMs (Mierswa 2009, Ch. 5): the single-objective Evo-T-SVM, the
multi-objective MO-T-SVM, and clustering from the MO-T-SVM Pareto front.
Spec: ``evosvm.md`` §1.8-1.9 (ambiguities A11-A14).

Data convention
---------------
``fit(X, y)`` takes labeled and unlabeled rows together; unlabeled rows have ``y = -1``
(scikit-learn's semi-supervised convention, as in ``LabelSpreading`` and
``SelfTrainingClassifier``). The labeled rows must therefore use two class labels other
than -1 (e.g. 0/1 or strings in an object array).

The genome
----------
Every individual is ``(alpha, alpha*, y*)``: one dual variable per labeled row (box
``[0, C]``), one per unlabeled row (box ``[0, C*]``) and one label variable ``y*_k`` in
{-1, +1} per unlabeled row -- ``n + 2 n*`` genes (Prob. 5.2). With ``a = (alpha, alpha*)``
and the joint labels ``Y = (y, y*)``, objective (I) is the SVM dual over all rows,

    (I) = sum_i a_i - 1/2 sum_ij a_i a_j Y_i Y_j K_ij,

maximised with ``b = 0`` (the equality constraint dropped, as for EvoSVM, spec A12); the
bias is set afterwards by mySVM's rule over all rows. The model is

    f(x) = sum_i alpha_i y_i K(x, x_i) + sum_k alpha*_k y*_k K(x, x*_k) + b.

The direction over ``y*`` (spec A14)
-----------------------------------
The thesis maximises (I) over ``alpha``, ``alpha*`` **and** ``y*``. But for fixed ``y*``
the dual's maximum is the primal's minimum, so the transductive SVM wants
``min_{y*} max_alpha (I)``; maximising over ``y*`` picks the *worst* labelling (the
``y*``-part of (I) is ``-y*_k alpha*_k g_k`` with ``g_k`` the decision value at ``x*_k``
without its own term, maximised by ``y*_k = -sign(g_k)``). Three modes (``y_mode``):

``"literal"``
    The thesis as written: ``y*`` genes are evolved (random initial labels, bit flips with
    probability ``1/(n + 2n*)``, uniform crossover) and (I) is maximised over them.
``"self_label"``
    ``y*`` is not evolved: before every evaluation each individual relabels
    ``y*_k := sign(g_k)`` (a zero keeps the label), ``g_k`` computed from its own ``a`` and
    its current labels (one Jacobi step; offspring inherit and refine the labels). The
    initial labels are the sign of the labeled part of ``g``. This is the ``y*`` that
    minimises (I) for the current ``a`` -- the primal-consistent choice (for fixed ``w`` it
    minimises every ``xi*_k``, S3VM's symmetric hinge), so the search is ``max_a min_y*``.
``"minmax"`` (``EvoTSVMClassifier`` only)
    An outer search over ``y*`` minimising the exact inner maximum of (I) over the box
    (coordinate ascent, exact for positive semi-definite kernels): all ``2^n*`` labellings
    when ``n* <= minmax_exhaustive``, otherwise an evolutionary search over ``y*`` (bit
    flips, uniform crossover, tournaments).

On the two-cluster checks in the tests, ``self_label`` and ``minmax`` label the unlabeled
points by cluster, while ``literal`` ends with labellings against the clusters (its (I)
under its own labels far exceeds (I) under the cluster labels). The default is therefore
``"self_label"``; ``"literal"`` is the faithful reading.
"""

from __future__ import annotations

import copy
import itertools
import time
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from svmlab.estimators.evo._base import KernelExpansionMixin
from svmlab.estimators.evo._common import (
    KERNEL_CONSTRAINTS,
    KernelParamsMixin,
    box_dual_ascent,
    split_unlabeled,
)
from svmlab.estimators.evo._fitness import improves, posthoc_bias
from svmlab.estimators.evo._nsga2 import final_front, non_dominated, run_nsga2
from svmlab.estimators.evo._operators import (
    OneFifthRule,
    gaussian_mutation,
    sparse_mutation_draws,
    tournament_select,
    uniform_crossover,
)
from svmlab.kernels import kernel_matrix

__all__ = [
    "EvoTSVMClassifier",
    "MOTSVMClassifier",
    "ParetoClustering",
    "pareto_clustering",
    "pareto_edges",
    "tsvm_objective",
]


def tsvm_objective(K, y_joint, a) -> np.ndarray:
    """Objective (I) of the transductive SVM for every row of ``a`` (shape ``(P, N)``).

    ``K`` is the kernel matrix over all ``N`` rows (labeled and unlabeled), ``y_joint`` the
    labels ``(y, y*)`` in {-1, +1} (shape ``(N,)`` or ``(P, N)``). Returns
    ``sum_i a_i - 1/2 sum_ij a_i a_j Y_i Y_j K_ij`` per row: the three quadratic blocks
    (labeled-labeled, unlabeled-unlabeled, and the cross term counted twice at 1/2) of
    Theorem 5.1.
    """
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    V = a * np.asarray(y_joint, dtype=np.float64)
    return a.sum(axis=1) - 0.5 * np.einsum("ij,ij->i", V, V @ np.asarray(K, dtype=np.float64))


# -- the shared evaluation -------------------------------------------------------------------------


class _Core:
    """Genome layout ``[a (N = n + n*), y* (n*)]`` over rows ordered labeled first.

    ``evaluate`` returns ``(a.sum, quad)`` per row with ``quad = v^T K v``, ``v = a * Y``; in
    ``self_label`` mode the ``y*`` genes are first rewritten to ``sign(g)``.
    """

    def __init__(self, K, y_lab, n_u, ub, y_mode):
        self.K = K
        self.y_lab = y_lab
        self.n = len(y_lab)
        self.n_u = n_u
        self.N = self.n + n_u
        self.L = self.N + n_u
        self.ub = ub
        self.y_mode = y_mode
        self.k_diag_u = np.ascontiguousarray(np.diag(K)[self.n :])

    def joint_labels(self, A):
        return np.concatenate(
            [np.broadcast_to(self.y_lab, (A.shape[0], self.n)), A[:, self.N :]], axis=1
        )

    def relabel(self, A):
        """``y*_k := sign(g_k)`` in place, ``g_k`` without the point's own term (a zero keeps the label)."""
        a, N, n = A[:, : self.N], self.N, self.n
        H = (a * self.joint_labels(A)) @ self.K[:, n:]
        H -= a[:, n:] * A[:, N:] * self.k_diag_u
        A[:, N:] = np.where(H > 0, 1.0, np.where(H < 0, -1.0, A[:, N:]))

    def quad(self, A, derive=True):
        if derive and self.y_mode == "self_label":
            self.relabel(A)
        V = A[:, : self.N] * self.joint_labels(A)
        return np.einsum("ij,ij->i", V, V @ self.K)

    def initial(self, P, rng, init):
        """Duals 0 or uniform in their boxes; labels ``y*`` uniform in {-1, +1} -- except in
        ``self_label`` mode with labeled rows, where they start as the sign of the labeled
        part of the decision value (ties +1), so that the labels start from the labeled data."""
        a = np.zeros((P, self.N)) if init == "zeros" else rng.random_sample((P, self.N)) * self.ub
        ys = np.where(rng.random_sample((P, self.n_u)) < 0.5, -1.0, 1.0)
        if self.y_mode == "self_label" and self.n:
            g = (a[:, : self.n] * self.y_lab) @ self.K[: self.n, self.n :]
            ys = np.where(g > 0, 1.0, np.where(g < 0, -1.0, ys))
        return np.concatenate([a, ys], axis=1)

    def flip_labels(self, A, rng):
        """Literal mode: each ``y*`` gene flips with probability ``1 / (n + 2 n*)``."""
        if self.y_mode != "literal":
            return
        rows, genes = np.nonzero(rng.random_sample((A.shape[0], self.n_u)) < 1.0 / self.L)
        A[rows, self.N + genes] *= -1.0


def _prepare(est, X, y, *, allow_no_labels=False):
    """Validate, order rows labeled-first, compute the kernel matrix once."""
    X, y = validate_data(est, X, y, accept_sparse="csr", dtype=np.float64, y_numeric=False)
    y = np.asarray(y)
    name = type(est).__name__
    classes, lab, Y = split_unlabeled(y, name, allow_no_labels=allow_no_labels)
    if lab.any():
        check_classification_targets(y[lab])
    order = np.concatenate([np.flatnonzero(lab), np.flatnonzero(~lab)])
    params = est._kernel_params()
    Xo = X[order]
    t0 = time.perf_counter()
    K = kernel_matrix(est.kernel, Xo, None, **params)
    if not np.isfinite(K).all():
        raise ValueError(f"the {est.kernel} kernel matrix has non-finite values with {params}")
    return X, classes, lab, Y, order, Xo, K, params, time.perf_counter() - t0


def _bias(K, Yj, a, ub, is_zero):
    s = K @ (a * Yj)  # s_i = sum_j a_j Y_j K(x_j, x_i)
    return posthoc_bias(s, Yj, a, ub, is_zero)


class _TransductiveBase(KernelParamsMixin, KernelExpansionMixin, ClassifierMixin, BaseEstimator):
    """Model storage and prediction shared by both transductive SVMs."""

    _is_zero = 1e-8

    def _store_model(self, order, Xo, a, Yj, b, n_lab, n_total):
        """Keep one model: ``a`` and ``Yj`` over rows ordered labeled first."""
        sv = a > 0
        self.alpha_ = np.empty(n_total)
        self.alpha_[order] = a
        self.support_ = order[sv]
        self.support_vectors_ = Xo[sv]
        self.dual_coef_ = (a * Yj)[sv][None, :]
        self.intercept_ = np.array([float(b)])
        self.n_support_ = np.array([np.sum(sv & (Yj < 0)), np.sum(sv & (Yj > 0))], dtype=np.int32)


_SHARED_CONSTRAINTS = {
    **KERNEL_CONSTRAINTS,
    "pop_size": [Interval(Integral, 2, None, closed="left")],
    "p_cx": [Interval(Real, 0.0, 1.0, closed="both")],
    "init": [StrOptions({"uniform", "zeros"})],
    "random_state": ["random_state"],
}


# -- Evo-T-SVM ----------------------------------------------------------------------------------------


class EvoTSVMClassifier(_TransductiveBase):
    """Evo-T-SVM: a transductive SVM whose dual is maximised by an evolution strategy.

    Fits labeled and unlabeled rows together (unlabeled rows: ``y = -1``). The individuals
    are ``(alpha, alpha*, y*)`` (module docstring); the fitness is objective (I), the SVM
    dual over labeled and unlabeled rows with labels ``(y, y*)``, with ``b = 0`` (A12) and
    the bias set afterwards by mySVM's rule. The evolution is EvoSVM-G's (Gaussian
    mutation of ``alpha`` and ``alpha*`` with the 1/5 rule, uniform crossover, tournaments
    with elitism, plus-selection), with the thesis's Ch. 5 settings.

    Parameters
    ----------
    C : float, default=1.0
        Box of the labeled duals ``alpha_i``, > 0 (not given in the thesis; A11: 1).
    C_u : float, default=1.0
        Box of the unlabeled duals ``alpha*_k`` (the thesis's ``C*``), > 0 (A11: 1).
    kernel : str, default="rbf"
        A kernel of :mod:`svmlab.kernels` (2-Moons: rbf; 4-/3-Clusters: linear).
    gamma, degree, kappa, delta, sigma, sigma1, sigma2, sigma3, c : float or None, default=None
        Parameters of the chosen kernel (``None``: its default).
    y_mode : {"self_label", "literal", "minmax"}, default="self_label"
        How the unlabeled labels ``y*`` are treated (A14, module docstring). ``"literal"``
        is the thesis's text.
    pop_size : int, default=10
        Population size (>= 2; thesis).
    max_gen : int, default=10000
        Maximum generations (thesis, Ch. 5).
    patience : int or None, default=10
        Stop after more than ``patience`` generations without improvement (thesis: 10).
    p_cx : float, default=0.9
        Crossover probability of a pair (uniform crossover over all genes, ``y*`` included).
    tournament_frac : float, default=0.25
        Tournament size as a fraction of the pool.
    keep_best : bool, default=True
        Elitism.
    sigma0_frac : float, default=0.1
        Initial Gaussian step as a fraction of each gene's box (``C/10`` and ``C*/10``).
    one_fifth : {"thesis", "rm2007", "off"}, default="thesis"
        The 1/5 success rule (see :class:`EvoSVMClassifier`).
    init : {"uniform", "zeros"}, default="uniform"
        Initial duals: uniform in their boxes (thesis) or 0; initial ``y*`` uniform in
        {-1, +1}.
    minmax_exhaustive : int, default=10
        ``y_mode="minmax"``: try all ``2^n*`` labellings up to this ``n*``; above it, search
        them with ``pop_size``, ``max_gen``, ``patience``, ``p_cx`` and ``tournament_frac``.
    random_state : int, RandomState instance or None, default=None
        Seeds the whole run.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels of the labeled rows; ``classes_[1]`` is the +1 side.
    alpha_ : ndarray of shape (n_samples,)
        Dual variables in training-row order: ``alpha_i`` on labeled rows, ``alpha*_k`` on
        unlabeled rows.
    unlabeled_indices_ : ndarray of int
        The rows with ``y = -1``.
    unlabeled_labels_ : ndarray of shape (n_unlabeled,)
        The labelling ``y*`` of the solution (as class labels).
    transduction_ : ndarray of shape (n_samples,)
        ``y`` with every unlabeled row replaced by the model's prediction there (may differ
        from ``unlabeled_labels_``, notably in literal mode).
    support_, support_vectors_, dual_coef_, intercept_, n_support_
        The model as a kernel expansion over labeled and unlabeled rows (``dual_coef_`` =
        ``alpha y`` and ``alpha* y*``).
    fit_info_ : dict
        JSON-serialisable: ``y_mode``, ``generations``, ``evaluations``, ``stop_reason``,
        ``objective`` ((I) of the solution), ``eq_violation`` (``|sum a Y|``),
        ``intercept``, ``n_labeled``, ``n_unlabeled``, ``n_sv``, ``n_unlabeled_positive``,
        ``unlabeled_agreement`` (share of unlabeled rows where ``y*`` equals the
        prediction), ``C``, ``C_u``, ``kernel``, ``kernel_params``, ``seconds``,
        ``history`` (best-ever fitness per generation; for minmax the best inner maximum
        found so far, which decreases) and, except for minmax, ``sigma_frac_final`` (the
        Gaussian step at the end as a fraction of each gene's box); for minmax
        ``inner_objective``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.estimators.evo import EvoTSVMClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 2) + [0, 3], rng.randn(20, 2) - [0, 3]])
    >>> y = np.full(40, -1); y[0], y[20] = 1, 0
    >>> clf = EvoTSVMClassifier(gamma=0.5, random_state=0).fit(X, y)
    >>> float(np.mean(clf.transduction_ == np.repeat([1, 0], 20))) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "C_u": [Interval(Real, 0.0, None, closed="neither")],
        "y_mode": [StrOptions({"self_label", "literal", "minmax"})],
        "max_gen": [Interval(Integral, 1, None, closed="left")],
        "patience": [Interval(Integral, 0, None, closed="left"), None],
        "tournament_frac": [Interval(Real, 0.0, 1.0, closed="right")],
        "keep_best": ["boolean"],
        "sigma0_frac": [Interval(Real, 0.0, None, closed="neither")],
        "one_fifth": [StrOptions({"thesis", "rm2007", "off"})],
        "minmax_exhaustive": [Interval(Integral, 0, 20, closed="both")],
    }

    def __init__(
        self,
        C=1.0,
        C_u=1.0,
        kernel="rbf",
        gamma=None,
        degree=None,
        kappa=None,
        delta=None,
        sigma=None,
        sigma1=None,
        sigma2=None,
        sigma3=None,
        c=None,
        y_mode="self_label",
        pop_size=10,
        max_gen=10000,
        patience=10,
        p_cx=0.9,
        tournament_frac=0.25,
        keep_best=True,
        sigma0_frac=0.1,
        one_fifth="thesis",
        init="uniform",
        minmax_exhaustive=10,
        random_state=None,
    ):
        self.C = C
        self.C_u = C_u
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.kappa = kappa
        self.delta = delta
        self.sigma = sigma
        self.sigma1 = sigma1
        self.sigma2 = sigma2
        self.sigma3 = sigma3
        self.c = c
        self.y_mode = y_mode
        self.pop_size = pop_size
        self.max_gen = max_gen
        self.patience = patience
        self.p_cx = p_cx
        self.tournament_frac = tournament_frac
        self.keep_best = keep_best
        self.sigma0_frac = sigma0_frac
        self.one_fifth = one_fifth
        self.init = init
        self.minmax_exhaustive = minmax_exhaustive
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit on labeled and unlabeled rows (``y = -1``) together.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two class labels (other than -1) on the labeled rows, -1 on the unlabeled rows;
            both classes and at least one unlabeled row are required.

        Returns
        -------
        self : object
        """
        t_start = time.perf_counter()
        X, classes, lab, Y, order, Xo, K, params, kernel_seconds = _prepare(self, X, y)
        self.classes_ = classes
        n, n_u = len(Y), int((~lab).sum())
        ub = np.concatenate([np.full(n, float(self.C)), np.full(n_u, float(self.C_u))])
        core = _Core(K, Y, n_u, ub, self.y_mode)
        rng = check_random_state(self.random_state)
        with threadpool_limits(limits=1, user_api="blas"):
            if self.y_mode == "minmax":
                g, info = self._minmax(core, rng)
            else:
                g, info = self._evolve(core, rng)
        a, ys = g[: core.N], g[core.N :]
        Yj = np.concatenate([Y, ys])
        b = _bias(K, Yj, a, ub, self._is_zero)
        self._kernel_kwargs = params
        self._store_model(order, Xo, a, Yj, b, n, len(order))
        self.unlabeled_indices_ = order[n:]
        self.unlabeled_labels_ = classes[(ys > 0).astype(np.intp)]
        pred_u = self.predict(X[self.unlabeled_indices_])
        self.transduction_ = np.empty(len(order), dtype=classes.dtype)
        self.transduction_[lab] = np.asarray(y)[lab]
        self.transduction_[self.unlabeled_indices_] = pred_u
        self.fit_info_ = {
            "y_mode": self.y_mode,
            **{k: info[k] for k in ("generations", "evaluations", "stop_reason")},
            "objective": float(tsvm_objective(K, Yj, a)[0]),
            "eq_violation": float(abs(a @ Yj)),
            "intercept": float(b),
            "n_labeled": int(n),
            "n_unlabeled": int(n_u),
            "n_sv": int(np.sum(a > 0)),
            "n_unlabeled_positive": int(np.sum(ys > 0)),
            "unlabeled_agreement": float(np.mean(pred_u == self.unlabeled_labels_)),
            "C": float(self.C),
            "C_u": float(self.C_u),
            "kernel": self.kernel,
            "kernel_params": {k: float(v) for k, v in params.items()},
            **{
                k: v
                for k, v in info.items()
                if k not in ("generations", "evaluations", "stop_reason", "history")
            },
            "kernel_seconds": float(kernel_seconds),
            "seconds": float(time.perf_counter() - t_start),
            "history": info["history"],
        }
        return self

    # literal / self_label: EvoSVM-G's loop over (alpha, alpha*, y*) -----------------------------

    def _evaluate(self, core, A, derive=True):
        return A[:, : core.N].sum(axis=1) - 0.5 * core.quad(A, derive)

    def _evolve(self, core, rng):
        mu, N = int(self.pop_size), core.N
        A = core.initial(mu, rng, self.init)
        F = self._evaluate(core, A)
        evaluations = mu
        top = int(np.argmax(F))
        best_A, best_F = A[top].copy(), float(F[top])
        history = [best_F]
        step = float(self.sigma0_frac) * core.ub
        rule = OneFifthRule(self.one_fifth, core.L) if self.one_fifth != "off" else None
        generation, stale, stop = 0, 0, "max_gen"
        while generation < self.max_gen:
            if self.keep_best:
                win = tournament_select(F, mu - 1, self.tournament_frac, rng)
                A, F = np.concatenate([best_A[None, :], A[win]]), np.concatenate([[best_F], F[win]])
            else:
                win = tournament_select(F, mu, self.tournament_frac, rng)
                A, F = A[win], F[win]
            children, _ = uniform_crossover(A, self.p_cx, rng)
            if len(children):
                A, F = (
                    np.concatenate([A, children]),
                    np.concatenate([F, self._evaluate(core, children)]),
                )
            M = A.copy()
            M[:, :N] = gaussian_mutation(A[:, :N], step, core.ub, rng)
            core.flip_labels(M, rng)
            Fm = self._evaluate(core, M)
            if rule is not None:
                step = rule.update(step, generation, stale)
            new_F = np.concatenate([F[mu:], Fm])
            evaluations += new_F.size
            A, F = np.concatenate([A, M]), np.concatenate([F, Fm])
            generation += 1
            if new_F.size and improves(float(new_F.max()), best_F):
                top = mu + int(np.argmax(new_F))
                best_A, best_F = A[top].copy(), float(F[top])
                stale = 0
            else:
                stale += 1
            history.append(best_F)
            if self.patience is not None and stale > self.patience:
                stop = "patience"
                break
        info = {
            "generations": generation,
            "evaluations": int(evaluations),
            "stop_reason": stop,
            "history": history,
            "sigma_frac_final": float(np.max(step) / np.max(core.ub)),
        }
        return best_A, info

    # minmax: outer search over y*, exact inner maximum ---------------------------------------------

    def _minmax(self, core, rng):
        K, n = core.K, core.n
        cache: dict[bytes, tuple[float, np.ndarray]] = {}

        def inner(ys):
            key = (ys > 0).tobytes()
            if key not in cache:
                Yj = np.concatenate([core.y_lab, ys])
                a, W, _ = box_dual_ascent(np.outer(Yj, Yj) * K, core.ub)
                cache[key] = (W, a)
            return cache[key][0]

        history: list[float] = []
        if core.n_u <= self.minmax_exhaustive:
            best_W, best_ys = np.inf, None
            for bits in itertools.product((-1.0, 1.0), repeat=core.n_u):
                ys = np.array(bits)
                W = inner(ys)
                if best_ys is None or W < best_W - 1e-12 * max(1.0, abs(best_W)):
                    best_W, best_ys = W, ys
                history.append(best_W)
            generations, stop = 0, "exhaustive"
        else:  # an evolutionary search over labellings, minimising the inner maximum
            mu = int(self.pop_size)
            S = np.where(rng.random_sample((mu, core.n_u)) < 0.5, -1.0, 1.0)
            # one start is the labelling of the inductive b = 0 SVM on the labeled rows
            a_lab, _, _ = box_dual_ascent(np.outer(core.y_lab, core.y_lab) * K[:n, :n], core.ub[:n])
            S[0] = np.where((a_lab * core.y_lab) @ K[:n, n:] >= 0, 1.0, -1.0)
            F = -np.array([inner(s) for s in S])
            top = int(np.argmax(F))
            best_S, best_F = S[top].copy(), float(F[top])
            history.append(-best_F)
            generations, stale, stop = 0, 0, "max_gen"
            while generations < self.max_gen:
                win = tournament_select(F, mu - 1, self.tournament_frac, rng)
                S, F = np.concatenate([best_S[None, :], S[win]]), np.concatenate([[best_F], F[win]])
                children, _ = uniform_crossover(S, self.p_cx, rng)
                M = np.concatenate([S, children]) if len(children) else S.copy()
                Fc = -np.array([inner(s) for s in children]) if len(children) else np.empty(0)
                M = M.copy()
                flips = rng.random_sample(M.shape) < 1.0 / core.n_u
                changed = flips.any(axis=1)
                M[flips] *= -1.0
                M = M[changed]
                Fm = -np.array([inner(s) for s in M]) if len(M) else np.empty(0)
                S = np.concatenate([S, children, M]) if len(children) else np.concatenate([S, M])
                F = np.concatenate([F, Fc, Fm])
                generations += 1
                new_F = np.concatenate([Fc, Fm])
                if new_F.size and improves(float(new_F.max()), best_F):
                    i = mu + int(np.argmax(new_F))
                    best_S, best_F = S[i].copy(), float(F[i])
                    stale = 0
                else:
                    stale += 1
                history.append(-best_F)
                if self.patience is not None and stale > self.patience:
                    stop = "patience"
                    break
            best_ys = best_S
        W, a = cache[(best_ys > 0).tobytes()]
        info = {
            "generations": generations,
            "evaluations": len(cache),
            "stop_reason": stop,
            "history": history,
            "inner_objective": float(W),
        }
        return np.concatenate([a, best_ys]), info


# -- MO-T-SVM ----------------------------------------------------------------------------------------


class _TransductiveProblem:
    """MO-T-SVM for the NSGA-II engines: objectives (I), (II) ``sum alpha``, (III) ``sum alpha*``."""

    def __init__(self, core: _Core, init: str):
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
        """Hybrid mutation of ``a`` and bit flips of ``y*`` (literal), each gene w.p. ``1/(n + 2n*)``."""
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


class MOTSVMClassifier(_TransductiveBase):
    """MO-T-SVM: the multi-objective transductive SVM (thesis §5.4, Corollary 5.2).

    The genome is that of :class:`EvoTSVMClassifier`, ``(alpha, alpha*, y*)`` with both
    duals in ``[0, alpha_max]``; NSGA-II maximises

    * (I) the transductive SVM dual ``sum a - 1/2 sum_ij a_i a_j Y_i Y_j K_ij`` over labeled
      and unlabeled rows (with the ``sum`` and ``1/2`` terms, unlike MO-EvoSVM's (I)),
    * (II) ``sum_i alpha_i`` -- the training error, and
    * (III) ``sum_k alpha*_k`` -- the error on the unlabeled ("test") rows,

    without equality constraint or balance objective. Initial duals 0, hybrid mutation of
    the duals and bit flips of ``y*`` (each gene with probability ``1/(n + 2n*)``), uniform
    crossover (spec A13). Without labeled rows (every ``y = -1``) it is a clustering
    method (§1.9): ``classes_`` is then ``[0, 1]`` (cluster ids) -- see
    :func:`pareto_clustering`.

    Parameters
    ----------
    kernel : str, default="rbf"
    gamma, degree, kappa, delta, sigma, sigma1, sigma2, sigma3, c : float or None, default=None
        The kernel and its parameters (see :class:`EvoTSVMClassifier`).
    alpha_max : float, default=1000.0
        Box of every dual (A13: as MO-EvoSVM).
    y_mode : {"self_label", "literal"}, default="self_label"
        See the module docstring; ``"minmax"`` has no multi-objective counterpart.
    pop_size : int, default=100
        Population size (thesis: 30 for 4-Clusters, 150 for 3-Clusters, 200 for 2-Moons).
    max_gen : int, default=1000
        Generations (A13).
    p_cx : float, default=0.9
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
        **_SHARED_CONSTRAINTS,
        "alpha_max": [Interval(Real, 0.0, None, closed="neither")],
        "y_mode": [StrOptions({"self_label", "literal"})],
        "max_gen": [Interval(Integral, 0, None, closed="left")],
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
        sigma=None,
        sigma1=None,
        sigma2=None,
        sigma3=None,
        c=None,
        alpha_max=1000.0,
        y_mode="self_label",
        pop_size=100,
        max_gen=1000,
        p_cx=0.9,
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
        self.sigma = sigma
        self.sigma1 = sigma1
        self.sigma2 = sigma2
        self.sigma3 = sigma3
        self.c = c
        self.alpha_max = alpha_max
        self.y_mode = y_mode
        self.pop_size = pop_size
        self.max_gen = max_gen
        self.p_cx = p_cx
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
        X, classes, lab, Y, order, Xo, K, params, kernel_seconds = _prepare(
            self, X, y, allow_no_labels=True
        )
        self.classes_ = classes
        n, n_u = len(Y), int((~lab).sum())
        U = float(self.alpha_max)
        core = _Core(K, Y, n_u, np.full(n + n_u, U), self.y_mode)
        problem = _TransductiveProblem(core, self.init)
        rng = check_random_state(self.random_state)
        t0 = time.perf_counter()
        with threadpool_limits(limits=1, user_api="blas"):
            A, evaluations = run_nsga2(
                problem,
                mu=int(self.pop_size),
                max_gen=int(self.max_gen),
                p_cx=float(self.p_cx),
                engine=self.engine,
                crowding=self.crowding,
                rng=rng,
            )
            A, F = final_front(problem, A)
        optimize_seconds = time.perf_counter() - t0
        rank = np.lexsort((np.arange(len(F)), -F[:, 0]))
        A, F = A[rank], F[rank]
        Yj_all = core.joint_labels(A)
        V = A[:, : core.N] * Yj_all
        S = V @ K  # S[p, i] = sum_j a_pj Y_pj K(x_j, x_i)
        b = np.array(
            [
                posthoc_bias(S[p], Yj_all[p], A[p, : core.N], core.ub, self._is_zero)
                for p in range(len(A))
            ]
        )
        # labeled training error of every member; the chosen one: fewest errors, then largest (I)
        lab_err = (
            np.mean(np.where(S[:, :n] + b[:, None] >= 0, 1.0, -1.0) != Y, axis=1)
            if n
            else np.zeros(len(A))
        )
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
            "generations": int(self.max_gen),
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
            "front": [
                {
                    "obj_I": float(f[0]),
                    "obj_II": float(f[1]),
                    "obj_III": float(f[2]),
                    "n_unlabeled_positive": int(np.sum(s > 0)),
                }
                for f, s in zip(F, self.pareto_unlabeled_labels_)
            ],
        }
        return self

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


# -- clustering from the Pareto front (§1.9) ------------------------------------------------------------


def pareto_edges(F) -> dict[tuple[int, int], np.ndarray]:
    """The 2-D edge fronts of a 3-objective front (maximisation).

    For every pair of objectives ``(i, j)`` the indices (ascending) of the members that no
    other member dominates in those two objectives alone. For MO-T-SVM: ``(0, 1)`` is the
    classical SVM trade-off, ``(0, 2)`` max-margin clustering of the unlabeled rows, and
    ``(1, 2)`` the "overfitted clustering" (§1.9).
    """
    F = np.asarray(F, dtype=np.float64)
    return {
        (i, j): non_dominated(F[:, [i, j]]) for i, j in itertools.combinations(range(F.shape[1]), 2)
    }


@dataclass
class ParetoClustering:
    """Result of :func:`pareto_clustering`.

    Attributes
    ----------
    estimator : MOTSVMClassifier
        The fitted MO-T-SVM (no labeled rows).
    members : ndarray of int
        Members of the margin / unlabeled-error edge front (objectives (I) and (III)), ordered
        by (III) ascending -- from the large-margin end to the fit-every-point end.
    labels : ndarray of shape (n_members, n_samples)
        Cluster (0 or 1) of every row for each of these members: its ``y*``.
    objectives : ndarray of shape (n_members, 2)
        (I) and (III) of these members.
    agreement : ndarray of shape (n_members,)
        Share of rows where the member's labelling equals its own prediction (decision
        function with the post-hoc bias): how self-consistent the clustering is.
    chosen : int or None
        Position in ``members`` of the suggested clustering: among the members whose smaller
        cluster has at least ``min_cluster_size`` rows, the most self-consistent one, of
        equal ones the largest margin (``None`` if no member qualifies). A heuristic of
        this implementation; the thesis chooses none.
    """

    estimator: MOTSVMClassifier
    members: np.ndarray
    labels: np.ndarray
    objectives: np.ndarray
    agreement: np.ndarray
    chosen: int | None


def pareto_clustering(X, *, min_cluster_size: int = 1, **params) -> ParetoClustering:
    """Two-cluster assignments read off the MO-T-SVM Pareto front of unlabeled data (§1.9).

    Fits :class:`MOTSVMClassifier` with every row unlabeled ("if no training data is given,
    we automatically get a clustering scheme") and returns the members of the edge front
    between margin (I) and the unlabeled dual sum (III), each with its labelling ``y*`` as a
    clustering. The thesis reports no quantitative clustering results; this is the
    demonstration.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    min_cluster_size : int, default=1
        Size the smaller cluster must reach for a member to be ``chosen``.
    **params
        Parameters of :class:`MOTSVMClassifier` (kernel, gamma, y_mode, pop_size, ...).

    Returns
    -------
    ParetoClustering
    """
    X = np.asarray(X) if not hasattr(X, "tocsr") else X
    est = MOTSVMClassifier(**params).fit(X, np.full(X.shape[0], -1))
    F = est.pareto_front_
    edge = pareto_edges(F)[(0, 2)]
    edge = edge[np.lexsort((edge, F[edge, 2]))]
    labels = np.empty((len(edge), X.shape[0]), dtype=np.intp)
    labels[:, est.unlabeled_indices_] = (est.pareto_unlabeled_labels_[edge] > 0).astype(np.intp)
    sizes = labels.sum(axis=1)
    smaller = np.minimum(sizes, X.shape[0] - sizes)
    agreement = np.array(
        [np.mean(est.member(int(i)).predict(X) == lab) for i, lab in zip(edge, labels)]
    )
    ok = np.flatnonzero(smaller >= min_cluster_size)
    chosen = None
    if len(ok):  # most self-consistent, then largest margin, then first
        chosen = int(ok[np.lexsort((ok, -F[edge[ok], 0], -agreement[ok]))[0]])
    return ParetoClustering(est, edge, labels, F[edge][:, [0, 2]], agreement, chosen)
