"""Full-, Random-, Rank-, w-, ell_{1/2}- and RMF-MLM (Oliveira (2021), Sec. 2.1.3 and 2.2.4,
Table 2) as one regressor and one classifier; the variant is a choice of parameters."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils import check_random_state

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.contract import Contract
from svmlab.estimators._path import fit_along_path
from svmlab.estimators.mlm._base import (
    CLASSIFICATION_MULTILATERATION,
    REGRESSION_MULTILATERATION,
    MLMClassificationPart,
    MLMRegressionPart,
    MLMTrainingBase,
)
from svmlab.estimators.mlm.coefficients import (
    l_half_coefficients,
    m_focuss_coefficients,
    regularised_least_squares,
    square_solve,
)
from svmlab.estimators.mlm.distances import distance_matrix, resolve_count

__all__ = ["MLMClassifier", "MLMRegressor"]

REGULARIZATIONS = ("ridge", "l_half", "m_focuss")

_COUNT = [
    Interval(Integral, 1, None, closed="left"),
    Interval(Real, 0, 1, closed="right"),
    None,
]

_SHARED_CONSTRAINTS = {
    "n_reference": _COUNT,
    "C": [Interval(Real, 0, None, closed="left")],
    "regularization": [StrOptions(set(REGULARIZATIONS))],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "learning_rate": [Interval(Real, 0, 1, closed="right")],
    "prune_factor": [Interval(Real, 0, None, closed="left")],
    "focuss_p": [Interval(Real, 0, 2, closed="both")],
    "n_predict_reference": _COUNT,
    "random_state": ["random_state"],
}

_PARAMETERS_DOC = """
    Parameters
    ----------
    n_reference : int, float in (0, 1] or None, default=None
        ``K``, the number of reference points, drawn at random without replacement: an int,
        or a fraction of ``n_samples`` (``ceil(k N)``, Table 18; at least 2, and for a regressor
        at least ``n_outputs + 1``). ``None``: every training
        point (Full-MLM; with ``C > 0`` the Ch. 5 Rank-MLM).
    C : float, default=0.0
        Regularisation strength (the thesis's lambda, called C in its tables). With
        ``regularization="ridge"``: ``B = (D^T D + C I)^{-1} D^T Delta`` (Rank-MLM,
        Eqs. 2.16-2.17); 0 gives least squares (Full-MLM: ``solve(D, Delta)``; Random-MLM:
        ``lstsq``).
    regularization : {"ridge", "l_half", "m_focuss"}, default="ridge"
        ``"l_half"``: ell_{1/2}-MLM (Eqs. 2.20-2.24, reconstructed); ``"m_focuss"``: RMF-MLM
        (Eq. 2.25, reconstructed; needs ``C > 0``). Both prune reference points, so
        ``model_size_`` can end below ``n_reference``.
    max_iter : int, default=100
        Epochs of ell_{1/2}-MLM / iterations of RMF-MLM.
    learning_rate : float in (0, 1], default=0.1
        ``eta`` of the normalised gradient step of ell_{1/2}-MLM (Eq. 2.22).
    prune_factor : float, default=0.1
        ``alpha`` of Eq. 2.24 (ell_{1/2}-MLM pruning threshold).
    focuss_p : float in [0, 2], default=1.0
        ``p`` of the RMF-MLM penalty ``sum_m ||B_m.||^p``.
    n_predict_reference : int, float in (0, 1] or None, default=None
        The kappa speed-up (Eqs. 4.7-4.8): multilaterate with a random subset of this many
        reference points (int or fraction of ``model_size_``; at least 2, and n_outputs + 1).
        Read at predict time, so it can be changed with ``set_params`` after fitting (the
        Figs. 20-21 sweep). ``None``: all of them.
    random_state : int, RandomState instance or None, default=None
        Draws the reference points in ``fit`` and the kappa subset in ``predict`` (a fresh
        generator from it at each call: an int gives the same subset every time).
"""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    B_ : ndarray of shape (model_size_, model_size_)
        Coefficients of ``Delta = D B`` (Eq. 2.9); row ``k`` belongs to reference point ``k``.
    reference_points_ : ndarray of int
        Indices of the reference points in the training set.
    model_size_ : int
        Number of reference points.
    reference_inputs_ : ndarray of shape (model_size_, n_features)
    reference_outputs_ : ndarray of shape (model_size_, n_outputs)
        Outputs ``t_k`` (one-hot codes for a classifier).
    fit_info_ : dict
        ``b_norm`` (``||B||_F``), ``n_reference``, ``n_samples``, ``fallback`` (``"lstsq"``
        when ``D`` was singular, e.g. duplicate inputs, else None), ``solver``
        ("solve", "solve_distinct", "lstsq", "ridge", "l_half", "m_focuss") and ``iterations``
        (iterative ones).
    n_iter_ : int
        Epochs / iterations of ell_{1/2}- and RMF-MLM; 1 for the closed-form solvers.
    n_features_in_ : int
"""


class _StandardTraining(MLMTrainingBase):
    """Reference points at random (or all), then one of the Table 2 solvers."""

    # Random- and Rank-MLM's C and K: nested sets of reference points share the distances
    # and one factorisation (a QR of D for C = 0, D^T D for C > 0); a larger C and fewer
    # reference points give the simpler model (one_se moves along C when the grid varies it)
    svmlab_contract = Contract(
        path_parameter=("C", "n_reference"),
        path_simpler=("max", "min"),
        row_values=MLMTrainingBase.svmlab_contract.row_values,
    )

    def _store(self, X, Y, rp, B, info):
        super()._store(X, Y, rp, B, info)
        self.n_iter_ = int(self.fit_info_.get("iterations", 1))
        return self

    def fit_path(self, X, y, points):
        """One fitted model per grid point over ``n_reference`` and ``C`` (Random- and
        Rank-MLM's Table 10 grid), from one set of distances and one factorisation.

        The reference points of a smaller ``K`` are the first ``K`` of the same random draw,
        so one ``D`` to the largest set serves every point: for ``C = 0`` its QR
        factorisation (``B`` of the first ``K`` columns by a triangular solve), for
        ``C > 0`` its ``D^T W D`` (one Cholesky factorisation and forward solve per ``C``,
        whose leading blocks are each K's, then a back substitution per point).
        Copies of a reference input (equal columns of ``D``) share their coefficients
        equally, as the minimum-norm solution of a separate fit's ``lstsq`` does; a block
        whose triangular factor is still ill-conditioned (reciprocal condition below 1e-8,
        nearly equal inputs) is solved by that ``lstsq`` itself. With an int
        ``random_state`` each model is the one ``clone(self).set_params(**point).fit(X, y)``
        gives, to rounding. Full-MLM's points
        (every training point a reference point, ``C = 0``), and ``regularization`` other
        than ``"ridge"``, are fitted on their own.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        points : sequence of dict or of float
            Each model's ``n_reference`` and / or ``C``; plain numbers are values of ``C``.

        Returns
        -------
        models : list
            Fitted copies of this estimator with each point's parameters, in the order given.

        Notes
        -----
        Memory: besides ``D`` and ``Delta`` to the largest set (n x K_max each) and the
        K_max x K_max factors of one ``C`` at a time (points grouped by ``C``, as the tuner
        passes them, factorise once per ``C``), every model keeps its own ``B_``: Table 10's
        70 points at K up to n / 2 hold about 7 n^2 floats (1.2 GB at n = 4800).
        """
        points = [dict(p) if isinstance(p, dict) else {"C": p} for p in points]
        if self.regularization != "ridge":
            return [clone(self).set_params(**p).fit(X, y) for p in points]

        def shared(model, _):
            X_, Y, weights = model._validated(X, y)
            targets = {a: getattr(model, a) for a in model._target_attributes}
            n = len(X_)
            counts = [
                model._reference_count(n, p.get("n_reference", self.n_reference)) for p in points
            ]
            Cs = [p.get("C", self.C) for p in points]
            joint = [i for i in range(len(points)) if _on_the_path(counts[i], n, Cs[i])]
            if not joint:
                return X_, Y, targets, counts, None
            order = _reference_order([counts[i] for i in joint], n, self.random_state)
            D, Delta, factors = _factorise(X_, Y, weights, order, [Cs[i] for i in joint])
            return X_, Y, targets, counts, (order, D, Delta, factors)

        def solve(model, state, i):
            X_, Y, targets, counts, joint = state
            K = counts[i]
            if joint is None or not _on_the_path(K, len(X_), model.C):
                model.fit(X, y)
                return
            for name, value in targets.items():
                setattr(model, name, value)
            order, D, Delta, factors = joint
            rp, B, info = _prefix_coefficients(D, Delta, factors, order[:K], model.C)
            model._store(X_, Y, rp, B, info)

        return fit_along_path(self, ("C", "n_reference"), points, shared, solve)

    def _reference_count(self, n, value):
        # at least 2, and one more than the outputs (Levenberg-Marquardt needs K >= S)
        minimum = max(2, getattr(self, "n_outputs_", 1) + 1)
        return resolve_count(value, n, name="n_reference", minimum=minimum)

    def _select_reference(self, n, rng):
        K = self._reference_count(n, self.n_reference)
        if K >= n:
            return np.arange(n)
        return np.sort(rng.choice(n, size=K, replace=False))

    def _coefficients(self, D, Delta, X, Y, rng, weights, cache=None):
        reg = self.regularization
        if weights is not None and reg != "ridge":
            root = np.sqrt(weights)[:, None]
            D, Delta = root * D, root * Delta
        if reg == "l_half":
            B, info = l_half_coefficients(
                D,
                Delta,
                self.C,
                learning_rate=self.learning_rate,
                max_iter=self.max_iter,
                prune_factor=self.prune_factor,
            )
            return B, {**info, "solver": "l_half"}
        if reg == "m_focuss":
            if not self.C > 0:
                raise ValueError("regularization='m_focuss' (RMF-MLM) needs C > 0; got C=0")
            B, info = m_focuss_coefficients(
                D, Delta, self.C, p=self.focuss_p, max_iter=self.max_iter
            )
            return B, {**info, "solver": "m_focuss"}
        square = D.shape[0] == D.shape[1] and weights is None
        if self.C == 0 and square:  # K = n: the reference points are X's rows, in order
            return square_solve(D, Delta, inputs=X)
        B, info = regularised_least_squares(D, Delta, self.C, weights, cache=cache)
        return B, {**info, "solver": "ridge" if self.C > 0 else "lstsq"}


def _reference_order(counts, n, random_state):
    """The reference points of a path, in the order whose prefixes are each K's points."""
    if all(K == n for K in counts):  # Ch. 5's Rank-MLM: every point, a path over C
        return np.arange(n)
    # RandomState.choice(n, K, replace=False) is permutation(n)[:K]: every K's points are
    # those a separate fit with the same seed draws
    order = check_random_state(random_state).permutation(n)[: max(counts)]
    return np.sort(order) if len(set(counts)) == 1 else order  # one K: a separate fit's order


def _factorise(X, Y, weights, order, Cs):
    """``D`` and ``Delta`` (weighted) to the points ``order``, and what the path's values of
    ``C`` need: the QR factors of ``D``'s distinct columns (C = 0) and ``D^T D``,
    ``D^T Delta`` (C > 0)."""
    D, Delta = distance_matrix(X, X[order]), distance_matrix(Y, Y[order])
    if weights is not None:
        root = np.sqrt(weights)[:, None]
        D, Delta = root * D, root * Delta
    factors = {}
    if any(C == 0 for C in Cs):
        # identical reference inputs give identical columns of D, among which the minimum-norm
        # solution (lstsq's) shares the coefficients equally: factorise the distinct ones
        _, first, inverse = np.unique(X[order], axis=0, return_index=True, return_inverse=True)
        rep = first[inverse.ravel()]  # the position of each point's first copy
        distinct = np.flatnonzero(rep == np.arange(len(order)))
        DeltaQ, R = linalg.qr_multiply(D[:, distinct], Delta.T, mode="right")
        factors["qr"] = (R, DeltaQ.T, rep, distinct)
    if any(C > 0 for C in Cs):
        factors["gram"] = (D.T @ D, D.T @ Delta)
    return D, Delta, factors


def _on_the_path(K, n, C):
    """Whether a point is fitted from the path's shared factorisation: any ``K`` below ``n``,
    and every training point as a reference point with a ridge; Full-MLM (``K = n``,
    ``C = 0``) solves its square system on its own."""
    return K < n or C > 0


def _prefix_coefficients(D, Delta, factors, points, C):
    """The reference points ``points`` (the first ``K`` of the path's columns of ``D`` and
    ``Delta``) in ascending order, their ``B`` in that order from the factorisations of all
    of them (:meth:`_StandardTraining.fit_path`), and its ``info``."""
    K = len(points)
    sort = np.argsort(points)
    if C > 0:
        B = _ridge_prefix(factors, K, C)
        if B is not None:
            return (*_ascending(points, sort, B), {"fallback": None, "solver": "ridge"})
        gram, rhs = factors["gram"]
        cache = {"gram": (D[:, :K], Delta[:, :K], gram[:K, :K], rhs[:K, :K])}
        B, info = regularised_least_squares(D[:, :K], Delta[:, :K], C, cache=cache)
        return (*_ascending(points, sort, B), {**info, "solver": "ridge"})
    R, projected, rep, distinct = factors["qr"]
    u = int(np.searchsorted(distinct, K))  # the distinct points among the first K
    block = R[:u, :u]
    rcond, status = linalg.lapack.dtrcon(block, norm="1", uplo="U")
    if status == 0 and rcond >= 1e-8:
        B = linalg.solve_triangular(block, projected[:u, :K], check_finite=False)
        if u < K:  # each copy of a point gets an equal share of its coefficients
            column = np.searchsorted(distinct, rep[:K])
            B = B[column] / np.bincount(column, minlength=u)[column][:, None]
        if np.all(np.isfinite(B)):
            return (*_ascending(points, sort, B), {"fallback": None, "solver": "lstsq"})
    # ill-conditioned: the separate fit's lstsq on the same columns in the same order
    B, info = regularised_least_squares(D[:, sort], Delta[:, sort], 0.0)
    return points[sort], B, {**info, "solver": "lstsq"}


def _ridge_prefix(factors, K, C):
    """``(D^T D + C I)^{-1} D^T Delta`` of the first ``K`` points, or None if not positive
    definite. The Cholesky factor ``U`` of the whole ``D^T D + C I`` holds every leading
    block's factor, and the forward solve ``U^T Y = D^T Delta`` every leading block's, so
    one factorisation per ``C`` (kept for the next points of the same ``C``) leaves each K a
    back substitution."""
    if factors.get("ridge_C") != C:
        gram, rhs = factors["gram"]
        G = gram.copy()
        G[np.diag_indices_from(G)] += C
        try:
            U = linalg.cholesky(G, lower=False, overwrite_a=True, check_finite=False)
            Y = linalg.solve_triangular(U, rhs, trans="T", check_finite=False)
            factors["ridge"] = (U, Y)
        except linalg.LinAlgError:
            factors["ridge"] = None
        factors["ridge_C"] = C
    if factors["ridge"] is None:
        return None
    U, Y = factors["ridge"]
    B = linalg.solve_triangular(U[:K, :K], Y[:K, :K], check_finite=False)
    return B if np.all(np.isfinite(B)) else None


def _ascending(points, sort, B):
    """``(points, B)`` with the reference points in ascending order (a separate fit's)."""
    if np.all(sort == np.arange(len(sort))):
        return points.copy(), B  # already in order: B keeps its memory layout
    return points[sort], B[np.ix_(sort, sort)]


class MLMRegressor(MLMRegressionPart, _StandardTraining, RegressorMixin, BaseEstimator):
    __doc__ = (
        """Minimal Learning Machine regression: Full-, Random-, Rank-, ell_{1/2}- and RMF-MLM.

    ``Delta = D B`` between input distances ``D`` and output distances ``Delta`` to ``K``
    reference points (Oliveira (2021), Eqs. 2.9-2.11), then multilateration (Eq. 2.12).

    =============  =====================================================================
    variant        parameters
    =============  =====================================================================
    Full-MLM       defaults (``n_reference=None, C=0``)
    Random-MLM     ``n_reference=K`` (int or fraction)
    Rank-MLM       ``C > 0`` (with ``n_reference=K``: Ch. 4; all points: Ch. 5)
    wMLM           :class:`MLMClassifier` ``class_weight`` (weights of the error term)
    ell_{1/2}-MLM  ``regularization="l_half"`` (reconstructed)
    RMF-MLM        ``regularization="m_focuss", C > 0`` (reconstructed)
    NN-MLM         ``multilateration="nn"``
    =============  =====================================================================
"""
        + _PARAMETERS_DOC
        + """    multilateration : {"auto", "cubic", "lm", "nn"}, default="auto"
        "cubic": exact minimiser for one output (C-MLM); "lm": Levenberg-Marquardt from the
        mean reference output; "nn": the reference output of the smallest estimated
        distance; "auto" (spec A8): cubic for one output, LM for several.
"""
        + _ATTRIBUTES_DOC
        + """    n_outputs_ : int

    Notes
    -----
    Memory: with every training point as a reference point ``D``, ``Delta`` and ``B`` are dense
    N x N float64 (288 MB each at N = 6000), inherent to Full- and Rank-MLM; prediction
    holds a (1024 x model_size_) block of distances at a time.

    References
    ----------
    S. A. F. Oliveira, PhD thesis, UFC, 2021, Sec. 2.1.3 (Algs. 5-6), Sec. 2.2.4 (Table 2).
    A. H. Souza Junior et al., "Minimal Learning Machine", Neurocomputing 164, 2015.
    """
    )

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "multilateration": [StrOptions(set(REGRESSION_MULTILATERATION))],
    }

    def __init__(
        self,
        n_reference=None,
        C=0.0,
        regularization="ridge",
        max_iter=100,
        learning_rate=0.1,
        prune_factor=0.1,
        focuss_p=1.0,
        multilateration="auto",
        n_predict_reference=None,
        random_state=None,
    ):
        self.n_reference = n_reference
        self.C = C
        self.regularization = regularization
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.prune_factor = prune_factor
        self.focuss_p = focuss_p
        self.multilateration = multilateration
        self.n_predict_reference = n_predict_reference
        self.random_state = random_state


