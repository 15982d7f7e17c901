"""MI-SVM and mi-SVM: the two alternating SVM heuristics of Andrews, Tsochantaridis & Hofmann
(2002).

Both learn an instance-level kernel SVM and call a bag positive when its largest instance
output is positive (the standard multi-instance assumption). They differ in what stands
for a positive bag during training:

* :class:`BagMISVMClassifier` (**MI-SVM**, the bag-level margin): every positive bag is
  represented by one *witness*, its instance with the largest decision value; every
  instance of every negative bag is a negative example. The witnesses start at the
  positive bags' means (the initialisation of Andrews et al., also named in Melki (2018),
  Sec. 4.2, as the contrast to MIRSVM's random start) and are
  re-selected from the current hyperplane until they stop changing.
* :class:`InstanceMISVMClassifier` (**mi-SVM**, the instance-level margin): every instance gets a
  label. Negative-bag instances are always negative; positive-bag instances start
  positive, are relabelled with the sign of the current decision value and, when a positive
  bag would be left without a positive instance, its instance with the largest decision
  value is forced positive (the at-least-one-positive constraint). The labels are updated
  until they stop changing.

The QPs are kernel SVM duals with a bias, solved by :func:`svmlab.qp.solve_svm_dual` (SMO,
warm-started from the previous iteration's ``alpha``) on the Gaussian kernel
``exp(-||x - x'||^2 / (2 sigma^2))``. That needs the kernel over the training examples
(MI-SVM: negative instances + one witness per positive bag; mi-SVM: all instances). Above
``max_kernel_size`` examples (``qp_solver="auto"``), LIBSVM (``sklearn.svm.SVC(kernel="rbf")``,
which caches kernel rows instead of storing the matrix) is used instead, without warm starts.

The names: the class names say which margin is meant (``Bag`` / ``Instance``), because the
paper's spellings "MI-SVM" and "mi-SVM" differ only in case. The old names ``MISVMClassifier``
(= :class:`BagMISVMClassifier`) and ``MiSVMClassifier`` (= :class:`InstanceMISVMClassifier`)
remain importable as aliases; the solver configs are ``misvm_bag`` and ``misvm_instance``.

Weka's class is named after the wrong one: ``weka.classifiers.mi.MISVM``, the MIRSVM paper's
"MISVM" comparator, implements the **instance-level** algorithm -- its documentation calls it
Andrews' mi_SVM: every instance starts with its bag's label and the positive-bag instances
are relabelled from the SVM output until the labels stop changing -- i.e.
:class:`InstanceMISVMClassifier`, not the bag-level :class:`BagMISVMClassifier` its name
suggests. It wraps Weka's SMO, which by default rescales every attribute to [0, 1] and uses
its own kernel parameterisation (a linear ``PolyKernel`` unless told otherwise); here the data
are taken as given (the runner's preprocessing applies) and the kernel is sigma-parameterised
like MIRSVM's. The real Weka classifier is available through the ``weka_misvm`` config
(:class:`~svmlab.estimators.mil.weka.WekaMIClassifier`).

References
----------
S. Andrews, I. Tsochantaridis, T. Hofmann. Support vector machines for multiple-instance
learning. NIPS 15 (2002) 561-568.
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import row_norms

from svmlab.estimators.mil._bags import (
    MaxInstanceMixin,
    bag_argmax,
    check_binary_bags,
)
from svmlab.kernels import gamma_from_sigma, rbf, rbf_expansion
from svmlab.qp import solve_svm_dual

__all__ = [
    "BagMISVMClassifier",
    "InstanceMISVMClassifier",
    "MISVMClassifier",
    "MiSVMClassifier",
]


# ------------------------------------------------------------------------------------------
# parameters and base class of MI-SVM and mi-SVM
# ------------------------------------------------------------------------------------------


_COMMON_CONSTRAINTS: dict = {
    "C": [Interval(Real, 0.0, None, closed="neither")],
    "sigma": [Interval(Real, 0.0, None, closed="neither")],
    "gamma": [Interval(Real, 0.0, None, closed="neither"), None],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0.0, None, closed="neither")],
    "qp_solver": [StrOptions({"auto", "smo", "libsvm"})],
    "max_kernel_size": [Interval(Integral, 1, None, closed="left")],
}


def _relabel_positive_bags(f, p_bag_of, p_starts, pos_sizes):
    """mi-SVM's labels of the positive-bag instances from their outputs ``f``: the sign of
    ``f`` (``f > 0`` -> +1), and in every positive bag left without a positive instance its
    highest-scoring instance +1 (at least one positive per positive bag)."""
    new_pos = np.where(f > 0, 1.0, -1.0)
    has_pos = np.bincount(p_bag_of, weights=(new_pos > 0), minlength=len(pos_sizes)) > 0
    if not has_pos.all():
        best = bag_argmax(f, p_starts, pos_sizes)
        new_pos[best[~has_pos]] = 1.0
    return new_pos


def _refresh_kernel(K, Z, rows_idx, gamma) -> None:
    """New rows / columns of the examples' kernel ``K`` for the examples ``rows_idx`` of ``Z``."""
    sq_all = row_norms(Z, squared=True)
    rows = rbf(Z[rows_idx], Z, gamma, X_sq=sq_all[rows_idx], Y_sq=sq_all)
    K[rows_idx, :] = rows
    K[:, rows_idx] = rows.T


