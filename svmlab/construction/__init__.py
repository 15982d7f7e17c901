"""Multi-objective evolutionary feature construction (Mierswa (2009), Ch. 6, Secs. 6.4-6.5):
expression trees over the base features and the YAGGA2-style constructor."""

from svmlab.construction.expressions import (
    OPERATORS,
    Expr,
    Operator,
    apply,
    random_expression,
    var,
)
from svmlab.construction.yagga import YAGGAFeatureConstructor

__all__ = [
    "OPERATORS",
    "Expr",
    "Operator",
    "YAGGAFeatureConstructor",
    "apply",
    "random_expression",
    "var",
]
