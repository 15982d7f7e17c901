"""OLLAWV: OnLine Learning Algorithm using Worst-Violators (Melki et al., 2018)."""

from __future__ import annotations

import math
import time
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators._ovo import ovo_pairs, ovo_scores, ovo_votes, ovo_winner
from svmlab.estimators._path import fit_along_path
from svmlab.estimators.ollawv._worst_violator import STOP_REASONS, worst_violator_path
from svmlab.kernels import rbf_blocks

__all__ = ["OLLAWVClassifier", "c_invariant"]


def c_invariant(params) -> bool:
    """Whether OLLAWV's fitted model is the same for every ``C``, all else being equal.

    With ``margin_mode="scaled"`` the stopping threshold is ``M = margin * C`` while every
    alpha, bias increment and output also scales linearly with ``C``; the worst-violator
    sequence, the stop and all predictions are then independent of ``C`` (bit for bit
    when the ``C`` values differ by powers of two, as on the paper's ``4**k`` grid). A tuner
    can then fit once per ``gamma`` and reuse the result for every ``C``. With
    ``margin_mode="absolute"`` ``C`` matters.

    Parameters
    ----------
    params : mapping or OLLAWVClassifier
        Constructor parameters (missing keys take the defaults) or an estimator.
    """
    if hasattr(params, "get_params"):
        params = params.get_params()
    return params.get("margin_mode", "scaled") == "scaled"


def _c_ignored(params) -> tuple[str, ...]:
    """``("C",)`` with the scaled margin (:func:`c_invariant`): svmlab's grid search then
    trains one model per ``gamma`` and scores it for every ``C``."""
    return ("C",) if c_invariant(params) else ()


