"""Fit one configured solver on a training part, predict a test part, score it."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from svmlab.contract import Contract
from svmlab.data.dataset import Dataset
from svmlab.errors import DataError
from svmlab.evaluation.metrics import compute_metrics, model_size
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.solvers import SolverSpec


@dataclass
class Evaluation:
    """What one fit/predict on one split produced."""

    metrics: dict
    fit_time: float
    predict_time: float
    model_size: float
    fit_info: dict = field(default_factory=dict)
    warnings: list = field(
        default_factory=list
    )  # distinct "Category: message" raised in fit/predict
    #: The extra row columns the estimator's contract declares, by column name.
    declared: dict = field(default_factory=dict)
    #: Seconds the fit spent tuning itself (``Contract.tune_seconds``), 0 when undeclared.
    self_tune_time: float = 0.0


def model_inputs(ds: Dataset, contract: Contract):
    """What an estimator's ``fit``/``predict`` take: bags for an estimator that declares
    ``input="bags"``, ``X`` otherwise."""
    return ds.bags if contract.input == "bags" else ds.X


def decision_scores(estimator, inputs):
    """Continuous scores for ROC AUC: ``decision_function``, else ``predict_proba``, else None."""
    for method in ("decision_function", "predict_proba"):
        fn = getattr(estimator, method, None)
        if fn is None:
            continue
        try:
            scores = np.asarray(fn(inputs))
        except (AttributeError, NotImplementedError, ValueError):
            continue  # e.g. SVC(probability=False).predict_proba
        if method == "predict_proba" and scores.ndim == 2 and scores.shape[1] == 2:
            scores = scores[:, 1]
        return scores
    return None


def check_finite(ds: Dataset, solver: SolverSpec, estimator) -> None:
    """Refuse NaN/inf inputs or targets for estimators that cannot take them."""
    bad_x = int(np.size(ds.X) - np.isfinite(ds.X).sum())
    allow_nan = bool(
        getattr(estimator, "__sklearn_tags__", None)
        and estimator.__sklearn_tags__().input_tags.allow_nan
    )
    if bad_x and not allow_nan:
        raise DataError(
            f"dataset {ds.name!r} has {bad_x} missing or infinite input values, which solver "
            f"{solver.name!r} "
            "cannot take; set preprocessing.impute=mean (or median), or pick a solver that accepts "
            "NaN"
        )
    if ds.task == "regression" and not np.all(np.isfinite(ds.y.astype(float))):
        raise DataError(f"dataset {ds.name!r} has missing or infinite target values")


#: Label of the unlabeled rows a transductive estimator is fitted with (scikit-learn's
#: semi-supervised convention, as in ``sklearn.semi_supervised``).
UNLABELED = -1


def fit_inputs(solver: SolverSpec, train: Dataset, test: Dataset, targets):
    """``(X, y)`` for ``estimator.fit``: the training part, and for a transductive estimator
    also the test part's inputs with ``y = -1`` (their labels are never passed).

    Raises
    ------
    DataError
        A transductive solver on a dataset that is not binary or multiclass
        classification, or whose class labels include -1.
    """
    X = model_inputs(train, solver.contract)
    if not solver.contract.transductive:
        return X, targets
    if train.task not in ("binary", "multiclass"):
        raise DataError(
            f"solver {solver.name!r} is transductive (unlabeled test rows get y = -1) and needs "
            f"a binary or multiclass dataset; dataset {train.name!r} is {train.task}"
        )
    y = np.asarray(targets)
    if y.dtype.kind in "iuf" and np.any(y == UNLABELED):
        raise DataError(
            f"solver {solver.name!r} is transductive and marks unlabeled rows with y = -1, but "
            f"dataset {train.name!r} uses -1 as a class label; relabel its classes (e.g. 0/1)"
        )
    X_test = model_inputs(test, solver.contract)
    if sp.issparse(X) or sp.issparse(X_test):
        X_all = sp.vstack([sp.csr_matrix(X), sp.csr_matrix(X_test)], format="csr")
    else:
        X_all = np.vstack([np.asarray(X), np.asarray(X_test)])
    # string labels: an object array, so -1 stays the integer -1 beside them
    kind = y.dtype if y.dtype.kind in "iuf" else object
    unlabeled = np.full(len(test.y), UNLABELED, dtype=kind)
    return X_all, np.concatenate([y.astype(kind), unlabeled])


def fit_and_score(
    solver: SolverSpec,
    params: dict,
    train: Dataset,
    test: Dataset,
    *,
    preprocessing: dict | None = None,
    classes=None,
    random_state: int | None = None,
) -> Evaluation:
    """Preprocess (fitted on ``train``), fit ``solver`` with ``params``, predict ``test``, score.

    What the estimator's contract declares (:mod:`svmlab.contract`) shapes the call: bags or
    vectors, the test rows added unlabeled for a transductive estimator (:func:`fit_inputs`),
    its ``test_diagnostics`` added to ``fit_info`` after prediction, its row values and the
    seconds it spent tuning itself read from ``fit_info_``.

    Parameters
    ----------
    solver : SolverSpec
    params : dict
        Parameters set on top of the solver's configured ones (a grid point).
    train, test : Dataset
        The two parts of a split (bags for multi-instance data).
    preprocessing : dict, optional
        ``Preprocessor`` configuration.
    classes : array-like, optional
        All class labels of the full dataset, so confusion matrices of every fold
        have the same shape and can be pooled.
    random_state : int, optional
        Passed to estimators with an unset ``random_state``.
    """
    return fit_and_score_path(
        solver,
        params,
        None,
        train,
        test,
        preprocessing=preprocessing,
        classes=classes,
        random_state=random_state,
    )[0]


def fit_and_score_path(
    solver: SolverSpec,
    params: dict,
    path: tuple[tuple[str, ...], list] | None,
    train: Dataset,
    test: Dataset,
    *,
    preprocessing: dict | None = None,
    classes=None,
    random_state: int | None = None,
) -> list[Evaluation]:
    """:func:`fit_and_score` for every value of a path parameter, from one ``fit_path``.

    ``path = (names, values)``: the path parameters the grid varies
    (:func:`svmlab.evaluation.tuning.grid_path`) and what ``fit_path`` takes, their values
    (one parameter) or a list of dicts over them (a joint path); ``None`` is a single plain
    fit.
    Each model's ``fit_time`` is the shared fit's time divided among the models.

    Returns
    -------
    list of Evaluation
        One per value, in order (one for ``path=None``).
    """
    pre = Preprocessor.from_config(preprocessing).fit(train)
    train, test = pre.transform(train), pre.transform(test)  # meta (bag weights) is kept
    estimator = solver.build(params, random_state=random_state)
    check_finite(train, solver, estimator)
    targets = train.Y if train.task == "multitarget" else train.y
    X_fit, y_fit = fit_inputs(solver, train, test, targets)
    out = []
    with warnings.catch_warnings(
        record=True
    ) as caught:  # kept in the result row, not printed per fold
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        if path is None:
            models = [estimator.fit(X_fit, y_fit, **pre.fit_weights(train))]
        else:
            models = estimator.fit_path(X_fit, y_fit, path[1], **pre.fit_weights(train))
        fit_time = (time.perf_counter() - t0) / len(models)
        for model in models:
            out.append(_score(model, solver.contract, test, targets, fit_time, classes))
    found = distinct_warnings(caught)
    for ev in out:
        ev.warnings = found
    return out


def _score(estimator, contract: Contract, test: Dataset, targets, fit_time, classes):
    """Predict ``test`` with a fitted ``estimator`` and score it (an :class:`Evaluation`)."""
    inputs = model_inputs(test, contract)
    t0 = time.perf_counter()
    y_pred = estimator.predict(inputs)
    predict_time = time.perf_counter() - t0
    scores = decision_scores(estimator, inputs) if test.is_classification else None
    fit_info = dict(getattr(estimator, "fit_info_", {}) or {})
    if contract.test_diagnostics:  # e.g. every Pareto member's test score (MO selection)
        y_test = test.Y if test.task == "multitarget" else test.y
        fit_info.update(estimator.test_diagnostics(inputs, y_test))
    metrics = compute_metrics(
        test.task,
        test.Y if test.task == "multitarget" else test.y,
        y_pred,
        scores=scores,
        classes=classes,
        y_train=targets if test.task == "multitarget" else None,
    )
    size = model_size(estimator)
    return Evaluation(
        metrics, fit_time, predict_time, size, fit_info, [], *declared_values(contract, fit_info)
    )


def declared_values(contract: Contract, fit_info: dict) -> tuple[dict, float]:
    """The row values a fitted estimator's contract declares, read from its ``fit_info_``,
    and the seconds it spent tuning itself (0 when undeclared or not a finite number)."""
    values = {col: _number(fit_info.get(v.key)) for col, v in contract.row_values.items()}
    tuned = _number(fit_info.get(contract.tune_seconds)) if contract.tune_seconds else 0.0
    return values, tuned if np.isfinite(tuned) else 0.0


def _number(value) -> float:
    """A reported value as a float; NaN when it is missing or not a number."""
    ok = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
    return float(value) if ok else float("nan")


def distinct_warnings(caught, limit: int = 5) -> list[str]:
    """``"Category: message"`` of recorded warnings, each once, at most ``limit`` (then a count)."""
    seen = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    return seen[:limit] + ([f"... and {len(seen) - limit} more"] if len(seen) > limit else [])