class _InstanceSVMBase(MaxInstanceMixin, ClassifierMixin, BaseEstimator):
    """Shared parameters, the QP call and bag prediction of MI-SVM and mi-SVM."""

    _parameter_constraints: dict = dict(_COMMON_CONSTRAINTS)
    _name = "instance SVM"

    def __init__(
        self,
        C: float = 1.0,
        sigma: float = 1.0,
        gamma: float | None = None,
        max_iter: int = 50,
        tol: float = 1e-3,
        qp_solver: str = "auto",
        max_kernel_size: int = 6000,
    ):
        self.C = C
        self.sigma = sigma
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.qp_solver = qp_solver
        self.max_kernel_size = max_kernel_size

    def _gamma_value(self) -> float:
        return float(self.gamma) if self.gamma is not None else gamma_from_sigma(self.sigma)

    def _use_libsvm(self, n_examples: int) -> bool:
        return self.qp_solver == "libsvm" or (
            self.qp_solver == "auto" and n_examples > self.max_kernel_size
        )

    def _train(self, Z, yz, gamma, K, previous):
        """One SVM on examples ``Z`` with labels ``yz`` (+-1).

        Returns ``(alpha, b, sol_or_None, n_iter)``: ``alpha`` over all rows of ``Z``.
        ``K`` is the precomputed kernel (SMO path) or ``None`` (LIBSVM path).
        """
        if K is not None:
            sol = solve_svm_dual(
                K, yz, float(self.C), warm_start=previous, tol=self.tol, method="smo"
            )
            return sol.alpha, float(sol.intercept), sol, int(sol.n_iter), bool(sol.converged)
        from sklearn.svm import SVC

        svc = SVC(kernel="rbf", gamma=gamma, C=float(self.C), tol=self.tol, cache_size=500).fit(
            Z, yz
        )
        alpha = np.zeros(len(yz))
        alpha[svc.support_] = np.abs(svc.dual_coef_[0])
        return alpha, float(svc.intercept_[0]), None, int(svc.n_iter_[0]), True

    def _store_model(self, Z, yz, alpha, b, gamma):
        sv = alpha > 1e-8 * float(self.C)
        self._gamma = gamma
        self.support_vectors_ = Z[sv].copy()
        self.dual_coef_ = (alpha * yz)[sv]
        self.intercept_ = float(b)
        self.n_support_ = np.array([np.sum(sv & (yz < 0)), np.sum(sv & (yz > 0))], dtype=np.int32)
        self.model_size_ = int(sv.sum())

    def _run_info(self, stop, changed_per_iter, qp_iter, converged_qp, t_start, libsvm, gamma):
        """The ``fit_info_`` entries both alternations share (the sizes are added by each)."""
        return {
            "iterations": int(self.n_iter_),
            "converged": stop == "converged",
            "stop": stop,
            "changed_per_iter": changed_per_iter,
            "qp_iterations": int(qp_iter),
            "qp_converged": bool(converged_qp),
            "seconds": float(time.perf_counter() - t_start),
            "qp_solver": "libsvm" if libsvm else "smo",
            "gamma": float(gamma),
        }

    # -- prediction ------------------------------------------------------------------------

    def _instance_scores(self, X):
        return rbf_expansion(
            X, self.support_vectors_, self.dual_coef_, self.intercept_, self._gamma
        )


