"""NNISDA: the L2-SVM dual solved by single-coordinate (ISDA-style) descent, reconstructed."""

from __future__ import annotations

import numpy as np

from svmlab.estimators.l2svm._base import L2SVMBase, get_column, inactive_indices, njit, reconstruct


@njit(cache=True, nogil=True)
def _worst_violator(G, alpha, active, m):
    """Largest KKT violation over ``active[:m]`` (alpha_j = 0: G_j > 0 only) and its index."""
    v_max, i = 0.0, -1
    for k in range(m):
        j = active[k]
        v = abs(G[j]) if alpha[j] > 0.0 else G[j]
        if v > v_max:
            v_max, i = v, j
    return v_max, i


@njit(cache=True, nogil=True)
def nnisda_solve(
    X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state, inv_C, tol, max_iter, shrinking
):
    """Worst-violator coordinate descent on max_a sum(a) - a^T Q a / 2, a >= 0.

    Q = y y^T (K + bias) + I/C (docs/decisions/ollawv.md, "NNISDA and MNSVM reconstructions").
    The gradient G = 1 - Q a is kept for the
    active samples; one step updates the worst KKT violator exactly and refreshes G with its
    column. Shrinking (as in LIBSVM) drops samples with a = 0 whose G is below minus the
    current largest violation; their G is rebuilt before convergence is declared.
    Returns alpha, G, iterations, converged, final max violation.

    Kept whole: it is the worst-violator descent above, step by step, as one numba-compiled
    hot loop whose state (weights, gradient, active set, kernel-column cache) is updated in
    place at every step; split into helpers it would pass that state through every call of the
    inner loop, and the compiled code (its speed, its rounding) could change.
    """
    n = X.shape[0]
    alpha = np.zeros(n)
    G = np.ones(n)
    active = np.arange(n)
    m = n
    q_ii = 1.0 + bias + inv_C  # RBF: K_ii = 1
    i, v_max = 0, 1.0  # at alpha = 0 every sample violates by 1; ties go to the lowest index
    interval = min(n, 1000)
    countdown = interval
    unshrunk = False
    it = 0
    converged = False
    while True:
        if v_max <= tol:
            if m == n:
                converged = True
                break
            rows = inactive_indices(active, m, n)  # shrunk samples: rebuild G, then re-check
            reconstruct(
                G, 1.0, -1.0, alpha, rows, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state
            )
            active[:] = np.arange(n)
            m = n
            v_max, i = _worst_violator(G, alpha, active, m)
            continue
        if it >= max_iter:
            break
        col = get_column(i, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
        new = alpha[i] + G[i] / q_ii  # exact minimiser along coordinate i ...
        if new < 0.0:  # ... projected on alpha_i >= 0
            new = 0.0
        delta = new - alpha[i]
        alpha[i] = new
        G[i] -= delta * inv_C  # the diagonal 1/C is not in the cached column
        it += 1
        # refresh the gradient and find the next worst violator in one pass:
        # alpha_j = 0 violates only if G_j > 0, alpha_j > 0 if G_j != 0
        v_max, i = 0.0, -1
        for k in range(m):
            j = active[k]
            g = G[j] - delta * col[j]
            G[j] = g
            v = abs(g) if alpha[j] > 0.0 else g
            if v > v_max:
                v_max, i = v, j
        countdown -= 1
        if shrinking and countdown == 0:
            countdown = interval
            if not unshrunk and m < n and v_max <= 10.0 * tol:  # unshrink once near the end
                unshrunk = True
                rows = inactive_indices(active, m, n)
                reconstruct(
                    G,
                    1.0,
                    -1.0,
                    alpha,
                    rows,
                    X,
                    sq,
                    y,
                    gamma,
                    bias,
                    buf,
                    slot_of,
                    idx_of,
                    stamp,
                    state,
                )
                active[:] = np.arange(n)
                m = n
                v_max, i = _worst_violator(G, alpha, active, m)
            kept = 0
            for k in range(m):  # keeps active ascending, so ties still go to the lowest index
                j = active[k]
                if alpha[j] > 0.0 or G[j] >= -v_max:
                    active[kept] = j
                    kept += 1
            m = kept
    return alpha, G, it, converged, v_max


class NNISDAClassifier(L2SVMBase):
    """Non-Negative Iterative Single Data Algorithm (NNISDA) for the RBF L2-SVM, reconstructed.

    **Reconstructed**: the dissertation (Melki 2018) gives no algorithmic details beyond
    "NNISDA solves the L2-SVM by coordinate descent, inspired by ISDA" and its results
    (Table 5.3); the original (Zivic 2016; Kecman & Zivic 2014) is not available. This
    implementation is svmlab's reconstruction (docs/decisions/ollawv.md, "NNISDA and MNSVM
    reconstructions"): the bias is absorbed into the kernel, so the
    dual has no equality constraint, only alpha >= 0::

        max_a  sum_i a_i - 1/2 sum_ij a_i a_j Q_ij,   Q_ij = y_i y_j (K_ij + bias) + delta_ij / C

    Each iteration picks the sample with the largest KKT violation of the gradient
    g_i = 1 - (Q a)_i (for a_i = 0 only g_i > 0 counts; ties to the lowest index), sets
    a_i <- max(0, a_i + g_i / Q_ii) and updates g with column i, until the largest violation
    is at most ``tol``. The model is o(x) = sum_i a_i y_i (K(x, x_i) + bias). Multiclass data
    are split one-vs-one as in OLLAWV (docs/decisions/ollawv.md, "One-vs-one pair order and
    vote ties").

    Parameters
    ----------
    C : float, default=1.0
        L2 soft-margin penalty (primal C/2 sum xi_i^2); enters only as the ridge 1/C on the
        kernel diagonal. Must be > 0.
    gamma : float or "scale", default=1.0
        RBF width, K(x, x') = exp(-gamma ||x - x'||^2). "scale" uses 1 / (n_features * X.var())
        as sklearn.svm.SVC. Must be > 0.
    bias : float, default=1.0
        Constant added to the kernel: the regularised bias b = bias * sum_i a_i y_i (primal
        term b^2 / (2 bias)). 0 trains a model without bias.
    tol : float, default=1e-3
        Stop when the largest KKT violation is at most ``tol`` (svmlab's default 1e-3).
    max_iter : int or None, default=None
        Cap on coordinate updates per binary problem (None: no cap). Reaching it issues a
        ConvergenceWarning.
    shrinking : bool, default=True
        Skip samples with a_i = 0 far outside the margin during the iterations (LIBSVM's
        heuristic); their gradient is rebuilt and checked before stopping, so the solution
        is the same up to ``tol``.
    cache_size : float, default=500
        Kernel-column cache per binary problem, in MB. A problem whose full kernel fits is
        solved with the whole kernel computed at once with BLAS; otherwise columns are
        computed on demand and the least recently used are evicted.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    pairs_ : ndarray of shape (n_pairs, 2)
        Class indices (a, b) of each pairwise model; a is the larger class and the +1 side.
    support_ : ndarray
        Sorted indices of the distinct training samples that are support vectors (a_i > 0)
        in at least one pairwise model.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    pair_support_ : list of ndarray
        Per pairwise model, the training indices of its support vectors.
    pair_dual_coef_ : list of ndarray
        Per pairwise model, a_i y_i of those support vectors (y_i = +1 for the pair's first class).
    n_support_ : ndarray of shape (n_classes,)
        Distinct support vectors per class; its sum is the model size.
    n_iter_ : ndarray of shape (n_pairs,)
        Iterations of each pairwise solver.
    intercept_ : ndarray of shape (n_pairs,)
        b = bias * sum_i a_i y_i of each pairwise model.
    fit_info_ : dict
        ``iterations`` (total coordinate updates), ``converged``, ``objective`` (sum of the
        pairwise dual objectives), ``max_violation``, ``kernel_columns`` (computed),
        ``gamma`` and per-pair details in ``pairs``.
    n_features_in_ : int

    Notes
    -----
    In svmlab's reading of NNISDA, the bias is absorbed into the kernel (``bias=1``): that removes
    the equality constraint sum_i a_i y_i = 0, so single-variable updates stay feasible;
    ``bias=0`` drops the bias. The solver is deterministic (no ``random_state``). Memory is
    O(n d) plus the column cache; no n x n matrix is held when it does not fit in
    ``cache_size``.

    References
    ----------
    L. Zivic, "Direct L2 support vector machine", PhD thesis, VCU, 2016.
    V. Kecman, L. Zivic, "Algorithms for direct L2 support vector machines", IEEE INISTA 2014.
    V. Kecman, T.-M. Huang, M. Vogt, "Iterative single data algorithm for training kernel
    machines from huge data sets", 2005.
    G. A. Melki, "Novel support vector machines for diverse learning paradigms", PhD thesis,
    VCU, 2018, Table 5.3.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from svmlab.estimators.l2svm import NNISDAClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = NNISDAClassifier(C=4.0, gamma=0.25).fit(X, y)
    >>> clf.predict(X[[0, 60, 120]])
    array([0, 1, 2])
    >>> clf.n_support_
    array([15, 24, 24], dtype=int32)
    """

    def __init__(
        self, C=1.0, gamma=1.0, bias=1.0, tol=1e-3, max_iter=None, shrinking=True, cache_size=500
    ):
        self.C = C
        self.gamma = gamma
        self.bias = bias
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.cache_size = cache_size

    def _solve_binary(self, X, y, gamma):
        cache = self._cache(X, y, gamma, self.bias)
        alpha, G, it, converged, v_max = nnisda_solve(
            *cache.args(), 1.0 / self.C, float(self.tol), self._max_iter(), bool(self.shrinking)
        )
        info = {
            "iterations": int(it),
            "converged": bool(converged),
            "objective": float(0.5 * alpha @ (1.0 + G)),  # sum(a) - a^T Q a / 2 with Q a = 1 - G
            "max_violation": float(v_max),
            "kernel_columns": cache.columns_computed,
        }
        return alpha, float(self.bias * (alpha @ y)), info
