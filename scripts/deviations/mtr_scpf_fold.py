"""How much one test fold moves SCPF's aRMSE and MSE in Melki (2018), Tables 3.5 and 3.7.

Usage::

    python scripts/deviations/mtr_scpf_fold.py [--dataset scpf]

For every fold of ``mtr_bench``'s 10-fold CV (its protocol and seed), with inputs and targets
z-scored on the training part as the study does, the script prints the test part's largest
|target| in those units and the aRMSE (mean over targets of the RMSE) of two models that need
no tuning: the training mean (the floor any model reaches without using the inputs) and a
100-tree random forest. It ends with both models' means over the 10 folds and over the
folds after the first. The numbers quoted in
``svmlab/reproduce/deviations/mtr_scpf_fold.md`` are this script's. A few CPU-seconds. Needs
``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _study import study_splits, zscored  # scripts/deviations/_study.py
from sklearn.ensemble import RandomForestRegressor
from threadpoolctl import threadpool_limits


def _armse(Z, P):
    return float(np.mean(np.sqrt(np.mean((Z - P) ** 2, axis=0))))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="scpf")
    args = p.parse_args()
    ds, folds = study_splits("mtr_bench", args.dataset)
    X, Y = ds.X, ds.Y
    print(f"{args.dataset}: {X.shape[0]} rows, {X.shape[1]} inputs, {Y.shape[1]} targets")
    print("fold  test rows  largest |z|  aRMSE training mean  aRMSE random forest")
    scores = []
    with threadpool_limits(1):
        for fold, split in sorted(folds.items()):
            Xz, Z = zscored(X, split.train), zscored(Y, split.train)
            test = Z[split.test]
            forest = RandomForestRegressor(100, random_state=0, n_jobs=1)
            forest.fit(Xz[split.train], Z[split.train])
            predicted = forest.predict(Xz[split.test]).reshape(test.shape)
            scores.append((_armse(test, 0.0), _armse(test, predicted)))
            print(
                f"{fold + 1:4d} {len(split.test):10d} {np.abs(test).max():12.1f} "
                f"{scores[-1][0]:20.3f} {scores[-1][1]:20.3f}"
            )
    mean, forest = np.array(scores).T
    print(
        f"mean over the {len(scores)} folds: training mean {mean.mean():.3f}, "
        f"random forest {forest.mean():.3f}"
    )
    print(
        f"mean over folds 2-{len(scores)}: training mean {mean[1:].mean():.3f}, "
        f"random forest {forest[1:].mean():.3f}"
    )


if __name__ == "__main__":
    main()
