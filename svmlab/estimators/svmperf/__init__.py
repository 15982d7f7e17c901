"""SVM^perf for multivariate performance measures and its multiple-kernel extension MKLPO.

Joachims (ICML 2005) trains a structural SVM whose one "example" is the whole training set,
with one joint constraint per labelling and the loss of a non-decomposable measure (F1,
PRBEP, AUC, MCC, accuracy); Wang, Wang, Zhou & McDonald ("Multiple kernel multivariate
performance learning using cutting plane algorithm") add a learned combination of kernels
(MKLPO). Modules:

* :mod:`.oracles` -- the exact most-violated-constraint oracles, one per measure;
* :mod:`.working_set_qp` -- the working-set dual (Eq. 17), OSQP with a Clarabel fallback;
* :mod:`.blocks`, :mod:`.kernel_bank` -- kernels as Gram matrices or explicit (Nystroem)
  features, and the candidate kernel banks;
* :mod:`.kernel_weights` -- the kernel-weight step (Eq. 18 and its well-defined readings);
* :mod:`.cutting_plane` -- the 1-slack cutting plane alternating with the weight step;
* :mod:`.estimator` -- :class:`SVMPerfClassifier` and :class:`MKLPOClassifier`;
* :mod:`.comparators` -- the reconstructed competitors CAPO and FSPO (CPSP and NDLO are
  configurations of :class:`SVMPerfClassifier`).
"""

from svmlab.estimators.svmperf.comparators import CAPOClassifier, FSPOClassifier
from svmlab.estimators.svmperf.estimator import MKLPOClassifier, SVMPerfClassifier

__all__ = ["CAPOClassifier", "FSPOClassifier", "MKLPOClassifier", "SVMPerfClassifier"]
