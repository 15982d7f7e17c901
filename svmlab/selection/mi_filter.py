"""Feature selectors for multi-instance data: keep the same columns of every bag.

:class:`MultiInstanceFeatureSelector` is the ReliefF-MI filter of HyDR-MI (Zafra, Pechenizkiy &
Ventura, Sec. 3.2): rank the features by their ReliefF-MI weight and keep the top fraction.
It goes in a scikit-learn :class:`~sklearn.pipeline.Pipeline` before any multi-instance
estimator, e.g. ``make_pipeline(MultiInstanceFeatureSelector(fraction=0.3), SimpleMIClassifier())``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.bags import check_bags
from svmlab.selection.relieff_mi import (
    BAG_DISTANCES,
    DIFF_PAIRS,
    INSTANCE_METRICS,
    MAX_WITNESSES,
    SAMPLINGS,
    relieff_mi_weights,
)

__all__ = [
    "BagColumnSelectorMixin",
    "MultiInstanceFeatureSelector",
    "bag_columns",
    "rank_features",
    "subset_size",
]

CONSTANT_FEATURES = ("rank_as_zero", "rank_last", "drop")
ROUNDINGS = ("half_up", "floor")


def subset_size(fraction: float, n_features: int, rounding: str = "half_up") -> int:
    """Number of features kept for ``fraction`` of ``n_features`` (at least one).

    ``"half_up"`` gives the HyDR-MI paper's 115 and 83 features for 50 % of 230 and 166;
    ``"floor"`` truncates.
    """
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")
    raw = fraction * n_features
    n = int(np.floor(raw + 0.5 + 1e-9)) if rounding == "half_up" else int(np.floor(raw + 1e-9))
    return min(max(n, 1), n_features)


def rank_features(weights, constant=None, constant_features: str = "rank_as_zero"):
    """Feature indices from the highest weight down, ties to the lower index.

    Parameters
    ----------
    weights : ndarray of shape (n_features,)
    constant : ndarray of bool of shape (n_features,), optional
        Features constant over the training instances (their weight is 0).
    constant_features : {"rank_as_zero", "rank_last", "drop"}, default="rank_as_zero"
        ``"rank_as_zero"``: a constant feature ranks by its weight 0, above every negative
        weight (the paper's reading); ``"rank_last"``: after every other feature; ``"drop"``:
        left out of the ranking.
    """
    if constant_features not in CONSTANT_FEATURES:
        raise ValueError(
            f"constant_features must be one of {CONSTANT_FEATURES}, got {constant_features!r}"
        )
    weights = np.asarray(weights, dtype=float)
    constant = np.zeros(len(weights), bool) if constant is None else np.asarray(constant, bool)
    order = np.lexsort((np.arange(len(weights)), -weights))
    if constant_features == "rank_as_zero":
        return order
    rest = order[~constant[order]]
    return rest if constant_features == "drop" else np.concatenate([rest, order[constant[order]]])


def bag_columns(bags, support, n_features: int):
    """The columns ``support`` (a boolean mask) of every bag, as a list of arrays; the bags are
    validated against ``n_features``."""
    X, starts, _ = check_bags(bags, n_features)
    return np.split(X[:, support], starts[1:])


class BagColumnSelectorMixin(TransformerMixin):
    """``transform`` and ``get_support`` of a selector whose fitted ``support_`` marks the
    kept features of every bag."""

    def get_support(self, indices: bool = False):
        """The kept features: a boolean mask, or their indices with ``indices=True``."""
        check_is_fitted(self, "support_")
        return np.flatnonzero(self.support_) if indices else self.support_.copy()

    def transform(self, bags):
        """Every bag with only the kept feature columns.

        Parameters
        ----------
        bags : sequence of ndarray of shape (n_instances_I, n_features)

        Returns
        -------
        list of ndarray of shape (n_instances_I, n_selected)
        """
        check_is_fitted(self, "support_")
        return bag_columns(bags, self.support_, self.n_features_in_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.target_tags.required = True
        return tags


class MultiInstanceFeatureSelector(BagColumnSelectorMixin, BaseEstimator):
    """Keep the top ``fraction`` of the features by ReliefF-MI weight (HyDR-MI, Sec. 3.2).

    Parameters
    ----------
    fraction : float in (0, 1], default=0.5
        Share of the features kept (HyDR-MI's filter keeps 50 %; its first study 10-60 %).
    distance : {"adapted", "min", "max", "avg"}, default="adapted"
        Hausdorff bag distance (:mod:`svmlab.selection.relieff_mi`).
    k : int, default=80
        Nearest hits and misses per reference bag (capped at what the class has).
    m : int, default=180
        Normaliser of the weight update.
    instance_metric : {"cityblock", "euclidean"}, default="cityblock"
    sampling : {"all", "random"}, default="all"
        Every bag the reference once, or ``m`` bags drawn at random.
    diff_pairs : {"distance", "min", "max", "avg"}, default="distance"
        The instance pairs the per-feature differences are taken on: those that realise
        ``distance`` (the paper), or one simple distance's for every pair of bags.
    max_witness : {"larger", "reference"}, default="larger"
        The pair a maximal-distance ``diff_bag`` is taken on: that of the larger directed
        distance (the paper's maximal distance), or always the reference bag's, ``h(R, B)``'s.
    constant_features : {"rank_as_zero", "rank_last", "drop"}, default="rank_as_zero"
        Where features constant over the training instances rank (:func:`rank_features`).
    rounding : {"half_up", "floor"}, default="half_up"
        How ``fraction * n_features`` becomes a count (:func:`subset_size`).
    random_state : int, RandomState instance or None, default=None
        Only used with ``sampling="random"``.

    Attributes
    ----------
    weights_ : ndarray of shape (n_features_in_,)
        ReliefF-MI weights (0 for a constant feature).
    ranking_ : ndarray of int
        Feature indices, best first.
    support_ : ndarray of bool of shape (n_features_in_,)
    constant_ : ndarray of bool of shape (n_features_in_,)
        Features constant over the training instances.
    n_constant_in_subset_ : int
        Constant features among the kept ones (they carry no information; a learner that
        divides by a feature's range, such as Weka's CitationKNN, breaks on them).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.selection import MultiInstanceFeatureSelector
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.normal(size=(3, 4)) + [2 * (i % 2), 0, 0, 0] for i in range(20)]
    >>> sel = MultiInstanceFeatureSelector(fraction=0.25).fit(bags, [i % 2 for i in range(20)])
    >>> sel.get_support(indices=True)
    array([0])
    """

    _parameter_constraints: dict = {
        "fraction": [Interval(Real, 0, 1, closed="right")],
        "distance": [StrOptions(set(BAG_DISTANCES))],
        "k": [Interval(Integral, 1, None, closed="left")],
        "m": [Interval(Integral, 1, None, closed="left")],
        "instance_metric": [StrOptions(set(INSTANCE_METRICS))],
        "sampling": [StrOptions(set(SAMPLINGS))],
        "diff_pairs": [StrOptions(set(DIFF_PAIRS))],
        "max_witness": [StrOptions(set(MAX_WITNESSES))],
        "constant_features": [StrOptions(set(CONSTANT_FEATURES))],
        "rounding": [StrOptions(set(ROUNDINGS))],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        fraction: float = 0.5,
        *,
        distance: str = "adapted",
        k: int = 80,
        m: int = 180,
        instance_metric: str = "cityblock",
        sampling: str = "all",
        diff_pairs: str = "distance",
        max_witness: str = "larger",
        constant_features: str = "rank_as_zero",
        rounding: str = "half_up",
        random_state=None,
    ):
        self.fraction = fraction
        self.distance = distance
        self.k = k
        self.m = m
        self.instance_metric = instance_metric
        self.sampling = sampling
        self.diff_pairs = diff_pairs
        self.max_witness = max_witness
        self.constant_features = constant_features
        self.rounding = rounding
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Weigh the features on the training bags ``bags`` (labels ``y``) and keep the top
        ``fraction``."""
        self.weights_, span = relieff_mi_weights(
            bags,
            y,
            distance=self.distance,
            k=self.k,
            m=self.m,
            instance_metric=self.instance_metric,
            sampling=self.sampling,
            diff_pairs=self.diff_pairs,
            max_witness=self.max_witness,
            random_state=self.random_state,
            return_span=True,
        )
        d = len(span)
        self.n_features_in_ = d
        self.constant_ = span == 0
        self.ranking_ = rank_features(self.weights_, self.constant_, self.constant_features)
        keep = self.ranking_[: subset_size(self.fraction, d, self.rounding)]
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[keep] = True
        self.n_constant_in_subset_ = int(np.sum(self.constant_ & self.support_))
        return self
