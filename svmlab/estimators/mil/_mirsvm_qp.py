"""MIRSVM's iteration, compiled: the kernel rows kept between iterations, and one call each for
the QP over the representatives and for the re-selection.

Melki (2018), Alg. 4.1: every iteration solves the dual of Eq. 4.10 over the n bag
representatives, computes the bias of Eq. 4.13 and the outputs of every training instance,
and re-selects each bag's representative by Eq. 4.9. Both steps here are numba functions on
buffers allocated once per fit:

* :func:`solve_representative_qp`: gathers the representatives' kernel from the cached rows,
  makes the previous ``alpha`` feasible (the warm start) and runs SMO with the second-order
  working-set selection of :func:`svmlab.qp.solve_svm_dual` (Fan, Chen & Lin 2005): the same
  pair choices and steps, read along rows of the symmetric kernel, with the scan for the next
  pair's first index done in the gradient update's pass.
* :func:`reselect`: bias, outputs, multi-instance objective and the new representatives.

The Python-level version (any QP solver, no row cache) stays in :mod:`.mirsvm`; both give
the same iterates up to rounding.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmlab.kernels import rbf

_TAU = 1e-12


class RepresentativeKernel:
    """Kernel values MIRSVM needs at every iteration: ``K`` between the n representatives and
    the outputs ``f(x)`` of every training instance.

    With ``cached``, the kernel row ``K(x_s, .)`` over all N training instances is kept for
    every instance ``s`` that has been a representative, in up to ``max_cached / N`` slots
    (at least n; the least recently used row is dropped when they are full): a representative
    seen before costs nothing, a new one one row of N values. ``slots[I]`` is the slot of bag
    ``I``'s representative. With ``gather`` (the Python-level loop) ``K`` is gathered from the
    rows at every :meth:`set`; the compiled loop gathers it itself. Without ``cached``, ``K``
    is refreshed row by row and the outputs are recomputed in blocks.
    """

    def __init__(self, X, S, gamma: float, sq, *, max_cached: int, gather: bool = True):
        self.X, self.gamma, self.sq, self.gather = X, gamma, sq, gather
        N, n = X.shape[0], len(S)
        cap = min(N, max_cached // N)
        self.cached = cap >= n
        if self.cached:
            self.rows = np.empty((cap, N))
            self.slot_of = np.full(N, -1, dtype=np.intp)  # instance -> slot
            self.owner = np.full(cap, -1, dtype=np.intp)  # slot -> instance
            self.last_used = np.full(cap, -1, dtype=np.int64)
            self.clock = 0
            self.K_work = np.empty((n, n))  # the compiled loop's kernel among representatives
            self.set(S, np.arange(n))
        else:
            self.gather = True
            self.K = rbf(X[S], X[S], gamma, X_sq=sq[S], Y_sq=sq[S])

    def set(self, S, changed) -> None:
        """The representatives are now ``S``; those of the bags ``changed`` are new."""
        X, gamma, sq = self.X, self.gamma, self.sq
        if not self.cached:
            rows = rbf(X[S[changed]], X[S], gamma, X_sq=sq[S[changed]], Y_sq=sq[S])
            self.K[changed, :] = rows
            self.K[:, changed] = rows.T
            return
        self.clock += 1
        slots = self.slot_of[S]
        self.last_used[slots[slots >= 0]] = self.clock
        new = S[slots < 0]
        if len(new):  # the least recently used slots (never used ones first) take them
            free = np.argpartition(self.last_used, len(new) - 1)[: len(new)]
            dropped = self.owner[free]
            self.slot_of[dropped[dropped >= 0]] = -1
            self.owner[free], self.slot_of[new] = new, free
            self.last_used[free] = self.clock
            self.rows[free] = rbf(X[new], X, gamma, X_sq=sq[new], Y_sq=sq)
            slots = self.slot_of[S]
        self.slots = slots
        if self.gather:
            K = self.rows[np.ix_(slots, S)]
            self.K = 0.5 * (K + K.T)  # symmetric to the last bit

    def solve_qp(self, S, y, C: float, alpha, tol: float, max_iter: int):
        """:func:`solve_representative_qp` on these rows (``self.K_work`` holds the kernel)."""
        return solve_representative_qp(
            self.rows, self.slots, S, y, C, alpha, tol, max_iter, self.K_work
        )

    def reselect(self, y, alpha, C: float, starts, sizes, *, free_only, gram, by_margin, floor=0.0):
        """:func:`reselect` after :meth:`solve_qp`."""
        return reselect(
            self.rows, self.slots, self.K_work, y, alpha, C, starts, sizes, free_only, gram,
            by_margin, floor,
        )  # fmt: skip

    def outputs(self, S, sv, coef, b: float):
        """``f(x)`` of every training instance, for the representatives ``S`` with the support
        vectors ``sv`` (a mask over bags) and their ``alpha * Y``."""
        if self.cached:
            return weighted_rows(self.rows, self.slots[sv], coef, float(b))
        from svmlab.kernels import rbf_expansion

        return rbf_expansion(self.X, self.X[S[sv]], coef, b, self.gamma)


@njit(cache=True, nogil=True)
def weighted_rows(rows, which, coef, b):  # pragma: no cover (compiled)
    """``b + sum_j coef[j] * rows[which[j]]`` without copying the rows."""
    out = np.full(rows.shape[1], b)
    for j in range(which.shape[0]):
        row = rows[which[j]]
        c = coef[j]
        for i in range(out.shape[0]):
            out[i] += c * row[i]
    return out


# ------------------------------------------------------------------------------------------
# the QP over the representatives
# ------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _gather_kernel(rows, slots, S, K):  # pragma: no cover (compiled)
    """``K[a, c] = (rows[slots[a], S[c]] + rows[slots[c], S[a]]) / 2``: exactly symmetric.
    Gathered along the cached rows first (in cache order), then symmetrised in place."""
    n = S.shape[0]
    for a in range(n):
        ra = rows[slots[a]]
        for c in range(n):
            K[a, c] = ra[S[c]]
    for a in range(n):
        K[a, a] = 0.5 * (K[a, a] + K[a, a])
        for c in range(a + 1, n):
            v = 0.5 * (K[a, c] + K[c, a])
            K[a, c] = v
            K[c, a] = v


@njit(cache=True, nogil=True)
def _make_feasible(a, y, C):  # pragma: no cover (compiled)
    """In place: ``a`` clipped into ``[0, C]`` with ``y^T a = 0`` restored, as the warm start
    of :func:`svmlab.qp.solve_svm_dual` does (an equal shift of the free variables, else the
    heavier class scaled down); a no-op on a previous solution."""
    n = a.shape[0]
    r, total = 0.0, 0.0
    for t in range(n):
        a[t] = min(max(a[t], 0.0), C)
        r += y[t] * a[t]
        total += a[t]
    if abs(r) <= 1e-13 * max(1.0, total):
        return
    n_free = 0
    for t in range(n):
        if 0.0 < a[t] < C:
            n_free += 1
    if n_free:
        shift = r / n_free
        ok = True
        for t in range(n):
            if 0.0 < a[t] < C and not 0.0 <= a[t] - y[t] * shift <= C:
                ok = False
        if ok:
            for t in range(n):
                if 0.0 < a[t] < C:
                    a[t] -= y[t] * shift
            return
    pos, neg = 0.0, 0.0
    for t in range(n):
        if y[t] > 0:
            pos += a[t]
        else:
            neg += a[t]
    target = min(pos, neg)
    for t in range(n):
        if y[t] > 0 and pos > target:
            a[t] *= target / pos
        elif y[t] < 0 and neg > target:
            a[t] *= target / neg


@njit(cache=True, nogil=True)
def _up_low(y, a, C, t):  # pragma: no cover (compiled)
    """Whether ``alpha_t`` may grow along ``y`` (in I_up) and shrink (in I_low)."""
    up = (y[t] > 0 and a[t] < C) or (y[t] < 0 and a[t] > 0)
    low = (y[t] > 0 and a[t] > 0) or (y[t] < 0 and a[t] < C)
    return up, low


@njit(cache=True, nogil=True)
def _smo(K, y, C, alpha, G, tol, max_iter):  # pragma: no cover (compiled)
    """SMO with second-order working-set selection on a symmetric ``K`` and one box ``C``;
    ``alpha`` and ``G`` are updated in place. Returns ``(pair updates, final gap)``.

    The pairs and steps of :func:`svmlab.qp.solve_svm_dual`'s SMO: ``i`` maximises
    ``v = -y G`` over I_up, ``j`` minimises ``-(v_i - v_j)^2 / a_ij`` over the violating
    I_low, ``alpha_i += y_i t``, ``alpha_j -= y_j t``. The kernel is read along rows. It keeps
    ``v = -y G`` rather than ``G``: with ``y`` in {-1, 1} both hold the same numbers up to sign
    (negation and the products with ``y`` are exact, rounding is symmetric), so the pairs and
    steps are those of the gradient form, with one product less per entry; the gradient update
    runs as its own (vectorised) loop before the scan for the next ``i``.
    """
    n = K.shape[0]
    diag = np.empty(n)
    up = np.empty(n, dtype=np.bool_)
    low = np.empty(n, dtype=np.bool_)
    v = np.empty(n)  # -y * G: exactly, as y is +-1
    vmax, i = -np.inf, -1
    for t in range(n):
        diag[t] = K[t, t]
        v[t] = -y[t] * G[t]
        up[t], low[t] = _up_low(y, alpha, C, t)
        if up[t] and v[t] > vmax:
            vmax, i = v[t], t
    it, gap = 0, 0.0
    while True:
        vmin, j, best = np.inf, -1, np.inf
        Ki = K[max(i, 0)]
        Kii = diag[max(i, 0)]
        for t in range(n):
            if not low[t]:
                continue
            vt = v[t]
            if vt < vmin:
                vmin = vt
            if i >= 0 and vt < vmax:
                b = vmax - vt
                a = Kii + diag[t] - 2.0 * Ki[t]
                if a <= 0.0:
                    a = _TAU
                score = -b * b / a
                if score < best:
                    best, j = score, t
        gap = vmax - vmin if (i >= 0 and vmin < np.inf) else 0.0
        if gap <= tol or j < 0 or it >= max_iter:
            break
        it += 1
        a = Kii + diag[j] - 2.0 * Ki[j]
        if a <= 0.0:
            a = _TAU
        step = (vmax - v[j]) / a
        lim_i = C - alpha[i] if y[i] > 0 else alpha[i]
        lim_j = alpha[j] if y[j] > 0 else C - alpha[j]
        step = min(step, lim_i, lim_j)
        alpha[i] += y[i] * step
        alpha[j] -= y[j] * step
        if step == lim_i:  # land exactly on the bound the step reached
            alpha[i] = C if y[i] > 0 else 0.0
        if step == lim_j:
            alpha[j] = 0.0 if y[j] > 0 else C
        up[i], low[i] = _up_low(y, alpha, C, i)
        up[j], low[j] = _up_low(y, alpha, C, j)
        Kj = K[j]
        for k in range(n):  # G_k += y_k step (K_ik - K_jk), as -y_k (G_k + d) = v_k - y_k d
            v[k] -= step * (Ki[k] - Kj[k])
        vmax, i_next = -np.inf, -1
        for k in range(n):
            if up[k] and v[k] > vmax:
                vmax, i_next = v[k], k
        i = i_next
    for t in range(n):
        G[t] = -y[t] * v[t]
    return it, gap


@njit(cache=True, nogil=True)
def _prepare(rows, slots, S, y, C, alpha, K):  # pragma: no cover (compiled)
    """The representatives' kernel into ``K`` and the warm start ``alpha`` made feasible."""
    _gather_kernel(rows, slots, S, K)
    _make_feasible(alpha, y, C)


