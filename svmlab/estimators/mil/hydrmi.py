"""HyDR-MI: the ReliefF-MI filter, then a genetic wrapper, then the learner (Zafra, Pechenizkiy &
Ventura, "HyDR-MI: A Hybrid Algorithm to Reduce Dimensionality in Multiple Instance Learning",
Sec. 3 and 4; docs/decisions/hydrmi.md).

:class:`HyDRMIClassifier` wraps any multi-instance classifier. ``fit`` selects the features on the
training bags only, so inside a cross-validation every outer fold has its own filter and its own
genetic search (nothing of the test fold reaches either).
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import StrOptions, _fit_context
from svmlab.bags import check_bags
from svmlab.contract import Contract
from svmlab.selection.genetic import GeneticFeatureSelector, check_estimator
from svmlab.selection.mi_filter import MultiInstanceFeatureSelector, bag_columns

__all__ = ["HyDRMIClassifier", "SELECTIONS"]

SELECTIONS = ("hydr_mi", "relieff_mi", "full")


class HyDRMIClassifier(ClassifierMixin, BaseEstimator):
    """A multi-instance classifier trained on the features HyDR-MI selects for it.

    Parameters
    ----------
    estimator : estimator object, default=None
        The multi-instance classifier (``fit(bags, y)``, ``predict(bags)``).
    selection : {"hydr_mi", "relieff_mi", "full"}, default="hydr_mi"
        ``"hydr_mi"``: ReliefF-MI keeps the top ``filter_fraction``, the genetic algorithm picks
        a subset of those for ``estimator``; ``"relieff_mi"``: the filter only; ``"full"``:
        every feature (the paper's three columns).
    filter_fraction : float in (0, 1], default=0.5
        Share of the features the filter keeps.
    distance, k, m, instance_metric, sampling, diff_pairs, max_witness, constant_features, \
rounding
        The filter (:class:`~svmlab.selection.MultiInstanceFeatureSelector`).
    population_size, max_generations, crossover_rate, mutation_rate, gene_mutation_rate, \
fitness_evaluation, fitness_cv
        The genetic wrapper (:class:`~svmlab.selection.GeneticFeatureSelector`).
    random_state : int, RandomState instance or None, default=None
        Seeds the genetic search and ``estimator`` (when it takes a ``random_state``).
    n_jobs : int or None, default=None
        Parallel fitness evaluations of the genetic search.

    Attributes
    ----------
    support_ : ndarray of bool of shape (n_features_in_,)
        The features ``estimator_`` was trained on.
    estimator_ : estimator object
    filter_ : MultiInstanceFeatureSelector or None
    wrapper_ : GeneticFeatureSelector or None
    classes_ : ndarray of shape (2,)
    fit_info_ : dict
        What was used, for the result rows: ``n_features``, ``n_constant_in_subset``,
        ``mask_hex`` and, with the genetic search, its best fitness, evaluations, cache hits
        and per-generation best fitness.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from svmlab.estimators.mil import SimpleMIClassifier
    >>> from svmlab.estimators.mil import HyDRMIClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.arange(40) % 2
    >>> bags = [rng.normal(size=(3, 6)) + [2.0 * c, 0, 0, 0, 0, 0] for c in y]
    >>> clf = HyDRMIClassifier(SimpleMIClassifier(estimator=GaussianNB()), population_size=10,
    ...                        max_generations=5, random_state=0).fit(bags, y)
    >>> bool(clf.support_[0])
    True
    """

    svmlab_contract = Contract(input="bags")

    # the filter's and the wrapper's own constraints, under HyDR-MI's parameter names
    _parameter_constraints: dict = {
        **{
            ("filter_fraction" if k == "fraction" else k): v
            for k, v in MultiInstanceFeatureSelector._parameter_constraints.items()
        },
        **{
            k: v
            for k, v in GeneticFeatureSelector._parameter_constraints.items()
            if k != "fitness_tables"  # always on here: the same values, faster
        },
        "selection": [StrOptions(set(SELECTIONS))],
    }

    def __init__(
        self,
        estimator=None,
        *,
        selection: str = "hydr_mi",
        filter_fraction: float = 0.5,
        distance: str = "adapted",
        k: int = 80,
        m: int = 180,
        instance_metric: str = "cityblock",
        sampling: str = "all",
        diff_pairs: str = "distance",
        max_witness: str = "larger",
        constant_features: str = "rank_as_zero",
        rounding: str = "half_up",
        population_size: int = 100,
        max_generations: int = 50,
        crossover_rate: float = 0.9,
        mutation_rate: float = 0.3,
        gene_mutation_rate: float | None = None,
        fitness_evaluation: str = "inner_cv",
        fitness_cv: int = 3,
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.selection = selection
        self.filter_fraction = filter_fraction
        self.distance = distance
        self.k = k
        self.m = m
        self.instance_metric = instance_metric
        self.sampling = sampling
        self.diff_pairs = diff_pairs
        self.max_witness = max_witness
        self.constant_features = constant_features
        self.rounding = rounding
        self.population_size = population_size
        self.max_generations = max_generations
        self.crossover_rate = crossover_rate
        self.mutation_rate = mutation_rate
        self.gene_mutation_rate = gene_mutation_rate
        self.fitness_evaluation = fitness_evaluation
        self.fitness_cv = fitness_cv
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, bags, y):
        """Select the features on the training bags ``bags`` (labels ``y``) and fit the
        classifier on them."""
        check_estimator(self.estimator, type(self).__name__)
        X, starts, _ = check_bags(bags)
        bags = np.split(X, starts[1:])
        d = X.shape[1]
        self.n_features_in_ = d
        seed = int(check_random_state(self.random_state).randint(2**31 - 1))
        info: dict = {"selection": self.selection}
        support = np.ones(d, dtype=bool)
        constant = np.ptp(X, axis=0) == 0
        self.filter_ = self.wrapper_ = None
        if self.selection != "full":
            t0 = time.perf_counter()
            self.filter_ = MultiInstanceFeatureSelector(
                self.filter_fraction,
                distance=self.distance,
                k=self.k,
                m=self.m,
                instance_metric=self.instance_metric,
                sampling=self.sampling,
                diff_pairs=self.diff_pairs,
                max_witness=self.max_witness,
                constant_features=self.constant_features,
                rounding=self.rounding,
                random_state=seed,
            ).fit(bags, y)
            support = self.filter_.support_.copy()
            info["filter_seconds"] = time.perf_counter() - t0
            info["n_filter_features"] = int(support.sum())
        if self.selection == "hydr_mi":
            t0 = time.perf_counter()
            self.wrapper_ = GeneticFeatureSelector(
                self.estimator,
                population_size=self.population_size,
                max_generations=self.max_generations,
                crossover_rate=self.crossover_rate,
                mutation_rate=self.mutation_rate,
                gene_mutation_rate=self.gene_mutation_rate,
                fitness_evaluation=self.fitness_evaluation,
                fitness_cv=self.fitness_cv,
                random_state=seed,
                n_jobs=self.n_jobs,
            ).fit(self.filter_.transform(bags), y)
            support[np.flatnonzero(support)[~self.wrapper_.support_]] = False
            w = self.wrapper_
            info |= {
                "ga_seconds": time.perf_counter() - t0,
                "ga_best_fitness": w.fitness_,
                "ga_generations": len(w.history_) - 1,
                "ga_evaluations": w.n_evaluations_,
                "ga_cache_hits": w.n_cache_hits_,
                "ga_cache_hit_rate": w.n_cache_hits_ / max(w.n_cache_hits_ + w.n_evaluations_, 1),
                "ga_best_by_generation": [h["best"] for h in w.history_],
            }
        self.support_ = support
        estimator = clone(self.estimator)
        if "random_state" in estimator.get_params(deep=False):
            estimator.set_params(random_state=seed)
        self.estimator_ = estimator.fit(bag_columns(bags, support, d), y)
        self.classes_ = self.estimator_.classes_
        self.fit_info_ = info | {
            "n_features": int(support.sum()),
            "n_constant_in_subset": int(np.sum(constant & support)),
            "mask_hex": np.packbits(support).tobytes().hex(),
        }
        return self

    def _selected(self, bags):
        check_is_fitted(self, "support_")
        return bag_columns(bags, self.support_, self.n_features_in_)

    def predict(self, bags):
        """Class of every bag."""
        return self.estimator_.predict(self._selected(bags))

    @available_if(lambda self: hasattr(self.estimator, "predict_proba"))
    def predict_proba(self, bags):
        """Class probabilities of every bag (when the classifier has them)."""
        return self.estimator_.predict_proba(self._selected(bags))

    @available_if(lambda self: hasattr(self.estimator, "decision_function"))
    def decision_function(self, bags):
        """Decision values of every bag (when the classifier has them)."""
        return self.estimator_.decision_function(self._selected(bags))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        return tags
