"""Native MISMO (SetKernelSVC) beside Weka 3.6's MISMO on multi-instance sets of every shape.

Usage::

    python scripts/bench/mismo_weka_parity.py [--datasets musk1 musk2_csv ...]
        [--kernels linear rbf] [--folds 10] [--cache mismo_parity.json]

Both kernels the studies run, with Weka's options as the studies give them: ``linear`` is
MISMO's default (``-C 1 -N 0``, ``MIPolyKernel -E 1``; the MIRSVM study's MISMO column and
HyDR-MI's "MISMO (Polynomial Kernel)"), ``rbf`` is HyDR-MI's "MISMO (RBF Kernel)"
(``-C 1 -N 0``, ``MIRBFKernel -G 0.01``). On the same bag-stratified folds as the parity
tests (raw features: both rescale to [0, 1] inside) every row fits Weka's MISMO and three
natives: ``SetKernelSVC`` as the solver files configure it (the defaults: Weka's kernel
features and Weka's SMO), the same with svmlab's SMO (``smo="svmlab"``), and svmlab's SMO
on every feature (``smo="svmlab", kernel_features="all"``: the native before issue 36 up to
the rounding of the rescaling). It prints the set's shape
(bags / mean (max) instances per bag / features / positive share), the pooled accuracies,
how many bags each predicts differently from Weka, and the CPU seconds of the default native
(one thread) beside Weka's wall seconds (its own JVM per fold). ``--cache`` keeps Weka's
predictions in a JSON file, so a rerun (or an interrupted run) refits only the natives.
Needs SVMLAB_DATA_DIR and Weka (``make weka``). trx's Gaussian rows are by far the slowest
(Weka's SMO takes over 100 million pair steps a fold there, and the native takes the same
steps): run trx with ``--kernels linear`` or ``--folds 2``. Measured table:
docs/decisions/mil.md.
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


#: column -> SetKernelSVC parameters beside the kernel's
NATIVES = {
    "native": {},
    "svmlab_smo": {"smo": "svmlab"},
    "all_features": {"smo": "svmlab", "kernel_features": "all"},
}


def weka_row(ds, kernel: str, folds: int) -> dict:
    """Weka's out-of-fold predictions on one set with one kernel, and its wall seconds."""
    options = KERNELS[kernel][1]
    t0 = time.perf_counter()
    pred = same_fold_predictions(
        ds.bags,
        ds.y,
        {"weka": lambda: WekaMIClassifier("weka.classifiers.mi.MISMO", options=options)},
        dataset=ds.name,
        n_splits=folds,
    )["weka"]
    return {"weka": pred.tolist(), "weka_s": time.perf_counter() - t0}


def native_rows(ds, kernel: str, folds: int) -> dict:
    """Every native's out-of-fold predictions, and the default native's CPU seconds."""
    out = {}
    for label, extra in NATIVES.items():
        params = {**KERNELS[kernel][0], **extra}
        cpu = time.process_time()
        with threadpool_limits(1):
            models = {label: lambda params=params: SetKernelSVC(**params)}
            out[label] = same_fold_predictions(
                ds.bags, ds.y, models, dataset=ds.name, n_splits=folds
            )[label]
        out[f"{label}_s"] = time.process_time() - cpu
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=list(KERNELS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--cache", type=Path, help="JSON file of finished rows (resumes)")
    args = parser.parse_args(argv)
    cache = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {}
    print(
        f"{'dataset':<19} {'bags/size(max)/d/pos':<22} {'kernel':<6} {'Weka':>7} "
        f"{'native':>7} {'differ':>6} {'svmlab SMO':>10} {'differ':>6} {'all feat.':>9} "
        f"{'differ':>6} {'native s':>8} {'Weka s':>7}"
    )
    for name in args.datasets:
        ds = load_dataset(name)
        for kernel in args.kernels:
            key = f"{name}/{kernel}/{args.folds}"
            if key not in cache:
                cache[key] = weka_row(ds, kernel, args.folds)
                if args.cache:
                    args.cache.write_text(json.dumps(cache))
            weka = np.asarray(cache[key]["weka"])
            row = native_rows(ds, kernel, args.folds)
            cells = [f"{pooled_accuracy(ds.y, weka):7.4f}"]
            for label, width in (("native", 7), ("svmlab_smo", 10), ("all_features", 9)):
                cells.append(
                    f"{pooled_accuracy(ds.y, row[label]):{width}.4f} "
                    f"{int(np.sum(row[label] != weka)):>6}"
                )
            print(
                f"{name:<19} {shape(ds):<22} {kernel:<6} {' '.join(cells)} "
                f"{row['native_s']:8.1f} {cache[key]['weka_s']:7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
