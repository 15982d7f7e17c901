"""HyDR-MI Table 6: does the adapted distance's class rule explain the run's ranking?

The adapted bag distance is the only one of the four that uses the labels: minimal Hausdorff
between two positive bags, average between two negative ones, maximal between classes
(docs/decisions/hydrmi.md). If the paper's positive class were the other one, the rule would
apply min and avg the other way round. This script fits ReliefF-MI in front of MIWrapper
(Naive Bayes) on the study's own 10 folds, with each distance as svmlab reads it and with the
two classes swapped, and prints the pooled accuracy beside the paper's cell (Tables 2-5).
With min, max and avg, swapping the classes changes nothing but tie-breaking, so those rows
show how much tie-breaking alone moves a cell.

    python scripts/deviations/hydrmi_adapted_roles.py [--fraction 0.1]   # about 2 CPU-minutes
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from _study import study_splits  # scripts/deviations/_study.py

from svmlab.estimators.mil import HyDRMIClassifier
from svmlab.estimators.mil.wrapper import MIWrapperClassifier
from svmlab.estimators.weka.naive_bayes import PrecisionNaiveBayes
from svmlab.reproduce.document import read_published

DATASETS = {"musk1": "Musk1", "elephant": "Elephant", "fox": "Fox", "tiger_andrews": "Tiger"}


def filtered_nb(distance: str, fraction: float) -> HyDRMIClassifier:
    """ReliefF-MI (the study's settings) in front of the study's MIWrapper (Naive Bayes)."""
    base = MIWrapperClassifier(
        method="geometric", weighting="bag_scaled", estimator=PrecisionNaiveBayes()
    )
    return HyDRMIClassifier(
        estimator=base, selection="relieff_mi", filter_fraction=fraction, distance=distance
    )


def pooled_accuracy(bags, y, splits, distance: str, fraction: float, swap: bool) -> float:
    """Accuracy pooled over the folds; ``swap`` exchanges the two class labels."""
    if swap:
        low, high = np.unique(y)
        y = np.where(y == low, high, low)
    correct = total = 0
    for split in splits.values():
        model = filtered_nb(distance, fraction).fit([bags[i] for i in split.train], y[split.train])
        correct += int((model.predict([bags[i] for i in split.test]) == y[split.test]).sum())
        total += len(split.test)
    return correct / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction", type=float, default=0.1, help="share of features kept")
    fraction = parser.parse_args().fraction
    published = read_published("hydrmi_t2_t5_relieff_accuracy.csv").reset_index()
    published = published[
        (published.algorithm == "MIWrapper (Naive Bayes)")
        & (published.percent == round(fraction * 100))
    ]
    rows = []
    for name, label in DATASETS.items():
        ds, splits = study_splits("hydrmi_relieff", name)
        bags, y = list(ds.bags), np.asarray(ds.y)
        for distance in ("min", "max", "avg", "adapted"):
            paper = published[(published.dataset == label) & (published.distance == distance)]
            rows.append(
                {
                    "dataset": label,
                    "distance": distance,
                    "as read": pooled_accuracy(bags, y, splits, distance, fraction, False),
                    "classes swapped": pooled_accuracy(bags, y, splits, distance, fraction, True),
                    "paper": float(paper.accuracy.iloc[0]),
                }
            )
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format="%.3f"))
    print("\nmean over the data sets:")
    print(table.groupby("distance", sort=False)[["as read", "classes swapped", "paper"]].mean())


if __name__ == "__main__":
    main()
