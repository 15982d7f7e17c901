"""The coefficient matrix ``B`` of the MLM regression ``Delta = D B + E`` (Oliveira (2021),
Eq. 2.9), for every variant of Table 2 implemented in svmlab.

``D`` (n, K) holds input distances to the K reference points, ``Delta`` (n, K) output
distances; ``B`` is (K, K), row ``k`` holding the coefficients of reference point ``k``.
Every function returns ``(B, info)``; ``info["fallback"]`` names a numerical fallback taken
(``None`` when none was), which the caller warns about and records in ``fit_info_``.

Memory: with all N training points as reference points (Full-, Rank-, LW-MLM) ``D``,
``Delta``, the Gram matrix and ``B`` are dense N x N float64 arrays (288 MB each at
N = 6000): about 1.2 GB at the Table 9 sizes, inherent to the method.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg

__all__ = [
    "full_ridge_path",
    "l_half_coefficients",
    "m_focuss_coefficients",
    "regularised_least_squares",
    "square_solve",
]


def _lstsq(A, Y):
    # gelsy (complete orthogonal factorisation, minimum-norm) is ~5x faster than the SVD-based
    # gelsd at N = 2000 and gives the same minimum-norm solution up to rank decisions
    return linalg.lstsq(A, Y, lapack_driver="gelsy", check_finite=False)[0]


def square_solve(D: np.ndarray, Delta: np.ndarray, inputs: np.ndarray | None = None):
    """Full-MLM, ``B = D^{-1} Delta`` (Oliveira (2021), Eq. 2.11) for a square ``D``.

    LU with partial pivoting (``lu_factor``/``lu_solve``; ``D`` is symmetric but indefinite;
    LAPACK's symmetric-indefinite ``sysv`` and scipy 1.17's ``linalg.solve`` measured 6-10x
    slower at N = 2000). When ``D`` is singular or numerically so (duplicate inputs: an exact
    zero pivot, or LAPACK's reciprocal condition estimate ``gecon`` below machine precision,
    the test of ``scipy.linalg.solve``), the minimum-norm least-squares solution (``pinv(D)
    Delta``) instead, with ``info["fallback"] = "lstsq"``.

    Identical inputs are what usually makes ``D`` singular: their rows and columns of ``D``
    are equal. With ``inputs`` given, the minimum-norm solution is then computed from the
    distinct inputs alone: writing ``D = P D_u P^T`` (``P`` marks each input's distinct
    point, ``c`` the copies of each), ``pinv(D) = P diag(1/c) D_u^{-1} diag(1/c) P^T``, so
    the LU solve of ``D_u`` against ``Delta``'s rows averaged over the copies, each copy then
    taking an equal share of its point's coefficients (``info["solver"] = "solve_distinct"``;
    Full-MLM on banana's 4,240 training rows, one thread: 6.8 s against ``lstsq``'s 17.1 s,
    ``B`` equal to 3e-9). Only when ``D_u`` is itself (numerically) singular (nearly equal
    inputs) does ``lstsq`` run on the whole ``D``.

    Parameters
    ----------
    D : ndarray of shape (n, n)
        Distances between the inputs, the reference points in the same order.
    Delta : ndarray of shape (n, q)
    inputs : ndarray of shape (n, n_features), optional
        The inputs of ``D``'s rows, which are also its reference points (its columns) in the
        same order; their copies are looked for only when ``D`` is singular.

    Returns
    -------
    B : ndarray of shape (n, q)
    info : dict
        ``fallback`` (None or ``"lstsq"``) and ``solver`` (``"solve"``, ``"solve_distinct"``
        or ``"lstsq"``).
    """
    B = _lu_solve(D, Delta)
    if B is not None:
        return B, {"fallback": None, "solver": "solve"}
    if inputs is not None:
        _, first, inverse = np.unique(inputs, axis=0, return_index=True, return_inverse=True)
        copies = first[inverse.ravel()]  # each input's first identical input
        distinct = np.flatnonzero(copies == np.arange(len(copies)))
        if len(distinct) < len(copies):
            group = np.searchsorted(distinct, copies)  # each input's distinct point
            counts = np.bincount(group, minlength=len(distinct)).astype(np.float64)
            mean = np.zeros((len(distinct), Delta.shape[1]))
            np.add.at(mean, group, Delta)
            B = _lu_solve(D[np.ix_(distinct, distinct)], mean / counts[:, None])
            if B is not None:
                return B[group] / counts[group, None], {
                    "fallback": "lstsq",
                    "solver": "solve_distinct",
                }
    return _lstsq(D, Delta), {"fallback": "lstsq", "solver": "lstsq"}


def _lu_solve(D, Delta):
    """``D^{-1} Delta`` by LU, or None when ``D`` is (numerically) singular."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", linalg.LinAlgWarning)
        try:
            lu, piv = linalg.lu_factor(D, check_finite=False)
            rcond, _ = linalg.lapack.dgecon(lu, np.linalg.norm(D, 1), norm="1")
            if rcond >= np.finfo(np.float64).eps:
                B = linalg.lu_solve((lu, piv), Delta, check_finite=False)
                if np.all(np.isfinite(B)):
                    return B
        except (linalg.LinAlgError, linalg.LinAlgWarning, ValueError):
            pass
    return None


