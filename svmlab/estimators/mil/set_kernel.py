"""Bag-kernel SVMs: the set kernel of Gärtner et al. (2002) as in Weka 3.6's MISMO.

A bag-level kernel turns a multi-instance problem into an ordinary kernel SVM over bags.
:class:`SetKernelSVC` uses the set kernel, the sum of an instance kernel over all pairs of
instances of two bags,

    k_set(X, X') = sum_{x in X} sum_{x' in X'} k(x, x'),

with ``k`` the linear kernel ``<x, x'>`` (Weka's default ``MIPolyKernel``, exponent 1) or the
Gaussian ``exp(-gamma ||x - x'||^2)`` (Weka's ``MIRBFKernel``), and trains the soft-margin
SVM dual with a bias on the ``n_bags x n_bags`` bag kernel with
:func:`svmlab.qp.solve_svm_dual`. The bag kernel is accumulated over blocks of instance rows:
the instance-level kernel is never held as a whole.

With its defaults :class:`SetKernelSVC` is Weka 3.6.14's ``weka.classifiers.mi.MISMO`` (no
``-M``): every attribute rescaled to [0, 1] with the training instances' minimum and maximum
(``-N 0``), the *unnormalised* set kernel without the third feature (Weka's MI kernels skip
it), every bag's box constraint ``C`` times the mean training bag size (MISMO's propositional
round trip gives every bag that weight, and Weka's SMO bounds ``alpha_i`` by
``C * weight_i``), and Weka's SMO iterate (``smo="weka"``). ``normalize=True`` (the
cosine normalisation ``k / sqrt(k(X, X) k(X', X'))`` recommended by Gärtner et al.),
``scaling="none"``, ``bag_weight="none"``, ``kernel_features="all"`` and ``smo="svmlab"``
are the named departures from Weka.

:class:`BagKernelSVCBase` (shared with :class:`svmlab.estimators.mil.MiGraphClassifier`)
implements the generic *weighted* bag kernel
``k(X, X') = sum_a sum_b w_a w'_b k(x_a, x'_b)`` followed by a normalisation.

References
----------
T. Gärtner, P. A. Flach, A. Kowalczyk, A. J. Smola. Multi-instance kernels. ICML 2002, 179-186.
"""

from __future__ import annotations

import time
from abc import ABCMeta, abstractmethod
from numbers import Real
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.extmath import row_norms
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract, RowValue
from svmlab.estimators._path import fit_along_path
from svmlab.estimators.mil._bags import (
    BagClassifierMixin,
    check_bags,
    check_binary_bags,
)
from svmlab.estimators.weka.kernel_smo import weka_bag_order, weka_kernel_smo
from svmlab.estimators.weka.mi_kernels import weka_bag_kernel, weka_bag_rows
from svmlab.estimators.weka.smo import weka_normalize
from svmlab.kernels import gamma_from_sigma, rbf
from svmlab.qp import solve_svm_dual

__all__ = [
    "BagKernelSVCBase",
    "SetKernelSVC",
    "weighted_bag_kernel",
]

_BLOCK_BYTES = 64 * 2**20

#: The instance feature Weka 3.6.14's MI kernels leave out: ``Kernel.dotProd`` skips the
#: attribute at the class index of the bag data set (bag id, bag, class), i.e. column 2.
_WEKA_SKIPPED_FEATURE = 2
#: MISMO's defaults ``-W 1`` (seed of the bag shuffle) and ``-P 1.0E-12`` (round-off epsilon).
_WEKA_SEED = 1
_WEKA_EPS = 1e-12


