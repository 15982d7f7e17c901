"""Multi-objective evolutionary feature construction, YAGGA2 style (Mierswa (2009), Ch. 6,
Secs. 6.3-6.5).

An individual is a feature set of variable length: original features and features constructed
from them (expression trees, :mod:`svmlab.construction.expressions`). Its two objectives are
maximised, as everywhere in the thesis: ``-error`` of a fixed inner learner (linear regression
by default, Sec. 6.4.1.3) on the transformed data, estimated by a fixed hold-out split (the
Sec. 6.5 experiment) or k-fold cross-validation, and ``-nf``, the number of features (the
regulariser of Def. 6.1 / Lemma 6.1). The search is NSGA-II (mu + lambda) (Ch. 2; survival by
:func:`svmlab.nsga2.nsga2_survival`) with the YAGGA2 operators of Secs. 6.4.1-6.4.3:
structural intron prevention, the sampling equivalence check and the combined probabilistic
mutation (:mod:`svmlab.construction.variation`, :mod:`svmlab.construction.space`).

One generation, as in the thesis's RapidMiner runs (the ``"rm"`` engine of
:mod:`svmlab.nsga2`): NSGA-II survival of ``population_size`` individuals from the pool; random
pairs of the survivors cross with probability ``crossover_rate``; every survivor and child gets a
mutant, kept when it differs; feature sets already in the pool and empty sets are dropped; the
new sets are evaluated (a fitness cache keyed by the sorted canonical feature set answers
repeats). The initial population is the set of all original features plus random non-empty
subsets of them (each original feature with probability 1/2). Original features that are
constant on the data are left out (here and in the "add original" mutation).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, TransformerMixin, clone, is_classifier
from sklearn.linear_model import LinearRegression
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import _check_feature_names_in
from svmlab.construction.expressions import OPERATORS
from svmlab.construction.space import FeatureSpace
from svmlab.construction.variation import crossover, generating_mutation
from svmlab.nsga2 import non_dominated, nsga2_survival

__all__ = ["THESIS_GENERATORS", "YAGGAFeatureConstructor"]

#: The generators of the Sec. 6.5 experiment: multiplication, reciprocal, the trigonometric
#: functions and the exponential function.
THESIS_GENERATORS = ("*", "reciprocal", "sin", "cos", "exp")
CROSSOVERS = ("uniform", "one_point")
MUTATIONS = ("balanced", "rapidminer")
EQUIVALENCES = ("correlation", "absolute", None)
CROWDINGS = ("raw", "normalized")
#: Error given to an individual whose learner fails or predicts non-finite values.
WORST_ERROR = 1e300


def _validation_error(estimator, Z, y, splits, scorer, classifier) -> float:
    errors = []
    for tr, te in splits:
        try:
            model = clone(estimator).fit(Z[tr], y[tr])
            if scorer is not None:
                errors.append(-float(scorer(model, Z[te], y[te])))
                continue
            pred = model.predict(Z[te])
        except (ValueError, np.linalg.LinAlgError, FloatingPointError):
            return WORST_ERROR
        if classifier:
            errors.append(float(np.mean(pred != y[te])))
        else:
            with np.errstate(all="ignore"):
                errors.append(float(np.mean((np.asarray(pred, dtype=np.float64) - y[te]) ** 2)))
    err = float(np.mean(errors))
    return err if np.isfinite(err) else WORST_ERROR


def _key(ind) -> tuple:
    """The fitness-cache key of a feature set: its sorted canonical expressions."""
    return tuple(sorted(e.canonical for e in ind))


def _unique(pop, seen=None) -> list:
    """The non-empty feature sets of ``pop`` not in ``seen`` (updated), first copy of each."""
    seen = set() if seen is None else seen
    out = []
    for ind in pop:
        k = _key(ind)
        if ind and k not in seen:
            seen.add(k)
            out.append(ind)
    return out


class _Fitness:
    """The two objectives of feature sets, ``(-error, -size)``, each distinct set evaluated
    once (the fitness cache of the module docstring); counts evaluations and cache hits."""

    def __init__(self, space, estimator, y, splits, scorer, classifier, parallel):
        self.space, self.estimator, self.parallel = space, estimator, parallel
        self.args = (y, splits, scorer, classifier)
        self.cache: dict[tuple, float] = {}
        self.evaluations = 0
        self.cache_hits = 0

    def __call__(self, pop) -> np.ndarray:
        keys = [_key(ind) for ind in pop]
        todo = {}
        for k, ind in zip(keys, pop, strict=True):
            if k in self.cache or k in todo:
                self.cache_hits += 1
            else:
                todo[k] = ind
        if todo:
            mats = [self.space.matrix(ind) for ind in todo.values()]
            if self.parallel is None or len(mats) == 1:
                errs = [_validation_error(self.estimator, Z, *self.args) for Z in mats]
            else:
                errs = self.parallel(
                    delayed(_validation_error)(self.estimator, Z, *self.args) for Z in mats
                )
            self.cache.update(zip(todo, errs, strict=True))
            self.evaluations += len(todo)
        return np.array([[-self.cache[k], -len(ind)] for k, ind in zip(keys, pop, strict=True)])


class YAGGAFeatureConstructor(TransformerMixin, BaseEstimator):
    """Multi-objective evolutionary feature construction (YAGGA2, Mierswa (2009), Sec. 6.4).

    Searches feature sets built from the original features with the ``generators`` and keeps
    the Pareto front of (validation error, number of features) of the final population; the
    transform returns the columns of one front member (the lowest validation error).

    Parameters
    ----------
    estimator : estimator or None
        Inner learner (any scikit-learn regressor or classifier); ``None`` is
        ``LinearRegression()``, the thesis's recommendation (Secs. 6.4.1.3 and 6.5).
    generators : tuple of str
        Operator names of :data:`svmlab.construction.expressions.OPERATORS`; the default is the
        Sec. 6.5 set (multiplication, reciprocal, sin, cos, exp).
    validation : "holdout" or int
        ``"holdout"``: one fixed random split (Sec. 6.5), ``holdout_fraction`` of the rows for
        testing (stratified for classifiers); an int ``k >= 2``: k-fold cross-validation
        (Sec. 6.4.1.3; stratified for classifiers). The splits are drawn once per fit, so every
        individual is scored on the same ones.
    holdout_fraction : float
        Test fraction of the hold-out split, in (0, 1); 0.3 (RapidMiner's split validation
        default of 0.7 for training; the thesis gives none).
    scoring : None, str or callable
        ``None``: mean squared error for regressors, error rate for classifiers. Otherwise a
        scikit-learn scorer (name or callable, greater is better) and the error is its negative.
    population_size : int
        ``mu`` of the (mu + lambda) NSGA-II (the thesis gives no value).
    max_generations : int
        Number of generations after the initial population (>= 0).
    crossover_rate : float
        Probability that a pair of survivors crosses.
    crossover : {"uniform", "one_point"}
        Variable-length crossover (Sec. 6.4.1.2, Fig. 6.2).
    mutation : {"balanced", "rapidminer"}
        Reading of the combined probabilistic mutation (Sec. 6.4.3); see
        :func:`svmlab.construction.variation.generating_mutation`.
    mutation_rate : float or None
        How likely an individual is mutated: the basic probability ``p`` in (0, 1] of the
        combined mutation (``p/4`` to add an original feature, ``p/4`` to construct one,
        ``p/2`` expected removals); ``None`` is ``1/nf`` per individual
        (docs/decisions/naming.md).
    equivalence : {"correlation", "absolute"} or None
        Sampling equivalence test (Sec. 6.4.2.1): absolute correlation >= ``equivalence_sigma``
        (the thesis) or largest absolute difference <= ``equivalence_epsilon`` (RapidMiner);
        ``None`` switches the sampling check off (structural checks stay).
    equivalence_samples : int
        Number ``a`` of artificial rows of the sampling check (>= 3).
    equivalence_sigma : float
        Correlation threshold sigma, in (0, 1].
    equivalence_epsilon : float
        Absolute tolerance of the ``"absolute"`` test (>= 0).
    crowding : {"raw", "normalized"}
        NSGA-II crowding distance: RapidMiner's unnormalised one or Deb's normalised one.
    n_jobs : int or None
        joblib workers for the uncached evaluations of one generation.
    random_state : int, RandomState or None

    Attributes
    ----------
    pareto_front_ : pandas.DataFrame
        The non-dominated members of the final population sorted by ``n_features`` (then
        ``error``): columns ``n_features``, ``error`` (validation error), ``features`` (list
        of readable feature strings).
    pareto_expressions_ : list of tuple of Expr
        The feature sets of the rows of ``pareto_front_``.
    features_ : tuple of Expr
        The chosen member: the lowest validation error, ties to fewer features.
    estimator_ : estimator
        The inner learner fitted on all rows in the chosen feature space.
    n_features_in_ : int
    fit_info_ : dict
        ``generations``, ``evaluations`` (validation runs), ``cache_hits``,
        ``constructed_columns`` (distinct features whose columns were computed),
        ``front_size``, ``seconds``.
    """

    def __init__(
        self,
        estimator=None,
        generators=THESIS_GENERATORS,
        validation="holdout",
        holdout_fraction=0.3,
        scoring=None,
        population_size=20,
        max_generations=50,
        crossover_rate=0.5,
        crossover="uniform",
        mutation="balanced",
        mutation_rate=None,
        equivalence="correlation",
        equivalence_samples=20,
        equivalence_sigma=0.9999,
        equivalence_epsilon=5e-7,
        crowding="raw",
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.generators = generators
        self.validation = validation
        self.holdout_fraction = holdout_fraction
        self.scoring = scoring
        self.population_size = population_size
        self.max_generations = max_generations
        self.crossover_rate = crossover_rate
        self.crossover = crossover
        self.mutation = mutation
        self.mutation_rate = mutation_rate
        self.equivalence = equivalence
        self.equivalence_samples = equivalence_samples
        self.equivalence_sigma = equivalence_sigma
        self.equivalence_epsilon = equivalence_epsilon
        self.crowding = crowding
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- parameters ------------------------------------------------------------------------------

    def _check_params(self):
        def choice(name, valid):
            value = getattr(self, name)
            if not any(value is v or (v is not None and value == v) for v in valid):
                raise ValueError(f"{name} must be one of {list(valid)}, got {value!r}")

        def number(name, kind, low, high, low_open=False, allow_none=False):
            value = getattr(self, name)
            if value is None and allow_none:
                return
            ok = isinstance(value, kind) and not isinstance(value, bool)
            ok = ok and (value > low if low_open else value >= low)
            ok = ok and (high is None or value <= high)
            if not ok:
                span = f"{'(' if low_open else '['}{low}, {high if high is not None else 'inf'}]"
                raise ValueError(f"{name} must be a number in {span}, got {value!r}")

        gens = self.generators
        if (
            isinstance(gens, str)
            or not hasattr(gens, "__iter__")
            or not len(tuple(gens))
            or any(g not in OPERATORS for g in gens)
        ):
            raise ValueError(
                f"generators must be a non-empty tuple of names from {sorted(OPERATORS)}, "
                f"got {gens!r}"
            )
        v = self.validation
        if not (
            v == "holdout"
            if isinstance(v, str)
            else isinstance(v, Integral) and not isinstance(v, bool) and v >= 2
        ):
            raise ValueError(f"validation must be 'holdout' or an int k >= 2, got {v!r}")
        number("holdout_fraction", Real, 0, 1, low_open=True)
        if self.holdout_fraction >= 1:
            raise ValueError(
                f"holdout_fraction must be a number in (0, 1), got {self.holdout_fraction!r}"
            )
        if not (self.scoring is None or isinstance(self.scoring, str) or callable(self.scoring)):
            raise ValueError(
                f"scoring must be None, a scikit-learn scorer name or a callable scorer, "
                f"got {self.scoring!r}"
            )
        number("population_size", Integral, 2, None)
        number("max_generations", Integral, 0, None)
        number("crossover_rate", Real, 0, 1)
        choice("crossover", CROSSOVERS)
        choice("mutation", MUTATIONS)
        number("mutation_rate", Real, 0, 1, low_open=True, allow_none=True)
        choice("equivalence", EQUIVALENCES)
        number("equivalence_samples", Integral, 3, None)
        number("equivalence_sigma", Real, 0, 1, low_open=True)
        number("equivalence_epsilon", Real, 0, None)
        choice("crowding", CROWDINGS)
        est = self.estimator
        if est is not None and not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise ValueError(
                f"estimator must be None or a scikit-learn regressor or classifier (with fit "
                f"and predict), got {est!r}"
            )

    # -- fitting -------------------------------------------------------------------------------

    def fit(self, X, y):
        """Search feature sets on ``(X, y)``; the splits of the validation are drawn here."""
        self._check_params()
        X, y = validate_data(self, X, y, y_numeric=False, multi_output=False)
        start = time.perf_counter()
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"YAGGAFeatureConstructor needs at least 2 rows, got n_samples = {n}")
        estimator = LinearRegression() if self.estimator is None else self.estimator
        classifier = is_classifier(estimator)
        if not classifier:
            y = np.asarray(y, dtype=np.float64)
        scorer = None if self.scoring is None else get_scorer(self.scoring)
        rng = check_random_state(self.random_state)
        splits = self._splits(n, y, classifier, int(rng.randint(2**31 - 1)))
        space = FeatureSpace(
            X,
            self.equivalence,
            self.equivalence_samples,
            self.equivalence_sigma,
            self.equivalence_epsilon,
            rng,
        )
        parallel = None if self.n_jobs in (None, 1) else Parallel(n_jobs=self.n_jobs)
        fitness = _Fitness(space, estimator, y, splits, scorer, classifier, parallel)
        pop = _unique(self._initial_population(space.originals, rng))
        F = fitness(pop)
        for _ in range(self.max_generations):
            pop, F = self._generation(pop, F, fitness, space, rng)
        keep = nsga2_survival(F, self.population_size, self.crowding == "normalized", rng)
        pop, F = [pop[i] for i in keep], F[keep]
        self._store_front(pop, F)
        self.estimator_ = clone(estimator).fit(space.matrix(self.features_), y)
        self.fit_info_ = {
            "generations": int(self.max_generations),
            "evaluations": fitness.evaluations,
            "cache_hits": fitness.cache_hits,
            "constructed_columns": len(space._columns),
            "front_size": len(self.pareto_expressions_),
            "seconds": time.perf_counter() - start,
        }
        return self

    def _initial_population(self, originals, rng) -> list:
        """The set of all original features and ``population_size - 1`` random subsets of
        them (each feature with probability 1/2, at least one)."""
        pop = [originals]
        for _ in range(self.population_size - 1):
            pick = rng.random_sample(len(originals)) < 0.5
            if not pick.any():
                pick[rng.randint(len(originals))] = True
            pop.append(tuple(f for f, p in zip(originals, pick, strict=True) if p))
        return pop

    def _generation(self, pop, F, fitness, space, rng):
        """One generation (module docstring): NSGA-II survival, crossover of random pairs of
        the survivors, a mutant of every survivor and child, the new sets evaluated. Returns
        the pool and its objectives."""
        keep = nsga2_survival(F, self.population_size, self.crowding == "normalized", rng)
        pop, F = [pop[i] for i in keep], F[keep]
        children = []
        perm = rng.permutation(len(pop))
        for a, b in perm[: 2 * (len(pop) // 2)].reshape(-1, 2):
            if rng.random_sample() < self.crossover_rate:
                ca, cb = crossover(self.crossover, pop[a], pop[b], rng)
                children += [space.drop_equivalent(ca), space.drop_equivalent(cb)]
        seen = {_key(ind) for ind in pop}
        children = _unique(children, seen)
        generators = tuple(self.generators)
        mutants = [
            generating_mutation(ind, generators, space, rng, self.mutation, self.mutation_rate)
            for ind in pop + children
        ]
        new = children + _unique(mutants, seen)
        if new:
            pop, F = pop + new, np.concatenate([F, fitness(new)])
        return pop, F

    def _store_front(self, pop, F) -> None:
        """``pareto_expressions_``, ``pareto_front_`` (fewest features first) and
        ``features_`` (the front's lowest error) of the final population."""
        front = non_dominated(F)
        order = sorted(front, key=lambda i: (-F[i, 1], -F[i, 0], _key(pop[i])))
        self.pareto_expressions_ = [tuple(sorted(pop[i])) for i in order]
        self.pareto_front_ = pd.DataFrame(
            {
                "n_features": [int(-F[i, 1]) for i in order],
                "error": [float(-F[i, 0]) for i in order],
                "features": [[str(e) for e in s] for s in self.pareto_expressions_],
            }
        )
        best = min(range(len(order)), key=lambda r: (-F[order[r], 0], -F[order[r], 1]))
        self.features_ = self.pareto_expressions_[best]

    def _splits(self, n, y, classifier, seed):
        idx = np.arange(n)
        if self.validation == "holdout":
            stratify = None
            if classifier:
                _, counts = np.unique(y, return_counts=True)
                n_test = int(np.ceil(self.holdout_fraction * n))
                if counts.min() >= 2 and len(counts) <= min(n_test, n - n_test):
                    stratify = y
            tr, te = train_test_split(
                idx, test_size=self.holdout_fraction, random_state=seed, stratify=stratify
            )
            return [(tr, te)]
        k = int(self.validation)
        if k > n:
            raise ValueError(f"validation: k = {k} folds need at least {k} rows, got {n}")
        cv = KFold(k, shuffle=True, random_state=seed)
        if classifier:
            _, counts = np.unique(y, return_counts=True)
            if counts.min() >= k:
                cv = StratifiedKFold(k, shuffle=True, random_state=seed)
        return list(cv.split(idx.reshape(-1, 1), y))

    # -- transforming ------------------------------------------------------------------------

    def transform(self, X):
        """The chosen member's feature columns (may hold non-finite values where a constructed
        feature is undefined, e.g. ``1/X1`` at ``X1 = 0``)."""
        check_is_fitted(self, "features_")
        X = validate_data(self, X, reset=False)
        return np.column_stack([e.evaluate(X) for e in self.features_])

    def get_feature_names_out(self, input_features=None):
        """The chosen member's features as readable expressions over ``X1 .. Xd``."""
        check_is_fitted(self, "features_")
        _check_feature_names_in(self, input_features)
        return np.asarray([str(e) for e in self.features_], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