def regularised_least_squares(D, Delta, penalty=0.0, weights=None, cache=None):
    """``min_B ||W^{1/2} (D B - Delta)||_F^2 + ||P B||_F^2`` with ``P^T P = diag(penalty)``.

    One solver for Random-MLM (``penalty = 0``, Eq. 2.15), Rank-MLM (``penalty = C``,
    Eq. 2.17), wMLM (``weights``, Eq. 2.19) and LW-MLM (``penalty = p**2``, Eq. 4.2):
    ``B = (D^T W D + diag(penalty))^{-1} D^T W Delta``.

    With a positive penalty the normal equations are solved by Cholesky; when the Gram matrix
    is not positive definite (zeros in the penalty and a singular ``D``), by ``lstsq`` on the
    stacked system ``[W^{1/2} D; diag(sqrt(penalty))] B = [W^{1/2} Delta; 0]``
    (``info["fallback"] = "lstsq"``), better conditioned than the normal equations. Without
    any penalty, ``lstsq`` directly (Random-MLM; no fallback to report).

    Parameters
    ----------
    D, Delta : ndarray of shape (n, K)
    penalty : float or ndarray of shape (K,)
        ``C`` (scalar) or the squared per-reference-point penalties ``p**2``; >= 0.
    weights : ndarray of shape (n,) or None
        Per-sample weights ``W`` (wMLM); >= 0.
    cache : dict or None
        For a path over the penalty (Rank-MLM's ``C``) on the same ``D``, ``Delta`` and
        ``weights``: an empty dict at the first call keeps ``D^T W D`` and ``D^T W Delta``
        for the next calls, whose results are those of calls without it.
    """
    if cache is not None and "gram" in cache:
        D, Delta, gram, rhs = cache["gram"]
    else:
        if weights is not None:
            root = np.sqrt(np.asarray(weights, dtype=np.float64))[:, None]
            D, Delta = root * D, root * Delta
        gram = rhs = None
    K = D.shape[1]
    penalty = np.broadcast_to(np.asarray(penalty, dtype=np.float64), (K,))
    if not np.any(penalty > 0):
        return _lstsq(D, Delta), {"fallback": None}
    if gram is None:
        gram = D.T @ D  # for a symmetric D (all training points as RPs) this is D @ D
        rhs = D.T @ Delta
        if cache is not None:
            cache["gram"] = (D, Delta, gram, rhs)
    G = gram.copy() if cache is not None else gram
    G[np.diag_indices(K)] += penalty
    try:
        factor = linalg.cho_factor(G, lower=False, overwrite_a=True, check_finite=False)
        B = linalg.cho_solve(factor, rhs, check_finite=False)
        if np.all(np.isfinite(B)):
            return B, {"fallback": None}
    except linalg.LinAlgError:
        pass
    A = np.vstack([D, np.diag(np.sqrt(penalty))])
    Y = np.vstack([Delta, np.zeros((K, Delta.shape[1]))])
    return _lstsq(A, Y), {"fallback": "lstsq"}


def full_ridge_path(D, Delta, Cs):
    """Rank-MLM with all training points as reference points for every ``C`` of a grid, from
    one eigendecomposition of the symmetric ``D = U diag(lam) U^T`` (O(N^3) once, then O(N^2)
    per value): ``B(C) = U diag(lam / (lam^2 + C)) U^T Delta`` (= ``(D D + C I)^{-1} D Delta``).
    ``C = 0`` gives Full-MLM through the pseudo-inverse (eigenvalues below
    ``N eps max|lam|`` dropped).

    Returns a list of ``B`` in the order of ``Cs``.
    """
    lam, U = linalg.eigh(D, check_finite=False)
    proj = U.T @ Delta
    tol = len(lam) * np.finfo(np.float64).eps * np.max(np.abs(lam))
    out = []
    for C in Cs:
        if C > 0:
            scale = lam / (lam**2 + C)
        else:
            scale = np.where(np.abs(lam) > tol, 1.0 / np.where(lam == 0, 1.0, lam), 0.0)
        out.append(U @ (scale[:, None] * proj))
    return out


