"""HyDR-MI Table 6: why does the adapted distance rank last in the run and first in the paper?

The adapted bag distance is the only one of the four that uses the labels: minimal Hausdorff
between two positive bags, average between two negative ones, maximal between classes
(docs/decisions/hydrmi.md). As the paper writes it, ``diff_bag`` follows the same rule, so a
reference bag's hits are differenced on their closest (or average) instance pairs and its
misses on their farthest pair. This script fits ReliefF-MI in front of MIWrapper
(Naive Bayes) on the study's own 10 folds and prints the pooled accuracy beside the paper's
cell (Tables 2-5) for

* each distance as svmlab reads it (the run's cells exactly);
* the adapted distance with the two classes swapped (which class the rule calls positive);
* the adapted distance ranking the neighbours while every ``diff_bag`` is taken on one simple
  distance's instance pairs (``diff_pairs``).

A second table shows, on each data set's first training fold, what the weights measure: the
share of the non-constant features with a positive weight, and Spearman's rho between the
weight and its miss term alone (how far the misses' witness pairs lie apart on the feature).

    python scripts/deviations/hydrmi_adapted_roles.py [--fraction 0.1]   # about 1 CPU-minute
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from _study import study_estimator, study_splits  # scripts/deviations/_study.py
from scipy.stats import spearmanr
from sklearn.base import clone

from svmlab.reproduce.document import read_published
from svmlab.selection import relieff_mi_terms

DATASETS = {"musk1": "Musk1", "elephant": "Elephant", "fox": "Fox", "tiger_andrews": "Tiger"}

#: reading -> (distance, diff_pairs, swap the classes)
READINGS = {
    "min": ("min", "distance", False),
    "max": ("max", "distance", False),
    "avg": ("avg", "distance", False),
    "adapted": ("adapted", "distance", False),
    "adapted, classes swapped": ("adapted", "distance", True),
    "adapted, min pairs": ("adapted", "min", False),
    "adapted, avg pairs": ("adapted", "avg", False),
    "adapted, max pairs": ("adapted", "max", False),
}


def pooled_accuracy(bags, y, splits, reading: str, fraction: float) -> float:
    """Accuracy pooled over the folds under one of :data:`READINGS`."""
    distance, diff_pairs, swap = READINGS[reading]
    if swap:
        low, high = np.unique(y)
        y = np.where(y == low, high, low)
    study = study_estimator(
        "hydrmi_relieff",
        "relieff_miwrapper_nb",
        distance=distance,
        diff_pairs=diff_pairs,
        filter_fraction=fraction,
    )
    correct = total = 0
    for split in splits.values():
        model = clone(study)
        model.fit([bags[i] for i in split.train], y[split.train])
        correct += int((model.predict([bags[i] for i in split.test]) == y[split.test]).sum())
        total += len(split.test)
    return correct / total


def what_the_weights_measure(bags, y, split, dataset: str) -> list[dict]:
    """Per distance: positive share of the weights and rho(weight, miss term), one fold."""
    train = [bags[i] for i in split.train]
    rows = []
    for distance in ("min", "max", "avg", "adapted"):
        terms = relieff_mi_terms(train, y[split.train], distance=distance)
        live = terms.span > 0
        w = terms.weights[live]
        rows.append(
            {
                "dataset": dataset,
                "distance": distance,
                "positive weights": float(np.mean(w > 0)),
                "rho(weight, misses)": float(spearmanr(w, terms.misses[live])[0]),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction", type=float, default=0.1, help="share of features kept")
    fraction = parser.parse_args().fraction
    published = read_published("hydrmi_t2_t5_relieff_accuracy.csv").reset_index()
    published = published[
        (published.algorithm == "MIWrapper (Naive Bayes)")
        & (published.percent == round(fraction * 100))
    ]
    rows, measures = [], []
    for name, label in DATASETS.items():
        ds, splits = study_splits("hydrmi_relieff", name)
        bags, y = list(ds.bags), np.asarray(ds.y)
        measures += what_the_weights_measure(bags, y, next(iter(splits.values())), label)
        paper = published[published.dataset == label].set_index("distance").accuracy
        for reading in READINGS:
            row = {"dataset": label, "reading": reading}
            row["svmlab"] = pooled_accuracy(bags, y, splits, reading, fraction)
            row["paper"] = float(paper[reading]) if reading in paper.index else np.nan
            rows.append(row)
    table = pd.DataFrame(rows).pivot(index="reading", columns="dataset", values="svmlab")
    table = table.loc[list(READINGS)]
    table["mean"] = table.mean(axis=1)
    paper = pd.DataFrame(rows).groupby("reading", sort=False)["paper"].mean()
    table["paper (mean)"] = paper
    print(f"MIWrapper (Naive Bayes) behind ReliefF-MI, top {fraction:.0%}, pooled accuracy:")
    print(table.to_string(float_format="%.3f"))
    print("\nWhat the weights measure (first training fold):")
    wide = pd.DataFrame(measures).pivot(index="distance", columns="dataset")
    print(wide.loc[["min", "max", "avg", "adapted"]].to_string(float_format="%.2f"))


if __name__ == "__main__":
    main()
