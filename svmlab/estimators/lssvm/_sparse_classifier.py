"""What the three reconstructed sparse-LSSVM baselines of Oliveira (2021), Ch. 3 share.

FSA-, SSD- and CCP-LSSVM (Table 4) are binary RBF classifiers ``f(x) = sum_j a_j K(x, x_j) + b``
over a subset of the training set. This module holds their common part: the parameter
constraints of ``C``, ``gamma`` and their tuning, the ``+-1`` labels
(:func:`~svmlab.estimators.lssvm.full.binary_targets`, the package's one label check), the
hyper-parameters (tuned with
:func:`svmlab.estimators.lssvm.tuning.tune_lssvm` when ``C``/``gamma`` are None, through
:class:`~svmlab.estimators.lssvm.tuning.TunedCGammaMixin` as every LSSVM estimator), prediction
from the expansion, and the least-squares solve of the rectangular LSSVM system over a column
subset (shared by SSD-LSSVM's subsampled dual and CCP-LSSVM's refit), built block by block so
that no N x N matrix exists.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import validate_data

from svmlab._sklearn_compat import _fit_context
from svmlab.estimators.lssvm._expansion import BinaryKernelExpansionMixin
from svmlab.estimators.lssvm._params import LSSVM_CONSTRAINTS
from svmlab.estimators.lssvm.full import binary_targets
from svmlab.estimators.lssvm.tuning import TunedCGammaMixin
from svmlab.kernels import rbf_blocks


def rectangular_normal_equations(X, y, columns, C: float, gamma: float):
    """Normal equations ``(G, h)`` of the LSSVM system over all rows and a column subset.

    The system (Oliveira 2021, Eq. 3.11 with every training sample a row) is::

        [ 0     1_M^T                ] [ b ]   [ 0 ]
        [ 1_N   K(X, X_S) + I_NS / C ] [ a ] = [ y ]

    where ``I_NS[i, j] = 1`` when row ``i`` is the training sample of column ``j``. ``G`` is
    ``A^T A`` and ``h = A^T v``, both ``(M + 1)``-square / long, accumulated over blocks of rows
    of the kernel (memory ``O(M^2)`` plus one block), cost ``O(N M^2)``.

    The same system as CC-LSSVM's dense least-squares solve (``_class_corner.solve_reduced``)
    with every sample a row; it is kept in normal-equation form here because SSD-LSSVM re-solves
    it some 50 times with a changing diagonal penalty (``O(M^3)`` each once ``G`` exists) and
    the rows number up to 50,000 (the dense ``N x M`` matrix is not held).
    """
    columns = np.asarray(columns, dtype=np.intp)
    m = len(columns)
    G = np.zeros((m + 1, m + 1))
    h = np.zeros(m + 1)
    G[1:, 1:] += 1.0  # the first row [0, 1^T] (right-hand side 0)
    position = np.full(X.shape[0], -1, dtype=np.intp)
    position[columns] = np.arange(m)
    for rows, K in rbf_blocks(X, X[columns], gamma):
        block = np.empty((K.shape[0], m + 1))
        block[:, 0] = 1.0
        block[:, 1:] = K
        local = np.flatnonzero(position[rows] >= 0)
        block[local, 1 + position[rows][local]] += 1.0 / C
        G += block.T @ block
        h += block.T @ y[rows]
    return G, h


def solve_normal_equations(G, h, penalty=None):
    """``argmin ||A w - v||^2 (+ sum_j penalty_j w_j^2)`` from ``G = A^T A``, ``h = A^T v``.

    A Cholesky solve; when ``G`` (+ penalty) is numerically singular, the minimum-norm
    least-squares solution instead. Returns ``(w, used_lstsq)``.
    """
    M = G if penalty is None else G + np.diag(penalty)
    try:
        factor = linalg.cho_factor(M, lower=True, check_finite=False)
        w = linalg.cho_solve(factor, h, check_finite=False)
        if np.all(np.isfinite(w)):
            return w, False
    except linalg.LinAlgError:
        pass
    w = linalg.lstsq(M, h, cond=1e-12, check_finite=False)[0]
    return w, True


class SparseLSSVMClassifierBase(
    BinaryKernelExpansionMixin, TunedCGammaMixin, ClassifierMixin, BaseEstimator
):
    """Binary RBF expansion over a subset of the training set; subclasses implement
    :meth:`_fit_sparse` (``X``, ``+-1`` labels, ``C``, ``gamma``, random state) and extend
    :attr:`_parameter_constraints` with their own settings."""

    _parameter_constraints: dict = dict(LSSVM_CONSTRAINTS)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the sparse model on a two-class training set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Any two labels; ``classes_[1]`` is the ``+1`` side of the decision function.

        Returns
        -------
        self
        """
        self._check_grids()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        self.classes_, y_pm = binary_targets(type(self).__name__, y)
        C, gamma, tuned, n_tune = self._c_gamma(X, y_pm, "classification")
        support, coef, intercept, info = self._fit_sparse(X, y_pm, C, gamma)
        self._store_expansion(X, y_pm, support, coef, intercept)
        self.C_, self.gamma_ = C, gamma
        self.fit_info_ = {
            **self._tuning_record(C, gamma, tuned, n_tune),
            "n_support": int(len(self.support_)),
            "sparsity": 1.0 - len(self.support_) / X.shape[0],
            **info,
        }
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
