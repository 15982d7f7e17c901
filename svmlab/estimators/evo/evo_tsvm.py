"""Evo-T-SVM (Mierswa 2009, §5.3): the transductive SVM dual maximised by an evolution strategy.

The data convention (unlabeled rows have ``y = -1``), the genome ``(alpha, alpha*, y*)`` and
the three ``y_mode`` readings are described in :mod:`svmlab.estimators.evo._transductive`.
"""

from __future__ import annotations

import itertools
import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.estimators.evo._base import box_dual_ascent
from svmlab.estimators.evo._fitness import improves
from svmlab.estimators.evo._operators import (
    OneFifthRule,
    gaussian_mutation,
    tournament_select,
    uniform_crossover,
)
from svmlab.estimators.evo._transductive import (
    TRANSDUCTIVE_CONSTRAINTS,
    TransductiveBase,
    TransductiveCore,
    joint_bias,
    prepare_rows,
    tsvm_objective,
)

__all__ = ["EvoTSVMClassifier"]


class EvoTSVMClassifier(TransductiveBase):
    """Evo-T-SVM: a transductive SVM whose dual is maximised by an evolution strategy.

    Fits labeled and unlabeled rows together (unlabeled rows: ``y = -1``). The individuals
    are ``(alpha, alpha*, y*)`` (see :mod:`~svmlab.estimators.evo._transductive`); the
    fitness is objective (I), the SVM dual over labeled and unlabeled rows with labels
    ``(y, y*)``, with ``b = 0`` (not stated in the thesis; docs/decisions/evo.md,
    "Transductive SVMs: unstated settings") and
    the bias set afterwards by mySVM's rule. The evolution is EvoSVM-G's (Gaussian
    mutation of ``alpha`` and ``alpha*`` with the 1/5 rule, uniform crossover, tournaments
    with elitism, plus-selection), with the thesis's Ch. 5 settings.

    Parameters
    ----------
    C : float, default=1.0
        Box of the labeled duals ``alpha_i``, > 0 (not given in the thesis; svmlab uses 1).
    C_u : float, default=1.0
        Box of the unlabeled duals ``alpha*_k`` (the thesis's ``C*``, not given), > 0.
    kernel : str, default="rbf"
        A kernel of :mod:`svmlab.kernels` (2-Moons: rbf; 4-/3-Clusters: linear).
    gamma, degree, kappa, delta, sigma1, sigma2, sigma3, shift : float or None, default=None
        Parameters of the chosen kernel (``None``: its default).
    y_mode : {"self_label", "literal", "minmax"}, default="self_label"
        How the unlabeled labels ``y*`` are treated (docs/decisions/evo.md, "Transductive
        SVMs: the direction of the search over y*"; see
        :mod:`~svmlab.estimators.evo._transductive`). ``"literal"`` is the thesis's text.
    population_size : int, default=10
        Population size (>= 2; thesis).
    max_generations : int, default=10000
        Maximum generations (thesis, Ch. 5).
    patience : int or None, default=10
        Stop after more than ``patience`` generations without improvement (thesis: 10).
    crossover_rate : float, default=0.9
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
        them with ``population_size``, ``max_generations``, ``patience``, ``crossover_rate``
        and ``tournament_frac``.
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
        **TRANSDUCTIVE_CONSTRAINTS,
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "C_u": [Interval(Real, 0.0, None, closed="neither")],
        "y_mode": [StrOptions({"self_label", "literal", "minmax"})],
        "max_generations": [Interval(Integral, 1, None, closed="left")],
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
        sigma1=None,
        sigma2=None,
        sigma3=None,
        shift=None,
        y_mode="self_label",
        population_size=10,
        max_generations=10000,
        patience=10,
        crossover_rate=0.9,
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
        self.sigma1 = sigma1
        self.sigma2 = sigma2
        self.sigma3 = sigma3
        self.shift = shift
        self.y_mode = y_mode
        self.population_size = population_size
        self.max_generations = max_generations
        self.patience = patience
        self.crossover_rate = crossover_rate
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
        X, classes, lab, Y, order, Xo, K, params, kernel_seconds = prepare_rows(self, X, y)
        self.classes_ = classes
        n, n_u = len(Y), int((~lab).sum())
        ub = np.concatenate([np.full(n, float(self.C)), np.full(n_u, float(self.C_u))])
        core = TransductiveCore(K, Y, n_u, ub, self.y_mode)
        rng = check_random_state(self.random_state)
        with threadpool_limits(limits=1, user_api="blas"):
            if self.y_mode == "minmax":
                g, info = self._minmax(core, rng)
            else:
                g, info = self._evolve(core, rng)
        a, ys = g[: core.N], g[core.N :]
        Yj = np.concatenate([Y, ys])
        b = joint_bias(K, Yj, a, ub, self._is_zero)
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
        mu, N = int(self.population_size), core.N
        A = core.initial(mu, rng, self.init)
        F = self._evaluate(core, A)
        evaluations = mu
        top = int(np.argmax(F))
        best_A, best_F = A[top].copy(), float(F[top])
        history = [best_F]
        step = float(self.sigma0_frac) * core.ub
        rule = OneFifthRule(self.one_fifth, core.L) if self.one_fifth != "off" else None
        generation, stale, stop = 0, 0, "max_gen"
        while generation < self.max_generations:
            if self.keep_best:
                win = tournament_select(F, mu - 1, self.tournament_frac, rng)
                A, F = np.concatenate([best_A[None, :], A[win]]), np.concatenate([[best_F], F[win]])
            else:
                win = tournament_select(F, mu, self.tournament_frac, rng)
                A, F = A[win], F[win]
            children, _ = uniform_crossover(A, self.crossover_rate, rng)
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

    # minmax: outer search over y*, exact inner maximum ------------------------------------------

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
            mu = int(self.population_size)
            S = np.where(rng.random_sample((mu, core.n_u)) < 0.5, -1.0, 1.0)
            # one start is the labelling of the inductive b = 0 SVM on the labeled rows
            a_lab, _, _ = box_dual_ascent(np.outer(core.y_lab, core.y_lab) * K[:n, :n], core.ub[:n])
            S[0] = np.where((a_lab * core.y_lab) @ K[:n, n:] >= 0, 1.0, -1.0)
            F = -np.array([inner(s) for s in S])
            top = int(np.argmax(F))
            best_S, best_F = S[top].copy(), float(F[top])
            history.append(-best_F)
            generations, stale, stop = 0, 0, "max_gen"
            while generations < self.max_generations:
                win = tournament_select(F, mu - 1, self.tournament_frac, rng)
                S, F = np.concatenate([best_S[None, :], S[win]]), np.concatenate([[best_F], F[win]])
                children, _ = uniform_crossover(S, self.crossover_rate, rng)
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
