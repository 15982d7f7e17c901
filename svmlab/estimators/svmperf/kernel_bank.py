"""Candidate kernels for MKLPO, fitted on a training fold, exact or Nystroem-approximated.

Wang et al. (Sec. II) combine "candidate kernel functions with different kernel parameters"
but name none. svmlab's banks (docs/decisions/svmperf.md, "Kernel banks"):

* ``"dense"`` (continuous features): Gaussian ``exp(-gamma ||x - x'||^2)`` with
  ``gamma = gamma0 * 2^j``, ``j = -3..3``, where ``gamma0 = 1 / median ||x_i - x_j||^2`` over
  training pairs (at most 2,000 rows sampled), and polynomial ``(x'x' / d + 1)^p``,
  ``p = 1, 2, 3``: ``M = 10``;
* ``"text"`` (L2-normalised term frequencies): linear (cosine), polynomial ``(x'x' + 1)^p`` of
  degree 2 and 3 (``kappa = 1``: on unit rows ``x'x'/d`` would make them nearly constant, an
  implicit bias), Gaussian with ``gamma`` in {0.25, 0.5, 1, 2, 4}: ``M = 8``;
* ``"rbf"``: one Gaussian at ``gamma0`` (the single-kernel SVM^perf / CPSP baseline).

A bank may also be a list of kernel dicts: ``{"kernel": "rbf", "gamma": 0.5}`` (absolute),
``{"kernel": "rbf", "gamma_factor": 2.0}`` (times ``gamma0``), ``{"kernel": "polynomial",
"degree": 2}`` (``kappa = 1/d``, ``delta = 1`` unless given), ``{"kernel": "linear"}``, or any
kernel of :mod:`svmlab.kernels` with its parameters.

Every kernel is normalised to unit diagonal, ``K(x, x') / sqrt(K(x, x) K(x', x'))``, because
the combined kernel's scale moves with the weights (Eq. 1). All parameters (``gamma0``,
``d``, the Nystroem landmarks) come from the training rows only.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from svmlab.estimators.svmperf.blocks import FeatureBlock, GramBlock
from svmlab.kernels import kernel_diagonal, kernel_matrix, squared_euclidean

BANKS = {
    "dense": [{"kernel": "rbf", "gamma_factor": 2.0**j} for j in range(-3, 4)]
    + [{"kernel": "polynomial", "degree": p} for p in (1, 2, 3)],
    "text": [{"kernel": "linear"}]
    + [{"kernel": "polynomial", "degree": p, "kappa": 1.0} for p in (2, 3)]
    + [{"kernel": "rbf", "gamma": g} for g in (0.25, 0.5, 1.0, 2.0, 4.0)],
    "rbf": [{"kernel": "rbf", "gamma_factor": 1.0}],
    "linear": [{"kernel": "linear"}],
}

KERNEL_APPROX = ("exact", "nystrom")
#: Kernels whose Gram matrices are positive semi-definite (the QP of Eq. 17 must be convex).
PSD_KERNELS = ("linear", "polynomial", "rbf")


def bank_kernels(bank) -> list[dict]:
    """The kernel dicts of ``bank`` (a name of :data:`BANKS` or a list of dicts)."""
    if isinstance(bank, str):
        if bank not in BANKS:
            raise ValueError(f"kernels must be one of {', '.join(BANKS)} or a list; got {bank!r}")
        return [dict(k) for k in BANKS[bank]]
    try:
        kernels = [dict(k) for k in bank]
    except (TypeError, ValueError):
        raise ValueError(
            f"kernels must be one of {', '.join(BANKS)} or a list of kernel dicts; got {bank!r}"
        ) from None
    if not kernels:
        raise ValueError("kernels: the list of kernels is empty")
    for k in kernels:
        if "kernel" not in k:
            raise ValueError(f"kernels: every entry needs a 'kernel' key; got {k!r}")
        if k["kernel"] not in PSD_KERNELS:
            raise ValueError(
                f"kernels: {k['kernel']!r} is not positive semi-definite, which the structural "
                f"SVM's dual needs; valid kernels: {', '.join(PSD_KERNELS)}"
            )
    return kernels


def median_gamma(X, *, max_rows: int = 2000, random_state=None) -> float:
    """``1 / median ||x_i - x_j||^2`` over pairs of (at most ``max_rows`` sampled) rows."""
    n = X.shape[0]
    rng = np.random.default_rng(random_state)
    rows = np.sort(rng.choice(n, max_rows, replace=False)) if n > max_rows else np.arange(n)
    D = squared_euclidean(X[rows])
    d = D[np.triu_indices(len(rows), 1)]
    d = d[d > 0]
    return 1.0 / float(np.median(d)) if d.size else 1.0


class FittedKernel:
    """One kernel of a bank with its parameters resolved on the training rows."""

    def __init__(self, spec: dict, X, gamma0: float):
        spec = dict(spec)
        self.name = spec.pop("kernel")
        if self.name == "rbf":
            factor = spec.pop("gamma_factor", None)
            if factor is not None:
                spec["gamma"] = float(factor) * gamma0
        if self.name == "polynomial":
            spec.setdefault("kappa", 1.0 / X.shape[1])
            spec.setdefault("delta", 1.0)
        self.params = spec
        self.unit_diagonal = self.name != "rbf"  # the Gaussian kernel already is

    def describe(self) -> str:
        inner = ", ".join(f"{k}={v:.4g}" for k, v in self.params.items())
        return f"{self.name}({inner})"

    def diagonal(self, X) -> np.ndarray:
        return kernel_diagonal(self.name, X, **self.params)

    def __call__(self, A, B, diag_A=None, diag_B=None) -> np.ndarray:
        K = kernel_matrix(self.name, A, B, **self.params)
        if self.unit_diagonal:
            dA = self.diagonal(A) if diag_A is None else diag_A
            dB = self.diagonal(B) if diag_B is None else diag_B
            K /= np.sqrt(np.outer(np.maximum(dA, 1e-300), np.maximum(dB, 1e-300)))
        return K


class KernelBank:
    """A bank of kernels fitted to training rows, exposing one QP block per kernel.

    Parameters
    ----------
    kernels : str or list of dict
        See the module docstring.
    approx : {"exact", "nystrom"}
        Exact training Gram matrices, or rank-``n_components`` Nystroem features per kernel.
    n_components : int
        Nystroem rank (landmarks sampled uniformly without replacement from the training rows).
    random_state : int or None
        Seeds the ``gamma0`` subsample and the landmarks.
    """

    def __init__(self, kernels="dense", approx="exact", n_components=500, random_state=None):
        if approx not in KERNEL_APPROX:
            raise ValueError(
                f"kernel_approx must be one of {', '.join(KERNEL_APPROX)}; got {approx!r}"
            )
        self.specs = bank_kernels(kernels)
        self.approx = approx
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X) -> KernelBank:
        """Resolve every kernel's parameters on the training rows ``X``."""
        self.X_ = X
        needs_gamma0 = any("gamma_factor" in k for k in self.specs)
        self.gamma0_ = (
            median_gamma(X, random_state=self.random_state) if needs_gamma0 else float("nan")
        )
        self.kernels_ = [FittedKernel(k, X, self.gamma0_) for k in self.specs]
        self.diag_ = [k.diagonal(X) if k.unit_diagonal else None for k in self.kernels_]
        if self.approx == "nystrom":
            n = X.shape[0]
            r = min(int(self.n_components), n)
            rng = np.random.default_rng(self.random_state)
            self.landmarks_ = np.sort(rng.choice(n, r, replace=False)) if r < n else np.arange(n)
            self.maps_ = []
            L = X[self.landmarks_]
            for kern, diag in zip(self.kernels_, self.diag_):
                dL = None if diag is None else diag[self.landmarks_]
                w, U = np.linalg.eigh(kern(L, L, dL, dL))
                keep = w > 1e-10 * max(w.max(), 1e-300)
                self.maps_.append(U[:, keep] / np.sqrt(w[keep]))
        return self

    @property
    def n_kernels(self) -> int:
        return len(self.specs)

    def describe(self) -> list[str]:
        return [k.describe() for k in self.kernels_]

    def _features(self, m, X, diag=None) -> np.ndarray:
        kern = self.kernels_[m]
        dL = None if self.diag_[m] is None else self.diag_[m][self.landmarks_]
        return kern(X, self.X_[self.landmarks_], diag, dL) @ self.maps_[m]

    def blocks(self) -> list:
        """One QP block per kernel for the training rows (Gram or Nystroem features)."""
        out = []
        for m, kern in enumerate(self.kernels_):
            if self.approx == "nystrom":
                out.append(FeatureBlock(self._features(m, self.X_, self.diag_[m])))
            else:
                out.append(GramBlock(kern(self.X_, self.X_, self.diag_[m], self.diag_[m])))
        return out

    def decision(self, X, weights, coefs, *, block_rows: int = 2048) -> np.ndarray:
        """``sum_m weights_m k_m(X)' coefs_m`` for new rows, in blocks of rows.

        ``coefs_m`` is ``beta = G alpha`` over the training rows (exact kernels) or the
        Nystroem-space weight vector ``Z_m alpha``.
        """
        out = np.zeros(X.shape[0])
        for start in range(0, X.shape[0], block_rows):
            rows = slice(start, min(X.shape[0], start + block_rows))
            Xb = X[rows]
            for m, kern in enumerate(self.kernels_):
                if weights[m] == 0:
                    continue
                if self.approx == "nystrom":
                    out[rows] += weights[m] * (self._features(m, Xb) @ coefs[m])
                else:
                    nz = np.flatnonzero(coefs[m])
                    if nz.size:
                        diag = None if self.diag_[m] is None else self.diag_[m][nz]
                        K = kern(Xb, self.X_[nz], None, diag)
                        out[rows] += weights[m] * (K @ coefs[m][nz])
        return out


def linear_block(X):
    """The plain linear SVM^perf: the inputs themselves as the block's features."""
    return FeatureBlock(X if sp.issparse(X) else np.asarray(X, dtype=np.float64))
