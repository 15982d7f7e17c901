"""The one helper module of the multi-instance estimators: validating and stacking bags and bag
labels, per-bag reductions, bag prediction mixins, feature scaling, and the seeding and weighted
fitting of base estimators used by the MIL ensembles (SimpleMI, MIWrapper, TLC, MIBoost).

MIL estimator modules import shared code from here only, never from one another."""

from __future__ import annotations

import numpy as np
from sklearn.pipeline import Pipeline
from sklearn.utils import column_or_1d
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

__all__ = [
    "BagClassifierMixin",
    "MaxInstanceMixin",
    "apply_scaling",
    "bag_argmax",
    "bag_max",
    "check_bag_labels",
    "check_bags",
    "check_binary_bags",
    "feature_scaling",
    "fit_scaling",
    "fit_weighted",
    "instance_weights",
    "minmax_scaler",
    "positive_proba",
    "positive_score",
    "seed_estimator",
]


def check_bags(bags, n_features: int | None = None):
    """Validate a multi-instance input and stack it.

    Parameters
    ----------
    bags : sequence of array-like of shape (n_instances_I, n_features)
        One 2-D array per bag, every bag with at least one instance and the same number
        of features, all values finite.
    n_features : int, optional
        The number of features the bags must have (the fitted one, at prediction time).

    Returns
    -------
    X : ndarray of shape (n_instances, n_features)
        All instances, bag after bag (float64, C-contiguous).
    starts : ndarray of shape (n_bags,)
        Row of ``X`` where each bag begins.
    sizes : ndarray of shape (n_bags,)
        Number of instances of each bag.
    """
    if isinstance(bags, np.ndarray) and bags.dtype != object:
        if bags.ndim == 3:
            bags = list(bags)
        else:
            raise ValueError(
                "bags must be a sequence of 2-D arrays (one per bag), got a "
                f"{bags.ndim}-D numeric array; "
                "for a single bag pass [X]"
            )
    try:
        bags = list(bags)
    except TypeError:
        raise ValueError(
            f"bags must be a sequence of 2-D arrays (one per bag), got {type(bags).__name__}"
        ) from None
    if not bags:
        raise ValueError("bags is empty: at least one bag is required")
    arrays = []
    for i, bag in enumerate(bags):
        if hasattr(bag, "toarray"):
            raise ValueError(
                f"bag {i} is a sparse matrix; the multi-instance estimators take dense bags"
            )
        try:
            a = np.asarray(bag, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bag {i} is not a numeric array: {exc}") from None
        if a.ndim != 2:
            raise ValueError(
                f"bag {i} must be a 2-D array (instances x features), got shape {a.shape}"
            )
        if a.shape[0] == 0:
            raise ValueError(f"bag {i} has zero instances; every bag needs at least one")
        expected = (
            n_features if n_features is not None else arrays[0].shape[1] if arrays else a.shape[1]
        )
        if a.shape[1] != expected:
            what = "the model was fitted with" if n_features is not None else "bag 0 has"
            raise ValueError(f"bag {i} has {a.shape[1]} features, but {what} {expected}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"bag {i} contains NaN or infinite values")
        arrays.append(a)
    sizes = np.array([a.shape[0] for a in arrays], dtype=np.intp)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    return np.ascontiguousarray(np.vstack(arrays)), starts, sizes


def bag_max(values, starts):
    """Largest value of each bag (``values`` stacked bag after bag, ``starts`` from
    :func:`check_bags`)."""
    return np.maximum.reduceat(np.asarray(values), starts)


def check_bag_labels(y, n_bags: int, name: str):
    """Validate bag labels: one per bag, exactly two classes.

    Returns
    -------
    classes : ndarray of shape (2,)
        The sorted labels; ``classes[1]`` is the positive class.
    y_idx : ndarray of shape (n_bags,)
        0/1 index of each bag's label in ``classes``.
    """
    y = column_or_1d(y, warn=True)
    if len(y) != n_bags:
        raise ValueError(f"got {n_bags} bags but {len(y)} labels; one label per bag is required")
    check_classification_targets(y)
    classes, y_idx = np.unique(y, return_inverse=True)
    if len(classes) != 2:
        detail = (
            f"only one class, {classes[0]!r}"
            if len(classes) == 1
            else f"{len(classes)} classes {list(classes)}"
        )
        raise ValueError(
            f"{name} is a binary classifier and needs bags of exactly 2 classes; y has {detail}"
        )
    return classes, y_idx.astype(np.intp)


class BagClassifierMixin:
    """``predict`` for bag classifiers whose ``decision_function`` is positive for
    ``classes_[1]``."""

    def predict(self, bags):
        """Bag labels: ``classes_[1]`` where the bag score is > 0.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags,)
        """
        scores = self.decision_function(bags)
        return self.classes_[(scores > 0).astype(np.intp)]


class MaxInstanceMixin(BagClassifierMixin):
    """Bag score = the largest instance output (the standard MI assumption).

    Subclasses implement ``_instance_scores(X)`` on validated, stacked instances.
    """

    def instance_decision_function(self, X):
        """Decision values of single instances.

        Parameters
        ----------
        X : array-like of shape (n_instances, n_features)

        Returns
        -------
        ndarray of shape (n_instances,)
        """
        check_is_fitted(self)
        X, _, _ = check_bags([X], self.n_features_in_)
        return self._instance_scores(X)

    def decision_function(self, bags):
        """Bag scores: the largest instance output of each bag; positive means ``classes_[1]``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags,)
        """
        check_is_fitted(self)
        X, starts, _ = check_bags(bags, self.n_features_in_)
        return bag_max(self._instance_scores(X), starts)


def seed_estimator(estimator, rng):
    """Give every ``random_state`` parameter of ``estimator`` (nested ones too) a seed from
    ``rng``."""
    keys = [
        k
        for k in estimator.get_params(deep=True)
        if k == "random_state" or k.endswith("__random_state")
    ]
    if keys:
        estimator.set_params(**{k: int(rng.randint(np.iinfo(np.int32).max)) for k in keys})
    return estimator


def fit_weighted(estimator, X, y, sample_weight, who: str):
    """Fit with per-row weights (a :class:`~sklearn.pipeline.Pipeline` routes them to its last
    step)."""
    if sample_weight is None:
        return estimator.fit(X, y)
    if isinstance(estimator, Pipeline):
        name, last = estimator.steps[-1]
        if not has_fit_parameter(last, "sample_weight"):
            raise ValueError(
                f"{who}: the final step of the base pipeline ({type(last).__name__}) "
                "does not accept sample_weight, which this method needs"
            )
        return estimator.fit(X, y, **{f"{name}__sample_weight": sample_weight})
    if not has_fit_parameter(estimator, "sample_weight"):
        raise ValueError(
            f"{who}: the base estimator {type(estimator).__name__} does not accept "
            "sample_weight, which this method needs"
        )
    return estimator.fit(X, y, sample_weight=sample_weight)


def positive_proba(estimator, X):
    """Probability of class index 1 from a fitted classifier trained on labels {0, 1}."""
    proba = estimator.predict_proba(X)
    cols = list(estimator.classes_)
    return proba[:, cols.index(1)] if 1 in cols else np.zeros(X.shape[0])


def positive_score(estimator, X):
    """A continuous score of class index 1: ``predict_proba`` when available, else
    ``decision_function``."""
    if hasattr(estimator, "predict_proba"):
        try:
            return positive_proba(estimator, X)
        except AttributeError:  # e.g. SVC(probability=False)
            pass
    return np.asarray(estimator.decision_function(X), dtype=float).ravel()


def feature_scaling(X, kind: str):
    """Per-feature ``(offset, scale)`` so that ``(X - offset) / scale`` is the scaled data.

    ``"minmax"``: to [0, 1] (Weka's Normalize); ``"standard"``: zero mean, unit variance
    (Weka's Standardize); ``"none"``: identity. Constant features get scale 1.
    """
    d = X.shape[1]
    if kind == "none":
        return np.zeros(d), np.ones(d)
    if kind == "minmax":
        offset = X.min(axis=0)
        scale = X.max(axis=0) - offset
    elif kind == "standard":
        offset = X.mean(axis=0)
        scale = X.std(axis=0)
    else:  # pragma: no cover - guarded by parameter validation
        raise ValueError(f"unknown scaling {kind!r}")
    scale = np.where(scale > 0, scale, 1.0)
    return offset, scale


def check_binary_bags(name: str, bags, y):
    """``check_bags`` plus the bag labels: returns ``X, starts, sizes, classes, Y (+-1)``."""
    X, starts, sizes = check_bags(bags)
    classes, y_idx = check_bag_labels(y, len(sizes), name)
    return X, starts, sizes, classes, np.where(y_idx == 1, 1.0, -1.0)


def bag_argmax(values, starts, sizes):
    """Row of ``values`` holding each bag's maximum (the first one on ties)."""
    bag_of = np.repeat(np.arange(len(starts)), sizes)
    best = np.maximum.reduceat(values, starts)
    hits = np.flatnonzero(values == best[bag_of])
    _, first = np.unique(bag_of[hits], return_index=True)
    return hits[first]


def instance_weights(sizes, weighting: str = "bag"):
    """Training weight of every instance, stacked bag after bag.

    ``"bag"``: ``1 / |B|`` (each bag sums to 1, Frank & Xu). ``"none"``: 1 for every instance.
    """
    sizes = np.asarray(sizes, dtype=np.intp)
    if weighting == "bag":
        return np.repeat(1.0 / sizes, sizes)
    if weighting == "none":
        return np.ones(int(sizes.sum()))
    raise ValueError(f"weighting must be 'bag' or 'none', got {weighting!r}")


def minmax_scaler(X):
    """Weka's ``Normalize`` fitted on the rows of ``X``: ``(offset, factor)`` such that
    ``(Z - offset) * factor`` maps every feature's training range to [0, 1].

    A feature constant on ``X`` gets factor 0, so it becomes 0 for every row, training or
    test, as in Weka (which maps a constant attribute to 0).
    """
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = hi - lo
    factor = np.zeros_like(span)
    np.divide(1.0, span, out=factor, where=span > 0)
    return lo, factor


def fit_scaling(X, scaling: str):
    """``minmax_scaler(X)`` for ``scaling="minmax"``; ``(None, None)`` (no scaling) otherwise."""
    return minmax_scaler(X) if scaling == "minmax" else (None, None)


def apply_scaling(X, offset, factor):
    """``(X - offset) * factor``, or ``X`` itself when ``offset`` is None."""
    if offset is None:
        return X
    return (X - offset) * factor
