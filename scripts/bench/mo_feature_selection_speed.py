"""MO wrapper feature selection: fitness evaluations per second, cached and parallel against an
uncached sequential run of the same search.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/mo_feature_selection_speed.py
        [--dataset sonar_mlbench] [--generations 30] [--population 0] [--cv 5] [--n-jobs 2]
        [--estimator linear_svc|svc_rbf|gaussian_nb]

One search (:class:`svmlab.selection.MOFeatureSelector`, NSGA-II, the thesis's operators,
population ``2m`` unless ``--population``), run three times with the same seed:

1. **uncached, 1 process** -- every fitness request runs the inner cross-validation (the peer);
2. **cached, 1 process** -- each distinct mask is cross-validated once;
3. **cached, ``--n-jobs`` processes** -- the masks a generation has not seen are cross-validated
   in parallel with joblib (loky).

For each it prints the wall time, the fitness values the search asked for, the inner CVs it ran,
and the *effective* rate (fitness values delivered per second) with its ratio to run 1. The three
fronts must be identical (the cache and the workers change the cost, never the result). Each
inner fit uses one BLAS thread.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.selection import MOFeatureSelector

ESTIMATORS = {
    "linear_svc": lambda: LinearSVC(C=1.0, max_iter=10000),
    "svc_rbf": lambda: SVC(C=1.0, gamma="scale"),
    "gaussian_nb": GaussianNB,
}


def run(X, y, args, *, cache: bool, n_jobs: int):
    sel = MOFeatureSelector(
        ESTIMATORS[args.estimator](),
        cv=args.cv,
        population_size=args.population or None,
        max_generations=args.generations,
        cache=cache,
        n_jobs=n_jobs,
        random_state=0,
    )
    t0 = time.perf_counter()
    sel.fit(X, y)
    return sel, time.perf_counter() - t0


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="sonar_mlbench")
    parser.add_argument("--generations", type=int, default=30)
    parser.add_argument("--population", type=int, default=0, help="0 = 2m (the thesis)")
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--estimator", choices=sorted(ESTIMATORS), default="linear_svc")
    args = parser.parse_args(argv)

    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the loky workers inherit it
    ds = load_dataset(args.dataset)
    X = (ds.X - ds.X.mean(axis=0)) / np.where(ds.X.std(axis=0) > 0, ds.X.std(axis=0), 1.0)
    y = np.asarray(ds.y)
    m = X.shape[1]
    pop = args.population or 2 * m
    print(
        f"{args.dataset}: {X.shape[0]} rows, {m} features; NSGA-II population {pop}, "
        f"{args.generations} generations, inner {args.cv}-fold CV of {args.estimator}"
    )
    results = {}
    with threadpool_limits(1):
        for label, cache, jobs in (
            ("uncached, 1 process", False, 1),
            ("cached, 1 process", True, 1),
            (f"cached, {args.n_jobs} processes", True, args.n_jobs),
        ):
            sel, seconds = run(X, y, args, cache=cache, n_jobs=jobs)
            info = sel.fit_info_
            results[label] = (sel, seconds, info["requests"], info["evaluations"])
    base_rate = None
    print(
        f"\n{'run':<24} {'seconds':>8} {'requested':>10} {'inner CVs':>10} "
        f"{'hit rate':>9} {'evals/s':>9} {'ratio':>7}"
    )
    out = {}
    for label, (_sel, seconds, requests, evaluations) in results.items():
        rate = requests / seconds
        base_rate = base_rate or rate
        out[label] = rate / base_rate
        print(
            f"{label:<24} {seconds:8.2f} {requests:10d} {evaluations:10d} "
            f"{1 - evaluations / requests:9.1%} {rate:9.1f} {rate / base_rate:6.2f}x"
        )
    fronts = [r[0].pareto_front_ for r in results.values()]
    same = all(f.equals(fronts[0]) for f in fronts[1:])
    print(f"\nidentical fronts in all three runs: {same}")
    print(
        "front: "
        + ", ".join(
            f"{n}:{e:.3f}"
            for n, e in zip(fronts[0]["n_features"], fronts[0]["inner_error"], strict=True)
        )
    )
    out["identical"] = same
    return out


if __name__ == "__main__":
    main()
