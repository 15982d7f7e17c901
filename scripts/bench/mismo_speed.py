"""Native MISMO (SetKernelSVC, Weka's defaults) against Weka 3.6's MISMO: CPU seconds per fold.

Usage::

    python scripts/bench/mismo_speed.py [--datasets musk1 elephant mutagenesis_bonds]
        [--kernels linear rbf] [--folds 10] [--mask]

On the same bag-stratified folds (seed 0, raw features: both rescale to [0, 1] inside) each
fold fits and predicts the native ``SetKernelSVC`` with the options the solver files give
(``linear``: MISMO's defaults; ``rbf``: ``MIRBFKernel -G 0.01``, HyDR-MI's "MISMO (RBF
Kernel)") and Weka's ``weka.classifiers.mi.MISMO`` with the same options. Timed: the native's
CPU seconds of fit + predict (``time.process_time``, one BLAS / numba thread, numba compiled
before), Weka's CPU seconds of its JVM (``RUSAGE_CHILDREN``; one JVM per fold, run with
``-XX:ActiveProcessorCount=1 -XX:+UseSerialGC``, start-up included; the ``JVM start`` line
is a JVM that only prints Weka's version). Printed per row: the set's shape (bags / mean
(max) instances per bag / features), the summed CPU seconds of each, the ratio Weka / native
(> 1: the native is faster), and how many bags the native predicts differently from Weka
(0 on these sets; docs/decisions/mil.md). ``--mask`` fits both on a random third of the
features instead (one mask per set, seed 7), as HyDR-MI's wrapper search does. Needs
SVMLAB_DATA_DIR and Weka (``make weka``).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil.set_kernel import SetKernelSVC
from svmlab.estimators.mil.weka import WekaMIClassifier
from svmlab.estimators.mil.weka.java import find_java, find_weka_jar
from svmlab.evaluation.protocols import make_splits

JVM_OPTIONS = "-XX:ActiveProcessorCount=1 -XX:+UseSerialGC"
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


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def jvm_start_seconds() -> float:
    """CPU seconds of a JVM that loads weka.jar and prints Weka's version."""
    cpu = children_cpu()
    command = [find_java(), *JVM_OPTIONS.split(), "-cp", str(find_weka_jar()), "weka.core.Version"]
    subprocess.run(command, capture_output=True, check=True)
    return children_cpu() - cpu


def shape(bags) -> str:
    """``bags / mean (max) instances per bag / features``."""
    sizes = np.array([len(b) for b in bags])
    return f"{len(sizes)}/{sizes.mean():.0f}({sizes.max()})/{bags[0].shape[1]}"


def compare(ds, kernel: str, folds: int, mask) -> dict:
    """Both on every fold: CPU seconds of each and the bags predicted differently."""
    params, options = KERNELS[kernel]
    bags = [b if mask is None else b[:, mask] for b in ds.bags]
    protocol = {"kind": "bag_stratified_kfold", "n_splits": folds}
    row = {"native": 0.0, "weka": 0.0, "differ": 0, "bags": 0}
    for split in make_splits(protocol, "multi_instance", ds.y, 0, ds.name):
        train = [bags[i] for i in split.train]
        test = [bags[i] for i in split.test]
        cpu = time.process_time()
        with threadpool_limits(1):
            ours = SetKernelSVC(**params).fit(train, ds.y[split.train]).predict(test)
        row["native"] += time.process_time() - cpu
        weka = WekaMIClassifier(options=options, jvm_options=JVM_OPTIONS)
        weka.fit(train, ds.y[split.train])
        cpu = children_cpu()
        theirs = weka.predict(test)
        row["weka"] += children_cpu() - cpu
        row["differ"] += int(np.sum(ours != theirs))
        row["bags"] += len(test)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["musk1", "elephant", "mutagenesis_bonds"])
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=list(KERNELS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--mask", action="store_true", help="a random third of the features")
    args = parser.parse_args(argv)
    warm = [np.random.default_rng(0).random((3, 4)) for _ in range(6)]
    for kernel in KERNELS:  # compile numba before the timings
        SetKernelSVC(**KERNELS[kernel][0]).fit(warm, [0, 1] * 3).predict(warm)
    print(f"JVM start: {jvm_start_seconds():.2f} CPU s per fold")
    print(
        f"{'dataset':<19} {'bags/size(max)/d':<17} {'kernel':<6} {'native s':>8} "
        f"{'Weka s':>7} {'Weka/native':>11} {'differ':>9}"
    )
    for name in args.datasets:
        ds = load_dataset(name)
        mask = None
        if args.mask:
            d = ds.bags[0].shape[1]
            rng = np.random.default_rng(7)
            mask = np.sort(rng.choice(d, size=max(3, d // 3), replace=False))
        bags = ds.bags if mask is None else [b[:, mask] for b in ds.bags]
        for kernel in args.kernels:
            row = compare(ds, kernel, args.folds, mask)
            print(
                f"{name:<19} {shape(bags):<17} {kernel:<6} {row['native']:8.2f} "
                f"{row['weka']:7.2f} {row['weka'] / row['native']:10.1f}x "
                f"{row['differ']:>4}/{row['bags']:<4}",
                flush=True,
            )


if __name__ == "__main__":
    main()