def _drop(keep, D, Delta, B, kept):
    return D[:, keep], Delta[:, keep], B[np.ix_(keep, keep)], kept[keep]


def l_half_coefficients(
    D, Delta, C, *, learning_rate=0.1, max_iter=100, prune_factor=0.1, min_reference=2
):
    """ell_{1/2}-MLM (Dias et al. 2018), **reconstructed** from Oliveira (2021),
    Eqs. 2.20-2.24.

    ``J(B) = ||D B - Delta||_F^2 + C sum_ij |B_ij|^{1/2}``, minimised by normalised gradient
    descent ``B <- B - eta grad / ||grad||_F`` from the least-squares solution, with
    ``grad = 2 D^T (D B - Delta) + C/2 sign(B) / sqrt(|B|)`` (Eq. 2.23; the OCR's
    ``D^T (Delta - D B)`` is a sign slip; ``|B|`` is floored at 1e-12). After every epoch,
    reference point ``k`` is removed (column ``k`` of ``D`` and ``Delta``, row and column ``k``
    of ``B``: svmlab removes the input/output pair) when ``||B_k.||_2 < gamma`` with
    ``gamma = prune_factor / K sum_k ||B_k.||_2`` (Eq. 2.24), keeping at least
    ``min_reference``.

    Returns ``(B, info)`` with ``info["kept"]``: the positions (into the columns of ``D``) of
    the reference points left.
    """
    kept = np.arange(D.shape[1])
    B = _lstsq(D, Delta)
    epochs = 0
    for _ in range(max_iter):
        epochs += 1
        mag = np.maximum(np.abs(B), 1e-12)
        grad = 2.0 * D.T @ (D @ B - Delta) + 0.5 * C * np.sign(B) / np.sqrt(mag)
        norm = np.linalg.norm(grad)
        if not norm > 0:
            break
        B = B - learning_rate * grad / norm
        rows = np.linalg.norm(B, axis=1)
        keep = rows >= prune_factor * rows.mean()
        if keep.sum() < min(min_reference, len(kept)):
            keep = np.zeros(len(kept), dtype=bool)
            keep[np.argsort(-rows, kind="stable")[: min(min_reference, len(kept))]] = True
        if not keep.all():
            D, Delta, B, kept = _drop(keep, D, Delta, B, kept)
    return B, {"fallback": None, "kept": kept, "iterations": epochs}


def m_focuss_coefficients(
    D, Delta, C, *, p=1.0, max_iter=30, tol=1e-6, prune_tol=1e-8, min_reference=2
):
    """RMF-MLM (Dias et al. 2019), **reconstructed**: regularised M-FOCUSS (Cotter et al.
    2005) on ``min ||D B - Delta||_F^2 + C sum_m ||B_m.||_2^p`` (Oliveira (2021), Eq. 2.25).

    Iteration: ``c_m = ||B_m.||_2``, ``W = diag(c_m^{1 - p/2})``, ``A = D W``,
    ``Q = A^T (A A^T + C I)^{-1} Delta``, ``B = W Q``, from the least-squares solution. Reference
    points whose row norm falls below ``prune_tol * max_m c_m`` are removed (input/output pair,
    as in :func:`l_half_coefficients`); stops when ``B`` changes by less than ``tol`` relative.
    ``C`` must be > 0. Costs one n x n solve per iteration.
    """
    kept = np.arange(D.shape[1])
    B = _lstsq(D, Delta)
    n = D.shape[0]
    iterations = 0
    for _ in range(max_iter):
        iterations += 1
        c = np.linalg.norm(B, axis=1)
        keep = c > prune_tol * c.max() if c.max() > 0 else np.ones(len(c), dtype=bool)
        if keep.sum() < min(min_reference, len(kept)):
            keep = np.zeros(len(kept), dtype=bool)
            keep[np.argsort(-c, kind="stable")[: min(min_reference, len(kept))]] = True
        if not keep.all():
            D, Delta, B, kept = _drop(keep, D, Delta, B, kept)
            c = c[keep]
        w = c ** (1.0 - p / 2.0)
        A = D * w[None, :]
        G = A @ A.T
        G[np.diag_indices(n)] += C
        Q = A.T @ linalg.solve(G, Delta, assume_a="pos", check_finite=False)
        B_new = w[:, None] * Q
        change = np.linalg.norm(B_new - B) / max(np.linalg.norm(B), 1e-300)
        B = B_new
        if change < tol:
            break
    return B, {"fallback": None, "kept": kept, "iterations": iterations}
