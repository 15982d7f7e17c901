"""LSSVM family of Oliveira (2021), Ch. 2-3: the full LSSVM, its (C, gamma) tuning, the
sparse class-corner variants CC-LSSVM (Alg. 8) and FCC-LSSVM (Alg. 9), and the reconstructed
Ch. 3 baselines FSA-, SSD- and CCP-LSSVM (Table 4)."""

from svmlab.estimators.lssvm.cc import CCLSSVMClassifier
from svmlab.estimators.lssvm.ccp import CCPLSSVMClassifier
from svmlab.estimators.lssvm.fcc import FCCLSSVMClassifier
from svmlab.estimators.lssvm.fsa import FSALSSVMClassifier
from svmlab.estimators.lssvm.full import LSSVMClassifier, LSSVMRegressor
from svmlab.estimators.lssvm.ssd import SSDLSSVMClassifier
from svmlab.estimators.lssvm.tuning import tune_lssvm

__all__ = [
    "CCLSSVMClassifier",
    "CCPLSSVMClassifier",
    "FCCLSSVMClassifier",
    "FSALSSVMClassifier",
    "LSSVMClassifier",
    "LSSVMRegressor",
    "SSDLSSVMClassifier",
    "tune_lssvm",
]
