"""Instance and feature selection.

* Class-corner instance selection (CCIS) of Oliveira (2021), Ch. 3: :class:`ClassCornerSelector`.
* Multi-instance feature selection of HyDR-MI (Zafra, Pechenizkiy & Ventura): the ReliefF-MI
  weights (:func:`relieff_mi_weights`) and filter (:class:`MultiInstanceFeatureSelector`), the
  genetic wrapper (:class:`GeneticFeatureSelector`); both in front of a learner are the
  multi-instance classifier :class:`svmlab.estimators.mil.HyDRMIClassifier`.
* Multi-objective evolutionary feature selection of Mierswa (2009), Part II: the wrapper around
  any estimator (:class:`MOFeatureSelector`, Sec. 6.2) and its NSGA-II search over feature masks
  with a fitness cache (:func:`search_masks`), and the unsupervised selection for clustering
  (:class:`ClusteringFeatureSelector`, Ch. 8).
"""

from svmlab.selection.ccis import (
    THRESHOLD_MODES,
    ClassCornerSelector,
    check_corner_threshold,
    corner_scores,
    nearest_prototype_distance,
    selection_masks,
)
from svmlab.selection.genetic import GeneticFeatureSelector, sensitivity_x_specificity
from svmlab.selection.mi_filter import MultiInstanceFeatureSelector, rank_features, subset_size
from svmlab.selection.mo_clustering import ClusteringFeatureSelector
from svmlab.selection.mo_search import MaskSearchResult, search_masks
from svmlab.selection.mo_wrapper import MOFeatureSelector
from svmlab.selection.relieff_mi import (
    bag_distance_matrix,
    bag_distance_tables,
    relieff_mi_terms,
    relieff_mi_weights,
)

__all__ = [
    "THRESHOLD_MODES",
    "ClassCornerSelector",
    "ClusteringFeatureSelector",
    "GeneticFeatureSelector",
    "MOFeatureSelector",
    "MaskSearchResult",
    "MultiInstanceFeatureSelector",
    "bag_distance_matrix",
    "bag_distance_tables",
    "check_corner_threshold",
    "corner_scores",
    "nearest_prototype_distance",
    "rank_features",
    "relieff_mi_terms",
    "relieff_mi_weights",
    "selection_masks",
    "search_masks",
    "sensitivity_x_specificity",
    "subset_size",
]
