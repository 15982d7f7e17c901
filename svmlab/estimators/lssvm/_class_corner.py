"""What CC-LSSVM (Alg. 8) and FCC-LSSVM (Alg. 9) of Oliveira (2021) share: the reduced
least-squares system of Eq. 3.11, the fallbacks for empty selections (spec A7), the
hyper-parameters (given, or tuned by :func:`tune_lssvm` through
:class:`~svmlab.estimators.lssvm.tuning.TunedCGammaMixin`), the parameter constraints and
prediction (Eq. 3.13).

Eq. 3.11 (rows = prototypes PS = CCIS(D, 0), columns = corners SV = CCIS(D, P))::

    [ 0        1_M^T ] [ b* ]   [ 0    ]
    [ 1_|PS|   Psi   ] [ a* ] = [ Y_PS ],   Psi_ij = K(x_i, x_j) + 1[i == j] / C

with the **PS labels** on the right (spec A2; the printed "Y_SV" has the wrong length) and
``1/C`` only where row and column are the same training sample. Solved by ``np.linalg.lstsq``
(Eq. 3.12 without normal equations; the matrix may be rank deficient). The kernel block
``K(PS, SV)`` is filled in row blocks straight into the ``(|PS|+1) x (M+1)`` system: memory
``O(|PS| M)``, never ``N x N``.
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.estimators.lssvm._expansion import BinaryKernelExpansionMixin
from svmlab.estimators.lssvm._kkt import solve_kkt
from svmlab.estimators.lssvm._params import LSSVM_CONSTRAINTS
from svmlab.estimators.lssvm.full import binary_targets
from svmlab.estimators.lssvm.tuning import TunedCGammaMixin
from svmlab.kernels import rbf, rbf_blocks
from svmlab.selection import THRESHOLD_MODES, check_corner_threshold

FALLBACKS = ("top_scores", "prototypes", "error")
CONSTRAINTS = ("all", "prototypes")

#: Largest N for which an empty prototype set falls back to the full (N x N) LSSVM.
FULL_LSSVM_MAX_SAMPLES = 10_000


def reduced_system(X, t, rows, cols, C: float, gamma: float):
    """Eq. 3.11 as a dense ``(|rows|+1) x (|cols|+1)`` matrix and its right-hand side."""
    rows = np.asarray(rows, dtype=np.intp)
    cols = np.asarray(cols, dtype=np.intp)
    A = np.empty((len(rows) + 1, len(cols) + 1))
    A[0, 0] = 0.0
    A[0, 1:] = 1.0
    A[1:, 0] = 1.0
    for block, K in rbf_blocks(X[rows], X[cols], gamma):
        A[1 + block.start : 1 + block.stop, 1:] = K
    position = np.full(X.shape[0], -1, dtype=np.intp)
    position[cols] = np.arange(len(cols))
    same = np.flatnonzero(position[rows] >= 0)  # row i is the sample of column position[..]
    A[1 + same, 1 + position[rows[same]]] += 1.0 / C
    return A, np.r_[0.0, t[rows]]


def solve_reduced(X, t, rows, cols, C: float, gamma: float):
    """``(alpha*, b*, rank)`` of Eq. 3.11 by least squares (Eq. 3.12)."""
    A, v = reduced_system(X, t, rows, cols, C, gamma)
    w, _, rank, _ = np.linalg.lstsq(A, v, rcond=None)
    return w[1:], float(w[0]), int(rank)


def top_scores(candidates, scores, m: int, rng) -> np.ndarray:
    """The ``m`` candidates of highest score; ties broken by a seeded permutation and a
    stable sort (spec A6)."""
    candidates = np.asarray(candidates, dtype=np.intp)
    shuffled = candidates[rng.permutation(len(candidates))]
    order = np.argsort(-scores[shuffled], kind="stable")
    return shuffled[order[:m]]


class ClassCornerLSSVMBase(
    BinaryKernelExpansionMixin, TunedCGammaMixin, ClassifierMixin, BaseEstimator
):
    """Binary sparse LSSVM over class corners; subclasses implement :meth:`_select`
    returning ``(rows, cols, scores, info)``."""

    _parameter_constraints: dict = {
        **LSSVM_CONSTRAINTS,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "corner_threshold": [Interval(Integral, 0, None, closed="left")],
        "radius": [Interval(Real, 0.0, None, closed="neither"), None],
        "r_factor": [Interval(Real, 0.0, None, closed="neither")],
        "threshold_mode": [StrOptions(set(THRESHOLD_MODES))],
        "fallback": [StrOptions(set(FALLBACKS))],
        "constraints": [StrOptions(set(CONSTRAINTS))],
    }

    def _warn(self, info, key, message):
        warnings.warn(f"{type(self).__name__}: {message}", RuntimeWarning, stacklevel=3)
        info[key] = message

    def _fallback_columns(self, prototypes, scores, m, info, rng):
        """SV is empty: the configured replacement (spec A7)."""
        if self.fallback == "error":
            raise ValueError(
                f"{type(self).__name__}: no sample has Gamma > P={self.corner_threshold} "
                "(empty corner set); lower corner_threshold, raise r_factor or set "
                "fallback='top_scores' or 'prototypes'"
            )
        if self.fallback == "prototypes":
            cols = np.asarray(prototypes, dtype=np.intp)
            what = f"all {len(cols)} prototypes (PS)"
        else:
            cols = top_scores(prototypes, scores, m, rng)
            what = f"the {len(cols)} prototypes of highest Gamma"
        self._warn(
            info,
            "fallback",
            f"empty corner set (no Gamma > P={self.corner_threshold}); using {what} as SVs",
        )
        return cols

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Select PS and SV, solve Eq. 3.11 by least squares; returns ``self``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two class labels; ``classes_[1]`` is the ``+1`` side.
        """
        self._check_grids()
        check_corner_threshold(self.corner_threshold, self.n_neighbors)  # P < K
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        self.classes_, t = binary_targets(type(self).__name__, y)
        C, gamma, tuned, n_tune = self._c_gamma(X, t, "classification")
        rng = check_random_state(self.random_state)
        info = {
            **self._tuning_record(C, gamma, tuned, n_tune),
            "threshold_mode": self.threshold_mode,
            "fallback": None,
            "constraints": self.constraints,
        }
        rows, cols, scores = self._select(X, t, info, rng)
        if len(rows) == 0:
            if X.shape[0] > FULL_LSSVM_MAX_SAMPLES:
                raise ValueError(
                    f"{type(self).__name__}: empty prototype set and N={X.shape[0]} is too "
                    f"large for the full-LSSVM fallback (at most {FULL_LSSVM_MAX_SAMPLES}); "
                    "raise r_factor or n_neighbors"
                )
            self._warn(info, "fallback", "empty prototype set (no Gamma > 0); full LSSVM solved")
            alpha, b, method = solve_kkt(rbf(X, X, gamma), t, C)
            cols, rank = np.arange(X.shape[0]), X.shape[0] + 1
            info["solver"] = method
        else:
            # Eq. 3.11's rows: PS (Algs. 8-9) or every training sample (``constraints="all"``)
            used = rows if self.constraints == "prototypes" else np.arange(X.shape[0])
            alpha, b, rank = solve_reduced(X, t, used, cols, C, gamma)
            info["solver"] = "lstsq"
        self._store_expansion(X, t, cols, alpha, b)
        self.prototypes_ = np.asarray(rows, dtype=np.intp)
        self.scores_ = scores
        self.C_, self.gamma_ = C, gamma
        info.update(
            n_prototypes=int(len(rows)),
            n_support=int(len(self.support_)),
            sparsity=1.0 - len(self.support_) / X.shape[0],
            lstsq_rank=int(rank),
        )
        self.fit_info_ = info
        return self


def fallback_size(n_prototypes: int) -> int:
    """How many top-scoring prototypes replace an empty SV set in CC-LSSVM:
    ``ceil(sqrt(|PS|))``, at least 2, at most ``|PS|``."""
    return min(n_prototypes, max(2, math.ceil(math.sqrt(n_prototypes))))
