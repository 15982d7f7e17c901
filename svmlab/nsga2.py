"""NSGA-II, shared by the multi-objective evolutionary SVMs (Mierswa (2009), Secs. 2.4, 3.2 and
5.4; docs/decisions/evo.md, "MO-EvoSVM: NSGA-II variant") and the multi-objective feature
selection and construction of Part II (Chs. 6, 8, 10; docs/decisions/mo_features.md).

Two engines run the same *problem* object (see :class:`MOProblem`), which owns the
genome, the vectorised evaluation and the thesis's variation operators:

``engine="rm"`` -- the scheme of the thesis's experiments (RapidMiner's ``ESOptimization``
with ``NonDominatedSortingSelection``, as read from RapidMiner's source). One generation:

1. *selection*: NSGA-II environmental selection of ``mu`` individuals from the whole pool
   (non-dominated sorting, the last front that does not fit cut by crowding distance);
2. *crossover*: the selected individuals are paired **at random** (no crowded tournament);
   each pair crosses with probability ``crossover_rate`` (uniform crossover) and both children
   join the pool;
3. *mutation*: every pool member (children included) gets a mutated clone, which joins the
   pool if a gene changed;
4. the new individuals are evaluated.

So the next selection is a plus-selection over parents, children and mutants (about
``3 mu`` individuals). After the last generation the pool is reduced to ``mu`` once more.
The crowding distance is RapidMiner's **unnormalised** sum of neighbour gaps by default
(``crowding="raw"``), or Deb's normalised one (``"normalized"``).

``engine="pymoo"`` -- :class:`pymoo.algorithms.moo.nsga2.NSGA2` with the thesis's operators
plugged in (the problem's initial population, uniform crossover, the problem's mutation)
and duplicate elimination off (a zero-initialised population is all duplicates). This is
Deb's original NSGA-II and differs from the thesis's runs in three ways: parents are
chosen by binary tournaments (domination, then crowding distance) instead of at random; each
generation makes ``mu`` offspring, each one crossed **and** mutated, instead of keeping the
crossover children and the mutants as separate individuals; the crowding distance is
normalised by each objective's range.

Both engines sort with pymoo's non-dominated sorting (``moocore``); every objective is
**maximised** here (the thesis's convention) and negated for pymoo.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

__all__ = [
    "MOProblem",
    "crowding_distance",
    "dominates",
    "non_dominated",
    "nsga2_survival",
    "run_nsga2",
    "uniform_crossover",
]


class MOProblem(Protocol):
    """What an NSGA-II engine needs from a problem (all objectives maximised).

    Individuals are rows of a float array ``A`` of shape ``(P, n_var)``. ``aux`` is a
    per-row float array (shape ``(P, k)``, ``k`` may be 0) that the problem keeps next to
    each individual, e.g. ``Q alpha`` for incremental evaluation.
    """

    n_var: int
    n_obj: int
    lower: np.ndarray
    upper: np.ndarray

    def initial(self, P: int, rng) -> np.ndarray:
        """The initial population, shape ``(P, n_var)``."""

    derives_genes: bool

    def evaluate(self, A: np.ndarray, derive: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Objectives ``(P, n_obj)`` and ``aux`` of every row.

        A problem with ``derives_genes`` (self-labelling transductive SVM) first rewrites
        the derived genes of ``A`` in place when ``derive``; ``derive=False`` evaluates the
        genes as they stand.
        """

    def derive(self, children, base, A, aux) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`evaluate` for rows derived from ``A[base]`` (whose ``aux`` is known)."""

    def mutate(self, A, aux, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mutated clones of the rows of ``A`` that changed, with their objectives and ``aux``."""

    def mutate_genes(self, A: np.ndarray, rng) -> np.ndarray:
        """Mutate the rows of ``A`` in place (no evaluation) and return ``A``."""


# -- variation -------------------------------------------------------------------------------


