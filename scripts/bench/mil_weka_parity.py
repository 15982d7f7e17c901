"""Every native multi-instance baseline beside the Weka 3.6 classifier it stands for.

Usage::

    python scripts/bench/mil_weka_parity.py [--datasets musk1 mutagenesis_atoms elephant]
                                            [--solvers mi_wrapper miboost ...] [--folds 10]

For every pair ``conf/solver/X.yaml`` / ``conf/solver/weka_X.yaml`` (the two files configure
one algorithm: the native re-implementation and the real Weka code through
``WekaMIClassifier``), fit both on the same bag-stratified folds of each dataset (raw
features: both rescale internally) and print the pooled accuracies, their difference, how
many bags the two predict differently, and the time each took. Needs SVMLAB_DATA_DIR and Weka
(``make weka``). The parity tests (tests/estimators/test_weka_parity.py) assert |diff| <= 0.02.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.evaluation.parity import pooled_accuracy, same_fold_predictions
from svmlab.testing import weka_pairs

DATASETS = ["musk1", "mutagenesis_atoms", "elephant"]


def main(argv=None):
    pairs = weka_pairs()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--solvers", nargs="+", default=sorted(pairs), choices=sorted(pairs))
    parser.add_argument("--folds", type=int, default=10)
    args = parser.parse_args(argv)
    print(
        f"{'solver':<18} {'dataset':<18} {'native':>7} {'Weka':>7} {'diff':>7} "
        f"{'bags differ':>11} {'native s':>9} {'Weka s':>8}"
    )
    for name in args.solvers:
        native, weka = pairs[name]
        for ds_name in args.datasets:
            ds = load_dataset(ds_name)
            row, seconds = {}, {}
            for label, spec in (("native", native), ("weka", weka)):
                t0 = time.perf_counter()
                with threadpool_limits(1):
                    row[label] = same_fold_predictions(
                        ds.bags, ds.y, {label: spec.build}, dataset=ds.name, n_splits=args.folds
                    )[label]
                seconds[label] = time.perf_counter() - t0
            a, b = pooled_accuracy(ds.y, row["native"]), pooled_accuracy(ds.y, row["weka"])
            print(
                f"{name:<18} {ds_name:<18} {a:7.4f} {b:7.4f} {a - b:+7.4f} "
                f"{int(np.sum(row['native'] != row['weka'])):>11} "
                f"{seconds['native']:9.1f} {seconds['weka']:8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