_PARAMS_DOC = """
    Parameters
    ----------
    C : float, default=1.0
        Penalty of the hinge loss; > 0. The paper's grid: {0.1, 1, 10, 100, 1e3, 1e4}.
    sigma : float, default=1.0
        Width of the Gaussian kernel ``exp(-||x - x'||^2 / (2 sigma^2))``
        (``gamma = 1 / (2 sigma^2)``). The paper's grid: {0.1, 0.5, 1, 2, 5, 10}.
    gamma : float or None, default=None
        The same kernel as ``exp(-gamma ||x - x'||^2)``; when set, ``sigma`` is ignored.
    max_iter : int, default=50
        Cap on the number of alternations (SVMs trained). Reaching it raises a
        ``ConvergenceWarning``.
    tol : float, default=1e-3
        KKT tolerance of each SVM (LIBSVM's ``eps``).
    qp_solver : {"auto", "smo", "libsvm"}, default="auto"
        ``"smo"``: :func:`svmlab.qp.solve_svm_dual` on a precomputed kernel, warm-started
        across iterations. ``"libsvm"``: ``sklearn.svm.SVC(kernel="rbf")`` on the
        instances, no kernel matrix stored. ``"auto"``: SMO up to ``max_kernel_size``
        training examples, LIBSVM above.
    max_kernel_size : int, default=6000
        The switch point of ``qp_solver="auto"`` (a 6000 x 6000 kernel is 288 MB).
"""


