"""Multi-instance learning: estimators that take ``fit(bags, y)`` with ``bags`` a sequence of
2-D arrays (one per bag) and predict one label per bag.

* :class:`MIRSVMClassifier`: the Multi-Instance Representative SVM (Melki, Cano & Ventura
  2018; dissertation Ch. 4).
* The comparators of the MIRSVM study (Melki (2018), Sec. 4.3; docs/decisions/mil.md,
  "Comparators re-implemented"), re-implemented:
  :class:`BagMISVMClassifier` (MI-SVM) and :class:`InstanceMISVMClassifier` (mi-SVM), both
  Andrews et al.,
  :class:`SetKernelSVC` (the MISMO set kernel), :class:`MiGraphClassifier`,
  :class:`SimpleMIClassifier`,
  :class:`MIWrapperClassifier`, :class:`TLCClassifier` with :class:`TLCBaggingClassifier` and
  :class:`TLCStackingClassifier`, :class:`MIBoostClassifier`, :class:`DiverseDensityClassifier`
  (MIDD), :class:`EMDDClassifier`, :class:`MIOptimalBallClassifier` and
  :class:`CitationKNNClassifier`.
* :class:`HyDRMIClassifier`: any multi-instance classifier trained on the features HyDR-MI
  selects for it (Zafra, Pechenizkiy & Ventura; the selectors are in :mod:`svmlab.selection`).
* Weka 3.6's other two multi-instance learners, re-implemented: :class:`MILRClassifier`
  (MILR, Xu & Frank 2004) and :class:`MDDClassifier` (MDD, Xu 2003).
* :func:`check_bags`: the shared validation of a bag input.
"""

from svmlab.estimators.mil._bags import bag_max, check_bags
from svmlab.estimators.mil.boost import MIBoostClassifier
from svmlab.estimators.mil.citation_knn import CitationKNNClassifier
from svmlab.estimators.mil.diverse_density import DiverseDensityClassifier, EMDDClassifier
from svmlab.estimators.mil.embedding import SimpleMIClassifier
from svmlab.estimators.mil.hydrmi import HyDRMIClassifier
from svmlab.estimators.mil.logistic import MILRClassifier
from svmlab.estimators.mil.migraph import MiGraphClassifier
from svmlab.estimators.mil.mirsvm import MIRSVMClassifier
from svmlab.estimators.mil.misvm import BagMISVMClassifier, InstanceMISVMClassifier
from svmlab.estimators.mil.modified_dd import MDDClassifier
from svmlab.estimators.mil.optimal_ball import MIOptimalBallClassifier
from svmlab.estimators.mil.set_kernel import SetKernelSVC
from svmlab.estimators.mil.tlc import TLCBaggingClassifier, TLCClassifier, TLCStackingClassifier
from svmlab.estimators.mil.wrapper import MIWrapperClassifier

__all__ = [
    "BagMISVMClassifier",
    "CitationKNNClassifier",
    "DiverseDensityClassifier",
    "EMDDClassifier",
    "HyDRMIClassifier",
    "InstanceMISVMClassifier",
    "MDDClassifier",
    "MIBoostClassifier",
    "MILRClassifier",
    "MIOptimalBallClassifier",
    "MIRSVMClassifier",
    "MIWrapperClassifier",
    "MiGraphClassifier",
    "SetKernelSVC",
    "SimpleMIClassifier",
    "TLCBaggingClassifier",
    "TLCClassifier",
    "TLCStackingClassifier",
    "bag_max",
    "check_bags",
]
