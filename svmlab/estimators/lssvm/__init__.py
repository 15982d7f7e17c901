"""LSSVM family of Oliveira (2021), Ch. 2-3: the full LSSVM, its (C, sigma) tuning, and the
sparse class-corner variants CC-LSSVM (Alg. 8) and FCC-LSSVM (Alg. 9)."""

from svmlab.estimators.lssvm.cc import CCLSSVMClassifier
from svmlab.estimators.lssvm.fcc import FCCLSSVMClassifier
from svmlab.estimators.lssvm.full import LSSVMClassifier, LSSVMRegressor
from svmlab.estimators.lssvm.tuning import tune_lssvm

__all__ = [
    "CCLSSVMClassifier",
    "FCCLSSVMClassifier",
    "LSSVMClassifier",
    "LSSVMRegressor",
    "tune_lssvm",
]
