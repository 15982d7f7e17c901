"""OLLAWV, the OnLine Learning Algorithm using Worst-Violators (Melki et al., 2018), its
regression variant (beyond the paper) and its batched-stream form DSOLLAWV (reconstructed)."""

from svmlab.estimators.ollawv.classifier import OLLAWVClassifier, c_invariant
from svmlab.estimators.ollawv.regressor import OLLAWVRegressor
from svmlab.estimators.ollawv.stream import DSOLLAWVClassifier

__all__ = ["DSOLLAWVClassifier", "OLLAWVClassifier", "OLLAWVRegressor", "c_invariant"]
