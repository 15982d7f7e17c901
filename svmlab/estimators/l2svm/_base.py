"""Shared machinery of the L2-SVM baselines (NNISDA, MNSVM).

* a kernel-column cache for the numba solvers: columns of the signed, bias-augmented RBF
  kernel ``y_i y_j (K(x_i, x_j) + bias)`` are computed on demand and kept in a
  least-recently-used buffer of ``cache_size`` MB, so no n x n matrix is needed for large n;
* :class:`L2SVMBase`, the scikit-learn estimator shell: input validation, the one-vs-one
  decomposition with OLLAWV's pair order and voting rule (docs/decisions/ollawv.md,
  "One-vs-one pair order and vote ties"),
  decision values computed once over the union of support vectors, ``support_`` /
  ``n_support_`` counting distinct training samples, and ``fit_info_``.

A subclass implements ``_solve_binary(X, y, gamma)`` for labels y in {-1, +1} and returns the
L2-SVM dual variables alpha >= 0, the intercept b (decision o(x) = sum_i alpha_i y_i K(x, x_i) + b)
and a dict of solver information.
"""

from __future__ import annotations

import math
import numbers
import warnings
from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - older scikit-learn

    def _validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)


from numba import njit

from svmlab.contract import Contract, RowValue
from svmlab.estimators._ovo import ovo_pairs, ovo_scores, ovo_votes, ovo_winner

NO_LIMIT = np.iinfo(np.int64).max // 2  # max_iter=None

# ----------------------------------------------------------------------------------------
# kernel-column cache (numba)
# ----------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def get_column(i, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state):
    """Column i of Q0 = y y^T * (K + bias) (without the 1/C diagonal), from the LRU cache.

    ``state[0]`` is the access clock, ``state[1]`` the number of slots in use,
    ``state[2]`` the number of columns computed (cache misses).
    """
    state[0] += 1
    s = slot_of[i]
    if s >= 0:
        stamp[s] = state[0]
        return buf[s]
    n_slots = buf.shape[0]
    if state[1] < n_slots:  # a free slot
        s = state[1]
        state[1] += 1
    else:  # evict the least recently used column
        s = 0
        oldest = stamp[0]
        for k in range(1, n_slots):
            if stamp[k] < oldest:
                oldest = stamp[k]
                s = k
        slot_of[idx_of[s]] = -1
    idx_of[s] = i
    slot_of[i] = s
    stamp[s] = state[0]
    state[2] += 1
    col = buf[s]
    n, d = X.shape
    yi = y[i]
    for j in range(n):
        dot = 0.0
        for k in range(d):
            dot += X[j, k] * X[i, k]
        d2 = sq[j] + sq[i] - 2.0 * dot
        if d2 < 0.0 or j == i:  # rounding; K_ii is exactly 1
            d2 = 0.0
        col[j] = yi * y[j] * (math.exp(-gamma * d2) + bias)
    return col


@njit(cache=True, nogil=True)
def inactive_indices(active, m, n):
    """The indices not in ``active[:m]``, ascending (for gradient reconstruction)."""
    mask = np.zeros(n, dtype=np.bool_)
    for k in range(m):
        mask[active[k]] = True
    return np.flatnonzero(~mask)


@njit(cache=True, nogil=True)
def reconstruct(
    out, base, sign, w, rows, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state
):
    """out[j] = base + sign * sum_i w_i Q0_ij for j in ``rows`` (samples with w_j = 0).

    Brings the gradient of shrunk samples up to date from the columns of the support vectors.
    """
    for j in rows:
        out[j] = base
    for i in range(w.shape[0]):
        if w[i] > 0.0:
            col = get_column(i, X, sq, y, gamma, bias, buf, slot_of, idx_of, stamp, state)
            f = sign * w[i]
            for j in rows:
                out[j] += f * col[j]


