"""Measure what sets the scale of Table 19's NORM on banana (Oliveira 2021, Ch. 5).

Usage::

    python scripts/deviations/cclwmlm_norm.py [--dataset banana] [--repeat 0]

NORM = 1 - ||B||_F / max ||B||_F over a dataset's rows, so every model's NORM depends on the
largest ``||B||``. On the training part of ``cclwmlm_bench``'s first split (its protocol and seed,
inputs z-scored on that part) the script prints the number of duplicated training rows, the
smallest singular values of the input-distance matrix ``D`` of Full-MLM (every training point a
reference point), Full-MLM's minimum-norm ``||B||`` by three solvers (LAPACK's ``gelsy``, which
svmlab uses, NumPy's ``pinv`` and ``lstsq``), and Random-MLM's ``||B||`` over the
``n_reference`` grid of Table 10 (seed 0), each as a fraction of Full-MLM's: the NORM it would
get with Full-MLM in the maximum (svmlab's reading) and without. About 1 CPU-minute. The
numbers quoted in ``svmlab/reproduce/deviations/cclwmlm_norm.md`` are this script's. Needs
``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _study import study_split, zscored  # scripts/deviations/_study.py
from scipy import linalg
from threadpoolctl import threadpool_limits

from svmlab.estimators.mlm import MLMClassifier
from svmlab.estimators.mlm.distances import distance_matrix, one_hot

GRID = (0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40, 0.45, 0.50)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="banana")
    p.add_argument("--repeat", type=int, default=0)
    args = p.parse_args()
    ds, split = study_split("cclwmlm_bench", args.dataset, args.repeat)
    X = zscored(ds.X[split.train], slice(None))
    y = ds.y[split.train]
    _, index = np.unique(y, return_inverse=True)
    D, Delta = distance_matrix(X, X), distance_matrix(*(2 * [one_hot(index, 2)]))
    print(
        f"{args.dataset}: {len(X)} training rows, {len(X) - len(np.unique(X, axis=0))} duplicated"
    )
    with threadpool_limits(1):
        s = np.linalg.svd(D, compute_uv=False)
        print("smallest singular values of D:", " ".join(f"{v:.2e}" for v in s[-10:]))
        full = {
            "gelsy": linalg.lstsq(D, Delta, lapack_driver="gelsy", check_finite=False)[0],
            "numpy pinv": np.linalg.pinv(D) @ Delta,
            "numpy lstsq": np.linalg.lstsq(D, Delta, rcond=None)[0],
        }
        for name, B in full.items():
            print(f"Full-MLM ||B|| ({name}): {np.linalg.norm(B):.6g}")
        top = np.linalg.norm(full["gelsy"])
        norms = []
        for k in GRID:
            model = MLMClassifier(n_reference=k, random_state=0).fit(X, y)
            norms.append(model.fit_info_["b_norm"])
    worst = max(norms)
    head = ("k", "Random ||B||", "/ Full", "NORM, Full in max", "NORM, Random max")
    print(" ".join(h.rjust(w) for h, w in zip(head, (5, 13, 8, 18, 17))))
    for k, n in zip(GRID, norms):
        print(f"{k:5.2f} {n:13.2f} {n / top:8.4f} {1 - n / top:18.4f} {1 - n / worst:17.4f}")


if __name__ == "__main__":
    main()
