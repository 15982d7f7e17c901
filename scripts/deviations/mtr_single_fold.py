"""How far one test fold's aRRMSE lies from the ten folds' mean in Melki (2018), Table 3.9.

Usage::

    python scripts/deviations/mtr_single_fold.py [--datasets edm sf1 sf2]

aRRMSE divides each target's test error by the error of the training part's mean on the same
test rows (Mulan's reading, docs/decisions/mtr.md), so a test fold whose targets lie far from
(or close to) that mean lowers (or raises) every method's value alike. For every fold of
``mtr_bench``'s 10-fold CV (its protocol and seed), inputs and targets z-scored on the training
part as the study does, the script fits MORF (the study's ``mtr_morf``: 100 trees) and prints
the fold's aRRMSE; then the first fold's value, the mean over the ten folds and their range,
beside Table 3.9's MORF value. A few CPU-seconds per dataset. The numbers quoted in
``svmlab/reproduce/deviations/mtr_single_fold.md`` are this script's. Needs
``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _study import study_splits, zscored  # scripts/deviations/_study.py
from threadpoolctl import threadpool_limits

from svmlab.estimators.mtr import MORF
from svmlab.evaluation.metrics.regression import multitarget_metrics
from svmlab.reproduce.document import read_published

#: The study's dataset names and Table 3.9's rows.
PAPER_ROWS = {"edm": "EDM", "sf1": "Solar Flare 1", "sf2": "Solar Flare 2"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=list(PAPER_ROWS), choices=list(PAPER_ROWS))
    args = p.parse_args()
    paper = read_published("mtr_arrmse.csv")["MORF"]
    with threadpool_limits(1):
        for name in args.datasets:
            ds, folds = study_splits("mtr_bench", name)
            X, Y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.Y, dtype=np.float64)
            scores = []
            for _, split in sorted(folds.items()):
                Xz, Z = zscored(X, split.train), zscored(Y, split.train)
                model = MORF(n_estimators=100, random_state=0).fit(Xz[split.train], Z[split.train])
                predicted = model.predict(Xz[split.test])
                metrics = multitarget_metrics(Z[split.test], predicted, Z[split.train])
                scores.append(metrics["arrmse"])
            scores = np.array(scores)
            print(
                f"{name} ({X.shape[0]} rows, {Y.shape[1]} targets): MORF aRRMSE per fold "
                + " ".join(f"{s:.3f}" for s in scores)
            )
            print(
                f"  fold 1 {scores[0]:.3f}; mean over 10 folds {scores.mean():.3f} "
                f"(from {scores.min():.3f} to {scores.max():.3f}); "
                f"Table 3.9 {paper[PAPER_ROWS[name]]:.4f}"
            )


if __name__ == "__main__":
    main()