@njit(cache=True, nogil=True)
def _gap(y, alpha, C, G):  # pragma: no cover (compiled)
    """Maximal violating pair gap (0 when no pair violates)."""
    vmax, vmin = -np.inf, np.inf
    for t in range(y.shape[0]):
        up, low = _up_low(y, alpha, C, t)
        if up:
            vmax = max(vmax, -y[t] * G[t])
        if low:
            vmin = min(vmin, -y[t] * G[t])
    return max(0.0, vmax - vmin) if (vmax > -np.inf and vmin < np.inf) else 0.0


def solve_representative_qp(rows, slots, S, y, C: float, alpha, tol: float, max_iter: int, K):
    """The dual of Eq. 4.10 over the representatives ``S`` (rows of the cache at ``slots``),
    from the warm start ``alpha`` (in place; zeros for a cold start). ``K`` (n x n) is a work
    buffer, left holding the representatives' kernel.

    The gradient ``G = y * (K (alpha * y)) - 1`` is the same matrix product as in
    :func:`svmlab.qp.solve_svm_dual`, so that SMO starts from the same numbers.

    Returns ``(pair updates, maximal violating pair gap, dual objective 1/2 a'Qa - sum a)``.
    """
    _prepare(rows, slots, S, y, C, alpha, K)
    G = y * (K @ (alpha * y)) - 1.0
    n_iter, _ = _smo(K, y, C, alpha, G, tol, max_iter)
    G = y * (K @ (alpha * y)) - 1.0  # exactly, without the running update's rounding
    return n_iter, _gap(y, alpha, C, G), float(0.5 * alpha @ (G - 1.0))


