"""Which CCIS set holds CC-LSSVM's support vectors, measured against Fig. 7's claims
(Oliveira (2021), Table 5 / Fig. 7, Ch. 3).

Usage::

    python scripts/deviations/cc_lssvm_sv_set.py RUN_DIR [--thresholds 0 3]

RUN_DIR is a run of ``lssvm_bench`` (``svmlab reproduce oliveira`` keeps it in
``RESULTS/lssvm_bench/reproduce``). svmlab follows Algorithm 8: the support vectors are the
corners CCIS(D, P) with P = 9. Sec. 3.2.1 names CCIS(D, 0) as the support vectors instead;
with every training row as a constraint (svmlab's default) that reading is
``corner_threshold=0``. For each threshold of ``--thresholds`` the script refits CC-LSSVM on
every realisation of the run, on the same split and with the (C, gamma) the run's full LSSVM
chose, and prints per dataset its mean accuracy and SPR beside the run's; then, for the run's
CC-LSSVM and for each refit in its place, the mean accuracy ranks of the five methods and the
sparsity ranks of the four sparse ones (Fig. 7's two diagrams). About 2.5 CPU-minutes. The
numbers quoted in ``svmlab/reproduce/deviations/cc_lssvm_sv_set.md`` are this script's. Needs
``SVMLAB_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from _study import study_split, zscored  # scripts/deviations/_study.py
from threadpoolctl import threadpool_limits

from svmlab.estimators.lssvm import CCLSSVMClassifier
from svmlab.reproduce.documents.mierswa2009_fronts import fit_info_of
from svmlab.reproduce.documents.oliveira import _mean_ranks
from svmlab.reproduce.engine import support_vector_columns
from svmlab.results import load_results

RUN_THRESHOLD = 9  # CCIS's P in the run (Table 4)


def _run_rows(run_dir: str) -> pd.DataFrame:
    """The run's rows with each model's SPR and the (C, gamma) of its realisation."""
    rows = load_results(run_dir)
    rows = support_vector_columns(rows[rows["status"] == "ok"])  # SPR as the report derives it
    info = rows["fit_info"].map(fit_info_of)
    rows["C"] = [float(i.get("C", np.nan)) for i in info]
    rows["gamma"] = [float(i.get("gamma", np.nan)) for i in info]
    return rows[["dataset", "repeat", "solver", "accuracy", "sparsity", "C", "gamma"]]


def _refits(rows: pd.DataFrame, thresholds) -> pd.DataFrame:
    """CC-LSSVM at each threshold on every realisation, with the run's (C, gamma)."""
    full = rows[rows["solver"] == "lssvm"]
    out = []
    with threadpool_limits(1), warnings.catch_warnings():
        # two_moons is separable: no prototype at any P, so CC-LSSVM is the full LSSVM (warned)
        warnings.filterwarnings("ignore", message=".*empty prototype set")
        for r in full.itertuples():
            ds, split = study_split("lssvm_bench", r.dataset, int(r.repeat))
            X, y = zscored(ds.X, split.train), np.asarray(ds.y)
            for P in thresholds:
                model = CCLSSVMClassifier(C=r.C, gamma=r.gamma, corner_threshold=P)
                model.fit(X[split.train], y[split.train])
                out.append(
                    {
                        "dataset": r.dataset,
                        "repeat": r.repeat,
                        "solver": f"cc_lssvm_P{P}",
                        "accuracy": float(np.mean(model.predict(X[split.test]) == y[split.test])),
                        "sparsity": float(model.fit_info_["sparsity"]),
                    }
                )
    return pd.DataFrame(out)


def _ranks(rows: pd.DataFrame) -> str:
    accuracy = _mean_ranks(rows, "accuracy")
    sparse = [s for s in accuracy.index if s != "lssvm"]  # the full LSSVM has SPR 0
    sparsity = _mean_ranks(rows, "sparsity", sparse)
    return (
        "accuracy ranks "
        + ", ".join(f"{k} {v:.2f}" for k, v in accuracy.items())
        + "\n    sparsity ranks "
        + ", ".join(f"{k} {v:.2f}" for k, v in sparsity.items())
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("--thresholds", nargs="+", type=int, default=[0, 3])
    args = p.parse_args()
    rows = _run_rows(args.run_dir)
    refits = _refits(rows, args.thresholds)
    both = pd.concat([rows, refits])
    for column in ("accuracy", "sparsity"):
        wide = both.pivot_table(index="dataset", columns="solver", values=column, aggfunc="mean")
        print(f"mean {column} (cc_lssvm: the run, P = {RUN_THRESHOLD})")
        print(wide.round(3).to_string(), "\n")
    print(f"the run (P = {RUN_THRESHOLD}):\n    " + _ranks(rows))
    others = rows[rows["solver"] != "cc_lssvm"]
    for P in args.thresholds:
        refit = refits[refits["solver"] == f"cc_lssvm_P{P}"].assign(solver="cc_lssvm")
        print(
            f"CC-LSSVM refitted with P = {P} in its place:\n    "
            + _ranks(pd.concat([others, refit]))
        )


if __name__ == "__main__":
    main()
