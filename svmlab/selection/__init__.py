"""Instance selection: class-corner instance selection (CCIS) of Oliveira (2021), Ch. 3."""

from svmlab.selection.ccis import (
    THRESHOLD_MODES,
    ClassCornerSelector,
    check_corner_threshold,
    corner_scores,
    nearest_prototype_distance,
    selection_masks,
)

__all__ = [
    "THRESHOLD_MODES",
    "ClassCornerSelector",
    "check_corner_threshold",
    "corner_scores",
    "nearest_prototype_distance",
    "selection_masks",
]
