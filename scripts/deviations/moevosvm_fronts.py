"""Measure why MO-EvoSVM's fronts stop short of zero training error (Mierswa 2009, Figs. 3.2/3.3).

Usage::

    python scripts/deviations/moevosvm_fronts.py [--quick]

For every data set of ``+experiment=moevosvm_fronts`` (Table 3.5's RBF gammas, raw features),
the split of that experiment's run with seed 0 (80/20, then MO-EvoSVM's own 20 % hold-out) is
rebuilt, and two fronts are compared by their smallest training error (%) on the fitting rows:

* **the exact front**: the same objectives (I) and (II), the same box ``[0, 1000]`` and the same
  post-hoc bias, but with every member computed exactly. Each weighted sum of (I) and (II) is
  maximised by ``alpha = (U / C) * alpha_SVM(C)`` (LIBSVM's C-SVM dual, ``U = alpha_max``), so
  a grid of C from 1e-2 to 1e8 traces the front. Printed: its smallest training error and
  the range of (II) = sum(alpha) where it is reached, with the mean non-zero alpha there.
* **the evolved front** of MO-EvoSVM at the thesis's settings, then with one setting changed:
  4x the generations, 2x the population, pymoo's NSGA-II, a 10x wider kernel (10x gamma), and
  the hybrid mutation drawing new genes from ``[0, alpha_max / 50]`` instead of
  ``[0, alpha_max]`` (a probe, not an svmlab option: the draw is scaled in this script).

A last row fits the thesis's settings on RapidMiner's spiral (coordinate noise 0.1 instead of
svmlab's calibrated 0.75; docs/decisions/data.md).

``--quick`` runs Sonar only (about 15 s). The full run takes about 4 minutes of one core.
Needs ``SVMLAB_DATA_DIR`` for Sonar and Diabetes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.svm import SVC

import svmlab.estimators.evo.moevosvm as moevosvm_module
from svmlab.data import load_dataset
from svmlab.estimators.evo import MOEvoSVMClassifier
from svmlab.estimators.evo._fitness import posthoc_bias
from svmlab.evaluation.protocols import Holdout
from svmlab.kernels import kernel_matrix
from svmlab.seeding import derive_seed

#: Registry name -> (generator parameters, Table 3.5 gamma), as conf/experiment/moevosvm_fronts.
DATASETS = {
    "spiral": ({"n_samples": 1000}, 1.0),
    "checkerboard": ({"n_samples": 1000}, 1.0),
    "sonar_mlbench": ({}, 1.0),
    "pima_indians_diabetes": ({}, 0.001),
}
ALPHA_MAX = 1000.0
#: The changed setting of each evolved run (the thesis's settings otherwise).
VARIANTS = {
    "thesis": {},
    "4x generations": {"max_generations": 4000},
    "2x population": {"population_size": 200},
    "pymoo NSGA-II": {"engine": "pymoo"},
    "10x gamma": {"gamma_factor": 10.0},
    "mutation in [0, U/50]": {"draw_scale": 0.02},
}
_DRAWS = moevosvm_module.sparse_mutation_draws


def experiment_split(name: str, params: dict):
    """The training part of the experiment's seed-0 run and the estimator's seed."""
    ds = load_dataset(name, params)
    split = Holdout(name="holdout", test_size=0.2).repeat_splits(
        ds.targets, 0, seed=0, dataset=name, task=ds.task
    )[0]
    seed = derive_seed(0, "solver", name, 0, 0)
    return ds.X[split.train], ds.targets[split.train], seed


def exact_front(X, y, gamma: float, seed: int) -> tuple[dict, np.ndarray]:
    """Smallest training error (%) of the exact box front on MO-EvoSVM's fitting rows, the (II)
    range where it is reached and the mean non-zero alpha there; and the front's points
    ``[(II), (I)]`` ordered by (II)."""
    probe = MOEvoSVMClassifier(gamma=gamma, max_generations=0, random_state=seed).fit(X, y)
    rows = probe.fit_indices_
    Y = np.where(y[rows] == probe.classes_[1], 1.0, -1.0)
    K = kernel_matrix("rbf", X[rows], None, gamma=gamma)
    members = []
    for C in 10.0 ** np.arange(-2.0, 8.25, 0.25):
        svc = SVC(C=C, kernel="precomputed", tol=1e-5).fit(K, Y)
        alpha = np.zeros(len(Y))
        alpha[svc.support_] = (ALPHA_MAX / C) * np.abs(svc.dual_coef_[0])
        s = K @ (alpha * Y)
        b = posthoc_bias(s, Y, alpha, ALPHA_MAX, 1e-8)
        err = 100.0 * np.mean(np.where(s + b >= 0, 1.0, -1.0) != Y)
        margin = -float((alpha * Y) @ K @ (alpha * Y))
        members.append((err, alpha.sum(), alpha[alpha > 0].mean(), margin))
    best = min(m[0] for m in members)
    totals = [m[1] for m in members if m[0] == best]
    means = [m[2] for m in members if m[0] == best]
    curve = np.array(sorted((m[1], m[3]) for m in members if m[1] > 0))
    return {
        "exact min err %": best,
        "exact (II) at min": f"{min(totals):.0f}..{max(totals):.0f}",
        "exact mean alpha at min": f"{min(means):.1f}..{max(means):.1f}",
    }, curve


def margin_shortfall(front: np.ndarray, curve: np.ndarray) -> float:
    """Median over the evolved members with (II) > 0 of (I) / the exact front's (I) at the same
    (II) (log-log interpolation; 1 = on the exact front, 10 = a ten times worse margin term)."""
    front = front[front[:, 1] > 0]
    exact = -np.exp(np.interp(np.log(front[:, 1]), np.log(curve[:, 0]), np.log(-curve[:, 1])))
    return float(np.median(front[:, 0] / exact))


def evolved_front(X, y, gamma: float, seed: int, setting: dict):
    """Smallest training error (%) of the evolved front, (II) at that member, CPU seconds and
    the front's objectives."""
    setting = dict(setting)
    scale = setting.pop("draw_scale", 1.0)
    gamma *= setting.pop("gamma_factor", 1.0)

    def scaled_draws(P, n, rng):
        rows, genes, u = _DRAWS(P, n, rng)
        return rows, genes, u * scale

    moevosvm_module.sparse_mutation_draws = scaled_draws
    try:
        t0 = time.process_time()
        est = MOEvoSVMClassifier(gamma=gamma, random_state=seed, **setting).fit(X, y)
        seconds = time.process_time() - t0
    finally:
        moevosvm_module.sparse_mutation_draws = _DRAWS
    err = est.pareto_train_error_
    i = int(np.argmin(err))
    return 100.0 * float(err[i]), float(est.pareto_front_[i, 1]), seconds, est.pareto_front_