class BagMISVMClassifier(_InstanceSVMBase):
    __doc__ = (
        """MI-SVM (Andrews et al. 2002): a bag-level margin with one witness per positive bag.

    Not what Weka's ``weka.classifiers.mi.MISVM`` does: despite its name, Weka's class is the
    instance-level mi-SVM (:class:`InstanceMISVMClassifier`). Alias: ``MISVMClassifier``.

    Alternates (1) an SVM on all negative-bag instances (label -1) and one witness per
    positive bag (label +1), and (2) re-selecting every positive bag's witness as its instance
    with the largest decision value. The first SVM uses the positive bags' means as witnesses.
    Stops when the selected witnesses no longer change, when a previous witness set returns
    (a cycle) or at ``max_iter``.
    """
        + _PARAMS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    witness_ : ndarray of shape (n_bags,)
        For each positive training bag, the index within the bag of its witness under the
        final model (its instance with the largest output; at convergence the witness the
        final SVM was trained on); -1 for negative bags.
    support_vectors_, dual_coef_, intercept_
        The instance-level SVM: ``f(x) = sum_j dual_coef_j K(sv_j, x) + intercept_``.
    n_support_ : ndarray of shape (2,)
        Support vectors (negative, positive); at most one positive per positive bag.
    model_size_ : int
        Number of support vectors.
    n_iter_ : int
        SVMs trained.
    fit_info_ : dict
        ``iterations``, ``converged``, ``stop`` ("converged", "cycle", "max_iter"),
        ``changed_per_iter`` (witnesses that changed after each SVM; the first entry counts
        every positive bag, whose initial witness is the mean), ``qp_iterations``,
        ``seconds``, ``qp_solver``, ``gamma``, ``n_bags``, ``n_instances``, ``n_examples``.
    """
    )

    _name = "MI-SVM"

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Fit MI-SVM.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` (the larger) is the positive class.

        Returns
        -------
        self : object
        """
        t_start = time.perf_counter()
        X, starts, sizes, self.classes_, Y = check_binary_bags(self._name, bags, y)
        self.n_features_in_ = X.shape[1]
        gamma = self._gamma_value()
        bag_of = np.repeat(np.arange(len(sizes)), sizes)
        neg_rows = np.flatnonzero(Y[bag_of] < 0)
        pos_bags = np.flatnonzero(Y > 0)
        pos_rows = np.flatnonzero(Y[bag_of] > 0)
        p_starts = np.concatenate([[0], np.cumsum(sizes[pos_bags])[:-1]]).astype(np.intp)
        n_neg, n_pos = len(neg_rows), len(pos_bags)

        # initial witnesses: the positive bags' means
        means = np.add.reduceat(X[pos_rows], p_starts, axis=0) / sizes[pos_bags][:, None]
        Z = np.vstack([X[neg_rows], means])
        yz = np.r_[-np.ones(n_neg), np.ones(n_pos)]
        libsvm = self._use_libsvm(len(yz))
        K = None
        if not libsvm:
            sq = row_norms(Z, squared=True)
            K = rbf(Z, Z, gamma, X_sq=sq, Y_sq=sq)

        witness = np.full(n_pos, -1, dtype=np.intp)  # row within X[pos_rows]
        seen: set[bytes] = set()
        changed_per_iter: list[int] = []
        previous, qp_iter, stop, converged_qp = None, 0, "max_iter", True
        for it in range(self.max_iter):
            alpha, b, previous, n_qp, ok = self._train(Z, yz, gamma, K, previous)
            qp_iter += n_qp
            converged_qp &= ok
            sv = alpha > 1e-8 * float(self.C)
            f = rbf_expansion(X[pos_rows], Z[sv], (alpha * yz)[sv], b, gamma)
            new = bag_argmax(f, p_starts, sizes[pos_bags])
            changed = np.flatnonzero(new != witness)
            changed_per_iter.append(int(len(changed)))
            if len(changed) == 0:
                stop = "converged"
                break
            key = new.tobytes()
            if key in seen:
                stop = "cycle"
                break
            if it + 1 == self.max_iter:
                break  # keep the SVM consistent with the examples it was trained on
            seen.add(key)
            witness = new
            Z[n_neg + changed] = X[pos_rows[new[changed]]]
            if K is not None:
                _refresh_kernel(K, Z, n_neg + changed, gamma)
        if stop == "max_iter":
            warnings.warn(  # noqa: B028 (about this fit, not the caller's line)
                f"MI-SVM: the witnesses still changed after max_iter={self.max_iter} iterations",
                ConvergenceWarning,
            )
        self._store_model(Z, yz, alpha, b, gamma)
        w = np.full(len(sizes), -1, dtype=np.intp)
        w[pos_bags] = new - p_starts
        self.witness_ = w
        self.n_iter_ = len(changed_per_iter)
        self.fit_info_ = self._run_info(
            stop, changed_per_iter, qp_iter, converged_qp, t_start, libsvm, gamma
        )
        self.fit_info_.update(
            n_bags=int(len(sizes)), n_instances=int(X.shape[0]), n_examples=int(len(yz))
        )
        return self


class InstanceMISVMClassifier(_InstanceSVMBase):
    __doc__ = (
        """mi-SVM (Andrews et al. 2002): positive bags' instance labels, inferred by alternation.

    This is the algorithm of Weka's ``weka.classifiers.mi.MISVM`` (relabel until stable),
    despite that class's upper-case name. Alias: ``MiSVMClassifier``.

    Negative-bag instances are labelled -1 throughout; positive-bag instances start at +1.
    Each iteration trains an SVM on all instances, relabels every positive-bag instance with
    the sign of its decision value (``f > 0`` -> +1) and, in every positive bag left without
    a positive instance, labels its highest-scoring instance +1 (at least one positive per
    positive bag). Stops when the labels no longer change, on a cycle, or at ``max_iter``.
    """
        + _PARAMS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    instance_labels_ : ndarray of shape (n_instances,)
        The final imputed instance labels (+1 / -1), training bags stacked in order; the
        final SVM was trained on them. Every positive bag has at least one +1.
    support_vectors_, dual_coef_, intercept_, n_support_, model_size_
        The instance-level SVM, as in :class:`BagMISVMClassifier`.
    n_iter_ : int
        SVMs trained.
    fit_info_ : dict
        ``iterations``, ``converged``, ``stop``, ``changed_per_iter`` (instance labels changed
        after each SVM), ``qp_iterations``, ``seconds``, ``qp_solver``, ``gamma``, ``n_bags``,
        ``n_instances``, ``n_examples``.
    """
    )

    _name = "mi-SVM"

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Fit mi-SVM.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` (the larger) is the positive class.

        Returns
        -------
        self : object
        """
        t_start = time.perf_counter()
        X, starts, sizes, self.classes_, Y = check_binary_bags(self._name, bags, y)
        self.n_features_in_ = X.shape[1]
        gamma = self._gamma_value()
        bag_of = np.repeat(np.arange(len(sizes)), sizes)
        pos_bags = np.flatnonzero(Y > 0)
        pos_rows = np.flatnonzero(Y[bag_of] > 0)
        p_starts = np.concatenate([[0], np.cumsum(sizes[pos_bags])[:-1]]).astype(np.intp)
        p_bag_of = np.repeat(np.arange(len(pos_bags)), sizes[pos_bags])

        labels = Y[bag_of].copy()  # positive-bag instances start positive
        libsvm = self._use_libsvm(X.shape[0])
        K = None
        if not libsvm:
            sq = row_norms(X, squared=True)
            K = rbf(X, X, gamma, X_sq=sq, Y_sq=sq)  # the inputs never change, only the labels

        seen: set[bytes] = {labels.tobytes()}
        changed_per_iter: list[int] = []
        previous, qp_iter, stop, converged_qp = None, 0, "max_iter", True
        for it in range(self.max_iter):
            alpha, b, previous, n_qp, ok = self._train(X, labels, gamma, K, previous)
            qp_iter += n_qp
            converged_qp &= ok
            if K is not None:
                f = K[pos_rows] @ (alpha * labels) + b
            else:
                sv = alpha > 0
                f = rbf_expansion(X[pos_rows], X[sv], (alpha * labels)[sv], b, gamma)
            new = labels.copy()
            new[pos_rows] = _relabel_positive_bags(f, p_bag_of, p_starts, sizes[pos_bags])
            n_changed = int(np.sum(new != labels))
            changed_per_iter.append(n_changed)
            if n_changed == 0:
                stop = "converged"
                break
            key = new.tobytes()
            if key in seen:
                stop = "cycle"
                break
            if it + 1 == self.max_iter:
                break
            seen.add(key)
            labels = new
        if stop == "max_iter":
            warnings.warn(  # noqa: B028 (about this fit, not the caller's line)
                f"mi-SVM: the instance labels still changed after max_iter={self.max_iter} "
                "iterations",
                ConvergenceWarning,
            )
        self._store_model(X, labels, alpha, b, gamma)
        self.instance_labels_ = labels.astype(np.int8)
        self.n_iter_ = len(changed_per_iter)
        self.fit_info_ = self._run_info(
            stop, changed_per_iter, qp_iter, converged_qp, t_start, libsvm, gamma
        )
        self.fit_info_.update(
            n_bags=int(len(sizes)), n_instances=int(X.shape[0]), n_examples=int(X.shape[0])
        )
        return self


# The names before the rename (kept importable; "MISVM" and "miSVM" differ only in case).
MISVMClassifier = BagMISVMClassifier
MiSVMClassifier = InstanceMISVMClassifier
