"""PsoSVM: the SVM dual maximised by particle swarm optimisation (Mierswa 2009, §3.1.2.2).
Readings: docs/decisions/evo.md, "PsoSVM: population, stopping and random factors"."""

from __future__ import annotations

from numbers import Real

import numpy as np

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.estimators.evo._base import COMMON_CONSTRAINTS, BaseDualEvolution
from svmlab.estimators.evo._fitness import DualFitness, improves

__all__ = ["PsoSVMClassifier"]


class PsoSVMClassifier(BaseDualEvolution):
    """PsoSVM: a binary kernel SVM whose dual is maximised by a particle swarm.

    Same problem as :class:`EvoSVMClassifier`: particles are dual vectors ``alpha`` in
    ``[0, C]^n``, the fitness is ``W(alpha) = sum_i alpha_i - 1/2 alpha^T Q alpha`` without the
    equality constraint (b = 0 trick), and the bias of the global best is set afterwards by
    mySVM's rule (with RapidMiner's PSO tolerance 1e-10).

    Every generation, for every particle and every gene (fresh random numbers ``r``)::

        v <- w v + w_local r_local (pbest - x) + w_global r_global (gbest - x)
        x <- clip(x + v, 0, C)

    with ``pbest`` the particle's own best position and ``gbest`` the swarm's. The inertia
    weight ``w`` starts at ``inertia`` and, with ``dynamic_inertia``, decreases linearly by
    ``inertia / max_generations`` per generation (RapidMiner's dynamic adaptation).

    Parameters
    ----------
    C : float or "auto", default=1.0
        Upper bound of every ``alpha_i``; > 0. ``"auto"``: ``C = n / sum_i K(x_i, x_i)``.
    kernel : str, default="rbf"
        A kernel of :mod:`svmlab.kernels` (see :class:`EvoSVMClassifier`).
    gamma, degree, kappa, delta, sigma1, sigma2, sigma3, shift : float or None, default=None
        Parameters of the chosen kernel (``None``: its default); ``rbf`` is
        ``exp(-gamma ||x - y||^2)`` (the thesis's tabulated "sigma" is this ``gamma``).
    population_size : int, default=10
        Number of particles (>= 2). Not stated in the thesis; RapidMiner's default.
    max_generations : int, default=500
        Maximum number of generations (not stated in the thesis; RapidMiner's default).
    patience : int or None, default=10
        Stop when the global best has not improved for more than ``patience`` generations
        (not stated in the thesis; RapidMiner's default). ``None``: never.
    inertia : float, default=0.1
        Initial inertia weight ``w`` (thesis).
    w_local : float, default=1.0
        Weight of the particle's own best (thesis).
    w_global : float, default=1.0
        Weight of the swarm's best (thesis).
    dynamic_inertia : bool, default=True
        Decrease ``w`` linearly to 0 over ``max_generations`` generations.
    r_dist : {"uniform", "rm_gauss1"}, default="uniform"
        Distribution of the random factors: uniform on [0, 1] (the thesis's §2.3.3.1) or
        ``N(0, 1) + 1`` (RapidMiner's implementation).
    init : {"uniform", "zeros"}, default="uniform"
        Initial positions; velocities start at 0.
    random_state : int, RandomState instance or None, default=None
        Seeds the whole run: the same seed gives the same model.

    Attributes
    ----------
    classes_, alpha_, support_, support_vectors_, dual_coef_, intercept_, n_support_, C_
        As in :class:`EvoSVMClassifier`.
    fit_info_ : dict
        ``variant`` ("PSO"), ``generations``, ``evaluations``, ``stop_reason`` ("max_gen" or
        "patience"), ``objective``, ``eq_violation``, ``intercept``, ``C``, ``kernel``,
        ``kernel_params``, ``n_samples``, ``n_sv``, ``n_free_sv``, ``n_bounded_sv``,
        ``inertia_final``, ``kernel_seconds``, ``optimize_seconds``, ``seconds`` and
        ``history`` (global best fitness after the initial swarm and after every generation).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    EvoSVMClassifier : the evolution strategy variants G, S and H.

    Notes
    -----
    Every generation evaluates the whole swarm with one matrix product against the
    ``Q = (y y^T) * K`` computed once per fit, with one BLAS thread (see
    :class:`EvoSVMClassifier`). The global best changes only on an improvement larger than
    ``1e-12`` relative.

    With the thesis's uniform random factors the swarm contracts onto the best initial
    particles within a few dozen generations and, from the uniform start in ``[0, C]^n``,
    often ends far below the dual optimum (even below ``W(0) = 0`` when the kernel values are
    nearly constant, e.g. RBF with a small ``gamma`` on raw features). RapidMiner's
    ``N(0, 1) + 1`` factors (``r_dist="rm_gauss1"``) keep it exploring longer.

    References
    ----------
    I. Mierswa, *Non-Convex and Multi-Objective Optimization in Data Mining*, PhD thesis,
    TU Dortmund, 2009, §2.3.3.1 and §3.1.2.2.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from svmlab.estimators.evo import PsoSVMClassifier
    >>> X, y = make_blobs(60, centers=2, random_state=0)
    >>> clf = PsoSVMClassifier(gamma=0.5, random_state=0).fit(X, y)
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    _is_zero = 1e-10
    _variant = "PSO"

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        "inertia": [Interval(Real, 0.0, None, closed="left")],
        "w_local": [Interval(Real, 0.0, None, closed="left")],
        "w_global": [Interval(Real, 0.0, None, closed="left")],
        "dynamic_inertia": ["boolean"],
        "r_dist": [StrOptions({"uniform", "rm_gauss1"})],
    }

    def __init__(
        self,
        C=1.0,
        kernel="rbf",
        gamma=None,
        degree=None,
        kappa=None,
        delta=None,
        sigma1=None,
        sigma2=None,
        sigma3=None,
        shift=None,
        population_size=10,
        max_generations=500,
        patience=10,
        inertia=0.1,
        w_local=1.0,
        w_global=1.0,
        dynamic_inertia=True,
        r_dist="uniform",
        init="uniform",
        random_state=None,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.kappa = kappa
        self.delta = delta
        self.sigma1 = sigma1
        self.sigma2 = sigma2
        self.sigma3 = sigma3
        self.shift = shift
        self.population_size = population_size
        self.max_generations = max_generations
        self.patience = patience
        self.inertia = inertia
        self.w_local = w_local
        self.w_global = w_global
        self.dynamic_inertia = dynamic_inertia
        self.r_dist = r_dist
        self.init = init
        self.random_state = random_state

    def _random_factors(self, shape, rng) -> np.ndarray:
        if self.r_dist == "uniform":
            return rng.random_sample(shape)
        return rng.standard_normal(shape) + 1.0

    def _optimize(self, fitness: DualFitness, rng) -> tuple[np.ndarray, dict]:
        n, C, P = fitness.n, fitness.C, int(self.population_size)
        X = rng.random_sample((P, n)) * C if self.init == "uniform" else np.zeros((P, n))
        V = np.zeros_like(X)
        F, _ = fitness.evaluate(X)
        evaluations = P
        pbest, pbest_F = X.copy(), F.copy()
        top = int(np.argmax(F))
        gbest, gbest_F = X[top].copy(), float(F[top])
        history = [gbest_F]
        w = float(self.inertia)
        dw = w / self.max_generations if self.dynamic_inertia else 0.0
        generation, stale, stop = 0, 0, "max_gen"

        while generation < self.max_generations:
            r_local = self._random_factors((P, n), rng)
            r_global = self._random_factors((P, n), rng)
            V *= w
            V += self.w_local * r_local * (pbest - X)
            V += self.w_global * r_global * (gbest[None, :] - X)
            X += V
            np.clip(X, 0.0, C, out=X)
            F, _ = fitness.evaluate(X)
            evaluations += P
            better = F > pbest_F
            pbest[better] = X[better]
            pbest_F[better] = F[better]
            generation += 1
            top = int(np.argmax(F))
            if improves(float(F[top]), gbest_F):
                gbest, gbest_F = X[top].copy(), float(F[top])
                stale = 0
            else:
                stale += 1
            history.append(gbest_F)
            w = max(0.0, w - dw)
            if self.patience is not None and stale > self.patience:
                stop = "patience"
                break

        info = {
            "generations": generation,
            "evaluations": int(evaluations),
            "stop_reason": stop,
            "history": history,
            "inertia_final": float(w),
        }
        return gbest, info
