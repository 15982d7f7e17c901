"""FCC-LSSVM: fixed-size CC-LSSVM for large data, Oliveira (2021), Sec. 3.3.2.2, Alg. 9."""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from sklearn.model_selection import StratifiedKFold

from svmlab._sklearn_compat import Interval
from svmlab.estimators.lssvm._class_corner import ClassCornerLSSVMBase, top_scores
from svmlab.selection import corner_scores, selection_masks

__all__ = ["FCCLSSVMClassifier", "STRATUM_SIZE"]

#: Spec A6: ``J = ceil(N / STRATUM_SIZE)`` strata when ``n_strata`` is None.
STRATUM_SIZE = 5000


class FCCLSSVMClassifier(ClassCornerLSSVMBase):
    """FCC-LSSVM: CC-LSSVM with local CCIS on strata and exactly ``n_support`` SVs (Alg. 9).

    1. Split D into ``J`` disjoint strata with the class proportions of D (the test folds of
       a shuffled ``StratifiedKFold(J)``; Eq. 3.14);
    2. in each stratum: its own ``R_j`` (Eq. 3.10), ``Gamma`` computed inside the stratum,
       ``PS += CCIS(S_j, 0)``, ``SV += CCIS(S_j, P)``;
    3. sort SV by ``Gamma`` in descending order (stable, after a seeded permutation: ties
       at random) and keep the first ``M = n_support``;
    4. one global least-squares solve of Eq. 3.11 over PS (rows) and the M SVs (columns).

    Memory ``O(M N)`` (the ``|PS| x M`` system, built in row blocks), training
    ``O(M^2 N)``, prediction ``O(M)`` per sample (Table 8).

    Parameters
    ----------
    n_support : int, default=200
        ``M``, the number of SVs (Table 6: 200-400). When fewer corners exist, all of them are
        kept (spec A6), with a warning and ``fit_info_["note"]``.
    n_strata : int or None, default=None
        ``J``; None means ``ceil(N / 5000)`` (spec A6).
    tune_max_samples : int or None, default=2000
        ``C``/``gamma`` left None are tuned on a stratified subsample of this size (the full
        LSSVM of the tuning is ``N x N``).
    memory : str, joblib.Memory or None, default=None
        Caches the ``C``/``gamma`` search (joblib.Memory): every LSSVM variant finds the same
        values on the same training rows and seed, so a study that fits several variants on one
        split searches once. ``"auto"``: svmlab's user cache; a path: a joblib cache there.
    C, gamma, n_neighbors, corner_threshold, radius, r_factor, threshold_mode, fallback, \
constraints, Cs, gammas, tune_folds, tune_random_state, random_state
        As in :class:`CCLSSVMClassifier`; ``radius`` (if given) is used in every stratum;
        ``fallback="top_scores"`` takes the M prototypes of highest ``Gamma`` when no
        stratum has a corner. ``random_state`` also seeds the strata and the tie order.

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_, prototypes_,
    scores_, C_, gamma_, n_features_in_
        As in :class:`CCLSSVMClassifier` (``scores_`` is each sample's ``Gamma`` in its
        stratum).
    radii_ : ndarray of shape (J,)
        ``R_j`` of every stratum.
    fit_info_ : dict
        As in :class:`CCLSSVMClassifier` plus ``n_strata``, ``radii``, ``n_corners`` (the
        union before the top-M cut), ``n_support_requested`` and ``note`` (None, or why
        fewer than ``n_support`` SVs were kept).

    References
    ----------
    Oliveira (2021), Sec. 3.3.2.2, Alg. 9, Eq. 3.14, Tables 6 and 8.
    """

    _parameter_constraints: dict = {
        **ClassCornerLSSVMBase._parameter_constraints,
        "n_support": [Interval(Integral, 1, None, closed="left")],
        "n_strata": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        n_support=200,
        n_strata=None,
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
        self.n_support = n_support
        self.n_strata = n_strata
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

    def _strata(self, t, rng):
        n = len(t)
        J = self.n_strata if self.n_strata is not None else math.ceil(n / STRATUM_SIZE)
        if J == 1:
            return [np.arange(n)]
        smallest = int(np.bincount((t > 0).astype(int)).min())
        if J > smallest:
            raise ValueError(
                f"{type(self).__name__}: n_strata={J} exceeds the size of the smaller class "
                f"({smallest}); every stratum needs both classes"
            )
        seed = rng.randint(np.iinfo(np.int32).max)
        folds = StratifiedKFold(J, shuffle=True, random_state=seed)
        return [np.sort(test) for _, test in folds.split(np.zeros((n, 1)), t)]

    def _select(self, X, t, info, rng):
        scores = np.zeros(len(t), dtype=np.int64)
        radii = []
        strata = self._strata(t, rng)
        for stratum in strata:
            s, r = corner_scores(
                X[stratum],
                t[stratum],
                n_neighbors=self.n_neighbors,
                radius=self.radius,
                r_factor=self.r_factor,
                threshold_mode=self.threshold_mode,
            )
            scores[stratum] = s
            radii.append(r)
        ps, sv = selection_masks(scores, self.corner_threshold, self.threshold_mode)
        rows, corners = np.flatnonzero(ps), np.flatnonzero(sv)
        self.radii_ = np.asarray(radii)
        info.update(
            n_strata=len(strata),
            radii=[float(r) for r in radii],
            n_corners=int(len(corners)),
            n_support_requested=int(self.n_support),
            note=None,
        )
        M = int(self.n_support)
        if len(corners) == 0 and len(rows):
            cols = self._fallback_columns(rows, scores, M, info, rng)
        else:
            cols = top_scores(corners, scores, M, rng)
        if 0 < len(cols) < M:
            self._warn(
                info,
                "note",
                f"only {len(cols)} SVs available (n_support={M} requested); keeping all of "
                "them (spec A6)",
            )
        return rows, cols, scores
