"""miGraph (Zhou, Sun & Li 2009): multi-instance learning with instances treated as non-i.i.d.

Each bag ``X_I = {x_1, ..., x_m}`` becomes an epsilon-graph: instances ``x_a`` and ``x_u`` are
joined when their Euclidean distance is below ``epsilon_I``, the mean distance between the
bag's distinct instances (the paper's default threshold). With the adjacency ``w_au`` (1 for
an edge, and ``w_aa = 1``), every instance gets the weight ``W_a = 1 / sum_u w_au``, the
inverse of its (closed) neighbourhood size: the instances of a clique of ``q`` mutually
close instances each weigh about ``1/q``, so a clique counts roughly like one instance.
The bag kernel is

    k_G(X_I, X_J) = sum_a sum_b W_a W'_b k(x_a, x'_b) / (sum_a W_a * sum_b W'_b)

with the Gaussian instance kernel ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``, and a
soft-margin SVM with bias is trained on it (:func:`svmlab.qp.solve_svm_dual`).
``k_G`` is a weighted mean of positive-definite instance-kernel values, hence symmetric and
positive semi-definite.

Differences from the paper's comparator (Zhou's MATLAB code, with LIBSVM): this is a
re-implementation from the paper's description, not a port; the MATLAB code's exact
threshold handling (e.g. ``<`` vs ``<=``, distances scaled or not) and its LIBSVM tolerance
may differ. A one-instance bag has no edges (weight 1). The threshold can be set to a fixed
value with ``epsilon``.

References
----------
Z.-H. Zhou, Y.-Y. Sun, Y.-F. Li. Multi-instance learning by treating instances as non-i.i.d.
samples. ICML 2009, 1249-1256.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from svmlab._sklearn_compat import Interval
from svmlab.estimators.mil.set_kernel import BagKernelSVCBase
from svmlab.kernels import squared_euclidean

__all__ = ["MiGraphClassifier", "migraph_instance_weights"]


def migraph_instance_weights(X, starts, sizes, epsilon: float | None = None) -> np.ndarray:
    """miGraph's clique weights ``W_a = 1 / |{u : d(x_a, x_u) < eps_I}|`` for every instance.

    Parameters
    ----------
    X : ndarray of shape (n_instances, d)
        Instances stacked bag after bag.
    starts, sizes : ndarray of shape (n_bags,)
        From :func:`svmlab.estimators.mil.check_bags`.
    epsilon : float or None
        Fixed threshold; ``None`` uses each bag's mean distance between distinct instances.

    Returns
    -------
    ndarray of shape (n_instances,)
        Weights in ``(0, 1]``; 1 for an instance without neighbours.
    """
    w = np.ones(X.shape[0])
    for s, m in zip(starts, sizes):
        if m < 2:
            continue
        B = X[s : s + m]
        D = np.sqrt(np.maximum(squared_euclidean(B, B), 0.0))
        np.fill_diagonal(D, 0.0)
        eps = D[~np.eye(m, dtype=bool)].mean() if epsilon is None else float(epsilon)
        adj = D < eps
        np.fill_diagonal(adj, True)
        w[s : s + m] = 1.0 / adj.sum(axis=1)
    return w


class MiGraphClassifier(BagKernelSVCBase):
    """miGraph: an SVM on the epsilon-graph bag kernel of Zhou, Sun & Li (2009).

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the hinge loss; > 0. The paper's grid: {0.1, 1, 10, 100, 1e3, 1e4}.
    sigma : float, default=1.0
        Width of the instance Gaussian kernel (``gamma = 1 / (2 sigma^2)``). The paper's
        grid: {0.1, 0.5, 1, 2, 5, 10}.
    gamma : float or None, default=None
        The instance kernel as ``exp(-gamma ||x - x'||^2)``; when set, ``sigma`` is ignored.
    epsilon : float or None, default=None
        Edge threshold on the Euclidean distance. ``None``: per bag, the mean distance
        between its distinct instances (the paper's choice).
    tol : float, default=1e-3
        KKT tolerance of the SVM (LIBSVM's ``eps``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    support_ : ndarray
        Indices of the support bags.
    dual_coef_ : ndarray of shape (n_SV,)
        ``alpha_J Y_J`` of the support bags.
    intercept_ : float
    n_support_ : ndarray of shape (2,)
        Support bags (negative, positive).
    model_size_ : int
        Number of support bags.
    fit_info_ : dict
        ``iterations`` (SMO pair updates), ``converged``, ``kkt_gap``, ``objective``,
        ``kernel_seconds``, ``qp_seconds``, ``gamma``, ``n_bags``, ``n_instances``.
    """

    _parameter_constraints: dict = {
        **BagKernelSVCBase._parameter_constraints,
        "epsilon": [Interval(Real, 0.0, None, closed="neither"), None],
    }
    _name = "miGraph"

    def __init__(
        self,
        C: float = 1.0,
        sigma: float = 1.0,
        gamma: float | None = None,
        epsilon: float | None = None,
        tol: float = 1e-3,
    ):
        super().__init__(C=C, sigma=sigma, gamma=gamma, tol=tol)
        self.epsilon = epsilon

    def _instance_weights(self, X, starts, sizes):
        return migraph_instance_weights(X, starts, sizes, self.epsilon)

    def _bag_stat(self, X, starts, sizes, w, gamma):
        return np.add.reduceat(w, starts)  # sum_a W_a

    @staticmethod
    def _normalise(K, stat_rows, stat_cols):
        return K / np.outer(stat_rows, stat_cols)
