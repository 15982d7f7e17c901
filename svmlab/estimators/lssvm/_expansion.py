"""What every binary LSSVM classifier of the package predicts with: the kernel expansion over
its support vectors and its sign (Oliveira (2021), Eqs. 2.8 and 3.13)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab.kernels import rbf_expansion


def kernel_expansion(estimator, X):
    """``sum_j dual_coef_j K(x, support_vectors_j) + intercept`` of a fitted estimator."""
    check_is_fitted(estimator)
    X = validate_data(estimator, X, dtype=np.float64, reset=False)
    return rbf_expansion(
        X,
        estimator.support_vectors_,
        estimator.dual_coef_[0],
        estimator.intercept_[0],
        estimator.gamma_,
    )


class BinaryKernelExpansionMixin:
    """``decision_function`` and ``predict`` of a fitted binary RBF expansion.

    The estimator sets ``support_vectors_``, ``dual_coef_`` (1, M), ``intercept_`` (1,),
    ``gamma_`` (the RBF precision) and ``classes_`` (``classes_[1]`` is the ``+1`` side).
    """

    def _store_expansion(self, X, t, support, coef, intercept) -> None:
        """Keep the support vectors in training order with their coefficients, and the
        per-class counts ``n_support_`` (``t`` holds the ``+-1`` training labels)."""
        order = np.argsort(support, kind="stable")
        self.support_ = np.asarray(support, dtype=np.intp)[order]
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = np.asarray(coef, dtype=np.float64)[order].reshape(1, -1)
        self.intercept_ = np.array([float(intercept)])
        self.n_support_ = np.array(
            [np.sum(t[self.support_] < 0), np.sum(t[self.support_] > 0)], dtype=np.intp
        )

    def decision_function(self, X):
        """``f(x) = sum_j dual_coef_j K(x, support_vectors_j) + intercept``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Positive means ``classes_[1]``.
        """
        return kernel_expansion(self, X)

    def predict(self, X):
        """``classes_[1]`` where ``f(x) >= 0``, else ``classes_[0]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        positive = self.decision_function(X) >= 0  # checks that the model is fitted
        return self.classes_[positive.astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
