"""The per-link SVR grid search of the MTR study against scikit-learn's ``GridSearchCV``.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/mtr_grid_search.py
        [--datasets atp1d oes97 enb jura] [--max-samples 300] [--folds 10]

Every link of SVR, SVRRC and SVRCC (and every target of ST-SVR) picks (C, gamma, epsilon) from
Eq. 3.3's 72-point grid by an inner 10-fold CV on RMSE (svmlab.estimators.mtr.tuning). svmlab
computes each gamma's kernel matrices once per fold and gives them to LIBSVM for every C and
epsilon; the peer, ``GridSearchCV(SVR(), grid, scoring="neg_root_mean_squared_error")`` on the
same folds, lets LIBSVM evaluate the kernel from the inputs inside every fit. Per dataset (the
first target, inputs and target z-scored, the first ``--max-samples`` rows): CPU seconds of
each (one BLAS thread), the ratio peer / svmlab (> 1: svmlab is faster), and whether both chose
the same point. The gain grows with the number of features (the kernel's share of a fit).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.svm import SVR
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mtr.tuning import PAPER_GRID, _grid_search


def _standardised(values):
    sd = np.nanstd(values, axis=0)
    return (values - np.nanmean(values, axis=0)) / np.where(sd > 0, sd, 1.0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=["atp1d", "oes97", "enb", "jura"])
    p.add_argument("--max-samples", type=int, default=300)
    p.add_argument("--folds", type=int, default=10)
    args = p.parse_args()
    print(f"{'dataset':10} {'rows x features':>16} {'svmlab s':>9} {'peer s':>8} {'ratio':>6} same")
    for name in args.datasets:
        ds = load_dataset(name)
        X = np.nan_to_num(_standardised(ds.X))[: args.max_samples]
        y = _standardised(ds.Y[:, 0])[: args.max_samples]
        X, y = X[~np.isnan(y)], y[~np.isnan(y)]
        with threadpool_limits(1):
            t0 = time.process_time()
            ours = _grid_search(SVR(), PAPER_GRID, X, y, args.folds, 0, None)
            t1 = time.process_time()
            cv = KFold(args.folds, shuffle=True, random_state=0)
            scoring = "neg_root_mean_squared_error"
            peer = GridSearchCV(SVR(), PAPER_GRID, scoring=scoring, cv=cv, refit=False)
            peer.fit(X, y)
            t2 = time.process_time()
        same = "yes" if ours == peer.best_params_ else f"no: {ours} vs {peer.best_params_}"
        shape = f"{X.shape[0]} x {X.shape[1]}"
        print(
            f"{name:10} {shape:>16} {t1 - t0:9.2f} {t2 - t1:8.2f} {(t2 - t1) / (t1 - t0):6.1f} "
            f"{same}"
        )


if __name__ == "__main__":
    main()
