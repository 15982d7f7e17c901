"""What every multi-target regressor of this subpackage shares: input checks, tags, seeds."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from svmlab.contract import Contract
from svmlab.seeding import derive_seed

__all__ = ["MultiTargetRegressorBase", "check_order", "target_means"]


def check_order(order, m: int) -> np.ndarray:
    """``order`` as an int array, after checking that it is a permutation of ``range(m)``.

    Raises
    ------
    ValueError
        Naming what was given and what ``m`` is.
    """
    given = np.asarray(order)
    ok = given.ndim == 1 and given.size == m and given.size > 0
    if ok:
        ok = np.issubdtype(given.dtype, np.integer) or (
            np.issubdtype(given.dtype, np.floating) and np.all(given == np.round(given))
        )
    if ok:
        ok = np.array_equal(np.sort(given.astype(np.int64)), np.arange(m))
    if not ok:
        shown = given.tolist() if given.ndim <= 1 else f"an array of shape {given.shape}"
        raise ValueError(
            f"order must be a permutation of range({m}) (every target index 0..{m - 1} exactly "
            "once, "
            f"Y has m={m} columns); got {shown}"
        )
    return given.astype(np.int64)


def target_means(Y: np.ndarray) -> np.ndarray:
    """Mean of each column of ``Y`` over its observed (non-NaN) rows."""
    observed = ~np.isnan(Y)
    counts = observed.sum(axis=0)
    return np.where(observed, Y, 0.0).sum(axis=0) / np.maximum(counts, 1)


class MultiTargetRegressorBase(RegressorMixin, BaseEstimator):
    """Shared plumbing: validation of ``X`` and ``Y``, multi-output tags, derived seeds.

    ``Y`` must have at least two columns; NaN in ``Y`` marks a missing target value (each
    target is learnt from the rows where it is observed), NaN in ``X`` is refused.
    """

    svmlab_contract = Contract(input="multitarget", tune_seconds="tune_seconds")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def _validate_fit_data(self, X, Y):
        """``X`` (float64, finite) and ``Y`` (float64, shape (n, m >= 2), NaN allowed)."""
        if Y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None; "
                "pass Y of shape (n_samples, n_targets)"
            )
        X = validate_data(self, X, dtype=np.float64, reset=True)
        Y = check_array(
            Y, dtype=np.float64, ensure_2d=False, ensure_all_finite="allow-nan", input_name="Y"
        )
        if Y.ndim != 2 or Y.shape[1] < 2:
            shape = Y.shape
            raise ValueError(
                f"Y must have shape (n_samples, n_targets) with n_targets >= 2 for multi-target "
                "regression; "
                f"got shape {shape}. Use a single-target regressor for one target."
            )
        if Y.shape[0] != X.shape[0]:
            raise ValueError(
                f"X and Y have different numbers of rows: {X.shape[0]} and {Y.shape[0]}"
            )
        empty = np.flatnonzero(np.isnan(Y).all(axis=0))
        if empty.size:
            raise ValueError(
                f"Y column(s) {empty.tolist()} have no observed value (all NaN); drop them"
            )
        return X, Y

    def _validate_predict_X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _base_seed(self) -> int:
        """One integer drawn from ``random_state``; every inner seed is derived from it."""
        return int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))

    @staticmethod
    def _seed(base: int, *parts) -> int:
        return derive_seed(base, *parts)
