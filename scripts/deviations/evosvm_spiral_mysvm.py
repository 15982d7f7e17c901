"""Measure two deviations of the EvoSVM reproduction (Mierswa 2009): the Spiral data set and the
mySVM comparator.

Usage::

    python scripts/deviations/evosvm_spiral_mysvm.py [--quick] [--part spiral|mysvm|all]

``spiral`` prints, for several readings of the Spiral generator (RapidMiner's coordinate noise
0.1, larger coordinate noise, 15 % flipped labels), the error (%) of LibSVM (RBF, gamma = 1,
C = 1, stratified 20-fold CV, as Table 3.3) averaged over generator seeds, the same on z-scored
features, and EvoSVM's error and dual objective on seed 0 beside Table 3.3 / 3.2.

``mysvm`` prints, for each EvoSVM table with a mySVM column (3.3; 3.4 at C = 1, 0.1, 0.01;
4.2), the error (%) of the mySVM emulation (``KernelSVC``) with and without z-scoring next to
the published value, and the mean absolute difference per table. ``*`` marks a cell where the
model predicted a single class on every test fold (the default classifier).

``--quick`` uses 5 folds and one generator seed (under 2 minutes); the numbers quoted in
``svmlab/reproduce/deviations/evosvm_*.md`` are from the full run (about 1 minute on 2 cores).
Needs ``SVMLAB_DATA_DIR`` for Liver, Sonar, Diabetes and Ionosphere.
"""

from __future__ import annotations

import argparse
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from svmlab.data import load_dataset
from svmlab.estimators.evo import EvoSVMClassifier, KernelSVC

#: Thesis name -> (svmlab dataset, RBF gamma of Table 3.1, Epanechnikov sigma and d of Table 4.1).
DATASETS = {
    "Spiral": ("spiral", 1.0, (11.40, 8.80)),
    "Checkerboard": ("checkerboard", 1.0, (9.75, 3.00)),
    "Liver": ("bupa", 0.01, (218.61, 4.74)),
    "Sonar": ("sonar_mlbench", 1.0, (5.23, 9.00)),
    "Diabetes": ("pima_indians_diabetes", 0.001, (998.99, 2.56)),
    "Ionosphere": ("ionosphere_mlbench", 0.1, None),  # gamma: docs/decisions/evo.md
}

#: (label, published CSV, folds, C, kernel) of the tables with a mySVM column.
TABLES = (
    ("Table 3.3", "evosvm_t33_error.csv", 20, 1.0, "rbf"),
    ("Table 3.4, C=1", "evosvm_t34_c1_error.csv", 10, 1.0, "rbf"),
    ("Table 3.4, C=0.1", "evosvm_t34_c01_error.csv", 10, 0.1, "rbf"),
    ("Table 3.4, C=0.01", "evosvm_t34_c001_error.csv", 10, 0.01, "rbf"),
    ("Table 4.2", "evosvm_t42_error.csv", 10, 1.0, "epanechnikov"),
)

#: Spiral readings: label -> (generator parameters, fraction of labels flipped).
SPIRAL_READINGS = {
    "RapidMiner (noise 0.1)": ({"noise": 0.1}, 0.0),
    "noise 0.5": ({"noise": 0.5}, 0.0),
    "noise 0.6": ({"noise": 0.6}, 0.0),
    "noise 0.7": ({"noise": 0.7}, 0.0),
    "noise 0.75 (default)": ({}, 0.0),
    "noise 0.8": ({"noise": 0.8}, 0.0),
    "noise 1.0": ({"noise": 1.0}, 0.0),
    "noise 0.1 + 15 % labels flipped": ({"noise": 0.1}, 0.15),
}


def published(file: str) -> pd.DataFrame:
    """A published table of ``svmlab/reproduce/published`` (index: the thesis's data set names)."""
    with resources.files("svmlab.reproduce").joinpath("published", file).open() as fh:
        return pd.read_csv(fh, index_col=0)


def cv_error(make, X, y, n_folds, seed=0, shuffle=True):
    """Mean fold error (%), whether every fold predicted one class, the mean ``objective``
    and the fold error rates.

    Parameters
    ----------
    make : callable
        Returns an unfitted estimator with ``fit_info_["objective"]``.
    X, y : ndarray
    n_folds : int
        Stratified folds, shuffled with ``random_state=seed`` unless ``shuffle`` is False.
    """
    errors, single, objectives = [], [], []
    folds = StratifiedKFold(n_folds, shuffle=shuffle, random_state=seed if shuffle else None)
    for train, test in folds.split(X, y):
        model = make().fit(X[train], y[train])
        pred = model.predict(X[test])
        errors.append(np.mean(pred != y[test]))
        single.append(len(np.unique(pred)) == 1)
        objectives.append(model.fit_info_["objective"])
    return 100 * float(np.mean(errors)), all(single), float(np.mean(objectives)), errors