def weighted_bag_kernel(X, starts, w, Y, starts_Y, w_Y, gamma: float) -> np.ndarray:
    """``K[I, J] = sum_{a in I} sum_{b in J} w_a w'_b exp(-gamma ||x_a - y_b||^2)``.

    Parameters
    ----------
    X, Y : ndarray of shape (n_instances, d)
        Instances stacked bag after bag.
    starts, starts_Y : ndarray
        First row of each bag (``check_bags``).
    w, w_Y : ndarray of shape (n_instances,)
        Instance weights.
    gamma : float
        Gaussian kernel precision.

    Returns
    -------
    ndarray of shape (n_bags_X, n_bags_Y)

    Notes
    -----
    Rows of ``X`` are processed in chunks of whole bags holding about 64 MB of instance
    kernel values (a single bag larger than that is one chunk).
    """
    n_X, n_Y = len(starts), len(starts_Y)
    out = np.empty((n_X, n_Y))
    if n_X == 0 or n_Y == 0:
        return out
    Y_sq = row_norms(Y, squared=True)
    X_sq = row_norms(X, squared=True)
    ends = np.r_[starts[1:], X.shape[0]]
    max_rows = max(1, _BLOCK_BYTES // (8 * Y.shape[0]))
    first = 0
    while first < n_X:
        last = first + 1  # exclusive; grow the chunk while it stays within budget
        while last < n_X and ends[last] - starts[first] <= max_rows:
            last += 1
        rows = slice(starts[first], ends[last - 1])
        Kb = rbf(X[rows], Y, gamma, X_sq=X_sq[rows], Y_sq=Y_sq)
        Kb *= w_Y
        Kb = np.add.reduceat(Kb, starts_Y, axis=1)  # (chunk instances, n_Y)
        Kb *= w[rows, None]
        out[first:last] = np.add.reduceat(Kb, starts[first:last] - starts[first], axis=0)
        first = last
    return out


def weka_bag_weights(sizes) -> np.ndarray:
    """The bag weights MISMO's round trip through instances gives (each about the mean size).

    ``MultiInstanceToPropositional`` (weight method 3) gives every instance of a bag of
    ``m`` instances the weight ``N / (n m)`` (``N`` instances, ``n`` bags) and
    ``PropositionalToMultiInstance`` gives the bag the running sum of its instances'
    weights, which equals ``N / n`` only up to rounding: Weka's boxes ``C * weight`` differ
    between bag sizes in the last bits, and its SMO compares alphas with them exactly.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    n_inst, n_bags = float(np.sum(sizes)), int(len(sizes))
    weights = {}
    for m in np.unique(sizes):
        w = n_inst / float(n_bags * int(m))
        total = w
        for _ in range(int(m) - 1):
            total += w
        weights[int(m)] = total
    return np.array([weights[int(m)] for m in sizes])


def _bag_sums(X, starts, w) -> np.ndarray:
    """``sum_a w_a x_a`` of every bag (the feature map of the linear set kernel)."""
    return np.add.reduceat(X * w[:, None], starts, axis=0)


def _self_kernel(X, starts, sizes, w, gamma) -> np.ndarray:
    """Diagonal ``k(X_I, X_I)`` of the weighted bag kernel, one bag at a time."""
    diag = np.empty(len(starts))
    for i, (s, m) in enumerate(zip(starts, sizes)):
        B = X[s : s + m]
        wb = w[s : s + m]
        diag[i] = wb @ rbf(B, B, gamma) @ wb
    return diag


class BagKernelSVCBase(BagClassifierMixin, ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """A soft-margin SVM over bags with a weighted, normalised bag kernel.

    Subclasses define ``_instance_weights(X, starts, sizes) -> w`` and
    ``_normalise(K, a_rows, a_cols)`` with the per-bag statistic ``_bag_stat(...)``.
    """

    svmlab_contract = Contract(
        input="bags",
        path_parameter="C",
        path_simpler="min",
        row_values={"dual_objective": RowValue("objective", "max")},
    )
    #: Fitted attributes of the kernel part of ``fit`` (preprocessing, width), shared by the
    #: models of a ``C`` path.
    _kernel_attributes: tuple[str, ...] = ("_gamma",)

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "sigma": [Interval(Real, 0.0, None, closed="neither")],
        "gamma": [Interval(Real, 0.0, None, closed="neither"), None],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
    }
    _name = "bag-kernel SVM"

    def __init__(
        self, C: float = 1.0, sigma: float = 1.0, gamma: float | None = None, tol: float = 1e-3
    ):
        self.C = C
        self.sigma = sigma
        self.gamma = gamma
        self.tol = tol

    # -- to be specialised -----------------------------------------------------------------

    @abstractmethod
    def _instance_weights(self, X, starts, sizes) -> np.ndarray:
        """One weight per instance in the bag kernel."""

    @abstractmethod
    def _bag_stat(self, X, starts, sizes, w, gamma) -> np.ndarray:
        """One number per bag used by :meth:`_normalise`."""

    @staticmethod
    @abstractmethod
    def _normalise(K, stat_rows, stat_cols):
        """Normalise a block of the bag kernel with the bags' statistics."""

    # -- kernel ------------------------------------------------------------------------------

    def _fit_transform(self, X, sizes):
        """Fit any preprocessing on the training instances (bags of ``sizes``) and apply it."""
        return X

    def _transform(self, X, sizes):
        """Apply the fitted preprocessing to new instances (bags of ``sizes``)."""
        return X

    def _raw_kernel(self, X, starts, w, Y, starts_Y, w_Y):
        """The weighted bag kernel before normalisation."""
        return weighted_bag_kernel(X, starts, w, Y, starts_Y, w_Y, self._gamma)

    def _box(self, sizes):
        """Box constraint(s) of the bags' dual variables (scalar or one per bag)."""
        return float(self.C)

    def _fit_info_extra(self) -> dict:
        """Entries a subclass adds to ``fit_info_`` after the common ones."""
        return {}

    def _solve_dual(self, K, Y, box):
        """The dual solution and the support bags' indices (:func:`solve_svm_dual`, SMO)."""
        K = 0.5 * (K + K.T)  # exact symmetry for the QP
        sol = solve_svm_dual(K, Y, box, tol=self.tol, method="smo")
        return sol, np.flatnonzero(sol.alpha > 1e-8 * np.min(box))

    def _prepare(self, bags, n_features=None):
        X, starts, sizes = check_bags(bags, n_features)
        return self._prepare_stacked(self._transform(X, sizes), starts, sizes)

    def _prepare_stacked(self, X, starts, sizes):
        w = self._instance_weights(X, starts, sizes)
        stat = self._bag_stat(X, starts, sizes, w, self._gamma)
        return X, starts, sizes, w, stat

    def bag_kernel(self, bags, other=None):
        """The normalised bag kernel between ``bags`` and ``other`` (default: ``bags``).

        Uses the fitted kernel width (call after ``fit``).

        Returns
        -------
        ndarray of shape (n_bags, n_other_bags)
        """
        check_is_fitted(self)
        X, s, _, w, a = self._prepare(bags, self.n_features_in_)
        if other is None:
            Y, sY, wY, aY = X, s, w, a
        else:
            Y, sY, _, wY, aY = self._prepare(other, self.n_features_in_)
        return self._normalise(self._raw_kernel(X, s, w, Y, sY, wY), a, aY)

    # -- fitting -----------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Fit the SVM on the bag kernel.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` (the larger) is the positive class.

        Returns
        -------
        self : object
        """
        return self._fit_dual(self._fit_kernel(bags, y))

    def fit_path(self, bags, y, Cs):
        """One fitted classifier per ``C``, from a single bag kernel.

        The bag kernel does not depend on ``C``: it is computed once, and each ``C`` only
        solves the dual on it. Each model is identical to
        ``clone(self).set_params(C=c).fit(bags, y)``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
        Cs : sequence of float
            Values of ``C`` (each > 0).

        Returns
        -------
        models : list
            Fitted copies of this estimator with ``C`` set to each value, in the order given;
            ``fit_info_["kernel_seconds"]`` of each is the shared kernel's time.
        """
        return fit_along_path(
            self,
            "C",
            Cs,
            lambda model, _: model._fit_kernel(bags, y),
            lambda model, state, _: model._fit_dual(state),
        )

    def _fit_kernel(self, bags, y) -> dict:
        """Validate, fit the preprocessing and compute the training bag kernel: the part of
        ``fit`` that does not depend on ``C``."""
        t0 = time.perf_counter()
        X, starts, sizes, self.classes_, Y = check_binary_bags(self._name, bags, y)
        self.n_features_in_ = X.shape[1]
        self._gamma = float(self.gamma) if self.gamma is not None else gamma_from_sigma(self.sigma)
        X = self._fit_transform(X, sizes)
        X, starts, sizes, w, stat = self._prepare_stacked(X, starts, sizes)
        K = self._normalise(self._raw_kernel(X, starts, w, X, starts, w), stat, stat)
        fitted = {a: getattr(self, a) for a in self._kernel_attributes}
        return dict(X=X, sizes=sizes, w=w, stat=stat, K=K, Y=Y, fitted=fitted,
                    kernel_seconds=time.perf_counter() - t0)  # fmt: skip

    def _fit_dual(self, state: dict):
        """Solve the dual for this model's ``C`` on a kernel of :meth:`_fit_kernel` and keep
        the support bags."""
        for name, value in state["fitted"].items():
            setattr(self, name, value)
        X, sizes, w, stat, Y = (state[k] for k in ("X", "sizes", "w", "stat", "Y"))
        box = self._box(sizes)
        sol, support = self._solve_dual(state["K"], Y, box)
        sv = np.zeros(len(Y), dtype=bool)
        sv[support] = True
        self.support_ = np.flatnonzero(sv)
        # keep the support bags' instances, weights and statistics for prediction
        keep = np.repeat(sv, sizes)
        self._sv_X = X[keep]
        self._sv_w = w[keep]
        self._sv_sizes = sizes[sv]
        self._sv_starts = np.concatenate([[0], np.cumsum(self._sv_sizes)[:-1]]).astype(np.intp)
        self._sv_stat = stat[sv]
        self.dual_coef_ = (sol.alpha * Y)[sv]
        self.intercept_ = float(sol.intercept)
        self.n_support_ = np.array([np.sum(sv & (Y < 0)), np.sum(sv & (Y > 0))], dtype=np.int32)
        self.model_size_ = int(sv.sum())
        self.fit_info_ = {
            "iterations": int(sol.n_iter),
            "converged": bool(sol.converged),
            "kkt_gap": float(sol.gap),
            "objective": float(-sol.objective),
            "kernel_seconds": float(state["kernel_seconds"]),
            "qp_seconds": float(sol.seconds),
            "gamma": float(self._gamma),
            "n_bags": int(len(sizes)),
            "n_instances": int(X.shape[0]),
            **self._fit_info_extra(),
        }
        return self

    # -- prediction --------------------------------------------------------------------------

    def decision_function(self, bags):
        """Bag scores ``sum_J dual_coef_J k(X, X_J) + intercept_`` over the support bags.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags,)
            Positive means ``classes_[1]``.
        """
        check_is_fitted(self)
        X, s, _, w, a = self._prepare(bags, self.n_features_in_)
        if self.model_size_ == 0:
            return np.full(len(s), self.intercept_)
        K = self._normalise(
            self._raw_kernel(X, s, w, self._sv_X, self._sv_starts, self._sv_w), a, self._sv_stat
        )
        return self._support_sum(K) + self.intercept_

    def _support_sum(self, K):
        """``sum_J dual_coef_J K[:, J]`` over the support bags."""
        return K @ self.dual_coef_


class SetKernelSVC(BagKernelSVCBase):
    """SVM on the set kernel of Gärtner et al. (2002); with its defaults, Weka 3.6's MISMO.

    ``k(X, X') = sum_{x in X, x' in X'} k(x, x')`` with the linear (``kernel="linear"``) or
    Gaussian (``kernel="rbf"``) instance kernel, then a soft-margin SVM with bias on the bag
    kernel (:func:`svmlab.qp.solve_svm_dual`, SMO). A bag is predicted ``classes_[1]`` when
    its output is > 0.

    The defaults reproduce ``weka.classifiers.mi.MISMO`` of Weka 3.6.14 with its default
    options (``-C 1 -N 0``, ``MIPolyKernel -E 1``, no ``-M``); ``kernel="rbf"`` with ``C``
    and ``sigma`` is ``-C C -K "weka.classifiers.mi.supportVector.MIRBFKernel -G g"`` with
    ``g = 1 / (2 sigma^2)``.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the hinge loss; > 0 (Weka's ``-C``). The paper's grid:
        {0.1, 1, 10, 100, 1e3, 1e4}.
    kernel : {"linear", "rbf"}, default="linear"
        Instance kernel summed by the set kernel. ``"linear"``: ``<x, x'>`` (Weka's default
        ``MIPolyKernel``, exponent 1; the set kernel is then the inner product of the bags'
        instance sums). ``"rbf"``: ``exp(-||x - x'||^2 / (2 sigma^2))`` (``MIRBFKernel``).
    sigma : float, default=1.0
        Width of the Gaussian instance kernel (``gamma = 1 / (2 sigma^2)``); used by
        ``kernel="rbf"`` only. The paper's grid: {0.1, 0.5, 1, 2, 5, 10}.
    gamma : float or None, default=None
        The Gaussian as ``exp(-gamma ||x - x'||^2)`` (Weka's ``-G``); when set, ``sigma`` is
        ignored.
    normalize : bool, default=False
        Divide the set kernel by ``sqrt(k(X, X) k(X', X'))`` (unit diagonal: large bags do
        not dominate), as Gärtner et al. recommend. Weka's MISMO does not normalise.
    scaling : {"minmax", "none"}, default="minmax"
        ``"minmax"``: rescale every feature to [0, 1] with the training instances' minimum
        and maximum (Weka's ``-N 0``, ``Normalize``; a feature constant in training becomes
        0). ``"none"``: take the features as given (Weka's ``-N 2``).
    bag_weight : {"mean_size", "none"}, default="mean_size"
        ``"mean_size"``: every bag's box constraint is ``C`` times the mean number of
        instances per training bag, as in Weka (MISMO's conversion to instances and back
        gives every bag that weight, and Weka's SMO bounds ``alpha_i`` by
        ``C * weight_i``). ``"none"``: the box constraint is ``C``.
    tol : float, default=2e-3
        Stop when the maximal violating pair gap is at most ``tol`` (LIBSVM's ``eps``). Weka's
        SMO stops at a gap of ``2 L`` for its tolerance ``-L L`` (default 1e-3), so the
        default equals Weka's.
    kernel_features : {"weka", "all"}, default="weka"
        Which features the instance kernel sees. ``"weka"``: every feature but the third
        (column index 2), as Weka 3.6.14's ``MIPolyKernel`` and ``MIRBFKernel`` compute it:
        their dot products skip the attribute whose index is the class index of the *bag*
        data set (bag id, bag, class: index 2), which inside a bag is the third feature.
        ``"all"``: every feature (the set kernel of Gärtner et al.). Sets with at most two
        features are the same either way.
    smo : {"weka", "svmlab"}, default="weka"
        The dual solver. ``"weka"``: Weka 3.6.14's ``BinaryMISMO`` iterate for iterate
        (:mod:`svmlab.estimators.weka.kernel_smo`: the bags in Weka's shuffled order,
        Keerthi et al.'s two thresholds, Weka's stopping point ``tol / 2 = -L``), so the
        model is Weka's, not just one within the KKT tolerance of it. ``"svmlab"``:
        :func:`svmlab.qp.solve_svm_dual` (LIBSVM's pair selection), the solver before
        issue 36: the same optimum within ``tol``, another stopping point.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class.
    support_ : ndarray
        Indices of the support bags.
    dual_coef_ : ndarray of shape (n_SV,)
        ``alpha_J Y_J`` of the support bags.
    intercept_ : float
    n_support_ : ndarray of shape (2,)
        Support bags (negative, positive).
    model_size_ : int
        Number of support bags.
    fit_info_ : dict
        ``iterations`` (SMO pair updates), ``converged``, ``kkt_gap``, ``objective``,
        ``kernel_seconds``, ``qp_seconds``, ``gamma``, ``n_bags``, ``n_instances``,
        ``bag_C`` (the box constraint of every bag).

    Notes
    -----
    ``kernel_features="weka"`` is measured, not inferred: with the class signal in the
    third feature alone Weka's MISMO predicts at chance, in any other feature perfectly
    (tests/estimators/test_mismo_weka_parity.py).

    With ``smo="weka"`` the fit is Weka's own iterate: the bag kernel is summed in Weka's
    order (instances inside a bag as Weka's sort leaves them, the orientation Weka's cache
    keeps), the boxes are ``C`` times Weka's bag weights, and the SMO is ``BinaryMISMO``;
    the linear kernel then matches Weka bit for bit. The Gaussian one can differ in the last
    bit of an exponential (NumPy's against Java's ``Math.exp``), which on sets with nearly
    equal bags moves the SMO path (docs/decisions/mil.md).
    """

    _parameter_constraints: dict = {
        **BagKernelSVCBase._parameter_constraints,
        "kernel": [StrOptions({"linear", "rbf"})],
        "normalize": ["boolean"],
        "scaling": [StrOptions({"minmax", "none"})],
        "bag_weight": [StrOptions({"mean_size", "none"})],
        "kernel_features": [StrOptions({"weka", "all"})],
        "smo": [StrOptions({"weka", "svmlab"})],
    }
    _name = "SetKernelSVC"

    _kernel_attributes = ("_gamma", "_low", "_span")  # Weka's Normalize, fitted in _fit_kernel

    def __init__(
        self,
        C: float = 1.0,
        kernel: str = "linear",
        sigma: float = 1.0,
        gamma: float | None = None,
        normalize: bool = False,
        scaling: str = "minmax",
        bag_weight: str = "mean_size",
        tol: float = 2e-3,
        kernel_features: str = "weka",
        smo: str = "weka",
    ):
        super().__init__(C=C, sigma=sigma, gamma=gamma, tol=tol)
        self.kernel = kernel
        self.normalize = normalize
        self.scaling = scaling
        self.bag_weight = bag_weight
        self.kernel_features = kernel_features
        self.smo = smo

    def _fit_info_extra(self):
        return {"bag_C": float(self._bag_C)}

    def _solve_dual(self, K, Y, box):
        """``smo="weka"``: Weka's ``BinaryMISMO`` on the bags in Weka's order (Melki 2018,
        Sec. 4.3 runs Weka's MISMO); ``"svmlab"``: :func:`solve_svm_dual`."""
        if self.smo == "svmlab":
            return super()._solve_dual(K, Y, box)
        t0 = time.perf_counter()
        order = weka_bag_order(Y, seed=_WEKA_SEED)
        boxes = np.broadcast_to(np.asarray(box, dtype=float), Y.shape)[order]
        # Weka's -L is half the pair gap at which it stops
        alpha_w, b, support_w, info = weka_kernel_smo(
            K[np.ix_(order, order)], Y[order], boxes, tol=self.tol / 2.0, eps=_WEKA_EPS
        )
        alpha = np.empty_like(alpha_w)
        alpha[order] = alpha_w
        support = order[support_w]  # in the order Weka sums over them
        self._weka_sum_order = np.argsort(np.argsort(support))
        ay = alpha * Y
        sol = SimpleNamespace(
            alpha=alpha,
            intercept=-b,
            n_iter=info["n_steps"],
            converged=True,
            gap=info["gap"],
            objective=0.5 * ay @ K @ ay - alpha.sum(),
            seconds=time.perf_counter() - t0,
        )
        return sol, support

    def _support_sum(self, K):
        if self.smo == "svmlab":
            return super()._support_sum(K)
        out = np.zeros(K.shape[0])
        for j in self._weka_sum_order:  # one bag at a time, as Weka's SVMOutput
            out += self.dual_coef_[j] * K[:, j]
        return out

    def _fit_transform(self, X, sizes):
        # Weka's Normalize divides by the training range (a constant feature becomes 0)
        self._low, self._span = weka_normalize(X) if self.scaling == "minmax" else (None, None)
        return self._rescale(X, sizes, one_set=True)

    def _transform(self, X, sizes):
        return self._rescale(X, sizes, one_set=False)

    def _rescale(self, X, sizes, one_set):
        """Weka's filters: rescaling, the third feature left out, the instances inside each
        bag in the order Weka's round trip through instances leaves them (``smo="weka"``;
        it changes only the rounding of the kernel sums)."""
        if self.smo == "weka":
            X = X[weka_bag_rows(sizes, one_set=one_set)]
        if self._low is not None:
            X = np.divide(X - self._low, self._span, out=np.zeros(X.shape), where=self._span > 0)
        if self.kernel_features == "weka" and X.shape[1] > _WEKA_SKIPPED_FEATURE:
            # Weka's dot products skip this column: zero it (on a copy) for the same kernel
            X = np.array(X, dtype=float, copy=True)
            X[:, _WEKA_SKIPPED_FEATURE] = 0.0
        return X

    def _instance_weights(self, X, starts, sizes):
        return np.ones(X.shape[0])

    def _raw_kernel(self, X, starts, w, Y, starts_Y, w_Y):
        if self.smo == "weka":  # unit instance weights: Weka's evaluate(i, j), its rounding
            return weka_bag_kernel(X, starts, Y, starts_Y, self.kernel, self._gamma)
        if self.kernel == "linear":
            return _bag_sums(X, starts, w) @ _bag_sums(Y, starts_Y, w_Y).T
        return weighted_bag_kernel(X, starts, w, Y, starts_Y, w_Y, self._gamma)

    def _bag_stat(self, X, starts, sizes, w, gamma):
        if not self.normalize:
            return np.ones(len(starts))
        if self.kernel == "linear":
            stat = np.sum(_bag_sums(X, starts, w) ** 2, axis=1)
            return np.where(stat > 0, stat, 1.0)  # an all-zero bag keeps its zero row
        return _self_kernel(X, starts, sizes, w, gamma)  # > 0: it includes k(x, x) = 1

    def _normalise(self, K, stat_rows, stat_cols):
        if not self.normalize:
            return K
        return K / np.sqrt(np.outer(stat_rows, stat_cols))

    def _box(self, sizes):
        if self.bag_weight == "none":
            self._bag_C = float(self.C)
            return self._bag_C
        self._bag_C = float(self.C) * float(np.mean(sizes))
        return float(self.C) * weka_bag_weights(sizes)
