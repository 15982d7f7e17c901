"""One kernel's view of the working set: how constraints enter the QP and the scores.

The cutting plane (Wang et al., Alg. 1) only ever needs, for each kernel ``m``, the new
row/column of ``Q_m = G' K_m G`` when a constraint vector ``g`` joins the working set
``G = [g_1 ... g_k]``, and the training scores ``K_m G alpha``. A block provides both in one of
two representations (Wang et al. do not say how; docs/decisions/svmperf.md):

* :class:`GramBlock` keeps the exact training Gram matrix ``K_m`` and the columns
  ``V_m = K_m G``: ``v = K_m g`` costs one pass over the columns where ``g`` is non-zero;
* :class:`FeatureBlock` keeps explicit features ``Phi_m`` (the inputs themselves for the
  linear kernel, Nystroem factors for a large ``n``) and ``Z_m = Phi_m' G``; nothing of size
  ``n x n`` exists, so it serves the linear SVM^perf on 50,000 samples and kernels on large
  data.

Both grow their storage geometrically, so adding a constraint is amortised ``O(n)`` besides
the product itself.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit


class _Growing:
    """A column store of fixed row count whose number of columns doubles when full."""

    def __init__(self, rows: int):
        self._data = np.zeros((rows, 8))
        self.k = 0

    def append(self, column) -> None:
        if self.k == self._data.shape[1]:
            grown = np.zeros((self._data.shape[0], 2 * self.k))
            grown[:, : self.k] = self._data
            self._data = grown
        self._data[:, self.k] = column
        self.k += 1

    @property
    def array(self) -> np.ndarray:
        return self._data[:, : self.k]

    def keep(self, mask) -> None:
        """Keep only the columns where ``mask`` is true (in order)."""
        kept = self._data[:, : self.k][:, mask]
        self._data[:, : kept.shape[1]] = kept
        self.k = kept.shape[1]


class GramBlock:
    """Exact kernel ``K_m`` (training Gram matrix, ``n x n``) with the columns ``K_m G``."""

    def __init__(self, K):
        self.K = np.asarray(K, dtype=np.float64)
        self._V = _Growing(self.K.shape[0])

    def add(self, g) -> np.ndarray:
        """Append ``v = K g``; return the new column of ``G' K G``: ``(K G)' g``, ``g``
        included."""
        nz = np.flatnonzero(g)
        v = self.K[:, nz] @ g[nz]
        self._V.append(v)
        return self._V.array.T @ g

    def scores(self, alpha) -> np.ndarray:
        """``K G alpha`` on the training rows."""
        return self._V.array @ alpha

    def coefficients(self, G, alpha) -> np.ndarray:
        """``beta = G alpha``: the expansion coefficients over the training rows."""
        return G @ alpha

    def keep(self, mask) -> None:
        """Forget the constraints where ``mask`` is false."""
        self._V.keep(mask)


#: Dense features with at most this fraction of non-zeros are multiplied as CSR.
SPARSE_BELOW = 0.5
#: ``Phi' g`` is updated from the previous constraint's when at most this fraction of ``g``
#: changed, else computed again in full.
UPDATE_BELOW = 0.5


@njit(cache=True, nogil=True)
def _dense_to_csr(Phi):
    """``(data, indices, indptr)`` of the non-zeros of the dense ``Phi``, row by row."""
    n, r = Phi.shape
    indptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        c = 0
        for j in range(r):
            if Phi[i, j] != 0.0:
                c += 1
        indptr[i + 1] = indptr[i] + c
    data = np.empty(indptr[n])
    indices = np.empty(indptr[n], dtype=np.int32)
    p = 0
    for i in range(n):
        for j in range(r):
            if Phi[i, j] != 0.0:
                data[p] = Phi[i, j]
                indices[p] = j
                p += 1
    return data, indices, indptr


@njit(cache=True, nogil=True)
def _csr_rows_dot(indptr, indices, data, rows, coef, out):
    """``out += sum_r coef[r] * Phi[rows[r]]`` for CSR ``Phi``."""
    for r in range(rows.size):
        i = rows[r]
        c = coef[r]
        for p in range(indptr[i], indptr[i + 1]):
            out[indices[p]] += c * data[p]


@njit(cache=True, nogil=True)
def _dense_rows_dot(Phi, rows, coef, out):
    """``out += sum_r coef[r] * Phi[rows[r]]`` for dense ``Phi``."""
    for r in range(rows.size):
        i = rows[r]
        c = coef[r]
        for j in range(Phi.shape[1]):
            out[j] += c * Phi[i, j]


class FeatureBlock:
    """Explicit features ``Phi`` (``n x r``, dense or sparse) with ``Z = Phi' G``.

    Products run on a CSR copy when ``Phi`` is sparse or mostly zeros (``SPARSE_BELOW``).
    ``z = Phi' g`` of a new constraint is the previous one's ``z`` plus the rows where ``g``
    changed (successive most violated labellings differ in few examples), as SVM^perf's
    error-rate algorithm builds its constraints.
    """

    def __init__(self, Phi):
        self.Phi = Phi if sp.issparse(Phi) else np.asarray(Phi, dtype=np.float64)
        n, r = self.Phi.shape
        if sp.issparse(self.Phi):
            self._csr = sp.csr_matrix(self.Phi, dtype=np.float64)
            self._csr.sum_duplicates()
        elif np.count_nonzero(self.Phi) < SPARSE_BELOW * n * r:
            self._csr = sp.csr_matrix(_dense_to_csr(self.Phi), shape=(n, r))
        else:
            self._csr = None
            self.Phi = np.ascontiguousarray(self.Phi)
        self._csr_T = None
        self._Z = _Growing(r)
        self._last_g = np.zeros(n)
        self._last_z = np.zeros(r)

    def _rows_dot(self, rows, coef, out):
        if self._csr is not None:
            c = self._csr
            _csr_rows_dot(c.indptr, c.indices, c.data, rows, coef, out)
        else:
            _dense_rows_dot(self.Phi, rows, coef, out)

    def product(self, g) -> np.ndarray:
        """``Phi' g``: from the last added constraint's over the rows where ``g`` changed,
        or in full when most rows changed."""
        changed = np.flatnonzero(g != self._last_g)
        if changed.size <= UPDATE_BELOW * g.size:
            z = self._last_z.copy()
            self._rows_dot(changed, g[changed] - self._last_g[changed], z)
            return z
        if self._csr is not None:
            if self._csr_T is None:  # Phi' as CSR: the full product gathers, never scatters
                self._csr_T = self._csr.T.tocsr()
            return self._csr_T @ g
        return self.Phi.T @ g

    def add(self, g, z=None) -> np.ndarray:
        """Append ``z = Phi' g`` (:meth:`product` unless the caller has it); return the new
        column of ``Z' Z``, ``g`` included."""
        if z is None:
            z = self.product(g)
        self._last_g, self._last_z = g, z
        self._Z.append(z)
        return self._Z.array.T @ z

    def scores(self, alpha) -> np.ndarray:
        """``Phi Z alpha`` on the training rows."""
        w = self._Z.array @ alpha
        if self._csr is not None:
            return self._csr @ w
        return self.Phi @ w

    def coefficients(self, G, alpha) -> np.ndarray:
        """``w = Z alpha``: the weight vector in the block's feature space."""
        return self._Z.array @ alpha

    def keep(self, mask) -> None:
        """Forget the constraints where ``mask`` is false."""
        self._Z.keep(mask)