class OLLAWVClassifier(ClassifierMixin, BaseEstimator):
    """OLLAWV: an online L1-SVM that updates only the worst violator, once each.

    Stochastic (sub)gradient descent on the kernel L1-SVM primal (Eq. 5.5), in which
    every iteration picks the not-yet-selected sample with the smallest ``y * o`` (the
    worst violator, Eq. 5.4), gives it the coefficient ``alpha = eta_t * C * y``
    (Eq. 5.7; the regularisation part vanishes because each sample is updated at most
    once, from zero), moves the bias by ``beta * alpha / n`` (Eq. 5.8), and updates the
    outputs of the remaining candidates with one RBF kernel row (Eq. 5.9). Training stops
    as soon as every remaining sample satisfies ``y * o >= M`` (early stopping is the
    regulariser), or after ``max_iter`` iterations. Every selected sample is a support
    vector, so the model size equals the number of iterations. Multiclass problems are
    solved one-vs-one.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the hinge loss; must be > 0. With ``margin_mode="scaled"`` it has
        **no effect** on the model (see Notes and :func:`c_invariant`).
    gamma : float, default=1.0
        Precision of the Gaussian kernel ``K(x, z) = exp(-gamma ||x - z||^2)``
        (Eq. 5.11; ``gamma = 1 / (2 sigma^2)``); must be > 0.
    margin : float, default=0.1
        Stopping margin ``m`` >= 0. Training stops when ``min y * o >= M`` over the
        remaining samples, with ``M = m * C`` (scaled) or ``M = m`` (absolute). 0.1 is the
        author's code default; the paper does not state its value.
    margin_mode : {"scaled", "absolute"}, default="scaled"
        How ``M`` is derived from ``margin``. "scaled" is the paper's "M is a scaled value
        of C"; "absolute" makes ``C`` meaningful again.
    max_iter_frac : float or None, default=0.5
        Cap on the iterations (= support vectors) of each binary model, as a fraction of
        its number of samples ``n``: ``max_iter = ceil(max_iter_frac * n)``, at most ``n``.
        ``None`` means no cap (``n``). 0.5 is the author's code default.
    use_bias : bool, default=True
        Learn a bias (``beta = 1`` in Eq. 5.8–5.9) or not (``beta = 0``).
    eta : {"inv_sqrt", "inv_t"}, default="inv_sqrt"
        Learning-rate schedule: ``eta_t = eta_scale / sqrt(t)`` (the paper's ``2/sqrt(t)``)
        or ``eta_t = eta_scale / t`` (mentioned in the paper as ``1/t``: set
        ``eta_scale=1``).
    eta_scale : float, default=2.0
        Numerator of the learning rate; must be > 0.
    init_violator : {"first", "random"}, default="first"
        The initial worst violator (Alg. 5.1 line 3): the first sample of the training
        order, or a random one.
    shuffle : bool, default=True
        Shuffle the training order once (with ``random_state``), as the author's code does at
        load time; it decides which sample is the first violator. Arg-min ties still go to
        the lowest original index (docs/decisions/ollawv.md, "First violator, training order
        and ties"). With ``shuffle=False`` the first
        violator is the first sample of ``X``.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffle and the random initial violator. The algorithm is otherwise
        deterministic.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    pairs_ : ndarray of shape (n_pairs, 2)
        Indices into ``classes_`` of the (+1, -1) classes of each binary model, in training
        order: classes sorted by size (descending, ties by label), every pair ``(a, b)``
        with ``a`` before ``b``. One row for a binary problem.
    support_ : ndarray of shape (n_SV,)
        Indices into the training set of the distinct support vectors of all binary
        models, grouped by class, ascending within a class.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors, ``X[support_]`` as float64.
    n_support_ : ndarray of shape (n_classes,), dtype int32
        Number of distinct support vectors per class. A sample that is a support vector
        of several pairwise models counts once, as in the paper's %SV.
    support_fraction_ : float
        ``n_support_.sum() / n_samples``: the paper's %SV divided by 100.
    sv_order_ : list of ndarray
        Per binary model, the training indices of its support vectors in selection order
        (``sv_order_[k][t - 1]`` is the worst violator of iteration ``t``).
    alphas_ : list of ndarray
        Per binary model, the signed coefficients of ``sv_order_[k]``:
        ``alphas_[k][t - 1] = eta_t * C * y`` (Eq. 5.7).
    intercept_ : ndarray of shape (n_pairs,)
        Bias of each binary model (Eq. 5.8).
    fit_info_ : dict
        Per binary model (lists in ``pairs_`` order): ``iterations`` (= its number of
        support vectors), ``stop_reason`` ("margin", "max_iter" or "exhausted" when every
        sample was selected), ``max_iter``, ``n_samples``, ``kernel_evaluations`` (kernel
        values computed, the cost of the fit) and ``path_kernel_evaluations`` (the same for
        the run shared by :meth:`fit_path`; equal to it after :meth:`fit`) and
        ``loop_seconds`` (wall time of the compiled training loop, shared by a path's models).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    c_invariant : whether ``C`` can be skipped in a grid search.
    sklearn.svm.SVC : the LIBSVM (SMO) solver of the same RBF SVM.

    Notes
    -----
    **Algorithm** (Melki (2018), Sec. 5.2, Alg. 5.1, with the readings recorded in
    docs/decisions/ollawv.md). For a binary problem with
    labels ``y`` in {-1, +1}: ``o = 0``, ``b = 0``, ``wv`` = first sample. Iteration
    ``t = 1, 2, ...``: ``Lambda = eta_t * C * y_wv``; ``alpha_wv = Lambda`` (Eq. 5.7);
    ``B = beta * Lambda / n`` and ``b += B`` (Eq. 5.8); ``o_j += Lambda * K(x_j, x_wv) + B``
    for every ``j`` not yet selected (Eq. 5.9); the next worst violator is the arg-min of
    ``y_j * o_j`` over those ``j``, ties going to the lowest original sample index
    (Eq. 5.4). Stop when that minimum is ``>= M``, when every sample was selected, or when
    ``t = max_iter``; the violator that triggered the stop is not a support vector. The
    first violator always becomes a support vector, even when ``M <= 0``. The decision is
    ``o(x) = sum_s alpha_s K(x, x_s) + b``, positive meaning the +1 class and 0 the -1 class.
    The training outputs are frozen once a sample is selected, so they are not the model's
    outputs on the training set. Training never forms the kernel matrix: iteration ``t``
    costs one kernel row against the ``n - t`` remaining samples, ``O((n - t) d)``.

    **C-invariance.** ``alpha`` and ``b`` are proportional to ``C`` and so are all outputs;
    with ``margin_mode="scaled"`` the threshold ``M = margin * C`` is too, so the support
    vectors, their order and every prediction do not depend on ``C``: the paper's
    ``(C, gamma)`` grid is effectively a ``gamma`` grid (times ``margin``). Use
    :func:`c_invariant` to train once per ``gamma``.

    **Multiclass.** One-vs-one: one binary model per pair of classes, trained only on the
    samples of those two classes (so ``n`` in Eq. 5.8 and in ``max_iter`` is the pair's
    size). Each model votes for its +1 class when ``o(x) > 0`` and for its -1 class
    otherwise. The predicted class has the most votes; ties go to the class with the
    largest sum of signed decision values in its favour (``+o`` for the +1 class, ``-o``
    for the -1 class of each pair), then to the lowest class index.
    :meth:`decision_function` returns ``votes + s / (3 (|s| + 1))``, with ``s`` that sum,
    shape ``(n_samples, n_classes)``, whose arg-max is that rule (the second term lies in
    (-1/3, 1/3)). Prediction computes the kernel between the test points and the union of
    the support vectors once, in blocks, and shares it between the pairwise models.

    References
    ----------
    G. A. Melki, V. Kecman, S. Ventura and A. Cano, "OLLAWV: OnLine Learning Algorithm
    using Worst-Violators", Applied Soft Computing 66 (2018) 384–393.
    G. A. Melki, "Novel Support Vector Machines for Diverse Learning Paradigms", PhD
    dissertation, Virginia Commonwealth University, 2018, Chapter 5.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from svmlab.estimators.ollawv import OLLAWVClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = OLLAWVClassifier(gamma=0.25, random_state=0).fit(X, y)
    >>> clf.predict(X[:3])
    array([0, 0, 0])
    """

    # A smaller margin stops the same worst-violator run earlier (a prefix of the larger
    # margin's run: fewer support vectors), so the simpler end of the margin path is its min.
    svmlab_contract = Contract(
        path_parameter="margin", path_simpler="min", tuning_ignores=_c_ignored
    )

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "margin": [Interval(Real, 0, None, closed="left")],
        "margin_mode": [StrOptions({"scaled", "absolute"})],
        "max_iter_frac": [Interval(Real, 0, None, closed="neither"), None],
        "use_bias": ["boolean"],
        "eta": [StrOptions({"inv_sqrt", "inv_t"})],
        "eta_scale": [Interval(Real, 0, None, closed="neither")],
        "init_violator": [StrOptions({"first", "random"})],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        C=1.0,
        gamma=1.0,
        margin=0.1,
        margin_mode="scaled",
        max_iter_frac=0.5,
        use_bias=True,
        eta="inv_sqrt",
        eta_scale=2.0,
        init_violator="first",
        shuffle=True,
        random_state=None,
    ):
        self.C = C
        self.gamma = gamma
        self.margin = margin
        self.margin_mode = margin_mode
        self.max_iter_frac = max_iter_frac
        self.use_bias = use_bias
        self.eta = eta
        self.eta_scale = eta_scale
        self.init_violator = init_violator
        self.shuffle = shuffle
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the binary model, or the one-vs-one models.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; finite values, converted to float64.
        y : array-like of shape (n_samples,)
            Class labels: at least two classes, each with at least two samples.

        Returns
        -------
        self : OLLAWVClassifier
        """
        X, y_idx, runs = self._fit_runs(X, y, [self.margin])
        self._store_models(X, y_idx, runs, 0)
        return self

    def fit_path(self, X, y, margins):
        """One fitted classifier per stopping margin, from a single run per binary model.

        Only the stop depends on the margin ``m``: the updates, and so the worst-violator
        sequence, are the same for every ``m``, and a smaller ``m`` stops earlier on the same
        sequence. One run to the latest stop therefore gives every model of the path, for the
        cost of the largest one. With a fixed ``random_state`` (an int) each model is identical
        (support vectors, coefficients, bias, predictions) to
        ``clone(self).set_params(margin=m).fit(X, y)``; with ``None`` all share one shuffle.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        margins : sequence of float
            Values of ``margin`` (each >= 0).

        Returns
        -------
        models : list of OLLAWVClassifier
            Fitted copies of this estimator with ``margin`` set to each value, in the order
            given. ``fit_info_["path_kernel_evaluations"]`` of each holds the work of the
            shared run, ``fit_info_["kernel_evaluations"]`` what a separate fit would have
            done.
        """
        return fit_along_path(
            self,
            "margin",
            margins,
            lambda model, values: model._fit_runs(X, y, values),
            lambda model, state, i: model._store_models(*state, i),
        )

    def _fit_runs(self, X, y, margins):
        """Validate, then one worst-violator run per binary model that serves every margin.

        Returns ``(X, y_idx, runs)``, ``runs`` holding per pair its ``(a, b)`` classes, the
        sample indices, the path (support vectors, coefficients, per-margin iterations,
        biases, stop codes), the cap and the kernel values computed.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_, y_idx, counts = np.unique(y, return_inverse=True, return_counts=True)
        self._check_classes(counts)
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        scale = self.C if self.margin_mode == "scaled" else 1.0
        Ms = np.array([m * scale for m in margins], dtype=np.float64)
        rank = np.empty(n, dtype=np.intp)
        rank[order] = np.arange(n)
        members = [np.flatnonzero(y_idx == c) for c in range(len(counts))]
        runs = []
        for a, b in ovo_pairs(counts):  # larger class first: the +1 side
            # The pair's samples stay in their original order, so arg-min ties go to the lowest
            # original index (docs/decisions/ollawv.md, "First violator, training order and
            # ties"); the shuffled order only picks the first violator.
            idx = np.sort(np.concatenate((members[a], members[b])))
            n_pair = idx.size
            cap = (
                n_pair
                if self.max_iter_frac is None
                else min(n_pair, math.ceil(self.max_iter_frac * n_pair))
            )
            path, seconds = self._fit_pair(X[idx], y_idx[idx] == a, rank[idx], cap, Ms, rng)
            runs.append(((a, b), idx, path, cap, seconds))
        return X, y_idx, runs

    def _fit_pair(self, X_pair, positive, rank, cap, Ms, rng):
        """One binary run on a pair's samples (``positive``: the +1 side) for the thresholds
        ``Ms``; returns the worst-violator path (:func:`worst_violator_path`) and the seconds
        the compiled loop took.

        The first violator is the pair's earliest sample in the (shuffled) training order
        (``rank``), or a random one.
        """
        n_pair = len(positive)
        first = int(np.argmin(rank)) if self.init_violator == "first" else int(rng.randint(n_pair))
        labels = np.where(positive, 1.0, -1.0)
        t0 = time.perf_counter()
        path = worst_violator_path(
            X_pair,
            labels,
            first,
            float(self.C),
            float(self.gamma),
            Ms,
            cap,
            1.0 if self.use_bias else 0.0,
            self.eta == "inv_t",
            float(self.eta_scale),
        )
        return path, time.perf_counter() - t0

    def _check_classes(self, counts) -> None:
        """At least two classes, each with at least two samples."""
        if len(self.classes_) < 2:
            raise ValueError(
                f"OLLAWVClassifier needs samples of at least 2 classes; got 1 class "
                f"({self.classes_.tolist()[0]!r})"
            )
        single = self.classes_[counts < 2]
        if single.size:
            raise ValueError(
                f"class {single.tolist()[0]!r} has a single sample; OLLAWV needs at least 2 per "
                "class"
            )

    def _store_models(self, X, y_idx, runs, i) -> None:
        """The fitted attributes of margin ``i`` of the runs: the distinct support vectors (by
        class, then index), the per-model expansions over them and ``fit_info_``."""
        sv_order, alphas, intercepts, pairs = [], [], [], []
        info = {
            "iterations": [],
            "stop_reason": [],
            "max_iter": [],
            "n_samples": [],
            "kernel_evaluations": [],
            "path_kernel_evaluations": [],
            "loop_seconds": [],
        }
        for pair, idx, (sv, alpha, iterations, bias, stop, evals), cap, seconds in runs:
            T = int(iterations[i])
            pairs.append(pair)
            sv_order.append(idx[sv[:T]])
            alphas.append(alpha[:T].copy())
            intercepts.append(float(bias[i]))
            info["iterations"].append(T)
            info["stop_reason"].append(STOP_REASONS[int(stop[i])])
            info["max_iter"].append(int(cap))
            info["n_samples"].append(int(idx.size))
            info["kernel_evaluations"].append(int(evals[i]))
            info["path_kernel_evaluations"].append(int(evals.max()))
            info["loop_seconds"].append(seconds)
        self.fit_info_ = info
        n = X.shape[0]
        distinct = np.unique(np.concatenate(sv_order))
        self.support_ = distinct[np.lexsort((distinct, y_idx[distinct]))]
        self.support_vectors_ = X[self.support_]
        self.n_support_ = np.bincount(y_idx[self.support_], minlength=len(self.classes_)).astype(
            np.int32
        )
        self.support_fraction_ = float(self.support_.size / n)
        row = np.empty(n, dtype=np.intp)
        row[self.support_] = np.arange(self.support_.size)
        self._sv_rows = [row[s] for s in sv_order]  # rows of support_vectors_, per model
        self.pairs_ = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        self.sv_order_ = sv_order
        self.alphas_ = alphas
        self.intercept_ = np.asarray(intercepts, dtype=np.float64)

    def _pair_outputs(self, X):
        """Outputs ``o_k(x)`` of every binary model, shape (n_samples, n_pairs)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        out = np.empty((X.shape[0], len(self.alphas_)))
        # One kernel block against the union of the support vectors, shared by all models.
        for rows, K in rbf_blocks(X, self.support_vectors_, self.gamma):
            for k, (sv_rows, alpha) in enumerate(zip(self._sv_rows, self.alphas_)):
                out[rows, k] = K[:, sv_rows] @ alpha + self.intercept_[k]
        return out

    def _votes(self, o):
        """Votes and sums of signed decision values per class, each (n_samples, n_classes)."""
        return ovo_votes(o, self.pairs_, len(self.classes_))

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: the signed output ``o(x)``, oriented so that a positive value means
            ``classes_[1]``. Multiclass: ``votes + s / (3 (|s| + 1))`` per class, ``s``
            being the sum of signed pairwise outputs in favour of the class (see Notes of
            the class); its arg-max is the predicted class.
        """
        o = self._pair_outputs(X)
        if len(self.classes_) == 2:
            return o[:, 0] if self.pairs_[0, 0] == 1 else -o[:, 0]
        return ovo_scores(*self._votes(o))

    def predict(self, X):
        """Predicted class labels.

        Binary: the +1 class of the model where ``o(x) > 0``, the -1 class otherwise.
        Multiclass: majority vote, ties broken by the summed signed outputs, then by the
        lowest class index.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        o = self._pair_outputs(X)
        if len(self.classes_) == 2:
            a, b = self.pairs_[0]
            return self.classes_[np.where(o[:, 0] > 0, a, b)]
        return self.classes_[ovo_winner(*self._votes(o))]
