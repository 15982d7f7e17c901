"""Multi-objective wrapper feature selection around any estimator (Mierswa (2009), Sec. 6.2;
docs/decisions/mo_features.md).

The two objectives of Sec. 6.2 (with Lemma 6.1's complexity term ``Omega = nf``): the wrapped
learner's inner cross-validated performance and the number of selected features, optimised
together by NSGA-II (:func:`svmlab.selection.mo_search.search_masks`). The result is the whole
Pareto front -- one best subset for every size the search reached -- which is kept
(:attr:`MOFeatureSelector.pareto_front_`) and from which one member is chosen to select with and
predict with.

Leakage: the search sees only the data given to :meth:`MOFeatureSelector.fit`. Used inside an
outer cross-validation (the svmlab runner, or scikit-learn's ``cross_val_score``), each outer
training part gets its own search, so the outer test part never influences which features are
chosen. Running the search once on all data and then cross-validating the chosen subset is the
leaky protocol whose optimism the test suite measures.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.feature_selection import SelectorMixin
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.svm import LinearSVC, LinearSVR
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.selection.mo_search import SEARCH_CONSTRAINTS, MaskSearchMixin

__all__ = ["MOFeatureSelector", "CHOICES", "error_of_score"]

CHOICES = ("best", "one_se")


def _default_estimator(y):
    """Ch. 7's inner learner, a linear SVM (Sec. 7.4): LinearSVC, or LinearSVR for regression."""
    kind = type_of_target(y)
    if kind in ("binary", "multiclass"):
        return LinearSVC(dual="auto", max_iter=5000)
    return LinearSVR(dual="auto", max_iter=5000)


class _CVObjective:
    """``mask -> (mean inner-CV score, -nf)``: the two maximised objectives of Sec. 6.2.

    The folds are fixed once per fit, so a mask's fitness is a deterministic function of the
    mask (noisy fitness would make NSGA-II's ranking unstable). The two default scorings are
    computed directly from ``predict`` (scikit-learn's scorer objects cost about a millisecond
    per call, as much as fitting a small model).
    """

    def __init__(self, estimator, X, y, folds, scoring, scorer):
        self.estimator, self.X, self.y, self.folds = estimator, X, y, folds
        self.scoring, self.scorer = scoring, scorer

    def _score(self, model, X, y) -> float:
        if self.scoring == "accuracy":
            return float(np.mean(model.predict(X) == y))
        if self.scoring == "neg_root_mean_squared_error":
            return -float(np.sqrt(np.mean((model.predict(X) - y) ** 2)))
        return float(self.scorer(model, X, y))

    def fold_scores(self, mask) -> np.ndarray:
        Xm = self.X[:, mask]
        out = []
        for train, test in self.folds:
            model = clone(self.estimator).fit(Xm[train], self.y[train])
            out.append(self._score(model, Xm[test], self.y[test]))
        return np.asarray(out, dtype=np.float64)

    def __call__(self, mask):
        return float(np.mean(self.fold_scores(mask))), -float(mask.sum())


def error_of_score(scoring, score):
    """The error a default score stands for: 1 - accuracy, or the RMSE."""
    if scoring == "accuracy":
        return 1.0 - score
    if scoring == "neg_root_mean_squared_error":
        return -score
    return np.nan


