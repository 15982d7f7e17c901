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
  bag would be left without a positive instance, its instance(s) with the largest decision
  value are forced positive (the at-least-one-positive constraint). The labels are updated
  until they stop changing. With its defaults it is Weka 3.6.14's ``weka.classifiers.mi.MISVM``
  (see below).

The QPs are kernel SVM duals with a bias, solved by :func:`svmlab.qp.solve_svm_dual` (SMO,
warm-started from the previous iteration's ``alpha``) on the Gaussian kernel
``exp(-||x - x'||^2 / (2 sigma^2))`` (mi-SVM: or the linear kernel). That needs the kernel over
the training examples (MI-SVM: negative instances + one witness per positive bag; mi-SVM: all
instances). Above ``max_kernel_size`` examples (``qp_solver="auto"``), LIBSVM
(``sklearn.svm.SVC``, which caches kernel rows instead of storing the matrix) is used instead,
without warm starts.

The names: the class names say which margin is meant (``Bag`` / ``Instance``), because the
paper's spellings "MI-SVM" and "mi-SVM" differ only in case; the solver configs are
``misvm_bag`` and ``misvm_instance``.

Weka's class is named after the wrong one: ``weka.classifiers.mi.MISVM``, the MIRSVM paper's
"MISVM" comparator, implements the **instance-level** algorithm -- its documentation calls it
Andrews' mi_SVM: every instance starts with its bag's label and the positive-bag instances
are relabelled from the SVM output until the labels stop changing -- i.e.
:class:`InstanceMISVMClassifier`, not the bag-level :class:`BagMISVMClassifier` its name
suggests. :class:`InstanceMISVMClassifier`'s defaults are Weka 3.6.14's MISVM with its default
options (``-C 1 -N 0 -I 500``, linear ``PolyKernel``): the attributes rescaled to [0, 1] on the
training instances, at most 500 SVMs, relabelling by the sign of the output (``f > 0`` ->
positive), in a positive bag left without a positive instance every instance sharing the
largest output made positive, a bag positive when one of its instances has ``f > 0``. The real
Weka classifier is available through the ``weka_misvm_instance`` config
(:class:`~svmlab.estimators.mil.weka.WekaMIClassifier`). :class:`BagMISVMClassifier` keeps the
Gaussian kernel on the data as given.

References
----------
S. Andrews, I. Tsochantaridis, T. Hofmann. Support vector machines for multiple-instance
learning. NIPS 15 (2002) 561-568.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.extmath import row_norms

from svmlab._sklearn_compat import StrOptions, _fit_context
from svmlab.estimators.mil._bags import (
    _InstanceSVMBase,
    apply_scaling,
    bag_argmax,
    check_binary_bags,
    fit_scaling,
)
from svmlab.kernels import rbf, rbf_expansion

__all__ = [
    "BagMISVMClassifier",
    "InstanceMISVMClassifier",
]


def _relabel_positive_bags(f, p_bag_of, p_starts, pos_sizes):
    """mi-SVM's labels of the positive-bag instances from their outputs ``f``: the sign of
    ``f`` (``f > 0`` -> +1), and in every positive bag left without a positive instance its
    highest-scoring instances +1 (all of them on a tie, as Weka's MISVM does; at least one
    positive per positive bag)."""
    new_pos = np.where(f > 0, 1.0, -1.0)
    has_pos = np.bincount(p_bag_of, weights=(new_pos > 0), minlength=len(pos_sizes)) > 0
    if not has_pos.all():
        top = np.maximum.reduceat(f, p_starts)
        new_pos[(f == top[p_bag_of]) & ~has_pos[p_bag_of]] = 1.0
    return new_pos


def _refresh_kernel(K, Z, rows_idx, gamma) -> None:
    """New rows / columns of the examples' kernel ``K`` for the examples ``rows_idx`` of ``Z``."""
    sq_all = row_norms(Z, squared=True)
    rows = rbf(Z[rows_idx], Z, gamma, X_sq=sq_all[rows_idx], Y_sq=sq_all)
    K[rows_idx, :] = rows
    K[:, rows_idx] = rows.T


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
    instance-level mi-SVM (:class:`InstanceMISVMClassifier`).

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
    """mi-SVM (Andrews et al. 2002): positive bags' instance labels, inferred by alternation.

    With its defaults this is Weka 3.6.14's ``weka.classifiers.mi.MISVM`` with its default
    options (``-C 1 -N 0 -I 500``, linear ``PolyKernel``), despite that class's upper-case
    name; ``kernel="rbf"`` with ``C`` and ``sigma`` is ``-C C -K
    "weka.classifiers.functions.supportVector.RBFKernel -G g"`` with ``g = 1 / (2 sigma^2)``.

    Negative-bag instances are labelled -1 throughout; positive-bag instances start at +1
    (their bag's label). Each iteration trains an SVM on all instances, relabels every
    positive-bag instance with the sign of its decision value (``f > 0`` -> +1, ``f <= 0`` ->
    -1) and, in every positive bag left without a positive instance, labels its
    highest-scoring instance(s) +1 (all of them on a tie). Stops when the labels no longer
    change or after ``max_iter`` SVMs; the model is the last SVM trained. A bag is predicted
    ``classes_[1]`` when one of its instances has ``f > 0``.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the hinge loss; > 0 (Weka's ``-C``). The paper's grid:
        {0.1, 1, 10, 100, 1e3, 1e4}.
    kernel : {"linear", "rbf"}, default="linear"
        ``"linear"``: ``<x, x'>`` (Weka's default ``PolyKernel``, exponent 1). ``"rbf"``:
        ``exp(-||x - x'||^2 / (2 sigma^2))`` (Weka's ``RBFKernel``).
    sigma : float, default=1.0
        Width of the Gaussian kernel (``gamma = 1 / (2 sigma^2)``); used by ``kernel="rbf"``
        only. The paper's grid: {0.1, 0.5, 1, 2, 5, 10}.
    gamma : float or None, default=None
        The Gaussian as ``exp(-gamma ||x - x'||^2)`` (Weka's ``-G``); when set, ``sigma`` is
        ignored.
    scaling : {"minmax", "none"}, default="minmax"
        ``"minmax"``: rescale every feature to [0, 1] with the training instances' minimum
        and maximum (Weka's ``-N 0``; a feature constant in training becomes 0).
        ``"none"``: take the features as given (``-N 2``).
    max_iter : int, default=500
        Cap on the number of SVMs trained (Weka's ``-I``). Reaching it with labels that still
        change raises a ``ConvergenceWarning``.
    on_cycle : {"continue", "stop"}, default="continue"
        What happens when the labels return to an earlier state (the alternation is then
        periodic and never settles). ``"continue"``: the result is the model the alternation
        would hold after ``max_iter`` SVMs, as Weka, which has no cycle test, returns; it is
        read off the cycle without training the remaining SVMs. ``"stop"``: stop at once and
        keep the SVM just trained.
    tol : float, default=2e-3
        KKT tolerance of each SVM: the maximal violating pair gap (LIBSVM's ``eps``). Weka's
        SMO stops at a gap of ``2 L`` for its tolerance ``-L L`` (default 1e-3), so the
        default equals Weka's.
    qp_solver : {"auto", "smo", "libsvm"}, default="auto"
        ``"smo"``: :func:`svmlab.qp.solve_svm_dual` on a precomputed kernel, warm-started
        across iterations. ``"libsvm"``: ``sklearn.svm.SVC`` on the instances, no kernel
        matrix stored. ``"auto"``: SMO up to ``max_kernel_size`` instances, LIBSVM above.
    max_kernel_size : int, default=6000
        The switch point of ``qp_solver="auto"`` (a 6000 x 6000 kernel is 288 MB).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    instance_labels_ : ndarray of shape (n_instances,)
        The instance labels (+1 / -1) the final SVM was trained on, training bags stacked in
        order. Every positive bag has at least one +1.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Support vectors, in the rescaled feature space.
    dual_coef_, intercept_
        The instance-level SVM: ``f(x) = sum_j dual_coef_j K(sv_j, x') + intercept_`` with
        ``x'`` the rescaled ``x``.
    n_support_ : ndarray of shape (2,)
        Support vectors (negative, positive).
    model_size_ : int
        Number of support vectors.
    n_iter_ : int
        SVMs trained.
    fit_info_ : dict
        ``iterations`` (SVMs trained), ``equivalent_iterations`` (the SVMs Weka trains for
        the same result: ``max_iter`` after a cycle), ``converged``, ``stop``
        ("converged", "cycle", "max_iter"), ``cycle_length`` (0 without a cycle),
        ``changed_per_iter`` (instance labels changed after each SVM), ``qp_iterations``,
        ``seconds``, ``qp_solver``, ``gamma``, ``n_bags``, ``n_instances``, ``n_examples``.
    """

    _parameter_constraints: dict = {
        **_InstanceSVMBase._parameter_constraints,
        "kernel": [StrOptions({"linear", "rbf"})],
        "scaling": [StrOptions({"minmax", "none"})],
        "on_cycle": [StrOptions({"continue", "stop"})],
    }
    _name = "mi-SVM"

    def __init__(
        self,
        C: float = 1.0,
        kernel: str = "linear",
        sigma: float = 1.0,
        gamma: float | None = None,
        scaling: str = "minmax",
        max_iter: int = 500,
        on_cycle: str = "continue",
        tol: float = 2e-3,
        qp_solver: str = "auto",
        max_kernel_size: int = 6000,
    ):
        super().__init__(
            C=C,
            sigma=sigma,
            gamma=gamma,
            max_iter=max_iter,
            tol=tol,
            qp_solver=qp_solver,
            max_kernel_size=max_kernel_size,
        )
        self.kernel = kernel
        self.scaling = scaling
        self.on_cycle = on_cycle

    def _scale(self, X):
        return apply_scaling(X, self._offset, self._factor)

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
        self._offset, self._factor = fit_scaling(X, self.scaling)
        X = self._scale(X)
        linear = self.kernel == "linear"
        gamma = self._gamma_value()
        libsvm = self._use_libsvm(X.shape[0])
        K = None
        if not libsvm:  # the inputs never change, only the labels
            if linear:
                K = X @ X.T
            else:
                sq = row_norms(X, squared=True)
                K = rbf(X, X, gamma, X_sq=sq, Y_sq=sq)
        run = self._alternate(X, Y, sizes, gamma, K, linear)
        if run["stop"] == "max_iter":
            warnings.warn(  # noqa: B028 (about this fit, not the caller's line)
                f"mi-SVM: the instance labels still changed after max_iter={self.max_iter} "
                "iterations",
                ConvergenceWarning,
            )
        self._store_final(X, run["models"][run["final"]], run["states"][run["final"]], gamma)
        self.n_iter_ = len(run["changed_per_iter"])
        self.fit_info_ = self._run_info(
            run["stop"],
            run["changed_per_iter"],
            run["qp_iter"],
            run["converged_qp"],
            t_start,
            libsvm,
            gamma,
        )
        self.fit_info_.update(
            equivalent_iterations=int(self.max_iter if run["continued"] else self.n_iter_),
            cycle_length=int(run["cycle"]),
            n_bags=int(len(sizes)),
            n_instances=int(X.shape[0]),
            n_examples=int(X.shape[0]),
        )
        return self

    def _alternate(self, X, Y, sizes, gamma, K, linear) -> dict:
        """mi-SVM's alternation: train an SVM, relabel the positive bags' instances, until the
        labels settle, cycle or ``max_iter`` SVMs are trained.

        Returns ``states`` (``states[k]``: the labels the (k+1)-th SVM is trained on),
        ``models`` (``models[k]``: that SVM as ``(support rows, coefficients, b)``), ``final``
        (the index of the result), ``stop``, ``cycle`` (its period, 0 without one),
        ``continued`` (the result read off a cycle), ``changed_per_iter``, ``qp_iter`` and
        ``converged_qp``.
        """
        bag_of = np.repeat(np.arange(len(sizes)), sizes)
        pos_bags = np.flatnonzero(Y > 0)
        pos_rows = np.flatnonzero(Y[bag_of] > 0)
        p_starts = np.concatenate([[0], np.cumsum(sizes[pos_bags])[:-1]]).astype(np.intp)
        p_bag_of = np.repeat(np.arange(len(pos_bags)), sizes[pos_bags])

        labels = Y[bag_of].copy()  # every instance starts with its bag's label
        states: list[np.ndarray] = [labels]
        models: list[tuple] = []
        seen: dict[bytes, int] = {labels.tobytes(): 0}
        changed_per_iter: list[int] = []
        previous, qp_iter, stop, converged_qp, cycle = None, 0, "max_iter", True, 0
        final, continued = None, False
        for it in range(self.max_iter):
            alpha, b, previous, n_qp, ok = self._train(
                X, labels, gamma, K, previous, kernel="linear" if linear else "rbf"
            )
            qp_iter += n_qp
            converged_qp &= ok
            sv = np.flatnonzero(alpha > 0)
            models.append((sv, alpha[sv] * labels[sv], b))
            if K is not None:
                f = K[np.ix_(pos_rows, sv)] @ models[-1][1] + b
            elif linear:
                f = X[pos_rows] @ (models[-1][1] @ X[sv]) + b
            else:
                f = rbf_expansion(X[pos_rows], X[sv], models[-1][1], b, gamma)
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
                first = seen[key]  # states[first] == new: period len(states) - first
                cycle = len(states) - first
                if self.on_cycle == "continue":
                    # the SVM number max_iter would be trained on states[final]
                    final = first + (self.max_iter - 1 - first) % cycle
                    continued = True
                break
            if it + 1 == self.max_iter:
                break
            seen[key] = len(states)
            states.append(new)
            labels = new
        if final is None:
            final = len(models) - 1
        return {
            "states": states,
            "models": models,
            "final": final,
            "stop": stop,
            "cycle": cycle,
            "continued": continued,
            "changed_per_iter": changed_per_iter,
            "qp_iter": qp_iter,
            "converged_qp": converged_qp,
        }

    def _store_final(self, X, model, labels, gamma):
        """The fitted attributes of the SVM ``model`` trained on the instance ``labels``."""
        sv, coef, b = model
        self._gamma = gamma
        self.support_vectors_ = X[sv].copy()
        self.dual_coef_ = coef
        self.intercept_ = float(b)
        self._coef = coef @ self.support_vectors_ if self.kernel == "linear" else None
        self.n_support_ = np.array([np.sum(labels[sv] < 0), np.sum(labels[sv] > 0)], dtype=np.int32)
        self.model_size_ = int(len(sv))
        self.instance_labels_ = labels.astype(np.int8)

    def _instance_scores(self, X):
        X = self._scale(X)
        if self._coef is not None:
            return X @ self._coef + self.intercept_
        return rbf_expansion(
            X, self.support_vectors_, self.dual_coef_, self.intercept_, self._gamma
        )
