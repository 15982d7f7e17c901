"""Multi-instance input: validating and stacking bags and their labels.

A bag input is a sequence of 2-D arrays (one per bag, instances x features) with one label per
bag. The multi-instance estimators and the multi-instance feature selectors validate it here.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import column_or_1d
from sklearn.utils.multiclass import check_classification_targets

__all__ = ["check_bag_labels", "check_bags"]


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
