"""How much Table 19's one fixed split moves Full-MLM's accuracy (Oliveira 2021, Ch. 5).

Usage::

    python scripts/deviations/cclwmlm_split.py [--dataset banana] [--splits 10]

``cclwmlm_bench`` draws one stratified 80/20 split per dataset and reuses it in the 30
realisations, as Table 19's zero deviations require (docs/decisions/lssvm_mlm.md). Full-MLM is
deterministic, so its 30 accuracies are one number, and the thesis's split is another draw of
the same kind. The script fits Full-MLM on the study's split and on ``--splits`` other
stratified 80/20 splits (seeds 1, 2, ...), inputs z-scored on each training part, and prints
the study split's accuracy beside the mean, standard deviation and range over the others. A
CPU-minute or two on banana. The numbers quoted in
``svmlab/reproduce/deviations/cclwmlm_split.md`` are this script's. Needs ``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _study import study_split, zscored  # scripts/deviations/_study.py
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from svmlab.estimators.mlm import MLMClassifier


def _accuracy(X, y, train, test) -> float:
    Z = zscored(X, train)
    model = MLMClassifier().fit(Z[train], y[train])
    return float(np.mean(model.predict(Z[test]) == y[test]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="banana")
    p.add_argument("--splits", type=int, default=10)
    args = p.parse_args()
    ds, split = study_split("cclwmlm_bench", args.dataset)
    X, y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y)
    rows = np.arange(len(y))
    warnings.simplefilter("ignore", RuntimeWarning)  # banana's 9 repeated rows: lstsq, as noted
    with threadpool_limits(1):
        study = _accuracy(X, y, split.train, split.test)
        other = [
            _accuracy(X, y, *train_test_split(rows, test_size=0.2, stratify=y, random_state=s))
            for s in range(1, args.splits + 1)
        ]
    print(f"{args.dataset}: Full-MLM accuracy on the study's split {study:.4f}")
    print(
        f"on {args.splits} other stratified 80/20 splits: mean {np.mean(other):.4f}, "
        f"std {np.std(other, ddof=1):.4f}, from {min(other):.4f} to {max(other):.4f}"
    )


if __name__ == "__main__":
    main()
