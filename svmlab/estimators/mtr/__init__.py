"""Multi-target regression (MTR): the SVR methods of Melki et al. (2017) and the Mulan baselines.

All are scikit-learn regressors taking ``Y`` of shape (n_samples, n_targets >= 2), NaN
marking a missing target value, and predicting (n_samples, n_targets).

=================  ==========================================================================
class              method
=================  ==========================================================================
SingleTargetSVR    SVR: one tuned RBF epsilon-SVR per target (Alg. 3.1)
SVRRC              ensemble of SVR chains over distinct random orders (Alg. 3.3)
SVRCC              one SVR chain in the direction of maximum target correlation (Alg. 3.4)
ST                 bagged trees per target (Mulan ST)
MTS, MTSC          stacked single-target, in-sample / out-of-fold meta-features (SST/SSTC)
RC, ERC, ERCC      regressor chain, ensemble of chains, corrected ensemble (bagged trees)
MORF               multi-output random forest (approximates CLUS's MORF)
=================  ==========================================================================

Every chain method shares :mod:`svmlab.estimators.mtr.chains`; every single-target model
is fitted (and, for the SVR methods, tuned per target or per link) by
:func:`svmlab.estimators.mtr.tuning.fit_tuned`.
"""

from svmlab.estimators.mtr.baselines import ERC, ERCC, MORF, RC, ST
from svmlab.estimators.mtr.chains import ChainModel, fit_chain
from svmlab.estimators.mtr.orders import correlation_order, random_chain_orders, target_correlation
from svmlab.estimators.mtr.stacking import MTS, MTSC
from svmlab.estimators.mtr.svr import SVRCC, SVRRC, SingleTargetSVR
from svmlab.estimators.mtr.tuning import PAPER_GRID, PAPER_GRID_GAMMA_BASE2

__all__ = [
    "ERC",
    "ERCC",
    "MORF",
    "MTS",
    "MTSC",
    "PAPER_GRID",
    "PAPER_GRID_GAMMA_BASE2",
    "RC",
    "ST",
    "SVRCC",
    "SVRRC",
    "ChainModel",
    "SingleTargetSVR",
    "correlation_order",
    "fit_chain",
    "random_chain_orders",
    "target_correlation",
]
