"""Predictions of :class:`~svmlab.estimators.weka.naive_bayes.PrecisionNaiveBayes` refitted on any
subset of the columns, from tables computed once (the genetic search of HyDR-MI scores thousands
of column masks on the same training and test rows; docs/decisions/hydrmi.md).

Weka's naive Bayes decomposes over the attributes: each column's precision, rounding, per-class
normal estimate and interval likelihood depend on that column alone. :class:`NaiveBayesColumns`
therefore computes, once per (training rows, test rows), every test row's likelihood factor of
every column, and answers ``predict_proba(mask)`` by multiplying the factors of the selected
columns in column order with Weka's underflow guard, exactly as ``PrecisionNaiveBayes`` fitted
on ``X[:, mask]`` would.

Exactly, not nearly: the per-class sums of the normal estimates are matrix products, and BLAS
may add a column's terms in another order when the matrix has other columns (OpenBLAS does), so a
column's mean and standard deviation can differ in the last bit between subsets. Each mask's
statistics are therefore computed as the refit computes them (the same product on the same
selected columns, a few microseconds), compared with the table's bit for bit, and the factors of
the columns that differ are computed afresh (and kept for the next mask that gives the same
statistics).
"""

from __future__ import annotations

import numba
import numpy as np

from svmlab.estimators.weka.naive_bayes import (
    _FLOOR,
    _RESCALE,
    attribute_precision,
    class_normals,
    class_weight_rows,
    interval_likelihood,
    round_to_precision,
)

__all__ = ["NaiveBayesColumns"]


@numba.njit(cache=True)
def _product_with_rescale(prior, table, cols, fresh, fresh_of):  # pragma: no cover - compiled
    """Class probabilities of every row from the columns ``cols``: the prior times each column's
    factors in column order (``table[:, j]``, or ``fresh[fresh_of[m]]`` for the m-th selected
    column when ``fresh_of[m] >= 0``), rescaled by 1e75 whenever the largest running product of
    a row drops below 1e-75 (Weka's underflow guard, as ``PrecisionNaiveBayes.predict_proba``),
    then normalised per row."""
    n, k = table.shape[0], table.shape[2]
    probs = np.empty((n, k))
    for i in range(n):
        for c in range(k):
            probs[i, c] = prior[c]
        for m in range(cols.shape[0]):
            top = -np.inf
            for c in range(k):
                if fresh_of[m] >= 0:
                    probs[i, c] *= fresh[fresh_of[m], i, c]
                else:
                    probs[i, c] *= table[i, cols[m], c]
                top = max(top, probs[i, c])
            if top > 0 and top < _FLOOR:
                for c in range(k):
                    probs[i, c] *= _RESCALE
        total = probs[i, 0]
        for c in range(1, k):
            total += probs[i, c]
        for c in range(k):
            probs[i, c] /= total
    return probs


class NaiveBayesColumns:
    """``PrecisionNaiveBayes(...).fit(X_train[:, mask], y, w).predict_proba(X_test[:, mask])``
    for any column mask, without refitting.

    Parameters
    ----------
    X_train : ndarray of shape (n_train, n_features)
    y_train : ndarray of shape (n_train,)
        Class labels.
    sample_weight : ndarray of shape (n_train,)
        Row weights (positive; rows of weight zero are dropped, as the classifier does).
    X_test : ndarray of shape (n_test, n_features)
    default_precision, prior_smoothing : float
        The classifier's parameters.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_fresh_columns_ : int
        Columns whose factors were computed afresh because their statistics under some mask
        differed in the last bits from the table's.
    """

    def __init__(
        self, X_train, y_train, sample_weight, X_test, default_precision=0.01, prior_smoothing=1.0
    ):
        X_train = np.asarray(X_train, dtype=np.float64)
        w = np.asarray(sample_weight, dtype=np.float64)
        self.classes_, y_idx = np.unique(y_train, return_inverse=True)
        keep = w > 0
        self.precision = attribute_precision(X_train[keep], default_precision)
        self.R = round_to_precision(X_train[keep], self.precision)
        self.onehot = class_weight_rows(y_idx[keep], w[keep], len(self.classes_))
        W = self.onehot.sum(axis=1)
        k = len(self.classes_)
        self.prior = (W + prior_smoothing) / (W.sum() + k * prior_smoothing)
        self.R_test = round_to_precision(np.asarray(X_test, dtype=np.float64), self.precision)
        self.half = self.precision / 2.0
        self.theta, self.sigma = class_normals(self.onehot, self.R, self.precision)
        # factors[i, j, c]: likelihood of test row i's column j under class c
        self.factors = np.ascontiguousarray(
            interval_likelihood(
                self.R_test[:, None, :], self.theta[None], self.sigma[None], self.half
            ).transpose(0, 2, 1)
        )
        self._fresh: dict[tuple, np.ndarray] = {}
        self.n_fresh_columns_ = 0

    def predict_proba(self, mask):
        """Class probabilities of the test rows (columns ordered as ``classes_``) from the
        columns where ``mask`` is true (at least one)."""
        cols = np.flatnonzero(mask)
        # C order, as the refit's own rounded copy: BLAS sums another layout differently
        selected = np.take(self.R, cols, axis=1)
        theta, sigma = class_normals(self.onehot, selected, self.precision[cols])
        differ = np.flatnonzero(
            np.any((theta != self.theta[:, cols]) | (sigma != self.sigma[:, cols]), axis=0)
        )
        fresh_of = np.full(len(cols), -1, dtype=np.intp)
        fresh = np.empty((len(differ), self.R_test.shape[0], len(self.prior)))
        for f, m in enumerate(differ):
            fresh[f] = self._fresh_factors(cols[m], theta[:, m], sigma[:, m])
            fresh_of[m] = f
        return _product_with_rescale(self.prior, self.factors, cols, fresh, fresh_of)

    def _fresh_factors(self, j, theta, sigma):
        key = (int(j), theta.tobytes(), sigma.tobytes())
        column = self._fresh.get(key)
        if column is None:
            column = interval_likelihood(self.R_test[:, j, None], theta, sigma, self.half[j])
            self._fresh[key] = column
            self.n_fresh_columns_ += 1
        return column