def spiral_data(params, flip, seed):
    """Spiral ``X, y`` of one reading and generator seed (labels flipped with rate ``flip``)."""
    ds = load_dataset("spiral", {**params, "random_state": seed})
    y = ds.y.copy()
    if flip:
        hit = np.random.default_rng(1000 + seed).uniform(size=len(y)) < flip
        y[hit] = 1 - y[hit]
    return ds.X, y


def spiral_part(n_folds, seeds):
    """Print LibSVM / EvoSVM errors on each Spiral reading beside Tables 3.2 and 3.3."""
    paper = published("evosvm_t33_error.csv").loc["Spiral"]
    objective = published("evosvm_t32_objective.csv").loc["Spiral", "EvoSVM"]
    print(f"Spiral, RBF gamma=1, C=1, stratified {n_folds}-fold CV, generator seeds 0-{seeds - 1}")
    print(
        f"Table 3.3: EvoSVM {paper['EvoSVM']:.2f}, mySVM {paper['mySVM']:.2f}, "
        f"LibSVM {paper['LibSVM']:.2f} %; Table 3.2: EvoSVM objective {objective:.1f}"
    )
    head = (
        f"{'reading':34} {'LibSVM':>7} {'range':>13} {'z-scored':>8} {'EvoSVM':>7} {'EvoSVM W':>8}"
    )
    print(head + "\n" + "-" * len(head))
    for label, (params, flip) in SPIRAL_READINGS.items():
        libsvm = [
            cv_error(lambda: KernelSVC(C=1.0, gamma=1.0), *spiral_data(params, flip, s), n_folds)[0]
            for s in range(seeds)
        ]
        X, y = spiral_data(params, flip, 0)
        scaled = cv_error(lambda: KernelSVC(C=1.0, gamma=1.0, scale=True), X, y, n_folds)[0]
        evo, _, w, _ = cv_error(
            lambda: EvoSVMClassifier(C=1.0, gamma=1.0, random_state=0), X, y, n_folds
        )
        span = f"{min(libsvm):.1f}-{max(libsvm):.1f}"
        print(f"{label:34} {np.mean(libsvm):7.2f} {span:>13} {scaled:8.2f} {evo:7.2f} {w:8.1f}")
    X, y = spiral_data(*SPIRAL_READINGS["RapidMiner (noise 0.1)"], 0)
    spread = ", ".join(f"{v:.2f}" for v in X.std(axis=0))
    print(f"RapidMiner (noise 0.1): standard deviation per feature {spread} (Table 8.1: 5.5)")
    errors = cv_error(lambda: KernelSVC(C=1.0, gamma=1.0), X, y, n_folds, shuffle=False)[3]
    print(
        f"RapidMiner (noise 0.1), LibSVM, folds not shuffled: {100 * np.mean(errors):.2f} "
        f"+- {100 * np.std(errors):.2f} % (Table 3.3: +- 3.94)"
    )


def mysvm_cell(thesis_name, n_folds, C, kernel, scale):
    """Error (%) of the mySVM emulation on one data set and whether it is the default class."""
    name, gamma, epanechnikov = DATASETS[thesis_name]
    ds = load_dataset(name, {"n_samples": 300} if name == "checkerboard" else None)
    if kernel == "rbf":
        kw = {"gamma": gamma}
    else:
        kw = {"sigma1": epanechnikov[0], "degree": epanechnikov[1]}
    error, single, _, _ = cv_error(
        lambda: KernelSVC(C=C, kernel=kernel, scale=scale, **kw), ds.X, ds.y, n_folds
    )
    return error, single


def mysvm_part(quick):
    """Print the mySVM emulation with and without z-scoring beside each table's mySVM column."""
    print("mySVM emulation (KernelSVC) vs the published mySVM column; * = one class predicted")
    for label, file, folds, C, kernel in TABLES:
        folds = 5 if quick else folds
        paper = published(file)["mySVM"]
        rows = [d for d in paper.index if d in DATASETS]
        print(f"\n{label} ({kernel}, C={C}, {folds}-fold): " + ", ".join(rows))
        for scale in (True, False):
            cells, deltas = [], []
            for d in rows:
                error, single = mysvm_cell(d, folds, C, kernel, scale)
                deltas.append(abs(error - paper[d]))
                cells.append(f"{d} {error:.1f}{'*' if single else ''}/{paper[d]:.2f}")
            reading = "z-scored (scale=True) " if scale else "raw      (scale=False)"
            print(f"  {reading} mean |delta| {np.mean(deltas):5.2f}: " + "; ".join(cells))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 folds, one generator seed")
    parser.add_argument("--part", choices=("spiral", "mysvm", "all"), default="all")
    args = parser.parse_args(argv)
    if args.part in ("spiral", "all"):
        spiral_part(5 if args.quick else 20, 1 if args.quick else 8)
        print()
    if args.part in ("mysvm", "all"):
        mysvm_part(args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
