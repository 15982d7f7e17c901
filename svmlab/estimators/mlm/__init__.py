"""The Minimal Learning Machine family of Oliveira (2021): Full-, Random-, Rank-, w-,
ell_{1/2}- and RMF-MLM (Sec. 2.1.3, 2.2.4), the lightweight LW-MLM (Ch. 4) and the
class-corner CCLW-MLM (Ch. 5)."""

from svmlab.estimators.mlm.class_corner import CCLWMLMClassifier
from svmlab.estimators.mlm.lightweight import LWMLMClassifier, LWMLMRegressor
from svmlab.estimators.mlm.standard import MLMClassifier, MLMRegressor

__all__ = [
    "CCLWMLMClassifier",
    "LWMLMClassifier",
    "LWMLMRegressor",
    "MLMClassifier",
    "MLMRegressor",
]
