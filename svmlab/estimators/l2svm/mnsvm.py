"""MNSVM: the L2-SVM as a minimal-norm (nearest point) problem solved by MDM steps,
reconstructed. The default follows GSVM's sampled MDM with its geometric stopping rule."""

from __future__ import annotations

import math
import numbers

import numpy as np

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.estimators.l2svm._base import L2SVMBase, get_column, inactive_indices, njit, reconstruct


@njit(cache=True, nogil=True)
def _scan(g, u, y, two_hulls, active, m):
    """Over ``active[:m]``, per simplex (0: the one hull or the positive class, 1: the negative
    class): the support point with the largest g, the point with the smallest g, the gap
    between the two, and lambda = sum u g."""
    a0, b0, a1, b1 = -1, -1, -1, -1
    ga0, gb0, ga1, gb1 = -np.inf, np.inf, -np.inf, np.inf
    lam0, lam1 = 0.0, 0.0
    for k in range(m):
        j = active[k]
        gj = g[j]
        uj = u[j]
        # branch-free selects (about 3x faster than if-blocks on mixed support patterns)
        v = gj if uj > 0.0 else -np.inf
        if two_hulls and y[j] < 0:
            lam1 += uj * gj
            s = v > ga1
            ga1 = v if s else ga1
            a1 = j if s else a1
            s = gj < gb1
            gb1 = gj if s else gb1
            b1 = j if s else b1
        else:
            lam0 += uj * gj
            s = v > ga0
            ga0 = v if s else ga0
            a0 = j if s else a0
            s = gj < gb0
            gb0 = gj if s else gb0
            b0 = j if s else b0
    gap1 = ga1 - gb1 if two_hulls else -1.0
    return a0, b0, ga0 - gb0, lam0, a1, b1, gap1, lam1


