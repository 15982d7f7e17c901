"""When CC-LSSVM falls to the majority class in Oliveira (2021), Table 5 / Fig. 7 (Ch. 3).

Usage::

    python scripts/deviations/cc_lssvm_small_c.py RUN_DIR [--refit heart ripley]
        [--reach ionosphere_weka heart hepatitis_complete german_numer]

RUN_DIR is a run of ``lssvm_bench`` (``svmlab reproduce oliveira`` keeps it in
``RESULTS/lssvm_bench/reproduce``). Every LSSVM variant of a realisation uses the (C, sigma)
that a 10-fold search of the full LSSVM picked on its training part (the thesis's protocol).
From the run's rows the script prints, per dataset and per chosen C, how many realisations
chose it and the mean accuracy of CC-LSSVM and of the full LSSVM; per dataset, CC-LSSVM's gap
to the full LSSVM at small and larger C; how often CC-LSSVM predicts a single class; and the
methods' mean accuracy ranks over all realisations and over those with C > 0.125.

Then, for the datasets of ``--refit`` (small ones: a few CPU-seconds each), it refits the
realisations whose chosen C is at most 0.125, on the same split and with the same gamma:
CC-LSSVM and the full LSSVM at the chosen C and at C = 0.5, the next value of the grid, and
prints their mean accuracies.

For the datasets of ``--reach`` it refits the realisations whose chosen C is above 0.125, with
their (C, gamma), and splits each test part by the reach of CC-LSSVM's support vectors: a test
point is *out of reach* when its largest kernel value to any support vector is below 0.1, so
that the bias all but decides it. It prints, per dataset and chosen gamma, the share of test
points out of reach and the accuracy of CC-LSSVM and of the full LSSVM on both parts. The
numbers quoted in
``svmlab/reproduce/deviations/cc_lssvm_small_c.md`` are this script's. Needs
``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd
from _study import study_split, zscored  # scripts/deviations/_study.py
from sklearn.metrics.pairwise import rbf_kernel
from threadpoolctl import threadpool_limits

from svmlab.estimators.lssvm import CCLSSVMClassifier, LSSVMClassifier
from svmlab.reproduce.documents.oliveira import _mean_ranks
from svmlab.results import load_results

SMALL_C = 0.125
NEXT_C = 0.5
REACH = 0.1  # a test point whose largest kernel value to the support vectors is below this


def _chosen(rows: pd.DataFrame) -> pd.DataFrame:
    info = rows["fit_info"].map(lambda v: json.loads(v) if isinstance(v, str) else v)
    rows = rows.assign(C=[float(i["C"]) for i in info], gamma=[float(i["gamma"]) for i in info])
    wide = rows.pivot_table(
        index=["dataset", "repeat"], columns="solver", values="accuracy", aggfunc="first"
    )
    params = rows[rows["solver"] == "lssvm"].set_index(["dataset", "repeat"])[["C", "gamma"]]
    return wide.join(params)


def _refit(name: str, table: pd.DataFrame) -> None:
    failing = table.loc[name]
    failing = failing[failing["C"] <= SMALL_C]
    acc = {key: [] for key in ("cc", "cc_next", "full", "full_next")}
    for repeat, row in failing.iterrows():
        ds, split = study_split("lssvm_bench", name, int(repeat))
        X, y = zscored(ds.X, split.train), np.asarray(ds.y)
        for key, model in (
            ("cc", CCLSSVMClassifier(C=row["C"], gamma=row["gamma"], random_state=0)),
            ("cc_next", CCLSSVMClassifier(C=NEXT_C, gamma=row["gamma"], random_state=0)),
            ("full", LSSVMClassifier(C=row["C"], gamma=row["gamma"])),
            ("full_next", LSSVMClassifier(C=NEXT_C, gamma=row["gamma"])),
        ):
            model.fit(X[split.train], y[split.train])
            acc[key].append(float(np.mean(model.predict(X[split.test]) == y[split.test])))
    print(
        f"{name}: the {len(failing)} realisations with C <= {SMALL_C}, refitted on their "
        f"splits with their gamma: CC-LSSVM {np.mean(acc['cc']):.3f} at their C, "
        f"{np.mean(acc['cc_next']):.3f} at C = {NEXT_C}; full LSSVM {np.mean(acc['full']):.3f} "
        f"and {np.mean(acc['full_next']):.3f}"
    )


def _reach(name: str, table: pd.DataFrame) -> None:
    chosen = table.loc[name]
    chosen = chosen[chosen["C"] > SMALL_C]
    parts = []
    for repeat, row in chosen.iterrows():
        ds, split = study_split("lssvm_bench", name, int(repeat))
        X, y = zscored(ds.X, split.train), np.asarray(ds.y)
        Xtr, ytr, Xte, yte = X[split.train], y[split.train], X[split.test], y[split.test]
        cc = CCLSSVMClassifier(C=row["C"], gamma=row["gamma"], random_state=0).fit(Xtr, ytr)
        full = LSSVMClassifier(C=row["C"], gamma=row["gamma"]).fit(Xtr, ytr)
        out = rbf_kernel(Xte, Xtr[cc.support_], gamma=row["gamma"]).max(axis=1) < REACH
        parts.append(
            {
                "gamma": row["gamma"],
                "n_support": len(cc.support_),
                "out": out.mean(),
                "cc_out": np.mean(cc.predict(Xte[out]) == yte[out]) if out.any() else np.nan,
                "cc_in": np.mean(cc.predict(Xte[~out]) == yte[~out]) if (~out).any() else np.nan,
                "full_out": np.mean(full.predict(Xte[out]) == yte[out]) if out.any() else np.nan,
                "full_in": np.mean(full.predict(Xte[~out]) == yte[~out])
                if (~out).any()
                else np.nan,
            }
        )
    frame = pd.DataFrame(parts)
    for gamma, group in frame.groupby("gamma"):
        print(
            f"{name:<19} gamma {gamma:<9.4g} {len(group):>3d} realisations, "
            f"{group['n_support'].mean():5.1f} SVs; out of reach {group['out'].mean():5.1%} "
            f"of the test points: CC-LSSVM {group['cc_out'].mean():.3f} there, "
            f"{group['cc_in'].mean():.3f} in reach; full LSSVM {group['full_out'].mean():.3f} "
            f"and {group['full_in'].mean():.3f}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("--refit", nargs="*", default=["heart", "ripley"])
    p.add_argument(
        "--reach",
        nargs="*",
        default=["ionosphere_weka", "heart", "hepatitis_complete", "german_numer"],
    )
    args = p.parse_args()
    every = load_results(args.run_dir)
    every = every[every["status"] == "ok"]
    rows = every[every["solver"].isin(["lssvm", "cc_lssvm"])]
    table = _chosen(rows)
    print("dataset             C chosen   realisations  CC-LSSVM  full LSSVM")
    for (name, C), group in table.groupby(["dataset", "C"]):
        print(
            f"{name:<19} {C:>9g} {len(group):>14d} {group['cc_lssvm'].mean():>9.3f} "
            f"{group['lssvm'].mean():>11.3f}"
        )
    print("\nCC-LSSVM minus full LSSVM, mean accuracy, by the chosen C (n realisations):")
    for name, group in table.groupby("dataset"):
        gap = group["cc_lssvm"] - group["lssvm"]
        small = group["C"] <= SMALL_C
        per_c = gap.groupby(group["C"]).mean()
        print(
            f"{name:<19} C <= {SMALL_C}: "
            + (f"{gap[small].mean():+.3f} ({small.sum()})" if small.any() else "-")
            + f", C > {SMALL_C}: "
            + (f"{gap[~small].mean():+.3f} ({(~small).sum()})" if (~small).any() else "-")
            + f"; per C from {per_c.min():+.3f} to {per_c.max():+.3f}"
        )
    cc = every[every["solver"] == "cc_lssvm"].set_index(["dataset", "repeat"])
    one_class = (cc["tp"] + cc["fp"] == 0) | (cc["tn"] + cc["fn"] == 0)  # one class predicted
    small = table["C"] <= SMALL_C
    print(
        f"\nC <= {SMALL_C} in {int(small.sum())} of {len(table)} realisations; CC-LSSVM predicts "
        f"one class for the whole test part in {int(one_class[small].sum())} of them and in "
        f"{int(one_class[~small].sum())} of the others"
    )
    keep = table.index[~small]
    for label, part in (("all realisations", every), (f"C > {SMALL_C}", None)):
        if part is None:
            index = every.set_index(["dataset", "repeat"]).index
            part = every[index.isin(keep)]
        ranks = _mean_ranks(part, "accuracy")
        print(
            f"mean accuracy ranks, {label}: " + ", ".join(f"{k} {v:.2f}" for k, v in ranks.items())
        )
    with threadpool_limits(1):
        for name in args.refit:
            _refit(name, table)
        if args.reach:
            print(
                f"\nC > {SMALL_C}: test points out of the support vectors' reach "
                f"(largest kernel value below {REACH})"
            )
        for name in args.reach:
            _reach(name, table)


if __name__ == "__main__":
    main()