def measure(names) -> pd.DataFrame:
    """One row per data set: the exact front, then every evolved variant's smallest error."""
    table = {}
    for name in names:
        params, gamma = DATASETS[name]
        X, y, seed = experiment_split(name, params)
        row, curve = exact_front(X, y, gamma, seed)
        for label, setting in VARIANTS.items():
            err, total, seconds, front = evolved_front(X, y, gamma, seed, setting)
            row[f"{label} %"] = err
            if label == "thesis":
                row["thesis (II) at min"] = round(total)
                row["thesis (I) / exact (I), median"] = margin_shortfall(front, curve)
                row["thesis CPU s"] = round(seconds, 1)
            if label == "4x generations":
                row["4x generations (I) / exact (I)"] = margin_shortfall(front, curve)
        table[name] = row
    return pd.DataFrame.from_dict(table, orient="index")


def rapidminer_spiral() -> str:
    """The thesis's settings on RapidMiner's spiral (noise 0.1): smallest training error."""
    X, y, seed = experiment_split("spiral", {"n_samples": 1000, "noise": 0.1})
    exact = exact_front(X, y, 1.0, seed)[0]["exact min err %"]
    err = evolved_front(X, y, 1.0, seed, {})[0]
    return f"spiral with noise 0.1: exact front {exact:.2f} %, evolved front {err:.2f} %"


def main() -> None:
    """Parse the arguments, measure, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="Sonar only (about 15 s)")
    args = ap.parse_args()
    names = ["sonar_mlbench"] if args.quick else list(DATASETS)
    table = measure(names)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(table.round(2).T.to_string())
    if not args.quick:
        print(rapidminer_spiral())


if __name__ == "__main__":
    main()
