"""The case base of case-based feature construction (Mierswa (2009), Ch. 10, Secs. 10.3 and 10.7).

A case stores what the thesis transfers, and nothing else (no data, no target, no model;
Sec. 10.8, "Adding the case"): the base-feature weights of the task, the standard deviations of
its base features, and its constructed features as expressions (a "syntactical description").

:meth:`CaseBase.retrieve` finds the cases nearest to a query task:

``"manhattan"`` / ``"euclidean"``
    :func:`~svmlab.construction.transfer.task_distance` of the weight vectors (Secs. 10.3-10.5).
``"two_phase"``
    Sec. 10.7.2: phase 1 keeps the ``n_candidates`` (thesis: 20) cases of smallest Manhattan
    weight distance ``d_w``; phase 2 ranks them by ``d_w + construction_weight * d_c``
    (thesis: "a construction sampling weight of 50"; the form of the "weighted combination" is
    not printed, this additive one is our reading), with ``d_c`` the sampling distance
    :func:`~svmlab.construction.transfer.construction_distance` from the query's constructed
    features to the case's. A query without constructed features has ``d_c = 0`` for every
    case, so the 2-phase order is then the Manhattan order.
``"random"``
    Uniformly drawn cases (the thesis's "Random" column).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from svmlab.construction.expressions import Expr
from svmlab.construction.transfer import construction_distance, task_distance

__all__ = ["Case", "CaseBase", "union_features"]

_METHODS = ("random", "euclidean", "manhattan", "two_phase")


@dataclass(frozen=True)
class Case:
    """One learning task as the case base sees it.

    Parameters
    ----------
    weights : array (d,)
        Base-feature weights (e.g. :func:`~svmlab.construction.transfer.svm_feature_weights`).
    sigmas : array (d,)
        Standard deviations of the base features (the ranges for the sampling distance).
    features : tuple of Expr
        Constructed features (expressions over the base features).
    name : str
        Free label (e.g. the task's target function, for reports).
    """

    weights: np.ndarray
    sigmas: np.ndarray
    features: tuple[Expr, ...] = field(default=())
    name: str = ""

    def __post_init__(self):
        w = np.asarray(self.weights, dtype=np.float64)
        s = np.asarray(self.sigmas, dtype=np.float64)
        if w.ndim != 1 or s.shape != w.shape:
            raise ValueError(
                f"Case: weights and sigmas must be 1-D of equal length, got {w.shape} and {s.shape}"
            )
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(s))):
            raise ValueError("Case: weights and sigmas must be finite")
        feats = tuple(self.features)
        if not all(isinstance(f, Expr) for f in feats):
            raise ValueError("Case: features must be a sequence of Expr")
        w.setflags(write=False)
        s.setflags(write=False)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "sigmas", s)
        object.__setattr__(self, "features", feats)


def union_features(cases: Iterable[Case]) -> list[Expr]:
    """The union of the constructed features of ``cases`` (Sec. 10.3), in first-seen order,
    duplicates (equal canonical forms) removed."""
    seen: dict[Expr, None] = {}
    for case in cases:
        for f in case.features:
            seen.setdefault(f, None)
    return list(seen)


class CaseBase:
    """A collection of :class:`Case` objects with nearest-case retrieval (Mierswa (2009), Ch. 10).

    Parameters
    ----------
    cases : iterable of Case
        Initial cases; all must have the same number of base features.

    Attributes
    ----------
    cases : list of Case
    """

    def __init__(self, cases: Iterable[Case] = ()):
        self.cases: list[Case] = []
        self._W = np.zeros((0, 0))
        for case in cases:
            self.add(case)

    def __len__(self) -> int:
        return len(self.cases)

    @property
    def n_base(self) -> int | None:
        """Number of base features (None while empty)."""
        return self.cases[0].weights.shape[0] if self.cases else None

    def add(self, case: Case) -> CaseBase:
        """Store ``case`` (the thesis stores a task whose constructed features gave a sufficient
        gain; that test is the caller's)."""
        if not isinstance(case, Case):
            raise ValueError(f"CaseBase.add: case must be a Case, got {type(case).__name__}")
        if self.cases and case.weights.shape[0] != self.n_base:
            raise ValueError(
                f"CaseBase.add: the case has {case.weights.shape[0]} base features, "
                f"the case base {self.n_base}"
            )
        self.cases.append(case)
        self._W = np.vstack([self._W.reshape(-1, case.weights.shape[0]), case.weights])
        return self

    def weight_distances(self, query: Case, metric: str = "manhattan") -> np.ndarray:
        """:func:`~svmlab.construction.transfer.task_distance` from ``query`` to every case."""
        self._check_query(query, "weight_distances")
        return np.atleast_1d(task_distance(query.weights, self._W, metric=metric))

    def retrieve(
        self,
        query: Case,
        method: str = "manhattan",
        k: int = 1,
        *,
        n_candidates: int = 20,
        construction_weight: float = 50.0,
        n_samples: int = 100,
        random_state=None,
    ) -> list[Case]:
        """The ``k`` cases nearest to ``query``, nearest first (ties: the earlier stored case).

        Parameters
        ----------
        query : Case
            The new task: its weights, base-feature sigmas and (for ``"two_phase"``) the
            features it has constructed so far.
        method : {"random", "euclidean", "manhattan", "two_phase"}
        k : int
            Number of cases returned (the thesis's ``k'``; Table 10.2 uses 1).
        n_candidates : int
            Phase-1 candidate count of ``"two_phase"`` (thesis: 20).
        construction_weight : float
            Weight of the construction distance in phase 2 (thesis: 50).
        n_samples : int
            Artificial points per construction distance (Fig. 10.6's ``m``).
        random_state : int, Generator or None
            Draws the random cases and the artificial points.
        """
        name = "CaseBase.retrieve"
        if method not in _METHODS:
            raise ValueError(f"{name}: method must be one of {list(_METHODS)}, got {method!r}")
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise ValueError(f"{name}: k must be an int >= 1, got {k!r}")
        if isinstance(n_candidates, bool) or not isinstance(n_candidates, int) or n_candidates < 1:
            raise ValueError(f"{name}: n_candidates must be an int >= 1, got {n_candidates!r}")
        if not np.isscalar(construction_weight) or not construction_weight >= 0:
            raise ValueError(
                f"{name}: construction_weight must be a number >= 0, got {construction_weight!r}"
            )
        if not self.cases:
            raise ValueError(f"{name}: the case base is empty")
        self._check_query(query, name)
        k = min(int(k), len(self.cases))
        rng = np.random.default_rng(random_state)
        if method == "random":
            return [self.cases[i] for i in rng.choice(len(self.cases), size=k, replace=False)]
        metric = "euclidean" if method == "euclidean" else "manhattan"
        d_w = self.weight_distances(query, metric)
        order = np.argsort(d_w, kind="stable")
        if method != "two_phase":
            return [self.cases[i] for i in order[:k]]
        candidates = order[: max(n_candidates, k)]
        score = np.array(
            [
                d_w[i]
                + construction_weight
                * construction_distance(
                    query.features,
                    self.cases[i].features,
                    query.sigmas,
                    self.cases[i].sigmas,
                    n_samples=n_samples,
                    rng=rng,
                )
                for i in candidates
            ]
        )
        return [self.cases[i] for i in candidates[np.argsort(score, kind="stable")[:k]]]

    def _check_query(self, query, name):
        if not isinstance(query, Case):
            raise ValueError(f"{name}: query must be a Case, got {type(query).__name__}")
        if self.cases and query.weights.shape[0] != self.n_base:
            raise ValueError(
                f"{name}: the query has {query.weights.shape[0]} base features, "
                f"the case base {self.n_base}"
            )
