"""NSGA-II over feature masks with a cached, parallel objective (Mierswa (2009), Chs. 6 and 8;
docs/decisions/mo_features.md).

This is the search that the multi-objective feature selections share: the supervised wrapper
(:class:`svmlab.selection.MOFeatureSelector`, Sec. 6.2) and the unsupervised selection for
clustering (Ch. 8). An individual is a bit vector of length ``m``, one bit per feature
(Sec. 8.4); the thesis's NSGA-II settings are the defaults (Sec. 8.4): population ``2m``,
1000 generations, bit-flip mutation with probability ``1/m`` per bit, uniform crossover with
probability 0.9. The engines are those of :mod:`svmlab.nsga2`: ``"rm"`` pairs parents at random
and keeps parents, crossover children and mutants for the next plus-selection (the scheme of the
thesis's RapidMiner runs), ``"pymoo"`` is Deb's NSGA-II with binary crowded tournaments.

Two things make the search affordable:

* **a fitness cache**: an objective value is computed once per distinct mask. NSGA-II keeps
  re-creating the masks it already has (crossover of similar parents, mutants of elite
  members), so most requests after the first generations are hits;
* **parallel evaluation**: the masks a generation has not seen are evaluated with joblib.

A mask with no feature is never evaluated: the operators that could produce one switch on one
random feature instead (the thesis's RapidMiner runs drop such offspring; with fixed-size
arrays a repair keeps the pool size, see the decisions file).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.utils import check_random_state

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.nsga2 import non_dominated, run_nsga2

__all__ = [
    "ENGINES",
    "CROWDING",
    "SEARCH_CONSTRAINTS",
    "SEARCH_PARAMETERS",
    "MaskSearchMixin",
    "MaskSearchResult",
    "MaskObjective",
    "search_masks",
]

ENGINES = ("rm", "pymoo")
CROWDING = ("raw", "normalized")
#: scikit-learn parameter constraints of those settings (and ``random_state``).
SEARCH_CONSTRAINTS = {
    "population_size": [Interval(Integral, 4, None, closed="left"), None],
    "max_generations": [Interval(Integral, 0, None, closed="left")],
    "crossover_rate": [Interval(Real, 0, 1, closed="both")],
    "gene_mutation_rate": [Interval(Real, 0, 1, closed="right"), None],
    "p_initial": [Interval(Real, 0, 1, closed="right")],
    "engine": [StrOptions(set(ENGINES))],
    "crowding": [StrOptions(set(CROWDING))],
    "cache": ["boolean"],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
    "record_history": ["boolean"],
}
#: The estimator parameters a selector passes on to :func:`search_masks` unchanged.
SEARCH_PARAMETERS = (
    "population_size",
    "max_generations",
    "crossover_rate",
    "gene_mutation_rate",
    "p_initial",
    "engine",
    "crowding",
    "cache",
    "n_jobs",
    "record_history",
)


@dataclass
class MaskSearchResult:
    """What :func:`search_masks` found.

    Attributes
    ----------
    masks : ndarray of bool, shape (n_front, m)
        The distinct non-dominated members of the final population, in ascending order of
        their number of features (ties: first objective descending).
    objectives : ndarray of shape (n_front, n_objectives)
        Their objective values (all maximised).
    population : ndarray of bool, shape (population_size, m)
        The final population.
    n_requests : int
        Objective values the search asked for (cache hits included).
    n_evaluations : int
        Objective values actually computed (distinct masks).
    generations : int
        Generations run.
    history : list of ndarray
        Per generation (the initial population first), the objectives of the non-dominated
        members of everything evaluated so far; empty unless ``record_history``.
    """

    masks: np.ndarray
    objectives: np.ndarray
    population: np.ndarray
    n_requests: int
    n_evaluations: int
    generations: int
    history: list = field(default_factory=list)

    @property
    def cache_hit_rate(self) -> float:
        """Share of requested objective values served by the cache."""
        return 1.0 - self.n_evaluations / self.n_requests if self.n_requests else 0.0


class MaskObjective:
    """Wraps an objective ``f(mask) -> objectives`` with a cache and joblib parallelism.

    Parameters
    ----------
    fn : callable
        ``fn(mask: ndarray of bool) -> sequence of float`` (maximised). It must be picklable
        when ``n_jobs != 1`` (a module-level function or a small object).
    n_objectives : int
    cache : bool
        Keep every computed value, keyed by the packed mask.
    n_jobs : int or None
        joblib ``n_jobs`` for the masks of one call that are not cached.
    """

    def __init__(self, fn: Callable, n_objectives: int, *, cache: bool = True, n_jobs=1):
        self.fn, self.n_objectives, self.cache, self.n_jobs = fn, n_objectives, cache, n_jobs
        self.values: dict[bytes, np.ndarray] = {}
        self.n_requests = 0
        self.n_evaluations = 0
        self._parallel = None

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        self.n_requests += len(masks)
        keys = [np.packbits(m).tobytes() for m in masks]
        if self.cache:
            todo = list(dict.fromkeys(k for k in keys if k not in self.values))
            first = {k: i for i, k in reversed(list(enumerate(keys)))}
            rows = [first[k] for k in todo]
        else:
            todo, rows = keys, list(range(len(keys)))
        computed = self._evaluate(masks[rows]) if rows else np.empty((0, self.n_objectives))
        self.n_evaluations += len(rows)
        if not self.cache:
            return computed
        self.values.update(zip(todo, computed, strict=True))
        return np.array([self.values[k] for k in keys], dtype=np.float64).reshape(
            len(keys), self.n_objectives
        )

    def _evaluate(self, masks: np.ndarray) -> np.ndarray:
        if self.n_jobs in (None, 1) or len(masks) == 1:
            out = _evaluate_chunk(self.fn, masks)
        else:
            if self._parallel is None:  # one pool for the whole search
                self._parallel = Parallel(n_jobs=self.n_jobs)
            # a few chunks of masks per worker: the objective (which holds the data) is sent
            # a few times per generation, not once per mask
            n_chunks = min(len(masks), 4 * effective_n_jobs(self.n_jobs))
            chunks = np.array_split(masks, n_chunks)
            parts = self._parallel(delayed(_evaluate_chunk)(self.fn, c) for c in chunks)
            out = [value for part in parts for value in part]
        F = np.asarray(out, dtype=np.float64).reshape(len(masks), self.n_objectives)
        if not np.all(np.isfinite(F)):
            raise ValueError(
                "the feature-selection objective returned a non-finite value; objectives must "
                "map every non-empty mask to finite numbers (use a worst finite value for "
                "degenerate subsets)"
            )
        return F


def _evaluate_chunk(fn, masks) -> list:
    return [fn(m) for m in masks]


class _MaskProblem:
    """The :class:`svmlab.nsga2.MOProblem` of a bit-mask search (genes are 0.0 / 1.0)."""

    derives_genes = False

    def __init__(
        self, objective: MaskObjective, m: int, gene_mutation_rate: float, p_initial: float
    ):
        self.objective, self.n_var, self.n_obj = objective, m, objective.n_objectives
        self.lower, self.upper = np.zeros(m), np.ones(m)
        self.gene_mutation_rate, self.p_initial = gene_mutation_rate, p_initial
        self.history: list[np.ndarray] | None = None

    def _repair(self, A: np.ndarray, rng) -> np.ndarray:
        empty = np.flatnonzero(A.sum(axis=1) == 0)
        if len(empty):
            A[empty, rng.randint(self.n_var, size=len(empty))] = 1.0
        return A

    def initial(self, P: int, rng) -> np.ndarray:
        self._rng = rng  # the engine's generator, for repairing crossover children
        A = (rng.random_sample((P, self.n_var)) < self.p_initial).astype(np.float64)
        return self._repair(A, rng)

    def evaluate(self, A: np.ndarray, derive: bool = True):
        F = self.objective(np.asarray(A) > 0.5)
        return F, np.empty((len(A), 0))

    def derive(self, children, base, A, aux):
        self._repair(children, self._rng)  # in place: the engine keeps these rows
        return self.evaluate(children)

    def mutate_genes(self, A: np.ndarray, rng) -> np.ndarray:
        flip = rng.random_sample(A.shape) < self.gene_mutation_rate
        A[flip] = 1.0 - A[flip]
        return self._repair(A, rng)

    def mutate(self, A, aux, rng):
        M = self.mutate_genes(np.array(A, dtype=np.float64), rng)
        changed = np.any(M != A, axis=1)
        M = M[changed]
        F, auxm = self.evaluate(M) if len(M) else (np.empty((0, self.n_obj)), np.empty((0, 0)))
        return M, F, auxm


def _check(name, value, kind, low, high, *, low_open=False, allow_none=False):
    if value is None and allow_none:
        return
    ok = isinstance(value, kind) and not isinstance(value, bool)
    ok = ok and (value > low if low_open else value >= low) and (high is None or value <= high)
    if not ok:
        span = f"{'(' if low_open else '['}{low}, {high if high is not None else 'inf'}]"
        raise ValueError(f"{name} must be a number in {span}, got {value!r}")


def _check_choices(n_features, engine, crowding) -> None:
    """Refuse a mask length, engine or crowding :func:`search_masks` does not know."""
    if not isinstance(n_features, Integral) or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if crowding not in CROWDING:
        raise ValueError(f"crowding must be one of {', '.join(CROWDING)}, got {crowding!r}")


def _check_ranges(
    population_size, max_generations, crossover_rate, gene_mutation_rate, p_initial
) -> None:
    """Refuse a search setting of :func:`search_masks` out of its range, naming it."""
    _check("population_size", population_size, Integral, 4, None, allow_none=True)
    _check("max_generations", max_generations, Integral, 0, None)
    _check("crossover_rate", crossover_rate, Real, 0, 1)
    _check("gene_mutation_rate", gene_mutation_rate, Real, 0, 1, low_open=True, allow_none=True)
    _check("p_initial", p_initial, Real, 0, 1, low_open=True)


def _result(fn, population, generations: int, history) -> MaskSearchResult:
    """The search's result from the final ``population`` (boolean masks): its first front,
    each mask once, fewest features first (then the best first objective), and the
    objective's request counts of the search (the front's objectives come from its cache)."""
    requests, evaluations = fn.n_requests, fn.n_evaluations
    F = fn(population)  # cached: the objectives of the final population
    front = non_dominated(F)
    _, first = np.unique(population[front], axis=0, return_index=True)
    front = front[np.sort(first)]
    masks, objectives = population[front], F[front]
    order = np.lexsort((-objectives[:, 0], masks.sum(axis=1)))
    return MaskSearchResult(
        masks=masks[order],
        objectives=objectives[order],
        population=population,
        n_requests=requests,
        n_evaluations=evaluations,
        generations=generations,
        history=history,
    )


def search_masks(
    objective: Callable,
    n_features: int,
    *,
    n_objectives: int = 2,
    population_size: int | None = None,
    max_generations: int = 1000,
    crossover_rate: float = 0.9,
    gene_mutation_rate: float | None = None,
    p_initial: float = 0.5,
    engine: str = "rm",
    crowding: str = "raw",
    cache: bool = True,
    n_jobs=1,
    random_state=None,
    record_history: bool = False,
) -> MaskSearchResult:
    """Multi-objective search over feature masks (NSGA-II; every objective maximised).

    Parameters
    ----------
    objective : callable
        ``objective(mask) -> sequence of n_objectives floats`` for a non-empty boolean mask.
    n_features : int
        ``m``, the mask length.
    n_objectives : int, default=2
    population_size : int, optional
        Default ``2m`` (Mierswa (2009), Sec. 8.4), at least 4.
    max_generations : int, default=1000
        Sec. 8.4.
    crossover_rate : float, default=0.9
        Probability that a parent pair is crossed (uniform crossover), Sec. 8.4.
    gene_mutation_rate : float, optional
        Bit-flip probability per bit, default ``1/m`` (Sec. 8.4).
    p_initial : float, default=0.5
        Probability that a feature is on in an initial individual (the thesis does not say;
        RapidMiner's feature-selection GA starts this way).
    engine : {"rm", "pymoo"}, default="rm"
        See :mod:`svmlab.nsga2`.
    crowding : {"raw", "normalized"}, default="raw"
        Crowding distance of the ``"rm"`` engine.
    cache : bool, default=True
        Compute each distinct mask's objectives once.
    n_jobs : int, default=1
        joblib workers for the masks of one generation.
    random_state : int, RandomState or None
    record_history : bool, default=False
        Keep each generation's first front (for convergence figures).

    Returns
    -------
    MaskSearchResult
    """
    _check_choices(n_features, engine, crowding)
    _check_ranges(population_size, max_generations, crossover_rate, gene_mutation_rate, p_initial)
    m = int(n_features)
    rng = check_random_state(random_state)
    mu = int(population_size) if population_size is not None else max(4, 2 * m)
    fn = MaskObjective(objective, n_objectives, cache=cache, n_jobs=n_jobs)
    per_gene = 1.0 / m if gene_mutation_rate is None else float(gene_mutation_rate)
    problem = _MaskProblem(fn, m, per_gene, p_initial)
    history: list[np.ndarray] = []
    if record_history:
        problem = _Recording(problem, history)
    population, _ = run_nsga2(
        problem,
        population_size=mu,
        max_generations=int(max_generations),
        crossover_rate=float(crossover_rate),
        engine=engine,
        crowding=crowding,
        rng=rng,
    )
    return _result(fn, np.asarray(population) > 0.5, int(max_generations), history)


class _Recording:
    """A problem proxy that records, once per generation, the front of all evaluated members.

    The ``"rm"`` engine evaluates the initial population, then per generation the crossover
    children (:meth:`derive`) and the mutants (:meth:`mutate`, the generation's last step);
    the ``"pymoo"`` engine evaluates one offspring population per generation.
    """

    def __init__(self, problem: _MaskProblem, history: list):
        self._p, self._history = problem, history
        self._pool: list[np.ndarray] = []

    def __getattr__(self, name):
        return getattr(self._p, name)

    def _note(self, F, record: bool = True):
        pool = np.concatenate([*self._pool, F])
        self._pool = [np.unique(pool[non_dominated(pool)], axis=0)]
        if record:
            self._history.append(self._pool[0])

    def evaluate(self, A, derive=True):
        F, aux = self._p.evaluate(A, derive)
        self._note(F)
        return F, aux

    def derive(self, children, base, A, aux):
        F, aux = self._p.derive(children, base, A, aux)
        self._note(F, record=False)
        return F, aux

    def mutate(self, A, aux, rng):
        M, F, auxm = self._p.mutate(A, aux, rng)
        self._note(F)
        return M, F, auxm


class MaskSearchMixin:
    """For feature selectors whose search settings are the :data:`SEARCH_PARAMETERS` of
    :func:`search_masks` (the supervised wrapper and the clustering selection)."""

    def _search_masks(self, objective, n_features: int, rng, n_objectives: int = 2):
        settings = {name: getattr(self, name) for name in SEARCH_PARAMETERS}
        return search_masks(
            objective, n_features, n_objectives=n_objectives, random_state=rng, **settings
        )

    def _member_features(self, masks) -> list:
        """Each mask's features: names when ``X`` had string column names, else indices."""
        names = getattr(self, "feature_names_in_", None)
        return [
            [str(names[j]) for j in np.flatnonzero(m)]
            if names is not None
            else np.flatnonzero(m).tolist()
            for m in masks
        ]