def uniform_crossover(A: np.ndarray, crossover_rate: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Children of uniform crossover and the parent each one is closest to.

    The rows are paired at random (``floor(P / 2)`` disjoint pairs); each pair crosses with
    probability ``crossover_rate`` and then swaps every gene with probability 1/2, giving two
    children: the first keeps the unswapped genes of the first parent, the second those of the
    second.

    Returns
    -------
    children : ndarray of shape (2 * n_crossed_pairs, n)
    base : ndarray of shape (2 * n_crossed_pairs,)
        Row of ``A`` each child is derived from (first parent for the first child, second
        parent for the second).
    """
    P, n = A.shape
    perm = rng.permutation(P)
    pairs = perm[: 2 * (P // 2)].reshape(-1, 2)
    pairs = pairs[rng.random_sample(len(pairs)) < crossover_rate]
    if not len(pairs):
        return np.empty((0, n)), np.empty(0, dtype=np.intp)
    swap = rng.random_sample((len(pairs), n)) < 0.5
    a, b = A[pairs[:, 0]], A[pairs[:, 1]]
    children = np.concatenate([np.where(swap, b, a), np.where(swap, a, b)])
    return children, np.concatenate([pairs[:, 0], pairs[:, 1]])


# -- domination ---------------------------------------------------------------------------------


def dominates(a, b) -> bool:
    """``a`` dominates ``b`` (maximisation, Def. 2.14): no worse anywhere, better somewhere."""
    a, b = np.asarray(a), np.asarray(b)
    return bool(np.all(a >= b) and np.any(a > b))


def _sort(F: np.ndarray, n_stop: int | None = None) -> list[np.ndarray]:
    """Non-dominated fronts of ``F`` (maximised), best first (pymoo / moocore)."""
    from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

    if len(F) == 0:
        return []
    return NonDominatedSorting().do(-np.asarray(F, dtype=np.float64), n_stop_if_ranked=n_stop)


def non_dominated(F: np.ndarray) -> np.ndarray:
    """Indices (ascending) of the rows of ``F`` that no other row dominates (maximisation)."""
    fronts = _sort(F)
    return np.sort(fronts[0]) if fronts else np.empty(0, dtype=np.intp)


# -- crowding and survival ---------------------------------------------------------------------


def crowding_distance(F: np.ndarray, normalize: bool) -> np.ndarray:
    """NSGA-II crowding distance of the points of one front.

    Per objective, the points are sorted; the two extremes get ``inf`` and every other point
    adds the gap between its two neighbours, divided by the objective's range when
    ``normalize`` (Deb et al. 2002), as it is otherwise (RapidMiner). Fronts of at most two
    points are all ``inf``.
    """
    F = np.asarray(F, dtype=np.float64)
    P, m = F.shape
    d = np.zeros(P)
    if P <= 2:
        return np.full(P, np.inf)
    for j in range(m):
        order = np.argsort(F[:, j], kind="stable")
        f = F[order, j]
        gaps = f[2:] - f[:-2]
        if normalize:
            span = f[-1] - f[0]
            gaps = gaps / span if span > 0 else np.zeros_like(gaps)
        d[order[1:-1]] += gaps
        d[order[0]] = d[order[-1]] = np.inf
    return d


def nsga2_survival(F: np.ndarray, k: int, normalize: bool, rng) -> np.ndarray:
    """Indices of the ``k`` individuals NSGA-II keeps: whole fronts, best first; the front
    that does not fit is cut by descending crowding distance (ties in random order)."""
    keep: list[int] = []
    for front in _sort(F, n_stop=k):
        if len(keep) + len(front) <= k:
            keep.extend(front.tolist())
            continue
        cd = crowding_distance(F[front], normalize)
        perm = rng.permutation(len(front))
        order = perm[np.argsort(-cd[perm], kind="stable")]
        keep.extend(front[order[: k - len(keep)]].tolist())
        break
    return np.asarray(keep, dtype=np.intp)


# -- engines --------------------------------------------------------------------------------------


def _run_rm(problem, mu, max_generations, crossover_rate, normalize, rng):
    A = problem.initial(mu, rng)
    F, aux = problem.evaluate(A)
    evaluations = len(A)
    for _ in range(max_generations):
        keep = nsga2_survival(F, mu, normalize, rng)
        A, F, aux = A[keep], F[keep], aux[keep]
        children, base = uniform_crossover(A, crossover_rate, rng)
        if len(children):
            Fc, auxc = problem.derive(children, base, A, aux)
            A, F, aux = (
                np.concatenate([A, children]),
                np.concatenate([F, Fc]),
                np.concatenate([aux, auxc]),
            )
            evaluations += len(children)
        M, Fm, auxm = problem.mutate(A, aux, rng)
        if len(M):
            A, F, aux = np.concatenate([A, M]), np.concatenate([F, Fm]), np.concatenate([aux, auxm])
            evaluations += len(M)
    keep = nsga2_survival(F, mu, normalize, rng)
    return A[keep], evaluations


def _run_pymoo(problem, mu, max_generations, crossover_rate, rng):
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.crossover import Crossover
    from pymoo.core.mutation import Mutation
    from pymoo.core.problem import Problem
    from pymoo.core.sampling import Sampling
    from pymoo.optimize import minimize

    counter = {"evaluations": 0}

    class _Problem(Problem):
        def __init__(self):
            super().__init__(
                n_var=problem.n_var, n_obj=problem.n_obj, xl=problem.lower, xu=problem.upper
            )

        def _evaluate(self, X, out, *args, **kwargs):
            F, _ = problem.evaluate(X)  # may rewrite derived genes (self-labelling) in X
            counter["evaluations"] += len(X)
            out["F"] = -F  # pymoo minimises

    # The thesis's operators draw from the estimator's RandomState (pymoo's own Generator,
    # seeded from it, drives mating selection and survival ties): a seed fixes the run.
    class _Initial(Sampling):
        def _do(self, pymoo_problem, n_samples, *args, random_state=None, **kwargs):
            return problem.initial(n_samples, rng)

    class _UniformCrossover(Crossover):
        def __init__(self, prob):
            super().__init__(n_parents=2, n_offsprings=2, prob=prob)

        def _do(self, pymoo_problem, X, *args, random_state=None, **kwargs):
            swap = rng.random_sample(X.shape[1:]) < 0.5  # each gene swapped with probability 1/2
            return np.stack([np.where(swap, X[1], X[0]), np.where(swap, X[0], X[1])])

    class _Mutation(Mutation):
        def _do(self, pymoo_problem, X, *args, random_state=None, **kwargs):
            X = problem.mutate_genes(np.array(X, dtype=np.float64), rng)
            if problem.derives_genes:  # pymoo keeps the genes it passed to the evaluation, so
                problem.evaluate(X)  # derived genes are rewritten here, where they are kept
            return X

    algorithm = NSGA2(
        pop_size=mu,
        sampling=_Initial(),
        crossover=_UniformCrossover(crossover_rate),
        mutation=_Mutation(prob=1.0),
        eliminate_duplicates=False,
    )
    # pymoo counts the initial population as generation 1
    res = minimize(
        _Problem(),
        algorithm,
        ("n_gen", max_generations + 1),
        seed=int(rng.randint(2**31 - 1)),
        verbose=False,
    )
    X = np.array(res.pop.get("X"), dtype=np.float64)
    if problem.derives_genes:
        problem.evaluate(X)  # the derived genes the last evaluation used
    return X, counter["evaluations"]


def run_nsga2(
    problem,
    *,
    population_size: int,
    max_generations: int,
    crossover_rate: float,
    engine: str,
    crowding: str,
    rng,
) -> tuple[np.ndarray, int]:
    """Run NSGA-II for ``max_generations`` generations after the initial population;
    returns the final population (``population_size`` rows, not yet sorted) and the number of
    evaluated individuals."""
    mu = population_size
    if engine == "rm":
        return _run_rm(problem, mu, max_generations, crossover_rate, crowding == "normalized", rng)
    if engine == "pymoo":
        return _run_pymoo(problem, mu, max_generations, crossover_rate, rng)
    raise ValueError(f"unknown NSGA-II engine {engine!r}; valid: rm, pymoo")


def final_front(problem, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rank-1 members of a final population, objectives recomputed from scratch.

    Returns ``(A_front, F_front)``; identical genomes appear once.
    """
    A = np.array(A, dtype=np.float64)
    F, _ = problem.evaluate(A, derive=False)  # dense, no incremental rounding
    idx = non_dominated(F)
    _, first = np.unique(A[idx], axis=0, return_index=True)
    idx = idx[np.sort(first)]
    return A[idx], F[idx]