class MLMClassifier(MLMClassificationPart, _StandardTraining, ClassifierMixin, BaseEstimator):
    __doc__ = (
        """Minimal Learning Machine classification on one-hot codes (Oliveira (2021), Ch. 5):
    Full-, Random-, Rank-, w-, ell_{1/2}- and RMF-MLM, predicting by the class-code argmin
    (Eq. 5.5). The variants are chosen as in :class:`MLMRegressor`; wMLM (Gomes 2015,
    Eqs. 2.18-2.19) is ``class_weight="balanced"``.
"""
        + _PARAMETERS_DOC
        + """    class_weight : {"balanced"} or dict or None, default=None
        Weights ``W`` of the error term (wMLM): ``"balanced"`` gives every sample the inverse
        frequency of its class, ``n / (n_classes * count)`` (the author's cost-sensitive
        weights); a dict maps class labels to weights (missing classes weigh 1). With every
        training point as a reference point and ``C = 0`` the system is square and solved
        exactly, so the weights have no effect: wMLM needs ``n_reference < N`` or ``C > 0``.
    multilateration : {"class_code", "nn"}, default="class_code"
        Eq. 5.5, or NN-MLM: the class of the reference point with the smallest estimated
        distance.
"""
        + _ATTRIBUTES_DOC
        + """    classes_ : ndarray of shape (n_classes,)

    References
    ----------
    S. A. F. Oliveira, PhD thesis, UFC, 2021, Sec. 2.2.4 (Table 2), Ch. 5 (Eqs. 5.4-5.5).
    """
    )

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "multilateration": [StrOptions(set(CLASSIFICATION_MULTILATERATION))],
    }

    def __init__(
        self,
        n_reference=None,
        C=0.0,
        regularization="ridge",
        max_iter=100,
        learning_rate=0.1,
        prune_factor=0.1,
        focuss_p=1.0,
        class_weight=None,
        multilateration="class_code",
        n_predict_reference=None,
        random_state=None,
    ):
        self.n_reference = n_reference
        self.C = C
        self.regularization = regularization
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.prune_factor = prune_factor
        self.focuss_p = focuss_p
        self.class_weight = class_weight
        self.multilateration = multilateration
        self.n_predict_reference = n_predict_reference
        self.random_state = random_state

    def _sample_weights(self, y_index):
        if self.class_weight is None:
            return None
        n_classes = len(self.classes_)
        if self.class_weight == "balanced":
            counts = np.bincount(y_index, minlength=n_classes)
            per_class = len(y_index) / (n_classes * counts)
        else:
            per_class = np.array([float(self.class_weight.get(c, 1.0)) for c in self.classes_])
            if np.any(per_class < 0):
                raise ValueError(f"class_weight values must be >= 0; got {self.class_weight!r}")
        return per_class[y_index]
