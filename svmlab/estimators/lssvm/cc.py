"""CC-LSSVM: the class-corner sparse LSSVM of Oliveira (2021), Sec. 3.2, Alg. 8."""

from __future__ import annotations

import numpy as np

from svmlab.estimators.lssvm._class_corner import ClassCornerLSSVMBase, fallback_size
from svmlab.selection import corner_scores, selection_masks

__all__ = ["CCLSSVMClassifier"]


class CCLSSVMClassifier(ClassCornerLSSVMBase):
    """CC-LSSVM: LSSVM over class corners (Alg. 8).

    1. ``R`` by Eq. 3.10 (unless given), ``Gamma`` of every sample (Eq. 3.8);
    2. PS = CCIS(D, 0) are the rows (constraints), SV = CCIS(D, P) the columns (SVs);
    3. Eq. 3.11 with the PS labels on the right and ``1/C`` where a row and a column are the
       same sample, solved by least squares; predict ``sign(sum_SV alpha*_j K(x, x_j) + b*)``.

    The ``N x N`` kernel is never built (only ``K(PS, SV)``).

    Parameters
    ----------
    C : float or None, default=None
        Regularisation (the thesis's gamma); ``None`` tunes it with :func:`tune_lssvm` on the
        training data (with ``gamma``; 10-fold on the full LSSVM, as the thesis does).
    gamma : float or None, default=None
        RBF precision, ``K(x, z) = exp(-gamma ||x - z||^2)`` (the thesis's width sigma is
        ``gamma = 1 / sigma^2``; :class:`~svmlab.estimators.lssvm.LSSVMClassifier`). None:
        tuned with ``C``.
    n_neighbors : int, default=16
        ``K`` of CCIS.
    corner_threshold : int, default=9
        ``P`` of CCIS, ``0 <= P < K``.
    radius : float or None, default=None
        ``R``; None uses Eq. 3.10.
    r_factor : float, default=1.0
        Multiplies the estimated ``R`` (Fig. 13).
    threshold_mode : {"thesis", "author_code"}, default="thesis"
        See :func:`svmlab.selection.corner_scores`.
    constraints : {"all", "prototypes"}, default="all"
        Rows of Eq. 3.11: every training sample (memory ``O(MN)``, the cost Table 8 states), or
        only the prototypes PS, as Algs. 8-9 print it. With PS rows, samples far from the class
        border never enter the system and their side is decided by ``b*`` alone: on SHUTTLE
        (Table 7), Wisconsin and ionosphere that falls below the majority rate, while ``"all"``
        gives the published accuracies (docs/decisions/lssvm_mlm.md, "Constraint rows").
    fallback : {"top_scores", "prototypes", "error"}, default="top_scores"
        Empty SV (spec A7): the ``ceil(sqrt(|PS|))`` (at least 2) prototypes of highest
        ``Gamma``, all of PS, or an error. Empty PS always falls back to the full LSSVM.
        Either is warned and recorded in ``fit_info_["fallback"]``.
    Cs, gammas : list of float or None, default=None
        Grids of the internal tuning (None: spec A5).
    tune_folds : int, default=10
    tune_max_samples : int or None, default=2000
        Tune on a stratified subsample of this size when N is larger (None: all samples); the
        same default as every LSSVM estimator, so that all tune to the same values.
    tune_random_state : int, RandomState or None, default=None
        Seeds the tuning's subsample and folds in place of ``random_state``: an int gives the
        same ``(C, gamma)`` to fits on the same training rows whatever their ``random_state``
        (Oliveira (2021), Table 7: one pair per dataset for all 20 realisations).
    memory : str, joblib.Memory or None, default=None
        Caches the ``C``/``gamma`` search (joblib.Memory): every LSSVM variant finds the same
        values on the same training rows and seed, so a study that fits several variants on one
        split searches once. ``"auto"``: svmlab's user cache; a path: a joblib cache there.
    random_state : int, RandomState or None, default=None
        Seeds the tuning folds (and the subsample, and fallback ties).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    support_ : ndarray of int
        Training indices of the SVs (sorted).
    support_vectors_ : ndarray of shape (M, n_features)
    n_support_ : ndarray of shape (2,)
        SVs of ``classes_[0]`` and ``classes_[1]``; their sum is M (SPR = 1 - M/N).
    dual_coef_ : ndarray of shape (1, M)
    intercept_ : ndarray of shape (1,)
    prototypes_ : ndarray of int
        Training indices of PS (the rows of Eq. 3.11).
    scores_ : ndarray of shape (n_samples,)
        ``Gamma`` of every training sample.
    radius_ : float
    C_, gamma_ : float
        The hyper-parameters used (``gamma_`` is the RBF precision).
    fit_info_ : dict
        ``C``, ``gamma``, ``tuned``, ``tune_samples`` (rows the tuning ran on; 0 if ``C``
        and ``gamma`` were given), ``threshold_mode``, ``radius``,
        ``n_corners`` (|CCIS(D, P)|), ``n_prototypes`` (|PS|), ``n_support`` (M),
        ``sparsity`` (SPR), ``lstsq_rank``, ``solver``, ``fallback`` (None or what was done).
    n_features_in_ : int

    References
    ----------
    Oliveira (2021), Sec. 3.2, Eqs. 3.11-3.13, Alg. 8; Oliveira, Gomes and Rocha Neto,
    Neurocomputing (2018).
    """

    def __init__(
        self,
        C=None,
        gamma=None,
        n_neighbors=16,
        corner_threshold=9,
        radius=None,
        r_factor=1.0,
        threshold_mode="thesis",
        fallback="top_scores",
        constraints="all",
        Cs=None,
        gammas=None,
        tune_folds=10,
        tune_max_samples=2000,
        tune_random_state=None,
        memory=None,
        random_state=None,
    ):
        self.C = C
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.corner_threshold = corner_threshold
        self.radius = radius
        self.r_factor = r_factor
        self.threshold_mode = threshold_mode
        self.fallback = fallback
        self.constraints = constraints
        self.Cs = Cs
        self.gammas = gammas
        self.tune_folds = tune_folds
        self.tune_max_samples = tune_max_samples
        self.tune_random_state = tune_random_state
        self.memory = memory
        self.random_state = random_state

    def _select(self, X, t, info, rng):
        scores, radius = corner_scores(
            X,
            t,
            n_neighbors=self.n_neighbors,
            radius=self.radius,
            r_factor=self.r_factor,
            threshold_mode=self.threshold_mode,
        )
        ps, sv = selection_masks(scores, self.corner_threshold, self.threshold_mode)
        rows, cols = np.flatnonzero(ps), np.flatnonzero(sv)
        self.radius_ = radius
        info["radius"] = radius
        info["n_corners"] = int(len(cols))
        if len(cols) == 0 and len(rows):
            cols = self._fallback_columns(rows, scores, fallback_size(len(rows)), info, rng)
        return rows, cols, scores