@njit(cache=True, nogil=True)
def _start(X, sq, y, gamma, bias, inv_C, w0, buf, slot_of, idx_of, stamp, state):
    """The MDM starting point: weight ``w0`` on the first sample of each class; returns the
    weights u and the gradient g = Q u (Q = the kernel + bias + I/C in the signed space)."""
    n = X.shape[0]
    u = np.zeros(n)
    g = np.zeros(n)
    p = 0
    while y[p] < 0:
        p += 1
    q = 0
    while y[q] > 0:
        q += 1
    u[p] = w0
    u[q] = w0
    cp = get_column(p, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
    cq = get_column(q, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
    for j in range(n):
        g[j] = w0 * (cp[j] + cq[j])
    g[p] += w0 * inv_C
    g[q] += w0 * inv_C
    return u, g


@njit(cache=True, nogil=True)
def mdm_solve(
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
    inv_C,
    tol,
    max_iter,
    two_hulls,
    shrinking,
):
    """Mitchell-Dem'yanov-Malozemov iterations for min_u u^T Q u over one or two simplices.

    Q = y y^T (K + bias) + I/C, so u^T Q u = ||sum_i u_i y_i z_i||^2 for the points z_i of the
    feature space of K + bias + I/C. ``two_hulls=False``: u >= 0, sum(u) = 1 (the minimal-norm
    point of the hull of {y_i z_i}); ``two_hulls=True``: sum(u) = 1 within each class (the
    nearest points of the two class hulls). g = Q u is kept for the active samples. An MDM step
    moves weight from the support point with the largest g to the point with the smallest g
    (of the same simplex), with the exact line-search step clipped to the weight available.
    Shrinking drops samples with u = 0 whose g exceeds the largest g on the support of their
    simplex; their g is rebuilt before convergence is declared.
    Returns u, g, iterations, converged.

    Kept whole: it is the MDM iteration above, step by step, as one numba-compiled hot loop
    whose state (weights, gradient, active set, kernel-column cache) is updated in place at
    every step; split into helpers it would pass that state through every call of the inner
    loop, and the compiled code (its speed, its rounding) could change.
    """
    n = X.shape[0]
    # start: the first sample of each class, weight 1/2 each (one hull) or 1 each (two hulls)
    w0 = 1.0 if two_hulls else 0.5
    u, g = _start(X, sq, y, gamma, bias, inv_C, w0, buf, slot_of, idx_of, stamp, state)
    q_ii = 1.0 + bias + inv_C  # RBF: K_ii = 1
    # the KKT violation of the equivalent L2-SVM dual is at most scale * gap / rho
    scale = 2.0 if two_hulls else 1.0
    active = np.arange(n)
    m = n
    interval = min(n, 1000)
    countdown = interval
    unshrunk = False

    it = 0
    converged = False
    a0, b0, gap0, lam0, a1, b1, gap1, lam1 = _scan(g, u, y, two_hulls, active, m)
    while True:
        rho = lam0 + lam1  # squared norm (one hull) or squared distance (two hulls)
        if scale * max(gap0, gap1) <= tol * rho:
            if m == n:
                converged = True
                break
            rows = inactive_indices(active, m, n)  # shrunk samples: rebuild g, then re-check
            reconstruct(
                g, 0.0, 1.0, u, rows, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state
            )
            active[:] = np.arange(n)
            m = n
            a0, b0, gap0, lam0, a1, b1, gap1, lam1 = _scan(g, u, y, two_hulls, active, m)
            continue
        if it >= max_iter:
            break
        if gap0 >= gap1:
            a, b, gap = a0, b0, gap0
        else:
            a, b, gap = a1, b1, gap1
        ca = get_column(a, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
        cb = get_column(b, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
        # f(u + t (e_b - e_a)) is quadratic in t: minimiser gap / ||y_a z_a - y_b z_b||^2
        t = gap / (2.0 * q_ii - 2.0 * ca[b])
        if t > u[a]:
            t = u[a]
        u[a] -= t
        u[b] += t
        g[a] -= t * inv_C
        g[b] += t * inv_C
        it += 1
        if two_hulls:
            for k in range(m):
                j = active[k]
                g[j] += t * (cb[j] - ca[j])
            a0, b0, gap0, lam0, a1, b1, gap1, lam1 = _scan(g, u, y, True, active, m)
        else:  # update and scan in one pass (the one-hull case of _scan)
            ga0, gb0, lam0 = -np.inf, np.inf, 0.0
            for k in range(m):
                j = active[k]
                gj = g[j] + t * (cb[j] - ca[j])
                g[j] = gj
                uj = u[j]
                lam0 += uj * gj
                v = gj if uj > 0.0 else -np.inf
                s = v > ga0
                ga0 = v if s else ga0
                a0 = j if s else a0
                s = gj < gb0
                gb0 = gj if s else gb0
                b0 = j if s else b0
            gap0 = ga0 - gb0
        countdown -= 1
        if shrinking and countdown == 0:
            countdown = interval
            near = scale * max(gap0, gap1) <= 10.0 * tol * (lam0 + lam1)
            if not unshrunk and m < n and near:  # unshrink once near the end
                unshrunk = True
                rows = inactive_indices(active, m, n)
                reconstruct(
                    g, 0.0, 1.0, u, rows, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state
                )
                active[:] = np.arange(n)
                m = n
                a0, b0, gap0, lam0, a1, b1, gap1, lam1 = _scan(g, u, y, two_hulls, active, m)
            top0 = g[a0]
            top1 = g[a1] if two_hulls else np.inf
            kept = 0
            for k in range(m):  # keeps active ascending, so ties still go to the lowest index
                j = active[k]
                top = top1 if two_hulls and y[j] < 0 else top0
                if u[j] > 0.0 or g[j] <= top:
                    active[kept] = j
                    kept += 1
            m = kept
    return u, g, it, converged


@njit(cache=True, nogil=True)
def sampled_mdm_solve(
    X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state, inv_C, tol, max_iter, draws, seed
):
    """MDM iterations on the one-hull minimal-norm problem with a geometric stopping rule.

    The step is moved towards a *sampled* violator: up to ``draws`` uniformly random samples
    are drawn and the first one whose (Q u)_v lies below ``rho - eps sqrt(rho tau)`` (rho the
    squared norm, tau the diagonal of Q) is taken; weight moves to it from the support point
    with the largest (Q u). When no draw violates, eps is halved (starting from 1/2) until it
    reaches ``tol``; the solver stops when no draw violates at eps = ``tol``. Only the lower
    side is tested, so support points whose weight an exact solver would remove can keep a
    small weight. Returns u, g, iterations, converged.
    """
    n = X.shape[0]
    np.random.seed(seed)
    u, g = _start(X, sq, y, gamma, bias, inv_C, 0.5, buf, slot_of, idx_of, stamp, state)
    tau = 1.0 + bias + inv_C  # RBF: K_ii = 1
    eps = 1.0
    it = 0
    while eps > tol:
        eps = max(0.5 * eps, tol)
        while True:
            rho = 0.0
            a = -1
            top = -np.inf
            for j in range(n):
                if u[j] > 0.0:
                    rho += u[j] * g[j]
                    if g[j] > top:
                        top = g[j]
                        a = j
            threshold = rho - eps * math.sqrt(rho * tau)
            v = -1
            for _ in range(draws):
                j = np.random.randint(0, n)
                if g[j] < threshold:
                    v = j
                    break
            if v < 0:
                break
            if it >= max_iter:
                return u, g, it, False
            ca = get_column(a, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
            cv = get_column(v, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
            t = (top - g[v]) / (2.0 * tau - 2.0 * ca[v])
            if t > u[a]:
                t = u[a]
            u[a] -= t
            u[v] += t
            for j in range(n):
                g[j] += t * (cv[j] - ca[j])
            g[a] -= t * inv_C
            g[v] += t * inv_C
            it += 1
    return u, g, it, True


class MNSVMClassifier(L2SVMBase):
    """Minimal Norm SVM (MNSVM): the RBF L2-SVM as a geometric nearest-point problem, reconstructed.

    **Reconstructed**: the dissertation (Melki 2018) gives no algorithmic details beyond
    "a geometric L2-SVM using the minimal-enclosing-ball / convex-hull connection" (Strack 2013)
    and its results (Table 5.3); the thesis is not available. This implementation is svmlab's
    reconstruction (docs/decisions/ollawv.md, "NNISDA and MNSVM reconstructions"): the
    soft-margin L2-SVM is a hard-margin SVM in the feature space of
    K~ = K + bias + I/C, whose dual is the minimal-norm point of the convex hull of the signed
    points y_i z_i::

        min_u  || sum_i u_i y_i z_i ||^2 = u^T Q u,   u >= 0, sum_i u_i = 1,
        Q_ij = y_i y_j (K_ij + bias) + delta_ij / C

    solved by Mitchell-Dem'yanov-Malozemov (MDM) iterations: move weight from the support
    point farthest along the current minimal-norm direction (largest (Q u)_i with u_i > 0) to
    a point on the origin side, with an exact line search. The L2-SVM multipliers are
    a = u / rho with rho = u^T Q u, and the model is o(x) = sum_i a_i y_i (K(x, x_i) + bias);
    the bias is the nearest point's coordinate on the constant bias feature.

    ``formulation="sampled"`` (default) follows the MDM variant of Strack's GSVM, the
    framework that produced Table 5.3: the point that receives weight is the first of up to
    ``draws`` uniformly random samples whose (Q u)_v lies below
    ``rho - eps * sqrt(rho * tau)`` (tau = 1 + bias + 1/C, the diagonal of Q); when no draw
    qualifies, eps is halved, starting from 1/2, down to ``tol``, and the solver stops when no
    draw qualifies at eps = ``tol`` (GSVM's "adjusted minimal norm" rule). Only that lower
    side is checked, so support points an exact solver would empty can keep a small weight:
    the model is near, but not equal to, :class:`NNISDAClassifier`'s, and its support set
    differs (docs/decisions/ollawv.md, "NNISDA and MNSVM reconstructions").

    ``formulation="min_norm"`` scans all samples at every step (largest to smallest (Q u)_i)
    and stops on the KKT violation of the equivalent L2-SVM dual, so it converges to the same
    model as :class:`NNISDAClassifier` (the identical-model reading).

    ``formulation="two_hulls"`` instead finds the nearest points of the two class hulls
    (weights sum to one per class), i.e. the L2-SVM with a free, unregularised bias taken from
    the geometry: with lambda_+ / lambda_- the per-class averages of Q u and rho their sum,
    a = 2 u / rho and b = (lambda_- - lambda_+) / rho (``bias`` plays no role there).

    Stopping of the exact formulations: the KKT violation of the equivalent L2-SVM dual is at
    most ``tol`` (gap / rho <= tol, with gap the difference of the two selected (Q u) values;
    2 gap / rho for two hulls).
    Multiclass data are split one-vs-one as in OLLAWV (docs/decisions/ollawv.md, "One-vs-one
    pair order and vote ties").

    Parameters
    ----------
    C : float, default=1.0
        L2 soft-margin penalty; enters only as the ridge 1/C on the kernel diagonal. Must be > 0.
    gamma : float or "scale", default=1.0
        RBF width, K(x, x') = exp(-gamma ||x - x'||^2). "scale" as in sklearn.svm.SVC. Must be > 0.
    bias : float, default=1.0
        Constant added to the kernel (the diagonal is 1 + bias + 1/C, as in GSVM); the model's
        bias is bias * sum_i a_i y_i. 0 gives a model without bias. Ignored for two hulls.
    formulation : {"sampled", "min_norm", "two_hulls"}, default="sampled"
        "sampled": GSVM's MDM with random candidate draws and the geometric stopping rule
        (svmlab's default reading); "min_norm": the exact single-hull minimal-norm problem,
        the same model as NNISDA; "two_hulls": the exact nearest points of the two class
        hulls (free bias).
    tol : float, default=1e-3
        "sampled": the final eps of the stopping rule (GSVM's default 1e-3); otherwise the
        largest KKT violation of the equivalent L2-SVM dual at termination.
    max_iter : int or None, default=None
        Cap on MDM steps per binary problem (None: no cap). Reaching it issues a
        ConvergenceWarning.
    shrinking : bool, default=True
        Skip samples with u_i = 0 whose (Q u)_i exceeds the largest value on the support
        (LIBSVM-style heuristic); their values are rebuilt and checked before stopping, so
        the solution is the same up to ``tol``. Exact formulations only.
    cache_size : float, default=500
        Kernel-column cache per binary problem, in MB. A problem whose full kernel fits is
        solved with the whole kernel computed at once with BLAS; otherwise columns are
        computed on demand and the least recently used are evicted.
    draws : int, default=590
        "sampled" only: random candidates tried per step before eps is halved or the solver
        stops (GSVM's default draw number).
    random_state : int, default=0
        "sampled" only: seed of the candidate draws (each pairwise problem starts from it).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    pairs_ : ndarray of shape (n_pairs, 2)
        Class indices (a, b) of each pairwise model; a is the larger class and the +1 side.
    support_ : ndarray
        Sorted indices of the distinct training samples with u_i > 0 in at least one pairwise model.
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
    fit_info_ : dict
        ``iterations`` (MDM steps), ``converged``, ``objective`` (sum of the pairwise L2-SVM dual
        objectives: 1 / (2 rho) for one hull, 2 / rho for two hulls), ``max_violation`` (KKT
        violation of the equivalent L2-SVM dual), ``kernel_columns``, ``gamma``, per-pair
        details in ``pairs`` (including ``rho``).
    n_features_in_ : int

    Notes
    -----
    All formulations solve the same L2-SVM dual (two hulls: with a free bias). Table 5.3
    reports different accuracies and %SV for NNISDA and MNSVM; the sampled default makes the
    two differ the way GSVM's stopping rule does, but on small data sets the difference is
    smaller than the published one (svmlab/reproduce/deviations/ollawv_nnisda_mnsvm.md).

    Every formulation starts from the first sample of each class; "sampled" is deterministic
    given ``random_state``, the others have no randomness. Memory is O(n d) plus the column
    cache.

    References
    ----------
    R. Strack, "Geometric approach to support vector machines learning for large datasets",
    PhD thesis, VCU, 2013.
    B. F. Mitchell, V. F. Dem'yanov, V. N. Malozemov, "Finding the point of a polyhedron
    closest to the origin", SIAM J. Control 12(1), 1974.
    S. S. Keerthi, S. K. Shevade, C. Bhattacharyya, K. R. K. Murthy, "A fast iterative nearest
    point algorithm for support vector machine classifier design", IEEE TNN 11(1), 2000.
    G. A. Melki, "Novel support vector machines for diverse learning paradigms", PhD thesis,
    VCU, 2018, Table 5.3.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from svmlab.estimators.l2svm import MNSVMClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = MNSVMClassifier(C=4.0, gamma=0.25).fit(X, y)
    >>> clf.predict(X[[0, 60, 120]])
    array([0, 1, 2])
    >>> clf.n_support_
    array([15, 24, 24], dtype=int32)
    """

    _parameter_constraints: dict = {
        **L2SVMBase._parameter_constraints,
        "formulation": [StrOptions({"sampled", "min_norm", "two_hulls"})],
        "draws": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": [Interval(numbers.Integral, 0, 2**31 - 1, closed="both")],
    }

    def __init__(
        self,
        C=1.0,
        gamma=1.0,
        bias=1.0,
        formulation="sampled",
        tol=1e-3,
        max_iter=None,
        shrinking=True,
        cache_size=500,
        draws=590,
        random_state=0,
    ):
        self.C = C
        self.gamma = gamma
        self.bias = bias
        self.formulation = formulation
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.draws = draws
        self.random_state = random_state

    def _solve_binary(self, X, y, gamma):
        two_hulls = self.formulation == "two_hulls"
        bias = (
            0.0 if two_hulls else float(self.bias)
        )  # a constant cancels when each class sums to 1
        cache = self._cache(X, y, gamma, bias)
        if self.formulation == "sampled":
            u, g, it, converged = sampled_mdm_solve(
                *cache.args(),
                1.0 / self.C,
                float(self.tol),
                self._max_iter(),
                int(self.draws),
                int(self.random_state),
            )
        else:
            u, g, it, converged = mdm_solve(
                *cache.args(),
                1.0 / self.C,
                float(self.tol),
                self._max_iter(),
                two_hulls,
                bool(self.shrinking),
            )
        if two_hulls:
            pos = y > 0
            lam_pos, lam_neg = u[pos] @ g[pos], u[~pos] @ g[~pos]
            rho = lam_pos + lam_neg
            alpha = (2.0 / rho) * u
            intercept = (lam_neg - lam_pos) / rho
            margin = (2.0 / rho) * g + y * intercept  # y_i o(x_i) + a_i / C
            objective = 2.0 / rho
        else:
            rho = u @ g
            alpha = u / rho
            intercept = bias * (alpha @ y)
            margin = g / rho
            objective = 0.5 / rho
        slack = 1.0 - margin  # the L2-SVM dual gradient
        violation = np.where(u > 0, np.abs(slack), np.maximum(slack, 0.0)).max()
        info = {
            "iterations": int(it),
            "converged": bool(converged),
            "objective": float(objective),
            "max_violation": float(violation),
            "kernel_columns": cache.columns_computed,
            "rho": float(rho),
        }
        return alpha, float(intercept), info
