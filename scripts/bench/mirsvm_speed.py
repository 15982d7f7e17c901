"""MIRSVM against MI-SVM (and mi-SVM, Weka's MISVM): CPU time and accuracy on the same folds.

Usage::

    python scripts/bench/mirsvm_speed.py [--datasets musk1 musk2_csv elephant fox tiger]
        [--folds 10] [--mirsvm keep=best patience=10]
    python scripts/bench/mirsvm_speed.py --protocol point [--C 10] [--sigma 5]
        [--methods MIRSVM MI-SVM mi-SVM "Weka MISVM"] [--no-weka] [--weka-timeout 3600]

Per dataset (needs SVMLAB_DATA_DIR; ``mi_bags`` is the synthetic generator): bag-stratified
``--folds``-fold CV (seed 0), instances z-scored on each training part, every method on the
same folds with the same C and Gaussian kernel. Timed: CPU seconds (``time.process_time``,
one BLAS / numba thread) of fit + predict; numba is compiled before the timings.

``--protocol grid`` (default; issue 35): MIRSVM (``random_state`` = fold) and MI-SVM
(``BagMISVMClassifier``) at every point of C in {1, 10, 100} x gamma in {1/166, 4/166, 1/664}.
Printed per set: each method's CPU seconds summed over the grid, the ratio MI-SVM / MIRSVM
(>= 1: MIRSVM is at least as fast), the same ratio at each method's best point, the best
pooled accuracy of each (and where it is), and how MIRSVM's fits ended: settled (a fixed
point), cycled (a repeated representative set, the rest read off the cycle), stopped by
``patience`` or ``stop="stall"``, or at ``max_iter`` (neither). Then what bounds a stopping
rule that keeps every settled or cycled model: the iteration at which the cycled fits found
their cycle (99th percentile / max, and ``#bags``), the longest run of iterations without a
lower multi-instance objective before a cycle was found (a ``patience`` window longer than
it cuts none of them), and MI-SVM's seconds over those of MIRSVM's settled and cycled fits
alone (the ratio if every other fit cost nothing). ``--mirsvm KEY=VALUE ...`` sets MIRSVM
parameters.

``--protocol point``: one C and sigma for all methods, also mi-SVM
(``InstanceMISVMClassifier``, RBF) and Weka 3.6's ``weka.classifiers.mi.MISVM`` (lazy: it
trains while predicting; JVM start-up included; skipped without Java or weka.jar; after a
failed fold a time is a lower bound ``>``); ratios are each method's time / MIRSVM's.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import Counter

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil.mirsvm import MIRSVMClassifier, _lowest_iterate
from svmlab.estimators.mil.misvm import BagMISVMClassifier, InstanceMISVMClassifier
from svmlab.estimators.mil.weka import WekaMIClassifier, weka_available
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.evaluation.protocols import make_splits

METHODS = ("MIRSVM", "MI-SVM", "mi-SVM", "Weka MISVM")
GRID_C = (1.0, 10.0, 100.0)
GRID_GAMMA = {"1/166": 1 / 166, "4/166": 4 / 166, "1/664": 1 / 664}
ENDINGS = (("converged",), ("cycle",), ("patience", "stall"))  # settled / cycled / stopped early


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


def folds_of(ds, folds: int, seed: int = 0) -> list:
    """``[(fold, train, test)]``: bag-stratified folds, z-scored on each training part."""
    protocol = {"kind": "bag_stratified_kfold", "n_splits": folds}
    out = []
    for split in make_splits(protocol, ds.task, ds.y, seed, ds.name):
        train, test = ds.subset(split.train), ds.subset(split.test)
        pre = Preprocessor("zscore").fit(train)
        out.append((split.fold, pre.transform(train), pre.transform(test)))
    return out


def cross_validate(ds, make, parts, fits: list | None = None):
    """``(cpu seconds, accuracy, complete, endings)``: fit + predict CPU seconds summed over
    the folds, the pooled accuracy and MIRSVM's ``fit_info_["stop"]`` counts (with ``fits``,
    each fold's ``(seconds, fit_info_)`` is appended to it). When a fold fails (e.g. Weka's
    timeout) the rest are skipped: the seconds are a lower bound and the accuracy is None."""
    seconds, correct, endings = 0.0, 0, Counter()
    for fold, train, test in parts:
        model = make(fold)
        t0 = time.process_time()
        try:
            model.fit(train.bags, train.y)
            pred = model.predict(test.bags)
        except Exception as exc:  # noqa: BLE001 (reported in the table)
            seconds += time.process_time() - t0
            print(
                f"  {ds.name}: {type(model).__name__} fold {fold} failed after "
                f"{seconds:.0f} s: {str(exc).splitlines()[0][:100]}",
                flush=True,
            )
            return seconds, None, False, endings
        seconds += time.process_time() - t0
        if fits is not None:
            fits.append((time.process_time() - t0, model.fit_info_))
        correct += int(np.sum(pred == test.y))
        endings[getattr(model, "fit_info_", {}).get("stop", "")] += 1
    return seconds, correct / ds.n_bags, True, endings


def _load(name: str, n_bags: int):
    return load_dataset(name, {"n_bags": n_bags}) if name == "mi_bags" else load_dataset(name)


def _parse_params(items) -> dict:
    """``["keep=best", "patience=10"]`` -> ``{"keep": "best", "patience": 10}``."""
    out = {}
    for item in items or ():
        key, _, value = item.partition("=")
        for cast in (int, float):
            try:
                out[key] = cast(value)
                break
            except ValueError:
                continue
        else:
            out[key] = {"None": None, "True": True, "False": False}.get(value, value)
    return out


def longest_stall(objectives) -> int:
    """Most consecutive iterations without a lower multi-instance objective (MIRSVM's 1e-4
    relative rule), over all but the last iteration."""
    lowest, longest = 0, 0
    for k in range(1, len(objectives)):
        lowest = _lowest_iterate(objectives[:k], lowest)
        longest = max(longest, k - lowest)
    return longest


def stopping_bounds(fits, mi_seconds: float) -> str:
    """``cycle at p99 / max (#bags) | longest stall | MI / settled+cycled``, see the docstring."""
    kept = [(sec, info) for sec, info in fits if info["stop"] in ("converged", "cycle")]
    found = [info["iterations"] for _, info in kept if info["stop"] == "cycle"]
    if not found:
        return "| no cycle |"
    stall = max(longest_stall(info["mi_objective_per_iter"]) for _, info in kept)
    bound = mi_seconds / sum(sec for sec, _ in kept)
    return (
        f"| {np.percentile(found, 99):>5.0f} / {max(found):>3d} ({fits[0][1]['n_bags']:>3d}) "
        f"{stall:>5d} | {bound:>5.2f}x"
    )


def run_grid(names, folds: int, n_bags: int, mirsvm_params: dict) -> None:
    """The issue-35 protocol: both methods at every grid point, one table row per set."""
    print(
        f"bag-stratified {folds}-fold CV (seed 0), z-scored; C in {list(GRID_C)} x gamma in "
        f"{list(GRID_GAMMA)}; CPU seconds of fit + predict summed over the grid; pooled "
        f"accuracy at each method's best point; MIRSVM {mirsvm_params or 'defaults'}"
    )
    print(
        f"{'dataset':<10} {'bags':>4} {'inst':>5} | {'MIRSVM s':>8} {'MI-SVM s':>8} "
        f"{'MI/MIR':>6} {'at best':>7} | {'acc MIRSVM':>18} {'acc MI-SVM':>18} | "
        "MIRSVM fits: settled / cycled / patience / max_iter | cycle at p99 / max (#bags) "
        "stall | MI/kept"
    )
    for name in names:
        ds = _load(name, n_bags)
        parts = folds_of(ds, folds)
        res, fits = {}, []
        for C in GRID_C:
            for label, g in GRID_GAMMA.items():
                res["MIRSVM", C, label] = cross_validate(
                    ds,
                    lambda f, C=C, g=g: MIRSVMClassifier(
                        C=C, gamma=g, random_state=f, **mirsvm_params
                    ),
                    parts,
                    fits,
                )
                res["MI-SVM", C, label] = cross_validate(
                    ds, lambda f, C=C, g=g: BagMISVMClassifier(C=C, gamma=g), parts
                )
        total = {m: sum(v[0] for k, v in res.items() if k[0] == m) for m in ("MIRSVM", "MI-SVM")}
        best = {
            m: max((k for k in res if k[0] == m), key=lambda k: res[k][1])
            for m in ("MIRSVM", "MI-SVM")
        }
        at_best = res[best["MI-SVM"]][0] / res[best["MIRSVM"]][0]
        endings = sum((v[3] for k, v in res.items() if k[0] == "MIRSVM"), Counter())
        counts = [sum(endings[s] for s in stops) for stops in ENDINGS]
        counts.append(sum(endings.values()) - sum(counts))
        accs = {m: f"{res[best[m]][1]:.3f} ({best[m][1]:g}, {best[m][2]})" for m in best}
        print(
            f"{name:<10} {ds.n_bags:>4} {ds.n_instances:>5} | {total['MIRSVM']:>8.2f} "
            f"{total['MI-SVM']:>8.2f} {total['MI-SVM'] / total['MIRSVM']:>5.2f}x "
            f"{at_best:>6.2f}x | {accs['MIRSVM']:>18} {accs['MI-SVM']:>18} | "
            + " / ".join(str(c) for c in counts)
            + f" {stopping_bounds(fits, total['MI-SVM'])}",
            flush=True,
        )


def _cell(res, method, k, fmt, width) -> str:
    seconds, acc, complete, _ = res.get(method, (None, None, True, None))
    value = (seconds, acc)[k]
    text = "n/a" if value is None else format(value, fmt)
    return f" {text if complete or k else '>' + text:>{width}}"


def run_point(args) -> None:
    """One C and sigma for every method (issue 12's table)."""
    weka = not args.no_weka and weka_available()
    methods = makers(args.C, args.sigma, weka, args.weka_timeout)
    methods = {m: make for m, make in methods.items() if m == "MIRSVM" or m in args.methods}
    print(
        f"C = {args.C:g}, sigma = {args.sigma:g}, bag-stratified {args.folds}-fold CV, z-scored; "
        "CPU seconds of fit + predict over all folds, pooled accuracy"
        + ("" if weka else "; Weka not run")
    )
    header = f"{'dataset':<9} {'bags':>4} {'inst':>6} |"
    header += "".join(f" {m + ' s':>13}" for m in METHODS) + " |"
    header += "".join(f" {'acc ' + m:>14}" for m in METHODS) + " |"
    header += "".join(f" {m + '/MIR':>14}" for m in METHODS[1:])
    print(header)
    for name in args.datasets:
        ds = _load(name, args.n_bags)
        parts = folds_of(ds, args.folds)
        res = {m: cross_validate(ds, make, parts) for m, make in methods.items()}
        t_mir = res["MIRSVM"][0]
        line = f"{name:<9} {ds.n_bags:>4} {ds.n_instances:>6} |"
        line += "".join(_cell(res, m, 0, ".2f", 13) for m in METHODS) + " |"
        line += "".join(_cell(res, m, 1, ".4f", 14) for m in METHODS) + " |"
        for m in METHODS[1:]:
            t, _, complete, _ = res.get(m, (None, None, True, None))
            ratio = "n/a" if t is None else format(t / t_mir, ".1f") + "x"
            line += f" {ratio if complete else '>' + ratio:>14}"
        print(line, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--protocol", choices=("grid", "point"), default="grid")
    ap.add_argument(
        "--datasets", nargs="+", default=["musk1", "musk2_csv", "elephant", "fox", "tiger"]
    )
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--mirsvm", nargs="*", metavar="KEY=VALUE", help="MIRSVM parameters (grid)")
    ap.add_argument("--C", type=float, default=10.0, help="point protocol")
    ap.add_argument("--sigma", type=float, default=5.0, help="point protocol")
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
    tiny = [np.zeros((2, 2)), np.ones((2, 2)), np.zeros((1, 2)), np.ones((3, 2))]
    for cls in (MIRSVMClassifier, BagMISVMClassifier, InstanceMISVMClassifier):
        cls().fit(tiny, [0, 1, 0, 1])  # compile the numba code outside the timings
    with threadpool_limits(1):
        if args.protocol == "grid":
            run_grid(args.datasets, args.folds, args.n_bags, _parse_params(args.mirsvm))
        else:
            run_point(args)


if __name__ == "__main__":
    main()
