"""Multi-instance learning: estimators that take ``fit(bags, y)`` with ``bags`` a sequence of
2-D arrays (one per bag) and predict one label per bag.

* :class:`MIRSVMClassifier`: the Multi-Instance Representative SVM (Melki, Cano & Ventura
  2018; dissertation Ch. 4).
* :func:`check_bags`: the shared validation of a bag input.
"""

from svmlab.estimators.mil._bags import bag_max, check_bags
from svmlab.estimators.mil.mirsvm import MIRSVMClassifier

__all__ = ["MIRSVMClassifier", "check_bags"]
