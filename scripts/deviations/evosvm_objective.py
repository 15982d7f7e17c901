"""Measure what the thesis's early stop costs EvoSVM (Mierswa 2009, Tables 3.2 and 3.3).

Usage::

    python scripts/deviations/evosvm_objective.py [--quick] [--folds K]

For every data set of ``+experiment=evosvm_bench`` (RBF with the Table 3.1 gamma, C = 1, raw
features), stratified K-fold CV: EvoSVM with the thesis's stop (``conf/solver/evosvm.yaml``:
1000 generations, stop after more than 5 generations without improvement) and with the
converged setting (``conf/solver/evosvm_converged.yaml``: 20000 generations, patience 1000),
beside LibSVM (``KernelSVC``, the constrained dual solved by SMO). Printed per data set, as
fold means: LibSVM's dual objective W, W(EvoSVM) / W(LibSVM) for both stops, the test error (%)
of the three models, EvoSVM's generations, and the seconds per fit.

EvoSVM maximises W without the equality constraint (b = 0, Sec. 3.1.2.1), a larger feasible
set, so a fully converged EvoSVM would reach a ratio of at least 1.

``--quick`` runs the first fold of 5 only and caps the converged setting at 5000 generations
(under 2 minutes on 2 cores); the numbers in ``svmlab/reproduce/deviations/evosvm_objective.md``
are from the full run (5 folds, the converged setting as configured). Needs
``SVMLAB_DATA_DIR`` for Liver, Sonar and Diabetes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from svmlab.data import load_dataset
from svmlab.estimators.evo import EvoSVMClassifier, KernelSVC

#: Thesis name -> (svmlab dataset, generator parameters, RBF gamma of Table 3.1), as evosvm_bench.
DATASETS = {
    "Spiral": ("spiral", {}, 1.0),
    "Checkerboard": ("checkerboard", {"n_samples": 300}, 1.0),
    "Liver": ("bupa", {}, 0.01),
    "Sonar": ("sonar_mlbench", {}, 1.0),
    "Diabetes": ("pima_indians_diabetes", {}, 0.001),
}

#: The two stopping rules: the thesis's (the defaults) and conf/solver/evosvm_converged.yaml.
STOPS = {
    "early": {"max_generations": 1000, "patience": 5},
    "converged": {"max_generations": 20000, "patience": 1000},
}


def fit_fold(X, y, train, test, gamma: float, max_gen_cap: int | None, seed: int) -> dict:
    """Fit LibSVM and EvoSVM (both stops) on one fold.

    Parameters
    ----------
    X, y : ndarray
        The data set.
    train, test : ndarray of int
        Row indices of the fold.
    gamma : float
        RBF gamma (Table 3.1).
    max_gen_cap : int or None
        Upper bound on the converged setting's generations (``--quick``).
    seed : int
        EvoSVM's random state.

    Returns
    -------
    dict
        ``W_libsvm``, ``err_libsvm`` and, per stop, ``ratio_*``, ``err_*``, ``gen_*``, ``sec_*``.
    """
    lib = KernelSVC(kernel="rbf", gamma=gamma, C=1.0).fit(X[train], y[train])
    w_lib = float(lib.fit_info_["objective"])
    row = {"W_libsvm": w_lib, "err_libsvm": 100 * np.mean(lib.predict(X[test]) != y[test])}
    for stop, params in STOPS.items():
        params = dict(params)
        if max_gen_cap is not None:
            params["max_generations"] = min(params["max_generations"], max_gen_cap)
        t0 = time.perf_counter()
        evo = EvoSVMClassifier(gamma=gamma, C=1.0, random_state=seed, **params)
        evo.fit(X[train], y[train])
        row[f"sec_{stop}"] = time.perf_counter() - t0
        row[f"ratio_{stop}"] = float(evo.fit_info_["objective"]) / w_lib
        row[f"err_{stop}"] = 100 * np.mean(evo.predict(X[test]) != y[test])
        row[f"gen_{stop}"] = evo.fit_info_["generations"]
    return row


def measure(folds: int, first_only: bool, max_gen_cap: int | None) -> pd.DataFrame:
    """Fold means per data set (one row each), in the order of :data:`DATASETS`."""
    rows = []
    for label, (name, params, gamma) in DATASETS.items():
        ds = load_dataset(name, params)
        X, y = np.asarray(ds.X, dtype=float), np.asarray(ds.y)
        cv = StratifiedKFold(folds, shuffle=True, random_state=0)
        per_fold = []
        for i, (train, test) in enumerate(cv.split(X, y)):
            per_fold.append(fit_fold(X, y, train, test, gamma, max_gen_cap, seed=i))
            if first_only:
                break
        rows.append({"dataset": label, **pd.DataFrame(per_fold).mean().to_dict()})
        print(f"  {label} done", flush=True)
    return pd.DataFrame(rows).set_index("dataset")


def main() -> None:
    """Parse the arguments, measure, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="first fold only, <= 5000 generations")
    ap.add_argument("--folds", type=int, default=5, help="CV folds (default 5)")
    args = ap.parse_args()
    if args.folds < 2:
        ap.error(f"--folds must be at least 2, got {args.folds}")
    table = measure(args.folds, args.quick, 5000 if args.quick else None)
    cols = {
        "W_libsvm": "W LibSVM",
        "ratio_early": "W/W_lib early",
        "ratio_converged": "W/W_lib conv",
        "err_libsvm": "err% LibSVM",
        "err_early": "err% early",
        "err_converged": "err% conv",
        "gen_early": "gens early",
        "gen_converged": "gens conv",
        "sec_early": "s early",
        "sec_converged": "s conv",
    }
    out = table[list(cols)].rename(columns=cols)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(out.round(3).to_string())
    gap = 100 * (out["W/W_lib conv"] - out["W/W_lib early"])
    diff = out["err% early"] - out["err% conv"]
    print(
        f"mean objective gap closed by converging: {gap.mean():.1f} % of W(LibSVM); "
        f"mean error change early - converged: {diff.mean():+.2f} points"
    )


if __name__ == "__main__":
    main()
