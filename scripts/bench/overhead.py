"""svmlab's own cost per task against a plain loop doing the same work, in the same run.

Usage::

    python scripts/bench/overhead.py [--tasks 2000,10000] [--workers 1,2] [--runs 3]

For each task count N the script runs, as whole processes and alternately (so that both
see the same machine load), ``--runs`` times each:

* the **plain loop**: one Python process that loads iris, and for each of N repetitions
  draws a stratified 70/30 split with scikit-learn, fits and applies a majority-class
  classifier, computes the confusion matrix and the accuracy, balanced accuracy and macro
  F1 from it, and at the end writes all rows to one Parquet file - the physical limit of
  this work, start-up included;
* **svmlab**: ``svmlab run +experiment=scale_100k protocol.n_repeats=N runner=local
  runner.n_jobs=W`` for each W of ``--workers`` (planning, resume check, batched dispatch,
  group commit, consolidation and the summary table included).

It prints the median CPU seconds (user + system of the process and all its child
processes, from ``getrusage``; svmlab stops its worker processes before it exits so their
time is counted), the CPU milliseconds per task and the ratio svmlab / plain loop, with the
target (at most 1.5) and PASS or FAIL. Wall time is printed too, for information: on a
busy machine it says little.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.5

PLAIN_LOOP = r"""
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from sklearn.datasets import load_iris
from sklearn.dummy import DummyClassifier
from sklearn.metrics import confusion_matrix
from sklearn.model_selection import train_test_split

n, out = int(sys.argv[1]), sys.argv[2]
X, y = load_iris(return_X_y=True)
classes = np.unique(y)
rows = []
for i in range(n):
    train, test = train_test_split(
        np.arange(len(y)), test_size=0.3, random_state=i, stratify=y
    )
    t0 = time.perf_counter()
    model = DummyClassifier(strategy="most_frequent").fit(X[train], y[train])
    fit_time = time.perf_counter() - t0
    C = confusion_matrix(y[test], model.predict(X[test]), labels=classes)
    hits, actual, predicted = np.diag(C), C.sum(1), C.sum(0)
    recall = np.divide(hits, actual, out=np.zeros(len(hits)), where=actual > 0)
    precision = np.divide(hits, predicted, out=np.zeros(len(hits)), where=predicted > 0)
    both = precision + recall
    f1 = np.divide(2 * precision * recall, both, out=np.zeros(len(hits)), where=both > 0)
    rows.append(
        {"repeat": i, "accuracy": hits.sum() / C.sum(), "balanced_accuracy": recall.mean(),
         "f1_macro": f1.mean(), "fit_time": fit_time}
    )
pq.write_table(pa.Table.from_pylist(rows), out)
"""


def measured(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """``(cpu seconds, wall seconds)`` of a command and all its child processes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def svmlab_cmd(n: int, workers: int, results: Path) -> list[str]:
    return [
        sys.executable, "-m", "svmlab", "run", "+experiment=scale_100k",
        f"protocol.n_repeats={n}", "runner=local", f"runner.n_jobs={workers}",
        f"results_dir={results}", "runner.progress=false",
    ]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tasks", default="2000,10000", help="task counts, comma-separated")
    ap.add_argument("--workers", default="1,2", help="runner.n_jobs values, comma-separated")
    ap.add_argument("--runs", type=int, default=3, help="runs of each command (median)")
    args = ap.parse_args()
    counts = [int(v) for v in args.tasks.split(",")]
    workers = [int(v) for v in args.workers.split(",")]
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the same for both sides
    print(f"svmlab vs a plain loop, {args.runs} runs each (median); CPU = user + system")
    print(f"{'tasks':>7} {'command':<22} {'CPU s':>8} {'ms/task':>8} {'wall s':>7} {'ratio':>6}")
    verdicts = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for n in counts:
            plain, ours = [], {w: [] for w in workers}
            for r in range(args.runs):
                plain.append(
                    measured(
                        [sys.executable, "-c", PLAIN_LOOP, str(n), str(tmp / "p.parquet")], tmp
                    )
                )
                for w in workers:
                    ours[w].append(measured(svmlab_cmd(n, w, tmp / f"r{n}-{w}-{r}"), tmp))
            base = statistics.median(c for c, _ in plain)
            wall = statistics.median(t for _, t in plain)
            print(f"{n:>7} {'plain loop':<22} {base:>8.2f} {1e3 * base / n:>8.3f} {wall:>7.1f}")
            for w in workers:
                cpu = statistics.median(c for c, _ in ours[w])
                wall = statistics.median(t for _, t in ours[w])
                ratio = cpu / base
                verdicts.append(ratio <= TARGET)
                label = f"svmlab, {w} worker{'s' if w > 1 else ''}"
                print(
                    f"{n:>7} {label:<22} {cpu:>8.2f} {1e3 * cpu / n:>8.3f} {wall:>7.1f} "
                    f"{ratio:>5.2f}x  {'PASS' if ratio <= TARGET else 'FAIL'} (target <= {TARGET})"
                )
    print("all PASS" if all(verdicts) else "some FAIL")


if __name__ == "__main__":
    main()
