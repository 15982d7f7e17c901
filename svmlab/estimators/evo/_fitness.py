"""The fitness of every evolutionary SVM here: the SVM dual with ``b = 0`` (Mierswa (2009),
Sec. 3.1.2.1; docs/decisions/evo.md, "Dropped equality constraint and the post-hoc bias").

An individual is a vector ``alpha`` in the box ``[0, C]^n``; its fitness is

    W(alpha) = 1^T alpha - 1/2 alpha^T Q alpha,        Q = (y y^T) * K,

maximised **without** the equality constraint ``y^T alpha = 0`` (the thesis's b = 0 trick,
§3.1.2.1): the bias is computed afterwards from the free support vectors
(:func:`posthoc_bias`). ``Q`` is held once per fit; the kernel is never recomputed.

Speed
-----
* A batch of ``P`` individuals (rows of ``A``) is evaluated with one matrix product,
  ``G = A Q`` and ``W = A 1 - 1/2 rowsum(A * G)`` (:meth:`DualFitness.evaluate`).
* Every individual carries its gradient-like vector ``g = Q alpha``. A mutation that changes
  a few genes updates ``g`` and ``W`` in ``O(n)`` per changed gene instead of ``O(n^2)``
  (:meth:`DualFitness.mutate_sparse`, compiled with numba): for ``alpha_i += d``,
  ``W += d (1 - g_i) - d^2 Q_ii / 2`` and ``g += d Q[i, :]`` (``Q`` is symmetric).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["DualFitness", "improves", "posthoc_bias"]

# A fitness counts as an improvement only above this relative margin: the same individual
# evaluated along two paths (dense product, incremental update) can differ by rounding, and
# such noise must neither reset the early-stopping counter nor replace the best individual.
IMPROVEMENT_RTOL = 1e-12


def improves(new: float, best: float) -> bool:
    """``new > best`` by more than rounding noise (:data:`IMPROVEMENT_RTOL` relative)."""
    return new > best + IMPROVEMENT_RTOL * max(1.0, abs(best))


@njit(cache=True, nogil=True)
def _sparse_mutate(A, G, F, Q, rows, genes, u, C, hybrid):
    """Apply switching / hybrid gene changes in place; ``True`` for every row that changed.

    Change ``t`` acts on gene ``genes[t]`` of row ``rows[t]``: a non-zero gene becomes 0; a
    zero gene becomes ``C`` (switching) or ``u[t] * C`` (hybrid, ``u[t]`` uniform in [0, 1)).
    """
    changed = np.zeros(A.shape[0], dtype=np.bool_)
    n = A.shape[1]
    for t in range(rows.shape[0]):
        r = rows[t]
        i = genes[t]
        old = A[r, i]
        if old > 0.0:
            new = 0.0
        elif hybrid:
            new = u[t] * C
        else:
            new = C
        d = new - old
        if d == 0.0:
            continue
        F[r] += d * (1.0 - G[r, i]) - 0.5 * d * d * Q[i, i]
        for j in range(n):
            G[r, j] += d * Q[i, j]
        A[r, i] = new
        changed[r] = True
    return changed


@njit(cache=True, nogil=True)
def _add_sparse(G, Q, rows, genes, deltas):
    """``G[rows[t]] += deltas[t] * Q[genes[t]]`` for every t (``Q`` symmetric: row = column)."""
    n = G.shape[1]
    for t in range(rows.shape[0]):
        r = rows[t]
        i = genes[t]
        d = deltas[t]
        for j in range(n):
            G[r, j] += d * Q[i, j]


# below this fraction of changed genes, a derived individual is evaluated from its parent's
# Q alpha (O(n) per changed gene) instead of by a dense matrix product (O(n^2) per row)
SPARSE_FRACTION = 0.2


class DualFitness:
    """``W(alpha) = 1^T alpha - 1/2 alpha^T Q alpha`` on a fixed ``Q = (y y^T) * K``.

    Parameters
    ----------
    Q : ndarray of shape (n, n)
        The label-signed kernel matrix ``Q_ij = y_i y_j K_ij`` (symmetric, possibly
        indefinite). Held by reference, not copied.
    C : float
        Upper bound of every gene.

    Use :meth:`from_kernel` to build ``Q`` from ``K`` in place (no second ``n x n`` array).
    """

    def __init__(self, Q: np.ndarray, C: float):
        self.Q = Q
        self.C = float(C)
        self.n = Q.shape[0]
        self.q_diag = np.ascontiguousarray(np.diag(Q), dtype=np.float64)

    @classmethod
    def from_kernel(cls, K: np.ndarray, y: np.ndarray, C: float) -> DualFitness:
        """Turn ``K`` into ``Q = (y y^T) * K`` **in place** and wrap it."""
        y = np.asarray(y, dtype=np.float64)
        K *= y[:, None]
        K *= y[None, :]
        return cls(K, C)

    def evaluate(self, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Fitness of every row of ``A`` (shape ``(P, n)``) and ``G = A Q``, by one matrix product.

        Returns
        -------
        F : ndarray of shape (P,)
        G : ndarray of shape (P, n)
            ``G[p] = Q @ A[p]`` (``Q`` is symmetric), kept for incremental updates.
        """
        A = np.atleast_2d(A)
        G = A @ self.Q
        F = A.sum(axis=1) - 0.5 * np.einsum("ij,ij->i", A, G)
        return F, G

    def evaluate_derived(self, A, base, G_base, A_base) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`evaluate` for rows derived from known individuals (e.g. crossover children).

        Row ``p`` of ``A`` is a modification of ``A_base[base[p]]``, whose ``Q alpha`` is
        ``G_base[base[p]]``. When few genes differ (at most :data:`SPARSE_FRACTION` of them
        over the batch), ``G = G_base + Q (A - A_base)`` costs ``O(n)`` per changed gene;
        otherwise one dense product. The fitness is then ``1^T alpha - 1/2 alpha^T G``.
        """
        A = np.atleast_2d(A)
        D = A - A_base[base]
        rows, genes = np.nonzero(D)
        if rows.size > SPARSE_FRACTION * D.size:
            return self.evaluate(A)
        G = G_base[base]  # a copy (fancy indexing)
        _add_sparse(G, self.Q, rows, genes, D[rows, genes])
        return A.sum(axis=1) - 0.5 * np.einsum("ij,ij->i", A, G), G

    def objective(self, alpha: np.ndarray) -> float:
        """``W(alpha)`` of one vector, computed from scratch."""
        alpha = np.asarray(alpha, dtype=np.float64)
        return float(alpha.sum() - 0.5 * alpha @ (self.Q @ alpha))

    def mutate_sparse(self, A, G, F, rows, genes, u, *, hybrid: bool) -> np.ndarray:
        """Switching (``hybrid=False``) or hybrid mutation of the given genes, in place.

        ``A``, ``G``, ``F`` are updated together so that ``F`` and ``G`` stay the fitness and
        ``Q alpha`` of the rows of ``A``. Returns a boolean per row: did it change?
        """
        return _sparse_mutate(
            A,
            G,
            F,
            self.Q,
            np.asarray(rows, dtype=np.intp),
            np.asarray(genes, dtype=np.intp),
            np.asarray(u, dtype=np.float64),
            self.C,
            bool(hybrid),
        )


def posthoc_bias(
    s: np.ndarray, y: np.ndarray, alpha: np.ndarray, C: float, is_zero: float
) -> float:
    """The bias computed after optimising with ``b = 0`` (mySVM's rule, as RapidMiner applies it).

    ``b`` is the mean of ``y_i - s_i``, with ``s_i = sum_j alpha_j y_j K(x_j, x_i)``, over the
    free support vectors ``is_zero < alpha_i < C - is_zero``; when there are none, over the
    ``alpha_i <= is_zero``; when there are none either (every ``alpha_i`` at ``C``), over all.

    Parameters
    ----------
    s : ndarray of shape (n,)
        Kernel part of the training outputs.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    alpha : ndarray of shape (n,)
    C : float
        Upper bound of the box.
    is_zero : float
        Tolerance: 1e-8 for EvoSVM, 1e-10 for PsoSVM (RapidMiner's values).
    """
    free = (alpha > is_zero) & (alpha < C - is_zero)
    use = free if free.any() else alpha <= is_zero
    if not use.any():
        use = np.ones_like(free)
    return float(np.mean(y[use] - s[use]))
