"""OLLAWV, the OnLine Learning Algorithm using Worst-Violators (Melki et al., 2018)."""

from svmlab.estimators.ollawv.classifier import OLLAWVClassifier, c_invariant

__all__ = ["OLLAWVClassifier", "c_invariant"]