class KernelCache:
    """Buffers of the column cache for one binary problem.

    With room for all n columns the cache is the full matrix, filled lazily (only the columns
    the solver touches are computed); ``precompute=True`` fills it at once with BLAS, which is
    faster when most columns will be needed and n is small.
    """

    def __init__(self, X, y, gamma, bias, cache_size_mb, precompute=False):
        n = X.shape[0]
        self.X, self.y, self.gamma, self.bias = X, y, float(gamma), float(bias)
        self.sq = np.einsum("ij,ij->i", X, X)
        n_slots = int(cache_size_mb * 2**20 // (8 * n))
        n_slots = min(n, max(2, n_slots))  # MDM needs two columns at once
        self.slot_of = np.full(n, -1, dtype=np.int64)
        self.idx_of = np.full(n_slots, -1, dtype=np.int64)
        self.stamp = np.zeros(n_slots, dtype=np.int64)
        self.state = np.zeros(3, dtype=np.int64)
        if precompute and n_slots == n:  # in place, so the peak is one n x n matrix
            buf = X @ X.T
            buf *= -2.0
            buf += self.sq[:, None]
            buf += self.sq[None, :]
            np.maximum(buf, 0.0, out=buf)
            np.fill_diagonal(buf, 0.0)
            buf *= -self.gamma
            np.exp(buf, out=buf)
            buf += self.bias
            buf *= y[:, None]
            buf *= y[None, :]
            self.buf = buf
            self.slot_of[:] = np.arange(n)
            self.idx_of[:] = np.arange(n)
            self.state[1] = self.state[2] = n
        else:
            self.buf = np.empty((n_slots, n))

    def args(self):
        """The positional arguments of :func:`get_column` after ``i``."""
        return (
            self.X,
            self.sq,
            self.y,
            self.gamma,
            self.bias,
            self.buf,
            self.slot_of,
            self.idx_of,
            self.stamp,
            self.state,
        )

    @property
    def columns_computed(self) -> int:
        return int(self.state[2])


# ----------------------------------------------------------------------------------------
# estimator shell
# ----------------------------------------------------------------------------------------


def _plain(value):
    """A NumPy scalar as a plain Python value (fit_info_ is stored as JSON)."""
    return value.item() if isinstance(value, np.generic) else value


class L2SVMBase(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """One-vs-one RBF L2-SVM classifier; subclasses provide ``_solve_binary``."""

    svmlab_contract = Contract(row_values={"dual_objective": RowValue("objective", "max")})

    _parameter_constraints: dict = {
        "C": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "gamma": [Interval(numbers.Real, 0.0, None, closed="neither"), StrOptions({"scale"})],
        "bias": [Interval(numbers.Real, 0.0, None, closed="left")],
        "tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "shrinking": ["boolean"],
        "cache_size": [Interval(numbers.Real, 0.0, None, closed="neither")],
    }

    @abstractmethod
    def _solve_binary(self, X, y, gamma):
        """Solve one binary L2-SVM dual; return ``(alpha, intercept, info)``."""

    # -- fitting ---------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit one L2-SVM per pair of classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs (dense; NaN and infinity are rejected).
        y : array-like of shape (n_samples,)
            Class labels; at least two classes.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = _validate_data(self, X, y, dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_, y_idx, counts = np.unique(y, return_inverse=True, return_counts=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in the data, but the "
                "data "
                f"contains only one class: {self.classes_[0]!r}"
            )
        self._gamma = self._effective_gamma(X)

        # OLLAWV's one-vs-one convention (docs/decisions/ollawv.md, "One-vs-one pair order and
        # vote ties"): classes sorted by size (descending, ties to the lower class index);
        # in pair (a, b) the earlier, larger class a is +1; each model sees only its two classes.
        pairs = ovo_pairs(counts)
        sv_rows, coefs, intercepts, infos = [], [], [], []
        for a, b in pairs:
            rows = np.flatnonzero((y_idx == a) | (y_idx == b))
            yb = np.where(y_idx[rows] == a, 1.0, -1.0)
            alpha, intercept, info = self._solve_binary(
                np.ascontiguousarray(X[rows]), yb, self._gamma
            )
            sv = alpha > 0
            sv_rows.append(rows[sv])
            coefs.append(alpha[sv] * yb[sv])
            intercepts.append(intercept)
            infos.append(
                {
                    "classes": [_plain(self.classes_[a]), _plain(self.classes_[b])],
                    "n_samples": len(rows),
                    "n_support": int(sv.sum()),
                    **info,
                }
            )

        self.support_ = np.unique(np.concatenate(sv_rows))
        self.support_vectors_ = X[self.support_]
        self.n_support_ = np.bincount(y_idx[self.support_], minlength=len(self.classes_)).astype(
            np.int32
        )
        self.pairs_ = np.asarray(pairs, dtype=np.intp)
        self.pair_support_ = sv_rows
        self.pair_dual_coef_ = coefs
        self._pair_sv = [np.searchsorted(self.support_, r) for r in sv_rows]
        self.intercept_ = np.asarray(intercepts, dtype=np.float64)
        self.n_iter_ = np.asarray([i["iterations"] for i in infos], dtype=np.int64)
        not_converged = [i for i in infos if not i["converged"]]
        if not_converged:
            warnings.warn(
                f"{type(self).__name__}: {len(not_converged)} of {len(infos)} binary problems "
                "stopped at "
                f"max_iter={self.max_iter} before the KKT violation fell below tol={self.tol}",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.fit_info_ = {
            "iterations": int(sum(i["iterations"] for i in infos)),
            "converged": not not_converged,
            "objective": float(sum(i["objective"] for i in infos)),
            "max_violation": float(max(i["max_violation"] for i in infos)),
            "kernel_columns": int(sum(i["kernel_columns"] for i in infos)),
            "gamma": float(self._gamma),
            "pairs": infos,
        }
        return self

    def _effective_gamma(self, X):
        if isinstance(self.gamma, str):  # "scale", as in sklearn.svm.SVC
            var = X.var()
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        return float(self.gamma)

    def _max_iter(self):
        return NO_LIMIT if self.max_iter is None else int(self.max_iter)

    def _cache(self, X, y, gamma, bias):
        n = X.shape[0]
        precompute = 8 * n * n <= self.cache_size * 2**20
        return KernelCache(X, y, gamma, bias, self.cache_size, precompute=precompute)

    # -- prediction ------------------------------------------------------------------------

    def pairwise_decision_function(self, X):
        """Decision values o(x) of the pairwise models.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_pairs)
            Column p belongs to the model of ``pairs_[p] = (a, b)`` (class indices); a positive
            value is a vote for class a, zero or negative a vote for class b.
        """
        check_is_fitted(self)
        X = _validate_data(self, X, dtype=np.float64, order="C", reset=False)
        out = np.empty((X.shape[0], len(self.pairs_)))
        step = max(1, int(2**23 // max(1, len(self.support_))))  # ~64 MB kernel blocks
        for start in range(0, X.shape[0], step):
            K = rbf_kernel(X[start : start + step], self.support_vectors_, gamma=self._gamma)
            for p, (cols, coef) in enumerate(zip(self._pair_sv, self.pair_dual_coef_)):
                out[start : start + step, p] = K[:, cols] @ coef
        out += self.intercept_
        return out

    def _votes(self, X):
        values = self.pairwise_decision_function(X)
        return (values, *ovo_votes(values, self.pairs_, len(self.classes_)))

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            Two classes: o(x) signed so that a positive value means ``classes_[1]``.
            More classes: the one-vs-one votes of each class plus s / (3 (|s| + 1)), s being
            its summed signed decision values; the second term lies in (-1/3, 1/3), so the
            argmax follows the voting rule of :meth:`predict` (see
            :meth:`pairwise_decision_function` for the raw values).
        """
        if len(getattr(self, "classes_", ())) == 2:
            values = self.pairwise_decision_function(X)[:, 0]
            return values if self.pairs_[0, 0] == 1 else -values
        return ovo_scores(*self._votes(X)[1:])

    def predict(self, X):
        """Predict class labels by one-vs-one majority vote.

        Vote ties go to the class with the larger sum of signed decision values, then to the
        lowest class index (docs/decisions/ollawv.md, "One-vs-one pair order and vote ties").
        With two classes this is sign(o(x)), zero going
        to the smaller class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        winner = ovo_winner(*self._votes(X)[1:])  # checks the fit first
        return self.classes_[winner]
