"""ReliefF-MI: the vectorised weights against the per-formula loop, and the genetic search's
fitness cache.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/relieff_mi_speed.py
        [--datasets musk1 elephant musk2_csv] [--distances adapted min max avg] [--repeats 3]
        [--ga-dataset musk1] [--ga-population 100] [--ga-generations 50] [--no-ga]

The target (HyDR-MI issue): ReliefF-MI on musk2 (102 bags, 6,598 instances, 166 features) in
seconds, vectorised over bag-distance tables, with the ratio against the formula-by-formula
transcription (:mod:`svmlab.selection.relieff_mi_reference`, the peer) measured in the same run.

Per data set: one stratified 90 % training part (seed 0; a 10-fold training fold, what the
paper's filter sees), k = 80, m = 180. ``relieff_mi_weights`` is timed from a cold start of its
instance-distance cache (minimum over ``--repeats``; the first call, which compiles the numba
kernel, is not timed), the reference once; the largest weight difference is printed with the
ratio. The four distances share one instance-distance pass when run together, as a grid over
distances does: the last column times all four after the first.

Then the genetic search (:class:`svmlab.selection.GeneticFeatureSelector`) of HyDR-MI runs once
with the paper's settings around MIWrapper (Naive Bayes) on the top 50 % ReliefF-MI features of
``--ga-dataset``, and prints fitness requests, masks evaluated, cache hits and hit rate.
One BLAS thread throughout.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil import MIWrapperClassifier
from svmlab.estimators.weka.naive_bayes import PrecisionNaiveBayes
from svmlab.selection import GeneticFeatureSelector, MultiInstanceFeatureSelector
from svmlab.selection import relieff_mi as fast
from svmlab.selection.relieff_mi_reference import relieff_mi_weights_reference


def training_part(name):
    ds = load_dataset(name)
    bags, y = list(ds.bags), np.asarray(ds.y)
    split = StratifiedShuffleSplit(n_splits=1, train_size=0.9, random_state=0)
    train, _ = next(split.split(np.zeros(len(y)), y))
    return [bags[i] for i in train], y[train]


def time_fast(bags, y, distance, repeats):
    best = np.inf
    for _ in range(repeats):
        fast._CACHE.clear()
        t0 = time.perf_counter()
        w = fast.relieff_mi_weights(bags, y, distance=distance)
        best = min(best, time.perf_counter() - t0)
    return w, best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", nargs="+", default=["musk1", "elephant", "musk2_csv"])
    p.add_argument("--distances", nargs="+", default=["adapted"])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--ga-dataset", default="musk1")
    p.add_argument("--ga-population", type=int, default=100)
    p.add_argument("--ga-generations", type=int, default=50)
    p.add_argument("--no-ga", action="store_true")
    args = p.parse_args(argv)
    with threadpool_limits(1):
        warm_bags, warm_y = training_part(args.datasets[0])
        fast.relieff_mi_weights(warm_bags[:6], warm_y[:6], k=2)  # compile the numba kernel
        print(
            f"{'data set':<11} {'distance':<8} {'bags':>5} {'inst':>6} {'d':>4} "
            f"{'svmlab s':>9} {'per-formula s':>14} {'ratio':>7} {'max |dw|':>9} "
            f"{'4 distances s':>14}"
        )
        for name in args.datasets:
            bags, y = training_part(name)
            n_inst, d = sum(len(b) for b in bags), bags[0].shape[1]
            for distance in args.distances:
                w, t_fast = time_fast(bags, y, distance, args.repeats)
                t0 = time.perf_counter()
                w_ref = relieff_mi_weights_reference(bags, y, distance=distance)
                t_ref = time.perf_counter() - t0
                fast._CACHE.clear()
                t0 = time.perf_counter()
                for dist in ("min", "max", "avg", "adapted"):
                    fast.relieff_mi_weights(bags, y, distance=dist)
                t_all = time.perf_counter() - t0
                print(
                    f"{name:<11} {distance:<8} {len(bags):>5} {n_inst:>6} {d:>4} "
                    f"{t_fast:>9.2f} {t_ref:>14.1f} {t_ref / t_fast:>6.0f}x "
                    f"{np.abs(w - w_ref).max():>9.1e} {t_all:>14.2f}"
                )
        if args.no_ga:
            return
        bags, y = training_part(args.ga_dataset)
        reduced = MultiInstanceFeatureSelector(0.5).fit_transform(bags, y)
        learner = MIWrapperClassifier(
            method="geometric", weighting="bag_scaled", estimator=PrecisionNaiveBayes()
        )
        t0 = time.perf_counter()
        ga = GeneticFeatureSelector(
            learner,
            population_size=args.ga_population,
            max_generations=args.ga_generations,
            random_state=0,
        ).fit(reduced, y)
        seconds = time.perf_counter() - t0
        requests = ga.n_evaluations_ + ga.n_cache_hits_
        print(
            f"\nGA (MIWrapper NB, {args.ga_dataset}, {reduced[0].shape[1]} genes, population "
            f"{args.ga_population}, {args.ga_generations} generations): {requests} fitness "
            f"requests, {ga.n_evaluations_} masks evaluated, {ga.n_cache_hits_} cache hits "
            f"(hit rate {ga.n_cache_hits_ / requests:.1%}); best fitness {ga.fitness_:.3f} with "
            f"{int(ga.support_.sum())} features; {seconds:.0f} s"
        )


if __name__ == "__main__":
    main()
