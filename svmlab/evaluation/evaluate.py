"""Fit one configured solver on a training part, predict a test part, score it."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

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


def model_inputs(ds: Dataset):
    """What an estimator's ``fit``/``predict`` take: bags for MI data, ``X`` otherwise."""
    return ds.bags if ds.task == "multi_instance" else ds.X


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


def is_transductive(estimator) -> bool:
    """Whether ``estimator`` declares ``transductive = True``: it is fitted on the training rows
    plus the test rows marked unlabeled (see :func:`fit_inputs`)."""
    return getattr(type(estimator), "transductive", False) is True


def fit_inputs(solver: SolverSpec, estimator, train: Dataset, test: Dataset, targets):
    """``(X, y)`` for ``estimator.fit``: the training part, and for a transductive estimator
    also the test part's inputs with ``y = -1`` (their labels are never passed).

    Raises
    ------
    DataError
        A transductive solver on a dataset that is not binary or multiclass
        classification, or whose class labels include -1.
    """
    X = model_inputs(train)
    if not is_transductive(estimator):
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
    X_test = model_inputs(test)
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

    A transductive estimator (class attribute ``transductive = True``) is fitted on the training
    rows plus the test rows with ``y = -1`` (:func:`fit_inputs`), then predicts the test rows.

    An estimator with a ``test_diagnostics(X_test, y_test) -> dict`` method adds that dict to
    the row's ``fit_info`` (it is called after prediction and informs the report only, never the
    fit: e.g. the outer-test score of every member of a Pareto front).

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


def path_parameter(solver: SolverSpec, params: dict) -> str | None:
    """The parameter along which ``solver``'s estimator fits a whole path at once, or None.

    An estimator declares it with ``path_parameter()`` and provides ``fit_path(X, y, values)``
    returning one fitted model per value, each the model a separate fit with that value gives
    (e.g. OLLAWV's stopping margin, :meth:`OLLAWVClassifier.fit_path`).
    """
    declared = getattr(solver.build(params), "path_parameter", None)
    return declared() if callable(declared) else None


def fit_and_score_path(
    solver: SolverSpec,
    params: dict,
    path: tuple[str, list] | None,
    train: Dataset,
    test: Dataset,
    *,
    preprocessing: dict | None = None,
    classes=None,
    random_state: int | None = None,
) -> list[Evaluation]:
    """:func:`fit_and_score` for every value of a path parameter, from one ``fit_path``.

    ``path = (name, values)`` (see :func:`path_parameter`); ``None`` is a single plain fit.
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
    X_fit, y_fit = fit_inputs(solver, estimator, train, test, targets)
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
            out.append(_score(model, test, targets, fit_time, classes))
    found = distinct_warnings(caught)
    for ev in out:
        ev.warnings = found
    return out


def _score(estimator, test: Dataset, targets, fit_time, classes) -> Evaluation:
    """Predict ``test`` with a fitted ``estimator`` and score it."""
    inputs = model_inputs(test)
    t0 = time.perf_counter()
    y_pred = estimator.predict(inputs)
    predict_time = time.perf_counter() - t0
    scores = decision_scores(estimator, inputs) if test.is_classification else None
    fit_info = dict(getattr(estimator, "fit_info_", {}) or {})
    diagnostics = getattr(estimator, "test_diagnostics", None)
    if diagnostics is not None:  # e.g. every Pareto member's test score (MO selection)
        fit_info.update(diagnostics(inputs, test.Y if test.task == "multitarget" else test.y))
    metrics = compute_metrics(
        test.task,
        test.Y if test.task == "multitarget" else test.y,
        y_pred,
        scores=scores,
        classes=classes,
        y_train=targets if test.task == "multitarget" else None,
    )
    return Evaluation(metrics, fit_time, predict_time, model_size(estimator), fit_info)


def distinct_warnings(caught, limit: int = 5) -> list[str]:
    """``"Category: message"`` of recorded warnings, each once, at most ``limit`` (then a count)."""
    seen = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    return seen[:limit] + ([f"... and {len(seen) - limit} more"] if len(seen) > limit else [])
