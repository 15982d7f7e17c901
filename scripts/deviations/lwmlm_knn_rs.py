"""Check Table 16's kNN cell on Residential Building (RS) against itself (Oliveira 2021, Ch. 4).

Usage::

    python scripts/deviations/lwmlm_knn_rs.py [--draws 100000]

Table 16's R² is the squared Pearson correlation r² between predictions and targets (the
author's code). r² is the R² of the best affine map of the predictions, so it is at least the
coefficient of determination of the predictions themselves: r² >= 1 - RMSE² / s², with s the
standard deviation of the test targets. Every (RMSE, r²) pair of the table therefore bounds the
test spread from above, s <= RMSE / sqrt(1 - r²). Methods evaluated on the same splits share s.

The script prints that bound for every published pair, then the spread that RS's test parts
actually have: on the 10 hold-outs of ``lwmlm_hd`` (its protocol and seed, Table 14's sizes)
and on ``--draws`` random test parts of the same size. From the smallest spread seen it prints
the lowest RMSE that kNN's published r² allows. The table's cells are means over an
unprinted number of hold-outs, while the bound holds per hold-out: it holds for the means as
it stands if r² is the same on every hold-out; if r² varies but does not rise with the spread,
the mean spread is at most RMSE / (1 - r²) (as sqrt(1 - x) >= 1 - x), which the script prints
beside the smallest mean spread of 10 random test parts. The numbers quoted in
``svmlab/reproduce/deviations/lwmlm_knn_rs.md`` are this script's. A few CPU-seconds. Needs
``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse
from importlib import resources

import numpy as np
import pandas as pd
from _study import study_split  # scripts/deviations/_study.py

from svmlab.config import compose
from svmlab.data.registry import load_dataset

DATASET = "residential_building"


def _published(name: str) -> pd.DataFrame:
    path = resources.files("svmlab.reproduce") / "published" / name
    with resources.as_file(path) as file:
        return pd.read_csv(file, index_col=0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--draws", type=int, default=100_000)
    args = p.parse_args()

    rmse, r2 = _published("lwmlm_t16_rmse.csv"), _published("lwmlm_t16_r2.csv")
    bound = rmse / np.sqrt(1 - r2)
    print("upper bound on the test targets' standard deviation, RMSE / sqrt(1 - r²):")
    print(bound.map(lambda v: f"{v:.0f}" if v >= 10 else f"{v:.2f}").to_string())

    cfg, _ = compose(["+experiment=lwmlm_hd"])
    y = np.asarray(load_dataset(DATASET).y, dtype=np.float64)
    spreads = []
    for repeat in range(int(cfg["protocol"].get("n_repeats", 10))):
        _, split = study_split("lwmlm_hd", DATASET, repeat)
        spreads.append(y[split.test].std())
    n_test = len(split.test)
    rng = np.random.default_rng(0)
    drawn = np.array(
        [y[rng.choice(len(y), n_test, replace=False)].std() for _ in range(args.draws)]
    )
    print(f"\nRS: {len(y)} rows, standard deviation of all targets {y.std():.0f}")
    print(
        f"test parts of {n_test} rows, lwmlm_hd's {len(spreads)} hold-outs: "
        f"min {min(spreads):.0f}, median {np.median(spreads):.0f}, max {max(spreads):.0f}"
    )
    print(
        f"{args.draws} random test parts of {n_test} rows: min {drawn.min():.0f}, "
        f"0.1 % quantile {np.quantile(drawn, 0.001):.0f}, median {np.median(drawn):.0f}; "
        f"{np.sum(drawn <= bound.loc['RS', 'kNN'])} at or below kNN's bound "
        f"{bound.loc['RS', 'kNN']:.0f}"
    )
    tens = drawn[: args.draws // 10 * 10].reshape(-1, 10).mean(axis=1)
    linear = rmse.loc["RS", "kNN"] / (1 - r2.loc["RS", "kNN"])
    print(
        f"means over 10 random test parts: smallest {tens.min():.0f} of {len(tens)}; "
        f"kNN's bound for cells averaged over hold-outs, RMSE / (1 - r²): {linear:.0f}"
    )
    r2_knn = r2.loc["RS", "kNN"]
    print(
        f"\nkNN's published r² {r2_knn:.2f} needs RMSE >= s sqrt(1 - r²): "
        f"{drawn.min() * np.sqrt(1 - r2_knn):.0f} at the smallest spread drawn, "
        f"{np.median(drawn) * np.sqrt(1 - r2_knn):.0f} at the median "
        f"(published RMSE {rmse.loc['RS', 'kNN']:.2f})"
    )


if __name__ == "__main__":
    main()
