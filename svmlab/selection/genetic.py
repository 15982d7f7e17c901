"""A genetic-algorithm wrapper that picks the feature subset a multi-instance learner does best on
(the wrapper stage of HyDR-MI: Zafra, Pechenizkiy & Ventura, Sec. 3.3 and 4.2;
docs/decisions/hydrmi.md).

An individual is a bit mask over the features. Its fitness is the learner's sensitivity x
specificity (bag level, pooled over an inner stratified cross-validation of the training bags),
so a learner that predicts one class everywhere scores 0. The search is pymoo's genetic
algorithm with the paper's settings and the generational elitist scheme of the authors' JCLEC
library: binary tournaments pick ``population_size`` parents; consecutive pairs are crossed at one
point with probability ``crossover_rate``; each child is mutated with probability
``mutation_rate``, flipping each bit with probability ``gene_mutation_rate``; the children
replace the parents, except that the best parent replaces the worst child when no child is as
good.

Fitness values are cached by mask (crossover and elitism recreate many masks); the selector reports
how many evaluations the cache saved. A learner whose fit decomposes over the features (MIWrapper
with Weka's naive Bayes) scores a mask from per-feature tables built once per inner fold instead
of refitting, with exactly the refit's values (``fitness_tables``).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from pymoo.algorithms.soo.nonconvex.ga import GA, comp_by_cv_and_fitness
from pymoo.core.problem import Problem
from pymoo.core.survival import Survival
from pymoo.operators.crossover.pntx import SinglePointCrossover
from pymoo.operators.mutation.bitflip import BitflipMutation
from pymoo.operators.sampling.rnd import BinaryRandomSampling
from pymoo.operators.selection.tournament import TournamentSelection
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state

from svmlab._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from svmlab.bags import check_bag_labels, check_bags
from svmlab.selection.mi_filter import BagColumnSelectorMixin
from svmlab.selection.mo_search import MaskObjective

__all__ = [
    "FitnessCache",
    "GeneticFeatureSelector",
    "check_estimator",
    "sensitivity_x_specificity",
]

FITNESS_EVALUATIONS = ("inner_cv", "resubstitution")


def sensitivity_x_specificity(y_true, y_pred) -> float:
    """``TP/(TP+FN) * TN/(TN+FP)`` for 0/1 (or boolean) labels, 1 = positive; 0 when a class is
    absent from ``y_true``."""
    y_true, y_pred = np.asarray(y_true, bool), np.asarray(y_pred, bool)
    pos, neg = y_true.sum(), (~y_true).sum()
    if pos == 0 or neg == 0:
        return 0.0
    return float((y_pred & y_true).sum() / pos * (~y_pred & ~y_true).sum() / neg)


def check_estimator(estimator, who: str) -> None:
    """Refuse a missing wrapped classifier with one clear line."""
    if estimator is None:
        raise ValueError(
            f"{who} needs an estimator: the multi-instance classifier to select features for "
            "(e.g. estimator=SimpleMIClassifier())"
        )


class FitnessCache(MaskObjective):
    """Scalar fitness of feature masks, each mask evaluated once (the cache and joblib
    evaluation of :class:`svmlab.selection.mo_search.MaskObjective`, for one objective).

    Parameters
    ----------
    evaluate : callable
        ``evaluate(mask) -> float`` for a boolean mask.
    n_jobs : int or None
        Evaluate the new masks of one generation in parallel (joblib).
    """

    def __init__(self, evaluate, n_jobs=None):
        super().__init__(evaluate, 1, cache=True, n_jobs=n_jobs)
        self.evaluate = evaluate

    @property
    def requests(self) -> int:
        """Fitness values asked for."""
        return self.n_requests

    @property
    def evaluations(self) -> int:
        """Masks actually evaluated."""
        return self.n_evaluations

    @property
    def hits(self) -> int:
        """Requests answered from the cache."""
        return self.n_requests - self.n_evaluations

    def __call__(self, masks) -> np.ndarray:
        return super().__call__(masks)[:, 0]


class _MaskProblem(Problem):
    """pymoo's view of the search: minimise minus the fitness of a bit mask."""

    def __init__(self, n_var, cache):
        super().__init__(n_var=n_var, n_obj=1, xl=0, xu=1, vtype=bool)
        self.cache = cache

    def _evaluate(self, X, out, *args, **kwargs):
        out["F"] = -self.cache(X)[:, None]


