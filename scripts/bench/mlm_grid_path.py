"""Random- and Rank-MLM's Table 10 grid search: svmlab's joint path against GridSearchCV.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/mlm_grid_path.py
        [--datasets abalone wine_quality_red] [--folds 5]

``lwmlm_bench`` tunes Random-MLM over K in {5 %, ..., 50 %} of the training rows and Rank-MLM
over the same K times C in {2^-4, ..., 2^2} (Oliveira (2021), Table 10) by 5-fold CV on R²
(squared Pearson r). svmlab fits each inner fold's whole grid with one ``fit_path``: the
reference points of a smaller K are the first K of the same random draw, so one set of
distances and one factorisation (a QR of ``D`` for C = 0, ``D^T D`` for C > 0) serve every
point. The peer is scikit-learn's ``GridSearchCV`` on the same folds with the same seed, which
fits every point on its own and so draws the very same reference points.

For each dataset (one random split of Table 9's training size, seed 0, inputs z-scored on the
training part) and each grid the script prints the CPU seconds of both searches (one BLAS
thread), their ratio, whether they choose the same point and the largest difference between
their mean scores (rounding only).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import pearsonr
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mlm import MLMRegressor

#: Table 9's training sizes of the sets used here
TRAIN_SIZE = {"abalone": 3000, "wine_quality_red": 1000, "kin8nm": 4500, "boston": 350}
K_GRID = [0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40, 0.45, 0.50]
C_GRID = [0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0]


def _r2_pearson(y, p):
    return float(pearsonr(y, p)[0] ** 2) if np.std(p) > 0 else 0.0


def _path_search(X, y, folds, points):
    scores = np.zeros((len(folds), len(points)))
    for f, (train, test) in enumerate(folds):
        models = MLMRegressor(random_state=0).fit_path(X[train], y[train], points)
        scores[f] = [_r2_pearson(y[test], m.predict(X[test])) for m in models]
    return scores.mean(axis=0)


def _grid_search(X, y, folds, grid):
    search = GridSearchCV(
        MLMRegressor(random_state=0), grid, cv=folds, scoring=make_scorer(_r2_pearson), n_jobs=1
    )
    search.fit(X, y)
    return search.cv_results_


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="*", default=["abalone", "wine_quality_red"])
    ap.add_argument("--folds", type=int, default=5)
    args = ap.parse_args()
    print("grid search of Table 10 by 5-fold CV on squared Pearson r, one BLAS thread, CPU s")
    print(
        f"{'dataset':<18} {'grid':<26} {'path':>7} {'GridSearchCV':>12} {'ratio':>6} "
        f"{'same choice':>11} {'max |d score|':>13}"
    )
    with threadpool_limits(1):
        for name in args.datasets:
            ds = load_dataset(name)
            X, y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y, dtype=np.float64)
            order = np.random.default_rng(0).permutation(len(X))[: TRAIN_SIZE.get(name, 1000)]
            X, y = X[order], y[order]
            X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
            folds = list(KFold(args.folds, shuffle=True, random_state=0).split(X))
            for label, grid in (
                ("Random-MLM (10 K)", {"n_reference": K_GRID, "C": [0.0]}),
                ("Rank-MLM (10 K x 7 C)", {"n_reference": K_GRID, "C": C_GRID}),
            ):
                t0 = time.process_time()
                results = _grid_search(X, y, folds, grid)
                t_peer = time.process_time() - t0
                points = list(results["params"])
                t0 = time.process_time()
                mean = _path_search(X, y, folds, points)
                t_path = time.process_time() - t0
                peer = results["mean_test_score"]
                same = int(np.argmax(mean)) == int(np.argmax(peer))
                print(
                    f"{name:<18} {label:<26} {t_path:7.1f} {t_peer:12.1f} "
                    f"{t_peer / t_path:6.2f} {'yes' if same else 'NO':>11} "
                    f"{np.max(np.abs(mean - peer)):13.1e}"
                )


if __name__ == "__main__":
    main()
