"""Weka 3.6's quasi-Newton minimiser (``weka.core.Optimization``), re-implemented.

:class:`WekaQuasiNewton` is the optimiser of the native MIDD and MIEMDD
(:mod:`svmlab.estimators.mil.diverse_density`), MILR (:mod:`svmlab.estimators.mil.logistic`)
and MDD (:mod:`svmlab.estimators.mil.modified_dd`); its docstring names the method's
sources, and ``docs/decisions/mil.md`` records the reading of Weka's code it follows.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.linalg import solve_triangular

__all__ = ["WEKA_ZERO", "WekaQuasiNewton"]

#: Weka's ``Optimization.m_Zero``: the square root of the machine epsilon 2^-52.
WEKA_ZERO = float(np.sqrt(2.0**-52))


class WekaQuasiNewton:
    """Weka 3.6's quasi-Newton minimiser (``weka.core.Optimization``) without bounds.

    A re-implementation from the description of Weka's method (Xu 2003, after Gill, Murray &
    Wright 1981 and Dennis & Schnabel 1983), for the unbounded problems of MIDD and MIEMDD
    (their bounds are all NaN, so no variable is ever fixed):

    * BFGS: the Hessian approximation starts at the identity and takes Weka's two rank-one
      terms ``dg dg' / (dg' dx) + g g' / (g' p)`` (``p`` the search direction actually used).
      ``update="inverse"`` carries its inverse by the Sherman-Morrison formula;
      ``update="ldl"`` keeps Weka's factors ``L D L'`` and updates them as Weka does (Gill,
      Golub, Murray & Saunders 1974, methods C1 / C2), including Weka's guards in the
      negative update: a diagonal term ``sigma^2 p t`` below ``z`` is raised to ``z``, which
      perturbs the factors by about ``z`` relative at every iteration - the inverse update
      does not, and the two paths part after a few iterations. No update when
      ``dg' dx < max(z |dx| |dg|, z)``.
    * Line search from ``lambda = 1`` along ``p`` (scaled down to length ``stpmax = 100 *
      max(|g0|, n)``): sufficient decrease ``f <= f0 + 1e-4 lambda g'p`` (alpha condition)
      and curvature ``g(x)'p >= 0.9 g'p`` (beta condition). When the first trial meets the
      first but not the second, ``lambda`` doubles (up to ``stpmax / |p|``) while the decrease
      lasts; failed trials backtrack by quadratic then cubic interpolation (``lambda`` kept
      in ``[0.1, 0.5]`` of the previous one); a last stage interpolates between the lowest
      and highest admissible ``lambda`` for the curvature condition.
    * Convergence (``z = sqrt(2^-52)``): the largest relative step ``|dx_i| / max(|x_i|, 1)``,
      or the largest scaled gradient ``|g_i| max(|p_i|, 1) / max(|f|, 1)``, or ``|dg' dx|``
      below ``z``; or ``|g'p| <= z`` at a line search. The largest entries skip NaN as Weka's
      loops do, so a gradient that overflowed to NaN stops the run.
    * After 200 iterations Weka's callers restart it from the point reached (the Hessian
      back to the identity); we do the same, at most ``max_iter`` iterations in all.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``.
    max_iter : int
        Cap on the iterations over all restarts.
    update : {"inverse", "ldl"}, default="inverse"
        How the Hessian approximation is carried (above); ``"ldl"`` follows Weka's arithmetic
        (MILR and MDD use it).
    """

    ALF, BETA, TOLX, STPMX, MAXITS = 1.0e-4, 0.9, 1.0e-6, 100.0, 200

    def __init__(self, fun, max_iter: int = 100 * 200, update: str = "inverse"):
        if update not in ("inverse", "ldl"):
            raise ValueError(f"update must be 'inverse' or 'ldl', got {update!r}")
        self.fun = fun
        self.max_iter = max_iter
        self.update = update
        self.nit = 0
        self.nfev = 0

    def _f(self, x):
        self.nfev += 1
        value, grad = self.fun(x)
        if np.isnan(value):
            raise FloatingPointError("objective function value is NaN")
        return value, grad

    def minimize(self, x0):
        """Minimise from ``x0``; returns ``(x, f, converged)``."""
        x = np.array(x0, dtype=float)
        while True:
            x, f, done = self._run(x)
            if done or self.nit >= self.max_iter:
                return x, f, done

    def _run(self, x):
        z = WEKA_ZERO
        f, g = self._f(x)
        n = len(x)
        H = np.eye(n)  # the inverse ("inverse") or the unit lower factor L ("ldl")
        D = np.ones(n)
        p = -g
        stpmax = self.STPMX * max(np.sqrt(g @ g), n)
        for _ in range(self.MAXITS):
            if self.nit >= self.max_iter:
                return x, f, False
            self.nit += 1
            x_old, g_old = x, g
            x, f, p, slope = self._line_search(x, f, g, p, stpmax)
            dx = x - x_old
            finish = _running_max(np.abs(dx) / np.maximum(np.abs(x), 1.0)) < z
            _, g = self._f(x)
            dg = g - g_old
            denom = dx @ dg
            test = _running_max(np.abs(g) * np.maximum(np.abs(p), 1.0) / max(abs(f), 1.0))
            if test < z or abs(denom) < z:
                finish = True
            if finish:
                return x, self._f(x)[0], True
            do_update = denom >= max(z * np.sqrt(dx @ dx) * np.sqrt(dg @ dg), z)
            if self.update == "ldl":
                if do_update:
                    _ldl_rank_one(H, D, dg, 1.0 / denom)
                    _ldl_rank_one(H, D, g_old, 1.0 / slope)
                y = solve_triangular(H * D, -g, lower=True, check_finite=False)
                p = solve_triangular(H, y, lower=True, trans="T", unit_diagonal=True)
                continue
            if do_update:
                H = _sherman_morrison(H, dg, 1.0 / denom)
                H = _sherman_morrison(H, g_old, 1.0 / slope)
            p = -(H @ g)
        return x, f, False

    def _line_search(self, x_old, f_old, g, p, stpmax):
        """One step along ``p``; returns ``(x, f, p as scaled, g'p)``.

        Kept whole: a numerical loop that follows the stages of Weka's line search in their
        order (expansion, backtracking, the last interpolation; class docstring), in one piece
        so it can be read beside it.
        """
        z = WEKA_ZERO
        norm = np.sqrt(p @ p)
        max_lam = 1.0
        if norm > stpmax:
            p = p * (stpmax / norm)
        else:
            max_lam = stpmax / norm if norm > 0 else np.inf
        slope = g @ p
        if abs(slope) <= z or slope > z:  # orthogonal (a minimum), or not a descent direction
            return x_old, f_old, p, slope
        test = np.max(np.abs(p) / np.maximum(np.abs(x_old), 1.0))
        if test <= z:
            return x_old, f_old, p, slope
        lam_min = self.TOLX / test
        lam, lam2 = 1.0, 0.0
        init_f = f_old
        lo = hi = lam
        f_lo = f_hi = f_old
        new_slope = 0.0
        k = 0
        while True:
            x = x_old + lam * p
            f, g_new = self._f(x)
            while np.isinf(f):
                lam *= 0.5
                if lam <= 2.0**-52:
                    return x, f, p, slope
                x = x_old + lam * p
                f, g_new = self._f(x)
                init_f = np.inf
            if f <= f_old + self.ALF * lam * slope:  # alpha condition
                new_slope = g_new @ p
                if new_slope >= self.BETA * slope:  # beta condition
                    return x, f, p, slope
                if k == 0:  # the full step is too short: expand while the decrease lasts
                    while not (lam >= max_lam or f > f_old + self.ALF * lam * slope):
                        lo, f_lo = lam, f
                        lam = min(2.0 * lam, max_lam)
                        x = x_old + lam * p
                        f, g_new = self._f(x)
                        new_slope = g_new @ p
                        if new_slope >= self.BETA * slope:
                            return x, f, p, slope
                    hi, f_hi = lam, f
                else:
                    hi, lo, f_lo = lam2, lam, f
                break
            if lam < lam_min:  # no admissible step
                if init_f < f_old:
                    return x_old + p, f, p, slope  # Weka keeps the last f here
                return x_old, f_old, p, slope
            if k == 0:  # quadratic backtrack
                if not np.isinf(init_f):
                    init_f = f
                tmp = -0.5 * lam * slope / ((f - f_old) / lam - slope)
            else:  # cubic backtrack
                r1 = f - f_old - lam * slope
                r2 = f_hi - f_old - lam2 * slope
                a = (r1 / lam**2 - r2 / lam2**2) / (lam - lam2)
                b = (-lam2 * r1 / lam**2 + lam * r2 / lam2**2) / (lam - lam2)
                if a == 0.0:
                    tmp = -slope / (2.0 * b)
                else:
                    disc = max(b * b - 3.0 * a * slope, 0.0)
                    tmp = min(-b + np.sqrt(disc), np.finfo(float).max) / (3.0 * a)
                tmp = min(tmp, 0.5 * lam)
            lam2, f_hi = lam, f
            lam = max(tmp, 0.1 * lam)
            k += 1
        # last stage: interpolate in [lo, hi] for the beta condition
        diff = hi - lo
        while new_slope < self.BETA * slope and diff >= lam_min:
            incr = -0.5 * new_slope * diff * diff / (f_hi - f_lo - new_slope * diff)
            incr = max(incr, 0.2 * diff)
            lam = lo + incr
            if lam >= hi:
                lam, incr = hi, diff
            x = x_old + lam * p
            f, g_new = self._f(x)
            if f > f_old + self.ALF * lam * slope:
                diff, f_hi = incr, f
            else:
                new_slope = g_new @ p
                if new_slope < self.BETA * slope:
                    lo, f_lo = lam, f
                    diff -= incr
        if new_slope < self.BETA * slope:
            return x_old + lo * p, f_lo, p, slope
        return x, f, p, slope


def _running_max(values) -> float:
    """Weka's convergence statistic: a running maximum from 0 that skips NaN (Java's ``if (v >
    test) test = v``), so a gradient that overflowed to NaN reads as converged, as in Weka."""
    values = np.asarray(values)
    return float(np.max(values, initial=0.0, where=~np.isnan(values)))


def _ldl_rank_one(L, D, v, coeff):
    """``L D L' + coeff v v'`` in place, as Weka's ``Optimization`` updates its factors.

    ``L`` unit lower triangular, ``D`` the diagonal. ``coeff > 0``: method C1 of Gill, Golub,
    Murray & Saunders (1974); otherwise method C2 with Weka's guards (``1 + coeff v' B^-1 v``
    floored at 0, the running ``t`` at 0, and ``sigma^2 p t`` raised to ``z`` except in the
    last row). Compiled in :func:`_ldl_factors_update`.

    Raises
    ------
    FloatingPointError
        Where Weka throws: a NaN diagonal term, or a NaN / infinite ``sigma`` before the last
        row (method C2).
    """
    failed = _ldl_factors_update(L, D, np.ascontiguousarray(v, dtype=np.float64), float(coeff))
    if failed:
        what = "a diagonal term" if failed > 0 else "sigma"
        raise FloatingPointError(
            f"Weka's factor update: {what} became NaN or infinite at row {abs(failed) - 1}"
        )


@njit(cache=True, error_model="numpy")
def _ldl_factors_update(L, D, v, coeff):  # pragma: no cover - compiled
    """:func:`_ldl_rank_one`: ``P = L^-1 v`` by forward substitution, the scalar recurrences,
    then the columns of ``L``; returns 0, or ``j + 1`` (``-(j + 1)``) where Weka throws on a NaN
    ``D_j`` (a NaN or infinite ``sigma``).

    Every sum runs in Weka's order (earlier columns first), and column ``j`` of ``L`` gains
    ``b_j`` times ``v`` less the first ``j + 1`` terms ``P_k L[:, k]``, subtracted one by one.
    Divisions follow IEEE 754 as Java's do (a zero ``D_j`` gives an infinite term, no
    exception).
    """
    n = v.shape[0]
    P = np.empty(n)
    for i in range(n):
        acc = v[i]
        for k in range(i):
            acc -= L[i, k] * P[k]
        P[i] = acc
    b = np.empty(n)
    if coeff > 0.0:
        t = coeff
        for j in range(n):
            p, d = P[j], D[j]
            d_bar = d + t * p * p
            D[j] = d_bar
            b[j] = p * t / d_bar
            t *= d / d_bar
    else:
        t = 0.0
        for j in range(n):
            t += P[j] * P[j] / D[j]
        root = 1.0 + coeff * t
        root = np.sqrt(root) if root > 0.0 else 0.0
        alpha, sigma = coeff, coeff / (1.0 + root)
        for j in range(n):
            d = D[j]
            p = P[j] * P[j] / d
            theta = 1.0 + sigma * p
            t = max(t - p, 0.0)
            plus = sigma * sigma * p * t
            if j < n - 1 and plus <= WEKA_ZERO:
                plus = WEKA_ZERO
            rho = theta * theta + plus
            D[j] = rho * d
            if np.isnan(D[j]):
                return j + 1
            b[j] = alpha * P[j] / (rho * d)
            alpha /= rho
            rho = np.sqrt(rho)  # Java's Math.sqrt, correctly rounded (pow(x, 0.5) is not)
            sigma *= (1.0 + rho) / (rho * (theta + rho))
            if j < n - 1 and not np.isfinite(sigma):
                return -(j + 1)
    for i in range(1, n):  # row i: the entries left of the unit diagonal
        w = v[i]
        for j in range(i):
            w = w - L[i, j] * P[j]  # the old L[i, j]: columns right of j are not yet updated
            L[i, j] = L[i, j] + b[j] * w
    return 0


def _sherman_morrison(H, u, coef):
    """Inverse of ``inv(H) + coef * u u'`` (unchanged when that is near singular)."""
    Hu = H @ u
    den = 1.0 + coef * (u @ Hu)
    if not np.isfinite(den) or abs(den) <= WEKA_ZERO:
        return H
    Hu_scaled = Hu * (coef / den)
    H -= Hu[:, None] * Hu_scaled[None, :]
    return H
