"""Multi-objective evolutionary feature construction (Mierswa (2009), Ch. 6, Secs. 6.4-6.5):
expression trees over the base features and the YAGGA2-style constructor; feature-set transfer
between tasks through a case base (Ch. 10)."""

from svmlab.construction.case_base import Case, CaseBase, union_features
from svmlab.construction.expressions import (
    OPERATORS,
    Expr,
    Operator,
    apply,
    random_expression,
    var,
)
from svmlab.construction.transfer import (
    construction_distance,
    feature_distances,
    relief_feature_weights,
    svm_feature_weights,
    task_distance,
)
from svmlab.construction.yagga import YAGGAFeatureConstructor

__all__ = [
    "OPERATORS",
    "Case",
    "CaseBase",
    "Expr",
    "Operator",
    "YAGGAFeatureConstructor",
    "apply",
    "construction_distance",
    "feature_distances",
    "random_expression",
    "relief_feature_weights",
    "svm_feature_weights",
    "task_distance",
    "union_features",
    "var",
]
