"""L2-SVM baselines of the OLLAWV study (Melki 2018, Table 5.3), reconstructed.

* :class:`NNISDAClassifier`: single-coordinate descent on the L2-SVM dual (bias in the kernel).
* :class:`MNSVMClassifier`: the same L2-SVM as a geometric minimal-norm / nearest-point problem,
  solved by Mitchell-Dem'yanov-Malozemov (MDM) iterations; by default with GSVM's random
  candidate draws and geometric stopping rule, so its model differs a little from NNISDA's
  (``formulation="min_norm"`` gives NNISDA's model).

Both use the RBF kernel, one-vs-one multiclass with OLLAWV's pair order and voting, and a
kernel-column cache instead of an n x n matrix. Neither algorithm is described in the
dissertation (Melki (2018), Sec. 5.3.1 only names them); see docs/decisions/ollawv.md,
"NNISDA and MNSVM reconstructions".
"""

from svmlab.estimators.l2svm.mnsvm import MNSVMClassifier
from svmlab.estimators.l2svm.nnisda import NNISDAClassifier

__all__ = ["MNSVMClassifier", "NNISDAClassifier"]
