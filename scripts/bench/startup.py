"""CPU time of the commands that should start at once, against their targets.

Usage::

    python scripts/bench/startup.py [--runs 5] [--figures] [--check]

Each command runs as a whole process (``python -m svmlab ...``) and is charged the CPU time
(user + system) of that process, read with ``resource.getrusage(RUSAGE_CHILDREN)``: unlike
wall time it hardly moves when other work shares the machine. Printed per command: the median
CPU seconds over ``--runs`` runs, the target and PASS/FAIL. The targets (issue 34, item 2):

* ``svmlab stats TABLE --figures none`` on a 30 x 5 accuracy table: at most 1.5 s;
* ``svmlab --help``, ``svmlab list WHAT`` (every WHAT) and ``svmlab data list``: at most 0.5 s.

``--figures`` adds ``svmlab stats TABLE`` with its default PNG figures (no target: matplotlib
is imported to draw them). ``python -c pass`` is printed as the floor: the interpreter's own
start. ``--check`` exits with status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

STATS_TARGET = 1.5
LISTING_TARGET = 0.5
LIST_WHATS = ("datasets", "solvers", "protocols", "experiments", "runners", "metrics")


def accuracy_table(n_datasets: int = 30, n_methods: int = 5, seed: int = 0) -> str:
    """A dataset x method accuracy table as CSV text (values in [0.5, 1), fixed by ``seed``)."""
    rng = random.Random(seed)
    lines = ["dataset," + ",".join(f"method{j}" for j in range(n_methods))]
    for i in range(n_datasets):
        values = ",".join(f"{rng.uniform(0.5, 1.0):.4f}" for _ in range(n_methods))
        lines.append(f"dataset{i},{values}")
    return "\n".join(lines) + "\n"


def cpu_seconds(cmd: list[str], cwd: Path) -> float:
    """User + system CPU seconds of ``cmd`` run to its end (a failure stops the bench)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(figures: bool) -> list[tuple[str, list[str], float | None]]:
    """``(label, argv after python, target CPU seconds or None)`` of every command measured."""
    svmlab = ["-m", "svmlab"]
    out = [("python -c pass (the floor)", ["-c", "pass"], None)]
    stats = [*svmlab, "stats", "acc.csv"]
    out.append(("svmlab stats acc.csv --figures none", [*stats, "--figures", "none"], STATS_TARGET))
    if figures:
        out.append(("svmlab stats acc.csv (PNG figures)", stats, None))
    out.append(("svmlab --help", [*svmlab, "--help"], LISTING_TARGET))
    out += [(f"svmlab list {w}", [*svmlab, "list", w], LISTING_TARGET) for w in LIST_WHATS]
    out.append(("svmlab data list", [*svmlab, "data", "list"], LISTING_TARGET))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per command (the median is shown)")
    ap.add_argument("--figures", action="store_true", help="also time stats with PNG figures")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    missed = 0
    print(f"{'command':<40} {'CPU s':>7} {'target':>7}  result   (median of {args.runs} runs)")
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "acc.csv").write_text(accuracy_table())
        for label, argv, target in commands(args.figures):
            cmd = [sys.executable, *argv]
            cpu_seconds(cmd, cwd)  # warm the file cache
            median = statistics.median(cpu_seconds(cmd, cwd) for _ in range(args.runs))
            if target is None:
                verdict, shown = "", "-"
            else:
                verdict, shown = ("PASS" if median <= target else "FAIL"), f"{target:.2f}"
                missed += verdict == "FAIL"
            print(f"{label:<40} {median:7.2f} {shown:>7}  {verdict}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