class _TableFitness:
    """``mask -> sensitivity x specificity`` from a learner's mask predictor (no refitting)."""

    def __init__(self, predict, positive):
        self.predict, self.positive = predict, positive

    def __call__(self, mask):
        if not mask.any():
            return 0.0
        return sensitivity_x_specificity(self.positive, self.predict(mask))


class GenerationalElitism(Survival):
    """The children replace the parents; if no child is as good as the best parent, that parent
    replaces the worst child (JCLEC's simple generational elitist algorithm)."""

    def __init__(self):
        super().__init__(filter_infeasible=False)

    def _do(self, problem, pop, *args, n_survive=None, algorithm=None, **kwargs):
        parents = algorithm.pop if algorithm is not None else None
        if parents is None or len(pop) <= len(parents):  # the initial population
            return pop[:n_survive]
        n_parents = len(parents)
        children = pop[n_parents:]
        f_parents = pop[:n_parents].get("F")[:, 0]
        f_children = children.get("F")[:, 0]
        best = int(np.argmin(f_parents))
        if f_parents[best] < f_children.min():
            children[int(np.argmax(f_children))] = pop[best]
        return children[:n_survive]


class GeneticFeatureSelector(BagColumnSelectorMixin, BaseEstimator):
    """Choose the features of multi-instance data with a genetic algorithm wrapped around a
    learner (HyDR-MI's wrapper stage).

    Parameters
    ----------
    estimator : estimator object, default=None
        The multi-instance classifier (``fit(bags, y)``, ``predict(bags)``) whose fitness on a
        feature subset is measured; a clone is fitted for every evaluation.
    population_size : int, default=100
    max_generations : int, default=50
        Generations of offspring after the random initial population.
    crossover_rate : float, default=0.9
        Probability that a pair of parents is recombined (one-point crossover).
    mutation_rate : float, default=0.3
        Probability that a child enters the mutation ("locus mutation" of the paper).
    gene_mutation_rate : float or None, default=None
        Probability that a mutated child flips each bit; None = ``1 / n_features``.
    fitness_evaluation : {"inner_cv", "resubstitution"}, default="inner_cv"
        Fitness from an inner stratified cross-validation of the training bags, or from the
        training bags themselves (optimistic for nearest-neighbour learners).
    fitness_cv : int, default=3
        Folds of the inner cross-validation (capped at the smaller class's size).
    random_state : int, RandomState instance or None, default=None
        Seeds the initial population, the operators, the inner folds and the learner.
    n_jobs : int or None, default=None
        Evaluate a generation's new masks in parallel. Leave None inside a parallel run.
    fitness_tables : bool, default=True
        Score masks without refitting when the learner offers it (a
        ``feature_mask_predictor(X, starts, y, folds)`` method, e.g. MIWrapper with Weka's
        naive Bayes: per-feature tables built once per inner fold). The fitness values, and
        so the search, are exactly those of refitting; False refits the learner for every
        mask.

    Attributes
    ----------
    support_ : ndarray of bool of shape (n_features_in_,)
        The best mask found (never empty).
    fitness_ : float
        Its fitness.
    history_ : list of dict
        Per generation (0 = initial population): ``best``, ``mean`` fitness and ``best_size``.
    n_evaluations_, n_cache_hits_ : int
        Masks evaluated, and fitness requests answered from the cache.
    n_features_in_ : int
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "population_size": [Interval(Integral, 2, None, closed="left")],
        "max_generations": [Interval(Integral, 0, None, closed="left")],
        "crossover_rate": [Interval(Real, 0, 1, closed="both")],
        "mutation_rate": [Interval(Real, 0, 1, closed="both")],
        "gene_mutation_rate": [Interval(Real, 0, 1, closed="right"), None],
        "fitness_evaluation": [StrOptions(set(FITNESS_EVALUATIONS))],
        "fitness_cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "fitness_tables": ["boolean"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        population_size: int = 100,
        max_generations: int = 50,
        crossover_rate: float = 0.9,
        mutation_rate: float = 0.3,
        gene_mutation_rate: float | None = None,
        fitness_evaluation: str = "inner_cv",
        fitness_cv: int = 3,
        random_state=None,
        n_jobs=None,
        fitness_tables: bool = True,
    ):
        self.estimator = estimator
        self.population_size = population_size
        self.max_generations = max_generations
        self.crossover_rate = crossover_rate
        self.mutation_rate = mutation_rate
        self.gene_mutation_rate = gene_mutation_rate
        self.fitness_evaluation = fitness_evaluation
        self.fitness_cv = fitness_cv
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.fitness_tables = fitness_tables

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y):
        """Search the feature masks of ``bags`` (labels ``y``)."""
        check_estimator(self.estimator, type(self).__name__)
        X, starts, _ = check_bags(bags)
        _, y_idx = check_bag_labels(y, len(starts), type(self).__name__)
        y = np.asarray(y)
        d = X.shape[1]
        self.n_features_in_ = d
        seed = int(check_random_state(self.random_state).randint(2**31 - 1))
        cache = FitnessCache(self._fitness_function(X, starts, y, y_idx, seed), self.n_jobs)
        problem = _MaskProblem(d, cache)
        locus = self.gene_mutation_rate if self.gene_mutation_rate is not None else 1.0 / d
        algorithm = GA(
            pop_size=self.population_size,
            sampling=BinaryRandomSampling(),
            selection=TournamentSelection(func_comp=comp_by_cv_and_fitness, pressure=2),
            crossover=SinglePointCrossover(prob=self.crossover_rate),
            mutation=BitflipMutation(prob=self.mutation_rate, prob_var=locus),
            survival=GenerationalElitism(),
            eliminate_duplicates=False,
            n_offsprings=self.population_size,
        )
        # pymoo counts the initial population as generation 1
        algorithm.setup(problem, termination=("n_gen", self.max_generations + 1), seed=seed)
        history = []
        while algorithm.has_next():
            algorithm.next()
            F = -algorithm.pop.get("F")[:, 0]
            Xpop = algorithm.pop.get("X").astype(bool)
            top = int(np.argmax(F))
            history.append(
                {"best": float(F[top]), "mean": float(F.mean()), "best_size": int(Xpop[top].sum())}
            )
        F = -algorithm.pop.get("F")[:, 0]
        Xpop = algorithm.pop.get("X").astype(bool)
        top = int(np.argmax(F))
        self.support_ = Xpop[top].copy()
        self.fitness_ = float(F[top])
        if not self.support_.any():  # every mask scored 0 and the best is empty: keep all
            self.support_[:] = True
        self.history_ = history
        self.n_evaluations_ = cache.evaluations
        self.n_cache_hits_ = cache.hits
        return self

    def _fitness_function(self, X, starts, y, y_idx, seed):
        """``mask -> sensitivity x specificity`` of the learner on the training bags."""
        n = len(starts)
        positive = y_idx == 1
        if self.fitness_evaluation == "resubstitution":
            folds = [(np.arange(n), np.arange(n))]
        else:
            n_splits = min(self.fitness_cv, int(np.bincount(y_idx).min()))
            if n_splits < 2:
                raise ValueError(
                    "fitness_evaluation='inner_cv' needs at least 2 training bags of each class; "
                    "use fitness_evaluation='resubstitution'"
                )
            cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
            folds = list(cv.split(np.zeros(n), y_idx))
        learner = clone(self.estimator)
        if "random_state" in learner.get_params(deep=False):
            learner.set_params(random_state=seed)
        positive_label = np.unique(y)[1]
        make_predictor = getattr(learner, "feature_mask_predictor", None)
        if self.fitness_tables and make_predictor is not None:
            predict = make_predictor(X, starts, y, folds)
            if predict is not None:
                return _TableFitness(predict, positive)

        def fitness(mask):
            if not mask.any():
                return 0.0
            bags = np.split(X[:, mask], starts[1:])
            predicted = np.empty(n, dtype=bool)
            for train, test in folds:
                model = clone(learner).fit([bags[i] for i in train], y[train])
                predicted[test] = np.asarray(model.predict([bags[i] for i in test])) == (
                    positive_label
                )
            return sensitivity_x_specificity(positive, predicted)

        return fitness