# ------------------------------------------------------------------------------------------
# bias, outputs and re-selection
# ------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _bias(K, y, alpha, sv, C, free_only, gram):  # pragma: no cover (compiled)
    """Eq. 4.13 over the support vectors (``free_only``: the free ones when there are any);
    ``gram``: Alg. 4.1 line 12, ``Y_sv - G_sv (alpha_sv * Y_sv)`` over the bias set."""
    n = y.shape[0]
    use = sv.copy()
    if free_only:
        free = sv & (alpha < C - 1e-8 * C)
        if free.any():
            use = free
    count, total = 0, 0.0
    for a in range(n):
        if not use[a]:
            continue
        f = 0.0
        for c in range(n):
            if gram and use[c]:
                f += K[a, c] * alpha[c]
            elif not gram and sv[c]:
                f += K[a, c] * (alpha[c] * y[c])
        total += y[a] - (y[a] * f if gram else f)
        count += 1
    return total / count if count else 0.0


@njit(cache=True, nogil=True)
def reselect(  # pragma: no cover (compiled)
    rows, slots, K, y, alpha, C, starts, sizes, free_only, gram, by_margin, floor
):
    """After the QP: the bias ``b``, every training instance's output ``f(x)`` (Eq. 4.12) and
    each bag's new representative, the argmax of ``f`` (Eq. 4.9; ``by_margin``: of
    ``Y_I f``, Alg. 4.1 line 14), first on ties. With ``floor > 0`` the instances with
    ``|f(x)| <= floor`` take no part in the argmax, and a bag all of whose instances are that
    close to zero gets its first instance (the author's rule, see :func:`_floored_argmax`).

    Returns ``(sv, b, outputs, new representatives, multi-instance objective)``, the objective
    ``1/2 ||w||^2 + C sum_I max(0, 1 - Y_I max_{i in I} f(x_i))``.
    """
    n = y.shape[0]
    sv = alpha > 1e-8 * C
    b = _bias(K, y, alpha, sv, C, free_only, gram)
    which = np.flatnonzero(sv)
    coef = np.empty(which.shape[0])
    for k in range(which.shape[0]):
        coef[k] = alpha[which[k]] * y[which[k]]
    out = weighted_rows(rows, slots[which], coef, b)
    S_new = np.empty(n, dtype=np.intp)
    norm2, hinge = 0.0, 0.0
    for p in range(which.shape[0]):
        s = 0.0
        for q in range(which.shape[0]):
            s += K[which[p], which[q]] * coef[q]
        norm2 += coef[p] * s
    for bag in range(n):
        start = starts[bag]
        top = out[start]
        for i in range(start + 1, start + sizes[bag]):
            top = max(top, out[i])
        sign = y[bag] if by_margin else 1.0
        S_new[bag] = _floored_argmax(out, start, sizes[bag], sign, floor)
        hinge += max(0.0, 1.0 - y[bag] * top)
    return sv, b, out, S_new, 0.5 * norm2 + C * hinge


@njit(cache=True, nogil=True)
def _floored_argmax(out, start, size, sign, floor):  # pragma: no cover (compiled)
    """Index of the largest ``sign * out[i]`` over ``start <= i < start + size``, first on
    ties, leaving out the outputs with ``|out[i]| <= floor`` when ``floor > 0``; ``start`` when
    all are left out (the author's ``max`` over outputs set to NaN returns the first index)."""
    arg, best, found = start, 0.0, False
    for i in range(start, start + size):
        if floor > 0.0 and abs(out[i]) <= floor:
            continue
        value = sign * out[i]
        if not found or value > best:
            arg, best, found = i, value, True
    return arg
