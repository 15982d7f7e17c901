"""EvoSVM and PsoSVM against LIBSVM: generations per second and time to 99 % of LIBSVM's dual
objective.

Usage::

    python scripts/bench/evosvm_speed.py [--sizes 200 500 1000] [--datasets spiral checkerboard]
                                         [--max-gen 5000] [--variants gaussian hybrid pso]

For every synthetic dataset of the thesis (RBF, gamma = 1, C = 1, raw features) and size n, in
one run on this machine with one BLAS thread: LIBSVM's fit time (sklearn SVC, RBF) and its dual
objective W* (with the equality constraint); then each evolutionary variant with ``max_generations``
generations and no early stopping, its generations per second, the dual objective it ends
with (% of W*; the b = 0 trick drops the equality constraint, so more than 100 % is possible,
docs/decisions/evo.md), and the time until its best individual first reached 99 % of W*
("-" when never).
The thesis's point is solution quality per evaluation, so both speed and quality are shown.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.evo import EvoSVMClassifier, PsoSVMClassifier
from svmlab.estimators.kernel_svc import KernelSVC


def _make(variant: str, max_gen: int):
    if variant == "pso":
        return PsoSVMClassifier(
            C=1.0, gamma=1.0, max_generations=max_gen, patience=None, random_state=0
        )
    return EvoSVMClassifier(
        C=1.0, gamma=1.0, mutation=variant, max_generations=max_gen, patience=None, random_state=0
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", nargs="*", type=int, default=[200, 500, 1000])
    ap.add_argument("--datasets", nargs="*", default=["spiral", "checkerboard"])
    ap.add_argument("--max-gen", type=int, default=5000)
    ap.add_argument("--variants", nargs="*", default=["gaussian", "hybrid", "pso"])
    args = ap.parse_args()
    _make("gaussian", 2).fit(
        np.array([[0.0], [1.0], [2.0], [3.0]]), [0, 1, 0, 1]
    )  # compile numba code
    print(
        f"{'dataset':<13} {'n':>5} | {'SVC fit s':>9} {'W*':>9} | {'variant':<8} {'gen/s':>7} "
        f"{'W end %':>8} "
        f"{'t(99%) s':>9} {'t(99%)/SVC':>10}"
    )
    with threadpool_limits(1):
        for name in args.datasets:
            for n in args.sizes:
                ds = load_dataset(name, {"n_samples": n})
                t0 = time.perf_counter()
                ref = KernelSVC(C=1.0, gamma=1.0, tol=1e-3).fit(ds.X, ds.y)
                svc_seconds = time.perf_counter() - t0
                w_star = ref.fit_info_["objective"]
                for variant in args.variants:
                    model = _make(variant, args.max_gen).fit(ds.X, ds.y)
                    info = model.fit_info_
                    history = np.asarray(
                        info["history"]
                    )  # best fitness: initial population, then per generation
                    per_gen = info["optimize_seconds"] / max(info["generations"], 1)
                    hit = np.flatnonzero(history >= 0.99 * w_star)
                    t99 = f"{hit[0] * per_gen:>9.3f}" if hit.size else f"{'-':>9}"
                    ratio = f"{hit[0] * per_gen / svc_seconds:>10.1f}" if hit.size else f"{'-':>10}"
                    print(
                        f"{name:<13} {n:>5} | {svc_seconds:>9.4f} {w_star:>9.2f} | {variant:<8} "
                        f"{info['generations'] / info['optimize_seconds']:>7.0f} "
                        f"{100 * info['objective'] / w_star:>8.1f} {t99} {ratio}"
                    )


if __name__ == "__main__":
    main()