class MOFeatureSelector(MaskSearchMixin, SelectorMixin, MetaEstimatorMixin, BaseEstimator):
    """Multi-objective evolutionary feature selection wrapped around an estimator.

    NSGA-II searches bit masks over the features for two objectives (Mierswa (2009),
    Sec. 6.2): the wrapped estimator's mean inner cross-validated score (maximised; by default
    minus the error rate, or minus the RMSE for regressors) and the number of features
    (minimised). The non-dominated subsets found are kept as :attr:`pareto_front_`; one of them
    (``choose``) is the selection, and the estimator refitted on it makes the predictions, so the
    selector is also a classifier or regressor (like scikit-learn's ``RFECV``).

    Parameters
    ----------
    estimator : estimator, default=None
        The learner inside the wrapper. ``None``: a linear SVM, the inner learner of the
        thesis's feature experiments (Sec. 7.4): ``LinearSVC`` for class labels, ``LinearSVR``
        for real targets.
    cv : int or cross-validation splitter, default=5
        Inner cross-validation of every candidate subset (k-fold, Sec. 6.4.1; stratified for
        classifiers). The folds are drawn once per fit from ``random_state``.
    scoring : str, callable or None, default=None
        A scikit-learn scorer. ``None``: ``"accuracy"`` for classifiers, reported as the error
        rate, and ``"neg_root_mean_squared_error"`` for regressors, reported as the RMSE.
    population_size : int, default=None
        NSGA-II population; ``None`` is ``2m`` for ``m`` features (Sec. 8.4).
    max_generations : int, default=1000
        Sec. 8.4. The thesis notes that fronts usually settle within 20 generations.
    crossover_rate : float, default=0.9
        Uniform crossover probability (Sec. 8.4).
    gene_mutation_rate : float, default=None
        Bit-flip probability per bit; ``None`` is ``1/m`` (Sec. 8.4).
    p_initial : float, default=0.5
        Probability that a feature is on in an initial individual.
    engine : {"rm", "pymoo"}, default="rm"
        ``"rm"``: random parent pairing and plus-selection over parents, children and mutants
        (the thesis's RapidMiner scheme); ``"pymoo"``: Deb's NSGA-II with crowded binary
        tournaments (pymoo). See :mod:`svmlab.nsga2`.
    crowding : {"raw", "normalized"}, default="raw"
        Crowding distance of the ``"rm"`` engine.
    choose : {"best", "one_se"} or int, default="best"
        The front member to select with: ``"best"`` the highest inner score (ties: fewer
        features); ``"one_se"`` the smallest subset whose score is within one standard error
        (over the inner folds) of the best; an int ``k`` the best member with at most ``k``
        features.
    refit_front : bool, default=False
        Also fit the estimator on every front member, so :meth:`score_front` can score the
        whole front on new data (the runner stores those scores for the outer test part).
    cache : bool, default=True
        Evaluate each distinct mask once.
    n_jobs : int, default=1
        joblib workers for the new masks of a generation.
    random_state : int, RandomState instance or None, default=None
        Seeds the inner folds and the search.
    record_history : bool, default=False
        Keep each generation's front in :attr:`history_`.

    Attributes
    ----------
    pareto_front_ : pandas.DataFrame
        One row per non-dominated subset, ascending in size: ``n_features``, ``inner_score``
        (mean inner-CV score), ``inner_score_std``, ``inner_error`` (the error rate or RMSE for
        the default scorings, else NaN) and ``features`` (column indices, or names when ``X``
        had them).
    pareto_masks_ : ndarray of bool, shape (n_members, n_features_in_)
    chosen_ : int
        Row of :attr:`pareto_front_` that is selected.
    support_ : ndarray of bool, shape (n_features_in_,)
    estimator_ : estimator
        The estimator fitted on the selected features.
    front_estimators_ : list of estimators
        With ``refit_front``: one fitted estimator per front member.
    history_ : list of ndarray
        With ``record_history``: per generation, the (inner score, -nf) points of the front.
    n_evaluations_ : int
        Subsets whose inner CV was run.
    cache_hit_rate_ : float
        Share of fitness requests served by the cache.
    fit_info_ : dict
        Generations, evaluations, cache hit rate and the front, for the result rows.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When ``X`` had string column names.
    """

    svmlab_contract = Contract(test_diagnostics=True)

    _parameter_constraints: dict = {
        **SEARCH_CONSTRAINTS,
        "estimator": [HasMethods(["fit"]), None],
        "cv": ["cv_object"],
        "scoring": [str, callable, None],
        "choose": [StrOptions(set(CHOICES)), Interval(Integral, 1, None, closed="left")],
        "refit_front": ["boolean"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        cv=5,
        scoring=None,
        population_size=None,
        max_generations=1000,
        crossover_rate=0.9,
        gene_mutation_rate=None,
        p_initial=0.5,
        engine="rm",
        crowding="raw",
        choose="best",
        refit_front=False,
        cache=True,
        n_jobs=1,
        random_state=None,
        record_history=False,
    ):
        self.estimator = estimator
        self.cv = cv
        self.scoring = scoring
        self.population_size = population_size
        self.max_generations = max_generations
        self.crossover_rate = crossover_rate
        self.gene_mutation_rate = gene_mutation_rate
        self.p_initial = p_initial
        self.engine = engine
        self.crowding = crowding
        self.choose = choose
        self.refit_front = refit_front
        self.cache = cache
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.record_history = record_history

    # -- fitting ------------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Search the Pareto front of (inner score, number of features) and fit the chosen member.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, y_numeric=False, multi_output=False)
        base = self.estimator if self.estimator is not None else _default_estimator(y)
        classifier = is_classifier(base)
        if classifier:
            self.classes_ = np.unique(y)
        scoring = self.scoring or ("accuracy" if classifier else "neg_root_mean_squared_error")
        scorer = check_scoring(base, scoring=scoring)
        rng = check_random_state(self.random_state)
        cv = check_cv(self.cv, y, classifier=classifier)
        if isinstance(self.cv, Integral):  # shuffled folds, fixed for the whole search
            cv.shuffle, cv.random_state = True, rng.randint(2**31 - 1)
        folds = list(cv.split(X, y))
        objective = _CVObjective(clone(base), X, y, folds, scoring, scorer)
        result = self._search_masks(objective, X.shape[1], rng)
        self.pareto_masks_ = result.masks
        stds = [
            float(np.std(objective.fold_scores(m), ddof=1)) if len(folds) > 1 else 0.0
            for m in result.masks
        ]
        scores = result.objectives[:, 0]
        self.pareto_front_ = pd.DataFrame(
            {
                "n_features": result.masks.sum(axis=1).astype(int),
                "inner_score": scores,
                "inner_score_std": stds,
                "inner_error": [error_of_score(scoring, s) for s in scores],
                "features": self._member_features(result.masks),
            }
        )
        self.chosen_ = self._choose(scores, np.asarray(stds) / np.sqrt(max(len(folds), 1)))
        self.support_ = result.masks[self.chosen_].copy()
        self.estimator_ = clone(base).fit(X[:, self.support_], y)
        if self.refit_front:
            self.front_estimators_ = [clone(base).fit(X[:, m], y) for m in result.masks]
        if self.record_history:
            self.history_ = result.history
        self.n_evaluations_ = result.n_evaluations
        self.cache_hit_rate_ = result.cache_hit_rate
        self.fit_info_ = {
            "generations": result.generations,
            "population_size": len(result.population),
            "evaluations": result.n_evaluations,
            "requests": result.n_requests,
            "cache_hit_rate": round(result.cache_hit_rate, 4),
            "scoring": scoring if isinstance(scoring, str) else "callable",
            "chosen": int(self.chosen_),
            "n_selected": int(self.support_.sum()),
            "front": {
                "n_features": self.pareto_front_["n_features"].tolist(),
                "inner_score": [round(float(s), 6) for s in scores],
                "features": [np.flatnonzero(m).tolist() for m in result.masks],
            },
        }
        return self

    def _choose(self, scores: np.ndarray, se: np.ndarray) -> int:
        nf = self.pareto_masks_.sum(axis=1)
        # scores that differ by rounding only (e.g. RMSEs of 1e-15 and 2e-15 for exact fits)
        # are ties, and ties go to fewer features
        scores = np.where(
            np.isclose(scores, scores.max(), rtol=1e-9, atol=1e-12), scores.max(), scores
        )
        if isinstance(self.choose, Integral):
            allowed = np.flatnonzero(nf <= self.choose)
            if not len(allowed):  # the front starts above k: its smallest member
                return int(np.argmin(nf))
            return int(allowed[np.lexsort((nf[allowed], -scores[allowed]))[0]])
        best = int(np.lexsort((nf, -scores))[0])
        if self.choose == "best":
            return best
        within = np.flatnonzero(scores >= scores[best] - se[best])
        return int(within[np.argmin(nf[within])])

    # -- selection and prediction ---------------------------------------------------------------

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def _estimator_has(attr):  # noqa: N805 - used at class creation
        def check(self):
            if hasattr(self, "estimator_"):
                return hasattr(self.estimator_, attr)
            est = self.estimator if self.estimator is not None else LinearSVC()
            return hasattr(est, attr)

        return check

    def _selected(self, X):
        check_is_fitted(self, "estimator_")
        return self.transform(X)

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """Predict with the estimator fitted on the selected features."""
        Xs = self._selected(X)
        return self.estimator_.predict(Xs)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the estimator fitted on the selected features."""
        Xs = self._selected(X)
        return self.estimator_.decision_function(Xs)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the estimator fitted on the selected features."""
        Xs = self._selected(X)
        return self.estimator_.predict_proba(Xs)

    @available_if(_estimator_has("score"))
    def score(self, X, y):
        """The fitted estimator's ``score`` on the selected features."""
        Xs = self._selected(X)
        return self.estimator_.score(Xs, y)

    def score_front(self, X, y, scoring=None) -> np.ndarray:
        """Score every front member on ``(X, y)`` (needs ``refit_front=True``).

        Parameters
        ----------
        X, y : array-like
            Data the search has not seen (an outer test part).
        scoring : str or callable, optional
            Default: the scoring of the search.

        Returns
        -------
        ndarray of shape (n_members,)
            In the order of :attr:`pareto_front_`.
        """
        check_is_fitted(self, "front_estimators_")
        X = validate_data(self, X, reset=False)
        scoring = scoring or self.fit_info_["scoring"]
        if scoring == "callable":
            scoring = self.scoring
        out = []
        for mask, model in zip(self.pareto_masks_, self.front_estimators_, strict=True):
            out.append(check_scoring(model, scoring=scoring)(model, X[:, mask], y))
        return np.asarray(out, dtype=np.float64)

    def test_diagnostics(self, X, y) -> dict:
        """What the runner stores about the test part beside the metrics: every front member's
        score (and error for the default scorings) on it, when ``refit_front``."""
        if not hasattr(self, "front_estimators_"):
            return {}
        scores = self.score_front(X, y)
        scoring = self.fit_info_["scoring"]
        return {
            "front_test_score": [round(float(s), 6) for s in scores],
            "front_test_error": [round(float(error_of_score(scoring, s)), 6) for s in scores],
        }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        est = self.estimator if self.estimator is not None else LinearSVC()
        sub = est.__sklearn_tags__()
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = sub.classifier_tags
        tags.regressor_tags = sub.regressor_tags
        tags.input_tags.allow_nan = sub.input_tags.allow_nan
        return tags
