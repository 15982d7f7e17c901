"""Native MISMO (SetKernelSVC) beside Weka 3.6's MISMO on multi-instance sets of every shape.

Usage::

    python scripts/bench/mismo_weka_parity.py [--datasets musk1 musk2_csv ...]
        [--kernels linear rbf] [--folds 10] [--cache mismo_parity.json]

Both kernels the studies run, with Weka's options as the studies give them: ``linear`` is
MISMO's default (``-C 1 -N 0``, ``MIPolyKernel -E 1``; the MIRSVM study's MISMO column and
HyDR-MI's "MISMO (Polynomial Kernel)"), ``rbf`` is HyDR-MI's "MISMO (RBF Kernel)"
(``-C 1 -N 0``, ``MIRBFKernel -G 0.01``). On the same bag-stratified folds as the parity
tests (raw features: both rescale to [0, 1] inside) every row fits Weka's MISMO, the native
``SetKernelSVC`` as the solver files configure it (``kernel_features="weka"``), and the native
with every feature in the kernel (``kernel_features="all"``, the native before issue 36). It
prints the set's shape, the pooled accuracies, how many bags each native predicts differently
from Weka, and the CPU seconds of the native fit (one thread; Weka runs in its own JVM, its
wall seconds are shown). ``--cache`` keeps every finished row's predictions in a JSON file so
that an interrupted run resumes. Needs SVMLAB_DATA_DIR and Weka (``make weka``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil.set_kernel import SetKernelSVC
from svmlab.estimators.mil.weka import WekaMIClassifier
from svmlab.evaluation.parity import pooled_accuracy, same_fold_predictions

DATASETS = [
    "musk1",
    "musk2_csv",
    "mutagenesis_atoms",
    "mutagenesis_bonds",
    "mutagenesis_chains",
    "elephant",
    "fox",
    "tiger",
    "east_west",
    "west_east",
    "suramin",
    "trx",
]

#: kernel -> (native parameters, Weka options), as conf/hydrmi_roster/{native,weka}.yaml
KERNELS = {
    "linear": (
        {"C": 1.0, "kernel": "linear"},
        "-C 1.0 -L 0.001 -P 1.0E-12 -N 0 -V -1 -W 1 "
        '-K "weka.classifiers.mi.supportVector.MIPolyKernel -C 250007 -E 1.0"',
    ),
    "rbf": (
        {"C": 1.0, "kernel": "rbf", "gamma": 0.01},
        "-C 1.0 -L 0.001 -P 1.0E-12 -N 0 -V -1 -W 1 "
        '-K "weka.classifiers.mi.supportVector.MIRBFKernel -C 250007 -G 0.01"',
    ),
}


def shape(ds) -> str:
    """``bags / mean (max) instances per bag / features / positive share``."""
    sizes = np.array([len(b) for b in ds.bags])
    positive = np.mean(ds.y == np.max(ds.y))
    return f"{len(sizes)}/{sizes.mean():.0f}({sizes.max()})/{ds.bags[0].shape[1]}/{positive:.2f}"


def run_row(ds, kernel: str, folds: int) -> dict:
    """Out-of-fold predictions of Weka and both natives on one set with one kernel."""
    params, options = KERNELS[kernel]
    row = {}
    for label, make in (
        ("weka", lambda: WekaMIClassifier("weka.classifiers.mi.MISMO", options=options)),
        ("native", lambda: SetKernelSVC(**params)),
        ("all", lambda: SetKernelSVC(**params, kernel_features="all")),
    ):
        wall, cpu = time.perf_counter(), time.process_time()
        with threadpool_limits(1):
            pred = same_fold_predictions(
                ds.bags, ds.y, {label: make}, dataset=ds.name, n_splits=folds
            )[label]
        row[label] = pred.tolist()
        row[f"{label}_s"] = (
            time.perf_counter() - wall if label == "weka" else time.process_time() - cpu
        )
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=list(KERNELS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--cache", type=Path, help="JSON file of finished rows (resumes)")
    args = parser.parse_args(argv)
    cache = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {}
    print(
        f"{'dataset':<19} {'bags/size(max)/d/pos':<22} {'kernel':<6} {'native':>7} "
        f"{'Weka':>7} {'diff':>7} {'differ':>6} {'all':>7} {'differ':>6} "
        f"{'native s':>8} {'Weka s':>7}"
    )
    for name in args.datasets:
        ds = load_dataset(name)
        for kernel in args.kernels:
            key = f"{name}/{kernel}/{args.folds}"
            if key not in cache:
                cache[key] = run_row(ds, kernel, args.folds)
                if args.cache:
                    args.cache.write_text(json.dumps(cache))
            row = {k: np.asarray(v) if isinstance(v, list) else v for k, v in cache[key].items()}
            acc = {k: pooled_accuracy(ds.y, row[k]) for k in ("native", "weka", "all")}
            print(
                f"{name:<19} {shape(ds):<22} {kernel:<6} {acc['native']:7.4f} "
                f"{acc['weka']:7.4f} {acc['native'] - acc['weka']:+7.4f} "
                f"{int(np.sum(row['native'] != row['weka'])):>6} {acc['all']:7.4f} "
                f"{int(np.sum(row['all'] != row['weka'])):>6} "
                f"{row['native_s']:8.1f} {row['weka_s']:7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
