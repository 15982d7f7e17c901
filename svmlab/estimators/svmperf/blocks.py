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

    def add(self, g, G) -> np.ndarray:
        """Append ``v = K g``; return ``G' v`` (``G`` already holds ``g`` as its last column)."""
        nz = np.flatnonzero(g)
        v = self.K[:, nz] @ g[nz]
        self._V.append(v)
        return G.T @ v

    def scores(self, alpha) -> np.ndarray:
        """``K G alpha`` on the training rows."""
        return self._V.array @ alpha

    def coefficients(self, G, alpha) -> np.ndarray:
        """``beta = G alpha``: the expansion coefficients over the training rows."""
        return G @ alpha

    def keep(self, mask) -> None:
        """Forget the constraints where ``mask`` is false."""
        self._V.keep(mask)


class FeatureBlock:
    """Explicit features ``Phi`` (``n x r``, dense or sparse) with ``Z = Phi' G``."""

    def __init__(self, Phi):
        self.Phi = Phi if sp.issparse(Phi) else np.asarray(Phi, dtype=np.float64)
        self._Z = _Growing(self.Phi.shape[1])

    def add(self, g, G) -> np.ndarray:
        """Append ``z = Phi' g``; return ``Z' z``."""
        nz = np.flatnonzero(g)
        z = np.asarray(self.Phi[nz].T @ g[nz]).ravel()
        self._Z.append(z)
        return self._Z.array.T @ z

    def scores(self, alpha) -> np.ndarray:
        """``Phi Z alpha`` on the training rows."""
        return np.asarray(self.Phi @ (self._Z.array @ alpha)).ravel()

    def coefficients(self, G, alpha) -> np.ndarray:
        """``w = Z alpha``: the weight vector in the block's feature space."""
        return self._Z.array @ alpha

    def keep(self, mask) -> None:
        """Forget the constraints where ``mask`` is false."""
        self._Z.keep(mask)
