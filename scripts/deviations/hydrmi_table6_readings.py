"""HyDR-MI Table 6 under other readings of ``diff_bag`` (the adapted distance's, the maximal pair).

Table 6 is Friedman's test of the four bag distances over the (classifier, data set) blocks of
Tables 2-5. This script takes the cells of a ``hydrmi_relieff`` run (by default the kept one)
and, for each other run given, replaces the cells of the distances that run has by that run's:
a run of the same study whose adapted (or another) distance takes ``diff_bag`` on other
instance pairs::

    svmlab run +experiment=hydrmi_relieff run_id=diff_pairs_min \\
        solvers.relieff_miwrapper_nb.grid.distance=[adapted] \\
        +solvers.relieff_miwrapper_nb.diff_pairs=min ...     # per classifier kept

It prints, per subset size, the statistic and the mean ranks on the blocks every reading has,
beside the paper's printed statistic and the statistic of the paper's own cells on those
blocks, and then each distance's mean difference from the paper's cells (run - paper).

    python scripts/deviations/hydrmi_table6_readings.py min=RUN_DIR[,RUN_DIR...] avg=RUN_DIR
    python scripts/deviations/hydrmi_table6_readings.py "reference max=MAX_RUN,ADAPTED_RUN"

A reading's label names the distances its runs replace, then NAME and "pairs" ("adapted, max,
reference max pairs" for the second line: runs with ``+solvers.NAME.max_witness=reference``
and ``grid.distance=[max]`` and ``[adapted]``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from svmlab.reproduce.document import read_published
from svmlab.reproduce.documents.hydrmi_relieff import distance_friedman, relieff_cells
from svmlab.results import load_results

KEPT = Path("docs/reproductions/runs/hydrmi_relieff/reproduce")
BLOCK = ["percent", "dataset", "algorithm"]


def readings(kept: Path, others: dict[str, list[Path]]) -> dict[str, pd.DataFrame]:
    """reading -> its Tables 2-5 cells, all on the blocks every reading has, 10-60 %."""
    base = relieff_cells(load_results(kept))
    base = base[base["percent"] <= 60]
    cells = {"as the paper writes it": base}
    for name, runs in others.items():
        alt = pd.concat([relieff_cells(load_results(run)) for run in runs])
        alt = alt[alt["percent"] <= 60]
        if alt.duplicated(["distance", *BLOCK]).any():
            raise SystemExit(f"{name}: two of its runs have cells of the same distance and block")
        replaced = sorted(set(alt["distance"]))
        label = ", ".join(replaced)
        unchanged = base[~base["distance"].isin(replaced)]
        cells[f"{label}, {name} pairs"] = pd.concat([unchanged, alt])
    paper = read_published("hydrmi_t2_t5_relieff_accuracy.csv").reset_index()
    cells["the paper's cells"] = paper
    common = None
    for table in cells.values():
        full = table.groupby(BLOCK)["distance"].nunique().loc[lambda n: n == 4].index
        common = full if common is None else common.intersection(full)
    return {
        k: t.set_index(BLOCK).loc[lambda t: t.index.isin(common)].reset_index()
        for k, t in cells.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "runs", nargs="*", metavar="NAME=RUN_DIR[,RUN_DIR]", help="the runs of a reading"
    )
    parser.add_argument("--kept", type=Path, default=KEPT, help="the run of the paper's reading")
    args = parser.parse_args()
    others = dict(item.split("=", 1) for item in args.runs)
    printed = read_published("hydrmi_t6_friedman.csv")
    rows, deltas = [], {}
    cells_of = readings(args.kept, {k: [Path(r) for r in v.split(",")] for k, v in others.items()})
    paper = cells_of["the paper's cells"].set_index(["distance", *BLOCK])["accuracy"]
    for name, cells in cells_of.items():
        run = cells.set_index(["distance", *BLOCK])["accuracy"]
        deltas[name] = (run - paper.reindex(run.index)).groupby(level="distance").mean()
        for percent, g in cells.groupby("percent"):
            test = distance_friedman(g)
            rows.append(
                {"reading": name, "subset": f"{percent}%", "N": test["N"], "chi2": test["chi2"]}
                | {f"rank {d}": r for d, r in test["ranks"].items()}
                | {"chi2 printed": printed.loc[percent, "chi2"]}
            )
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format="%.2f"))
    print("\nmean over the subset sizes:")
    means = table.groupby("reading", sort=False).mean(numeric_only=True)
    print(means.to_string(float_format="%.2f"))
    print("\nmean accuracy minus the paper's, per distance:")
    print(pd.DataFrame(deltas).T.drop(index="the paper's cells").to_string(float_format="%+.3f"))


if __name__ == "__main__":
    main()
