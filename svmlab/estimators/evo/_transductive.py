"""What the transductive evolutionary SVMs (Mierswa 2009, Ch. 5) share: the data convention,
the genome, objective (I), the ``y*`` modes, and model storage and prediction. The algorithms
live in :mod:`~svmlab.estimators.evo.evo_tsvm` (Evo-T-SVM),
:mod:`~svmlab.estimators.evo.mo_tsvm` (MO-T-SVM) and
:mod:`~svmlab.estimators.evo.pareto_clustering` (clustering from the MO-T-SVM Pareto front).
The readings svmlab takes where Ch. 5 is silent are in docs/decisions/evo.md ("Transductive
SVMs: ...").

Data convention
---------------
``fit(X, y)`` takes labeled and unlabeled rows together; unlabeled rows have ``y = -1``
(scikit-learn's semi-supervised convention, as in ``LabelSpreading`` and
``SelfTrainingClassifier``). The labeled rows must therefore use two class labels other
than -1 (e.g. 0/1 or strings in an object array).

The genome
----------
Every individual is ``(alpha, alpha*, y*)``: one dual variable per labeled row (box
``[0, C]``), one per unlabeled row (box ``[0, C*]``) and one label variable ``y*_k`` in
{-1, +1} per unlabeled row -- ``n + 2 n*`` genes (Prob. 5.2). With ``a = (alpha, alpha*)``
and the joint labels ``Y = (y, y*)``, objective (I) is the SVM dual over all rows,

    (I) = sum_i a_i - 1/2 sum_ij a_i a_j Y_i Y_j K_ij,

maximised with ``b = 0`` (the equality constraint dropped, as for EvoSVM; the thesis does not
say); the
bias is set afterwards by mySVM's rule over all rows. The model is

    f(x) = sum_i alpha_i y_i K(x, x_i) + sum_k alpha*_k y*_k K(x, x*_k) + b.

The direction over ``y*``
-------------------------
The thesis maximises (I) over ``alpha``, ``alpha*`` **and** ``y*``. But for fixed ``y*``
the dual's maximum is the primal's minimum, so the transductive SVM wants
``min_{y*} max_alpha (I)``; maximising over ``y*`` picks the *worst* labelling (the
``y*``-part of (I) is ``-y*_k alpha*_k g_k`` with ``g_k`` the decision value at ``x*_k``
without its own term, maximised by ``y*_k = -sign(g_k)``). Three modes (``y_mode``):

``"literal"``
    The thesis as written: ``y*`` genes are evolved (random initial labels, bit flips with
    probability ``1/(n + 2n*)``, uniform crossover) and (I) is maximised over them.
``"self_label"``
    ``y*`` is not evolved: before every evaluation each individual relabels
    ``y*_k := sign(g_k)`` (a zero keeps the label), ``g_k`` computed from its own ``a`` and
    its current labels (one Jacobi step; offspring inherit and refine the labels). The
    initial labels are the sign of the labeled part of ``g``. This is the ``y*`` that
    minimises (I) for the current ``a`` -- the primal-consistent choice (for fixed ``w`` it
    minimises every ``xi*_k``, S3VM's symmetric hinge), so the search is ``max_a min_y*``.
``"minmax"`` (``EvoTSVMClassifier`` only)
    An outer search over ``y*`` minimising the exact inner maximum of (I) over the box
    (coordinate ascent, exact for positive semi-definite kernels): all ``2^n*`` labellings
    when ``n* <= minmax_exhaustive``, otherwise an evolutionary search over ``y*`` (bit
    flips, uniform crossover, tournaments).

On the two-cluster checks in the tests, ``self_label`` and ``minmax`` label the unlabeled
points by cluster, while ``literal`` ends with labellings against the clusters (its (I)
under its own labels far exceeds (I) under the cluster labels). The default is therefore
``"self_label"``; ``"literal"`` is the faithful reading.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.contract import Contract, RowValue
from svmlab.estimators._kernel_params import KERNEL_CONSTRAINTS, KernelParamsMixin
from svmlab.estimators.evo._base import KernelExpansionMixin, split_unlabeled
from svmlab.estimators.evo._fitness import posthoc_bias
from svmlab.kernels import kernel_matrix

__all__ = [
    "TRANSDUCTIVE_CONSTRAINTS",
    "TransductiveBase",
    "TransductiveCore",
    "joint_bias",
    "prepare_rows",
    "tsvm_objective",
]


def tsvm_objective(K, y_joint, a) -> np.ndarray:
    """Objective (I) of the transductive SVM for every row of ``a`` (shape ``(P, N)``).

    ``K`` is the kernel matrix over all ``N`` rows (labeled and unlabeled), ``y_joint`` the
    labels ``(y, y*)`` in {-1, +1} (shape ``(N,)`` or ``(P, N)``). Returns
    ``sum_i a_i - 1/2 sum_ij a_i a_j Y_i Y_j K_ij`` per row: the three quadratic blocks
    (labeled-labeled, unlabeled-unlabeled, and the cross term counted twice at 1/2) of
    Theorem 5.1.
    """
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    V = a * np.asarray(y_joint, dtype=np.float64)
    return a.sum(axis=1) - 0.5 * np.einsum("ij,ij->i", V, V @ np.asarray(K, dtype=np.float64))


# -- the shared evaluation -------------------------------------------------------------------------


class TransductiveCore:
    """Genome layout ``[a (N = n + n*), y* (n*)]`` over rows ordered labeled first.

    ``evaluate`` returns ``(a.sum, quad)`` per row with ``quad = v^T K v``, ``v = a * Y``; in
    ``self_label`` mode the ``y*`` genes are first rewritten to ``sign(g)``.
    """

    def __init__(self, K, y_lab, n_u, ub, y_mode):
        self.K = K
        self.y_lab = y_lab
        self.n = len(y_lab)
        self.n_u = n_u
        self.N = self.n + n_u
        self.L = self.N + n_u
        self.ub = ub
        self.y_mode = y_mode
        self.k_diag_u = np.ascontiguousarray(np.diag(K)[self.n :])

    def joint_labels(self, A):
        return np.concatenate(
            [np.broadcast_to(self.y_lab, (A.shape[0], self.n)), A[:, self.N :]], axis=1
        )

    def relabel(self, A):
        """``y*_k := sign(g_k)`` in place, ``g_k`` without the point's own term (a zero keeps
        the label)."""
        a, N, n = A[:, : self.N], self.N, self.n
        H = (a * self.joint_labels(A)) @ self.K[:, n:]
        H -= a[:, n:] * A[:, N:] * self.k_diag_u
        A[:, N:] = np.where(H > 0, 1.0, np.where(H < 0, -1.0, A[:, N:]))

    def quad(self, A, derive=True):
        if derive and self.y_mode == "self_label":
            self.relabel(A)
        V = A[:, : self.N] * self.joint_labels(A)
        return np.einsum("ij,ij->i", V, V @ self.K)

    def initial(self, P, rng, init):
        """Duals 0 or uniform in their boxes; labels ``y*`` uniform in {-1, +1} -- except in
        ``self_label`` mode with labeled rows, where they start as the sign of the labeled
        part of the decision value (ties +1), so that the labels start from the labeled data."""
        a = np.zeros((P, self.N)) if init == "zeros" else rng.random_sample((P, self.N)) * self.ub
        ys = np.where(rng.random_sample((P, self.n_u)) < 0.5, -1.0, 1.0)
        if self.y_mode == "self_label" and self.n:
            g = (a[:, : self.n] * self.y_lab) @ self.K[: self.n, self.n :]
            ys = np.where(g > 0, 1.0, np.where(g < 0, -1.0, ys))
        return np.concatenate([a, ys], axis=1)

    def flip_labels(self, A, rng):
        """Literal mode: each ``y*`` gene flips with probability ``1 / (n + 2 n*)``."""
        if self.y_mode != "literal":
            return
        rows, genes = np.nonzero(rng.random_sample((A.shape[0], self.n_u)) < 1.0 / self.L)
        A[rows, self.N + genes] *= -1.0


def prepare_rows(est, X, y, *, allow_no_labels=False):
    """Validate, order rows labeled-first, compute the kernel matrix once."""
    X, y = validate_data(est, X, y, accept_sparse="csr", dtype=np.float64, y_numeric=False)
    y = np.asarray(y)
    name = type(est).__name__
    classes, lab, Y = split_unlabeled(y, name, allow_no_labels=allow_no_labels)
    if lab.any():
        check_classification_targets(y[lab])
    order = np.concatenate([np.flatnonzero(lab), np.flatnonzero(~lab)])
    params = est._kernel_params()
    Xo = X[order]
    t0 = time.perf_counter()
    K = kernel_matrix(est.kernel, Xo, None, **params)
    if not np.isfinite(K).all():
        raise ValueError(f"the {est.kernel} kernel matrix has non-finite values with {params}")
    return X, classes, lab, Y, order, Xo, K, params, time.perf_counter() - t0


def joint_bias(K, Yj, a, ub, is_zero):
    s = K @ (a * Yj)  # s_i = sum_j a_j Y_j K(x_j, x_i)
    return posthoc_bias(s, Yj, a, ub, is_zero)


class TransductiveBase(KernelParamsMixin, KernelExpansionMixin, ClassifierMixin, BaseEstimator):
    """Model storage and prediction shared by both transductive SVMs."""

    svmlab_contract = Contract(
        transductive=True, row_values={"dual_objective": RowValue("objective", "max")}
    )
    # transductive: svmlab's runner fits it on the training rows plus the test rows with
    # ``y = -1`` (svmlab.evaluation.evaluate.fit_inputs), then scores it on the test rows
    _is_zero = 1e-8

    def _store_model(self, order, Xo, a, Yj, b, n_lab, n_total):
        """Keep one model: ``a`` and ``Yj`` over rows ordered labeled first."""
        sv = a > 0
        self.alpha_ = np.empty(n_total)
        self.alpha_[order] = a
        self.support_ = order[sv]
        self.support_vectors_ = Xo[sv]
        self.dual_coef_ = (a * Yj)[sv][None, :]
        self.intercept_ = np.array([float(b)])
        self.n_support_ = np.array([np.sum(sv & (Yj < 0)), np.sum(sv & (Yj > 0))], dtype=np.int32)


TRANSDUCTIVE_CONSTRAINTS = {
    **KERNEL_CONSTRAINTS,
    "population_size": [Interval(Integral, 2, None, closed="left")],
    "crossover_rate": [Interval(Real, 0.0, 1.0, closed="both")],
    "init": [StrOptions({"uniform", "zeros"})],
    "random_state": ["random_state"],
}
