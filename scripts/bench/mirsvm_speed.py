"""MIRSVM against MI-SVM, mi-SVM and Weka's MISVM: time and accuracy, same folds, C and sigma.

Usage::

    python scripts/bench/mirsvm_speed.py [--datasets musk1 elephant fox tiger trx]
        [--C 10] [--sigma 5] [--folds 10] [--no-weka] [--weka-timeout 3600]
        [--methods MIRSVM MI-SVM mi-SVM "Weka MISVM"]

Per dataset (needs SVMLAB_DATA_DIR; ``mi_bags`` is the synthetic generator): bag-stratified
``--folds``-fold CV, instances z-scored on each training part; every method gets the same C
and the Gaussian kernel of the same sigma. Printed: the time of fit + predict summed over the
folds (Weka's ``MISVM`` is lazy and trains while predicting, so all methods are timed the
same way), the pooled accuracy, and each method's time divided by MIRSVM's (> 1: MIRSVM is
faster). Methods: MIRSVM with its defaults (the author's semantics, docs/decisions/mil.md);
svmlab's MI-SVM (``BagMISVMClassifier``, solver ``misvm_bag``) and mi-SVM
(``InstanceMISVMClassifier``, ``misvm_instance``, RBF kernel); Weka 3.6's
``weka.classifiers.mi.MISVM`` (mi-SVM; ``-C C -K "...RBFKernel -G 1/(2 sigma^2)"``, its own
[0, 1] rescaling, JVM start-up included), skipped when Java or weka.jar is missing; after a
failed fold (``--weka-timeout``) a method's time is printed as a lower bound (``>``). One BLAS
thread. Issue 12's target: MIRSVM faster than MI-SVM on every set and >= 5x faster than Weka.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil.mirsvm import MIRSVMClassifier
from svmlab.estimators.mil.misvm import BagMISVMClassifier, InstanceMISVMClassifier
from svmlab.estimators.mil.weka import WekaMIClassifier, weka_available
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.evaluation.protocols import make_splits

METHODS = ("MIRSVM", "MI-SVM", "mi-SVM", "Weka MISVM")


def _with_params(cls, **params):
    """``cls(**params)`` for the parameters ``cls`` has (mi-SVM's may still change)."""
    known = cls().get_params()
    return cls(**{k: v for k, v in params.items() if k in known})


def makers(C: float, sigma: float, weka: bool, timeout: float | None) -> dict:
    g = 1.0 / (2.0 * sigma**2)
    out = {
        "MIRSVM": lambda fold: MIRSVMClassifier(C=C, sigma=sigma, random_state=fold),
        "MI-SVM": lambda fold: BagMISVMClassifier(C=C, sigma=sigma),
        "mi-SVM": lambda fold: _with_params(
            InstanceMISVMClassifier, C=C, sigma=sigma, kernel="rbf"
        ),
    }
    if weka:
        options = f'-C {C:g} -K "weka.classifiers.functions.supportVector.RBFKernel -G {g:g}"'
        out["Weka MISVM"] = lambda fold: WekaMIClassifier(
            "weka.classifiers.mi.MISVM", options=options, timeout=timeout
        )
    return out


def cross_validate(ds, make, folds: int, seed: int = 0):
    """``(seconds, accuracy, complete)``: fit + predict seconds summed over the folds and the
    pooled accuracy. When a fold fails (e.g. Weka's timeout) the remaining folds are skipped:
    the seconds spent so far are a lower bound and the accuracy is None."""
    protocol = {"kind": "bag_stratified_kfold", "n_splits": folds}
    seconds, correct = 0.0, 0
    for split in make_splits(protocol, ds.task, ds.y, seed, ds.name):
        train, test = ds.subset(split.train), ds.subset(split.test)
        pre = Preprocessor("zscore").fit(train)
        train, test = pre.transform(train), pre.transform(test)
        model = make(split.fold)
        t0 = time.perf_counter()
        try:
            model.fit(train.bags, train.y)
            pred = model.predict(test.bags)
        except Exception as exc:  # noqa: BLE001 (reported in the table)
            seconds += time.perf_counter() - t0
            print(
                f"  {ds.name}: {type(model).__name__} fold {split.fold} failed after "
                f"{seconds:.0f} s: {str(exc).splitlines()[0][:100]}",
                flush=True,
            )
            return seconds, None, False
        seconds += time.perf_counter() - t0
        correct += int(np.sum(pred == test.y))
    return seconds, correct / ds.n_bags, True


def _cell(res, method, k, fmt, width) -> str:
    seconds, acc, complete = res.get(method, (None, None, True))
    value = (seconds, acc)[k]
    text = "n/a" if value is None else format(value, fmt)
    return f" {text if complete or k else '>' + text:>{width}}"


def _load(name: str, n_bags: int):
    return load_dataset(name, {"n_bags": n_bags}) if name == "mi_bags" else load_dataset(name)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="+", default=["musk1", "elephant", "fox", "tiger", "trx"])
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--sigma", type=float, default=5.0)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--n-bags", type=int, default=100, help="bags of the synthetic mi_bags")
    ap.add_argument("--no-weka", action="store_true", help="leave Weka's MISVM out")
    ap.add_argument(
        "--methods", nargs="+", choices=METHODS, default=list(METHODS), help="MIRSVM always runs"
    )
    ap.add_argument(
        "--weka-timeout", type=float, default=3600.0, help="seconds per Weka call (one fold)"
    )
    args = ap.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    weka = not args.no_weka and weka_available()
    methods = makers(args.C, args.sigma, weka, args.weka_timeout)
    methods = {m: make for m, make in methods.items() if m == "MIRSVM" or m in args.methods}
    tiny = [np.zeros((2, 2)), np.ones((2, 2)), np.zeros((1, 2)), np.ones((3, 2))]
    for m, make in methods.items():  # compile the numba code outside the timings
        if m.startswith("Weka"):
            continue
        make(0).fit(tiny, [0, 1, 0, 1])
    print(
        f"C = {args.C:g}, sigma = {args.sigma:g}, bag-stratified {args.folds}-fold CV, z-scored; "
        "seconds of fit + predict over all folds, pooled accuracy"
        + ("" if weka else "; Weka not run")
    )
    header = f"{'dataset':<9} {'bags':>4} {'inst':>6} |"
    header += "".join(f" {m + ' s':>13}" for m in METHODS) + " |"
    header += "".join(f" {'acc ' + m:>14}" for m in METHODS) + " |"
    header += "".join(f" {m + '/MIR':>14}" for m in METHODS[1:])
    print(header)
    with threadpool_limits(1):
        for name in args.datasets:
            ds = _load(name, args.n_bags)
            res = {m: cross_validate(ds, make, args.folds) for m, make in methods.items()}
            t_mir = res["MIRSVM"][0]

            line = f"{name:<9} {ds.n_bags:>4} {ds.n_instances:>6} |"
            line += "".join(_cell(res, m, 0, ".2f", 13) for m in METHODS) + " |"
            line += "".join(_cell(res, m, 1, ".4f", 14) for m in METHODS) + " |"
            for m in METHODS[1:]:
                t, _, complete = res.get(m, (None, None, True))
                ratio = "n/a" if t is None else format(t / t_mir, ".1f") + "x"
                line += f" {ratio if complete else '>' + ratio:>14}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
