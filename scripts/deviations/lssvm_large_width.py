"""Which kernel widths make FCC- and SSD-LSSVM predict one class on a Table 7 set (Oliveira 2021).

Usage::

    python scripts/deviations/lssvm_large_width.py [--dataset adult_fixed] [--n-support 300]
    python scripts/deviations/lssvm_large_width.py --dataset ijcnn1_fixed --n-support 400
    python scripts/deviations/lssvm_large_width.py --dataset ijcnn1_fixed --n-support 400 \
        --inputs raw --constraints prototypes

Table 7 prints FCC- and SSD-LSSVM on ADULT as 0.76 +- 0.00. The thesis took (C, sigma) from
Zhou (2016) and does not print them; ``lssvm_large`` tunes them. On the dataset's own
train/test files, inputs z-scored on the training part as the study does, the script fits
FCC-LSSVM (``--n-support`` SVs, Table 6's M), SSD-LSSVM and FSA-LSSVM (stopped at that M, as
in the study) at every width sigma^2 of the thesis's grid (2^-7 .. 2^9) and three C (2^-5,
2^3, 2^15), and prints each accuracy and the share of test rows predicted as the majority
class, beside that class's share of the test file. ``--inputs raw`` leaves the inputs as the
file gives them (LIBSVM's sets come scaled), and ``--constraints prototypes`` gives FCC-LSSVM
the prototype rows Algorithm 9 prints instead of every training row (``fcc_lssvm_ps`` in the
study). About four CPU-minutes on adult, five on ijcnn1. The numbers quoted in
``svmlab/reproduce/deviations/lssvm_large_width.md`` are this script's. Needs
``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _study import study_split, zscored  # scripts/deviations/_study.py
from threadpoolctl import threadpool_limits

from svmlab.estimators.lssvm import FCCLSSVMClassifier, FSALSSVMClassifier
from svmlab.estimators.lssvm.ssd import SSDLSSVMClassifier

WIDTHS = [2.0**p for p in range(-7, 10, 2)]  # the thesis's sigma^2 grid
CS = [2.0**-5, 2.0**3, 2.0**15]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="adult_fixed")
    p.add_argument("--n-support", type=int, default=300)
    p.add_argument("--inputs", choices=("zscore", "raw"), default="zscore")
    p.add_argument("--constraints", choices=("all", "prototypes"), default="all")
    args = p.parse_args()
    ds, split = study_split("lssvm_large", args.dataset)
    X, y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y)
    Z = zscored(X, split.train) if args.inputs == "zscore" else X
    labels, counts = np.unique(y[split.test], return_counts=True)
    majority = labels[np.argmax(counts)]
    print(
        f"{args.dataset}: {len(split.train)} training and {len(split.test)} test rows; the "
        f"majority class is {counts.max() / counts.sum():.4f} of the test file"
    )
    print("method  C         sigma^2    accuracy  predicted majority")
    models = {
        "FCC": lambda C, g: FCCLSSVMClassifier(
            n_support=args.n_support,
            C=C,
            gamma=g,
            constraints=args.constraints,
            random_state=0,
        ),
        "SSD": lambda C, g: SSDLSSVMClassifier(C=C, gamma=g, random_state=0),
        "FSA": lambda C, g: FSALSSVMClassifier(
            C=C, gamma=g, max_support=args.n_support, random_state=0
        ),
    }
    with threadpool_limits(1), warnings.catch_warnings():
        # SSD-LSSVM's singular normal equations fall back to lstsq (recorded in its fit_info_)
        warnings.filterwarnings("ignore", message=".*numerically singular")
        for name, make in models.items():
            for C in CS:
                for s2 in WIDTHS:
                    model = make(C, 1.0 / s2).fit(Z[split.train], y[split.train])
                    pred = model.predict(Z[split.test])
                    acc, share = np.mean(pred == y[split.test]), np.mean(pred == majority)
                    print(f"{name}     {C:<9g} {s2:<10g} {acc:.4f}    {share:.4f}", flush=True)


if __name__ == "__main__":
    main()
